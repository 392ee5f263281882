//! The driver of one run: the agent loop, re-entrant from durable state. Every step is derived
//! from what is stored (transcript, tool-call rows, confirmations, the event log), so after a
//! crash the same function continues the run without repeating a side effect.

//!
//! Its parts: this file (loading a run, the loop, emitting events), `model_turn.rs`,
//! `tool_step.rs` (one tool call as explicit steps), `confirmation.rs`, `finish.rs`. A driver
//! reaches the rest of the server only through [`Deps`].

use super::admission::Live;
use super::client_call::ClientToolCall;
use super::config::EngineConfig;
use super::router::{Route, route};
use super::services::Services;
use super::tools::ToolContext;
use crate::policy::Policy;
use crate::{Error, Result};
use aware_domain::auth::{Caller, Principal, Source};
use aware_domain::events::{EventPayload, Resolution, RichResult, RunEvent, RunPhase, ToolListing};
use aware_domain::ids::{RunId, ThreadId, ToolCallId};
use aware_domain::ports::fleet::{Fleet, Signal};
use aware_domain::ports::model::{LanguageModel, Message, RunContext, ToolCallRequest};
use aware_domain::ports::run_log::{ChatRun, Lease, RunLog, SpanRecord};
use aware_domain::run::ToolPhase;
use aware_domain::run::{RunKind, RunStatus, Usage};
use chrono::{DateTime, Utc};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tracing::Instrument;

mod confirmation;
mod finish;
mod model_turn;
mod post_hooks;
mod text_stream;
mod tool_step;

/// How a person approved a call: with narrowed arguments, or through a session grant.
struct Approval {
    edited: Option<serde_json::Value>,
    grant: Option<aware_domain::ids::GrantId>,
}

/// Why the loop stopped early.
enum Stop {
    Cancelled,
    Failed(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Self::Failed(e)
    }
}

/// What a driver needs: the run log, the model, the policy gate, the services tools act through
/// and the limits of runs; and the replica it runs on (its name, its feed of signals, the other
/// replicas). Built once by the engine; shared by every run.
pub(crate) struct Deps {
    pub log: Arc<dyn RunLog>,
    pub model: Arc<dyn LanguageModel>,
    pub policy: Policy,
    pub services: Services,
    pub config: EngineConfig,
    pub fleet: Arc<dyn Fleet>,
    pub feed: tokio::sync::broadcast::Sender<Signal>,
    pub replica: String,
}

impl Deps {
    /// A lease of this replica from now.
    pub(crate) fn lease(&self) -> Lease {
        let ttl = chrono::Duration::from_std(self.config.lease_ttl).unwrap_or(chrono::Duration::seconds(15));
        Lease { replica: self.replica.clone(), until: Utc::now() + ttl }
    }
}

struct Driver {
    deps: Arc<Deps>,
    live: Arc<Live>,
    run: ChatRun,
    thread_id: ThreadId,
    ctx: ToolContext,
    last_seq: u64,
    iteration: u32,
    usage: Usage,
    messages: Vec<Message>,
    /// Keys of events already in the log (for idempotent re-emission after a restart).
    emitted: HashSet<String>,
    open_text: Option<String>,
    run_span: String,
    started: DateTime<Utc>,
    /// The router's reading of the question (pure, so a restart reads it the same way).
    route: Route,
    /// The rich results this run's tools produced (restored from the tool-call rows after a
    /// restart), for models that run in process.
    shown: Arc<Vec<(ToolCallId, RichResult)>>,
    /// How this run's approved calls were approved (for their results and audit entries).
    approvals: HashMap<ToolCallId, Approval>,
    /// The run was driven before this driver (its log and tool-call rows hold earlier steps).
    restored: bool,
    /// The tool calls this driver stored a row for.
    recorded: HashSet<ToolCallId>,
    /// The run's successful tool results and retrievals in log order, restored and then kept as
    /// they are emitted: what grounding checks the answer against, without reading the log back.
    evidence: Vec<Arc<RunEvent>>,
    /// The publisher of text deltas queued without waiting (started by the first).
    text_stream: Option<text_stream::TextStream>,
    /// What the last model turn said its text is (an answer, a question back, …), if it said.
    stance: Option<aware_domain::run::RunOutcome>,
    /// The questions the last model turn offers next.
    follow_ups: Vec<String>,
    /// How the run's last question to a person was resolved, and whether it was a question back
    /// (a clarification) rather than a confirmation; restored from the log after a restart.
    last_gate: Option<(Resolution, bool)>,
    /// The policy refused a call for who the person is (their role, their key, the
    /// environment's scopes); restored from the log after a restart.
    refused_by_policy: bool,
}

