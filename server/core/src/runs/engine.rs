//! The run engine: admits messages into threads (one active run per thread, `on_busy`), starts a
//! driver task per run, fans events out to live subscribers, resolves confirmations and cancels.
//! Transport-agnostic: the gRPC layer calls these methods for `Chat` and its unary companions.

use super::driver;
use super::events::{Resolution, RunEvent, RunPhase};
use super::model::LanguageModel;
use super::store::{ChatRun, Created, RunLog, Snapshot};
use super::tools::SystemInfo;
use crate::auth::Caller;
use crate::datasets::DatasetService;
use crate::files::FileService;
use crate::history::RunHistory;
use crate::ids::{ConfirmationId, MAX_THREAD_NAME, RunId, ThreadId, UserId};
use crate::policy::Policy;
use crate::ports::AuditLog;
use crate::query::QueryService;
use crate::run::{RunKind, RunRecord, RunStatus};
use crate::{Error, ErrorCode, Result};
use chrono::{DateTime, Utc};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, broadcast, watch};

/// Limits and timings of runs.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub max_iterations: u32,
    pub max_tool_calls: u32,
    pub tool_timeout: Duration,
    pub confirmation_ttl: Duration,
    pub max_active_runs_per_user: u32,
    /// Test aid: every tool sleeps this long between its intent row and its side effect.
    pub tool_delay: Duration,
    /// How many earlier runs of the thread the model sees.
    pub history_runs: u32,
    /// Emit the router's output and the gate's decision as a `RoutingDecided` event.
    pub debug_routing: bool,
    /// Let the model refine the heuristic route (one extra, tool-less model call per run).
    pub llm_router: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            max_iterations: 5,
            max_tool_calls: 5,
            tool_timeout: Duration::from_secs(10),
            confirmation_ttl: Duration::from_secs(60),
            max_active_runs_per_user: 8,
            tool_delay: Duration::ZERO,
            history_runs: 10,
            debug_routing: false,
            llm_router: false,
        }
    }
}

/// What a second message to a busy thread does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OnBusy {
    #[default]
    Reject,
    Enqueue,
    Interrupt,
}

/// A user message to process.
pub struct NewMessage {
    pub client_msg_id: String,
    pub thread_id: String,
    pub text: String,
    pub on_busy: OnBusy,
}

/// The outcome of admitting a message.
#[derive(Clone, Debug, PartialEq)]
pub enum Admission {
    Started {
        run_id: RunId,
        thread_id: ThreadId,
        queued: bool,
    },
    /// The client message id was seen before: this is the run it started.
    Repeated {
        run_id: RunId,
        thread_id: ThreadId,
    },
    /// The thread is busy and `on_busy` is REJECT.
    Busy {
        active_run_id: RunId,
    },
}

/// The in-memory side of a run that has not finished: its fan-out channel and controls.
pub(crate) struct Live {
    pub owner: UserId,
    pub tx: broadcast::Sender<Arc<RunEvent>>,
    pub cancel: watch::Sender<Option<Resolution>>,
    pub confirm: Notify,
    pub last_seq: AtomicU64,
    pub state: Mutex<LiveState>,
}

pub(crate) struct LiveState {
    pub phase: RunPhase,
    pub confirmation_expires: Option<DateTime<Utc>>,
}

impl Live {
    fn new(owner: UserId, cancelled: Option<Resolution>) -> Arc<Self> {
        Arc::new(Self {
            owner,
            tx: broadcast::channel(1024).0,
            cancel: watch::channel(cancelled).0,
            confirm: Notify::new(),
            last_seq: AtomicU64::new(0),
            state: Mutex::new(LiveState { phase: RunPhase::Queued, confirmation_expires: None }),
        })
    }
}

/// A run's state for heartbeats.
#[derive(Clone, Debug, PartialEq)]
pub struct ActiveRunInfo {
    pub run_id: RunId,
    pub phase: RunPhase,
    pub last_seq: u64,
    pub confirmation_ms_left: u64,
}

#[derive(Default)]
struct ThreadState {
    active: Option<RunId>,
    queue: VecDeque<RunId>,
}

