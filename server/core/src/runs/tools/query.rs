//! The query tools: SQL and typed plans, each asking a person first when the server estimates
//! it reads more rows than it runs without asking.

use super::args::{limit_arg, prepared_for, resolve, string_arg};
use super::{Gate, Prepared, READ_ONLY, Tool, ToolContext, ToolId, ToolMeta, ToolName, ToolOutput};
use crate::runs::model_view::summary;
use crate::runs::router::Intent;
use crate::{Error, Result};
use async_trait::async_trait;
use aware_domain::auth::Capability;
use aware_domain::events::Tier;
use aware_domain::events::{ResourceRef, RichResult};
use aware_domain::query_plan::QueryPlan;
use serde_json::{Value, json};
use std::borrow::Cow;

pub(super) struct RunSqlQuery;

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
        let llm_summary = summary::query_answer(&answer.table, used.as_deref());
        Ok(ToolOutput {
            llm_summary,
            rich: Some(RichResult::Table { table: answer.table, executed_sql: answer.executed_sql }),
        })
    }
}

pub(super) struct ExecuteQueryPlan;

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
fn heavy_resource(heavy: &aware_domain::ports::HeavyQuery, what: &str) -> ResourceRef {
    let bound = 10u64.checked_pow(heavy.estimate.rows.max(1).ilog10() + 1).unwrap_or(u64::MAX);
    ResourceRef { kind: "query".to_owned(), id: format!("up-to-{bound}-rows"), display_name: what.to_owned() }
}

/// A query runs at any cost once a person approved it; otherwise the server's limit applies.
pub(crate) fn cost_of(ctx: &ToolContext) -> crate::query::Cost {
    crate::query::Cost::agreed(ctx.approved)
}

/// A plan from a model's JSON: filter values are plain JSON scalars.
pub(crate) fn plan_from_json(args: &Value) -> Result<QueryPlan> {
    fn scalar(v: &Value, field: &str) -> Result<aware_domain::value::Value> {
        use aware_domain::value::Value as V;
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
