//! The run records port: every run (chat runs and queries) with its capsule, for history and
//! usage.

use crate::error::Result;
use crate::ids::{RunId, ThreadId, UserId};
use crate::run::{Capsule, Feedback, Rating, RunError, RunOutcome, RunRecord, RunStatus, Usage};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// Where runs and their capsules are kept. (The run engine adds events, tool calls and
/// confirmations to this port.)
#[async_trait]
pub trait RunStore: Send + Sync {
    async fn insert_run(&self, run: &RunRecord) -> Result<()>;
    /// Records the terminal state of a run.
    async fn finish_run(&self, id: &RunId, status: RunStatus, error: Option<&RunError>, usage: &Usage) -> Result<()>;
    async fn save_capsule(&self, id: &RunId, capsule: &Capsule) -> Result<()>;
    /// A run of this owner, with its capsule.
    async fn get_run(&self, owner: &UserId, id: &RunId) -> Result<Option<(RunRecord, Capsule)>>;
    /// The query runs (SQL and plan) a chat run's tools ran, oldest first, with their capsules.
    async fn query_runs_of(&self, owner: &UserId, parent: &RunId) -> Result<Vec<(RunRecord, Capsule)>>;
    /// The owner's runs (of one thread, or all; rated so, or all; with that outcome, or all),
    /// newest first, `before` a run id for paging. A run records its outcome when it ends, the
    /// status's own for a query run ([`RunOutcome::of_status`]).
    async fn list_runs(
        &self,
        owner: &UserId,
        thread: Option<&ThreadId>,
        rating: Option<Rating>,
        outcome: Option<RunOutcome>,
        before: Option<&RunId>,
        limit: u32,
    ) -> Result<Vec<RunRecord>>;
    /// Sets (or replaces) the feedback on a run of `owner`; false when there is no such run.
    async fn set_feedback(&self, owner: &UserId, id: &RunId, feedback: &Feedback) -> Result<bool>;
    /// The owner's model usage summed over runs created at or after `since`, and how many runs.
    async fn usage_since(&self, owner: &UserId, since: Option<DateTime<Utc>>) -> Result<(Usage, u32)>;
}
