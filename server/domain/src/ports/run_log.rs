//! The storage port of the run engine: threads, snapshots, the event log, transcripts, tool-call
//! intents and results, confirmations and spans. `aware-store` implements it.

use crate::Result;
use crate::auth::Role;
use crate::events::{Resolution, ResourceRef, RunEvent, Tier};
use crate::grounding::Grounding;
use crate::ids::{ApiKeyId, ConfirmationId, GrantId, RunId, ThreadId, ToolCallId, UserId};
use crate::ports::model::Message;
use crate::run::{RunError, RunRecord, RunStatus, ToolCallRow, Usage};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A chat run as stored, with what the engine needs to continue it after a restart.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRun {
    pub record: RunRecord,
    /// The caller's role when the message arrived: the most the run may do. Each call is also
    /// checked against the owner as they stand when it takes effect (`Policy::may_still`).
    pub role: Role,
    /// The API key the message came with (`None` in local mode): revoked, it stops the run's
    /// effects too.
    pub key: Option<ApiKeyId>,
    /// A cancel was requested, and why (cancelled by a person, or superseded by a newer message).
    pub cancel: Option<Resolution>,
}

/// The client's view, as the latest `StateSnapshot` of a thread told it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub thread_id: Option<ThreadId>,
    pub ui_state_version: u64,
    pub current_route: String,
    pub active_dataset_id: String,
    pub datasets: Vec<SnapshotDataset>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SnapshotDataset {
    pub id: String,
    pub name: String,
    pub row_count: u64,
}

/// Bounds of a snapshot. It is the client's word about its screen — stored per thread, and its
/// route put in front of the model — so it stays small whoever sends it.
pub const MAX_ROUTE_CHARS: usize = 1_024;
pub const MAX_SNAPSHOT_DATASETS: usize = 200;
pub const MAX_SNAPSHOT_NAME_CHARS: usize = 256;
const MAX_SNAPSHOT_ID_CHARS: usize = 128;

impl Snapshot {
    /// Refuses a snapshot over its bounds (VALIDATION_ERROR naming the field).
    pub fn check(&self) -> Result<()> {
        let long = |field: &str, value: &str, max: usize| {
            if value.chars().count() > max {
                Err(crate::Error::validation(field, format!("{field} is longer than {max} characters")))
            } else {
                Ok(())
            }
        };
        long("snapshot.current_route", &self.current_route, MAX_ROUTE_CHARS)?;
        long("snapshot.active_dataset_id", &self.active_dataset_id, MAX_SNAPSHOT_ID_CHARS)?;
        if self.datasets.len() > MAX_SNAPSHOT_DATASETS {
            return Err(crate::Error::validation(
                "snapshot.datasets",
                format!("a snapshot lists at most {MAX_SNAPSHOT_DATASETS} datasets"),
            ));
        }
        for d in &self.datasets {
            long("snapshot.datasets.id", &d.id, MAX_SNAPSHOT_ID_CHARS)?;
            long("snapshot.datasets.name", &d.name, MAX_SNAPSHOT_NAME_CHARS)?;
        }
        Ok(())
    }
}

/// A server-issued confirmation.
#[derive(Clone, Debug, PartialEq)]
pub struct Confirmation {
    pub id: ConfirmationId,
    pub owner: UserId,
    pub run_id: RunId,
    pub tool_call_id: ToolCallId,
    pub tool_name: String,
    pub resource: ResourceRef,
    pub args_sha256: String,
    pub tier: Tier,
    pub status: Resolution,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// What the call will do, in plain English: what a person approves.
    pub description: String,
    /// The narrowed arguments a person approved instead of the call's (approve with edits).
    pub edited_args: Option<String>,
    /// The session grant that approved it without asking.
    pub grant_id: Option<GrantId>,
    /// The version (content hash) of the dataset it changes, as it was when asked; an approval
    /// after that changed does nothing (`RESOURCE_CHANGED`).
    pub bound_version: Option<String>,
}

/// A thread as listed: its title, times, runs and where it was forked from.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadSummary {
    pub id: ThreadId,
    pub owner: UserId,
    pub title: Option<String>,
    pub created_at: DateTime<Utc>,
    /// When its newest chat run was created (its creation when it has none).
    pub last_activity_at: DateTime<Utc>,
    /// Its chat runs.
    pub run_count: u32,
    pub last_run_status: Option<RunStatus>,
    /// What its newest chat run came to, once that run is over.
    pub last_run_outcome: Option<crate::run::RunOutcome>,
    /// For a fork: the thread and the run it was forked at.
    pub forked_from: Option<(ThreadId, RunId)>,
}

