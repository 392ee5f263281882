//! Typed clarification: when a request is ambiguous against the data — the words could mean two
//! columns, a value sits in several columns, a time phrase has several date columns to apply to —
//! the run asks back with options taken from the data (each column's type, empty share and range;
//! each column's count of the value) and pauses until a person picks one. The question is stored
//! as a confirmation of the `ask_user` tool, so it survives a restart and expires like one; the
//! choice resumes the same run. A choice can be kept as a rule in the dataset's description
//! (`“price” means price_eur.`), which the planner and models read from then on.

use super::{Gate, Prepared, Tool, ToolContext, ToolId, ToolMeta, ToolName, ToolOutput, dataset_ref, resolve};
use crate::curation::DatasetChange;
use crate::runs::router::Intent;
use crate::{Error, Result};
use async_trait::async_trait;
use aware_domain::auth::Capability;
use aware_domain::dataset::{ColumnStatistics, Dataset};
use aware_domain::events::{Clarification, ClarificationKind, ClarificationOption};
use aware_domain::events::{ResourceRef, Tier, ToolRisk};
use aware_domain::query_plan::{Aggregate, Filter, FilterOp, QueryPlan, SelectItem};
use aware_domain::value::{Value as Cell, ValueKind};
use serde_json::{Value, json};
use std::borrow::Cow;

/// Whether a tool call is a question back (stored as a confirmation of `ask_user`) rather than
/// an action to approve.
pub fn is_clarification(tool_name: &str) -> bool {
    ToolName::parse(tool_name) == Some(ToolName::AskUser)
}

/// A person's answer as the arguments carry it: `{"choice": …, "remember": …}`.
pub(crate) fn answer(choice: &str, remember: bool) -> Value {
    json!({"choice": choice, "remember": remember})
}

/// The choice and the keep-as-rule flag of an answer's (or an answered call's) arguments.
pub(crate) fn chosen(args: &Value) -> (Option<&str>, bool) {
    (args.get("choice").and_then(Value::as_str), args.get("remember").and_then(Value::as_bool).unwrap_or(false))
}

/// The rule a choice keeps, as a sentence of the dataset's description.
pub fn rule(phrase: &str, column: &str) -> String {
    format!("“{}” means {column}.", phrase.trim().to_lowercase())
}

/// The rules a text holds (a dataset's description, a clarification's result): phrase → column.
pub fn rules_in(text: &str) -> Vec<(String, String)> {
    let mut rules = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('“') {
        let after = &rest[open + '“'.len_utf8()..];
        let Some(close) = after.find('”') else { break };
        let phrase = after[..close].trim().to_lowercase();
        let tail = &after[close + '”'.len_utf8()..];
        rest = tail;
        let Some(column) = tail.strip_prefix(" means ") else { continue };
        let column: String =
            column.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ' ').collect::<String>();
        let column = column.trim().to_owned();
        if !phrase.is_empty() && !column.is_empty() {
            rules.push((phrase, column));
        }
    }
    rules
}

/// The result a model reads after a person chose.
fn clarified(c: &Clarification, choice: &str) -> String {
    format!("Clarified: {}", rule(&c.phrase, choice))
}

/// Most options a question offers.
const MAX_OPTIONS: usize = 10;
const MAX_QUESTION_CHARS: usize = 500;
const MAX_PHRASE_CHARS: usize = 100;

pub(super) struct AskUser;

static ASK_USER: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::AskUser),
    title: Cow::Borrowed("Ask which one"),
    activity: Cow::Borrowed("Asking which one you mean…"),
    description: Cow::Borrowed(
        "When a request is ambiguous against a dataset, ask the user instead of guessing: `kind` column (the words \
         could mean several columns), value (a `value` found in several columns) or time_range (several date \
         columns a time phrase could apply to); `phrase` the ambiguous words, `options` the candidate column names, \
         `question` the question in words. The user picks one (the server shows each option's statistics); the \
         result says which. Never guess between candidates.",
    ),
    risk: ToolRisk { read_only: true, destructive: false, confirmation: Some(Tier::Standard) },
    gate: Gate::Capability(Capability::DatasetRead),
    intents: &[Intent::DatasetLookup, Intent::Preview, Intent::Query],
};

