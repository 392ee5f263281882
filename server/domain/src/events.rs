//! The sequenced events of a run: what is appended to the durable log and streamed to clients.

use crate::dataset::{Dataset, DatasetStatistics};
use crate::files::{ImportReport, Listing};
use crate::ids::{ConfirmationId, GrantId, MemoryId, RunId, ThreadId, ToolCallId};
use crate::run::{Capsule, RunError, RunRecord, RunStatus, ToolPhase, Usage};
use crate::search::SearchResults;
use crate::value::Table;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One sequenced event. `seq` starts at 1 and grows by one per event of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEvent {
    pub run_id: RunId,
    pub seq: u64,
    pub time: DateTime<Utc>,
    pub iteration: u32,
    pub thread_id: ThreadId,
    pub payload: EventPayload,
}

impl RunEvent {
    /// The event as the log keeps it: a secret meant to be shown once (a new API key's token)
    /// blanked. Live subscribers get the event itself; a replay gets this.
    pub fn for_storage(&self) -> std::borrow::Cow<'_, Self> {
        let EventPayload::ToolResult { rich: Some(RichResult::Account { token, .. }), .. } = &self.payload else {
            return std::borrow::Cow::Borrowed(self);
        };
        if token.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut stored = self.clone();
        if let EventPayload::ToolResult { rich: Some(RichResult::Account { token, .. }), .. } = &mut stored.payload {
            token.clear();
        }
        std::borrow::Cow::Owned(stored)
    }

    pub fn is_terminal(&self) -> bool {
        matches!(self.payload, EventPayload::RunCompleted { .. })
    }

    /// What the run came to, for its `RunCompleted` (told by its status in logs written before
    /// outcomes were); `None` for any other event.
    pub fn outcome(&self) -> Option<crate::run::RunOutcome> {
        let EventPayload::RunCompleted { status, outcome, .. } = &self.payload else {
            return None;
        };
        outcome.or_else(|| crate::run::RunOutcome::of_status(*status))
    }
}

/// How strongly a person must confirm (ordered: ELEVATED is the stronger).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    Standard,
    Elevated,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Elevated => "elevated",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Standard, Self::Elevated].into_iter().find(|t| t.as_str() == s)
    }
}

/// What a tool may do, shown to clients before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolRisk {
    pub read_only: bool,
    pub destructive: bool,
    /// `Some` when a person must approve each call.
    pub confirmation: Option<Tier>,
}

/// Where a tool comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolSource {
    /// One of aware's own tools.
    #[default]
    Builtin,
    /// A tool of an external MCP server registered in the configuration.
    External,
}

impl ToolSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Builtin => "builtin",
            Self::External => "external",
        }
    }
}

/// A tool's provenance: its source, and for an external tool its server and the scope its
/// configuration maps it to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    pub source: ToolSource,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub server_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scope: String,
}

/// A tool a run could use, listed at its start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolListing {
    pub name: String,
    pub title: String,
    #[serde(default)]
    pub provenance: Provenance,
}

/// The state of a confirmation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    Pending,
    Approved,
    Denied,
    Expired,
    Cancelled,
    Superseded,
}

impl Resolution {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Approved => "approved",
            Self::Denied => "denied",
            Self::Expired => "expired",
            Self::Cancelled => "cancelled",
            Self::Superseded => "superseded",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Pending, Self::Approved, Self::Denied, Self::Expired, Self::Cancelled, Self::Superseded]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

/// A thing a tool acts on.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ResourceRef {
    pub kind: String,
    pub id: String,
    pub display_name: String,
}

/// What an approval would touch, computed by the server from the resource itself (never from the
/// model's words): the version the approval binds to, its size, and what depends on it.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BlastRadius {
    /// The dataset's content hash when the confirmation was asked; an approval after it changed
    /// fails with `RESOURCE_CHANGED`.
    pub version_hash: String,
    pub row_count: u64,
    pub size_bytes: u64,
    /// The names of verified (saved) queries that read it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub saved_queries: Vec<String>,
    /// Datasets saved from queries over it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derived_datasets: Vec<ResourceRef>,
}

