//! [`OfflinePlanner`], the `LanguageModel` used when no provider is configured: deterministic,
//! no network. A question about the data's values is read against the user's datasets
//! ([`crate::reading`]) into a typed plan for `execute_query_plan`; other requests (list, preview,
//! profile, search, delete, folders, status) map to their tools. After the tools ran, the answer
//! is written from what the person was shown.

mod reply;
mod requests;

use requests::{files, only_names_a_dataset, search_query, target};

use crate::lexicon::Lexicon;
use crate::meaning::Meanings;
use crate::reading::{self, Reading, Unread};
use crate::tools_talk;
use crate::turns::{ask, call, failed, named_dataset, not_understood, refused, text};
use async_trait::async_trait;
use aware_core::Result;
use aware_core::memory::{Explicit, explicit_request};
use aware_core::runs::router::{Intent, Object, destructive_request, route, run_id_in, words};
use aware_core::runs::tools::ToolName;
use aware_core::runs::tools::ask::rules_in;
use aware_domain::dataset::{Dataset, DatasetStatus};
use aware_domain::events::ClarificationKind;
use aware_domain::ports::categories::Categories;
use aware_domain::ports::model::{
    LanguageModel, Message, ModelRequest, ModelToolCall, ModelTurn, RunContext, phrase_deltas,
};
use aware_domain::run::Usage;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

const HELP: &str = "I can list your datasets, show or profile one, count, sum, average, rank and compare their rows \
                    with conditions and groups (try “which neighbourhood is most expensive?” or “how many customers \
                    churned?”), search their text (try “search for login problems”), report the system status, and \
                    delete a dataset after you approve it. I cannot do that one yet: try rephrasing it along those lines.";

/// The offline planner.
pub struct OfflinePlanner {
    categories: Arc<dyn Categories>,
    /// Links words the lexicon does not know by meaning (with the local embedding model).
    meanings: Option<Meanings>,
}

impl OfflinePlanner {
    /// A planner that reads categorical values ("Gràcia", "premium") through `categories`.
    pub fn new(categories: Arc<dyn Categories>) -> Self {
        Self { categories, meanings: None }
    }

    /// The same planner, linking unknown words to columns by meaning too.
    pub fn with_meanings(self, meanings: Meanings) -> Self {
        Self { meanings: Some(meanings), ..self }
    }

    pub(crate) async fn lexicon(&self, d: &Dataset, context: &RunContext) -> Lexicon {
        // Without its values a dataset is still read by its names; a value then goes unread and
        // the question is refused rather than answered without it.
        let categories = self.categories.categories(d).await.unwrap_or_default();
        let mut lex = Lexicon::new(d, &categories);
        // What the person taught: "revenue means amount_usd".
        lex.add_memories(&context.memories);
        lex
    }

    /// The dataset a data question is about: the one it names, else the one whose columns and
    /// values it uses most (the open one on a tie), else the open one, else the thread's last
    /// one (`fallback`), else the only one.
    async fn choose(
        &self,
        question: &str,
        context: &RunContext,
        fallback: Option<&str>,
    ) -> std::result::Result<Option<Lexicon>, Unread> {
        // Documents are read through their passages, never as rows to compute over.
        let ready: Vec<&Dataset> =
            context.datasets.iter().filter(|d| d.status == DatasetStatus::Ready && !d.format.is_document()).collect();
        let mut scored = Vec::new();
        for d in ready {
            let lex = self.lexicon(d, context).await;
            let (covered, named) = reading::coverage(question, &lex);
            scored.push((named, covered, lex));
        }
        let active = |l: &Lexicon| l.dataset.id.as_str() == context.active_dataset_id;
        let last = |l: &Lexicon| fallback == Some(l.dataset.table_name.as_str());
        // The dataset on screen is meant when the question's words fit it, unless another
        // is named outright.
        if !scored.iter().any(|(named, _, l)| *named && !active(l))
            && let Some(i) = scored.iter().position(|(_, covered, l)| active(l) && *covered > 0)
        {
            return Ok(Some(scored.swap_remove(i).2));
        }
        let best = scored.iter().map(|(n, c, _)| (*n, *c)).max().unwrap_or((false, 0));
        if best == (false, 0) {
            let open = scored.iter().position(|(_, _, l)| active(l));
            let pick = open
                .or_else(|| scored.iter().position(|(_, _, l)| last(l)))
                .or_else(|| (scored.len() == 1).then_some(0));
            return Ok(pick.map(|i| scored.swap_remove(i).2));
        }
        let tied: Vec<usize> = (0..scored.len()).filter(|&i| (scored[i].0, scored[i].1) == best).collect();
        match tied.as_slice() {
            [one] => Ok(Some(scored.swap_remove(*one).2)),
            many => match many
                .iter()
                .find(|&&i| active(&scored[i].2))
                .or_else(|| many.iter().find(|&&i| last(&scored[i].2)))
            {
                Some(&i) => Ok(Some(scored.swap_remove(i).2)),
                None => {
                    let names: Vec<String> = many.iter().map(|&i| scored[i].2.dataset.table_name.clone()).collect();
                    Err(Unread::Ask(format!(
                        "Which dataset do you mean: {}? Name it in the question, or open it first.",
                        reading::or_list(&names)
                    )))
                }
            },
        }
    }

