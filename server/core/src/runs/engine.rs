//! The run engine, the one entry point of runs: admits messages (`admission.rs` keeps the table
//! of live runs and threads), starts a driver task per run (`spawn.rs`, the loop in `driver/`),
//! hands out subscriptions (`delivery.rs`), cancels, and recovers unfinished runs at startup. The
//! replica's heartbeat, takeover and wake-ups are `fleet.rs`; a person's answers to confirmations
//! and questions back, and session grants, are `approvals.rs`; threads are `threads.rs`.
//! Transport-agnostic: the gRPC layer calls these methods for `Chat` and its unary companions.

use super::admission::{ActiveRunInfo, OnBusy, RunTable};
use super::client_call::ClientToolCall;
use super::config::EngineConfig;
use super::delivery::{Subscription, Tail};
use super::driver::Deps;
use super::fleet::{keep_alive, take_over};
use super::services::Services;
use super::spawn::{start, start_promoted, start_stored};
use super::tools::ToolName;
use crate::memory::{Explicit, explicit_request};
use crate::policy::Policy;
use crate::{Error, ErrorCode, Result};
use aware_domain::auth::Caller;
use aware_domain::events::{Resolution, RunEvent, RunPhase};
use aware_domain::ids::{MAX_THREAD_NAME, RunId, ThreadId};
use aware_domain::ports::fleet::Fleet;
use aware_domain::ports::model::LanguageModel;
use aware_domain::ports::run_log::{ChatRun, Claim, Created, Place, RunLog, Snapshot, ThreadState, TitleIf};
use aware_domain::run::{RunKind, RunRecord, RunStatus};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// How far an approval reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// This call only.
    Once,
    /// This call, and the same tool on the same resource class for this long.
    Session(Duration),
}

/// A session grant lasts this long unless the person says otherwise, and at most the longest.
pub const DEFAULT_GRANT: Duration = Duration::from_secs(300);
pub const LONGEST_GRANT: Duration = Duration::from_secs(3_600);

/// A person's answer to a confirmation.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub approved: bool,
    pub scope: Scope,
    /// Approve with edits: narrowed arguments.
    pub edited_args: Option<serde_json::Value>,
}

impl Answer {
    /// Approve or deny this call only, as asked.
    pub fn once(approved: bool) -> Self {
        Self { approved, scope: Scope::Once, edited_args: None }
    }
}

/// A person's message, checked where it enters (`NewMessage::new`): its text trimmed and 1 to
/// 16,000 characters, the client's id for it at most 128. The engine takes only checked messages;
/// the thread it names is resolved against its owner when it is admitted.
#[derive(Clone, Debug)]
pub struct NewMessage {
    client_msg_id: String,
    thread_id: String,
    text: String,
    on_busy: OnBusy,
}

impl NewMessage {
    /// The message, or a validation error naming the field that is wrong.
    pub fn new(client_msg_id: &str, thread_id: &str, text: &str, on_busy: OnBusy) -> Result<Self> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::validation("message.text", "the message is empty"));
        }
        if text.chars().count() > 16_000 {
            return Err(Error::validation("message.text", "a message is at most 16,000 characters"));
        }
        if client_msg_id.len() > 128 {
            return Err(Error::validation("client_msg_id", "a client message id is at most 128 characters"));
        }
        Ok(Self {
            client_msg_id: client_msg_id.to_owned(),
            thread_id: thread_id.to_owned(),
            text: text.to_owned(),
            on_busy,
        })
    }
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

/// The run engine. Cheap to clone.
#[derive(Clone)]
pub struct RunEngine {
    pub(super) deps: Arc<Deps>,
    pub(super) table: Arc<RunTable>,
}

fn user_error(code: ErrorCode, message: impl Into<String>) -> Error {
    Error::new(code, message)
}

