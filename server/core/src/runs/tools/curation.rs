//! The assistant's STANDARD write tools over datasets (`crate::curation`): rename, describe (the
//! semantic layer), save a query's result as a dataset, keep and drop verified queries, and refresh
//! a dataset from the file it was imported from (`crate::files`). Each waits
//! for a person's approval with a plain-English card, and runs exactly what was approved (the
//! arguments are pinned to the dataset's id and the checked values).

use super::{
    Gate, Prepared, Tool, ToolContext, ToolId, ToolMeta, ToolName, ToolOutput, blast_radius, bound_version, cost_of,
    dataset_ref, dependents_in_words, in_rows, plan_from_json, resolve, string_arg,
};
use crate::curation::{CurationService, DatasetChange, QuerySource};
use crate::runs::model_view::changes;
use crate::runs::router::Intent;
use crate::{Error, Result};
use async_trait::async_trait;
use aware_domain::auth::Capability;
use aware_domain::dataset::{ColumnNote, requested_table_name};
use aware_domain::events::{ResourceRef, RichResult, Tier, ToolRisk};
use serde_json::{Value, json};
use std::borrow::Cow;

const ASKS_FIRST: ToolRisk = ToolRisk { read_only: false, destructive: false, confirmation: Some(Tier::Standard) };
const EDITS: &[Intent] = &[Intent::DatasetEdit];

pub(super) struct RenameDataset;

static RENAME: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::RenameDataset),
    title: Cow::Borrowed("Rename a dataset"),
    activity: Cow::Borrowed("Renaming the dataset…"),
    description: Cow::Borrowed(
        "Rename one of the user's datasets: `to` becomes its table name (lower-case letters, digits and _) and, \
         unless `display_name` says otherwise, its display name. Saved queries that read it follow. The user approves \
         it first.",
    ),
    risk: ASKS_FIRST,
    gate: Gate::Capability(Capability::DatasetWrite),
    intents: EDITS,
};

#[async_trait]
impl Tool for RenameDataset {
    fn meta(&self) -> &ToolMeta {
        &RENAME
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "dataset": {"type": "string", "description": "the dataset id or table name"},
                "to": {"type": "string", "description": "the new table name"},
                "display_name": {"type": "string", "description": "the new display name (default: `to`)"}
            },
            "required": ["dataset", "to"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let d = resolve(ctx, args).await?;
        let change = rename_change(args)?;
        CurationService::check(&d, &change)?;
        let (to, display) = (change.table_name.unwrap_or_default(), change.name.unwrap_or_default());
        ctx.services.curation.name_is_free(&ctx.caller, &to, Some(&d.id)).await.map_err(|e| e.with_field("to"))?;
        let blast = blast_radius(ctx, &d).await?;
        Ok(Prepared {
            ask: None,
            description: format!(
                "Rename the dataset “{}” (table `{}`) to `{to}`{}. Saved queries that read it follow; SQL you \
                 wrote elsewhere with the old name will need the new one.{}",
                d.name,
                d.table_name,
                if display == to { String::new() } else { format!(", shown as “{display}”") },
                dependents_in_words(&blast)
            ),
            pinned: Some(json!({"dataset": d.id.as_str(), "to": to, "display_name": display})),
            resource: dataset_ref(&d),
            blast_radius: Some(blast),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let d = resolve(ctx, args).await?;
        crate::datasets::still_as_approved(&d, bound_version(args))?;
        let dataset = ctx.services.curation.update(&ctx.caller, &d.id, &rename_change(args)?).await?;
        Ok(ToolOutput {
            llm_summary: changes::renamed(&d, &dataset),
            rich: Some(RichResult::DatasetChanged { change: "renamed".to_owned(), dataset: Box::new(dataset) }),
        })
    }
}

/// A rename's change: `to` as the table name, and as the display name unless one is given.
fn rename_change(args: &Value) -> Result<DatasetChange> {
    let to = requested_table_name(string_arg(args, "to")?)?;
    let display = Some(string_arg(args, "display_name")?.trim()).filter(|n| !n.is_empty()).unwrap_or(&to).to_owned();
    Ok(DatasetChange { name: Some(display), table_name: Some(to), ..DatasetChange::default() })
}

pub(super) struct DescribeDataset;

static DESCRIBE: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::DescribeDataset),
    title: Cow::Borrowed("Describe a dataset"),
    activity: Cow::Borrowed("Saving the description…"),
    description: Cow::Borrowed(
        "Write what a dataset or its columns mean, in the user's words: `description` of the dataset and/or \
         `columns` notes (column, description, unit such as EUR or days). Descriptions are shown to you with the \
         dataset from then on. The user approves it first.",
    ),
    risk: ASKS_FIRST,
    gate: Gate::Capability(Capability::DatasetWrite),
    intents: EDITS,
};

