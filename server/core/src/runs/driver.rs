//! The driver of one run: the agent loop, re-entrant from durable state. Every step is derived
//! from what is stored (transcript, tool-call rows, confirmations, the event log), so after a
//! crash the same function continues the run without repeating a side effect.

use super::engine::{Inner, Live};
use super::events::{EventPayload, Resolution, RichResult, RunEvent, RunPhase, ToolPhase};
use super::model::{Message, ModelRequest, RunContext, ToolCallRequest, estimate_tokens};
use super::router::{ROUTER_PROMPT, Route, parse_model_route, route};
use super::store::{ChatRun, Confirmation, SpanRecord, ToolCallRow};
use super::tools::{Tool, ToolContext, spec};
use crate::auth::{Caller, Principal, Source};
use crate::ids::{ConfirmationId, RunId, ThreadId, ToolCallId};
use crate::ports::AuditEntry;
use crate::run::{RunError, RunStatus, Usage};
use crate::{Error, ErrorCode, Result};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::sync::mpsc;
use tracing::Instrument;

pub(crate) const DENIED: &str = "Action denied by user.";
const EXPIRED: &str = "Action not taken: the confirmation expired before anyone approved it.";
const CANCELLED: &str = "Action not taken: the run was cancelled.";
const UNKNOWN_OUTCOME: &str = "Outcome unknown: the tool was interrupted by a server restart and was not run again.";

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

struct Driver {
    inner: Arc<Inner>,
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
        EventPayload::ToolStatus { tool_call_id, phase: ToolPhase::Running, .. } => {
            key("running", tool_call_id.as_str())
        }
        EventPayload::ToolStatus { tool_call_id, phase: ToolPhase::AwaitingConfirmation, .. } => {
            key("awaiting", tool_call_id.as_str())
        }
        _ => return None,
    })
}

/// Drives a run to its end inside `span` (its `user` and `thread` are filled in here). `fresh`:
/// the run was never driven (no events, no transcript), so nothing needs restoring.
pub(crate) async fn drive(inner: Arc<Inner>, run_id: RunId, live: Arc<Live>, fresh: bool, span: tracing::Span) {
    let run = match inner.log.chat_run(&run_id).await {
        Ok(Some(run)) => run,
        Ok(None) => return,
        Err(e) => {
            tracing::error!(run = %run_id, error = %e, "cannot load run");
            return;
        }
    };
    if run.record.status.is_terminal() {
        return;
    }
    span.record("user", tracing::field::display(&run.record.owner));
    span.record("thread", run.record.thread_id.as_ref().map(ThreadId::as_str).unwrap_or_default());
    async move {
        let mut driver = match Driver::load(inner, live, run, fresh).await {
            Ok(d) => d,
            Err(e) => {
                tracing::error!(error = %e, "cannot restore run");
                return;
            }
        };
        let outcome = driver.run_loop().await;
        if let Err(e) = driver.finish(outcome).await {
            tracing::error!(error = %e, "cannot finish run");
        }
    }
    .instrument(span)
    .await;
}

impl Driver {
    async fn load(inner: Arc<Inner>, live: Arc<Live>, run: ChatRun, fresh: bool) -> Result<Self> {
        let id = run.record.id.clone();
        let events = if fresh { Vec::new() } else { inner.log.events(&id, 0, u32::MAX).await? };
        let mut emitted = HashSet::new();
        let mut open_text = None;
        let mut iteration = 0;
        for e in &events {
            iteration = e.iteration;
            if let Some(k) = event_key(&e.payload) {
                emitted.insert(k);
            }
            match &e.payload {
                EventPayload::TextStarted { message_id } => open_text = Some(message_id.clone()),
                EventPayload::TextEnded { .. } => open_text = None,
                _ => {}
            }
        }
        let last_seq = events.last().map_or(0, |e| e.seq);
        live.last_seq.store(last_seq, Ordering::Relaxed);
        let messages = if fresh { Vec::new() } else { inner.log.messages(&id).await? };
        let shown = if fresh {
            Vec::new()
        } else {
            inner
                .log
                .tool_calls(&id)
                .await?
                .into_iter()
                .filter_map(|row| Some((row.id, serde_json::from_str(row.result_json.as_deref()?).ok()?)))
                .collect()
        };
        let principal = Principal { user_id: run.record.owner.clone(), name: String::new(), role: run.role };
        let ctx = ToolContext {
            caller: Caller { principal, source: Source::AiAssistant },
            datasets: inner.datasets.clone(),
            files: inner.files.clone(),
            query: inner.query.clone(),
            history: inner.history.clone(),
            system: inner.system.clone(),
            run_id: Some(run.record.id.clone()),
        };
        let thread_id = run.record.thread_id.clone().unwrap_or_else(ThreadId::generate);
        let question_route = route(&run.record.question);
        Ok(Self {
            usage: run.record.usage,
            started: run.record.created_at,
            inner,
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
        })
    }