pub(crate) struct Inner {
    pub log: Arc<dyn RunLog>,
    pub model: Arc<dyn LanguageModel>,
    pub policy: Policy,
    pub datasets: DatasetService,
    pub files: FileService,
    pub query: QueryService,
    pub history: RunHistory,
    pub audit: Arc<dyn AuditLog>,
    pub system: SystemInfo,
    pub config: EngineConfig,
    live: Mutex<HashMap<RunId, Arc<Live>>>,
    threads: Mutex<HashMap<ThreadId, ThreadState>>,
    admission: tokio::sync::Mutex<()>,
}

/// Starts the driver task of a run; `fresh` when it was never driven before (not a recovery).
pub(crate) fn spawn_driver(inner: Arc<Inner>, run_id: RunId, fresh: bool) {
    // A run is its own trace (it outlives the RPC that started it and continues after a restart);
    // its span links to what started it — an RPC, or the run before it on the thread — by id
    // only, so that span still closes when its own work ends.
    let span = tracing::info_span!(
        parent: None,
        "run",
        run_id = %run_id,
        user = tracing::field::Empty,
        thread = tracing::field::Empty,
    );
    span.follows_from(tracing::Span::current());
    tokio::spawn(async move {
        let live = inner.live.lock().expect("live map").get(&run_id).cloned();
        if let Some(live) = live {
            driver::drive(inner.clone(), run_id.clone(), live, fresh, span).await;
        }
        // Normally done by the driver before `RunCompleted` goes out; this covers a driver
        // that could not finish.
        Inner::release(&inner, &run_id);
    });
}

impl Inner {
    /// A run is over: it leaves the live map and its thread, and the thread's next queued run
    /// starts. Idempotent. Called before `RunCompleted` is broadcast, so a client that sees the
    /// event can send the thread's next message at once.
    pub(crate) fn release(inner: &Arc<Inner>, run_id: &RunId) {
        inner.live.lock().expect("live map").remove(run_id);
        let next = {
            let mut threads = inner.threads.lock().expect("thread map");
            let mut next = None;
            for state in threads.values_mut() {
                if state.active.as_ref() == Some(run_id) {
                    state.active = state.queue.pop_front();
                    next.clone_from(&state.active);
                    break;
                }
            }
            threads.retain(|_, s| s.active.is_some() || !s.queue.is_empty());
            next
        };
        if let Some(next) = next {
            // Only runs never driven wait in a queue (status queued), so there is nothing to restore.
            spawn_driver(inner.clone(), next, true);
        }
    }
}

/// The domain services tools act through.
pub struct Services {
    pub datasets: DatasetService,
    pub files: FileService,
    pub query: QueryService,
    pub history: RunHistory,
    pub audit: Arc<dyn AuditLog>,
}

/// The run engine. Cheap to clone.
#[derive(Clone)]
pub struct RunEngine {
    inner: Arc<Inner>,
}

fn user_error(code: ErrorCode, message: impl Into<String>) -> Error {
    Error::new(code, message)
}

impl RunEngine {
    pub fn new(
        log: Arc<dyn RunLog>,
        model: Arc<dyn LanguageModel>,
        policy: Policy,
        services: Services,
        system: SystemInfo,
        config: EngineConfig,
    ) -> Self {
        let Services { datasets, files, query, history, audit } = services;
        Self {
            inner: Arc::new(Inner {
                log,
                model,
                policy,
                datasets,
                files,
                query,
                history,
                audit,
                system,
                config,
                live: Mutex::new(HashMap::new()),
                threads: Mutex::new(HashMap::new()),
                admission: tokio::sync::Mutex::new(()),
            }),
        }
    }

    pub fn config(&self) -> &EngineConfig {
        &self.inner.config
    }

    /// The policy gate runs are checked against.
    pub fn policy(&self) -> &Policy {
        &self.inner.policy
    }

    pub fn model_name(&self) -> &str {
        self.inner.model.name()
    }

