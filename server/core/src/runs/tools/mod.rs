//! The agent's tools ("hands"): the port every tool implements, their names, and the registry.
//! Each tool validates its arguments, says what it will touch (for confirmations), and returns
//! two tracks: a rich result for the client and a short summary for the model (names, counts,
//! ranges — never raw row values).
//!
//! One file per family: `datasets.rs` (list, details, preview, statistics, search, delete),
//! `query.rs` (SQL and plans, and their cost), `files.rs` (approved folders), `curation.rs`
//! (rename, describe, save a result or a verified query, refresh), `memory.rs`, `knowledge.rs`,
//! `admin.rs` (users and keys), `system.rs` (the server's and a run's status); what they share in
//! `args.rs`; `ask.rs` the question back (`ask_user`) with its flow. The port through which external
//! MCP servers' tools join the registry is `external.rs` (`aware-mcp` implements it). A new tool
//! goes in its family's file and one line of [`ToolRegistry::standard`].

mod admin;
mod args;
pub mod ask;
mod curation;
mod datasets;
mod external;
mod files;
mod knowledge;
mod memory;
mod query;
mod system;

pub(crate) use args::{
    BOUND_VERSION, blast_radius, bound_version, dataset_arg_schema, dataset_ref, dependents_in_words, in_rows, resolve,
    string_arg,
};
pub(crate) use query::{cost_of, plan_from_json};

use super::router::Intent;
use super::services::Services;
pub use super::services::SystemInfo;
use crate::{Error, Result};
use async_trait::async_trait;
use aware_domain::auth::{Caller, Capability, DeploymentMode, Role};
use aware_domain::events::{BlastRadius, Provenance, ResourceRef, RichResult, Tier, ToolRisk, ToolSource};
use aware_domain::ids::RunId;
use aware_domain::ports::model::ToolSpec;
pub use external::{ExternalServer, ExternalTools, NoExternalTools, ServerState};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a tool needs to act for the run's user.
#[derive(Clone)]
pub struct ToolContext {
    pub caller: Caller,
    pub services: Services,
    /// The chat run the tools act for (query runs they start name it as their parent).
    pub run_id: Option<RunId>,
    /// A person approved this very call (for a query: its cost).
    pub approved: bool,
}

/// A tool call's arguments, checked, with what it will act on.
pub struct Prepared {
    /// This call asks a person first, at this tier, although its tool does not always (a query
    /// that reads more rows than the server runs without asking).
    pub ask: Option<Tier>,
    pub resource: ResourceRef,
    /// Plain English, shown in a confirmation prompt.
    pub description: String,
    /// The model's arguments resolved to exactly what will be touched (a dataset name to its id,
    /// a folder and pattern to the files they list). `execute` receives these instead of the
    /// model's, so what runs is what a person approved, even if the names change meanwhile.
    pub pinned: Option<Value>,
    /// For a change to a dataset: the version the approval binds to and what it touches.
    pub blast_radius: Option<BlastRadius>,
}

/// The two tracks of a tool's result.
pub struct ToolOutput {
    pub llm_summary: String,
    pub rich: Option<RichResult>,
}

/// The tools of this build: the one place a tool's name is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ToolName {
    ListDatasets,
    GetDatasetDetail,
    PreviewRows,
    RunSqlQuery,
    ExecuteQueryPlan,
    GetDatasetStatistics,
    GetSystemStatus,
    GetRunStatus,
    SearchDatasets,
    DeleteDataset,
    ListDirectory,
    ImportFiles,
    Remember,
    ForgetMemory,
    RenameDataset,
    DescribeDataset,
    SaveQueryAsDataset,
    SaveQuery,
    DeleteSavedQuery,
    RefreshDataset,
    CreateUser,
    ChangeUserRole,
    DeactivateUser,
    ReactivateUser,
    CreateApiKey,
    RevokeApiKey,
    AskUser,
    SearchKnowledge,
}

impl ToolName {
    pub const ALL: [Self; 28] = [
        Self::ListDatasets,
        Self::GetDatasetDetail,
        Self::PreviewRows,
        Self::RunSqlQuery,
        Self::ExecuteQueryPlan,
        Self::GetDatasetStatistics,
        Self::GetSystemStatus,
        Self::GetRunStatus,
        Self::SearchDatasets,
        Self::DeleteDataset,
        Self::ListDirectory,
        Self::ImportFiles,
        Self::Remember,
        Self::ForgetMemory,
        Self::RenameDataset,
        Self::DescribeDataset,
        Self::SaveQueryAsDataset,
        Self::SaveQuery,
        Self::DeleteSavedQuery,
        Self::RefreshDataset,
        Self::CreateUser,
        Self::ChangeUserRole,
        Self::DeactivateUser,
        Self::ReactivateUser,
        Self::CreateApiKey,
        Self::RevokeApiKey,
        Self::AskUser,
        Self::SearchKnowledge,
    ];