fn describe_change(args: &Value) -> Result<DatasetChange> {
    let description = match args.get("description") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(Error::validation("description", "description must be a string")),
    };
    let column_notes = match args.get("columns") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                let field = |name: &str| item.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
                let column = field("column");
                if column.trim().is_empty() {
                    return Err(Error::validation("columns", "each column note names its `column`"));
                }
                Ok(ColumnNote { column, description: field("description"), unit: field("unit") })
            })
            .collect::<Result<_>>()?,
        Some(_) => return Err(Error::validation("columns", "columns must be a list of notes")),
    };
    Ok(DatasetChange { description, column_notes, ..DatasetChange::default() })
}

#[async_trait]
impl Tool for DescribeDataset {
    fn meta(&self) -> &ToolMeta {
        &DESCRIBE
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "dataset": {"type": "string", "description": "the dataset id or table name"},
                "description": {"type": "string", "description": "what the dataset is"},
                "columns": {"type": "array", "items": {"type": "object", "properties": {
                    "column": {"type": "string"}, "description": {"type": "string"}, "unit": {"type": "string"}},
                    "required": ["column"]}}
            },
            "required": ["dataset"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let d = resolve(ctx, args).await?;
        let change = describe_change(args)?;
        let update = CurationService::check(&d, &change)?;
        let mut said = Vec::new();
        if let Some(text) = &update.description {
            said.push(format!("the dataset as “{text}”"));
        }
        for note in &change.column_notes {
            let kept = update.column_notes.iter().flatten().find(|n| n.column.eq_ignore_ascii_case(note.column.trim()));
            said.push(match kept {
                Some(n) if n.unit.is_empty() => format!("{} as “{}”", n.column, n.description),
                Some(n) => format!("{} as “{}” (unit {})", n.column, n.description, n.unit),
                None => format!("{} without a description", note.column.trim()),
            });
        }
        let columns: Vec<Value> = update
            .column_notes
            .iter()
            .flatten()
            .filter(|n| change.column_notes.iter().any(|c| c.column.trim().eq_ignore_ascii_case(&n.column)))
            .map(|n| json!({"column": n.column, "description": n.description, "unit": n.unit}))
            .collect();
        let mut pinned = json!({"dataset": d.id.as_str(), "columns": columns});
        if let Some(text) = &update.description {
            pinned["description"] = json!(text);
        }
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!("In “{}” (table `{}`), describe {}.", d.name, d.table_name, said.join("; ")),
            pinned: Some(pinned),
            resource: dataset_ref(&d),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let d = resolve(ctx, args).await?;
        let dataset = ctx.services.curation.update(&ctx.caller, &d.id, &describe_change(args)?).await?;
        Ok(ToolOutput {
            llm_summary: changes::described(&dataset),
            rich: Some(RichResult::DatasetChanged { change: "described".to_owned(), dataset: Box::new(dataset) }),
        })
    }
}

/// The query a call names: `sql`, `plan` (an `execute_query_plan` argument object) or
/// `verified_query` (a verified query's id or name: its SQL).
async fn query_source(ctx: &ToolContext, args: &Value) -> Result<QuerySource> {
    let verified = string_arg(args, "verified_query")?.trim();
    let plan = args.get("plan").filter(|p| !p.is_null());
    match (string_arg(args, "sql")?.trim(), plan, verified) {
        ("", None, "") => Err(Error::validation("sql", "give the query: `sql`, `plan` or `verified_query`")),
        ("", Some(plan), "") => Ok(QuerySource::Plan(plan_from_json(plan)?)),
        (sql, None, "") => Ok(QuerySource::Sql(sql.to_owned())),
        ("", None, verified) => {
            Ok(QuerySource::Sql(ctx.services.curation.saved_query(&ctx.caller, verified).await?.sql))
        }
        (_, _, _) => Err(Error::validation("sql", "give one of `sql`, `plan` or `verified_query`, not several")),
    }
}

fn query_schema(extra: Value) -> Value {
    let mut properties = json!({
        "sql": {"type": "string", "description": "one SELECT over the user's datasets"},
        "plan": {"type": "object", "description": "instead of sql: an execute_query_plan argument object"},
        "verified_query": {"type": "string", "description": "instead of sql: a verified query's id (its SQL)"}
    });
    if let (Some(p), Value::Object(more)) = (properties.as_object_mut(), extra) {
        p.extend(more);
    }
    json!({"type": "object", "properties": properties, "additionalProperties": false})
}