    /// The router's output and the gate's decision, as an event.
    fn routing_decided(&self) -> EventPayload {
        let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_owned();
        let names = |tools: Vec<&Arc<dyn Tool>>| tools.iter().map(|t| t.meta().name.as_str().to_owned()).collect();
        let policy = &self.inner.policy;
        EventPayload::RoutingDecided {
            intent: name(serde_json::to_value(self.route.intent).unwrap_or_default()),
            confidence: self.route.confidence,
            risk: name(serde_json::to_value(self.route.risk).unwrap_or_default()),
            tools: names(policy.offered(&self.ctx.caller, &self.route)),
            withheld_tools: names(policy.withheld(&self.ctx.caller, &self.route)),
        }
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
        self.live.last_seq.store(event.seq, Ordering::Relaxed);
        let _ = self.live.tx.send(Arc::new(event));
    }

    /// Appends an event to the log, then fans it out.
    async fn emit(&mut self, payload: EventPayload) -> Result<()> {
        if let Some(k) = event_key(&payload)
            && !self.emitted.insert(k)
        {
            return Ok(());
        }
        let event = self.next_event(payload);
        self.inner.log.append_event(&event).await?;
        self.sent(event);
        Ok(())
    }

    async fn push_message(&mut self, message: Message) -> Result<()> {
        let idx = u32::try_from(self.messages.len()).unwrap_or(u32::MAX);
        self.inner.log.append_message(&self.run.record.id, idx, &message).await?;
        self.messages.push(message);
        Ok(())
    }

    async fn span(&self, kind: &str, name: &str, start: DateTime<Utc>, attributes: serde_json::Value) {
        let span = SpanRecord {
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
        };
        if let Err(e) = self.inner.log.insert_span(&self.run.record.id, &span).await {
            tracing::warn!(error = %e, "cannot record a span");
        }
    }

