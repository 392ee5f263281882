//! The agent's tools ("hands") and their registry. Each tool validates its arguments, says what
//! it will touch (for confirmations), and returns two tracks: a rich result for the client and a
//! short summary for the model (names, counts, ranges — never raw row values).

use super::engine::Services;
use super::events::SystemStatus;
use super::events::{BlastRadius, Provenance, ResourceRef, RichResult, Tier, ToolRisk, ToolSource};
use super::model::ToolSpec;
use super::model_view::summary;
use super::router::Intent;
use crate::auth::{Caller, Capability, Role};
use crate::dataset::{Dataset, DatasetStatus};
use crate::history::parse_run_id;
use crate::ids::RunId;
use crate::policy::DeploymentMode;
use crate::query_plan::QueryPlan;
use crate::search::{SearchMode, SearchService};
use crate::{Error, Result};
use async_trait::async_trait;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Facts about this server for `get_system_status`.
#[derive(Clone, Debug, Default)]
pub struct SystemInfo {
    pub version: String,
    pub mode: DeploymentMode,
    pub model_provider: String,
    pub storage: String,
}

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

pub(super) const READ_ONLY: ToolRisk = ToolRisk { read_only: true, destructive: false, confirmation: None };

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
        use super::admin_tools::{ChangeUserRole, CreateApiKey, CreateUser, RevokeApiKey, SetActive};
        use super::write_tools::{
            DeleteSavedQuery, DescribeDataset, RefreshDataset, RenameDataset, SaveQuery, SaveQueryAsDataset,
        };
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
            Arc::new(super::memory_tools::Remember),
            Arc::new(super::memory_tools::ForgetMemory),
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
            Arc::new(super::clarify::AskUser),
            Arc::new(super::knowledge_tools::SearchKnowledge),
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

struct ListDatasets;

static LISTDATASETS: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::ListDatasets),
    activity: Cow::Borrowed("Looking up your datasets…"),
    intents: DATASET_CONTEXT,
    title: Cow::Borrowed("List datasets"),
    description: Cow::Borrowed(
        "List the user's datasets with their table names, formats, row and column counts and status.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::DatasetRead),
};

#[async_trait]
impl Tool for ListDatasets {
    fn meta(&self) -> &ToolMeta {
        &LISTDATASETS
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"status": {"type": "string", "enum": ["processing", "ready", "error"]}},
            "additionalProperties": false
        })
    }
    async fn prepare(&self, _ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        status_arg(args)?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            resource: ResourceRef::default(),
            description: "List your datasets".to_owned(),
            pinned: None,
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let datasets = ctx.services.datasets.list(&ctx.caller, status_arg(args)?).await?;
        let llm_summary = summary::datasets(&datasets, summary::THE_USER_HAS);
        Ok(ToolOutput { llm_summary, rich: Some(RichResult::DatasetList { datasets }) })
    }
}

fn status_arg(args: &Value) -> Result<Option<DatasetStatus>> {
    match args.get("status") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_str()
            .and_then(DatasetStatus::parse)
            .map(Some)
            .ok_or_else(|| Error::validation("status", "status is processing, ready or error")),
    }
}

struct GetRunStatus;

static GETRUNSTATUS: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::GetRunStatus),
    activity: Cow::Borrowed("Looking up the run…"),
    intents: &[Intent::RunLookup],
    title: Cow::Borrowed("Run status"),
    description: Cow::Borrowed(
        "The status of one of the user's runs (an assistant run or a query): what was asked, \
                  status, datasets read, tool calls, timings and token usage.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::DatasetRead),
};

