//! The router: reads the user's message into an intent with a confidence — keyword heuristics
//! first; with `agent.router = "llm"` the model's structured reading (`model_view::prompt::ROUTER_PROMPT`,
//! [`parse_model_route`]) replaces it when it is well-formed and confident. What a route may use
//! is decided by the policy gate (`crate::policy`), never here: a guess (below [`CONFIDENT`])
//! does not narrow the tools at all.

use serde::{Deserialize, Serialize};

/// Lower-case words of a text (letters and digits), as the router reads a message.
pub use aware_domain::text::words;

/// What a message asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    ChatOnly,
    DatasetLookup,
    Preview,
    Query,
    Statistics,
    Search,
    DatasetAdmin,
    FileBrowse,
    FileImport,
    SystemStatus,
    RunLookup,
    /// "use everything.echo with hello": a call of an external server's tool, by its name.
    ExternalTool,
    /// "remember that …", "forget that …": the user's memory, in so many words.
    Memory,
    /// Rename, describe or refresh a dataset, save a result as one, keep or drop a verified
    /// query.
    DatasetEdit,
    /// Users, roles and API keys (admins only).
    AccountAdmin,
    /// "What does the handbook say about refunds?": what the user's documents say.
    Knowledge,
}

/// How far a request may reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    Read,
    Write,
    Destructive,
}

/// The router's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Route {
    pub intent: Intent,
    pub confidence: f32,
    pub needs_dataset: bool,
    pub risk: Risk,
    /// External tools the request was linked to by what they do (`tool_links.rs`): offered
    /// whatever the intent, through the same gate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linked_tools: Vec<String>,
}

impl Route {
    /// No reading of a request: the gate narrows nothing (what a caller may use at all, or a
    /// client's own tool call).
    pub fn undecided() -> Self {
        Self { confidence: 0.0, ..route("") }
    }
}

/// Below this, the gate does not narrow the tools.
pub const CONFIDENT: f32 = 0.5;

pub const AGGREGATE_WORDS: [&str; 20] = [
    "average",
    "avg",
    "mean",
    "sum",
    "total",
    "minimum",
    "min",
    "lowest",
    "smallest",
    "cheapest",
    "maximum",
    "max",
    "highest",
    "largest",
    "biggest",
    "median",
    "many",
    "count",
    "number",
    "percentage",
];

/// Words that ask for a computed answer beyond the aggregates: rankings, shares, comparisons.
const QUERY_WORDS: [&str; 29] = [
    "most",
    "least",
    "top",
    "rate",
    "percentage",
    "percent",
    "share",
    "proportion",
    "fraction",
    "compare",
    "per",
    "expensive",
    "cheaper",
    "longest",
    "shortest",
    "oldest",
    "newest",
    "common",
    "popular",
    "each",
    "than",
    "over",
    "under",
    "above",
    "below",
    "between",
    "which",
    "without",
    "by",
];

/// A run id written in the text (`run_…`).
pub fn run_id_in(text: &str) -> Option<&str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, ',' | '?' | '!' | '"' | '\'' | '`'))
        .find(|w| w.starts_with("run_") && w.len() > 4)
        .map(|w| w.trim_end_matches('.'))
}

/// The external tool a message asks for by name: "use everything.echo with hello", "call
/// files.read_file …" (a `server.tool` name right after use, call or run).
pub fn external_tool_in(text: &str) -> Option<&str> {
    let mut tokens = text.split_whitespace();
    let verb = tokens.next()?.to_lowercase();
    let name = tokens.next()?.trim_end_matches([',', ':', '.', '?', '!']);
    let (server, tool) = name.split_once('.')?;
    let part = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-'));
    (matches!(verb.as_str(), "use" | "call" | "run") && part(server) && part(tool)).then_some(name)
}

/// Whether a message asks to read a dataset again from its file: "refresh the tickets dataset",
/// "reload churn from its file", "re-import it".
pub fn asks_refresh(text: &str) -> bool {
    let said = words(text);
    said.iter().any(|w| matches!(w.as_str(), "refresh" | "reload" | "reimport" | "resync"))
        || said.windows(2).any(|w| w[0] == "re" && matches!(w[1].as_str(), "import" | "read" | "load"))
}

