//! The answer after a run's tools: each result, newest last, in words a person reads, and the
//! questions to offer next.

use super::{OfflinePlanner, history, last_question, run_rules};
use crate::answer;
use crate::reading;
use aware_core::runs::model_view::{outcomes, summary};
use aware_core::runs::router::words;
use aware_core::runs::tools::ToolName;
use aware_domain::dataset::{Dataset, DatasetStatistics};
use aware_domain::events::RichResult;
use aware_domain::ids::ToolCallId;
use aware_domain::ports::model::{Message, ModelRequest};
use aware_domain::value::{Table, ValueKind};
use serde_json::Value;

impl OfflinePlanner {
    /// The answer after the run's tools: each result, newest last, in words.
    /// The answer to what this run's tools returned, and the questions to offer next (after a
    /// plan's table: each read as a follow-up into a plan of its own).
    pub(super) async fn answer(&self, request: &ModelRequest<'_>, run_tail: &[&Message]) -> (String, Vec<String>) {
        let question = last_question(request);
        let mut follow_ups = Vec::new();
        let calls = tool_calls(request);
        let mut parts = Vec::new();
        for m in run_tail.iter().rev() {
            let Message::Tool { tool_call_id, name, content, is_error } = m else { continue };
            let shown = request.shown.iter().find(|(id, _)| id == tool_call_id).map(|(_, r)| r);
            let args = calls.iter().find(|(id, _, _)| id == tool_call_id).map(|(_, _, a)| a);
            let part = match (ToolName::parse(name), is_error, shown) {
                // The question back itself: the result after it is the answer.
                (Some(ToolName::AskUser), false, _) => continue,
                (Some(ToolName::AskUser), true, _) => {
                    "Without knowing which one you meant I did not compute anything. Ask again and name it (the column's \
                     name, as the options showed it)."
                        .to_owned()
                }
                (Some(ToolName::ExecuteQueryPlan | ToolName::RunSqlQuery), true, _) if content == outcomes::DENIED => {
                    "Understood — I did not run that query, so I have no answer to it; ask again and approve it when you \
                     want it run."
                        .to_owned()
                }
                (Some(ToolName::ExecuteQueryPlan | ToolName::RunSqlQuery), true, _) if content == outcomes::EXPIRED => {
                    "Nobody approved that query in time, so I did not run it and have no answer to it; ask again to \
                     see the question once more."
                        .to_owned()
                }
                (_, true, _) if content == outcomes::DENIED => {
                    "Understood — I did not do it; nothing was changed.".to_owned()
                }
                (_, true, _) if content == outcomes::EXPIRED => {
                    "The confirmation expired before anyone approved it, so I did not do it; nothing was changed."
                        .to_owned()
                }
                (_, true, _) => format!("That did not work: {content}"),
                (Some(ToolName::ExecuteQueryPlan), false, Some(RichResult::Table { table, .. })) => {
                    self.plan_result(request, run_tail, &question, args, table, &mut follow_ups).await
                }
                // A verified query's result, in a sentence for the person (its summary is the model's).
                (Some(ToolName::RunSqlQuery), false, Some(RichResult::Table { table, .. }))
                    if args.and_then(|a| a.get("verified_query")).is_some() =>
                {
                    verified_result(request, args, table)
                }
                (Some(ToolName::ListDatasets), false, Some(RichResult::DatasetList { datasets })) => {
                    summary::datasets(datasets, "You have")
                }
                (Some(ToolName::PreviewRows), false, Some(RichResult::Table { table, .. })) => {
                    preview_result(request, args, table)
                }
                (Some(ToolName::GetDatasetStatistics), false, Some(RichResult::Statistics { statistics })) => {
                    statistics_answer(statistics, wants_oddities(&question))
                }
                (Some(ToolName::GetDatasetDetail), false, Some(RichResult::DatasetDetail { dataset, .. })) => {
                    detail_result(dataset)
                }
                (Some(ToolName::SearchKnowledge), false, Some(RichResult::Knowledge { results })) => {
                    crate::knowledge::answer(results)
                }
                (Some(ToolName::SearchDatasets), false, Some(RichResult::SearchHits { results })) => {
                    summary::search(results, "They are shown with the matching words highlighted.")
                }
                (Some(ToolName::ForgetMemory), false, _) => {
                    let fact = args.and_then(|a| a.get("fact")).and_then(Value::as_str).unwrap_or_default();
                    format!("Done: I no longer remember that {fact}.")
                }
                _ => content.clone(),
            };
            parts.push(part);
        }
        (parts.join("\n\n"), follow_ups)
    }

    /// The answer from a plan's table, written from the reading that made the plan, with the
    /// follow-ups to offer; else the table's size.
    async fn plan_result(
        &self,
        request: &ModelRequest<'_>,
        run_tail: &[&Message],
        question: &str,
        args: Option<&Value>,
        table: &Table,
        follow_ups: &mut Vec<String>,
    ) -> String {
        match self.data_question(question, request.context, &run_rules(run_tail), &history(request)).await {
            // The same reading that made the plan (the catalog may have changed since).
            Ok(Some((lex, r))) if args == Some(&reading::plan_json(&lex, &r)) => {
                *follow_ups = self.follow_ups(&lex, &r, table.rows.len()).await;
                answer::write(&lex, &r, table)
            }
            _ => {
                format!("Here is the result: {} row{}.", table.rows.len(), if table.rows.len() == 1 { "" } else { "s" })
            }
        }
    }
}