    /// Whether `question`, asked alone, reads into a plan over `lex`'s dataset.
    pub(crate) async fn plans(&self, question: &str, lex: &Lexicon) -> bool {
        matches!(self.read_on(question, lex.clone(), &[]).await, Ok(Some(_)))
    }

    /// Whether `question`, asked as a new thread's first among `context`'s datasets, reads into
    /// a plan over `dataset`.
    pub(crate) async fn plans_over(&self, question: &str, context: &RunContext, dataset: &Dataset) -> bool {
        matches!(self.data_question(question, context, &[], &[]).await, Ok(Some((lex, _))) if lex.dataset.id == dataset.id)
    }

    /// Whether `next`, asked after a question read as `previous`, reads into a plan: as a
    /// follow-up when it sounds like one ("and by month?"), else alone.
    pub(crate) async fn follows(&self, next: &str, lex: &Lexicon, previous: &Reading) -> bool {
        if !reading::sounds_like_followup(next) {
            return self.plans(next, lex).await;
        }
        let mut lex = lex.clone();
        self.add_spans(next, &mut lex).await;
        reading::read_followup(next, &lex, chrono::Utc::now().date_naive(), previous).is_ok()
    }

    /// "in March", "Q3", "over 2024": the data's own years decide a period written without one.
    async fn add_spans(&self, question: &str, lex: &mut Lexicon) {
        if !lex.dates().is_empty()
            && reading::names_a_period(question)
            && let Ok(Some(profile)) = self.categories.profile(&lex.dataset).await
        {
            lex.add_spans(&profile);
        }
    }