    /// Continues every run that had not finished when the server last stopped (crash recovery).
    /// Call once at startup, before serving.
    pub async fn recover(&self) -> Result<usize> {
        let runs = self.inner.log.unfinished_chat_runs().await?;
        let n = runs.len();
        let mut to_start = Vec::new();
        {
            let mut live = self.inner.live.lock().expect("live map");
            let mut threads = self.inner.threads.lock().expect("thread map");
            for run in &runs {
                let id = run.record.id.clone();
                let cancelled = run.cancel_requested.then_some(Resolution::Cancelled);
                live.insert(id.clone(), Live::new(run.record.owner.clone(), cancelled));
                let Some(thread) = run.record.thread_id.clone() else { continue };
                let state = threads.entry(thread).or_default();
                if run.record.status == RunStatus::Queued && !run.cancel_requested {
                    state.queue.push_back(id);
                } else {
                    // A second active run in one thread cannot happen; if it did, it is driven to
                    // its end anyway, without holding the thread.
                    if state.active.is_none() {
                        state.active = Some(id.clone());
                    }
                    to_start.push(id);
                }
            }
            for state in threads.values_mut() {
                if state.active.is_none()
                    && let Some(next) = state.queue.pop_front()
                {
                    state.active = Some(next.clone());
                    to_start.push(next);
                }
            }
        }
        for id in to_start {
            self.spawn_driver(id, false);
        }
        Ok(n)
    }

    fn spawn_driver(&self, run_id: RunId, fresh: bool) {
        spawn_driver(self.inner.clone(), run_id, fresh);
    }

    pub(crate) fn live(&self, run_id: &RunId) -> Option<Arc<Live>> {
        self.inner.live.lock().expect("live map").get(run_id).cloned()
    }

    async fn owned_run(&self, caller: &Caller, run_id: &str) -> Result<ChatRun> {
        let id = RunId::parse(run_id).ok_or_else(|| user_error(ErrorCode::UnknownRun, "a run id is required"))?;
        match self.inner.log.chat_run(&id).await? {
            Some(run) if run.record.owner == caller.principal.user_id => Ok(run),
            _ => Err(user_error(ErrorCode::UnknownRun, format!("there is no run {id}"))),
        }
    }

    /// The caller's thread `raw` (a new one when empty), created on first use. A thread id names
    /// a thread of its user only, so whatever id another user picks, it is a thread of their own.
    async fn thread(&self, caller: &Caller, raw: &str) -> Result<ThreadId> {
        let owner = &caller.principal.user_id;
        let thread = if raw.trim().is_empty() {
            ThreadId::generate_for(owner)
        } else {
            ThreadId::for_user(owner, raw).ok_or_else(|| {
                Error::validation("thread_id", format!("a thread id is 1 to {MAX_THREAD_NAME} printable characters"))
            })?
        };
        if !self.inner.log.ensure_thread(owner, &thread).await? {
            return Err(Error::internal(format!("thread {thread} is stored under another owner")));
        }
        Ok(thread)
    }

