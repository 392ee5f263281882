//! aware as an MCP server: Streamable HTTP at `/mcp` on the API port, served by the official Rust
//! SDK (`rmcp`) with sessions and SSE resumption (`Last-Event-ID`). A request is authenticated as
//! a gRPC call is (bearer token; none in local mode) and its caller acts with the audit source
//! `mcp`; a response stream (a session's SSE) ends as soon as that token stops authenticating (a
//! revoked key, a deactivated user), and its reconnect is refused; the Host/Origin guard in front
//! of the port (`guard.rs`) refuses DNS-rebinding requests before they get here. A session
//! belongs to the principal that opened it: anyone else's request naming it is answered as for
//! an unknown session (404); opening one takes a place under the per-user and server-wide caps.
//!
//! Both eras of the protocol are served, negotiated per request: a 2025-11-25 (or older) client
//! opens a session with `initialize`; a 2026-07-28 client sends self-contained requests
//! (`server/discover`, per-request `_meta`) that open no session and take no session place.
//!
//! Its parts: this file (the layer that routes `/mcp`, authenticates and keeps sessions to their
//! owners), `sessions.rs` (sessions: owners, caps, idle reclaim, request ids nobody can guess),
//! `handler.rs` (the MCP methods), `tools.rs` (aware's tools as MCP tools: schemas, annotations),
//! `calls.rs` (a call's answer: its result, or — when a person must approve — a task, an
//! `input_required` result or a pointer, never a call blocked for the approval's lifetime),
//! `host_text.rs` (results as text a host's model reads), `tasks.rs` (the tasks extension over
//! runs), `follow.rs` (a call's run followed: progress, elicitation, where it stands) and
//! `catalog.rs` (datasets as resources, the seed questions as prompts).

mod calls;
mod catalog;
mod follow;
mod handler;
mod host_text;
mod results;
mod sessions;
mod tasks;
mod tools;

use crate::grpc::State;
use aware_domain::auth::Source;
use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sessions::{Caps, Full, OPENING, Owner, Sessions};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio_util::sync::CancellationToken;
use tower::{Layer, Service};

/// Where MCP is served on the API port.
pub const PATH: &str = "/mcp";

type Endpoint = StreamableHttpService<handler::AwareMcp, Sessions>;

/// The header that names a session.
const SESSION_HEADER: &str = "mcp-session-id";

/// The header that names the request's protocol revision.
const VERSION_HEADER: &str = "mcp-protocol-version";

/// Whether a request says it speaks a revision without sessions (2026-07-28 and later).
fn sessionless(req: &http::HeaderMap) -> bool {
    req.get(VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str())
}

/// Routes `/mcp` to the MCP endpoint; everything else goes on.
#[derive(Clone)]
pub struct McpLayer {
    state: State,
    endpoint: Endpoint,
    sessions: Arc<Sessions>,
}

impl McpLayer {
    /// `stop` ends every MCP session and stream (at shutdown).
    pub fn new(state: State, stop: CancellationToken) -> Self {
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(stop)
            .with_max_request_body_bytes(state.config.max_message_bytes())
            // Sessions, with event ids on SSE streams so a client resumes with `Last-Event-ID`.
            .with_legacy_session_mode(true)
            // The guard in front of the port checks Host and Origin against the configured hosts
            // and origins, for MCP as for gRPC and the web app.
            .disable_allowed_hosts();
        let mcp = &state.config.mcp;
        // Users are told apart with API keys only: local mode's one user has the server's cap.
        let caps =
            Caps { per_user: state.config.multi_user().then_some(mcp.max_sessions_per_user), total: mcp.max_sessions };
        let sessions = Arc::new(Sessions::new(caps, std::time::Duration::from_secs(mcp.session_idle_secs)));
        let for_sessions = state.clone();
        let endpoint = StreamableHttpService::new(
            move || Ok(handler::AwareMcp::new(for_sessions.clone())),
            sessions.clone(),
            config,
        );
        Self { state, endpoint, sessions }
    }
}

impl<S> Layer<S> for McpLayer {
    type Service = Mcp<S>;
    fn layer(&self, inner: S) -> Mcp<S> {
        Mcp { inner, state: self.state.clone(), endpoint: self.endpoint.clone(), sessions: self.sessions.clone() }
    }
}

#[derive(Clone)]
pub struct Mcp<S> {
    inner: S,
    state: State,
    endpoint: Endpoint,
    sessions: Arc<Sessions>,
}

