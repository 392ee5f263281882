//! `/mcp` sessions, each bound to the principal that opened it (its user and the key it came
//! with), counted per user and for the whole server, and reclaimed when idle.
//!
//! The session id is a bearer of nothing: `mod.rs` answers a POST, GET or DELETE naming a session
//! of another principal with the same 404 as an unknown session, so a session id seen in a log or
//! over a shoulder gives neither its elicitations, its notifications nor the power to end it. And
//! the requests a session sends its client (elicitations) carry ids that cannot be guessed — 128
//! random bits, never the SDK's counter from 0 —, an answer to any other id is dropped.
//!
//! Places are taken before a session exists: `mod.rs` reserves one for each `initialize`
//! ([`Sessions::reserve`], refused over a cap) and hands it to [`Sessions::create_session`]
//! through a task-local ([`OPENING`]) — the session manager's API does not carry the request —,
//! so a session is bound to its principal the moment its id is made, and concurrent
//! `initialize`s never pass a cap. A place not used (the request opened no session) is given
//! back when it is dropped; a session's place when the session closes, however it closes.

use aware_domain::auth::Principal;
use aware_domain::ids::{ApiKeyId, UserId};
use futures::Stream;
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, JsonRpcMessage, NumberOrString, RequestId, ServerJsonRpcMessage, ServerNotification,
};
use rmcp::transport::Transport;
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Who opened a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Owner {
    user: UserId,
    key: Option<ApiKeyId>,
}

impl Owner {
    pub(super) fn of(principal: &Principal) -> Self {
        Self { user: principal.user_id.clone(), key: principal.key.clone() }
    }
}

/// How many sessions may be open.
#[derive(Clone, Copy, Debug)]
pub(super) struct Caps {
    /// Per user; `None` when users are not told apart (local mode).
    pub per_user: Option<usize>,
    pub total: usize,
}

/// Why an `initialize` opens no session.
#[derive(Debug)]
pub(super) enum Full {
    User(usize),
    Server(usize),
}

impl std::fmt::Display for Full {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::User(max) => write!(
                f,
                "too many open MCP sessions: a user may hold {max} at once (mcp.max_sessions_per_user); close one \
                 (DELETE /mcp with its Mcp-Session-Id) or wait for an idle one to be closed"
            ),
            Self::Server(max) => write!(
                f,
                "this server holds as many MCP sessions as it may ({max}, mcp.max_sessions); try again when some \
                 have closed"
            ),
        }
    }
}

/// A session manager's failure.
#[derive(Debug, thiserror::Error)]
pub(super) enum SessionsError {
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    /// A session was to be opened outside an `initialize` that reserved its place.
    #[error("a session is opened only by an initialize that holds a place")]
    NoPlace,
}

/// The open sessions' owners, and places counted before their sessions exist.
#[derive(Default)]
struct Book {
    owners: HashMap<SessionId, Owner>,
    per_user: HashMap<UserId, usize>,
    total: usize,
}

impl Book {
    fn release(&mut self, user: &UserId) {
        self.total = self.total.saturating_sub(1);
        if let Some(n) = self.per_user.get_mut(user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.per_user.remove(user);
            }
        }
    }
}

/// The session manager: rmcp's own in memory, with owners and caps.
pub(super) struct Sessions {
    local: LocalSessionManager,
    book: Arc<Mutex<Book>>,
    caps: Caps,
}

/// A place among the open sessions, held for one `initialize` and given back when dropped
/// unless a session took it.
pub(super) struct Place {
    book: Arc<Mutex<Book>>,
    owner: Owner,
    taken: bool,
}

impl Drop for Place {
    fn drop(&mut self) {
        if !self.taken {
            lock(&self.book).release(&self.owner.user);
        }
    }
}

/// The place the request being served reserved (an `initialize`), for `create_session`.
pub(super) type Opening = Arc<Mutex<Option<Place>>>;