    /// Admits a user message: starts a run, queues it, or reports the thread busy.
    pub async fn send_message(&self, caller: &Caller, message: NewMessage) -> Result<Admission> {
        let text = message.text.trim();
        if text.is_empty() {
            return Err(Error::validation("message.text", "the message is empty"));
        }
        if text.chars().count() > 16_000 {
            return Err(Error::validation("message.text", "a message is at most 16,000 characters"));
        }
        if message.client_msg_id.len() > 128 {
            return Err(Error::validation("client_msg_id", "a client message id is at most 128 characters"));
        }
        let owner = &caller.principal.user_id;
        let repeated = |run: ChatRun| Admission::Repeated {
            run_id: run.record.id,
            thread_id: run.record.thread_id.unwrap_or_else(|| ThreadId::generate_for(&run.record.owner)),
        };
        if !message.client_msg_id.is_empty()
            && let Some(id) = self.inner.log.run_by_client_msg(owner, &message.client_msg_id).await?
            && let Some(run) = self.inner.log.chat_run(&id).await?
        {
            return Ok(repeated(run));
        }
        let thread = self.thread(caller, &message.thread_id).await?;
        let _admission = self.inner.admission.lock().await;
        let active = self.inner.threads.lock().expect("thread map").get(&thread).and_then(|s| s.active.clone());
        if let (Some(active_run_id), OnBusy::Reject) = (&active, message.on_busy) {
            return Ok(Admission::Busy { active_run_id: active_run_id.clone() });
        }
        let active_for_user = self.inner.live.lock().expect("live map").values().filter(|l| &l.owner == owner).count();
        if active_for_user >= self.inner.config.max_active_runs_per_user as usize {
            return Err(Error::resource_exhausted(format!(
                "at most {} runs may be active per user; wait for one to finish",
                self.inner.config.max_active_runs_per_user
            )));
        }
        let queued = active.is_some();
        let mut record = RunRecord::new(
            owner.clone(),
            RunKind::Chat,
            text,
            if queued { RunStatus::Queued } else { RunStatus::Running },
        );
        record.thread_id = Some(thread.clone());
        record.client_msg_id = (!message.client_msg_id.is_empty()).then(|| message.client_msg_id.clone());
        record.model = Some(self.inner.model.name().to_owned());
        if message.on_busy == OnBusy::Interrupt {
            record.parent_run_id.clone_from(&active);
        }
        let run = ChatRun { record, role: caller.principal.role, cancel_requested: false };
        match self.inner.log.create_chat_run(&run).await? {
            Created::New => {}
            Created::Existing(id) => {
                let run = self.inner.log.chat_run(&id).await?.ok_or_else(|| Error::internal("run vanished"))?;
                return Ok(repeated(run));
            }
        }
        let run_id = run.record.id.clone();
        self.inner.live.lock().expect("live map").insert(run_id.clone(), Live::new(owner.clone(), None));
        // Decide under the thread lock: the active run may have finished since it was read.
        // A queued run is started by `release` of the run before it; this call starts it only
        // when the thread is free now.
        let (started_now, interrupt) = {
            let mut threads = self.inner.threads.lock().expect("thread map");
            let state = threads.entry(thread.clone()).or_default();
            match (state.active.clone(), message.on_busy) {
                (None, _) => {
                    state.active = Some(run_id.clone());
                    (true, None)
                }
                (Some(active), OnBusy::Interrupt) => {
                    state.queue.push_front(run_id.clone());
                    (false, Some(active))
                }
                (Some(_), _) => {
                    state.queue.push_back(run_id.clone());
                    (false, None)
                }
            }
        };
        if let Some(active) = interrupt {
            self.cancel_run(&active, Resolution::Superseded).await?;
        }
        if started_now {
            self.spawn_driver(run_id.clone(), true);
        }
        Ok(Admission::Started { run_id, thread_id: thread, queued: !started_now })
    }

    async fn cancel_run(&self, run_id: &RunId, why: Resolution) -> Result<()> {
        self.inner.log.request_cancel(run_id).await?;
        let queued_cancel = {
            let mut threads = self.inner.threads.lock().expect("thread map");
            let mut found = false;
            for state in threads.values_mut() {
                if let Some(pos) = state.queue.iter().position(|id| id == run_id) {
                    state.queue.remove(pos);
                    found = true;
                }
            }
            found
        };
        if let Some(live) = self.live(run_id) {
            live.cancel.send_replace(Some(why));
            live.confirm.notify_one();
        }
        if queued_cancel {
            // A queued run never started: its driver runs now, sees the cancel and ends it.
            self.spawn_driver(run_id.clone(), true);
        }
        Ok(())
    }

    /// Cancels a run (idempotent). Returns its status: CANCELLED, or the terminal status it
    /// already had.
    pub async fn cancel(&self, caller: &Caller, run_id: &str) -> Result<RunStatus> {
        let run = self.owned_run(caller, run_id).await?;
        if run.record.status.is_terminal() {
            return Ok(run.record.status);
        }
        self.cancel_run(&run.record.id, Resolution::Cancelled).await?;
        Ok(RunStatus::Cancelled)
    }

