//! The tools that report on aware itself: the system's status and a run's.

use super::{Gate, Prepared, READ_ONLY, Tool, ToolContext, ToolId, ToolMeta, ToolName, ToolOutput};
use crate::runs::model_view::summary;
use crate::runs::router::Intent;
use crate::search::SearchService;
use crate::{Error, Result};
use async_trait::async_trait;
use aware_domain::auth::Capability;
use aware_domain::events::SystemStatus;
use aware_domain::events::{ResourceRef, RichResult};
use aware_domain::ids::RunId;
use serde_json::{Value, json};
use std::borrow::Cow;

pub(super) struct GetRunStatus;

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
        let (run, capsule) = ctx.services.history.get(&ctx.caller, &RunId::parse_field(id, "run_id")?).await?;
        let llm_summary = summary::run(&run, &capsule);
        Ok(ToolOutput { llm_summary, rich: Some(RichResult::Run { run: Box::new(run), capsule: Box::new(capsule) }) })
    }
}

pub(super) struct GetSystemStatus;

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
        let llm_summary = summary::system_status(&status);
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