    /// `question` read against `lex`, with the rules this run's person chose first.
    async fn read_on(
        &self,
        question: &str,
        mut lex: Lexicon,
        rules: &[(String, String)],
    ) -> std::result::Result<Option<(Lexicon, Reading)>, Unread> {
        self.add_spans(question, &mut lex).await;
        // What the person chose in this run comes before the rules the dataset keeps.
        let kept = std::mem::take(&mut lex.rules);
        lex.add_rules(rules);
        lex.rules.extend(kept);
        lex.add_arithmetic(question);
        if let Some(meanings) = &self.meanings {
            meanings.link(question, &mut lex).await?;
        }
        match reading::read(question, &lex, chrono::Utc::now().date_naive()) {
            Ok(r) => Ok(Some((lex, r))),
            Err(Unread::NotData) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// A question about the data's values, read into a plan — on its own, as a follow-up to the
    /// thread's last question ("and by month?"), or as the answer to the question back the last
    /// turn asked ("sales_orders" after "which dataset do you mean?"). `None`: not such a question.
    async fn data_question(
        &self,
        question: &str,
        context: &RunContext,
        rules: &[(String, String)],
        history: &[Turn],
    ) -> std::result::Result<Option<(Lexicon, Reading)>, Unread> {
        if let Some((last, earlier)) = history.split_last()
            && last.asked_back
            && let Some(resumed) = self.resume(question, last, earlier, context, rules).await
        {
            return resumed;
        }
        let fallback = history.iter().rev().find_map(|t| t.dataset.as_deref());
        let alone = match self.choose(question, context, fallback).await {
            Ok(Some(lex)) => self.read_on(question, lex, rules).await,
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        let sounds = reading::sounds_like_followup(question);
        // A bare list of rows ("only for laptops" read alone) is what a follow-up looks like too.
        let weak = !matches!(&alone, Ok(Some((_, r))) if r.ask != reading::Ask::Rows(None));
        if (sounds || weak)
            && let Some((mut lex, prev)) = self.previous(context, rules, history).await
        {
            self.add_spans(question, &mut lex).await;
            match reading::read_followup(question, &lex, chrono::Utc::now().date_naive(), &prev) {
                Ok(r) => return Ok(Some((lex, r))),
                Err(e) if sounds && !matches!(alone, Ok(Some(_))) => return Err(e),
                Err(_) => {}
            }
        }
        alone
    }

    /// The reading of the thread's last question that ran a plan.
    async fn previous(
        &self,
        context: &RunContext,
        rules: &[(String, String)],
        history: &[Turn],
    ) -> Option<(Lexicon, Reading)> {
        let k = history.iter().rposition(|t| t.dataset.is_some())?;
        let earlier = &history[..k];
        Box::pin(self.data_question(&history[k].question, context, rules, earlier)).await.ok().flatten()
    }

    /// The question the last turn asked back, answered by `reply`: a dataset's name reads that
    /// question against it; a few words ("2024", "by revenue") complete it.
    async fn resume(
        &self,
        reply: &str,
        last: &Turn,
        earlier: &[Turn],
        context: &RunContext,
        rules: &[(String, String)],
    ) -> Option<std::result::Result<Option<(Lexicon, Reading)>, Unread>> {
        // A reply is a few words ("sales_orders", "the shipments one", "2024"); a question of
        // its own is read as one.
        if words(reply).len() > 5 || reply.contains('?') {
            return None;
        }
        if let Some(d) = named_dataset(reply, &context.datasets)
            && d.status == DatasetStatus::Ready
            && !d.format.is_document()
        {
            let lex = self.lexicon(d, context).await;
            return Some(self.read_on(&last.question, lex, rules).await);
        }
        let joined = format!("{} {}", last.question.trim_end_matches(['?', '.', '!']), reply);
        match Box::pin(self.data_question(&joined, context, rules, earlier)).await {
            Ok(Some(found)) => Some(Ok(Some(found))),
            _ => None,
        }
    }

    async fn plan(&self, request: &ModelRequest<'_>) -> ModelTurn {
        let allowed = |tool: ToolName| request.tools.iter().any(|t| t.name == tool.as_str());
        // After tools ran: answer from what they showed.
        let run_tail: Vec<&Message> =
            request.messages.iter().rev().take_while(|m| !matches!(m, Message::User { .. })).collect();
        if let Some(turn) = self.after_tools(request, &run_tail).await {
            return turn;
        }
        let question = match request.messages.last() {
            Some(Message::User { text }) => text.clone(),
            _ => String::new(),
        };
        let said = words(&question);
        let has = |w: &[&str]| said.iter().any(|s| w.contains(&s.as_str()));
        let intent = route(&question).intent;
        let context = request.context;
        if intent == Intent::ExternalTool
            && let Some(turn) = tools_talk::call_named(request, &question)
        {
            return turn;
        }
        if tools_talk::asks_for_tools(&said) {
            return tools_talk::list(request);
        }
        // Memory in so many words: a "remember that …" is stored by the run's post-hook once this
        // answer is done; forgetting asks the person first.
        match explicit_request(&question) {
            Some(Explicit::Remember(fact)) => {
                return text(format!("I'll remember that {fact}. Say \"forget that …\" or open Memory to remove it."));
            }
            Some(Explicit::Forget(fact)) if allowed(ToolName::ForgetMemory) => {
                return call(ToolName::ForgetMemory, serde_json::json!({ "fact": fact }));
            }
            Some(Explicit::Forget(_)) | None => {}
        }
        if matches!(intent, Intent::DatasetEdit | Intent::AccountAdmin)
            && let Some(turn) = crate::edits::plan(request, &question, intent)
        {
            return turn;
        }
        if let Some(turn) = delete(request, &question, intent, &allowed) {
            return turn;
        }
        if let Some(turn) = files(request, &question, intent, &allowed) {
            return turn;
        }
        if let Some(turn) = look_up(request, &question, intent, &allowed) {
            return turn;
        }
        if let Some(turn) = self.data_turn(request, &question, intent, &allowed).await {
            return turn;
        }
        if let Some(turn) = about_datasets(context, &question, intent, &allowed, &has) {
            return turn;
        }
        not_understood(HELP.to_owned())
    }

    /// The turn after tools ran: the question read again with the person's answer to a question
    /// back, else the answer from what the tools showed; none before any tool ran.
    async fn after_tools(&self, request: &ModelRequest<'_>, run_tail: &[&Message]) -> Option<ModelTurn> {
        // A person answered a question back: the question is read again with their choice.
        if let Some(Message::Tool { name, is_error: false, .. }) = run_tail.first()
            && ToolName::parse(name) == Some(ToolName::AskUser)
        {
            let question = last_question(request);
            return Some(
                match self.data_question(&question, request.context, &run_rules(run_tail), &history(request)).await {
                    Ok(Some((lex, r))) => call(ToolName::ExecuteQueryPlan, reading::plan_json(&lex, &r)),
                    Err(Unread::Choose(c)) => ask_user(&c),
                    Err(u) => unread(u),
                    Ok(None) => not_understood(HELP.to_owned()),
                },
            );
        }
        if let Some(Message::Tool { .. }) = run_tail.first() {
            let (said, follow_ups) = self.answer(request, run_tail).await;
            // Telling that every call failed is no answer: the run failed.
            let all_failed = run_tail.iter().all(|m| !matches!(m, Message::Tool { is_error: false, .. }));
            return Some(if all_failed { failed(said) } else { ModelTurn { follow_ups, ..text(said) } });
        }
        None
    }

    /// The turn for a question about the data's values, when the request may be one.
    async fn data_turn(
        &self,
        request: &ModelRequest<'_>,
        question: &str,
        intent: Intent,
        allowed: &(dyn Fn(ToolName) -> bool + Sync),
    ) -> Option<ModelTurn> {
        let context = request.context;
        // A question about the data's values: a plan, a question back, or what was not understood.
        if matches!(intent, Intent::Query | Intent::ChatOnly | Intent::DatasetLookup | Intent::Preview)
            || intent == Intent::DatasetAdmin
        {
            match self.data_question(question, context, &[], &history(request)).await {
                Ok(Some((lex, r))) if allowed(ToolName::ExecuteQueryPlan) => {
                    return Some(call(ToolName::ExecuteQueryPlan, reading::plan_json(&lex, &r)));
                }
                Ok(Some(_)) => {
                    return Some(refused(
                        "That needs a query, and queries are not available to you for this request.".into(),
                    ));
                }
                Err(Unread::Choose(c)) if allowed(ToolName::AskUser) => return Some(ask_user(&c)),
                Err(Unread::NotData) | Ok(None) => {}
                Err(u) => return Some(unread(u)),
            }
            if intent == Intent::Query {
                // Only what a query can read: a dataset that failed to load, or a document, is
                // no answer to "which dataset?".
                let names: Vec<&str> = context
                    .datasets
                    .iter()
                    .filter(|d| d.status == DatasetStatus::Ready && !d.format.is_document())
                    .map(|d| d.table_name.as_str())
                    .collect();
                return Some(if names.is_empty() {
                    not_understood("You have no datasets yet: upload one and ask again.".to_owned())
                } else {
                    ask(format!("Which dataset is that about? You have: {}.", names.join(", ")))
                });
            }
        }
        None
    }
}

/// The delete a request asks for, of the dataset it names, or a question back about which.
fn delete(
    request: &ModelRequest<'_>,
    question: &str,
    intent: Intent,
    allowed: &dyn Fn(ToolName) -> bool,
) -> Option<ModelTurn> {
    let context = request.context;
    // A delete only of what its object names: "remove outliers and recompute the average"
    // names no dataset and is read as analysis below.
    let destroy = destructive_request(question).filter(|_| intent == Intent::DatasetAdmin);
    // A short order naming part of a dataset's name ("delete churn" beside `customer_churn`)
    // is asked about rather than read as analysis.
    let short_order = |words: &str| words.split_whitespace().count() <= 3 && question.split_whitespace().count() <= 6;
    if let Some((object, words)) = destroy
        && allowed(ToolName::DeleteDataset)
        && (object == Object::Named
            || only_names_a_dataset(&words, &context.datasets)
            || (short_order(&words) && named_dataset(&words, &context.datasets).is_some()))
    {
        let exact = object == Object::Named || only_names_a_dataset(&words, &context.datasets);
        return Some(match named_dataset(&words, &context.datasets).filter(|_| exact) {
            Some(d) => ModelTurn {
                text: format!("I will delete {} once you approve.", d.name),
                tool_calls: vec![ModelToolCall::new(
                    ToolName::DeleteDataset.as_str(),
                    json!({"dataset": d.table_name}),
                )],
                ..ModelTurn::default()
            },
            None => {
                let names: Vec<&str> = context.datasets.iter().map(|d| d.table_name.as_str()).collect();
                ask(format!("Which dataset should I delete? You have: {}.", names.join(", ")))
            }
        });
    }
    None
}

/// A search of the documents or the data, or a look-up of a run, the system's status or a
/// verified query, when the request asks for one.
fn look_up(
    request: &ModelRequest<'_>,
    question: &str,
    intent: Intent,
    allowed: &dyn Fn(ToolName) -> bool,
) -> Option<ModelTurn> {
    let context = request.context;
    if intent == Intent::Knowledge
        && allowed(ToolName::SearchKnowledge)
        && context.datasets.iter().any(|d| d.format.is_document())
    {
        let topic = crate::knowledge::topic(question);
        if topic.is_empty() {
            return Some(ask("What should I look up in your documents?".into()));
        }
        return Some(call(ToolName::SearchKnowledge, json!({"query": topic})));
    }
    if intent == Intent::Search && allowed(ToolName::SearchDatasets) {
        let query = search_query(question);
        if query.is_empty() {
            return Some(ask("What should I search for?".into()));
        }
        let mut args = json!({"query": query});
        if let Some(d) = named_dataset(question, &context.datasets)
            .filter(|d| !words(&query).iter().any(|w| d.table_name.contains(w.as_str())))
        {
            args["dataset"] = json!(d.table_name);
        }
        return Some(call(ToolName::SearchDatasets, args));
    }
    if let Some(run_id) = run_id_in(question).filter(|_| intent == Intent::RunLookup)
        && allowed(ToolName::GetRunStatus)
    {
        return Some(call(ToolName::GetRunStatus, json!({"run_id": run_id})));
    }
    if intent == Intent::SystemStatus && allowed(ToolName::GetSystemStatus) {
        return Some(call(ToolName::GetSystemStatus, json!({})));
    }
    // A question the user keeps a verified query for is answered with exactly that query.
    if let Some(verified) = context.verified_queries.first()
        && allowed(ToolName::RunSqlQuery)
    {
        return Some(call(ToolName::RunSqlQuery, json!({"verified_query": verified.id.as_str()})));
    }
    None
}

/// A dataset's statistics, columns or rows, what is on screen, or the list of datasets, when
/// the request asks for them.
fn about_datasets(
    context: &RunContext,
    question: &str,
    intent: Intent,
    allowed: &dyn Fn(ToolName) -> bool,
    has: &dyn Fn(&[&str]) -> bool,
) -> Option<ModelTurn> {
    if intent == Intent::Statistics
        && let Some(d) = target(question, context)
        && allowed(ToolName::GetDatasetStatistics)
    {
        return Some(call(ToolName::GetDatasetStatistics, json!({"dataset": d.table_name})));
    }
    if intent == Intent::DatasetLookup
        && has(&["columns", "schema", "fields", "structure"])
        && let Some(d) = target(question, context)
        && allowed(ToolName::GetDatasetDetail)
    {
        return Some(call(ToolName::GetDatasetDetail, json!({"dataset": d.table_name})));
    }
    if intent == Intent::Preview
        && let Some(d) = named_dataset(question, &context.datasets).or_else(|| target(question, context))
        && allowed(ToolName::PreviewRows)
    {
        return Some(call(ToolName::PreviewRows, json!({"dataset": d.table_name, "limit": 10})));
    }
    // About what is on screen: the dataset the user has open, else the page they are on.
    if intent == Intent::DatasetLookup && has(&["looking", "this", "here", "screen", "page"]) {
        let open = context.datasets.iter().find(|d| d.id.as_str() == context.active_dataset_id);
        if let Some(d) = open.filter(|_| allowed(ToolName::GetDatasetDetail)) {
            return Some(call(ToolName::GetDatasetDetail, json!({"dataset": d.table_name})));
        }
        if !context.current_route.is_empty() {
            return Some(ask(format!(
                "You are on the page {} and have no dataset open. Open one and ask again, or ask \"what are my files?\".",
                context.current_route
            )));
        }
    }
    if intent == Intent::DatasetLookup && allowed(ToolName::ListDatasets) {
        return Some(call(ToolName::ListDatasets, json!({})));
    }
    None
}

/// An earlier turn of the thread, as the planner reads it back.
#[derive(Clone, Debug)]
pub(super) struct Turn {
    question: String,
    /// The dataset its plan ran over (`None`: it ran none).
    dataset: Option<String>,
    /// It ended on a question back ("Which dataset do you mean …?").
    asked_back: bool,
}

/// The thread's turns before this run's question, oldest first (at most the last eight).
pub(super) fn history(request: &ModelRequest<'_>) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    for m in request.messages {
        match m {
            Message::User { text } => {
                turns.push(Turn { question: text.clone(), dataset: None, asked_back: false });
            }
            Message::Assistant { tool_calls, text } => {
                let Some(turn) = turns.last_mut() else { continue };
                if let Some(c) = tool_calls.iter().find(|c| c.name == ToolName::ExecuteQueryPlan.as_str()) {
                    turn.dataset = c.arguments.get("dataset").and_then(Value::as_str).map(str::to_owned);
                }
                if tool_calls.is_empty() {
                    // A question back, not an answer that quotes one ("try “… ?”").
                    let asked = text.trim_end().ends_with('?')
                        || ["Which dataset", "of which year?", "Which one do you mean?", "Which measure:"]
                            .iter()
                            .any(|q| text.contains(q));
                    turn.asked_back = turn.dataset.is_none() && asked;
                }
            }
            Message::Tool { .. } => {}
        }
    }
    // The last user message is this run's own question.
    turns.pop();
    let keep = turns.len().saturating_sub(8);
    turns.split_off(keep)
}

/// The question back, as an `ask_user` call.
fn ask_user(c: &reading::Choice) -> ModelTurn {
    let kind = match c.kind {
        ClarificationKind::Column => "column",
        ClarificationKind::Value => "value",
        ClarificationKind::TimeRange => "time_range",
    };
    let mut args = json!({
        "dataset": c.dataset, "kind": kind, "question": c.question, "phrase": c.phrase, "options": c.columns,
    });
    if let Some(v) = &c.value {
        args["value"] = json!(v);
    }
    call(ToolName::AskUser, args)
}

/// What the person chose in this run's questions back (each result says “phrase” means column).
pub(super) fn run_rules(run_tail: &[&Message]) -> Vec<(String, String)> {
    run_tail
        .iter()
        .filter_map(|m| match m {
            Message::Tool { name, content, is_error: false, .. }
                if ToolName::parse(name) == Some(ToolName::AskUser) =>
            {
                Some(rules_in(content))
            }
            Message::User { .. } | Message::Assistant { .. } | Message::Tool { .. } => None,
        })
        .flatten()
        .collect()
}

/// The run's question: the last message the person sent.
pub(super) fn last_question(request: &ModelRequest<'_>) -> String {
    request
        .messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::User { text } => Some(text.clone()),
            Message::Assistant { .. } | Message::Tool { .. } => None,
        })
        .unwrap_or_default()
}

