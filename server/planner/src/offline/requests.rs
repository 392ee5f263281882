//! What a request names beyond a question about values: the dataset a delete or a preview is
//! about, the words of a search, the folder and files of an import.

use crate::turns::{ask, call, named_dataset, not_understood};
use aware_core::runs::router::{Intent, words};
use aware_core::runs::tools::ToolName;
use aware_domain::dataset::Dataset;
use aware_domain::ports::model::{Message, ModelRequest, ModelTurn, RunContext};
use serde_json::json;

/// Whether every word of a delete's object is a word of one dataset's name (or says it is a
/// dataset): "churn", "the customer churn dataset", `sales_2024.csv` — not "the fraud-suspected
/// claims", whose "fraud" and "suspected" pick rows out of `insurance_claims`.
pub(super) fn only_names_a_dataset(object: &str, datasets: &[Dataset]) -> bool {
    const SAYS_DATASET: [&str; 14] = [
        "dataset",
        "datasets",
        "table",
        "tables",
        "file",
        "files",
        "data",
        "csv",
        "parquet",
        "json",
        "upload",
        "uploads",
        "sheet",
        "spreadsheet",
    ];
    let said: Vec<String> = words(object)
        .into_iter()
        .filter(|w| !SAYS_DATASET.contains(&w.as_str()))
        .map(|w| w.strip_suffix('s').map(str::to_owned).unwrap_or(w))
        .collect();
    !said.is_empty()
        && datasets.iter().any(|d| {
            let stem = d.name.rsplit_once('.').map_or(d.name.as_str(), |(s, _)| s);
            let name: Vec<String> = words(&d.table_name)
                .into_iter()
                .chain(words(stem))
                .map(|w| w.strip_suffix('s').map(str::to_owned).unwrap_or(w))
                .collect();
            // Every word of the name said ("churn", "customer churn"): a part of it ("visits"
            // of `clinic_visits`) may be the rows, not the dataset.
            let telling: Vec<&String> = name.iter().filter(|w| w.len() > 2).collect();
            said.iter().all(|w| name.contains(w)) && telling.iter().all(|w| said.contains(w))
        })
}

/// The dataset a request is about: named in the text, else the active one, else the only one.
pub(super) fn target<'a>(text: &str, context: &'a RunContext) -> Option<&'a Dataset> {
    named_dataset(text, &context.datasets)
        .or_else(|| context.datasets.iter().find(|d| d.id.as_str() == context.active_dataset_id))
        .or_else(|| (context.datasets.len() == 1).then(|| &context.datasets[0]))
}

/// What to search for in "search for login problems", "find tickets about refunds" or "search
/// the support tickets for refunds": the words after the request's own.
pub(super) fn search_query(text: &str) -> String {
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

/// Folders: "what CSV files are in my downloads?" lists the named approved folder (filtered by
/// a format word); "import those" imports what the thread's last listing showed.
pub(super) fn files(
    request: &ModelRequest<'_>,
    text: &str,
    intent: Intent,
    allowed: &dyn Fn(ToolName) -> bool,
) -> Option<ModelTurn> {
    let roots = &request.context.file_roots;
    let said = words(text);
    let named = roots.iter().find(|r| said.iter().any(|w| w == *r || w.strip_suffix('s') == Some(r.as_str())));
    let pattern = ["csv", "tsv", "parquet", "json", "ndjson", "jsonl"]
        .iter()
        .find(|f| said.iter().any(|w| w == *f))
        .map(|f| format!("*.{f}"))
        .unwrap_or_default();
    match intent {
        Intent::FileBrowse if allowed(ToolName::ListDirectory) => {
            let Some(root) = named.or_else(|| roots.iter().find(|r| *r != "staging")).or(roots.first()) else {
                return Some(not_understood("No folders are approved for me to look in.".into()));
            };
            Some(call(ToolName::ListDirectory, json!({"root": root, "path": "", "pattern": pattern})))
        }
        Intent::FileImport if allowed(ToolName::ImportFiles) => {
            // "those": the arguments of the thread's last listing.
            let last_listing = request.messages.iter().rev().find_map(|m| match m {
                Message::Assistant { tool_calls, .. } => tool_calls
                    .iter()
                    .rev()
                    .find(|c| c.name == ToolName::ListDirectory.as_str())
                    .map(|c| c.arguments.clone()),
                Message::User { .. } | Message::Tool { .. } => None,
            });
            let args = match (named, last_listing) {
                (None, Some(listed)) => json!({
                    "root": listed.get("root").cloned().unwrap_or_default(),
                    "path": listed.get("path").cloned().unwrap_or_default(),
                    "pattern": listed.get("pattern").cloned().unwrap_or_default(),
                }),
                (Some(root), _) => json!({"root": root, "path": "", "pattern": pattern}),
                (None, None) => {
                    return Some(ask(format!(
                        "Which folder should I import from? Approved folders: {}.",
                        roots.join(", ")
                    )));
                }
            };
            Some(ModelTurn { text: "I will import them once you approve.".into(), ..call(ToolName::ImportFiles, args) })
        }
        Intent::ChatOnly
        | Intent::DatasetLookup
        | Intent::Preview
        | Intent::Query
        | Intent::Statistics
        | Intent::Search
        | Intent::DatasetAdmin
        | Intent::FileBrowse
        | Intent::FileImport
        | Intent::SystemStatus
        | Intent::RunLookup
        | Intent::ExternalTool
        | Intent::Memory
        | Intent::DatasetEdit
        | Intent::AccountAdmin
        | Intent::Knowledge => None,
    }
}