/// When a thread's title is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TitleIf<'a> {
    /// Only a thread that has no title yet (its first message names it).
    Untitled,
    /// Only while the title is still this one (a model's title replaces the first message's,
    /// never a title someone chose).
    Still(&'a str),
    /// Always (a rename).
    Any,
}

/// Where a page of threads continues: after this activity time and thread.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadCursor {
    pub last_activity_at: DateTime<Utc>,
    pub thread: ThreadId,
}

/// "Allow for 5 minutes": later calls of a STANDARD tool on one resource class by one user run
/// without asking, until the grant expires or is revoked.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionGrant {
    pub id: GrantId,
    pub owner: UserId,
    pub tool_name: String,
    pub resource_class: String,
    pub confirmation_id: ConfirmationId,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// One timed step of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct SpanRecord {
    pub span_id: String,
    pub parent_span_id: Option<String>,
    /// "run", "model_call", "tool_call", "confirmation_wait".
    pub kind: String,
    pub name: String,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub attributes: serde_json::Map<String, serde_json::Value>,
}

/// An append queued by [`RunLog::queue_event`]: resolves once the event is committed.
pub type QueuedAppend = std::pin::Pin<Box<dyn std::future::Future<Output = Result<()>> + Send + 'static>>;

/// What creating a run found.
pub enum Created {
    New,
    /// A run with this client message id already exists.
    Existing(RunId),
    /// The run was to hold its thread, but this run holds it (started meanwhile, by another
    /// replica): nothing was stored.
    Busy(RunId),
    /// Its owner already has as many unfinished runs as allowed: nothing was stored.
    Full,
}

/// A thread and its owner, as admission sees them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadState {
    /// The run holding the thread: running or awaiting confirmation.
    pub holder: Option<RunId>,
    /// Whether a run (not cancelled) waits in the thread's queue.
    pub waiting: bool,
    /// How many of the owner's chat and tool runs have not finished (queued ones included).
    pub unfinished_of_owner: u32,
}

/// The replica that drives a run, and until when it may unless it renews the lease. Replicas
/// sharing one store take over runs whose lease has expired (their driver's replica stopped).
#[derive(Clone, Debug, PartialEq)]
pub struct Lease {
    pub replica: String,
    pub until: DateTime<Utc>,
}

/// Where a new run goes.
#[derive(Clone, Copy, Debug)]
pub enum Place<'a> {
    /// It holds its thread (running) and is driven now under this lease. One run holds a thread:
    /// the store refuses a second ([`Created::Busy`]).
    Drive(&'a Lease),
    /// It waits (queued) behind the thread's active run: last in line, or first
    /// (`on_busy = INTERRUPT`).
    Queue { first: bool },
}

/// Which unfinished runs a replica takes over with [`RunLog::claim_runs`].
#[derive(Clone, Copy, Debug)]
pub enum Claim<'a> {
    /// Those whose lease has expired (their replica stopped renewing it).
    Expired,
    /// All of them, leased or not: the store has one server, which is starting.
    Every,
    /// This one, if its lease has expired (or it never had one: a queued run to cancel).
    Run(&'a RunId),
}