/// A call's arguments with a verified query replaced by its SQL: what runs is what the card
/// showed, even if the verified query changes meanwhile.
fn pinned_query(args: &Value, source: &QuerySource) -> Value {
    let mut pinned = args.clone();
    if let (Some(fields), QuerySource::Sql(sql)) = (pinned.as_object_mut(), source)
        && fields.remove("verified_query").is_some()
    {
        fields.insert("sql".to_owned(), json!(sql));
    }
    pinned
}

/// How a card shows a query.
fn shown(source: &QuerySource) -> String {
    match source {
        QuerySource::Sql(sql) => format!("`{}`", sql.trim()),
        QuerySource::Plan(plan) => format!("the query over `{}` you saw", plan.dataset),
    }
}

pub(super) struct SaveQueryAsDataset;

static MATERIALIZE: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::SaveQueryAsDataset),
    title: Cow::Borrowed("Save a result as a dataset"),
    activity: Cow::Borrowed("Saving the result as a dataset…"),
    description: Cow::Borrowed(
        "Compute a query (`sql` or `plan`) over the user's datasets in the sandbox and save its whole result as a new \
         dataset named `table_name`, keeping its lineage (the datasets and versions it read, and the SQL). The user \
         approves it first.",
    ),
    risk: ASKS_FIRST,
    gate: Gate::Capability(Capability::DatasetWrite),
    intents: EDITS,
};

#[async_trait]
impl Tool for SaveQueryAsDataset {
    fn meta(&self) -> &ToolMeta {
        &MATERIALIZE
    }
    fn input_schema(&self) -> Value {
        let mut schema =
            query_schema(json!({"table_name": {"type": "string", "description": "the new dataset's table name"}}));
        schema["required"] = json!(["table_name"]);
        schema
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let name = requested_table_name(string_arg(args, "table_name")?)?;
        let source = query_source(ctx, args).await?;
        ctx.services.curation.name_is_free(&ctx.caller, &name, None).await?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!(
                "Save the result of {} as a new dataset `{name}`. It is computed now, in the sandbox, and keeps \
                 where it came from.{}",
                shown(&source),
                cost_words(ctx, &source).await
            ),
            resource: ResourceRef { kind: "new_dataset".to_owned(), id: name.clone(), display_name: name.clone() },
            pinned: Some(pinned_query(args, &source)),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let name = string_arg(args, "table_name")?;
        let source = query_source(ctx, args).await?;
        let dataset =
            ctx.services.curation.materialize(&ctx.caller, &source, name, ctx.run_id.as_ref(), cost_of(ctx)).await?;
        Ok(ToolOutput {
            llm_summary: changes::saved_as_dataset(&dataset),
            rich: Some(RichResult::DatasetChanged { change: "saved".to_owned(), dataset: Box::new(dataset) }),
        })
    }
}

pub(super) struct SaveQuery;

static SAVEQUERY: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::SaveQuery),
    title: Cow::Borrowed("Save a verified query"),
    activity: Cow::Borrowed("Saving the query…"),
    description: Cow::Borrowed(
        "Keep a query (`sql` or `plan`) as a verified answer to a question: `name` and the `question` it answers. \
         When the user asks that question again, the verified query is used. The user approves it first.",
    ),
    risk: ASKS_FIRST,
    gate: Gate::Capability(Capability::DatasetWrite),
    intents: EDITS,
};

#[async_trait]
impl Tool for SaveQuery {
    fn meta(&self) -> &ToolMeta {
        &SAVEQUERY
    }
    fn input_schema(&self) -> Value {
        let mut schema = query_schema(json!({
            "name": {"type": "string"},
            "question": {"type": "string", "description": "the question it answers, as the user asked it"}
        }));
        schema["required"] = json!(["name"]);
        schema
    }
    /// Never allowed for a while: each verified query is a person's own yes to that SQL.
    fn grant_class(&self, _resource: &ResourceRef) -> Option<String> {
        None
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let name = string_arg(args, "name")?.trim().to_owned();
        if name.is_empty() {
            return Err(Error::validation("name", "name the saved query"));
        }
        let source = query_source(ctx, args).await?;
        let question = string_arg(args, "question")?.trim();
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!(
                "Keep {} as the verified answer to “{}”{}: asked again, it is answered with exactly this query.{}",
                shown(&source),
                name,
                if question.is_empty() || question.eq_ignore_ascii_case(&name) {
                    String::new()
                } else {
                    format!(" (asked as “{question}”)")
                },
                cost_words(ctx, &source).await
            ),
            resource: ResourceRef { kind: "saved_query".to_owned(), id: String::new(), display_name: name },
            pinned: Some(pinned_query(args, &source)),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let name = string_arg(args, "name")?;
        let question = string_arg(args, "question")?;
        let source = query_source(ctx, args).await?;
        let (parent, cost) = (ctx.run_id.as_ref(), cost_of(ctx));
        let query = ctx.services.curation.save_query(&ctx.caller, name, question, &source, parent, cost).await?;
        Ok(ToolOutput {
            llm_summary: changes::query_saved(&query),
            rich: Some(RichResult::SavedQuery { change: "saved".to_owned(), query }),
        })
    }
}

