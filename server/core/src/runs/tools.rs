//! The agent's tools ("hands") and their registry. Each tool validates its arguments, says what
//! it will touch (for confirmations), and returns two tracks: a rich result for the client and a
//! short summary for the model (names, counts, ranges — never raw row values).

use super::events::{ResourceRef, RichResult, Tier, ToolRisk};
use super::model::ToolSpec;
use crate::auth::{Caller, Capability};
use crate::dataset::{Dataset, DatasetStatus};
use crate::datasets::DatasetService;
use crate::{Error, Result};
use async_trait::async_trait;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a tool needs to act for the run's user.
#[derive(Clone)]
pub struct ToolContext {
    pub caller: Caller,
    pub datasets: DatasetService,
}

/// A tool call's arguments, checked, with what it will act on.
pub struct Prepared {
    pub resource: ResourceRef,
    /// Plain English, shown in a confirmation prompt.
    pub description: String,
}

/// The two tracks of a tool's result.
pub struct ToolOutput {
    pub llm_summary: String,
    pub rich: Option<RichResult>,
}

#[async_trait]
pub trait Tool: Send + Sync {
    fn name(&self) -> &'static str;
    fn title(&self) -> &'static str;
    fn description(&self) -> &'static str;
    fn input_schema(&self) -> Value;
    fn risk(&self) -> ToolRisk;
    /// The capability a caller needs for this tool to be offered at all.
    fn capability(&self) -> Capability;
    /// Checks the arguments and names the resource, without side effects.
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared>;
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput>;
}

/// The tools by name.
#[derive(Clone)]
pub struct ToolRegistry {
    tools: BTreeMap<&'static str, Arc<dyn Tool>>,
}

impl ToolRegistry {
    /// The tools of this build.
    pub fn standard() -> Self {
        let tools: [Arc<dyn Tool>; 2] = [Arc::new(ListDatasets), Arc::new(DeleteDataset)];
        Self { tools: tools.into_iter().map(|t| (t.name(), t)).collect() }
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.values()
    }

    /// The policy gate: the tools this caller may use (a tool not allowed is not shown, and a
    /// call to it anyway is refused).
    pub fn allowed(&self, caller: &Caller) -> Vec<&Arc<dyn Tool>> {
        self.tools.values().filter(|t| caller.principal.role.allows(t.capability())).collect()
    }

    pub fn specs(&self, caller: &Caller) -> Vec<ToolSpec> {
        self.allowed(caller)
            .into_iter()
            .map(|t| ToolSpec {
                name: t.name().to_owned(),
                description: t.description().to_owned(),
                input_schema: t.input_schema(),
            })
            .collect()
    }
}

fn describe(d: &Dataset) -> String {
    match d.status {
        DatasetStatus::Ready => format!(
            "{} (table `{}`, {}, {} rows × {} columns)",
            d.name,
            d.table_name,
            d.format.as_str(),
            d.row_count,
            d.columns.len()
        ),
        DatasetStatus::Processing => format!("{} (table `{}`, still processing)", d.name, d.table_name),
        DatasetStatus::Error => {
            format!("{} (table `{}`, failed: {})", d.name, d.table_name, d.error.as_deref().unwrap_or("unknown error"))
        }
    }
}

struct ListDatasets;

#[async_trait]
impl Tool for ListDatasets {
    fn name(&self) -> &'static str {
        "list_datasets"
    }
    fn title(&self) -> &'static str {
        "List datasets"
    }
    fn description(&self) -> &'static str {
        "List the user's datasets with their table names, formats, row and column counts and status."
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }
    fn risk(&self) -> ToolRisk {
        ToolRisk { read_only: true, destructive: false, confirmation: None }
    }
    fn capability(&self) -> Capability {
        Capability::DatasetRead
    }
    async fn prepare(&self, _ctx: &ToolContext, _args: &Value) -> Result<Prepared> {
        Ok(Prepared { resource: ResourceRef::default(), description: "List your datasets".to_owned() })
    }
    async fn execute(&self, ctx: &ToolContext, _args: &Value) -> Result<ToolOutput> {
        let datasets = ctx.datasets.list(&ctx.caller, None).await?;
        let llm_summary = if datasets.is_empty() {
            "The user has no datasets.".to_owned()
        } else {
            let lines: Vec<String> = datasets.iter().map(|d| format!("- {}", describe(d))).collect();
            format!("The user has {} dataset(s):\n{}", datasets.len(), lines.join("\n"))
        };
        Ok(ToolOutput { llm_summary, rich: Some(RichResult::DatasetList { datasets }) })
    }
}

struct DeleteDataset;

impl DeleteDataset {
    async fn resolve(&self, ctx: &ToolContext, args: &Value) -> Result<Dataset> {
        let wanted = args
            .get("dataset")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| Error::validation("dataset", "name the dataset to delete (its id or table name)"))?;
        let datasets = ctx.datasets.list(&ctx.caller, None).await?;
        datasets
            .into_iter()
            .find(|d| {
                d.id.as_str() == wanted
                    || d.table_name.eq_ignore_ascii_case(wanted)
                    || d.name.eq_ignore_ascii_case(wanted)
            })
            .ok_or_else(|| Error::not_found("dataset", wanted).with_field("dataset"))
    }
}

#[async_trait]
impl Tool for DeleteDataset {
    fn name(&self) -> &'static str {
        "delete_dataset"
    }
    fn title(&self) -> &'static str {
        "Delete a dataset"
    }
    fn description(&self) -> &'static str {
        "Delete one of the user's datasets (data and catalog entry). A person must approve it first."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"dataset": {"type": "string", "description": "the dataset id or table name"}},
            "required": ["dataset"],
            "additionalProperties": false
        })
    }
    fn risk(&self) -> ToolRisk {
        ToolRisk { read_only: false, destructive: true, confirmation: Some(Tier::Elevated) }
    }
    fn capability(&self) -> Capability {
        Capability::DatasetDelete
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let d = self.resolve(ctx, args).await?;
        Ok(Prepared {
            description: format!(
                "Delete the dataset “{}” (table `{}`, {} rows). Its data is removed for good.",
                d.name, d.table_name, d.row_count
            ),
            resource: ResourceRef { kind: "dataset".to_owned(), id: d.id.to_string(), display_name: d.name },
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let d = self.resolve(ctx, args).await?;
        let deleted = ctx.datasets.delete(&ctx.caller, d.id.as_str()).await?;
        Ok(ToolOutput {
            llm_summary: format!("Deleted the dataset {} (table `{}`).", deleted.name, deleted.table_name),
            rich: Some(RichResult::DeletedDataset { dataset: deleted }),
        })
    }
}