/// How a confirmation (false) or a clarification (true) was resolved, if `p` resolves one.
fn gate_resolution(p: &EventPayload) -> Option<(Resolution, bool)> {
    if let EventPayload::ConfirmationResolved { resolution, .. } = p {
        return Some((*resolution, false));
    }
    if let EventPayload::ClarificationResolved { resolution, .. } = p {
        return Some((*resolution, true));
    }
    None
}

/// Whether `p` is a call the policy refused for who the person is, not for what was asked.
fn refused_for_who(p: &EventPayload) -> bool {
    const FOR_WHO: [&str; 5] =
        ["role_not_allowed", "user_deactivated", "key_revoked", "scope_not_allowed_environment", "scope_not_mapped"];
    matches!(p, EventPayload::ToolDenied { code, .. } if FOR_WHO.contains(&code.as_str()))
}

/// Whether grounding needs this event: a tool result that holds data, or a retrieval.
fn is_evidence(p: &EventPayload) -> bool {
    matches!(p, EventPayload::ToolResult { is_error: false, .. } | EventPayload::RetrievalCompleted { .. })
}

fn key(kind: &str, id: &str) -> String {
    format!("{kind}:{id}")
}

fn event_key(p: &EventPayload) -> Option<String> {
    Some(match p {
        EventPayload::ToolCallStarted { tool_call_id, .. } => key("started", tool_call_id.as_str()),
        EventPayload::ToolResult { tool_call_id, .. } => key("result", tool_call_id.as_str()),
        EventPayload::ToolDenied { tool_call_id, .. } => key("result", tool_call_id.as_str()),
        EventPayload::ConfirmationRequired { confirmation_id, .. } => key("required", confirmation_id.as_str()),
        EventPayload::ConfirmationResolved { confirmation_id, .. } => key("resolved", confirmation_id.as_str()),
        EventPayload::ClarificationRequired { clarification_id, .. } => key("required", clarification_id.as_str()),
        EventPayload::ClarificationResolved { clarification_id, .. } => key("resolved", clarification_id.as_str()),
        EventPayload::MemorySaved { memory_id, .. } => key("saved", memory_id.as_str()),
        EventPayload::MemoryForgotten { memory_id, .. } => key("forgot", memory_id.as_str()),
        EventPayload::Grounding { .. } => "grounding".to_owned(),
        EventPayload::RetrievalCompleted { tool_call_id, .. } => key("retrieved", tool_call_id.as_str()),
        EventPayload::ToolStatus { tool_call_id, phase: ToolPhase::Running, .. } => {
            key("running", tool_call_id.as_str())
        }
        EventPayload::ToolStatus { tool_call_id, phase: ToolPhase::AwaitingConfirmation, .. } => {
            key("awaiting", tool_call_id.as_str())
        }
        // Events a restarted run emits again only if they were not stored (text is streamed
        // anew; run start and end are emitted once by construction).
        EventPayload::ToolStatus { .. }
        | EventPayload::RunStarted { .. }
        | EventPayload::TextStarted { .. }
        | EventPayload::TextDelta { .. }
        | EventPayload::TextEnded { .. }
        | EventPayload::RoutingDecided { .. }
        | EventPayload::RunCompleted { .. } => return None,
    })
}

/// Drives a run to its end inside `span` (its `user` and `thread` are filled in here).
/// `admitted`: the run as its admission stored it, never driven (no events, no transcript), so
/// nothing needs reading back or restoring; otherwise it is loaded. Returns the run's last event
/// (`RunCompleted`, already in the log) for the engine to publish once the thread is released;
/// `None` when the run was over already or could not be driven.
pub(crate) async fn drive(
    deps: Arc<Deps>,
    run_id: RunId,
    live: Arc<Live>,
    admitted: Option<ChatRun>,
    span: tracing::Span,
) -> Option<RunEvent> {
    let fresh = admitted.is_some();
    let run = match admitted {
        Some(run) => run,
        None => match deps.log.chat_run(&run_id).await {
            Ok(Some(run)) => run,
            Ok(None) => return None,
            Err(e) => {
                tracing::error!(run = %run_id, error = %e, "cannot load run");
                return None;
            }
        },
    };
    if run.record.status.is_terminal() {
        return None;
    }
    span.record("user", tracing::field::display(&run.record.owner));
    span.record("thread", run.record.thread_id.as_ref().map(ThreadId::as_str).unwrap_or_default());
    async move {
        let mut driver = match Driver::load(deps, live, run, fresh).await {
            Ok(d) => d,
            Err(e) => {
                tracing::error!(error = %e, "cannot restore run");
                return None;
            }
        };
        let outcome = driver.run_loop().await;
        driver.finish(outcome).await.inspect_err(|e| tracing::error!(error = %e, "cannot finish run")).ok()
    }
    .instrument(span)
    .await
}