/// The tool calls the run made: id, tool and arguments.
fn tool_calls(request: &ModelRequest<'_>) -> Vec<(ToolCallId, String, Value)> {
    request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant { tool_calls, .. } => Some(tool_calls),
            Message::User { .. } | Message::Tool { .. } => None,
        })
        .flatten()
        .map(|c| (c.id.clone(), c.name.clone(), c.arguments.clone()))
        .collect()
}

/// A verified query's result, in a sentence for the person.
fn verified_result(request: &ModelRequest<'_>, args: Option<&Value>, table: &Table) -> String {
    let id = args.and_then(|a| a.get("verified_query")).and_then(Value::as_str).unwrap_or_default();
    let name = request
        .context
        .verified_queries
        .iter()
        .find(|q| q.id.as_str() == id)
        .map_or_else(|| "your verified query".to_owned(), |q| format!("your verified query “{}”", q.name));
    match table.rows.as_slice() {
        [row] if row.len() <= 4 => {
            let said: Vec<String> = table
                .columns
                .iter()
                .zip(row)
                .map(|(c, v)| format!("{} is {}", c.name, crate::format::cell(v, None)))
                .collect();
            format!("From {name}: {}.", said.join(", "))
        }
        rows => format!(
            "From {name}: {} row{}, in the table.",
            crate::format::count(rows.len() as f64),
            if rows.len() == 1 { "" } else { "s" }
        ),
    }
}

/// What a preview of a dataset's first rows shows.
fn preview_result(request: &ModelRequest<'_>, args: Option<&Value>, table: &Table) -> String {
    let dataset = args.and_then(|a| a.get("dataset")).and_then(Value::as_str).unwrap_or_default();
    let total = request
        .context
        .datasets
        .iter()
        .find(|d| d.table_name == dataset)
        .map(|d| format!(" of {}", crate::format::count(d.row_count as f64)))
        .unwrap_or_default();
    format!("Here are the first {} rows{total} of {dataset}, with {} columns.", table.rows.len(), table.columns.len())
}

/// A dataset's size and columns.
fn detail_result(dataset: &Dataset) -> String {
    let columns: Vec<String> =
        dataset.columns.iter().map(|c| format!("{} ({})", c.name, c.sql_type.to_lowercase())).collect();
    format!(
        "{} has {} rows and {} columns: {}.",
        dataset.table_name,
        crate::format::count(dataset.row_count as f64),
        dataset.columns.len(),
        columns.join(", ")
    )
}

/// "is there anything odd in …", "data quality": a profile read for what looks wrong.
pub(super) fn wants_oddities(question: &str) -> bool {
    words(question).iter().any(|w| {
        matches!(
            w.as_str(),
            "odd"
                | "unusual"
                | "strange"
                | "weird"
                | "wrong"
                | "quality"
                | "anomaly"
                | "anomalies"
                | "outlier"
                | "outliers"
                | "suspicious"
                | "missing"
                | "issues"
                | "problems"
        )
    })
}

/// A profile in words: size, then what is missing or constant, then the numeric ranges.
pub(super) fn statistics_answer(s: &DatasetStatistics, oddities_first: bool) -> String {
    use crate::format::{count, grouped};
    let rows = s.row_count as f64;
    let mut findings = Vec::new();
    for c in &s.columns {
        if c.null_count > 0 {
            findings.push(format!(
                "{} is missing in {} of {} rows ({:.1}%)",
                c.name,
                count(c.null_count as f64),
                count(rows),
                c.null_count as f64 * 100.0 / rows.max(1.0)
            ));
        }
        if s.row_count > 1 && c.distinct_count == 1 {
            findings.push(format!("{} has the same value in every row", c.name));
        }
        if c.kind.is_numeric()
            && let (Some(mean), Some(sd)) = (c.mean, c.stddev)
            && let (Some(min), Some(max)) = (c.min.number(), c.max.number())
            && sd > 0.0
        {
            let far = ((max - mean) / sd).max((mean - min) / sd);
            if far > 4.0 {
                findings.push(format!(
                    "{} ranges from {} to {}, more than 4 standard deviations from its mean of {}",
                    c.name,
                    grouped(min, 2),
                    grouped(max, 2),
                    grouped(mean, 2)
                ));
            }
        }
        if c.kind == ValueKind::String && c.min_length == Some(0) {
            findings.push(format!("{} has empty texts", c.name));
        }
    }
    let head = format!("{} has {} rows and {} columns.", s.table_name, count(rows), s.columns.len());
    let numeric: Vec<String> = s
        .columns
        .iter()
        .filter(|c| c.kind.is_numeric())
        .filter_map(|c| {
            let (min, max) = (c.min.number()?, c.max.number()?);
            Some(format!(
                "{} {}–{}{}",
                c.name,
                grouped(min, 2),
                grouped(max, 2),
                c.mean.map(|m| format!(" (mean {})", grouped(m, 2))).unwrap_or_default()
            ))
        })
        .take(8)
        .collect();
    let ranges = if numeric.is_empty() { String::new() } else { format!(" Ranges: {}.", numeric.join("; ")) };
    match (findings.is_empty(), oddities_first) {
        (true, true) => format!(
            "{head} Nothing stands out: no missing values, no constant columns and no extreme outliers.{ranges}"
        ),
        (false, true) => format!("{head} What stands out: {}.{ranges}", findings.join("; ")),
        (true, false) => format!("{head} No values are missing.{ranges} The full profile is in the table."),
        (false, false) => {
            format!("{head} {}.{ranges} The full profile is in the table.", capital(&findings.join("; ")))
        }
    }
}

pub(super) fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str())
}