/// Words that name a knowledge document.
pub const DOCUMENT_WORDS: [&str; 17] = [
    "handbook",
    "handbooks",
    "manual",
    "manuals",
    "policy",
    "policies",
    "guide",
    "guidelines",
    "faq",
    "wiki",
    "docs",
    "doc",
    "document",
    "documents",
    "documentation",
    "playbook",
    "runbook",
];

/// Whether a message asks what the user's documents say: "what does the handbook say about
/// refunds?", "according to the docs, …", "what do my documents say about shipping?".
pub fn asks_documents(said: &[String]) -> bool {
    let has = |w: &[&str]| said.iter().any(|s| w.contains(&s.as_str()));
    has(&["according"])
        || (has(&DOCUMENT_WORDS)
            && has(&["say", "says", "said", "about", "explain", "explains", "state", "states", "cover", "covers"])
            && !has(&["folder", "folders", "directory", "disk", "downloads", "desktop"]))
}

/// What a delete's object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    /// Said to be a dataset, table or file ("the cities dataset", `customer_churn`).
    Named,
    /// Words that may or may not be a dataset's name ("churn", "outliers").
    Unclear,
}

/// Verbs that destroy.
const DESTROY: [&str; 10] =
    ["delete", "remove", "drop", "erase", "purge", "wipe", "destroy", "trash", "discard", "nuke"];

/// Whether `text` asks, in the imperative, to destroy something, and how clearly its object is a
/// dataset: "delete the cities dataset", "please remove customer_churn", "can you drop the sales
/// table" — but not "did sales drop in June?", "which months saw consumption drop", "the ones
/// that dropped out" (no imperative) nor a verb after other words of a request ("average score
/// if we drop the F grades"). `None`: not such a request; else the object's words as typed.
pub fn destructive_request(text: &str) -> Option<(Object, String)> {
    // Words that may come before the verb of a request.
    const LEAD: [&str; 27] = [
        "please", "pls", "can", "could", "would", "will", "you", "kindly", "go", "ahead", "and", "i", "want", "wanna",
        "to", "d", "like", "need", "let", "s", "lets", "just", "now", "then", "ok", "okay", "also",
    ];
    // Words between the verb and its object.
    const FILLER: [&str; 13] =
        ["the", "my", "our", "this", "that", "these", "those", "a", "an", "all", "of", "entire", "whole"];
    // Words that end the object ("the outliers from sales_orders": the object is "outliers").
    const END: [&str; 13] =
        ["from", "in", "and", "then", "before", "after", "with", "where", "that", "which", "so", "for", "if"];
    const THINGS: [&str; 12] = [
        "dataset",
        "datasets",
        "table",
        "tables",
        "file",
        "files",
        "upload",
        "uploads",
        "csv",
        "sheet",
        "spreadsheet",
        "data",
    ];
    // Each whitespace-separated piece as typed and as words.
    let pieces: Vec<(&str, String)> =
        text.split_whitespace().map(|raw| (raw, words(raw).join(" "))).filter(|(_, w)| !w.is_empty()).collect();
    let at = pieces.iter().position(|(_, w)| DESTROY.contains(&w.as_str()))?;
    if !pieces[..at].iter().flat_map(|(_, w)| w.split(' ')).all(|w| LEAD.contains(&w)) {
        return None;
    }
    let after: Vec<&(&str, String)> =
        pieces[at + 1..].iter().skip_while(|(_, w)| FILLER.contains(&w.as_str())).collect();
    let object: Vec<&(&str, String)> =
        after.iter().copied().take_while(|(_, w)| !END.contains(&w.as_str())).take(5).collect();
    // "remove the visits with a wait over 150 minutes", "drop the orders that were returned":
    // rows picked out by a condition are left out of an analysis, not deleted.
    if after
        .get(object.len())
        .is_some_and(|(_, w)| matches!(w.as_str(), "with" | "where" | "that" | "which" | "whose" | "having" | "if"))
    {
        return None;
    }
    // An identifier as typed (`sales_2024`, `cities.csv`) names a table or file.
    let identifier = |raw: &str| {
        let raw = raw.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        raw.contains('_') || [".csv", ".tsv", ".parquet", ".json"].iter().any(|x| raw.ends_with(x))
    };
    let named = object.iter().any(|(raw, w)| identifier(raw) || w.split(' ').any(|part| THINGS.contains(&part)));
    let said: Vec<&str> = object.iter().map(|(raw, _)| *raw).collect();
    Some((if named { Object::Named } else { Object::Unclear }, said.join(" ")))
}