#[async_trait]
impl Tool for GetRunStatus {
    fn meta(&self) -> &ToolMeta {
        &GETRUNSTATUS
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"run_id": {"type": "string"}},
            "required": ["run_id"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, _ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let id = args.get("run_id").and_then(Value::as_str).filter(|s| !s.trim().is_empty());
        let id = id.ok_or_else(|| Error::validation("run_id", "a run id is required"))?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            resource: ResourceRef { kind: "run".to_owned(), id: id.to_owned(), display_name: String::new() },
            description: "Report a run's status".to_owned(),
            pinned: None,
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let id = args.get("run_id").and_then(Value::as_str).unwrap_or_default();
        let (run, capsule) = ctx.services.history.get(&ctx.caller, &parse_run_id(id)?).await?;
        let llm_summary = format!(
            "Run {} ({}) is {}: {} tool call(s), {} dataset(s) read, {} input and {} output tokens{}.",
            run.id,
            run.kind.as_str(),
            run.status.as_str(),
            capsule.tool_calls.len(),
            capsule.datasets.len(),
            run.usage.input_tokens,
            run.usage.output_tokens,
            run.error.as_ref().map(|e| format!(", error {}: {}", e.code.as_str(), e.message)).unwrap_or_default()
        );
        Ok(ToolOutput { llm_summary, rich: Some(RichResult::Run { run: Box::new(run), capsule: Box::new(capsule) }) })
    }
}

struct DeleteDataset;

/// The dataset an argument names: its id, table name or file name (case-insensitive).
pub(super) async fn resolve(ctx: &ToolContext, args: &Value) -> Result<Dataset> {
    let wanted = args
        .get("dataset")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| Error::validation("dataset", "name the dataset (its id or table name)"))?;
    let datasets = ctx.services.datasets.list(&ctx.caller, None).await?;
    datasets
        .into_iter()
        .find(|d| {
            d.id.as_str() == wanted || d.table_name.eq_ignore_ascii_case(wanted) || d.name.eq_ignore_ascii_case(wanted)
        })
        .ok_or_else(|| Error::not_found("dataset", wanted).with_field("dataset"))
}

/// A dataset as the resource a call acts on.
pub(super) fn dataset_ref(d: &Dataset) -> ResourceRef {
    ResourceRef { kind: "dataset".to_owned(), id: d.id.to_string(), display_name: d.name.clone() }
}

/// The argument the driver adds to an approved dataset change: the version (content hash) the
/// person approved it for. The service refuses the change when the content is another one now.
pub(crate) const BOUND_VERSION: &str = "bound_version";

/// The version an approval bound the call to, if any.
pub(super) fn bound_version(args: &Value) -> Option<&str> {
    args.get(BOUND_VERSION).and_then(Value::as_str)
}

/// What a change to `d` touches, computed from the dataset itself: its version, size, and the
/// verified queries and saved datasets that depend on it.
pub(super) async fn blast_radius(ctx: &ToolContext, d: &Dataset) -> Result<BlastRadius> {
    let dependents = ctx.services.curation.dependents(&ctx.caller, d).await?;
    Ok(BlastRadius {
        version_hash: d.version_hash.clone(),
        row_count: d.row_count,
        size_bytes: d.size_bytes,
        saved_queries: dependents.saved_queries,
        derived_datasets: dependents.derived.iter().map(dataset_ref).collect(),
    })
}

/// The dependents of a blast radius in words, for a confirmation card ("" when none).
pub(super) fn dependents_in_words(b: &BlastRadius) -> String {
    let mut parts = Vec::new();
    if !b.saved_queries.is_empty() {
        let n = b.saved_queries.len();
        parts.push(format!(
            "{n} verified quer{} read{} it ({})",
            if n == 1 { "y" } else { "ies" },
            if n == 1 { "s" } else { "" },
            b.saved_queries.join(", ")
        ));
    }
    if !b.derived_datasets.is_empty() {
        let n = b.derived_datasets.len();
        let names: Vec<&str> = b.derived_datasets.iter().map(|d| d.display_name.as_str()).collect();
        parts.push(format!(
            "{n} saved dataset{} {} computed from it ({})",
            if n == 1 { "" } else { "s" },
            if n == 1 { "was" } else { "were" },
            names.join(", ")
        ));
    }
    if parts.is_empty() { String::new() } else { format!(" {}.", capitalised(&parts.join("; "))) }
}

pub(super) use crate::dataset::{in_bytes, in_rows};

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

pub(super) fn dataset_arg_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"dataset": {"type": "string", "description": "the dataset id or table name"}},
        "required": ["dataset"],
        "additionalProperties": false
    })
}

fn prepared_for(d: &Dataset, what: &str) -> Prepared {
    Prepared {
        ask: None,
        blast_radius: None,
        resource: dataset_ref(d),
        description: format!("{what} {}", d.name),
        pinned: None,
    }
}

struct GetDatasetDetail;