impl<S, B> Service<Request<B>> for Mcp<S>
where
    S: Service<Request<B>, Response = Response<tonic::body::Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: std::fmt::Display,
{
    type Response = Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        if req.uri().path() != PATH {
            return Box::pin(self.inner.call(req));
        }
        let (state, mut endpoint, sessions) = (self.state.clone(), self.endpoint.clone(), self.sessions.clone());
        Box::pin(async move {
            let metadata = tonic::metadata::MetadataMap::from_headers(req.headers().clone());
            let mut caller = match state.caller(&metadata).await {
                Ok(caller) => caller,
                Err(status) => return Ok(refused(&status)),
            };
            caller.source = Source::Mcp;
            let owner = Owner::of(&caller.principal);
            let session = req.headers().get(SESSION_HEADER).map(|v| v.to_str().unwrap_or_default().to_owned());
            let mut opening = None;
            match session {
                // Someone else's session is no session at all, for this caller.
                Some(id) if sessions.foreign(&id, &owner) => return Ok(unknown_session()),
                Some(_) => {}
                // Without a session, a POST may open one (an `initialize`): it takes its place now.
                // A 2026-07-28 request opens none, so a full cap does not refuse it (an
                // `initialize` sent with that header still opens a session, and fails when no
                // place is left).
                None if req.method() == http::Method::POST => match sessions.reserve(&owner) {
                    Ok(place) => opening = Some(Arc::new(std::sync::Mutex::new(Some(place)))),
                    Err(_) if sessionless(req.headers()) => {}
                    Err(full) => return Ok(no_room(&full)),
                },
                None => {}
            }
            req.extensions_mut().insert(caller);
            let closing = req.method() == http::Method::DELETE;
            let call = endpoint.call(req);
            let response = match opening {
                Some(opening) => OPENING.scope(opening, call).await,
                None => call.await,
            }
            .unwrap_or_else(|e| match e {});
            let response = if closing { closed(response) } else { response };
            let revoked = Box::pin(access_withdrawn(state, metadata));
            Ok(response.map(|inner| tonic::body::Body::new(UntilRevoked { inner, revoked, ended: false })))
        })
    }
}

/// Resolves once access may have changed (a key revoked, a user deactivated) and `metadata` no
/// longer authenticates.
async fn access_withdrawn(state: State, metadata: tonic::metadata::MetadataMap) {
    let mut changes = state.auth.changes();
    while changes.changed().await.is_ok() {
        if state.auth.caller(&metadata).await.is_err() {
            return;
        }
    }
    std::future::pending().await
}

/// A response body that ends when its caller's access is withdrawn: an open event stream stops
/// there, and the client's reconnect meets the 401.
struct UntilRevoked<B> {
    inner: B,
    revoked: Pin<Box<dyn Future<Output = ()> + Send>>,
    ended: bool,
}

impl<B: http_body::Body + Unpin> http_body::Body for UntilRevoked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        if self.ended || self.revoked.as_mut().poll(cx).is_ready() {
            self.ended = true;
            return Poll::Ready(None);
        }
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.inner.is_end_stream()
    }
}

/// A session closed by DELETE: 204 No Content, as the SDKs expect (rmcp says 202 Accepted, which
/// the official Python SDK logs as "Session termination failed").
fn closed<B>(mut response: Response<B>) -> Response<B> {
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

/// What rmcp answers for a session it does not know, word for word: a session of someone else's
/// must not be told apart from one that does not exist.
fn unknown_session() -> Response<tonic::body::Body> {
    let mut response = Response::new(tonic::body::Body::new("Not Found: Session not found".to_owned()));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// An `initialize` that opens no session: 429 when its user holds as many as they may, 503 when
/// the server does; the reason as a JSON-RPC error (its id unread: the body is not parsed here).
fn no_room(full: &Full) -> Response<tonic::body::Body> {
    metrics::counter!("aware_limit_refusals_total", "limit" => "mcp_sessions").increment(1);
    let code = match full {
        Full::User(_) => StatusCode::TOO_MANY_REQUESTS,
        Full::Server(_) => StatusCode::SERVICE_UNAVAILABLE,
    };
    let body =
        serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": full.to_string()}});
    let mut response = Response::new(tonic::body::Body::new(body.to_string()));
    *response.status_mut() = code;
    response.headers_mut().insert(header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
    response
}

/// An unauthenticated (401, with the bearer challenge) or throttled (429) request.
fn refused(status: &tonic::Status) -> Response<tonic::body::Body> {
    let code = if status.code() == tonic::Code::Unauthenticated {
        StatusCode::UNAUTHORIZED
    } else if status.code() == tonic::Code::ResourceExhausted {
        StatusCode::TOO_MANY_REQUESTS
    } else {
        StatusCode::FORBIDDEN
    };
    let body = serde_json::json!({"error": status.message()}).to_string();
    let mut response = Response::new(tonic::body::Body::new(body));
    *response.status_mut() = code;
    response.headers_mut().insert(header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
    if code == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, http::HeaderValue::from_static("Bearer"));
    }
    response
}
