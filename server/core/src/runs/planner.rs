//! Two deterministic `LanguageModel`s that need no network: the offline planner (the default
//! when no provider is configured) and the scripted model (tests and demos, from a JSON file).

use super::model::{
    LanguageModel, Message, ModelRequest, ModelToolCall, ModelTurn, RunContext, estimate_tokens, word_deltas,
};
use super::router::{AGGREGATE_WORDS, Intent, route, run_id_in, words};
use crate::dataset::Dataset;
use crate::run::Usage;
use crate::value::ValueKind;
use crate::{Error, Result};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

const HELP: &str = "I can list your datasets, show or profile one, answer counts, sums, averages, minimums and \
                    maximums with filters and groups (try “average price by neighbourhood”), search their text \
                    (try “search for login problems”), report the system status, and delete a dataset after you \
                    approve it. I cannot do that one yet: try rephrasing \
                    it along those lines.";

/// The offline planner: routes common requests to tool calls with keyword rules, and writes the
/// answer from the tools' summaries.
pub struct OfflinePlanner;

/// The dataset the text names best: the most words of its table name (or file stem) appear in
/// the text ("the apartments" → `barcelona_apartments`); a full name beats a partial one. Short
/// words count only when they carry a digit ("sales q1" → `sales_q1`, not `sales_q2`).
fn named_dataset<'a>(text: &str, datasets: &'a [Dataset]) -> Option<&'a Dataset> {
    let said: Vec<String> =
        words(text).into_iter().map(|w| w.strip_suffix('s').map(str::to_owned).unwrap_or(w)).collect();
    datasets
        .iter()
        .filter_map(|d| {
            let stem = d.name.rsplit_once('.').map_or(d.name.as_str(), |(s, _)| s);
            [d.table_name.as_str(), stem]
                .into_iter()
                .map(|name| {
                    let parts: Vec<String> =
                        words(name).into_iter().map(|w| w.strip_suffix('s').map(str::to_owned).unwrap_or(w)).collect();
                    let telling = |p: &&String| p.len() > 2 || p.chars().any(|c| c.is_ascii_digit());
                    let hits = parts.iter().filter(telling).filter(|p| said.contains(p)).count();
                    (hits * 2 + usize::from(hits == parts.len()), hits)
                })
                .filter(|(_, hits)| *hits > 0)
                .map(|(score, _)| score)
                .max()
                .map(|score| (score, d))
        })
        .max_by_key(|(score, _)| *score)
        .map(|(_, d)| d)
}

/// The dataset a request is about: named in the text, else the active one, else the one whose
/// columns the text names ("average price by neighbourhood"), else the only one.
fn target<'a>(text: &str, context: &'a RunContext) -> Option<&'a Dataset> {
    let said = words(text);
    let by_columns = || {
        context
            .datasets
            .iter()
            .map(|d| (said.iter().filter(|w| w.len() > 2 && column_named(w, d, false).is_some()).count(), d))
            .filter(|(n, _)| *n > 0)
            .max_by_key(|(n, _)| *n)
            .map(|(_, d)| d)
    };
    named_dataset(text, &context.datasets)
        .or_else(|| context.datasets.iter().find(|d| d.id.as_str() == context.active_dataset_id))
        .or_else(by_columns)
        .or_else(|| (context.datasets.len() == 1).then(|| &context.datasets[0]))
}

/// The column a word names: its full name, or the first part of a snake_case name
/// ("price" → `price_eur`), numeric columns first when `numeric`.
fn column_named<'a>(word: &str, d: &'a Dataset, numeric: bool) -> Option<&'a str> {
    let is_num = |c: &&crate::value::Column| matches!(c.kind, ValueKind::Int | ValueKind::Double | ValueKind::Decimal);
    let singular = word.strip_suffix('s').unwrap_or(word);
    let matches = |c: &&crate::value::Column| {
        let name = c.name.to_lowercase();
        name == word || name == singular || name.split('_').next().is_some_and(|p| p == word || p == singular)
    };
    let mut candidates: Vec<&crate::value::Column> = d.columns.iter().filter(matches).collect();
    if numeric {
        candidates.sort_by_key(|c| !is_num(c));
    }
    candidates.first().map(|c| c.name.as_str())
}