static GETDATASETDETAIL: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::GetDatasetDetail),
    activity: Cow::Borrowed("Reading the dataset's schema…"),
    intents: DATASET_CONTEXT,
    title: Cow::Borrowed("Dataset details"),
    description: Cow::Borrowed(
        "The schema of one dataset (column names and types), its row count, size, format and status.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::DatasetRead),
};

#[async_trait]
impl Tool for GetDatasetDetail {
    fn meta(&self) -> &ToolMeta {
        &GETDATASETDETAIL
    }
    fn input_schema(&self) -> Value {
        dataset_arg_schema()
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        Ok(prepared_for(&resolve(ctx, args).await?, "Describe"))
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let d = resolve(ctx, args).await?;
        let (dataset, sample) = ctx.services.datasets.get_with_sample(&ctx.caller, &d.id, 5).await?;
        let columns: Vec<String> =
            dataset.columns.iter().take(30).map(|c| format!("{} {}", c.name, c.sql_type)).collect();
        let llm_summary = format!(
            "{}: table `{}`, {}, {}, {}, {} bytes. Columns: {}{}.",
            dataset.name,
            dataset.table_name,
            dataset.format.as_str(),
            dataset.status.as_str(),
            in_rows(dataset.row_count),
            dataset.size_bytes,
            columns.join(", "),
            if dataset.columns.len() > 30 {
                format!(" and {} more", dataset.columns.len() - 30)
            } else {
                String::new()
            }
        );
        Ok(ToolOutput { llm_summary, rich: Some(RichResult::DatasetDetail { dataset: Box::new(dataset), sample }) })
    }
}

struct PreviewRows;

static PREVIEWROWS: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::PreviewRows),
    activity: Cow::Borrowed("Reading rows…"),
    intents: &[Intent::Preview],
    title: Cow::Borrowed("Preview rows"),
    description: Cow::Borrowed(
        "Show the user the first rows of a dataset (1 to 50, default 10). You get a summary, not the rows.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::DatasetRead),
};

#[async_trait]
impl Tool for PreviewRows {
    fn meta(&self) -> &ToolMeta {
        &PREVIEWROWS
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "dataset": {"type": "string", "description": "the dataset id or table name"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50}
            },
            "required": ["dataset"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        limit_arg(args, 50)?;
        Ok(prepared_for(&resolve(ctx, args).await?, "Preview"))
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let d = resolve(ctx, args).await?;
        let table = ctx.services.datasets.preview(&ctx.caller, &d.id, limit_arg(args, 50)?.unwrap_or(10)).await?;
        let llm_summary = format!(
            "Displayed {} row(s) of {} (table `{}`, {} rows in all) to the user. {}",
            table.rows.len(),
            d.name,
            d.table_name,
            d.row_count,
            summary::describe_table(&table)
        );
        Ok(ToolOutput { llm_summary, rich: Some(RichResult::Table { table, executed_sql: String::new() }) })
    }
}

fn limit_arg(args: &Value, max: u64) -> Result<Option<u32>> {
    match args.get("limit") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (1..=max).contains(&n) => Ok(Some(n as u32)),
            _ => Err(Error::validation("limit", format!("limit must be an integer from 1 to {max}"))),
        },
    }
}

struct RunSqlQuery;

static RUNSQLQUERY: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::RunSqlQuery),
    activity: Cow::Borrowed("Running SQL…"),
    intents: &[Intent::Query],
    title: Cow::Borrowed("Run SQL"),
    description: Cow::Borrowed(
        "Run one read-only SELECT (DuckDB SQL) over the user's datasets by table name, in a sandbox. \
         The user sees the result table; you get its row count, columns and numeric ranges.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::Query),
};