#[async_trait]
impl Tool for AskUser {
    fn meta(&self) -> &ToolMeta {
        &ASK_USER
    }
    /// Each question is answered by a person.
    fn grant_class(&self, _resource: &ResourceRef) -> Option<String> {
        None
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "dataset": {"type": "string", "description": "Table name or id"},
                "kind": {"type": "string", "enum": ["column", "value", "time_range"]},
                "question": {"type": "string", "maxLength": MAX_QUESTION_CHARS},
                "phrase": {"type": "string", "maxLength": MAX_PHRASE_CHARS},
                "options": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": MAX_OPTIONS},
                "value": {"type": "string", "description": "For kind value: the value asked about"}
            },
            "required": ["dataset", "kind", "question", "phrase", "options"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let dataset = resolve(ctx, args).await?;
        let c = ask(ctx, &dataset, args).await?;
        Ok(Prepared {
            ask: None,
            resource: dataset_ref(&dataset),
            description: c.question.clone(),
            pinned: Some(serde_json::to_value(&c).map_err(Error::internal)?),
            blast_radius: None,
        })
    }
    /// The person's answer: a choice among the options as asked, and whether to keep it.
    fn narrow(&self, approved: &Value, edited: &Value) -> Result<Value> {
        let c: Clarification = serde_json::from_value(approved.clone()).map_err(Error::internal)?;
        let (choice, remember) = chosen(edited);
        let choice = choice.unwrap_or_default();
        let Some(option) = c.options.iter().find(|o| o.value.eq_ignore_ascii_case(choice.trim())) else {
            let names: Vec<&str> = c.options.iter().map(|o| o.value.as_str()).collect();
            return Err(Error::validation(
                "choice",
                format!("“{choice}” is not one of the options: {}", names.join(", ")),
            ));
        };
        let mut answered = approved.clone();
        if let (Some(fields), Value::Object(answer)) = (answered.as_object_mut(), answer(&option.value, remember)) {
            fields.extend(answer);
        }
        Ok(answered)
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let c: Clarification = serde_json::from_value(args.clone())
            .map_err(|_| Error::validation("choice", "the question was not answered"))?;
        let (choice, remember) = chosen(args);
        let choice = choice.ok_or_else(|| Error::validation("choice", "the question was not answered"))?;
        let mut llm_summary = clarified(&c, choice);
        if remember {
            match keep_rule(ctx, &c, choice).await {
                Ok(()) => llm_summary.push_str(" Kept as a rule in the dataset's description."),
                Err(e) => llm_summary.push_str(&format!(" Not kept as a rule: {}.", e.message)),
            }
        }
        Ok(ToolOutput { llm_summary, rich: None })
    }
}

/// The choice as a sentence of the dataset's description (replacing an older rule for the same
/// words).
async fn keep_rule(ctx: &ToolContext, c: &Clarification, choice: &str) -> Result<()> {
    let id = aware_domain::ids::DatasetId::parse(&c.dataset.id)
        .ok_or_else(|| Error::validation("dataset", "the question's dataset id is not valid"))?;
    let dataset = ctx.services.datasets.get(&ctx.caller, &id).await?;
    let phrase = c.phrase.trim().to_lowercase();
    let kept: Vec<&str> = dataset
        .description
        .split_inclusive('.')
        .filter(|sentence| !rules_in(sentence).iter().any(|(p, _)| *p == phrase))
        .collect();
    let mut description = kept.concat().trim().to_owned();
    if !description.is_empty() {
        description.push(' ');
    }
    description.push_str(&rule(&phrase, choice));
    let change = DatasetChange { description: Some(description), ..DatasetChange::default() };
    ctx.services.curation.update(&ctx.caller, &id, &change).await.map(|_| ())
}

/// The question, checked against the dataset, with each option's figures.
async fn ask(ctx: &ToolContext, dataset: &Dataset, args: &Value) -> Result<Clarification> {
    let text = |field: &'static str, max: usize| -> Result<String> {
        let s = args.get(field).and_then(Value::as_str).map(str::trim).unwrap_or_default();
        if s.is_empty() {
            return Err(Error::validation(field, format!("`{field}` is required")));
        }
        if s.chars().count() > max {
            return Err(Error::validation(field, format!("`{field}` is at most {max} characters")));
        }
        Ok(s.to_owned())
    };
    let kind = args
        .get("kind")
        .and_then(Value::as_str)
        .and_then(ClarificationKind::parse)
        .ok_or_else(|| Error::validation("kind", "`kind` is column, value or time_range"))?;
    let question = text("question", MAX_QUESTION_CHARS)?;
    let phrase = text("phrase", MAX_PHRASE_CHARS)?;
    let value = match kind {
        ClarificationKind::Value => Some(text("value", MAX_PHRASE_CHARS)?),
        ClarificationKind::Column | ClarificationKind::TimeRange => None,
    };
    let wanted: Vec<&str> =
        args.get("options").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut columns = Vec::new();
    for w in wanted {
        let column = dataset
            .columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(w.trim()))
            .ok_or_else(|| Error::validation("options", format!("{} has no column “{w}”", dataset.table_name)))?;
        if kind == ClarificationKind::TimeRange && !matches!(column.kind, ValueKind::Date | ValueKind::Timestamp) {
            return Err(Error::validation("options", format!("{} is not a date column", column.name)));
        }
        if !columns.iter().any(|c: &&aware_domain::value::Column| c.name == column.name) {
            columns.push(column);
        }
    }
    if columns.len() < 2 || columns.len() > MAX_OPTIONS {
        return Err(Error::validation("options", format!("give 2 to {MAX_OPTIONS} different columns to choose from")));
    }
    let stats = ctx.services.datasets.statistics(&ctx.caller, &dataset.id).await?;
    let mut options = Vec::with_capacity(columns.len());
    for column in columns {
        let s = stats.columns.iter().find(|s| s.name == column.name);
        let count = match &value {
            Some(v) => count_of(ctx, dataset, &column.name, v).await?,
            None => 0,
        };
        options.push(option(&column.name, &column.sql_type, s, stats.row_count, value.as_deref(), count));
    }
    Ok(Clarification { kind, question, phrase, dataset: dataset_ref(dataset), options })
}