/// A run of the agent in the log: admitted (with its owner's limit), started, progressed, completed or cancelled, and the thread's earlier messages it reads.
#[async_trait]
pub trait ChatRuns: Send + Sync {
    /// Stores a new run where `place` says (its status says the same: running or queued), unless
    /// its owner already has `max_unfinished` unfinished runs (counted atomically with the
    /// insert, whatever other admissions of the same user happen at the same moment, on any
    /// replica).
    async fn create_chat_run(&self, run: &ChatRun, place: Place<'_>, max_unfinished: u32) -> Result<Created>;
    /// What admitting a message of `owner` to `thread` needs to know, in one read.
    async fn thread_state(&self, thread: &ThreadId, owner: &UserId) -> Result<ThreadState>;
    async fn run_by_client_msg(&self, owner: &UserId, client_msg_id: &str) -> Result<Option<RunId>>;
    async fn chat_run(&self, id: &RunId) -> Result<Option<ChatRun>>;
    async fn set_run_status(&self, id: &RunId, status: RunStatus) -> Result<()>;
    async fn set_run_progress(&self, id: &RunId, iterations: u32, usage: &Usage) -> Result<()>;
    /// The router's reading of the run's question (JSON), kept for restarts.
    async fn set_run_route(&self, id: &RunId, route_json: &str) -> Result<()>;
    async fn run_route(&self, id: &RunId) -> Result<Option<String>>;
    /// Starts a run in one commit: appends its first event (`RunStarted`) and records the start
    /// — status running and the UI state version it used (a queued run that is being cancelled
    /// stays queued: it never holds its thread).
    async fn start_run(&self, first: &RunEvent, ui_state_version: u64) -> Result<()>;
    /// Appends the terminal event and records the run's end, in one transaction: with its
    /// answer's grounding (each number's source), which `get_run` returns in the capsule.
    async fn complete_chat_run(
        &self,
        last: &RunEvent,
        status: RunStatus,
        error: Option<&RunError>,
        usage: &Usage,
        final_text: &str,
        grounding: Option<&Grounding>,
    ) -> Result<()>;
    /// Records that the run is to end, and why (`Cancelled` or `Superseded`); the first reason
    /// stays.
    async fn request_cancel(&self, id: &RunId, why: Resolution) -> Result<()>;
    /// Messages of the thread's finished runs before `before`, oldest first (at most `runs` runs).
    async fn thread_history(&self, thread: &ThreadId, before: &RunId, runs: u32) -> Result<Vec<Message>>;
}

/// Which replica drives which run: the queue of each thread, and leases taken over, renewed and released.
#[async_trait]
pub trait RunLeases: Send + Sync {
    /// How many runs of all users wait in their threads' queues (no replica drives them).
    async fn queued_runs(&self) -> Result<u32>;
    /// Starts, under `lease`, the first queued run (not cancelled) of every thread that no run
    /// holds — of `thread` only, when given. Returns the runs that now hold their thread.
    async fn promote_queued(&self, thread: Option<&ThreadId>, lease: &Lease) -> Result<Vec<RunId>>;
    /// Takes over, under `lease`, the unfinished runs that need a driver — those holding their
    /// thread, and queued ones with a cancel to carry out — that `which` names and that no
    /// lease in force at `now` holds (except with [`Claim::Every`]). Oldest first.
    async fn claim_runs(&self, lease: &Lease, now: DateTime<Utc>, which: Claim<'_>) -> Result<Vec<ChatRun>>;
    /// Extends the replica's leases of unfinished runs to `lease.until`; returns the runs it
    /// still holds (a run another replica took over is not among them), each with the cancel
    /// requested for it, if any.
    async fn renew_leases(&self, lease: &Lease) -> Result<Vec<(RunId, Option<Resolution>)>>;
    /// Gives up the replica's leases now (a graceful stop, once it drives nothing): another
    /// replica may take over at once.
    async fn release_leases(&self, replica: &str) -> Result<()>;
}

/// The event log of a run (appended in order, never with a gap) and its transcript for the model.
#[async_trait]
pub trait RunEvents: Send + Sync {
    async fn append_event(&self, event: &RunEvent) -> Result<()>;
    /// Queues `event` for appending and returns at once: the returned future resolves when it
    /// is committed, or with why it could not be. Queued appends commit in the order they were
    /// queued, and the log never gets a gap: once an event of a run could not be stored, that
    /// run's later events are refused until one with that seq is stored.
    fn queue_event(&self, event: &RunEvent) -> QueuedAppend;
    async fn events(&self, run: &RunId, after_seq: u64, limit: u32) -> Result<Vec<RunEvent>>;
    async fn last_seq(&self, run: &RunId) -> Result<u64>;
    async fn append_message(&self, run: &RunId, idx: u32, message: &Message) -> Result<()>;
    async fn messages(&self, run: &RunId) -> Result<Vec<Message>>;
}

/// A run's tool calls — the intent written before any side effect, the result after it — and its trace spans.
#[async_trait]
pub trait ToolCalls: Send + Sync {
    async fn record_tool_intent(&self, row: &ToolCallRow) -> Result<()>;
    async fn record_tool_result(&self, row: &ToolCallRow) -> Result<()>;
    async fn tool_calls(&self, run: &RunId) -> Result<Vec<ToolCallRow>>;
    async fn insert_span(&self, run: &RunId, span: &SpanRecord) -> Result<()>;
    async fn spans(&self, run: &RunId) -> Result<Vec<SpanRecord>>;
}

/// A person's approvals: confirmations waiting for an answer, resolved once, and the session grants an approval "for a while" leaves.
#[async_trait]
pub trait Confirmations: Send + Sync {
    async fn create_confirmation(&self, confirmation: &Confirmation) -> Result<()>;
    async fn confirmation(&self, id: &ConfirmationId) -> Result<Option<Confirmation>>;
    async fn confirmation_for_call(&self, call: &ToolCallId) -> Result<Option<Confirmation>>;
    /// A user's confirmations still waiting for an answer at `now` (pending, unexpired), oldest
    /// first.
    async fn pending_confirmations(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<Confirmation>>;
    /// Atomic compare-and-set from `pending`; true if this call made the change. `edited_args`:
    /// the narrowed arguments an approval binds the call to.
    async fn resolve_confirmation(
        &self,
        id: &ConfirmationId,
        to: Resolution,
        by: Option<&UserId>,
        edited_args: Option<&str>,
    ) -> Result<bool>;
    async fn create_grant(&self, grant: &SessionGrant) -> Result<()>;
    /// A grant of `owner` for `tool` on `class`, in force at `now` (the latest to expire).
    async fn live_grant(
        &self,
        owner: &UserId,
        tool: &str,
        class: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<SessionGrant>>;
    /// The owner's grants in force at `now`, soonest to expire first.
    async fn live_grants(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<SessionGrant>>;
    /// Ends a grant of `owner` at `now`; false when there is no such grant in force.
    async fn revoke_grant(&self, owner: &UserId, id: &GrantId, now: DateTime<Utc>) -> Result<bool>;
}

/// Conversations: threads with their owner, titles, forks, runs, and their removal.
#[async_trait]
pub trait Threads: Send + Sync {
    /// Creates the thread for `owner` if it is new. False if another user owns it.
    async fn ensure_thread(&self, owner: &UserId, thread: &ThreadId) -> Result<bool>;
    /// A thread, with its owner (to check against the caller).
    async fn thread_summary(&self, thread: &ThreadId) -> Result<Option<ThreadSummary>>;
    /// The owner's threads that have a chat run, newest activity first, after `after`; with
    /// `matching`, only those whose title or one of whose chat questions holds that text (letter
    /// case aside).
    async fn threads(
        &self,
        owner: &UserId,
        matching: Option<&str>,
        after: Option<&ThreadCursor>,
        limit: u32,
    ) -> Result<Vec<ThreadSummary>>;
    /// Sets the title when `when` holds; false when it did not (or there is no such thread).
    async fn set_thread_title(&self, thread: &ThreadId, title: &str, when: TitleIf<'_>) -> Result<bool>;
    /// Records that `thread` is a fork of `from_thread` at `from_run`.
    async fn set_thread_fork(&self, thread: &ThreadId, from_thread: &ThreadId, from_run: &RunId) -> Result<()>;
    /// The thread's newest `limit` chat runs, oldest first.
    async fn thread_runs(&self, thread: &ThreadId, limit: u32) -> Result<Vec<ChatRun>>;
    /// Removes the thread with its runs, their transcripts, events, tool calls, confirmations,
    /// capsules and spans, and the query runs they started. Returns how many chat runs went.
    async fn delete_thread(&self, thread: &ThreadId) -> Result<u32>;
    /// Copies a finished run into `thread` as run `to`: its record (without client message id,
    /// parent or feedback), transcript, events (naming the new run and thread) and capsule.
    async fn copy_run(&self, from: &RunId, to: &RunId, thread: &ThreadId) -> Result<()>;
}

/// The app's state a thread was last told about (`UpdateState`), newest version kept.
#[async_trait]
pub trait Snapshots: Send + Sync {
    /// Stores a snapshot unless a newer one is stored; returns the version now stored.
    async fn save_snapshot(&self, thread: &ThreadId, snapshot: &Snapshot) -> Result<u64>;
    async fn snapshot(&self, thread: &ThreadId) -> Result<Option<Snapshot>>;
}

/// The run engine's log, every concern of it: one store implements them all, and the engine
/// holds it as one `Arc<dyn RunLog>`. The port contracts (`crate::contract::run_log`,
/// `conversations`, `run_records`) hold each adapter to all of them.
pub trait RunLog: ChatRuns + RunLeases + RunEvents + ToolCalls + Confirmations + Threads + Snapshots {}

impl<T: ChatRuns + RunLeases + RunEvents + ToolCalls + Confirmations + Threads + Snapshots + ?Sized> RunLog for T {}