#[async_trait]
impl Tool for RunSqlQuery {
    fn meta(&self) -> &ToolMeta {
        &RUNSQLQUERY
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "sql": {"type": "string", "description": "one SELECT or WITH … SELECT"},
                "verified_query": {"type": "string", "description": "instead of sql: the id of a verified query to run"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000}
            },
            "additionalProperties": false
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        limit_arg(args, 1000)?;
        let (description, sql) = match (string_arg(args, "sql")?.trim(), string_arg(args, "verified_query")?.trim()) {
            ("", "") => {
                return Err(Error::validation("sql", "a SQL query (or a verified query's id) is required"));
            }
            (sql, "") => ("Run a read-only query".to_owned(), sql.to_owned()),
            ("", id) => {
                let saved = ctx.services.curation.saved_query(&ctx.caller, id).await?;
                (format!("Run the verified query “{}”", saved.name), saved.sql)
            }
            (_, _) => return Err(Error::validation("sql", "send either sql or verified_query, not both")),
        };
        let heavy = ctx.services.query.heavy_sql(&ctx.caller, &sql).await;
        Ok(Prepared {
            ask: heavy.map(|_| Tier::Standard),
            blast_radius: None,
            resource: heavy.map(|h| heavy_resource(&h, "a query")).unwrap_or_default(),
            description: match heavy {
                Some(heavy) => format!("{description}? It reads {}.", heavy.in_words()),
                None => description,
            },
            pinned: None,
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        // The default shows 200 rows, or fewer where the server returns fewer.
        let limit = limit_arg(args, 1000)?.unwrap_or(200).min(ctx.services.query.max_rows());
        let verified = string_arg(args, "verified_query")?.trim();
        let (parent, cost) = (ctx.run_id.as_ref(), cost_of(ctx));
        let (answer, used) = if verified.is_empty() {
            let sql = string_arg(args, "sql")?;
            (ctx.services.query.execute_sql(&ctx.caller, sql, limit, parent, cost).await?, None)
        } else {
            let saved = ctx.services.curation.saved_query(&ctx.caller, verified).await?;
            let answer = ctx.services.query.execute_verified(&ctx.caller, &saved, limit, parent, cost).await?;
            (answer, Some(saved.name))
        };
        let mut llm_summary = summary::query_result(&answer.table);
        if let Some(name) = used {
            llm_summary = format!("Ran the verified query “{name}”. {llm_summary}");
        }
        Ok(ToolOutput {
            llm_summary,
            rich: Some(RichResult::Table { table: answer.table, executed_sql: answer.executed_sql }),
        })
    }
}

struct ExecuteQueryPlan;

static EXECUTEQUERYPLAN: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::ExecuteQueryPlan),
    activity: Cow::Borrowed("Running SQL…"),
    intents: &[Intent::DatasetLookup, Intent::Preview, Intent::Query],
    title: Cow::Borrowed("Run a query plan"),
    description: Cow::Borrowed(
        "Run a typed query over one dataset: select columns or aggregates (count, count_distinct, sum, avg, \
         min, max, median, share — the fraction of rows meeting a `condition` list of filters), a column `per` \
         another (a ratio per row), a date column's `bucket` (year, quarter, month, week, day) to group by, filters \
         (eq, ne, lt, le, gt, ge, in, not_in, contains, is_null, is_not_null, between), group_by, order_by, limit. \
         A computed value goes in `expr` instead of `column` (in a select item or a filter): {\"column\": name}, \
         {\"number\": x}, {\"op\": add|sub|mul|div|days_between, \"args\": [a, b]} or {\"aggregate\": sum|avg|…, \
         \"args\": [a]} — e.g. revenue summed: {\"expr\": {\"op\": \"mul\", \"args\": [{\"column\": \"units\"}, \
         {\"column\": \"unit_price\"}]}, \"aggregate\": \"sum\"}. Checked against the schema, compiled to SQL, run \
         in the sandbox.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::Query),
};