/// Reads a message into a route, with keyword rules in priority order.
// Over 120 lines on purpose: one rule per intent, in priority order (the first that matches
// wins), each with the words and the reason beside it; the order is the logic, and it reads
// best as one list.
pub fn route(text: &str) -> Route {
    let said = words(text);
    let has = |w: &[&str]| said.iter().any(|s| w.contains(&s.as_str()));
    let r = |intent, confidence, needs_dataset, risk| Route {
        intent,
        confidence,
        needs_dataset,
        risk,
        linked_tools: Vec::new(),
    };
    // "Remember that deleting …" is about memory, whatever words the fact holds.
    if crate::memory::explicit_request(text).is_some() {
        return r(Intent::Memory, 0.9, false, Risk::Write);
    }
    // A tool named outright: the person chose it (its own risk decides about confirmation).
    if external_tool_in(text).is_some() {
        return r(Intent::ExternalTool, 0.9, false, Risk::Write);
    }
    // Users, roles and keys, said with their own words ("users per month" is a query).
    if has(&["revoke", "deactivate", "reactivate", "promote", "demote"])
        || (has(&["account", "accounts"])
            && has(&["create", "add", "make", "open", "invite", "new", "disable", "close"]))
        || (has(&["role"]) && has(&["change", "set", "give", "make"]))
        || (has(&["key", "keys", "apikey"]) && has(&["api", "create", "new", "issue", "generate"]))
        || (has(&["user"]) && has(&["create", "add", "invite"]))
        || (has(&["admin", "analyst", "viewer"]) && has(&["make"]))
    {
        return r(Intent::AccountAdmin, 0.8, false, Risk::Write);
    }
    let about_queries = has(&["query", "queries", "sql"]);
    if about_queries && has(&["delete", "remove", "drop", "forget"]) && has(&["saved", "verified"]) {
        return r(Intent::DatasetEdit, 0.9, false, Risk::Write);
    }
    // A delete needs the imperative and an object that can be a dataset: "did sales drop in
    // June?" and "remove outliers and recompute the average" are analysis.
    match destructive_request(text).map(|(object, _)| object) {
        Some(Object::Named) => return r(Intent::DatasetAdmin, 0.9, true, Risk::Destructive),
        // "delete churn": maybe a dataset's name — a guess, so the gate narrows nothing and the
        // planner deletes only what the words name.
        Some(Object::Unclear) => return r(Intent::DatasetAdmin, 0.4, true, Risk::Destructive),
        None => {}
    }
    // "rename …", "describe price_eur as …", "save that as a dataset called …", "remember this
    // query as …".
    if has(&["rename"])
        || (has(&["describe", "define"]) && has(&["as", "unit"]))
        || (has(&["save", "store", "keep", "materialize", "materialise"]) && has(&["dataset", "table"]))
        || (about_queries && has(&["save", "remember", "keep", "verify"]))
    {
        return r(Intent::DatasetEdit, 0.9, true, Risk::Write);
    }
    if run_id_in(text).is_some() {
        return r(Intent::RunLookup, 0.9, false, Risk::Read);
    }
    if asks_refresh(text) {
        return r(Intent::DatasetEdit, 0.8, true, Risk::Write);
    }
    if has(&["import", "ingest"]) {
        return r(Intent::FileImport, 0.7, false, Risk::Write);
    }
    if asks_documents(&said) {
        return r(Intent::Knowledge, 0.7, false, Risk::Read);
    }
    // "Downloads", "Desktop" are folders when files are in view ("what's on my desktop?", "CSV
    // files in downloads"), not when they are a device ("pages viewed on desktop").
    let places = has(&["downloads", "desktop", "documents"]);
    let possessive = said.windows(2).any(|w| {
        matches!(w[0].as_str(), "my" | "our") && matches!(w[1].as_str(), "downloads" | "desktop" | "documents")
    });
    if has(&["folder", "folders", "directory", "directories", "disk"])
        || (places && (possessive || has(&["file", "files", "csv", "csvs", "parquet", "json", "import", "inside"])))
    {
        return r(Intent::FileBrowse, 0.7, false, Risk::Read);
    }
    // "status" alone is often a column ("tickets by status"): the system's status is asked for
    // with the system's own words.
    if has(&["health", "version", "uptime"])
        || (has(&["status", "state"]) && has(&["system", "server", "service", "aware"]))
        || said.iter().map(String::as_str).eq(["status"])
    {
        return r(Intent::SystemStatus, 0.8, false, Risk::Read);
    }
    // "search for …" and "tickets mentioning …" ask for text search whatever else they say.
    if has(&["search", "mention", "mentions", "mentioning"]) {
        return r(Intent::Search, 0.6, false, Risk::Read);
    }
    if has(&AGGREGATE_WORDS) || has(&QUERY_WORDS) {
        return r(Intent::Query, 0.8, true, Risk::Read);
    }
    if has(&[
        "statistics",
        "stats",
        "profile",
        "summary",
        "summarize",
        "summarise",
        "describe",
        "distribution",
        "odd",
        "unusual",
        "strange",
        "weird",
        "anomaly",
        "anomalies",
        "outlier",
        "outliers",
        "quality",
        "suspicious",
    ]) {
        return r(Intent::Statistics, 0.8, true, Risk::Read);
    }
    if has(&["find"]) {
        return r(Intent::Search, 0.6, false, Risk::Read);
    }
    if has(&["columns", "schema", "fields", "structure"]) {
        return r(Intent::DatasetLookup, 0.7, true, Risk::Read);
    }
    if has(&["show", "preview", "rows", "look", "see", "open", "display", "sample", "first"]) {
        return r(Intent::Preview, 0.7, true, Risk::Read);
    }
    // "What am I looking at?", "what is this?": about what is on the user's screen.
    if has(&["looking", "this", "here", "screen", "page"]) {
        return r(Intent::DatasetLookup, 0.6, true, Risk::Read);
    }
    // "What tools do you have?": about the assistant itself — everything stays on offer.
    if has(&["tool", "tools"]) {
        return r(Intent::ChatOnly, 0.3, false, Risk::Read);
    }
    if has(&["files", "file", "datasets", "dataset", "data", "tables", "uploads", "have"]) {
        return r(Intent::DatasetLookup, 0.7, false, Risk::Read);
    }
    // Small talk is chat-only, but never confidently so: taking tools away on a guess would stop
    // a model that reads more into the message than these rules do.
    let small_talk = has(&["hello", "hi", "hey", "thanks", "thank", "bye"]);
    r(Intent::ChatOnly, if small_talk { 0.4 } else { 0.3 }, false, Risk::Read)
}

