//! The storage port of the run engine: threads, snapshots, the event log, transcripts, tool-call
//! intents and results, confirmations and spans. `aware-store` implements it.

use super::events::{Resolution, ResourceRef, RunEvent, Tier, ToolPhase};
use super::model::Message;
use crate::Result;
use crate::auth::Role;
use crate::ids::{ConfirmationId, RunId, ThreadId, ToolCallId, UserId};
use crate::run::{RunError, RunRecord, RunStatus, Usage};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A chat run as stored, with what the engine needs to continue it after a restart.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRun {
    pub record: RunRecord,
    /// The caller's role when the message arrived (the policy gate uses it for the whole run).
    pub role: Role,
    pub cancel_requested: bool,
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

/// A tool call row: the intent is written before any side effect, the result after it.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallRow {
    pub id: ToolCallId,
    pub run_id: RunId,
    pub iteration: u32,
    pub tool_name: String,
    pub arguments_json: String,
    pub phase: ToolPhase,
    /// Set once a result is recorded.
    pub llm_summary: Option<String>,
    pub result_json: Option<String>,
    pub duration_ms: Option<u64>,
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

/// What creating a run found.
pub enum Created {
    New,
    /// A run with this client message id already exists.
    Existing(RunId),
}

#[async_trait]
pub trait RunLog: Send + Sync {
    /// Creates the thread for `owner` if it is new. False if another user owns it.
    async fn ensure_thread(&self, owner: &UserId, thread: &ThreadId) -> Result<bool>;
    /// Stores a snapshot unless a newer one is stored; returns the version now stored.
    async fn save_snapshot(&self, thread: &ThreadId, snapshot: &Snapshot) -> Result<u64>;
    async fn snapshot(&self, thread: &ThreadId) -> Result<Option<Snapshot>>;

    async fn create_chat_run(&self, run: &ChatRun) -> Result<Created>;
    async fn run_by_client_msg(&self, owner: &UserId, client_msg_id: &str) -> Result<Option<RunId>>;
    async fn chat_run(&self, id: &RunId) -> Result<Option<ChatRun>>;
    async fn set_run_status(&self, id: &RunId, status: RunStatus) -> Result<()>;
    async fn set_run_progress(&self, id: &RunId, iterations: u32, usage: &Usage) -> Result<()>;
    /// The router's reading of the run's question (JSON), kept for restarts.
    async fn set_run_route(&self, id: &RunId, route_json: &str) -> Result<()>;
    async fn run_route(&self, id: &RunId) -> Result<Option<String>>;
    /// Records the start of a run: status running and the UI state version it used.
    async fn mark_run_started(&self, id: &RunId, ui_state_version: u64) -> Result<()>;
    /// Appends the terminal event and records the run's end, in one transaction.
    async fn complete_chat_run(
        &self,
        last: &RunEvent,
        status: RunStatus,
        error: Option<&RunError>,
        usage: &Usage,
        final_text: &str,
    ) -> Result<()>;
    async fn request_cancel(&self, id: &RunId) -> Result<()>;
    /// Chat runs not yet terminal, oldest first.
    async fn unfinished_chat_runs(&self) -> Result<Vec<ChatRun>>;
    /// Messages of the thread's finished runs before `before`, oldest first (at most `runs` runs).
    async fn thread_history(&self, thread: &ThreadId, before: &RunId, runs: u32) -> Result<Vec<Message>>;

    async fn append_event(&self, event: &RunEvent) -> Result<()>;
    async fn events(&self, run: &RunId, after_seq: u64, limit: u32) -> Result<Vec<RunEvent>>;
    async fn last_seq(&self, run: &RunId) -> Result<u64>;

    async fn append_message(&self, run: &RunId, idx: u32, message: &Message) -> Result<()>;
    async fn messages(&self, run: &RunId) -> Result<Vec<Message>>;

    async fn record_tool_intent(&self, row: &ToolCallRow) -> Result<()>;
    async fn record_tool_result(&self, row: &ToolCallRow) -> Result<()>;
    async fn tool_calls(&self, run: &RunId) -> Result<Vec<ToolCallRow>>;

    async fn create_confirmation(&self, confirmation: &Confirmation) -> Result<()>;
    async fn confirmation(&self, id: &ConfirmationId) -> Result<Option<Confirmation>>;
    async fn confirmation_for_call(&self, call: &ToolCallId) -> Result<Option<Confirmation>>;
    /// A user's confirmations still waiting for an answer at `now` (pending, unexpired), oldest
    /// first.
    async fn pending_confirmations(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<Confirmation>>;
    /// Atomic compare-and-set from `pending`; true if this call made the change.
    async fn resolve_confirmation(&self, id: &ConfirmationId, to: Resolution, by: Option<&UserId>) -> Result<bool>;

    async fn insert_span(&self, run: &RunId, span: &SpanRecord) -> Result<()>;
    async fn spans(&self, run: &RunId) -> Result<Vec<SpanRecord>>;
}