#[async_trait]
impl Tool for ExecuteQueryPlan {
    fn meta(&self) -> &ToolMeta {
        &EXECUTEQUERYPLAN
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "dataset": {"type": "string"},
                "select": {"type": "array", "items": {"type": "object", "properties": {
                    "column": {"type": "string"}, "aggregate": {"type": "string"}, "alias": {"type": "string"},
                    "per": {"type": "string"}, "bucket": {"type": "string"}, "expr": {"type": "object"}}}},
                "filters": {"type": "array", "items": {"type": "object", "properties": {
                    "column": {"type": "string"}, "op": {"type": "string"}, "value": {}, "values": {"type": "array"},
                    "expr": {"type": "object"}},
                    "required": ["op"]}},
                "group_by": {"type": "array", "items": {"type": "string"}},
                "order_by": {"type": "array", "items": {"type": "object", "properties": {
                    "column": {"type": "string"}, "descending": {"type": "boolean"}}}},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000}
            },
            "required": ["dataset"]
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let plan = plan_from_json(args)?;
        let dataset = resolve(ctx, args).await?;
        let mut prepared = prepared_for(&dataset, "Query");
        if let Some(heavy) = ctx.services.query.heavy_plan(&ctx.caller, &plan, &dataset).await {
            prepared.ask = Some(Tier::Standard);
            prepared.resource = heavy_resource(&heavy, &dataset.name);
            prepared.description = format!("Query {}? It reads {}.", dataset.name, heavy.in_words());
        }
        Ok(prepared)
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let plan = plan_from_json(args)?;
        let (parent, cost) = (ctx.run_id.as_ref(), cost_of(ctx));
        let answer = ctx.services.query.execute_plan(&ctx.caller, &plan, plan.limit, parent, cost).await?;
        Ok(ToolOutput {
            llm_summary: summary::query_result(&answer.table),
            rich: Some(RichResult::Table { table: answer.table, executed_sql: answer.compiled_sql }),
        })
    }
}

/// What a query that asks about its cost acts on: queries reading up to the next power of ten
/// of its rows. A grant for it ("allow for 5 minutes") lets later queries of that size run
/// without asking, never larger ones; an approval after a restart holds only while the query is
/// still that size.
fn heavy_resource(heavy: &crate::ports::HeavyQuery, what: &str) -> ResourceRef {
    let bound = 10u64.checked_pow(heavy.estimate.rows.max(1).ilog10() + 1).unwrap_or(u64::MAX);
    ResourceRef { kind: "query".to_owned(), id: format!("up-to-{bound}-rows"), display_name: what.to_owned() }
}

/// A query runs at any cost once a person approved it; otherwise the server's limit applies.
pub(super) fn cost_of(ctx: &ToolContext) -> crate::query::Cost {
    if ctx.approved { crate::query::Cost::Accepted } else { crate::query::Cost::Checked }
}

/// A plan from a model's JSON: filter values are plain JSON scalars.
pub(super) fn plan_from_json(args: &Value) -> Result<QueryPlan> {
    fn scalar(v: &Value, field: &str) -> Result<crate::value::Value> {
        use crate::value::Value as V;
        Ok(match v {
            Value::Null => V::Null,
            Value::Bool(b) => V::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => V::Int(i),
                None => V::Double(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => V::String(s.clone()),
            Value::Array(_) | Value::Object(_) => {
                return Err(Error::validation(field, "filter values are numbers, strings, booleans or null"));
            }
        })
    }
    fn typed_filters(filters: &mut [Value], field: &str) -> Result<()> {
        for (i, f) in filters.iter_mut().enumerate() {
            if let Some(v) = f.get("value").cloned() {
                f["value"] =
                    serde_json::to_value(scalar(&v, &format!("{field}[{i}].value"))?).map_err(Error::internal)?;
            }
            if let Some(vs) = f.get("values").and_then(Value::as_array).cloned() {
                let converted: Result<Vec<_>> = vs.iter().map(|v| scalar(v, &format!("{field}[{i}].values"))).collect();
                f["values"] = serde_json::to_value(converted?).map_err(Error::internal)?;
            }
        }
        Ok(())
    }
    let mut args = args.clone();
    if let Some(filters) = args.get_mut("filters").and_then(Value::as_array_mut) {
        typed_filters(filters, "filters")?;
    }
    // A share's condition holds filters too.
    if let Some(select) = args.get_mut("select").and_then(Value::as_array_mut) {
        for (i, item) in select.iter_mut().enumerate() {
            if let Some(condition) = item.get_mut("condition").and_then(Value::as_array_mut) {
                typed_filters(condition, &format!("select[{i}].condition"))?;
            }
        }
    }
    serde_json::from_value(args).map_err(|e| Error::validation("plan", format!("not a valid query plan: {e}")))
}

struct GetDatasetStatistics;

static GETDATASETSTATISTICS: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::GetDatasetStatistics),
    activity: Cow::Borrowed("Profiling the data…"),
    intents: &[Intent::Statistics],
    title: Cow::Borrowed("Dataset statistics"),
    description: Cow::Borrowed(
        "Profile every column of a dataset: type, missing and distinct values, and for numbers the range, mean \
         and median.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::DatasetRead),
};