/// Rows whose `column` is `value` (compared as text).
async fn count_of(ctx: &ToolContext, dataset: &Dataset, column: &str, value: &str) -> Result<u64> {
    let plan = QueryPlan {
        dataset: dataset.id.to_string(),
        select: vec![SelectItem {
            aggregate: Some(Aggregate::Count),
            alias: Some("n".into()),
            ..SelectItem::default()
        }],
        filters: vec![Filter {
            column: column.to_owned(),
            op: FilterOp::Eq,
            value: Some(Cell::String(value.to_owned())),
            values: vec![],
            expr: None,
        }],
        group_by: vec![],
        order_by: vec![],
        limit: 1,
    };
    // aware's own count, to word its question: not a query the person asked for.
    let cost = crate::query::Cost::Accepted;
    let answer = ctx.services.query.execute_plan(&ctx.caller, &plan, 1, ctx.run_id.as_ref(), cost).await?;
    Ok(match answer.table.rows.first().and_then(|r| r.first()) {
        Some(Cell::Int(n)) => u64::try_from(*n).unwrap_or(0),
        _ => 0,
    })
}

fn option(
    name: &str,
    sql_type: &str,
    s: Option<&ColumnStatistics>,
    rows: u64,
    value: Option<&str>,
    count: u64,
) -> ClarificationOption {
    let null_share = match (s, rows) {
        (Some(s), r) if r > 0 => s.null_count as f64 / r as f64,
        _ => 0.0,
    };
    let (min, max) = s.map_or((String::new(), String::new()), |s| (text_of(&s.min), text_of(&s.max)));
    let empty = if null_share == 0.0 { "none empty".to_owned() } else { format!("{:.0}% empty", null_share * 100.0) };
    let label = match value {
        Some(v) => format!("{name} ({sql_type}): “{v}” in {count} row{}", if count == 1 { "" } else { "s" }),
        None if !min.is_empty() => format!("{name} ({sql_type}): {min} to {max}, {empty}"),
        None => format!("{name} ({sql_type}), {empty}"),
    };
    ClarificationOption { value: name.to_owned(), label, sql_type: sql_type.to_owned(), null_share, min, max, count }
}

fn text_of(v: &Cell) -> String {
    match v {
        Cell::Null => String::new(),
        Cell::Bool(b) => b.to_string(),
        Cell::Int(i) => i.to_string(),
        Cell::Double(d) => {
            let r = (d * 100.0).round() / 100.0;
            if r.fract() == 0.0 { format!("{r:.0}") } else { r.to_string() }
        }
        Cell::Decimal(s) | Cell::String(s) | Cell::Text(s) => s.clone(),
        Cell::Date(days) => aware_domain::value::day(*days).map(|d| d.to_string()).unwrap_or_default(),
        Cell::Timestamp(us) => {
            chrono::DateTime::from_timestamp_micros(*us).map(|t| t.naive_utc().to_string()).unwrap_or_default()
        }
        Cell::Time(_) | Cell::Bytes(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_read_back_what_a_choice_keeps() {
        let description =
            format!("Apartments in Barcelona. {} {}", rule("Price", "price_eur"), rule("date", "sold_on"));
        assert_eq!(
            rules_in(&description),
            vec![("price".to_owned(), "price_eur".to_owned()), ("date".to_owned(), "sold_on".to_owned())]
        );
        assert!(rules_in("“quoted” words, but no rule").is_empty());
    }
}
