//! The tools over the datasets themselves: list, describe, preview, profile, search, delete.

use super::args::{
    blast_radius, bound_version, dataset_arg_schema, dataset_ref, dependents_in_words, in_bytes, in_rows, limit_arg,
    prepared_for, resolve, string_arg,
};
use super::{DATASET_CONTEXT, Gate, Prepared, READ_ONLY, Tool, ToolContext, ToolId, ToolMeta, ToolName, ToolOutput};
use crate::runs::model_view::{changes, summary};
use crate::runs::router::Intent;
use crate::{Error, Result};
use async_trait::async_trait;
use aware_domain::auth::Capability;
use aware_domain::dataset::DatasetStatus;
use aware_domain::events::{ResourceRef, RichResult};
use aware_domain::events::{Tier, ToolRisk};
use aware_domain::search::SearchMode;
use serde_json::{Value, json};
use std::borrow::Cow;

pub(super) struct ListDatasets;

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

pub(super) struct DeleteDataset;

pub(super) struct GetDatasetDetail;

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
        let llm_summary = summary::dataset_detail(&dataset);
        Ok(ToolOutput { llm_summary, rich: Some(RichResult::DatasetDetail { dataset: Box::new(dataset), sample }) })
    }
}

pub(super) struct PreviewRows;

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
        let llm_summary = summary::preview(&d, &table);
        Ok(ToolOutput { llm_summary, rich: Some(RichResult::Table { table, executed_sql: String::new() }) })
    }
}

pub(super) struct GetDatasetStatistics;

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

pub(super) struct SearchDatasets;

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
            llm_summary: changes::dataset_deleted(&deleted),
            rich: Some(RichResult::DeletedDataset { dataset: Box::new(deleted) }),
        })
    }
}