/// The rich, typed result a client renders (the model never sees it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RichResult {
    DatasetList {
        datasets: Vec<Dataset>,
    },
    DeletedDataset {
        dataset: Box<Dataset>,
    },
    DatasetDetail {
        dataset: Box<Dataset>,
        sample: Option<Table>,
    },
    Table {
        table: Table,
        executed_sql: String,
    },
    Statistics {
        statistics: DatasetStatistics,
    },
    SystemStatus {
        status: SystemStatus,
    },
    DirectoryListing {
        listing: Listing,
    },
    ImportReport {
        report: ImportReport,
    },
    SearchHits {
        results: SearchResults,
    },
    Run {
        run: Box<RunRecord>,
        capsule: Box<Capsule>,
    },
    /// A dataset after a change the assistant made (`renamed`, `described`, `saved`).
    DatasetChanged {
        change: String,
        dataset: Box<Dataset>,
    },
    /// A verified query after a change (`saved`, `deleted`).
    SavedQuery {
        change: String,
        query: crate::ports::SavedQuery,
    },
    /// Passages of the caller's documents (`search_knowledge`).
    Knowledge {
        results: crate::knowledge::KnowledgeResults,
    },
    /// A user or API key after an admin change (`user_created`, `role_changed`, `deactivated`,
    /// `reactivated`, `key_created`, `key_revoked`). `token` is a new key's secret: delivered live
    /// once, to the person; the stored event has it blank ([`RunEvent::for_storage`]).
    Account {
        change: String,
        user: Option<crate::ports::User>,
        api_key: Option<crate::ports::ApiKey>,
        #[serde(default)]
        token: String,
    },
    /// An external MCP tool's whole result (`CallToolResult` as JSON), for the client only: the
    /// model gets a capped text of it, marked as external content.
    External {
        server_id: String,
        tool: String,
        result: serde_json::Value,
    },
}