/// The least risk an intent carries, whatever a model says.
fn least_risk(intent: Intent) -> Risk {
    match intent {
        Intent::DatasetAdmin => Risk::Destructive,
        // Whatever the tool does: its own risk decides about confirmation.
        Intent::FileImport | Intent::ExternalTool | Intent::Memory | Intent::DatasetEdit | Intent::AccountAdmin => {
            Risk::Write
        }
        Intent::ChatOnly
        | Intent::DatasetLookup
        | Intent::Preview
        | Intent::Query
        | Intent::Statistics
        | Intent::Search
        | Intent::FileBrowse
        | Intent::SystemStatus
        | Intent::RunLookup
        | Intent::Knowledge => Risk::Read,
    }
}

/// The model's routing answer, if it is one JSON object of the right shape with a confidence the
/// gate may act on; `None` means "keep the heuristic route".
pub fn parse_model_route(text: &str) -> Option<Route> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    let mut r: Route = serde_json::from_str(text.get(start..=end)?).ok()?;
    if !(CONFIDENT..=1.0).contains(&r.confidence) {
        return None;
    }
    r.risk = r.risk.max(least_risk(r.intent));
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_route_counts_only_when_well_formed_and_confident() {
        let r = parse_model_route(
            "Sure: {\"intent\": \"dataset_admin\", \"needs_dataset\": true, \"risk\": \"read\", \"confidence\": 0.8}",
        )
        .unwrap();
        assert_eq!((r.intent, r.risk), (Intent::DatasetAdmin, Risk::Destructive), "risk is never below the intent's");
        for bad in [
            "no json here",
            "{\"intent\": \"query\", \"needs_dataset\": true, \"risk\": \"read\", \"confidence\": 0.2}",
            "{\"intent\": \"nuke\", \"needs_dataset\": true, \"risk\": \"read\", \"confidence\": 0.9}",
            "{\"intent\": \"query\", \"confidence\": 0.9}",
            "{\"intent\": \"query\", \"needs_dataset\": true, \"risk\": \"read\", \"confidence\": 7}",
        ] {
            assert_eq!(parse_model_route(bad), None, "{bad}");
        }
    }

    #[test]
    fn questions_about_documents_are_knowledge_and_folders_are_still_folders() {
        for q in [
            "what does the handbook say about refunds?",
            "According to our docs, how long does shipping take?",
            "what do my documents say about parental leave",
        ] {
            assert_eq!(route(q).intent, Intent::Knowledge, "{q}");
        }
        assert_eq!(route("what is in my documents folder?").intent, Intent::FileBrowse);
        assert_eq!(route("what csv files are in downloads?").intent, Intent::FileBrowse);
        assert_eq!(route("what's on my desktop?").intent, Intent::FileBrowse);
        assert_eq!(route("average number of pages viewed on desktop").intent, Intent::Query);
        assert_eq!(route("average price by neighbourhood").intent, Intent::Query);
    }

    #[test]
    fn only_an_imperative_with_an_object_is_a_delete() {
        for q in [
            "delete the cities dataset",
            "please remove customer_churn",
            "can you drop the sales table",
            "Delete my file churn.csv",
            "go ahead and wipe the support tickets data",
        ] {
            let r = route(q);
            assert_eq!((r.intent, r.confidence >= CONFIDENT), (Intent::DatasetAdmin, true), "{q}");
        }
        // A name the router cannot tell from other words: a guess the gate does not act on.
        let r = route("delete churn");
        assert_eq!((r.intent, r.confidence < CONFIDENT), (Intent::DatasetAdmin, true));
        for q in [
            "did sales drop in June?",
            "why did sales drop in June compared with May?",
            "which months saw consumption drop",
            "average score if we drop the F grades",
            "how many students dropped out",
            "excluding the ones that were removed, what is the total",
        ] {
            assert_ne!(route(q).intent, Intent::DatasetAdmin, "{q}");
        }
        assert_eq!(
            destructive_request("remove the visits with a wait over 150 minutes and recompute the average fee"),
            None
        );
        assert_eq!(
            destructive_request("remove outliers and recompute the average"),
            Some((Object::Unclear, "outliers".to_owned()))
        );
        // Rows taken out of a named dataset are a filter, not a delete of it.
        assert_eq!(
            destructive_request("remove the outliers from sales_orders and give the average"),
            Some((Object::Unclear, "outliers".to_owned()))
        );
    }

    #[test]
    fn small_talk_and_gibberish_are_not_confident_requests() {
        assert_eq!(route("hello there").intent, Intent::ChatOnly);
        assert!(route("hello there").confidence < CONFIDENT);
        assert!(route("zxq blorp").confidence < CONFIDENT);
    }
}