#[async_trait]
impl Tool for GetDatasetStatistics {
    fn meta(&self) -> &ToolMeta {
        &GETDATASETSTATISTICS
    }
    fn input_schema(&self) -> Value {
        dataset_arg_schema()
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        Ok(prepared_for(&resolve(ctx, args).await?, "Profile"))
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let d = resolve(ctx, args).await?;
        let statistics = ctx.services.datasets.statistics(&ctx.caller, &d.id).await?;
        Ok(ToolOutput {
            llm_summary: summary::statistics(&statistics),
            rich: Some(RichResult::Statistics { statistics }),
        })
    }
}

struct GetSystemStatus;

static GETSYSTEMSTATUS: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::GetSystemStatus),
    activity: Cow::Borrowed("Checking the system…"),
    intents: &[Intent::SystemStatus],
    title: Cow::Borrowed("System status"),
    description: Cow::Borrowed(
        "The state of aware itself: version, mode, model provider, storage, and the user's dataset totals.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::DatasetRead),
};

#[async_trait]
impl Tool for GetSystemStatus {
    fn meta(&self) -> &ToolMeta {
        &GETSYSTEMSTATUS
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }
    async fn prepare(&self, _ctx: &ToolContext, _args: &Value) -> Result<Prepared> {
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            resource: ResourceRef::default(),
            description: "Report the system status".to_owned(),
            pinned: None,
        })
    }
    async fn execute(&self, ctx: &ToolContext, _args: &Value) -> Result<ToolOutput> {
        let datasets = ctx.services.datasets.list(&ctx.caller, None).await?;
        let status = SystemStatus {
            version: ctx.services.system.version.clone(),
            mode: ctx.services.system.mode.as_str().to_owned(),
            model_provider: ctx.services.system.model_provider.clone(),
            storage: ctx.services.system.storage.clone(),
            dataset_count: u32::try_from(datasets.len()).unwrap_or(u32::MAX),
            dataset_bytes: datasets.iter().map(|d| d.size_bytes).sum(),
            search: search_status(ctx.services.datasets.search()),
        };
        let llm_summary = format!(
            "aware {} is running in {} mode with the {} model and {} storage. The user has {} dataset(s), {} bytes in all. Search: {}.",
            status.version,
            status.mode,
            status.model_provider,
            status.storage,
            status.dataset_count,
            status.dataset_bytes,
            status.search
        );
        Ok(ToolOutput { llm_summary, rich: Some(RichResult::SystemStatus { status }) })
    }
}

/// The search index in a line: how it searches, and its datasets by state.
fn search_status(search: &SearchService) -> String {
    let how = match search.model() {
        Some(model) => format!("hybrid (BM25 words + {model} vectors)"),
        None => "words only (BM25; no embedding model configured)".to_owned(),
    };
    let states: Vec<String> = search.summary().iter().map(|(state, n)| format!("{n} {}", state.as_str())).collect();
    if states.is_empty() { how } else { format!("{how}; datasets: {}", states.join(", ")) }
}

struct SearchDatasets;

static SEARCHDATASETS: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::SearchDatasets),
    activity: Cow::Borrowed("Searching…"),
    intents: &[Intent::Search],
    title: Cow::Borrowed("Search datasets"),
    description: Cow::Borrowed(
        "Search the text columns of the user's datasets by words and by meaning (e.g. \"login problems\" \
         also finds \"cannot sign in\"). The user sees the matching rows with highlighted snippets; you get how many \
         matched where and the top score, never the text.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::DatasetRead),
};

#[async_trait]
impl Tool for SearchDatasets {
    fn meta(&self) -> &ToolMeta {
        &SEARCHDATASETS
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what to find, in words"},
                "dataset": {"type": "string", "description": "only this dataset (id or table name); omit for all"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "hits to show (default 10)"}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, _ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let query = string_arg(args, "query")?;
        if query.trim().is_empty() {
            return Err(Error::validation("query", "query (what to search for) is required"));
        }
        string_arg(args, "dataset")?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            resource: ResourceRef::default(),
            description: format!("Search for “{}”", query.trim()),
            pinned: None,
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let dataset = Some(string_arg(args, "dataset")?).filter(|d| !d.trim().is_empty());
        let limit = args.get("limit").and_then(Value::as_u64).map_or(0, |l| l.clamp(1, 20) as u32);
        let results = ctx
            .services
            .datasets
            .search()
            .search(&ctx.caller, string_arg(args, "query")?, dataset, limit, SearchMode::Hybrid)
            .await?;
        Ok(ToolOutput {
            llm_summary: summary::search(&results, summary::SHOWN_TO_THE_USER),
            rich: Some(RichResult::SearchHits { results }),
        })
    }
}