impl RunEngine {
    /// An engine whose runs are stored in `log`; `fleet` reaches the other replicas sharing it.
    pub fn new(
        log: Arc<dyn RunLog>,
        fleet: Arc<dyn Fleet>,
        model: Arc<dyn LanguageModel>,
        policy: Policy,
        services: Services,
        config: EngineConfig,
    ) -> Self {
        let replica = format!("replica-{}", uuid::Uuid::now_v7().simple());
        let feed = broadcast::channel(4096).0;
        let deps = Deps { log, model, policy, services, config, fleet, feed, replica };
        Self { deps: Arc::new(deps), table: Arc::new(RunTable::default()) }
    }

    /// This replica's name in the leases of the runs it drives (new at every start).
    pub fn replica(&self) -> &str {
        &self.deps.replica
    }

    pub fn config(&self) -> &EngineConfig {
        &self.deps.config
    }

    /// The policy gate runs are checked against.
    pub fn policy(&self) -> &Policy {
        &self.deps.policy
    }

    pub fn model_name(&self) -> &str {
        self.deps.model.name()
    }

    /// Continues the runs that had not finished when the server last stopped (crash recovery) —
    /// on a shared store, those whose replica's lease has expired (the rest are taken over as
    /// their leases expire) — and starts the replica's heartbeat and the signals from other
    /// replicas. Call once at startup, before serving.
    pub async fn recover(&self) -> Result<usize> {
        self.deps.fleet.forward(self.deps.feed.clone());
        let which = if self.deps.fleet.shared() { Claim::Expired } else { Claim::Every };
        let taken = take_over(&self.deps, &self.table, which).await?;
        start_promoted(&self.deps, &self.table, None).await;
        keep_alive(self.deps.clone(), Arc::downgrade(&self.table));
        Ok(taken)
    }

    /// Stops driving runs here and gives their leases up (a graceful stop, after the tools in
    /// progress had their grace period), so another replica, or this one restarted, continues
    /// them at once instead of after the lease. Nothing is driven here afterwards.
    pub async fn release_leases(&self) -> Result<()> {
        self.table.stopping.store(true, std::sync::atomic::Ordering::Relaxed);
        let driven = self.table.driven();
        for (_, live) in &driven {
            if let Some(task) = live.task.lock().expect("driver task").take() {
                task.abort();
            }
        }
        self.deps.log.release_leases(&self.deps.replica).await?;
        // Whichever replica hears it first takes each run over now.
        for (id, _) in &driven {
            self.deps.fleet.wake(id, None).await?;
        }
        Ok(())
    }

    /// Tells the run's driver — here or on another replica — to look again: a cancel, or an
    /// answer to its confirmation.
    pub(super) async fn poke(&self, run_id: &RunId, cancel: Option<Resolution>) -> Result<()> {
        if let Some(live) = self.table.live(run_id) {
            live.wake(cancel);
            return Ok(());
        }
        self.deps.fleet.wake(run_id, cancel).await
    }

    pub(super) async fn owned_run(&self, caller: &Caller, id: &RunId) -> Result<ChatRun> {
        match self.deps.log.chat_run(id).await? {
            Some(run) if run.record.owner == caller.principal.user_id => Ok(run),
            _ => Err(user_error(ErrorCode::UnknownRun, format!("there is no run {id}"))),
        }
    }

    /// The caller's thread `raw` (a new one when empty), created on first use. A thread id names
    /// a thread of its user only, so whatever id another user picks, it is a thread of their own.
    pub(super) async fn thread(&self, caller: &Caller, raw: &str) -> Result<ThreadId> {
        let owner = &caller.principal.user_id;
        let thread = if raw.trim().is_empty() {
            ThreadId::generate_for(owner)
        } else {
            ThreadId::for_user(owner, raw).ok_or_else(|| {
                Error::validation("thread_id", format!("a thread id is 1 to {MAX_THREAD_NAME} printable characters"))
            })?
        };
        if !self.deps.log.ensure_thread(owner, &thread).await? {
            return Err(Error::internal(format!("thread {thread} is stored under another owner")));
        }
        Ok(thread)
    }