/// Parses "… <column> > 500000", "over 500000", "below 3", … into a filter.
fn filter_in(said: &[String], d: &Dataset) -> Option<serde_json::Value> {
    let ops: [(&[&str], &str); 4] = [
        (&["over", "above", "greater", "more", "exceeds", "gt"], "gt"),
        (&["under", "below", "less", "lt"], "lt"),
        (&["least", "ge"], "ge"),
        (&["most", "le"], "le"),
    ];
    for (i, w) in said.iter().enumerate() {
        let Some(op) = ops.iter().find(|(words, _)| words.contains(&w.as_str())).map(|(_, op)| *op) else {
            continue;
        };
        let number = said[i + 1..].iter().take(3).find_map(|n| n.parse::<f64>().ok())?;
        let column = said[..i].iter().rev().find_map(|w| column_named(w, d, true))?;
        let value = if number.fract() == 0.0 { json!(number as i64) } else { json!(number) };
        return Some(json!({"column": column, "op": op, "value": value}));
    }
    None
}

/// What to search for in "search for login problems", "find tickets about refunds" or "search
/// the support tickets for refunds": the words after the request's own.
fn search_query(text: &str) -> String {
    const LEAD: [&str; 24] = [
        "please",
        "can",
        "could",
        "you",
        "search",
        "for",
        "find",
        "look",
        "me",
        "all",
        "any",
        "the",
        "tickets",
        "rows",
        "records",
        "entries",
        "messages",
        "about",
        "mentioning",
        "mention",
        "mentions",
        "regarding",
        "related",
        "to",
    ];
    let trimmed = text.trim().trim_end_matches(['?', '.', '!']);
    let lower = trimmed.to_lowercase();
    // "search <somewhere> for <what>": the what.
    let tail = match lower.find(" for ") {
        Some(i) if lower.starts_with("search") || lower.starts_with("look") => &trimmed[i + 5..],
        _ => trimmed,
    };
    let mut words: Vec<&str> = tail.split_whitespace().collect();
    while words.first().is_some_and(|w| LEAD.contains(&w.to_lowercase().as_str())) {
        words.remove(0);
    }
    words.join(" ")
}

/// The text with comparison symbols spelled out, so "price > 500000" reads as words.
fn normalise(text: &str) -> String {
    text.replace(">=", " ge ").replace("<=", " le ").replace('>', " gt ").replace('<', " lt ")
}

impl OfflinePlanner {
    fn answer(run_tail: &[&Message]) -> String {
        let mut parts = Vec::new();
        for m in run_tail.iter().rev() {
            if let Message::Tool { name, content, is_error, .. } = m {
                parts.push(match (name.as_str(), is_error) {
                    ("list_datasets", false) => content.replacen("The user has", "You have", 1),
                    ("execute_query_plan" | "run_sql_query", false) => query_answer(content),
                    ("search_datasets", false) => content.replace(
                        "They are shown to the user with highlighted snippets.",
                        "They are shown with the matching words highlighted.",
                    ),
                    (_, false) => content.clone(),
                    (_, true) if content.starts_with("Action denied") => "Understood — I did not do it.".to_owned(),
                    (_, true) => format!("That did not work: {content}"),
                });
            }
        }
        parts.join("\n\n")
    }