static DELETEDATASET: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::DeleteDataset),
    activity: Cow::Borrowed("Deleting the dataset…"),
    intents: &[Intent::DatasetAdmin],
    title: Cow::Borrowed("Delete a dataset"),
    description: Cow::Borrowed(
        "Delete one of the user's datasets (data and catalog entry). A person must approve it first.",
    ),
    risk: ToolRisk { read_only: false, destructive: true, confirmation: Some(Tier::Elevated) },
    gate: Gate::Capability(Capability::DatasetDelete),
};

#[async_trait]
impl Tool for DeleteDataset {
    fn meta(&self) -> &ToolMeta {
        &DELETEDATASET
    }
    fn input_schema(&self) -> Value {
        dataset_arg_schema()
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let d = resolve(ctx, args).await?;
        let blast = blast_radius(ctx, &d).await?;
        Ok(Prepared {
            ask: None,
            description: format!(
                "Delete the dataset “{}” (table `{}`, {}, {}). Its data is removed for good.{}",
                d.name,
                d.table_name,
                in_rows(d.row_count),
                in_bytes(d.size_bytes),
                dependents_in_words(&blast)
            ),
            pinned: Some(json!({"dataset": d.id.as_str()})),
            resource: dataset_ref(&d),
            blast_radius: Some(blast),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let d = resolve(ctx, args).await?;
        let deleted = ctx.services.datasets.delete(&ctx.caller, &d.id, bound_version(args)).await?;
        Ok(ToolOutput {
            llm_summary: format!("Deleted the dataset {} (table `{}`).", deleted.name, deleted.table_name),
            rich: Some(RichResult::DeletedDataset { dataset: Box::new(deleted) }),
        })
    }
}

pub(super) fn string_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(Error::validation(name, format!("{name} must be a string"))),
    }
}

fn root_arg(args: &Value) -> Result<&str> {
    let root = string_arg(args, "root")?;
    if root.trim().is_empty() {
        return Err(Error::validation("root", "root (the approved folder's name) is required"));
    }
    Ok(root)
}

struct ListDirectory;

static LISTDIRECTORY: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::ListDirectory),
    activity: Cow::Borrowed("Looking in the folder…"),
    intents: &[Intent::FileBrowse, Intent::FileImport],
    title: Cow::Borrowed("List a folder"),
    description: Cow::Borrowed(
        "List one folder inside an approved folder (a root, e.g. `downloads`; `staging` always exists): \
         each entry's name, kind, size, modified time and whether it can be imported. The user sees the listing; \
         you get counts by kind and format.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::FileRead),
};

#[async_trait]
impl Tool for ListDirectory {
    fn meta(&self) -> &ToolMeta {
        &LISTDIRECTORY
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "root": {"type": "string", "description": "the approved folder's name"},
                "path": {"type": "string", "description": "a folder inside it, `/`-separated; empty for the root"},
                "pattern": {"type": "string", "description": "a file-name glob such as *.csv; empty for all"}
            },
            "required": ["root"]
        })
    }
    async fn prepare(&self, _ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let root = root_arg(args)?;
        let path = string_arg(args, "path")?;
        string_arg(args, "pattern")?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            resource: ResourceRef {
                kind: "folder".to_owned(),
                id: format!("{root}/{path}"),
                display_name: root.to_owned(),
            },
            description: "List a folder".to_owned(),
            pinned: None,
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let listing = ctx
            .services
            .files
            .list(&ctx.caller, root_arg(args)?, string_arg(args, "path")?, string_arg(args, "pattern")?)
            .await?;
        Ok(ToolOutput { llm_summary: summary::listing(&listing), rich: Some(RichResult::DirectoryListing { listing }) })
    }
}

struct ImportFiles;