    /// A person's answer to a confirmation. Only its owner, only while pending and unexpired;
    /// the same answer twice is idempotent, a different one is ALREADY_RESOLVED.
    pub async fn resolve_confirmation(&self, caller: &Caller, id: &str, approved: bool) -> Result<(RunId, Resolution)> {
        let cid = ConfirmationId::parse(id)
            .ok_or_else(|| Error::validation("confirmation_id", "a confirmation id is required"))?;
        let not_found = || Error::not_found("confirmation", &cid).with_field("confirmation_id");
        let conf = self.inner.log.confirmation(&cid).await?.ok_or_else(not_found)?;
        if conf.owner != caller.principal.user_id {
            return Err(not_found());
        }
        let wanted = if approved { Resolution::Approved } else { Resolution::Denied };
        let mut status = conf.status;
        if status == Resolution::Pending {
            if Utc::now() >= conf.expires_at {
                self.inner.log.resolve_confirmation(&cid, Resolution::Expired, None).await?;
                if let Some(live) = self.live(&conf.run_id) {
                    live.confirm.notify_one();
                }
                return Err(user_error(ErrorCode::ConfirmationExpired, "this confirmation has expired"));
            }
            if self.inner.log.resolve_confirmation(&cid, wanted, Some(&caller.principal.user_id)).await? {
                if let Some(live) = self.live(&conf.run_id) {
                    live.confirm.notify_one();
                }
                return Ok((conf.run_id, wanted));
            }
            status = self.inner.log.confirmation(&cid).await?.map_or(Resolution::Pending, |c| c.status);
        }
        match status {
            s if s == wanted => Ok((conf.run_id, wanted)),
            Resolution::Expired => Err(user_error(ErrorCode::ConfirmationExpired, "this confirmation has expired")),
            s => Err(user_error(ErrorCode::AlreadyResolved, format!("this confirmation was already {}", s.as_str()))),
        }
    }

    /// Stores the latest UI state of a thread (never older than the stored one). The snapshot's
    /// `thread_id` is the client's name for the thread.
    pub async fn update_state(&self, caller: &Caller, mut snapshot: Snapshot) -> Result<(ThreadId, u64)> {
        snapshot.check()?;
        let raw = snapshot.thread_id.as_ref().map(|t| t.as_str().to_owned()).unwrap_or_default();
        let thread = self.thread(caller, &raw).await?;
        snapshot.thread_id = Some(thread.clone());
        let version = self.inner.log.save_snapshot(&thread, &snapshot).await?;
        Ok((thread, version))
    }

    /// A subscription to a run's events after `after_seq`: the stored log, then the live tail,
    /// with no gap and no duplicate at the seam.
    pub async fn subscribe(&self, caller: &Caller, run_id: &str, after_seq: u64) -> Result<Subscription> {
        let run = self.owned_run(caller, run_id).await?;
        let id = run.record.id;
        // Subscribe to the live tail first, then read the log.
        let rx = self.live(&id).map(|l| l.tx.subscribe());
        let last = self.inner.log.last_seq(&id).await?;
        if after_seq > last {
            return Err(Error::new(
                ErrorCode::CursorAhead,
                format!("the run's log ends at seq {last}; cannot resume after {after_seq}"),
            ));
        }
        let backlog: VecDeque<Arc<RunEvent>> =
            self.inner.log.events(&id, after_seq, u32::MAX).await?.into_iter().map(Arc::new).collect();
        let done = backlog.back().is_some_and(|e| e.is_terminal());
        Ok(Subscription {
            finished: run.record.status.is_terminal() || done,
            log: self.inner.log.clone(),
            run_id: id,
            last: after_seq,
            replay_until: backlog.back().map_or(after_seq, |e| e.seq),
            backlog,
            rx,
            done,
        })
    }