    async fn run_loop(&mut self) -> std::result::Result<(), Stop> {
        let snapshot = self.inner.log.snapshot(&self.thread_id).await?.unwrap_or_default();
        if self.last_seq == 0 {
            // RunStarted goes out first; the catalog for the prompt is read after it.
            let version = snapshot.ui_state_version;
            self.run.record.ui_state_version = version;
            self.inner.log.mark_run_started(&self.run.record.id, version).await?;
            self.emit(EventPayload::RunStarted {
                user_text: self.run.record.question.clone(),
                ui_state_version: version,
                max_iterations: self.inner.config.max_iterations,
                parent_run_id: self.run.record.parent_run_id.clone(),
                model: self.inner.model.name().to_owned(),
                client_msg_id: self.run.record.client_msg_id.clone().unwrap_or_default(),
            })
            .await?;
            if self.inner.config.llm_router {
                self.refine_route().await?;
            }
            if self.inner.config.debug_routing {
                self.emit(self.routing_decided()).await?;
            }
        } else {
            self.inner.log.set_run_status(&self.run.record.id, RunStatus::Running).await?;
            if let Some(json) = self.inner.log.run_route(&self.run.record.id).await? {
                self.route = serde_json::from_str(&json).unwrap_or(self.route);
            }
        }
        if self.cancel_reason().is_some() {
            return Err(Stop::Cancelled);
        }
        let context = RunContext {
            current_route: snapshot.current_route,
            active_dataset_id: snapshot.active_dataset_id,
            ui_state_version: self.run.record.ui_state_version,
            datasets: self.inner.datasets.list(&self.ctx.caller, None).await.unwrap_or_default(),
            file_roots: self.inner.files.root_names(),
        };
        if let Some(id) = self.open_text.take() {
            // A model call was cut off by a restart: close its text before anything else.
            self.emit(EventPayload::TextEnded { message_id: id }).await?;
        }
        if self.messages.is_empty() {
            let text = self.run.record.question.clone();
            self.push_message(Message::User { text }).await?;
        }
        let history =
            self.inner.log.thread_history(&self.thread_id, &self.run.record.id, self.inner.config.history_runs).await?;
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
                _ => {
                    let turns = self.messages.iter().filter(|m| matches!(m, Message::Assistant { .. })).count();
                    if turns as u32 >= self.inner.config.max_iterations {
                        return Ok(());
                    }
                    self.iteration = turns as u32 + 1;
                    let mut all = history.clone();
                    all.extend(self.messages.iter().cloned());
                    let span = tracing::info_span!("model_call", provider = %self.inner.model.name(), turn = turns);
                    self.model_call(&all, &context, turns as u32).instrument(span).await?;
                }
            }
        }
    }

    /// `agent.router = "llm"`: the model reads the question into a route (no tools, nothing
    /// streamed to the user); a malformed or unconfident answer, or a failed call, keeps the
    /// heuristic route. The route is stored so a restart gates the run the same way.
    async fn refine_route(&mut self) -> std::result::Result<(), Stop> {
        let started = Utc::now();
        let messages = [Message::User { text: self.run.record.question.clone() }];
        let context = RunContext::default();
        let request = ModelRequest {
            system: ROUTER_PROMPT.to_owned(),
            messages: &messages,
            tools: &[],
            context: &context,
            turn: 0,
            shown: &[],
        };
        let (tx, _unheard) = mpsc::unbounded_channel::<String>();
        let model = self.inner.model.clone();
        let answer = tokio::select! {
            biased;
            () = self.cancelled() => return Err(Stop::Cancelled),
            r = model.complete(request, tx) => r,
        };
        let (refined, outcome) = match &answer {
            Ok(turn) => {
                self.usage.input_tokens += turn.usage.input_tokens;
                self.usage.output_tokens += turn.usage.output_tokens;
                self.usage.model_calls += 1;
                count_tokens(self.inner.model.name(), &turn.usage);
                match parse_model_route(&turn.text) {
                    Some(r) => (r, "model".to_owned()),
                    None => (self.route, "heuristic: the model's answer was not a confident route".to_owned()),
                }
            }
            Err(e) => (self.route, format!("heuristic: the routing call failed: {}", e.message)),
        };
        self.route = refined;
        let json = serde_json::to_string(&self.route).map_err(|e| Stop::Failed(Error::internal(e)))?;
        self.inner.log.set_run_route(&self.run.record.id, &json).await?;
        let route = serde_json::to_value(self.route).unwrap_or_default();
        self.span("router", self.inner.model.name(), started, serde_json::json!({"route": route, "source": outcome}))
            .await;
        Ok(())
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
                _ => None,
            })
            .collect();
        tool_calls.iter().filter(|c| !answered.contains(&c.id)).cloned().collect()
    }

    async fn model_call(
        &mut self,
        messages: &[Message],
        context: &RunContext,
        turn: u32,
    ) -> std::result::Result<(), Stop> {
        let started = Utc::now();
        self.set_phase(RunPhase::WaitingModel, None);
        let specs: Vec<_> =
            self.inner.policy.offered(&self.ctx.caller, &self.route).into_iter().map(|t| spec(t.as_ref())).collect();
        let system = system_prompt(context);
        let shown = Arc::clone(&self.shown);
        let request = ModelRequest { system, messages, tools: &specs, context, turn, shown: &shown };
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let model = self.inner.model.clone();
        let call = model.complete(request, tx);
        tokio::pin!(call);
        let mut streamed = String::new();
        let message_id = format!("msg_{}", uuid::Uuid::now_v7().simple());
        let result = loop {
            tokio::select! {
                biased;
                () = self.cancelled() => {
                    self.usage.output_tokens += estimate_tokens(&streamed);
                    self.usage.model_calls += 1;
                    self.usage.partial = true;
                    if self.open_text.is_some() {
                        self.emit(EventPayload::TextEnded { message_id: message_id.clone() }).await?;
                        self.open_text = None;
                    }
                    return Err(Stop::Cancelled);
                }
                Some(delta) = rx.recv() => {
                    self.text_delta(&message_id, delta, &mut streamed).await?;
                }
                r = &mut call => break r,
            }
        };
        while let Ok(delta) = rx.try_recv() {
            self.text_delta(&message_id, delta, &mut streamed).await?;
        }
        if self.open_text.take().is_some() {
            self.emit(EventPayload::TextEnded { message_id }).await?;
        }
        let turn = match result {
            Ok(t) => t,
            Err(e) => {
                // What streamed before the failure was paid for: count it as an estimate.
                self.usage.output_tokens += estimate_tokens(&streamed);
                self.usage.model_calls += 1;
                self.usage.partial = true;
                let e = if e.code == ErrorCode::ModelError { e } else { Error::new(ErrorCode::ModelError, e.message) };
                return Err(Stop::Failed(e));
            }
        };
        count_tokens(self.inner.model.name(), &turn.usage);
        self.usage.input_tokens += turn.usage.input_tokens;
        self.usage.output_tokens += turn.usage.output_tokens;
        self.usage.cache_read_tokens += turn.usage.cache_read_tokens;
        self.usage.cache_write_tokens += turn.usage.cache_write_tokens;
        self.usage.model_calls += turn.usage.model_calls;
        let tool_calls: Vec<ToolCallRequest> = turn
            .tool_calls
            .into_iter()
            .map(|c| ToolCallRequest {
                id: ToolCallId::generate(),
                provider_id: c.provider_id,
                name: c.name,
                arguments: c.arguments,
            })
            .collect();
        self.push_message(Message::Assistant { text: turn.text, tool_calls }).await?;
        self.inner.log.set_run_progress(&self.run.record.id, self.iteration, &self.usage).await?;
        self.span(
            "model_call",
            self.inner.model.name(),
            started,
            serde_json::json!({"iteration": self.iteration, "output_chars": streamed.len()}),
        )
        .await;
        Ok(())
    }

    async fn text_delta(&mut self, message_id: &str, delta: String, streamed: &mut String) -> Result<()> {
        if delta.is_empty() {
            return Ok(());
        }
        if self.open_text.is_none() {
            self.set_phase(RunPhase::Streaming, None);
            self.open_text = Some(message_id.to_owned());
            self.emit(EventPayload::TextStarted { message_id: message_id.to_owned() }).await?;
        }
        streamed.push_str(&delta);
        self.emit(EventPayload::TextDelta { message_id: message_id.to_owned(), delta }).await
    }

    /// A tool-call row without a result yet.
    fn row(&self, call: &ToolCallRequest, phase: ToolPhase) -> ToolCallRow {
        ToolCallRow {
            id: call.id.clone(),
            run_id: self.run.record.id.clone(),
            iteration: self.iteration,
            tool_name: call.name.clone(),
            arguments_json: call.arguments.to_string(),
            phase,
            llm_summary: None,
            result_json: None,
            duration_ms: None,
        }
    }

    /// Post-hook: every tool call's outcome goes to the audit log, with the assistant as source.
    async fn audit(&self, call: &ToolCallRequest, phase: ToolPhase, duration_ms: u64) {
        let entry = AuditEntry {
            user_id: self.run.record.owner.clone(),
            source: Source::AiAssistant,
            action: format!("tool.{}", call.name),
            resource_type: "tool_call".to_owned(),
            resource_id: call.id.to_string(),
            outcome: phase.as_str().to_owned(),
            details: serde_json::json!({
                "run_id": self.run.record.id.as_str(),
                "arguments": call.arguments,
                "duration_ms": duration_ms,
            }),
        };
        if let Err(e) = self.inner.audit.record(entry).await {
            tracing::error!(error = %e, "audit entry for a tool call could not be written");
        }
    }

    /// Records a tool's final result everywhere: the row, the events, the transcript.
    async fn tool_done(
        &mut self,
        call: &ToolCallRequest,
        phase: ToolPhase,
        summary: String,
        error: Option<RunError>,
        rich: Option<RichResult>,
        duration_ms: u64,
    ) -> Result<()> {
        let row = ToolCallRow {
            llm_summary: Some(summary.clone()),
            result_json: rich.as_ref().and_then(|r| serde_json::to_string(r).ok()),
            duration_ms: Some(duration_ms),
            ..self.row(call, phase)
        };
        self.inner.log.record_tool_result(&row).await?;
        if let Some(rich) = &rich {
            Arc::make_mut(&mut self.shown).push((call.id.clone(), rich.clone()));
        }
        metrics::counter!("aware_tool_calls_total", "tool" => call.name.clone(), "outcome" => phase.as_str())
            .increment(1);
        self.audit(call, phase, duration_ms).await;
        let is_error = phase != ToolPhase::Succeeded;
        self.emit(EventPayload::ToolStatus { tool_call_id: call.id.clone(), phase, message: String::new() }).await?;
        self.emit(EventPayload::ToolResult {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            is_error,
            llm_summary: summary.clone(),
            error,
            duration_ms,
            rich,
        })
        .await?;
        self.push_message(Message::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: summary,
            is_error,
        })
        .await
    }

    async fn tool_call(&mut self, call: ToolCallRequest) -> std::result::Result<(), Stop> {
        let started = Utc::now();
        let rows = self.inner.log.tool_calls(&self.run.record.id).await?;
        let row = rows.iter().find(|r| r.id == call.id).cloned();
        if let Some(row) = &row {
            if let Some(summary) = row.llm_summary.clone() {
                // Finished before a restart: replay its result into the transcript only.
                let rich = row.result_json.as_deref().and_then(|j| serde_json::from_str(j).ok());
                self.emit(EventPayload::ToolResult {
                    tool_call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    is_error: row.phase != ToolPhase::Succeeded,
                    llm_summary: summary.clone(),
                    error: None,
                    duration_ms: row.duration_ms.unwrap_or(0),
                    rich,
                })
                .await?;
                let is_error = row.phase != ToolPhase::Succeeded;
                self.push_message(Message::Tool {
                    tool_call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: summary,
                    is_error,
                })
                .await?;
                return Ok(());
            }
            if row.phase == ToolPhase::Running {
                // Intent without result: at most once means never again.
                let error = RunError {
                    code: ErrorCode::RunnerInternalError,
                    message: UNKNOWN_OUTCOME.into(),
                    retryable: false,
                };
                self.tool_done(&call, ToolPhase::Failed, UNKNOWN_OUTCOME.into(), Some(error), None, 0).await?;
                return Ok(());
            }
        }
        if self.cancel_reason().is_some() {
            self.tool_done(&call, ToolPhase::Cancelled, CANCELLED.into(), None, None, 0).await?;
            return Err(Stop::Cancelled);
        }
        let tool = self.inner.policy.tool(&call.name).cloned();
        let risk = tool.as_ref().map(|t| t.meta().risk).unwrap_or_default();
        self.emit(EventPayload::ToolCallStarted {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            arguments_json: call.arguments.to_string(),
            risk,
            title: tool.as_ref().map_or_else(|| call.name.clone(), |t| t.meta().title.to_owned()),
        })
        .await?;
        let calls_so_far = self.messages.iter().filter(|m| matches!(m, Message::Tool { .. })).count();
        let calls_so_far = u32::try_from(calls_so_far).unwrap_or(u32::MAX);
        let tool = match self.inner.policy.check(&self.ctx.caller, &self.route, &call.name, calls_so_far) {
            Ok(tool) => tool.clone(),
            Err(refusal) => {
                let reason = refusal.to_string();
                self.emit(EventPayload::ToolDenied {
                    tool_call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    reason: reason.clone(),
                })
                .await?;
                let row = ToolCallRow {
                    llm_summary: Some(reason.clone()),
                    duration_ms: Some(0),
                    ..self.row(&call, ToolPhase::Denied)
                };
                self.inner.log.record_tool_result(&row).await?;
                self.push_message(Message::Tool {
                    tool_call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: reason,
                    is_error: true,
                })
                .await?;
                return Ok(());
            }
        };
        if !call.arguments.is_object() {
            let shown: String = match &call.arguments {
                serde_json::Value::String(raw) => raw.chars().take(200).collect(),
                other => other.to_string().chars().take(200).collect(),
            };
            let e = Error::validation("arguments", format!("the arguments must be a JSON object; got {shown}"));
            let summary = format!("Invalid call: {}", e.message);
            self.tool_done(&call, ToolPhase::Failed, summary, Some(RunError::from(&e)), None, 0).await?;
            return Ok(());
        }
        let prepared = match tool.prepare(&self.ctx, &call.arguments).await {
            Ok(p) => p,
            Err(e) => {
                let summary = format!("Invalid call: {}", e.message);
                self.tool_done(&call, ToolPhase::Failed, summary, Some(RunError::from(&e)), None, 0).await?;
                return Ok(());
            }
        };
        if let Some(tier) = risk.confirmation {
            let conf = match self.inner.log.confirmation_for_call(&call.id).await? {
                Some(c) => c,
                None => {
                    let ttl = chrono::Duration::from_std(self.inner.config.confirmation_ttl)
                        .unwrap_or(chrono::Duration::seconds(60));
                    let now = Utc::now();
                    let c = Confirmation {
                        id: ConfirmationId::generate(),
                        owner: self.run.record.owner.clone(),
                        run_id: self.run.record.id.clone(),
                        tool_call_id: call.id.clone(),
                        tool_name: call.name.clone(),
                        resource: prepared.resource.clone(),
                        args_sha256: hex::encode(Sha256::digest(canonical_json(&call.arguments).as_bytes())),
                        tier,
                        status: Resolution::Pending,
                        created_at: now,
                        expires_at: now + ttl,
                    };
                    self.inner.log.create_confirmation(&c).await?;
                    c
                }
            };
            let approved_resource = conf.resource.clone();
            let span = tracing::info_span!("confirmation_wait", tool = %call.name);
            let resolution =
                self.await_confirmation(&call, conf, prepared.description.clone()).instrument(span).await?;
            match resolution {
                // After a restart the call is prepared anew; if the names now point at something
                // else than what the person approved, nothing is done.
                Resolution::Approved if approved_resource != prepared.resource => {
                    let e = Error::new(
                        ErrorCode::ConfirmationExpired,
                        format!(
                            "What was approved ({}) has changed since; nothing was done. Ask again to act on what is there now.",
                            approved_resource.display_name
                        ),
                    );
                    let summary = format!("Not done: {}", e.message);
                    self.tool_done(&call, ToolPhase::Failed, summary, Some(RunError::from(&e)), None, 0).await?;
                    return Ok(());
                }
                Resolution::Approved => {}
                Resolution::Denied => {
                    self.tool_done(&call, ToolPhase::Denied, DENIED.into(), None, None, 0).await?;
                    return Ok(());
                }
                Resolution::Expired => {
                    self.tool_done(&call, ToolPhase::Expired, EXPIRED.into(), None, None, 0).await?;
                    return Ok(());
                }
                Resolution::Pending | Resolution::Cancelled | Resolution::Superseded => {
                    self.tool_done(&call, ToolPhase::Cancelled, CANCELLED.into(), None, None, 0).await?;
                    return Err(Stop::Cancelled);
                }
            }
        }
        // The intent row, then the side effect.
        let intent = self.row(&call, ToolPhase::Running);
        self.inner.log.record_tool_intent(&intent).await?;
        self.set_phase(RunPhase::ExecutingTool, None);
        self.emit(EventPayload::ToolStatus {
            tool_call_id: call.id.clone(),
            phase: ToolPhase::Running,
            message: String::new(),
        })
        .await?;
        let exec_started = std::time::Instant::now();
        let delay = self.inner.config.tool_delay;
        let timeout = self.inner.config.tool_timeout + delay;
        let ctx = self.ctx.clone();
        let args = prepared.pinned.unwrap_or_else(|| call.arguments.clone());
        let work = async {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            tool.execute(&ctx, &args).await
        };
        let outcome = tokio::select! {
            biased;
            () = self.cancelled() => None,
            r = tokio::time::timeout(timeout, work) => Some(r),
        };
        let ms = exec_started.elapsed().as_millis() as u64;
        let result = match outcome {
            None => {
                let summary = if risk.read_only {
                    CANCELLED.to_owned()
                } else {
                    "The run was cancelled while the tool was running; it may or may not have taken effect.".to_owned()
                };
                self.tool_done(&call, ToolPhase::Cancelled, summary, None, None, ms).await?;
                self.span("tool_call", &call.name, started, serde_json::json!({"phase": "cancelled"})).await;
                return Err(Stop::Cancelled);
            }
            Some(Err(_)) => Err(Error::new(
                ErrorCode::RunnerTimeout,
                format!("the tool took longer than {} s and was stopped", timeout.as_secs()),
            )),
            Some(Ok(r)) => r,
        };
        match result {
            Ok(out) => {
                self.tool_done(&call, ToolPhase::Succeeded, out.llm_summary, None, out.rich, ms).await?;
            }
            Err(e) => {
                let summary = format!("Error ({}): {}", e.code.as_str(), e.message);
                self.tool_done(&call, ToolPhase::Failed, summary, Some(RunError::from(&e)), None, ms).await?;
            }
        }
        self.span("tool_call", &call.name, started, serde_json::json!({"duration_ms": ms})).await;
        Ok(())
    }

    /// Emits the confirmation (once) and waits for a person, the expiry or a cancel.
    async fn await_confirmation(
        &mut self,
        call: &ToolCallRequest,
        conf: Confirmation,
        description: String,
    ) -> std::result::Result<Resolution, Stop> {
        let wait_started = Utc::now();
        if conf.status == Resolution::Pending {
            self.emit(EventPayload::ToolStatus {
                tool_call_id: call.id.clone(),
                phase: ToolPhase::AwaitingConfirmation,
                message: description.clone(),
            })
            .await?;
            self.emit(EventPayload::ConfirmationRequired {
                confirmation_id: conf.id.clone(),
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                resource: conf.resource.clone(),
                description,
                tier: conf.tier,
                expires_at: conf.expires_at,
                arguments_json: call.arguments.to_string(),
            })
            .await?;
        }
        self.set_phase(RunPhase::AwaitingConfirmation, Some(conf.expires_at));
        self.inner.log.set_run_status(&self.run.record.id, RunStatus::AwaitingConfirmation).await?;
        let resolution = loop {
            let current = self.inner.log.confirmation(&conf.id).await?.map_or(Resolution::Expired, |c| c.status);
            if current != Resolution::Pending {
                break current;
            }
            if let Some(why) = self.cancel_reason() {
                if self.inner.log.resolve_confirmation(&conf.id, why, None).await? {
                    break why;
                }
                continue;
            }
            let left = (conf.expires_at - Utc::now()).to_std().unwrap_or_default();
            if left.is_zero() {
                self.inner.log.resolve_confirmation(&conf.id, Resolution::Expired, None).await?;
                continue;
            }
            tokio::select! {
                () = self.live.confirm.notified() => {}
                () = tokio::time::sleep(left) => {}
                () = self.cancelled() => {}
            }
        };
        self.emit(EventPayload::ConfirmationResolved {
            confirmation_id: conf.id.clone(),
            tool_call_id: call.id.clone(),
            resolution,
        })
        .await?;
        metrics::counter!("aware_confirmations_total", "outcome" => resolution.as_str()).increment(1);
        self.set_phase(RunPhase::ExecutingTool, None);
        self.inner.log.set_run_status(&self.run.record.id, RunStatus::Running).await?;
        self.span(
            "confirmation_wait",
            &call.name,
            wait_started,
            serde_json::json!({"confirmation_id": conf.id.as_str(), "resolution": resolution.as_str()}),
        )
        .await;
        Ok(resolution)
    }

    /// Ends the run: every open tool call gets a result, then the one `RunCompleted`.
    async fn finish(&mut self, outcome: std::result::Result<(), Stop>) -> Result<()> {
        let (status, error) = match outcome {
            Ok(()) => match self.messages.last() {
                Some(Message::Assistant { tool_calls, .. }) if tool_calls.is_empty() => (RunStatus::Succeeded, None),
                _ => (RunStatus::MaxIterations, None),
            },
            Err(Stop::Cancelled) => (RunStatus::Cancelled, None),
            Err(Stop::Failed(e)) => {
                tracing::warn!(run = %self.run.record.id, error = %e, "run failed");
                let message = if e.code == ErrorCode::Internal {
                    "an internal error stopped the run".into()
                } else {
                    e.message.clone()
                };
                (RunStatus::Failed, Some(RunError { code: e.code, message, retryable: e.retryable() }))
            }
        };
        if let Some(id) = self.open_text.take() {
            self.emit(EventPayload::TextEnded { message_id: id }).await?;
        }
        for call in self.unanswered_calls() {
            let summary = if status == RunStatus::Cancelled { CANCELLED } else { "Not run: the run ended first." };
            self.emit(EventPayload::ToolCallStarted {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                arguments_json: call.arguments.to_string(),
                risk: self.inner.policy.tool(&call.name).map(|t| t.meta().risk).unwrap_or_default(),
                title: call.name.clone(),
            })
            .await?;
            self.tool_done(&call, ToolPhase::Cancelled, summary.into(), None, None, 0).await?;
        }
        let final_text = self
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::Assistant { text, .. } if !text.is_empty() => Some(text.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let route = serde_json::to_value(self.route).unwrap_or_default();
        self.span("run", "run", self.started, serde_json::json!({"status": status.as_str(), "route": route})).await;
        let last = self.next_event(EventPayload::RunCompleted {
            status,
            error: error.clone(),
            usage: self.usage,
            final_text: final_text.clone(),
        });
        self.inner.log.complete_chat_run(&last, status, error.as_ref(), &self.usage, &final_text).await?;
        // The thread is free before anyone hears the run is over.
        Inner::release(&self.inner, &self.run.record.id);
        self.sent(last);
        Ok(())
    }
}

/// The system prompt, in layers: role, tool-use rules, then what the user sees and has — the
/// last as a delimited, escaped data section (see `prompt.rs`).
fn system_prompt(context: &RunContext) -> String {
    super::prompt::system_prompt(context)
}

/// JSON with object keys sorted, so equal arguments hash equally.
fn canonical_json(v: &serde_json::Value) -> String {
    fn sort(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => {
                let sorted: std::collections::BTreeMap<_, _> = m.iter().map(|(k, v)| (k.clone(), sort(v))).collect();
                serde_json::to_value(sorted).unwrap_or_default()
            }
            serde_json::Value::Array(a) => serde_json::Value::Array(a.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(v).to_string()
}

/// Tokens a model call used, by provider (the `aware_model_tokens_total` metric).
fn count_tokens(provider: &str, usage: &Usage) {
    for (kind, n) in [("input", usage.input_tokens), ("output", usage.output_tokens)] {
        metrics::counter!("aware_model_tokens_total", "provider" => provider.to_owned(), "kind" => kind).increment(n);
    }
}