/// What `get_system_status` reports.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct SystemStatus {
    pub version: String,
    pub mode: String,
    pub model_provider: String,
    pub storage: String,
    pub dataset_count: u32,
    pub dataset_bytes: u64,
    /// How search works here and where the datasets' indexes are.
    #[serde(default)]
    pub search: String,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventPayload {
    RunStarted {
        user_text: String,
        ui_state_version: u64,
        max_iterations: u32,
        parent_run_id: Option<RunId>,
        model: String,
        client_msg_id: String,
        /// The tools the run's user may use here, with their provenance.
        #[serde(default)]
        tools: Vec<ToolListing>,
    },
    TextStarted {
        message_id: String,
    },
    TextDelta {
        message_id: String,
        delta: String,
    },
    TextEnded {
        message_id: String,
    },
    ToolCallStarted {
        tool_call_id: ToolCallId,
        tool_name: String,
        arguments_json: String,
        risk: ToolRisk,
        title: String,
        #[serde(default)]
        provenance: Provenance,
    },
    ToolStatus {
        tool_call_id: ToolCallId,
        phase: ToolPhase,
        message: String,
    },
    ToolResult {
        tool_call_id: ToolCallId,
        tool_name: String,
        is_error: bool,
        llm_summary: String,
        error: Option<RunError>,
        duration_ms: u64,
        rich: Option<RichResult>,
        /// Boxed: this is the payload's largest variant already.
        #[serde(default)]
        provenance: Box<Provenance>,
    },
    ToolDenied {
        tool_call_id: ToolCallId,
        tool_name: String,
        reason: String,
        /// Why, as a code (`role_not_allowed`, `scope_not_allowed_environment`, …).
        #[serde(default)]
        code: String,
        #[serde(default)]
        provenance: Provenance,
    },
    ConfirmationRequired {
        confirmation_id: ConfirmationId,
        tool_call_id: ToolCallId,
        tool_name: String,
        resource: ResourceRef,
        description: String,
        tier: Tier,
        expires_at: DateTime<Utc>,
        arguments_json: String,
        /// What an approval binds: the arguments resolved to exactly what will be touched (a
        /// folder and pattern to the files they list); empty when the tool resolves nothing.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        resolved_arguments_json: String,
        /// Whether it may be approved for a while (a session grant).
        #[serde(default)]
        grantable: bool,
        /// What it would touch, for a dataset change: version, rows, bytes and dependents.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blast_radius: Option<BlastRadius>,
    },
    /// The run paused on a question back (the `ask_user` tool): which column, value or date the
    /// words mean, with options from the data. Answered through the confirmation it is stored as.
    ClarificationRequired {
        clarification_id: ConfirmationId,
        tool_call_id: ToolCallId,
        #[serde(flatten)]
        question: Clarification,
        expires_at: DateTime<Utc>,
    },
    ClarificationResolved {
        clarification_id: ConfirmationId,
        tool_call_id: ToolCallId,
        resolution: Resolution,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        choice: String,
        #[serde(default)]
        remembered: bool,
    },
    ConfirmationResolved {
        confirmation_id: ConfirmationId,
        tool_call_id: ToolCallId,
        resolution: Resolution,
        /// The session grant that approved it without asking.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grant_id: Option<GrantId>,
        /// The narrowed arguments a person approved (approve with edits); empty: as asked.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        edited_arguments_json: String,
    },
    /// A run's post-hook stored a fact in the user's memory.
    MemorySaved {
        memory_id: MemoryId,
        text: String,
    },
    /// A run's post-hook forgot a fact the user approved forgetting.
    MemoryForgotten {
        memory_id: MemoryId,
        text: String,
    },
    RoutingDecided {
        intent: String,
        confidence: f32,
        risk: String,
        tools: Vec<String>,
        withheld_tools: Vec<String>,
    },
    /// Each number of the answer and where it came from (a tool result's cell, an aggregate of
    /// one, a summary the model was given, the question), or none: just before `RunCompleted`
    /// of a chat run that answered.
    Grounding {
        numbers: Vec<crate::grounding::NumberClaim>,
        /// When the run retrieved passages of documents: whether the answer cites them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        citations: Option<crate::knowledge::CitationCheck>,
    },
    /// A `search_knowledge` call retrieved these passages (right after its `ToolResult`): what
    /// the run's answer may cite.
    RetrievalCompleted {
        tool_call_id: ToolCallId,
        query: String,
        chunk_ids: Vec<String>,
    },
    RunCompleted {
        status: RunStatus,
        error: Option<RunError>,
        usage: Usage,
        final_text: String,
        /// What the run came to (absent in logs written before outcomes: told by `status`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<crate::run::RunOutcome>,
        /// Questions to offer next, each one the model read as answerable.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        follow_ups: Vec<String>,
    },
}

/// What a run is doing right now (for heartbeats).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunPhase {
    Queued,
    WaitingModel,
    Streaming,
    ExecutingTool,
    AwaitingConfirmation,
}

impl RunPhase {
    pub const ALL: [RunPhase; 5] =
        [Self::Queued, Self::WaitingModel, Self::Streaming, Self::ExecutingTool, Self::AwaitingConfirmation];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::WaitingModel => "waiting_model",
            Self::Streaming => "streaming",
            Self::ExecutingTool => "executing_tool",
            Self::AwaitingConfirmation => "awaiting_confirmation",
        }
    }
}

/// What the question is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClarificationKind {
    /// The words could mean several columns.
    Column,
    /// A value found in several columns.
    Value,
    /// A time phrase, and several date columns it could apply to.
    TimeRange,
}

impl ClarificationKind {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "column" => Some(Self::Column),
            "value" => Some(Self::Value),
            "time_range" => Some(Self::TimeRange),
            _ => None,
        }
    }
}

/// One answer, with what the data says about it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClarificationOption {
    /// The column name a choice sends back.
    pub value: String,
    pub label: String,
    pub sql_type: String,
    pub null_share: f64,
    #[serde(default)]
    pub min: String,
    #[serde(default)]
    pub max: String,
    /// For a VALUE question: rows whose cell in this column is the value.
    #[serde(default)]
    pub count: u64,
}

/// A question back, as a person sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clarification {
    pub kind: ClarificationKind,
    pub question: String,
    /// The words of the request that were ambiguous.
    pub phrase: String,
    pub dataset: ResourceRef,
    pub options: Vec<ClarificationOption>,
}