impl Driver {
    async fn load(deps: Arc<Deps>, live: Arc<Live>, run: ChatRun, fresh: bool) -> Result<Self> {
        let id = run.record.id.clone();
        let events = if fresh { Vec::new() } else { deps.log.events(&id, 0, u32::MAX).await? };
        let mut emitted = HashSet::new();
        let mut open_text = None;
        let mut iteration = 0;
        let mut last_gate = None;
        let mut refused_by_policy = false;
        for e in &events {
            iteration = e.iteration;
            last_gate = gate_resolution(&e.payload).or(last_gate);
            refused_by_policy |= refused_for_who(&e.payload);
            if let Some(k) = event_key(&e.payload) {
                emitted.insert(k);
            }
            if let EventPayload::TextStarted { message_id } = &e.payload {
                open_text = Some(message_id.clone());
            } else if let EventPayload::TextEnded { .. } = &e.payload {
                open_text = None;
            }
        }
        let last_seq = events.last().map_or(0, |e| e.seq);
        live.last_seq.store(last_seq, Ordering::Relaxed);
        let evidence = events.into_iter().filter(|e| is_evidence(&e.payload)).map(Arc::new).collect();
        let messages = if fresh { Vec::new() } else { deps.log.messages(&id).await? };
        let shown = if fresh {
            Vec::new()
        } else {
            deps.log
                .tool_calls(&id)
                .await?
                .into_iter()
                .filter_map(|row| Some((row.id, serde_json::from_str(row.result_json.as_deref()?).ok()?)))
                .collect()
        };
        let principal =
            Principal { user_id: run.record.owner.clone(), name: String::new(), role: run.role, key: run.key.clone() };
        // A client's own call: the client chose the tool, so no reading of a question narrows
        // what it may call (the gate still checks role, mode and limits), and it acts as `mcp`.
        let (source, question_route) = if run.record.kind == RunKind::Tool {
            (Source::Mcp, Route::undecided())
        } else {
            (Source::AiAssistant, route(&run.record.question))
        };
        let ctx = ToolContext {
            caller: Caller { principal, source },
            services: deps.services.clone(),
            run_id: Some(run.record.id.clone()),
            approved: false,
        };
        let thread_id = run.record.thread_id.clone().unwrap_or_else(ThreadId::generate);
        Ok(Self {
            usage: run.record.usage,
            started: run.record.created_at,
            deps,
            live,
            run,
            thread_id,
            ctx,
            last_seq,
            iteration,
            messages,
            emitted,
            open_text,
            run_span: format!("run-{id}"),
            route: question_route,
            shown: Arc::new(shown),
            approvals: HashMap::new(),
            restored: !fresh,
            recorded: HashSet::new(),
            evidence,
            text_stream: None,
            stance: None,
            follow_ups: Vec::new(),
            last_gate,
            refused_by_policy,
        })
    }

    fn set_phase(&self, phase: RunPhase, confirmation_expires: Option<DateTime<Utc>>) {
        let mut s = self.live.state.lock().expect("live state");
        s.phase = phase;
        s.confirmation_expires = confirmation_expires;
    }

    fn cancel_reason(&self) -> Option<Resolution> {
        *self.live.cancel.borrow()
    }

    async fn cancelled(&self) {
        let mut rx = self.live.cancel.subscribe();
        let _ = rx.wait_for(Option::is_some).await;
    }

    fn next_event(&self, payload: EventPayload) -> RunEvent {
        RunEvent {
            run_id: self.run.record.id.clone(),
            seq: self.last_seq + 1,
            time: Utc::now(),
            iteration: self.iteration,
            thread_id: self.thread_id.clone(),
            payload,
        }
    }