pub(super) struct DeleteSavedQuery;

static DELETESAVED: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::DeleteSavedQuery),
    title: Cow::Borrowed("Delete a verified query"),
    activity: Cow::Borrowed("Deleting the saved query…"),
    description: Cow::Borrowed("Delete one of the user's verified queries, by name or id. The user approves it first."),
    risk: ASKS_FIRST,
    gate: Gate::Capability(Capability::DatasetWrite),
    intents: EDITS,
};

#[async_trait]
impl Tool for DeleteSavedQuery {
    fn meta(&self) -> &ToolMeta {
        &DELETESAVED
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"query": {"type": "string", "description": "the saved query's name or id"}},
            "required": ["query"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let saved = ctx.services.curation.saved_query(&ctx.caller, string_arg(args, "query")?).await?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!("Delete the verified query “{}” (`{}`).", saved.name, saved.sql),
            pinned: Some(json!({"query": saved.id.as_str()})),
            resource: ResourceRef {
                kind: "saved_query".to_owned(),
                id: saved.id.to_string(),
                display_name: saved.name,
            },
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let query = ctx.services.curation.delete_saved_query(&ctx.caller, string_arg(args, "query")?).await?;
        Ok(ToolOutput {
            llm_summary: changes::query_deleted(&query),
            rich: Some(RichResult::SavedQuery { change: "deleted".to_owned(), query }),
        })
    }
}

pub(super) struct RefreshDataset;

static REFRESH: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::RefreshDataset),
    title: Cow::Borrowed("Refresh a dataset"),
    activity: Cow::Borrowed("Reading the file again…"),
    description: Cow::Borrowed(
        "Read a dataset again from the file in an approved folder it was imported from, when that file changed: \
         its rows and columns become the file's current ones (the same file changes nothing). Only for datasets \
         imported from an approved folder. The user approves it first.",
    ),
    risk: ASKS_FIRST,
    gate: Gate::Capability(Capability::FileImport),
    intents: &[Intent::DatasetEdit, Intent::FileImport],
};

#[async_trait]
impl Tool for RefreshDataset {
    fn meta(&self) -> &ToolMeta {
        &REFRESH
    }
    fn input_schema(&self) -> Value {
        super::dataset_arg_schema()
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let d = resolve(ctx, args).await?;
        let origin = ctx.services.files.check_refresh(&ctx.caller, &d)?;
        let blast = blast_radius(ctx, &d).await?;
        Ok(Prepared {
            ask: None,
            description: format!(
                "Read “{}” (table `{}`, {}) again from {}:{}. If the file changed, its rows and columns \
                 replace the current ones; if not, nothing changes.{}",
                d.name,
                d.table_name,
                in_rows(d.row_count),
                origin.root,
                origin.path,
                dependents_in_words(&blast)
            ),
            pinned: Some(json!({"dataset": d.id.as_str()})),
            resource: dataset_ref(&d),
            blast_radius: Some(blast),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let d = resolve(ctx, args).await?;
        let r = ctx.services.files.refresh(&ctx.caller, &d.id, bound_version(args)).await?;
        let llm_summary = changes::refreshed(&r);
        let change = if r.changed { "refreshed" } else { "unchanged" };
        Ok(ToolOutput {
            llm_summary,
            rich: Some(RichResult::DatasetChanged { change: change.to_owned(), dataset: Box::new(r.dataset) }),
        })
    }
}

/// For a card that runs a query: what it reads, when that is more than the server runs without
/// asking (the person's approval is then their yes to that too); "" otherwise.
async fn cost_words(ctx: &ToolContext, source: &QuerySource) -> String {
    let heavy = match source {
        QuerySource::Sql(sql) => ctx.services.query.heavy_sql(&ctx.caller, sql).await,
        QuerySource::Plan(plan) => ctx.services.query.heavy_plan_named(&ctx.caller, plan).await,
    };
    heavy.map_or_else(String::new, |h| format!(" The query reads {}.", h.in_words()))
}