    /// Refused when the owner already has as many unfinished runs as allowed: as read before
    /// admission (the common case, no write), or as the store's insert counted it (runs of the
    /// same user admitted at the same moment, on any replica).
    fn room_for_another_run(&self, state: &ThreadState) -> Result<()> {
        if state.unfinished_of_owner >= self.deps.config.max_active_runs_per_user {
            return Err(self.no_room());
        }
        Ok(())
    }

    fn no_room(&self) -> Error {
        let max = self.deps.config.max_active_runs_per_user;
        Error::resource_exhausted(format!("at most {max} runs may be active per user; wait for one to finish"))
    }

    /// Admits a user message: starts a run, queues it, or reports the thread busy.
    pub async fn send_message(&self, caller: &Caller, message: NewMessage) -> Result<Admission> {
        let text = message.text.as_str();
        // A fact asked for in so many words is stored without a card only when a person typed it
        // into a first-party client; otherwise it is the same proposal a model makes: a
        // `remember` call that waits for the person (a tool run of its own, as a client's call).
        if !caller.source.is_first_party()
            && let Some(Explicit::Remember(fact)) = explicit_request(text)
        {
            let call = ClientToolCall {
                tool: ToolName::Remember.as_str().to_owned(),
                arguments: serde_json::json!({"fact": fact}),
            };
            let (run_id, thread_id) = self.start_tool_run(caller, &call).await?;
            return Ok(Admission::Started { run_id, thread_id, queued: false });
        }
        let owner = &caller.principal.user_id;
        let repeated = |run: ChatRun| Admission::Repeated {
            run_id: run.record.id,
            thread_id: run.record.thread_id.unwrap_or_else(|| ThreadId::generate_for(&run.record.owner)),
        };
        if !message.client_msg_id.is_empty()
            && let Some(id) = self.deps.log.run_by_client_msg(owner, &message.client_msg_id).await?
            && let Some(run) = self.deps.log.chat_run(&id).await?
        {
            return Ok(repeated(run));
        }
        let thread = self.thread(caller, &message.thread_id).await?;
        let admission = self.table.admission.thread(&thread).await;
        let mut state = self.deps.log.thread_state(&thread, owner).await?;
        if state.waiting && state.holder.is_none() {
            // A run waiting first in line goes before this one: the run before it has just ended
            // and no replica has started it yet.
            for id in self.deps.log.promote_queued(Some(&thread), &self.deps.lease()).await? {
                start_stored(&self.deps, &self.table, &id, false).await;
            }
            state = self.deps.log.thread_state(&thread, owner).await?;
        }
        let mut active = state.holder.clone();
        if let (Some(active_run_id), OnBusy::Reject) = (&active, message.on_busy) {
            return Ok(Admission::Busy { active_run_id: active_run_id.clone() });
        }
        self.room_for_another_run(&state)?;
        let mut record = RunRecord::new(owner.clone(), RunKind::Chat, text, RunStatus::Running);
        record.thread_id = Some(thread.clone());
        record.client_msg_id = (!message.client_msg_id.is_empty()).then(|| message.client_msg_id.clone());
        record.model = Some(self.deps.model.name().to_owned());
        let mut run = ChatRun { record, role: caller.principal.role, key: caller.principal.key.clone(), cancel: None };
        let lease = self.deps.lease();
        let interrupt = message.on_busy == OnBusy::Interrupt;
        // Placed as the store saw the thread; when another replica's run took it meanwhile, the
        // store refuses the run as running and it is rejected or queued after all.
        loop {
            run.record.status = if active.is_some() { RunStatus::Queued } else { RunStatus::Running };
            if interrupt {
                run.record.parent_run_id.clone_from(&active);
            }
            let place = if active.is_some() { Place::Queue { first: interrupt } } else { Place::Drive(&lease) };
            match self.deps.log.create_chat_run(&run, place, self.deps.config.max_active_runs_per_user).await? {
                Created::New => break,
                Created::Full => return Err(self.no_room()),
                Created::Existing(id) => {
                    let run = self.deps.log.chat_run(&id).await?.ok_or_else(|| Error::internal("run vanished"))?;
                    return Ok(repeated(run));
                }
                Created::Busy(holder) if message.on_busy == OnBusy::Reject => {
                    return Ok(Admission::Busy { active_run_id: holder });
                }
                Created::Busy(holder) => active = Some(holder),
            }
        }
        let run_id = run.record.id.clone();
        // A thread is titled by its first message until someone renames it (or the model names it).
        let first = super::titles::title_from(text);
        if self.deps.log.set_thread_title(&thread, &first, TitleIf::Untitled).await? && self.deps.model.names_threads()
        {
            self.name_thread(thread.clone(), first, text.to_owned());
        }
        // A queued run is started by the end of the run before it, wherever that runs; this call
        // starts it only when the thread is free now.
        let queued = active.is_some();
        if queued {
            self.table.note_queue(&thread);
            drop(admission);
            if let (Some(active), true) = (&active, interrupt) {
                self.cancel_run(active, Resolution::Superseded).await?;
            }
            // The run before may have ended before this one was queued: then nobody else would.
            start_promoted(&self.deps, &self.table, Some(&thread)).await;
        } else {
            start(&self.deps, &self.table, &run, true);
        }
        Ok(Admission::Started { run_id, thread_id: thread, queued })
    }