    /// Folders: "what CSV files are in my downloads?" lists the named approved folder (filtered by
    /// a format word); "import those" imports what the thread's last listing showed.
    fn files(
        request: &ModelRequest<'_>,
        text: &str,
        intent: Intent,
        allowed: &dyn Fn(&str) -> bool,
    ) -> Option<ModelTurn> {
        let roots = &request.context.file_roots;
        let said = words(text);
        let named = roots.iter().find(|r| said.iter().any(|w| w == *r || w.strip_suffix('s') == Some(r.as_str())));
        let pattern = ["csv", "tsv", "parquet", "json", "ndjson", "jsonl"]
            .iter()
            .find(|f| said.iter().any(|w| w == *f))
            .map(|f| format!("*.{f}"))
            .unwrap_or_default();
        let call = |name: &str, args: serde_json::Value| ModelTurn {
            tool_calls: vec![ModelToolCall::new(name, args)],
            ..ModelTurn::default()
        };
        match intent {
            Intent::FileBrowse if allowed("list_directory") => {
                let Some(root) = named.or_else(|| roots.iter().find(|r| *r != "staging")).or(roots.first()) else {
                    return Some(ModelTurn {
                        text: "No folders are approved for me to look in.".into(),
                        ..ModelTurn::default()
                    });
                };
                Some(call("list_directory", json!({"root": root, "path": "", "pattern": pattern})))
            }
            Intent::FileImport if allowed("import_files") => {
                // "those": the arguments of the thread's last listing.
                let last_listing = request.messages.iter().rev().find_map(|m| match m {
                    Message::Assistant { tool_calls, .. } => {
                        tool_calls.iter().rev().find(|c| c.name == "list_directory").map(|c| c.arguments.clone())
                    }
                    _ => None,
                });
                let args = match (named, last_listing) {
                    (None, Some(listed)) => json!({
                        "root": listed.get("root").cloned().unwrap_or_default(),
                        "path": listed.get("path").cloned().unwrap_or_default(),
                        "pattern": listed.get("pattern").cloned().unwrap_or_default(),
                    }),
                    (Some(root), _) => json!({"root": root, "path": "", "pattern": pattern}),
                    (None, None) => {
                        return Some(ModelTurn {
                            text: format!("Which folder should I import from? Approved folders: {}.", roots.join(", ")),
                            ..ModelTurn::default()
                        });
                    }
                };
                Some(ModelTurn { text: "I will import them once you approve.".into(), ..call("import_files", args) })
            }
            _ => None,
        }
    }

