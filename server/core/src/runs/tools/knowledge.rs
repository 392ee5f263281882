//! `search_knowledge`: the passages of the user's documents that bear on a question — the only
//! way document text reaches a model, capped and marked as quoted material
//! ([`summary::knowledge`](crate::runs::model_view::summary::knowledge)). The driver records what was retrieved
//! (`RetrievalCompleted`) and checks the answer's citations against it after the run.

use super::{Gate, Prepared, READ_ONLY, Tool, ToolContext, ToolId, ToolMeta, ToolName, ToolOutput};
use crate::runs::router::Intent;
use crate::{Error, Result};
use async_trait::async_trait;
use aware_domain::auth::Capability;
use aware_domain::events::{ResourceRef, RichResult};
use aware_domain::knowledge::MAX_CHUNKS;
use serde_json::{Value, json};
use std::borrow::Cow;

pub(super) struct SearchKnowledge;

static SEARCHKNOWLEDGE: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::SearchKnowledge),
    activity: Cow::Borrowed("Reading your documents…"),
    intents: &[Intent::Knowledge, Intent::Search],
    title: Cow::Borrowed("Search documents"),
    description: Cow::Borrowed(
        "Retrieve the passages of the user's knowledge documents (uploaded Markdown and text files: handbooks, \
         policies, guides) that bear on a question, by words and by meaning. You get the passages' text with their \
         chunk ids: answer only from them and cite each passage you use as [chunk_id]. No passage means the \
         documents do not cover it: say you lack evidence.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::DatasetRead),
};

#[async_trait]
impl Tool for SearchKnowledge {
    fn meta(&self) -> &ToolMeta {
        &SEARCHKNOWLEDGE
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what to look up, in words (e.g. \"refunds\")"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_CHUNKS, "description": "passages to retrieve (default 5)"}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, _ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let query = args.get("query").and_then(Value::as_str).unwrap_or_default().trim();
        if query.is_empty() {
            return Err(Error::validation("query", "query (what to look up in the documents) is required"));
        }
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            resource: ResourceRef::default(),
            description: format!("Look up “{query}” in your documents"),
            pinned: None,
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let query = args.get("query").and_then(Value::as_str).unwrap_or_default();
        let limit = args.get("limit").and_then(Value::as_u64).map_or(0, |l| l.clamp(1, u64::from(MAX_CHUNKS)) as u32);
        let results = ctx.services.datasets.search().knowledge(&ctx.caller, query, limit).await?;
        Ok(ToolOutput {
            llm_summary: crate::runs::model_view::summary::knowledge(&results),
            rich: Some(RichResult::Knowledge { results }),
        })
    }
}