    /// Waits up to `limit` until no run is executing a tool (for a graceful shutdown). Returns
    /// whether none is.
    pub async fn settle_tools(&self, limit: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let busy = self.phase_counts().into_iter().any(|(p, n)| p == RunPhase::ExecutingTool && n > 0);
            if !busy {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// How many runs of all users are in each phase right now (for metrics).
    pub fn phase_counts(&self) -> Vec<(RunPhase, usize)> {
        let live: Vec<Arc<Live>> = self.inner.live.lock().expect("live runs").values().cloned().collect();
        RunPhase::ALL
            .into_iter()
            .map(|p| (p, live.iter().filter(|l| l.state.lock().expect("live state").phase == p).count()))
            .collect()
    }

    /// Phase, last seq and confirmation time left of a run that has not finished.
    pub fn active_info(&self, run_id: &RunId) -> Option<ActiveRunInfo> {
        let live = self.live(run_id)?;
        let state = live.state.lock().expect("live state");
        let left = state
            .confirmation_expires
            .map(|e| u64::try_from((e - Utc::now()).num_milliseconds()).unwrap_or(0))
            .unwrap_or(0);
        Some(ActiveRunInfo {
            run_id: run_id.clone(),
            phase: state.phase,
            last_seq: live.last_seq.load(Ordering::Relaxed),
            confirmation_ms_left: left,
        })
    }

    /// The stored log of a run (unary replay).
    /// A cursor beyond the end of the log is CURSOR_AHEAD, as for [`RunEngine::subscribe`].
    pub async fn events(&self, caller: &Caller, run_id: &str, after_seq: u64, limit: u32) -> Result<RunLogPage> {
        let run = self.owned_run(caller, run_id).await?;
        let ends_at = self.inner.log.last_seq(&run.record.id).await?;
        if after_seq > ends_at {
            return Err(Error::new(
                ErrorCode::CursorAhead,
                format!("the run's log ends at seq {ends_at}; there is nothing after {after_seq}"),
            ));
        }
        let events = self.inner.log.events(&run.record.id, after_seq, limit).await?;
        let last_seq = self.inner.log.last_seq(&run.record.id).await?;
        let status = self.inner.log.chat_run(&run.record.id).await?.map_or(run.record.status, |r| r.record.status);
        Ok(RunLogPage { events, status, last_seq })
    }

    /// The last seq in a run's log.
    pub async fn last_seq(&self, caller: &Caller, run_id: &str) -> Result<u64> {
        let run = self.owned_run(caller, run_id).await?;
        self.inner.log.last_seq(&run.record.id).await
    }

    /// The spans of a run.
    pub async fn trace(&self, caller: &Caller, run_id: &str) -> Result<Vec<super::store::SpanRecord>> {
        let run = self.owned_run(caller, run_id).await?;
        self.inner.log.spans(&run.record.id).await
    }
}

/// A page of a run's log.
pub struct RunLogPage {
    pub events: Vec<RunEvent>,
    pub status: RunStatus,
    pub last_seq: u64,
}

/// Events of one run for one subscriber.
pub struct Subscription {
    log: Arc<dyn RunLog>,
    run_id: RunId,
    last: u64,
    replay_until: u64,
    backlog: VecDeque<Arc<RunEvent>>,
    rx: Option<broadcast::Receiver<Arc<RunEvent>>>,
    done: bool,
    finished: bool,
}

impl Subscription {
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// The last seq of the stored log when the subscription started (the replay's end).
    pub fn replay_until(&self) -> u64 {
        self.replay_until
    }

    /// Whether the run had already finished when the subscription started.
    pub fn finished_at_start(&self) -> bool {
        self.finished
    }

    async fn refill(&mut self) -> Result<()> {
        let events = self.log.events(&self.run_id, self.last, u32::MAX).await?;
        self.backlog.extend(events.into_iter().map(Arc::new));
        Ok(())
    }

    /// The next event, or `None` after `RunCompleted`.
    pub async fn next(&mut self) -> Result<Option<Arc<RunEvent>>> {
        loop {
            if let Some(e) = self.backlog.pop_front() {
                if e.seq <= self.last {
                    continue;
                }
                self.last = e.seq;
                if e.is_terminal() {
                    self.done = true;
                    self.backlog.clear();
                }
                return Ok(Some(e));
            }
            if self.done {
                return Ok(None);
            }
            let Some(rx) = self.rx.as_mut() else {
                // Not live: the stored log is all there is.
                self.refill().await?;
                if self.backlog.is_empty() {
                    return Ok(None);
                }
                continue;
            };
            match rx.recv().await {
                Ok(e) if e.seq <= self.last => {}
                Ok(e) if e.seq == self.last + 1 => self.backlog.push_back(e),
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => self.refill().await?,
                Err(broadcast::error::RecvError::Closed) => {
                    self.rx = None;
                    self.refill().await?;
                    if self.backlog.is_empty() {
                        return Ok(None);
                    }
                }
            }
        }
    }
}