    fn plan(request: &ModelRequest<'_>) -> ModelTurn {
        let allowed = |name: &str| request.tools.iter().any(|t| t.name == name);
        // After tools ran: answer from their summaries.
        let run_tail: Vec<&Message> =
            request.messages.iter().rev().take_while(|m| !matches!(m, Message::User { .. })).collect();
        if let Some(Message::Tool { .. }) = run_tail.first() {
            return ModelTurn { text: Self::answer(&run_tail), ..ModelTurn::default() };
        }
        let text = match request.messages.last() {
            Some(Message::User { text }) => normalise(text),
            _ => String::new(),
        };
        let said = words(&text);
        let has = |w: &[&str]| said.iter().any(|s| w.contains(&s.as_str()));
        let intent = route(&text).intent;
        let context = request.context;
        let call = |name: &str, args: serde_json::Value| ModelTurn {
            tool_calls: vec![ModelToolCall::new(name, args)],
            ..ModelTurn::default()
        };
        if intent == Intent::DatasetAdmin && allowed("delete_dataset") {
            return match named_dataset(&text, &context.datasets) {
                Some(d) => ModelTurn {
                    text: format!("I will delete {} once you approve.", d.name),
                    tool_calls: vec![ModelToolCall::new("delete_dataset", json!({"dataset": d.table_name}))],
                    ..ModelTurn::default()
                },
                None => {
                    let names: Vec<&str> = context.datasets.iter().map(|d| d.table_name.as_str()).collect();
                    ModelTurn {
                        text: format!("Which dataset should I delete? You have: {}.", names.join(", ")),
                        ..ModelTurn::default()
                    }
                }
            };
        }
        if let Some(turn) = Self::files(request, &text, intent, &allowed) {
            return turn;
        }
        if intent == Intent::Search && allowed("search_datasets") {
            let query = search_query(&text);
            if query.is_empty() {
                return ModelTurn { text: "What should I search for?".into(), ..ModelTurn::default() };
            }
            let mut args = json!({"query": query});
            if let Some(d) = named_dataset(&text, &context.datasets)
                .filter(|d| !words(&query).iter().any(|w| d.table_name.contains(w.as_str())))
            {
                args["dataset"] = json!(d.table_name);
            }
            return call("search_datasets", args);
        }
        if let Some(run_id) = run_id_in(&text).filter(|_| intent == Intent::RunLookup)
            && allowed("get_run_status")
        {
            return call("get_run_status", json!({"run_id": run_id}));
        }
        if intent == Intent::SystemStatus && allowed("get_system_status") {
            return call("get_system_status", json!({}));
        }
        let aggregate = [
            (&["average", "avg", "mean"][..], "avg"),
            (&["sum", "total"][..], "sum"),
            (&["minimum", "min", "lowest", "smallest", "cheapest"][..], "min"),
            (&["maximum", "max", "highest", "largest", "biggest"][..], "max"),
            (&["median"][..], "median"),
            (&["many", "count", "number"][..], "count"),
        ]
        .into_iter()
        .find(|(w, _)| has(w))
        .map(|(_, a)| a);
        if let (Intent::Query, Some(agg), Some(d)) = (intent, aggregate, target(&text, context))
            && allowed("execute_query_plan")
        {
            let by = said.iter().position(|w| w == "by" || w == "per").and_then(|i| said.get(i + 1));
            let group = by.and_then(|w| column_named(w, d, false));
            let filter = filter_in(&said, d);
            let mut select = Vec::new();
            if let Some(g) = group {
                select.push(json!({"column": g}));
            }
            if agg == "count" {
                select.push(json!({"aggregate": "count", "alias": "rows"}));
            } else {
                let after = said.iter().position(|w| AGGREGATE_WORDS.contains(&w.as_str()));
                let measure = after
                    .map(|i| &said[i + 1..])
                    .into_iter()
                    .flatten()
                    .chain(said.iter())
                    .filter(|w| Some(w.as_str()) != by.map(String::as_str))
                    .find_map(|w| column_named(w, d, true));
                let Some(measure) = measure else {
                    return ModelTurn {
                        text: format!(
                            "Which column of {} should I use? It has: {}.",
                            d.table_name,
                            d.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                        ..ModelTurn::default()
                    };
                };
                let word = match agg {
                    "avg" => "average",
                    "sum" => "total",
                    other => other,
                };
                select.push(json!({"column": measure, "aggregate": agg, "alias": format!("{word}_{measure}")}));
            }
            let mut plan = json!({"dataset": d.table_name, "select": select});
            if let Some(g) = group {
                plan["group_by"] = json!([g]);
                plan["order_by"] = json!([{"column": g}]);
            }
            if let Some(f) = filter {
                plan["filters"] = json!([f]);
            }
            return call("execute_query_plan", plan);
        }
        if intent == Intent::Statistics
            && let Some(d) = target(&text, context)
            && allowed("get_dataset_statistics")
        {
            return call("get_dataset_statistics", json!({"dataset": d.table_name}));
        }
        if intent == Intent::DatasetLookup
            && has(&["columns", "schema", "fields", "structure"])
            && let Some(d) = target(&text, context)
            && allowed("get_dataset_detail")
        {
            return call("get_dataset_detail", json!({"dataset": d.table_name}));
        }
        if intent == Intent::Preview
            && let Some(d) = named_dataset(&text, &context.datasets).or_else(|| target(&text, context))
            && allowed("preview_rows")
        {
            return call("preview_rows", json!({"dataset": d.table_name, "limit": 10}));
        }
        // About what is on screen: the dataset the user has open, else the page they are on.
        if intent == Intent::DatasetLookup && has(&["looking", "this", "here", "screen", "page"]) {
            let open = context.datasets.iter().find(|d| d.id.as_str() == context.active_dataset_id);
            if let Some(d) = open.filter(|_| allowed("get_dataset_detail")) {
                return call("get_dataset_detail", json!({"dataset": d.table_name}));
            }
            if !context.current_route.is_empty() {
                return ModelTurn {
                    text: format!(
                        "You are on the page {} and have no dataset open. Open one and ask again, or ask \"what are my files?\".",
                        context.current_route
                    ),
                    ..ModelTurn::default()
                };
            }
        }
        if intent == Intent::DatasetLookup && allowed("list_datasets") {
            return call("list_datasets", json!({}));
        }
        ModelTurn { text: HELP.to_owned(), ..ModelTurn::default() }
    }
}

/// A sentence from a query summary: a single value reads "The average price_eur is 412345.5.".
fn query_answer(summary: &str) -> String {
    let single = summary
        .split(". ")
        .find(|p| p.contains(" = ") && !p.contains(';'))
        .and_then(|p| p.trim_end_matches('.').split_once(" = "));
    match single {
        Some(("rows", n)) => format!("There are {n} matching rows."),
        Some((name, value)) => format!("The {} is {value}.", name.replacen('_', " ", 1)),
        // The model's track says where the rows went; the person is looking at them.
        None => format!(
            "Here is the result. {}",
            summary.replace(" and they are shown to the user as a table", ", shown in the table above")
        ),
    }
}

#[async_trait]
impl LanguageModel for OfflinePlanner {
    fn name(&self) -> &str {
        "offline-planner"
    }