static IMPORTFILES: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::ImportFiles),
    activity: Cow::Borrowed("Importing files…"),
    intents: &[Intent::FileImport],
    title: Cow::Borrowed("Import files"),
    description: Cow::Borrowed(
        "Import files from an approved folder as datasets: either `paths` (up to 20, relative to the root) or \
         `path` + `pattern` for every importable file a listing with them shows. Files are copied, never moved. A \
         person must approve the list first.",
    ),
    risk: ToolRisk { read_only: false, destructive: false, confirmation: Some(Tier::Standard) },
    gate: Gate::Capability(Capability::FileImport),
};

/// The files an import names: its `paths`, or what its folder and pattern list.
async fn import_paths(ctx: &ToolContext, args: &Value) -> Result<Vec<String>> {
    let root = root_arg(args)?;
    match args.get("paths") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|p| p.as_str().map(str::to_owned).ok_or_else(|| Error::validation("paths", "paths must be strings")))
            .collect(),
        Some(_) => Err(Error::validation("paths", "paths must be a list of file paths")),
        None => {
            ctx.services
                .files
                .importable(&ctx.caller, root, string_arg(args, "path")?, string_arg(args, "pattern")?)
                .await
        }
    }
}

#[async_trait]
impl Tool for ImportFiles {
    fn meta(&self) -> &ToolMeta {
        &IMPORTFILES
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "root": {"type": "string", "description": "the approved folder's name"},
                "paths": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
                "path": {"type": "string", "description": "with pattern: the folder whose matching files to import"},
                "pattern": {"type": "string", "description": "with path: a file-name glob such as *.csv"}
            },
            "required": ["root"]
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let root = root_arg(args)?;
        let paths = import_paths(ctx, args).await?;
        ctx.services.files.check_import(&ctx.caller, root, &paths)?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!(
                "Import {} file{} from “{root}” as datasets: {}. They are copied; the originals stay where they are.",
                paths.len(),
                if paths.len() == 1 { "" } else { "s" },
                paths.join(", ")
            ),
            resource: ResourceRef {
                kind: "files".to_owned(),
                id: format!("{root}:{}", paths.join(",")),
                display_name: root.to_owned(),
            },
            // A folder and pattern become the files they list now: a file that appears after the
            // approval is not imported with it.
            pinned: Some(json!({"root": root, "paths": paths})),
        })
    }
    /// A subset of the files, from the same folder.
    fn narrow(&self, approved: &Value, edited: &Value) -> Result<Value> {
        let bad = |m: &str| Error::new(crate::ErrorCode::BadRequest, m.to_owned()).with_field("edited_arguments_json");
        let files = |v: &Value| -> Option<Vec<String>> {
            v.get("paths")?.as_array()?.iter().map(|p| p.as_str().map(str::to_owned)).collect()
        };
        let Some(Value::Object(fields)) = Some(edited) else { return Err(bad("the edited arguments are an object")) };
        if fields.keys().any(|k| k != "root" && k != "paths") {
            return Err(bad("an import's edit may only list fewer `paths`"));
        }
        if edited.get("root").is_some_and(|r| Some(r) != approved.get("root")) {
            return Err(bad("an edit cannot change the folder an import reads from"));
        }
        let (Some(asked), Some(kept)) = (files(approved), files(edited)) else {
            return Err(bad("the edited arguments list `paths` as strings"));
        };
        if kept.is_empty() {
            return Err(bad("keep at least one file, or deny the import"));
        }
        if let Some(extra) = kept.iter().find(|p| !asked.contains(p)) {
            return Err(bad(&format!("{extra} was not in the list you were asked to approve")));
        }
        let mut unique = kept.clone();
        unique.sort();
        unique.dedup();
        if unique.len() != kept.len() {
            return Err(bad("a file is listed twice"));
        }
        Ok(json!({"root": approved.get("root").cloned().unwrap_or_default(), "paths": kept}))
    }
    /// Imports from the same approved folder.
    fn grant_class(&self, resource: &ResourceRef) -> Option<String> {
        Some(format!("files:{}", resource.display_name))
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let paths = import_paths(ctx, args).await?;
        let report = ctx.services.files.import(&ctx.caller, root_arg(args)?, &paths).await?;
        Ok(ToolOutput { llm_summary: summary::import_report(&report), rich: Some(RichResult::ImportReport { report }) })
    }
}