    fn sent(&mut self, event: RunEvent) {
        self.last_seq = event.seq;
        self.last_gate = gate_resolution(&event.payload).or(self.last_gate);
        self.refused_by_policy |= refused_for_who(&event.payload);
        let event = Arc::new(event);
        if is_evidence(&event.payload) {
            self.evidence.push(event.clone());
        }
        self.live.publish(event);
    }

    /// Appends an event to the log, then fans it out. A text delta is queued instead
    /// (`text_stream.rs`); any other event waits for the deltas before it.
    async fn emit(&mut self, payload: EventPayload) -> Result<()> {
        if let EventPayload::TextDelta { .. } = payload {
            return self.stream_delta(payload).await;
        }
        self.flush().await?;
        if let Some(k) = event_key(&payload)
            && !self.emitted.insert(k)
        {
            return Ok(());
        }
        let event = self.next_event(payload);
        self.deps.log.append_event(&event.for_storage()).await?;
        self.sent(event);
        Ok(())
    }

    async fn push_message(&mut self, message: Message) -> Result<()> {
        self.store_message(&message).await?;
        self.messages.push(message);
        Ok(())
    }

    /// Stores `message` as the transcript's next one (the caller then pushes it).
    async fn store_message(&self, message: &Message) -> Result<()> {
        let idx = u32::try_from(self.messages.len()).unwrap_or(u32::MAX);
        self.deps.log.append_message(&self.run.record.id, idx, message).await
    }

    /// A span of this run, ending now.
    fn span_record(&self, kind: &str, name: &str, start: DateTime<Utc>, attributes: serde_json::Value) -> SpanRecord {
        SpanRecord {
            span_id: if kind == "run" {
                self.run_span.clone()
            } else {
                format!("{kind}-{}", uuid::Uuid::now_v7().simple())
            },
            parent_span_id: (kind != "run").then(|| self.run_span.clone()),
            kind: kind.to_owned(),
            name: name.to_owned(),
            start,
            end: Utc::now(),
            attributes: attributes.as_object().cloned().unwrap_or_default(),
        }
    }

    /// Stores a span; a span that cannot be stored is logged, never a reason to stop the run.
    async fn store_span(&self, span: &SpanRecord) {
        if let Err(e) = self.deps.log.insert_span(&self.run.record.id, span).await {
            tracing::warn!(error = %e, "cannot record a span");
        }
    }

    async fn span(&self, kind: &str, name: &str, start: DateTime<Utc>, attributes: serde_json::Value) {
        self.store_span(&self.span_record(kind, name, start, attributes)).await;
    }

    /// A run's first step: a new run sends `RunStarted` (stored with its start in one commit) and
    /// routes; a run driven again after a restart is marked running with the route it had.
    async fn start_or_resume(&mut self, version: u64) -> std::result::Result<(), Stop> {
        if self.last_seq == 0 {
            // RunStarted goes out first, stored with the run's start in one commit; the catalog
            // for the prompt is read after it.
            self.run.record.ui_state_version = version;
            let started = self.next_event(EventPayload::RunStarted {
                user_text: self.run.record.question.clone(),
                ui_state_version: version,
                max_iterations: self.deps.config.max_iterations,
                parent_run_id: self.run.record.parent_run_id.clone(),
                model: self.run.record.model.clone().unwrap_or_default(),
                client_msg_id: self.run.record.client_msg_id.clone().unwrap_or_default(),
                tools: self
                    .deps
                    .policy
                    .available(&self.ctx.caller)
                    .iter()
                    .map(|t| ToolListing {
                        name: t.meta().name.as_str().to_owned(),
                        title: t.meta().title.to_string(),
                        provenance: t.meta().provenance(),
                    })
                    .collect(),
            });
            self.deps.log.start_run(&started.for_storage(), version).await?;
            self.sent(started);
            if self.deps.config.llm_router && !self.is_tool_run() {
                self.refine_route().await?;
            }
            if !self.is_tool_run() {
                self.link_external_tools().await?;
            }
            if self.deps.config.debug_routing {
                self.emit(self.routing_decided()).await?;
            }
        } else {
            self.deps.log.set_run_status(&self.run.record.id, RunStatus::Running).await?;
            if let Some(json) = self.deps.log.run_route(&self.run.record.id).await? {
                self.route = serde_json::from_str(&json).unwrap_or_else(|_| self.route.clone());
            }
        }
        Ok(())
    }