tokio::task_local! {
    /// Set by `mod.rs` around the endpoint's handling of an `initialize`.
    pub(super) static OPENING: Opening;
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Sessions {
    /// `idle`: a session that hears nothing from its client for this long is closed.
    pub(super) fn new(caps: Caps, idle: Duration) -> Self {
        let mut local = LocalSessionManager::default();
        local.session_config.keep_alive = Some(idle);
        Self { local, book: Arc::default(), caps }
    }

    /// A place for a session `owner` is opening, or why there is none.
    pub(super) fn reserve(&self, owner: &Owner) -> Result<Place, Full> {
        let mut book = lock(&self.book);
        if book.total >= self.caps.total {
            return Err(Full::Server(self.caps.total));
        }
        let held = book.per_user.get(&owner.user).copied().unwrap_or(0);
        if let Some(max) = self.caps.per_user.filter(|max| held >= *max) {
            return Err(Full::User(max));
        }
        book.total += 1;
        *book.per_user.entry(owner.user.clone()).or_default() += 1;
        Ok(Place { book: self.book.clone(), owner: owner.clone(), taken: false })
    }

    /// Whether `id` names a session of someone other than `owner` (an unknown id is for rmcp to
    /// answer).
    pub(super) fn foreign(&self, id: &str, owner: &Owner) -> bool {
        lock(&self.book).owners.get(id).is_some_and(|o| o != owner)
    }
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = UnguessableIds<WorkerTransport<LocalSessionWorker>>;

    /// Takes the place the `initialize` being served reserved: the session is its owner's from
    /// the moment its id exists. Without one (never, through `mod.rs`), no session is opened.
    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let mut place =
            OPENING.try_with(|opening| lock(opening).take()).ok().flatten().ok_or(SessionsError::NoPlace)?;
        let (id, transport) = self.local.create_session().await?;
        place.taken = true;
        lock(&self.book).owners.insert(id.clone(), place.owner.clone());
        Ok((id, UnguessableIds::new(transport)))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.local.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.local.has_session(id).await?)
    }

    /// Called when a client ends its session (DELETE) and when a session's worker ends (idle,
    /// shutdown): its place is given back either way.
    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.local.close_session(id).await;
        let mut book = lock(&self.book);
        if let Some(owner) = book.owners.remove(id) {
            book.release(&owner.user);
        }
        Ok(closed?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.local.create_stream(id, message).await?)
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        Ok(self.local.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.local.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.local.resume(id, last_event_id).await?)
    }
}

/// A session's transport whose requests to the client (elicitations) carry random ids: the SDK
/// numbers them from 0, which anyone could guess. Answers are matched back to the SDK's ids; an
/// answer to an id this session never sent is dropped.
pub(super) struct UnguessableIds<T> {
    inner: T,
    /// The ids sent, and the SDK's id behind each.
    sent: Arc<Mutex<HashMap<Arc<str>, RequestId>>>,
}

impl<T> UnguessableIds<T> {
    fn new(inner: T) -> Self {
        Self { inner, sent: Arc::default() }
    }

    /// The id sent for the SDK's `id`, if one was.
    fn sent_for(&self, id: &RequestId) -> Option<RequestId> {
        lock(&self.sent).iter().find(|(_, theirs)| *theirs == id).map(|(ours, _)| NumberOrString::String(ours.clone()))
    }

    /// The SDK's id behind `id`, forgotten as its answer arrives.
    fn answered(&self, id: &RequestId) -> Option<RequestId> {
        match id {
            NumberOrString::String(ours) => lock(&self.sent).remove(ours),
            NumberOrString::Number(_) => None,
        }
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for UnguessableIds<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        mut item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        match &mut item {
            JsonRpcMessage::Request(request) => {
                let ours: Arc<str> = hex::encode(rand::random::<[u8; 16]>()).into();
                lock(&self.sent).insert(ours.clone(), request.id.clone());
                request.id = NumberOrString::String(ours);
            }
            // The SDK gives up on a request (a timeout): the client hears it by the id it got.
            JsonRpcMessage::Notification(n) => {
                if let ServerNotification::CancelledNotification(c) = &mut n.notification
                    && let Some(theirs) = c.params.request_id.clone()
                    && let Some(ours) = self.sent_for(&theirs)
                {
                    self.answered(&ours);
                    c.params.request_id = Some(ours);
                }
            }
            JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {}
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let mut message = self.inner.receive().await?;
            let id = match &mut message {
                JsonRpcMessage::Response(r) => Some(&mut r.id),
                JsonRpcMessage::Error(e) => e.id.as_mut(),
                JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) => None,
            };
            let Some(id) = id else {
                if matches!(message, JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_)) {
                    return Some(message);
                }
                tracing::debug!("an MCP client's error answered no request; dropped");
                continue;
            };
            match self.answered(id) {
                Some(theirs) => {
                    *id = theirs;
                    return Some(message);
                }
                None => tracing::debug!("an MCP client answered a request this session never sent; dropped"),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}
