//! Runs and run capsules: what was asked, over which data versions, what ran, what came out.

use crate::dataset::DatasetVersion;
use crate::error::{Error, ErrorCode};
use crate::ids::{RunId, ThreadId, ToolCallId, UserId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    Chat,
    Sql,
    QueryPlan,
    /// One tool call a client made itself (over MCP): driven like a chat run — the policy gate,
    /// confirmations, audit and the event log — but its one call is the client's, not a model's.
    Tool,
}

impl RunKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Sql => "sql",
            Self::QueryPlan => "query_plan",
            Self::Tool => "tool",
        }
    }

    /// Whether the run engine drives it (an event log, tool calls, confirmations): a chat run
    /// or a client's tool call.
    pub fn is_driven(self) -> bool {
        matches!(self, Self::Chat | Self::Tool)
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Chat, Self::Sql, Self::QueryPlan, Self::Tool].into_iter().find(|k| k.as_str() == s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Queued,
    Running,
    AwaitingConfirmation,
    Succeeded,
    Failed,
    Cancelled,
    MaxIterations,
}

impl RunStatus {
    pub const ALL: [Self; 7] = [
        Self::Queued,
        Self::Running,
        Self::AwaitingConfirmation,
        Self::Succeeded,
        Self::Failed,
        Self::Cancelled,
        Self::MaxIterations,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::AwaitingConfirmation => "awaiting_confirmation",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::MaxIterations => "max_iterations",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed | Self::Cancelled | Self::MaxIterations)
    }
}

/// What a finished run came to, apart from where it is in its lifecycle ([`RunStatus`]): a run
/// that "succeeded" may have answered, asked back, not understood the request, or had its one
/// change denied or left to expire. One word per outcome wherever a run is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// It answered (or did what was asked).
    Answered,
    /// It asked the person something back instead of answering.
    AskedBack,
    /// It said what it could not understand or cannot answer.
    NotUnderstood,
    /// A change it asked to make was denied (by the person, or by their role).
    Denied,
    /// A change it asked to make, or a question it asked, waited past its limit.
    Expired,
    Cancelled,
    Failed,
}

impl RunOutcome {
    pub const ALL: [Self; 7] = [
        Self::Answered,
        Self::AskedBack,
        Self::NotUnderstood,
        Self::Denied,
        Self::Expired,
        Self::Cancelled,
        Self::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Answered => "answered",
            Self::AskedBack => "asked_back",
            Self::NotUnderstood => "not_understood",
            Self::Denied => "denied",
            Self::Expired => "expired",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The outcome a terminal status alone tells (a query's run, or a run recorded before
    /// outcomes were): succeeded is answered. `None` while the run is not over.
    pub fn of_status(status: RunStatus) -> Option<Self> {
        match status {
            RunStatus::Succeeded => Some(Self::Answered),
            RunStatus::Failed | RunStatus::MaxIterations => Some(Self::Failed),
            RunStatus::Cancelled => Some(Self::Cancelled),
            RunStatus::Queued | RunStatus::Running | RunStatus::AwaitingConfirmation => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryMode {
    #[default]
    None,
    Plan,
    Sql,
}

impl QueryMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Plan => "plan",
            Self::Sql => "sql",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::None, Self::Plan, Self::Sql].into_iter().find(|k| k.as_str() == s)
    }
}

/// Token usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub model_calls: u32,
    /// An aborted call's usage is an estimate.
    pub partial: bool,
}

/// An error as a run records it (and as clients see it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunError {
    pub code: ErrorCode,
    pub message: String,
    pub retryable: bool,
}

impl From<&Error> for RunError {
    fn from(e: &Error) -> Self {
        Self { code: e.code, message: e.message.clone(), retryable: e.retryable() }
    }
}

/// What a run asked and produced, beyond its status.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Capsule {
    pub datasets: Vec<DatasetVersion>,
    pub query_mode: QueryMode,
    pub plan_json: Option<String>,
    pub compiled_sql: Option<String>,
    pub result_summary: Option<String>,
    pub error: Option<RunError>,
    pub exec_time_ms: Option<u64>,
    /// The verified (saved) query the SQL came from, when it did.
    #[serde(default)]
    pub verified_query: Option<VerifiedQueryUse>,
    /// A query's result hash (`aware_core::query::result_hash`), which a rerun compares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_sha256: Option<String>,
    /// A query's result as it was returned, kept when small enough (at most
    /// `aware_core::query::KEPT_RESULT_BYTES` as JSON) for a rerun's row-level diff.
    #[serde(skip)]
    pub result: Option<crate::value::Table>,
    /// The tool calls of a chat run, in order.
    #[serde(skip)]
    pub tool_calls: Vec<ToolCallRow>,
    /// A finished chat run's answer: each number and the tool-result cell it came from.
    #[serde(skip)]
    pub grounding: Option<crate::grounding::Grounding>,
    /// Of `datasets`, those that are another version now (the current hash; empty: deleted):
    /// the answer is stale. Filled when the run is read (`aware_core::history::RunHistory::get`).
    #[serde(skip)]
    pub changed_datasets: Vec<DatasetVersion>,
}

/// A verified query a run used, as it was then.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifiedQueryUse {
    pub id: String,
    pub name: String,
}

/// A person's verdict on a run's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rating {
    Up,
    Down,
}

impl Rating {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Down => "down",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "up" => Some(Self::Up),
            "down" => Some(Self::Down),
            _ => None,
        }
    }
}

/// The run owner's rating of its answer (one per run: a second replaces the first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    pub rating: Rating,
    pub reason: String,
    pub at: DateTime<Utc>,
}

/// Longest reason a feedback may give.
pub const MAX_FEEDBACK_REASON: usize = 1_000;

/// A run as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub id: RunId,
    pub owner: UserId,
    pub thread_id: Option<ThreadId>,
    pub kind: RunKind,
    pub status: RunStatus,
    pub question: String,
    pub client_msg_id: Option<String>,
    pub parent_run_id: Option<RunId>,
    pub ui_state_version: u64,
    pub model: Option<String>,
    pub last_seq: u64,
    pub iterations: u32,
    pub usage: Usage,
    pub error: Option<RunError>,
    /// The assistant's last text (chat runs).
    pub final_text: String,
    /// What it came to, once it is over.
    #[serde(default)]
    pub outcome: Option<RunOutcome>,
    pub created_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
    /// The owner's rating of the answer.
    #[serde(default)]
    pub feedback: Option<Feedback>,
}

impl RunRecord {
    /// A new run in `status`, created now.
    pub fn new(owner: UserId, kind: RunKind, question: impl Into<String>, status: RunStatus) -> Self {
        Self {
            id: RunId::generate(),
            owner,
            thread_id: None,
            kind,
            status,
            question: question.into(),
            client_msg_id: None,
            parent_run_id: None,
            ui_state_version: 0,
            model: None,
            last_seq: 0,
            iterations: 0,
            usage: Usage::default(),
            error: None,
            final_text: String::new(),
            outcome: None,
            created_at: Utc::now(),
            completed_at: None,
            feedback: None,
        }
    }
}

/// Where a tool call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolPhase {
    Queued,
    AwaitingConfirmation,
    Running,
    Succeeded,
    Failed,
    Denied,
    Expired,
    Cancelled,
}

impl ToolPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::AwaitingConfirmation => "awaiting_confirmation",
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Denied => "denied",
            Self::Expired => "expired",
            Self::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Queued,
            Self::AwaitingConfirmation,
            Self::Running,
            Self::Succeeded,
            Self::Failed,
            Self::Denied,
            Self::Expired,
            Self::Cancelled,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
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