    /// Whether a call may ask a person first although the tool's risk does not say so: a query
    /// the server estimates to read more rows than it runs without asking.
    pub const fn may_ask_about_cost(self) -> bool {
        matches!(self, Self::RunSqlQuery | Self::ExecuteQueryPlan)
    }

    /// The name models call the tool by.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ListDatasets => "list_datasets",
            Self::GetDatasetDetail => "get_dataset_detail",
            Self::PreviewRows => "preview_rows",
            Self::RunSqlQuery => "run_sql_query",
            Self::ExecuteQueryPlan => "execute_query_plan",
            Self::GetDatasetStatistics => "get_dataset_statistics",
            Self::GetSystemStatus => "get_system_status",
            Self::GetRunStatus => "get_run_status",
            Self::SearchDatasets => "search_datasets",
            Self::DeleteDataset => "delete_dataset",
            Self::ListDirectory => "list_directory",
            Self::ImportFiles => "import_files",
            Self::Remember => "remember",
            Self::ForgetMemory => "forget_memory",
            Self::RenameDataset => "rename_dataset",
            Self::DescribeDataset => "describe_dataset",
            Self::SaveQueryAsDataset => "save_query_as_dataset",
            Self::SaveQuery => "save_query",
            Self::DeleteSavedQuery => "delete_saved_query",
            Self::RefreshDataset => "refresh_dataset",
            Self::CreateUser => "create_user",
            Self::ChangeUserRole => "change_user_role",
            Self::DeactivateUser => "deactivate_user",
            Self::ReactivateUser => "reactivate_user",
            Self::CreateApiKey => "create_api_key",
            Self::RevokeApiKey => "revoke_api_key",
            Self::AskUser => "ask_user",
            Self::SearchKnowledge => "search_knowledge",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

impl std::fmt::Display for ToolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool's name: one of this build's, or an external MCP server's (`server.tool`, so the two
/// never collide).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ToolId {
    Builtin(ToolName),
    External { server: String, tool: String, full: String },
}

impl ToolId {
    pub fn external(server: &str, tool: &str) -> Self {
        Self::External { server: server.to_owned(), tool: tool.to_owned(), full: format!("{server}.{tool}") }
    }

    /// The name models call the tool by.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Builtin(name) => name.as_str(),
            Self::External { full, .. } => full,
        }
    }

    pub fn builtin(&self) -> Option<ToolName> {
        match self {
            Self::Builtin(name) => Some(*name),
            Self::External { .. } => None,
        }
    }
}

/// Who may use an external tool where: the scope its server's configuration maps it to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeGrant {
    pub scope: String,
    /// The deployment modes the scope is granted in (none: never).
    pub modes: Vec<DeploymentMode>,
    /// The least role that may use it.
    pub min_role: Role,
}

/// What decides whether a caller may use a tool (`crate::policy`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gate {
    /// One of this build's tools: the capability a caller needs (the mode may rule it out).
    Capability(Capability),
    /// An external tool: its scope, or `None` when the configuration maps it to none (denied).
    Scope(Option<ScopeGrant>),
}

/// What a tool is, for the model, clients and the policy gate (`crate::policy`).
pub struct ToolMeta {
    pub name: ToolId,
    pub title: Cow<'static, str>,
    /// What a client shows while the tool runs ("Reading rows…").
    pub activity: Cow<'static, str>,
    pub description: Cow<'static, str>,
    pub risk: ToolRisk,
    /// Who may use it, and where.
    pub gate: Gate,
    /// The requests the tool serves: a confidently routed request is offered only these tools.
    pub intents: &'static [Intent],
}

impl ToolMeta {
    /// Where the tool comes from, for events and clients.
    pub fn provenance(&self) -> Provenance {
        match (&self.name, &self.gate) {
            (ToolId::Builtin(_), _) => Provenance::default(),
            (ToolId::External { server, .. }, gate) => Provenance {
                source: ToolSource::External,
                server_id: server.clone(),
                scope: match gate {
                    Gate::Scope(Some(grant)) => grant.scope.clone(),
                    Gate::Scope(None) | Gate::Capability(_) => String::new(),
                },
            },
        }
    }
}