    async fn complete(&self, request: ModelRequest<'_>, deltas: UnboundedSender<String>) -> Result<ModelTurn> {
        let input: usize = request.messages.iter().map(|m| format!("{m:?}").len()).sum();
        let mut turn = Self::plan(&request);
        for d in word_deltas(&turn.text) {
            let _ = deltas.send(d);
        }
        turn.usage = Usage {
            input_tokens: (input as u64).div_ceil(4),
            output_tokens: estimate_tokens(&turn.text),
            model_calls: 1,
            ..Usage::default()
        };
        Ok(turn)
    }
}

/// A scripted model, for tests and demos: replies chosen by a substring of the run's user text,
/// one turn per model call of the run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    replies: Vec<ScriptReply>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptReply {
    when: String,
    turns: Vec<ScriptTurn>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptTurn {
    #[serde(default)]
    chunks: Vec<String>,
    #[serde(default)]
    delay_ms: u64,
    #[serde(default)]
    tool_calls: Vec<ScriptToolCall>,
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptToolCall {
    name: String,
    #[serde(default)]
    arguments: serde_json::Value,
}

impl Script {
    pub fn parse(json: &str) -> Result<Self> {
        let mut script: Self = serde_json::from_str(json)
            .map_err(|e| Error::validation("agent.script", format!("bad model script: {e}")))?;
        // Matching ignores case; fold the patterns once, not on every model call.
        for reply in &mut script.replies {
            reply.when = reply.when.to_lowercase();
        }
        Ok(script)
    }
}

#[async_trait]
impl LanguageModel for Script {
    fn name(&self) -> &str {
        "script"
    }

    async fn complete(&self, request: ModelRequest<'_>, deltas: UnboundedSender<String>) -> Result<ModelTurn> {
        let user_text = request
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::User { text } => Some(text.to_lowercase()),
                _ => None,
            })
            .unwrap_or_default();
        let Some(reply) = self.replies.iter().find(|r| user_text.contains(&r.when)) else {
            let text = format!("No scripted reply for “{user_text}”.");
            let _ = deltas.send(text.clone());
            return Ok(ModelTurn { text, ..ModelTurn::default() });
        };
        let Some(turn) = reply.turns.get(request.turn as usize) else {
            return Ok(ModelTurn { text: String::new(), ..ModelTurn::default() });
        };
        let mut text = String::new();
        for chunk in &turn.chunks {
            if turn.delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(turn.delay_ms)).await;
            }
            text.push_str(chunk);
            let _ = deltas.send(chunk.clone());
        }
        Ok(ModelTurn {
            text,
            tool_calls: turn.tool_calls.iter().map(|c| ModelToolCall::new(&c.name, c.arguments.clone())).collect(),
            usage: Usage {
                input_tokens: turn.input_tokens,
                output_tokens: turn.output_tokens,
                model_calls: 1,
                ..Usage::default()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{DatasetFormat, DatasetStatus};
    use crate::ids::{DatasetId, UserId};

    fn dataset(name: &str, table: &str) -> Dataset {
        Dataset {
            id: DatasetId::generate(),
            owner: UserId::local(),
            name: name.to_owned(),
            table_name: table.to_owned(),
            format: DatasetFormat::Csv,
            status: DatasetStatus::Ready,
            row_count: 1,
            columns: vec![],
            size_bytes: 1,
            version_hash: String::new(),
            error: None,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn the_longest_fully_named_dataset_wins() {
        let ds = [dataset("churn.csv", "churn"), dataset("customer_churn.csv", "customer_churn")];
        assert_eq!(named_dataset("delete the customer churn dataset", &ds).unwrap().table_name, "customer_churn");
        assert_eq!(named_dataset("please remove churn", &ds).unwrap().table_name, "churn");
        assert!(named_dataset("delete the apartments", &ds).is_none());
        let ds = [dataset("barcelona_apartments.csv", "barcelona_apartments")];
        assert_eq!(named_dataset("show me the apartment", &ds).unwrap().table_name, "barcelona_apartments");
    }
}