    async fn run_loop(&mut self) -> std::result::Result<(), Stop> {
        let snapshot = self.deps.log.snapshot(&self.thread_id).await?.unwrap_or_default();
        self.start_or_resume(snapshot.ui_state_version).await?;
        if self.cancel_reason().is_some() {
            return Err(Stop::Cancelled);
        }
        let context = RunContext {
            current_route: snapshot.current_route,
            active_dataset_id: snapshot.active_dataset_id,
            ui_state_version: self.run.record.ui_state_version,
            // A catalog that cannot be read fails the run: told "no datasets", the model would
            // answer confidently wrong.
            datasets: self.deps.services.datasets.for_run(&self.ctx.caller).await?,
            file_roots: self.deps.services.files.root_names(),
            // A client's own tool call has no model to tell.
            memories: if self.is_tool_run() {
                Vec::new()
            } else {
                self.deps
                    .services
                    .memory
                    .for_prompt(&self.run.record.owner, &self.run.record.question)
                    .await
                    .inspect_err(|e| tracing::warn!(error = %e, "cannot read the user's memories"))
                    .unwrap_or_default()
            },
            verified_queries: if self.is_tool_run() {
                Vec::new()
            } else {
                self.deps
                    .services
                    .curation
                    .verified_for(&self.ctx.caller, &self.run.record.question)
                    .await
                    .inspect_err(|e| tracing::warn!(error = %e, "cannot read the user's saved queries"))
                    .unwrap_or_default()
                    .into_iter()
                    .collect()
            },
        };
        if let Some(id) = self.open_text.take() {
            // A model call was cut off by a restart: close its text before anything else.
            self.emit(EventPayload::TextEnded { message_id: id }).await?;
        }
        if self.messages.is_empty() {
            let text = self.run.record.question.clone();
            self.push_message(Message::User { text }).await?;
            if self.is_tool_run() {
                // The client's call stands where a model's turn would.
                let call = ClientToolCall::from_question(&self.run.record.question)?;
                self.iteration = 1;
                let request = ToolCallRequest {
                    id: ToolCallId::generate(),
                    provider_id: None,
                    name: call.tool,
                    arguments: call.arguments,
                };
                self.push_message(Message::Assistant { text: String::new(), tool_calls: vec![request] }).await?;
            }
        }
        let history =
            self.deps.log.thread_history(&self.thread_id, &self.run.record.id, self.deps.config.history_runs).await?;
        loop {
            let pending = self.unanswered_calls();
            if !pending.is_empty() {
                for call in pending {
                    let span = tracing::info_span!("tool_call", tool = %call.name, call_id = %call.id);
                    self.tool_call(call).instrument(span).await?;
                }
                continue;
            }
            match self.messages.last() {
                Some(Message::Assistant { .. }) => return Ok(()),
                // A tool run is over once its one call is answered: no model speaks.
                Some(_) if self.is_tool_run() => return Ok(()),
                _ => {
                    let turns = self.messages.iter().filter(|m| matches!(m, Message::Assistant { .. })).count();
                    if turns as u32 >= self.deps.config.max_iterations {
                        return Ok(());
                    }
                    self.iteration = turns as u32 + 1;
                    let mut all = history.clone();
                    all.extend(self.messages.iter().cloned());
                    let span = tracing::info_span!("model_call", provider = %self.deps.model.name(), turn = turns);
                    self.model_call(&all, &context, turns as u32).instrument(span).await?;
                }
            }
        }
    }

    /// A client's own call rather than a chat with the model.
    fn is_tool_run(&self) -> bool {
        self.run.record.kind == RunKind::Tool
    }

    /// Tool calls of the last assistant message that have no tool message yet.
    fn unanswered_calls(&self) -> Vec<ToolCallRequest> {
        let Some(pos) = self.messages.iter().rposition(|m| matches!(m, Message::Assistant { .. })) else {
            return Vec::new();
        };
        let Message::Assistant { tool_calls, .. } = &self.messages[pos] else { return Vec::new() };
        let answered: HashSet<&ToolCallId> = self.messages[pos..]
            .iter()
            .filter_map(|m| match m {
                Message::Tool { tool_call_id, .. } => Some(tool_call_id),
                Message::User { .. } | Message::Assistant { .. } => None,
            })
            .collect();
        tool_calls.iter().filter(|c| !answered.contains(&c.id)).cloned().collect()
    }
}