    /// Starts a tool run: one call a client made itself (an MCP `tools/call`), on a thread of its
    /// own. The driver puts it through the same gate, confirmation, audit and log as a model's
    /// call (the audit source is `mcp`); follow it with [`RunEngine::subscribe`].
    pub async fn call_tool(&self, caller: &Caller, call: &ClientToolCall) -> Result<RunId> {
        Ok(self.start_tool_run(caller, call).await?.0)
    }

    /// Starts a tool run of `call` on a new thread of the caller's; returns the run and its thread.
    async fn start_tool_run(&self, caller: &Caller, call: &ClientToolCall) -> Result<(RunId, ThreadId)> {
        if !call.arguments.is_object() {
            return Err(Error::validation("arguments", "a tool's arguments are a JSON object"));
        }
        let owner = &caller.principal.user_id;
        let thread = self.thread(caller, "").await?;
        let _admission = self.table.admission.thread(&thread).await;
        self.room_for_another_run(&self.deps.log.thread_state(&thread, owner).await?)?;
        let mut record = RunRecord::new(owner.clone(), RunKind::Tool, call.to_question(), RunStatus::Running);
        record.thread_id = Some(thread.clone());
        let run = ChatRun { record, role: caller.principal.role, key: caller.principal.key.clone(), cancel: None };
        let max = self.deps.config.max_active_runs_per_user;
        match self.deps.log.create_chat_run(&run, Place::Drive(&self.deps.lease()), max).await? {
            Created::New => {}
            Created::Full => return Err(self.no_room()),
            Created::Existing(_) | Created::Busy(_) => {
                return Err(Error::internal("a new tool run collided with a stored one"));
            }
        }
        start(&self.deps, &self.table, &run, true);
        Ok((run.record.id, thread))
    }

    async fn cancel_run(&self, run_id: &RunId, why: Resolution) -> Result<()> {
        self.deps.log.request_cancel(run_id, why).await?;
        if self.table.live(run_id).is_none() && take_over(&self.deps, &self.table, Claim::Run(run_id)).await? > 0 {
            // A queued run nobody drives (or one whose replica stopped): driven here, it sees the
            // cancel and ends.
            return Ok(());
        }
        self.poke(run_id, Some(why)).await
    }

    /// Cancels a run (idempotent). Returns its status: CANCELLED, or the terminal status it
    /// already had.
    pub async fn cancel(&self, caller: &Caller, run_id: &RunId) -> Result<RunStatus> {
        let run = self.owned_run(caller, run_id).await?;
        if run.record.status.is_terminal() {
            return Ok(run.record.status);
        }
        self.cancel_run(&run.record.id, Resolution::Cancelled).await?;
        Ok(RunStatus::Cancelled)
    }