/// The tools that find and describe a dataset, useful to every request about one.
const DATASET_CONTEXT: &[Intent] = &[
    Intent::DatasetLookup,
    Intent::Preview,
    Intent::Query,
    Intent::Statistics,
    Intent::Search,
    Intent::DatasetAdmin,
    Intent::DatasetEdit,
];

pub(crate) const READ_ONLY: ToolRisk = ToolRisk { read_only: true, destructive: false, confirmation: None };

#[async_trait]
pub trait Tool: Send + Sync {
    fn meta(&self) -> &ToolMeta;
    fn input_schema(&self) -> Value;
    /// Checks the arguments and names the resource, without side effects.
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared>;
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput>;
    /// Approve with edits: the arguments a person edited, checked to only narrow `approved` (the
    /// prepared call: pinned arguments when the tool pins them). Returns the arguments to run
    /// with; anything that is not a narrowing is a BAD_REQUEST error. By default a tool's
    /// arguments cannot be edited.
    fn narrow(&self, _approved: &Value, _edited: &Value) -> Result<Value> {
        Err(Error::new(
            crate::ErrorCode::BadRequest,
            format!(
                "the arguments of {} cannot be edited; approve or deny the call as asked",
                self.meta().name.as_str()
            ),
        ))
    }
    /// What a session grant for this tool covers, given what one call acts on: later calls on
    /// the same class run without asking. By default, the same resource; `None`: the tool always
    /// asks.
    fn grant_class(&self, resource: &ResourceRef) -> Option<String> {
        Some(same_resource(resource))
    }
}

/// The class a session grant for a call would cover; `None` when the call always asks: ELEVATED
/// calls, and tools that are never granted.
pub fn grant_class_for(tool: &dyn Tool, tier: Tier, resource: &ResourceRef) -> Option<String> {
    match tier {
        Tier::Standard => tool.grant_class(resource),
        Tier::Elevated => None,
    }
}

/// The grant class of a call that covers its own resource only.
pub fn same_resource(resource: &ResourceRef) -> String {
    format!("{}:{}", resource.kind, resource.id)
}

/// The tools by name.
#[derive(Clone)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl ToolRegistry {
    /// The tools of this build.
    pub fn standard() -> Self {
        use admin::{ChangeUserRole, CreateApiKey, CreateUser, RevokeApiKey, SetActive};
        use curation::{
            DeleteSavedQuery, DescribeDataset, RefreshDataset, RenameDataset, SaveQuery, SaveQueryAsDataset,
        };
        use datasets::{
            DeleteDataset, GetDatasetDetail, GetDatasetStatistics, ListDatasets, PreviewRows, SearchDatasets,
        };
        use files::{ImportFiles, ListDirectory};
        use query::{ExecuteQueryPlan, RunSqlQuery};
        use system::{GetRunStatus, GetSystemStatus};
        let tools: [Arc<dyn Tool>; 28] = [
            Arc::new(ListDatasets),
            Arc::new(GetDatasetDetail),
            Arc::new(PreviewRows),
            Arc::new(RunSqlQuery),
            Arc::new(ExecuteQueryPlan),
            Arc::new(GetDatasetStatistics),
            Arc::new(GetSystemStatus),
            Arc::new(GetRunStatus),
            Arc::new(DeleteDataset),
            Arc::new(ListDirectory),
            Arc::new(ImportFiles),
            Arc::new(SearchDatasets),
            Arc::new(memory::Remember),
            Arc::new(memory::ForgetMemory),
            Arc::new(RenameDataset),
            Arc::new(DescribeDataset),
            Arc::new(SaveQueryAsDataset),
            Arc::new(SaveQuery),
            Arc::new(DeleteSavedQuery),
            Arc::new(RefreshDataset),
            Arc::new(CreateUser),
            Arc::new(ChangeUserRole),
            Arc::new(SetActive::DEACTIVATE),
            Arc::new(SetActive::REACTIVATE),
            Arc::new(CreateApiKey),
            Arc::new(RevokeApiKey),
            Arc::new(ask::AskUser),
            Arc::new(knowledge::SearchKnowledge),
        ];
        Self { tools: tools.into_iter().map(|t| (t.meta().name.as_str().to_owned(), t)).collect() }
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.values()
    }
}

/// A tool as a model is offered it.
pub fn spec(tool: &dyn Tool) -> ToolSpec {
    ToolSpec {
        name: tool.meta().name.as_str().to_owned(),
        description: tool.meta().description.to_string(),
        input_schema: tool.input_schema(),
        provenance: tool.meta().provenance(),
    }
}