/// What a reading that did not become a plan says: a question back, or what was not understood.
fn unread(u: Unread) -> ModelTurn {
    match u {
        Unread::Ask(q) => ask(q),
        Unread::Choose(c) => ask(c.in_words()),
        Unread::Refuse(q) => not_understood(q),
        Unread::NotData => not_understood(HELP.to_owned()),
    }
}

#[async_trait]
impl LanguageModel for OfflinePlanner {
    fn name(&self) -> &str {
        "offline-planner"
    }

    async fn complete(&self, request: ModelRequest<'_>, deltas: UnboundedSender<String>) -> Result<ModelTurn> {
        let turn = self.plan(&request).await;
        for d in phrase_deltas(&turn.text) {
            let _ = deltas.send(d);
        }
        // No model was called: the run's usage stays at zero.
        Ok(ModelTurn { usage: Usage::default(), ..turn })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::tests::dataset as with_columns;

    fn dataset(name: &str, table: &str) -> Dataset {
        Dataset { name: name.to_owned(), ..with_columns(table, &[]) }
    }

    #[test]
    fn the_longest_fully_named_dataset_wins() {
        let ds = [dataset("churn.csv", "churn"), dataset("customer_churn.csv", "customer_churn")];
        assert_eq!(
            named_dataset("delete the customer churn dataset", &ds).map(|d| d.table_name.as_str()),
            Some("customer_churn")
        );
        assert_eq!(named_dataset("please remove churn", &ds).map(|d| d.table_name.as_str()), Some("churn"));
        assert!(named_dataset("delete the apartments", &ds).is_none());
        let ds = [dataset("barcelona_apartments.csv", "barcelona_apartments")];
        assert_eq!(
            named_dataset("show me the apartment", &ds).map(|d| d.table_name.as_str()),
            Some("barcelona_apartments")
        );
    }
}