    /// Stores the latest UI state of a thread (never older than the stored one). The snapshot's
    /// `thread_id` is the client's name for the thread.
    pub async fn update_state(&self, caller: &Caller, mut snapshot: Snapshot) -> Result<(ThreadId, u64)> {
        snapshot.check()?;
        let raw = snapshot.thread_id.as_ref().map(|t| t.as_str().to_owned()).unwrap_or_default();
        let thread = self.thread(caller, &raw).await?;
        snapshot.thread_id = Some(thread.clone());
        let version = self.deps.log.save_snapshot(&thread, &snapshot).await?;
        Ok((thread, version))
    }

    /// A subscription to a run's events after `after_seq` (see `delivery.rs`).
    pub async fn subscribe(&self, caller: &Caller, run_id: &RunId, after_seq: u64) -> Result<Subscription> {
        let run = self.owned_run(caller, run_id).await?;
        // Subscribe to the tail first, then read the log: the live fan-out of a run driven here,
        // else (queued, or driven by another replica) the replica's feed of appends.
        let finished = run.record.status.is_terminal();
        let tail = match self.table.live(&run.record.id) {
            Some(live) => Tail::Live(live.tx.subscribe()),
            None if finished => Tail::Ended,
            None => Tail::Feed(self.deps.feed.subscribe()),
        };
        Subscription::open(self.deps.log.clone(), self.deps.feed.clone(), run.record.id, finished, tail, after_seq)
            .await
    }

    /// Waits up to `limit` until no run is executing a tool (for a graceful shutdown). Returns
    /// whether none is.
    pub async fn settle_tools(&self, limit: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let busy = self.table.phase_counts().into_iter().any(|(p, n)| p == RunPhase::ExecutingTool && n > 0);
            if !busy {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// How many runs are in each phase right now, for metrics: those this replica drives, by
    /// phase, and as queued, every run waiting in its thread's queue (no replica drives those).
    pub async fn phase_counts(&self) -> Result<Vec<(RunPhase, usize)>> {
        let queued = self.deps.log.queued_runs().await? as usize;
        Ok(self
            .table
            .phase_counts()
            .into_iter()
            .map(|(phase, n)| if phase == RunPhase::Queued { (phase, n + queued) } else { (phase, n) })
            .collect())
    }

    /// Phase, last seq and confirmation time left of a run that has not finished.
    pub fn active_info(&self, run_id: &RunId) -> Option<ActiveRunInfo> {
        self.table.active_info(run_id)
    }

    /// The stored log of a run (unary replay).
    /// A cursor beyond the end of the log is CURSOR_AHEAD, as for [`RunEngine::subscribe`].
    pub async fn events(&self, caller: &Caller, run_id: &RunId, after_seq: u64, limit: u32) -> Result<RunLogPage> {
        let run = self.owned_run(caller, run_id).await?;
        let ends_at = self.deps.log.last_seq(&run.record.id).await?;
        if after_seq > ends_at {
            return Err(Error::new(
                ErrorCode::CursorAhead,
                format!("the run's log ends at seq {ends_at}; there is nothing after {after_seq}"),
            ));
        }
        let events = self.deps.log.events(&run.record.id, after_seq, limit).await?;
        let last_seq = self.deps.log.last_seq(&run.record.id).await?;
        let status = self.deps.log.chat_run(&run.record.id).await?.map_or(run.record.status, |r| r.record.status);
        Ok(RunLogPage { events, status, last_seq })
    }

    /// The last seq in a run's log.
    pub async fn last_seq(&self, caller: &Caller, run_id: &RunId) -> Result<u64> {
        let run = self.owned_run(caller, run_id).await?;
        self.deps.log.last_seq(&run.record.id).await
    }

    /// The spans of a run.
    pub async fn trace(
        &self,
        caller: &Caller,
        run_id: &RunId,
    ) -> Result<Vec<aware_domain::ports::run_log::SpanRecord>> {
        let run = self.owned_run(caller, run_id).await?;
        self.deps.log.spans(&run.record.id).await
    }
}

/// A page of a run's log.
pub struct RunLogPage {
    pub events: Vec<RunEvent>,
    pub status: RunStatus,
    pub last_seq: u64,
}
