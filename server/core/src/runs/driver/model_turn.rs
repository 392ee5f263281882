//! A model turn: the request (the system prompt, the gated tools, the transcript), the streamed
//! text as events, the answer into the transcript; and the optional routing call before the
//! first turn (`agent.router = "llm"`).

use super::{Driver, Stop};
use crate::Error;
use crate::ErrorCode;
use crate::Result;
use crate::runs::model_view::prompt::{ROUTER_PROMPT, system_prompt};
use crate::runs::router::parse_model_route;
use crate::runs::tools::{Tool, spec};
use aware_domain::events::{EventPayload, RunPhase};
use aware_domain::ids::ToolCallId;
use aware_domain::ports::model::{Message, ModelRequest, RunContext, ToolCallRequest, estimate_tokens};
use aware_domain::run::Usage;
use chrono::Utc;
use std::sync::Arc;
use tokio::sync::mpsc;

impl Driver {
    /// The router's output and the gate's decision, as an event.
    pub(super) fn routing_decided(&self) -> EventPayload {
        let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_owned();
        let names = |tools: Vec<Arc<dyn Tool>>| tools.iter().map(|t| t.meta().name.as_str().to_owned()).collect();
        let policy = &self.deps.policy;
        EventPayload::RoutingDecided {
            intent: name(serde_json::to_value(self.route.intent).unwrap_or_default()),
            confidence: self.route.confidence,
            risk: name(serde_json::to_value(self.route.risk).unwrap_or_default()),
            tools: names(policy.offered(&self.ctx.caller, &self.route)),
            withheld_tools: names(policy.withheld(&self.ctx.caller, &self.route)),
        }
    }

    /// `agent.router = "llm"`: the model reads the question into a route (no tools, nothing
    /// streamed to the user); a malformed or unconfident answer, or a failed call, keeps the
    /// heuristic route. The route is stored so a restart gates the run the same way.
    pub(super) async fn refine_route(&mut self) -> std::result::Result<(), Stop> {
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
        let model = self.deps.model.clone();
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
                count_tokens(self.deps.model.name(), &turn.usage);
                match parse_model_route(&turn.text) {
                    Some(r) => (r, "model".to_owned()),
                    None => (self.route.clone(), "heuristic: the model's answer was not a confident route".to_owned()),
                }
            }
            Err(e) => (self.route.clone(), format!("heuristic: the routing call failed: {}", e.message)),
        };
        self.route = refined;
        let json = serde_json::to_string(&self.route).map_err(|e| Stop::Failed(Error::internal(e)))?;
        self.deps.log.set_run_route(&self.run.record.id, &json).await?;
        let route = serde_json::to_value(&self.route).unwrap_or_default();
        self.span("router", self.deps.model.name(), started, serde_json::json!({"route": route, "source": outcome}))
            .await;
        Ok(())
    }

    /// Links the question to the external tools it is about by their descriptions
    /// (`tool_links.rs`), when the route would otherwise withhold them; the route is stored with
    /// its links so a restart gates the run the same way. Without an embedder, or when it fails,
    /// only a tool named outright is offered (as before).
    pub(super) async fn link_external_tools(&mut self) -> std::result::Result<(), Stop> {
        if self.route.confidence < crate::runs::router::CONFIDENT
            || self.route.intent == crate::runs::router::Intent::ExternalTool
        {
            return Ok(()); // everything is offered already, or the tool was named
        }
        let Some(embedder) = self.deps.services.datasets.search().embedder() else {
            return Ok(());
        };
        let candidates = self.deps.policy.external_for(&self.ctx.caller);
        if candidates.is_empty() {
            return Ok(());
        }
        let started = Utc::now();
        let linked = crate::runs::tool_links::linked(embedder.as_ref(), &self.run.record.question, &candidates).await;
        let linked = match linked {
            Ok(linked) => linked,
            Err(e) => {
                tracing::warn!(error = %e, "external tools could not be linked by meaning");
                return Ok(());
            }
        };
        if linked.is_empty() {
            return Ok(());
        }
        self.route.linked_tools = linked;
        let json = serde_json::to_string(&self.route).map_err(|e| Stop::Failed(Error::internal(e)))?;
        self.deps.log.set_run_route(&self.run.record.id, &json).await?;
        let attrs = serde_json::json!({"linked_tools": self.route.linked_tools});
        self.span("tool_links", embedder.model().as_str(), started, attrs).await;
        Ok(())
    }

    pub(super) async fn model_call(
        &mut self,
        messages: &[Message],
        context: &RunContext,
        turn: u32,
    ) -> std::result::Result<(), Stop> {
        let started = Utc::now();
        self.set_phase(RunPhase::WaitingModel, None);
        let specs: Vec<_> =
            self.deps.policy.offered(&self.ctx.caller, &self.route).into_iter().map(|t| spec(t.as_ref())).collect();
        let system = system_prompt(context);
        let shown = Arc::clone(&self.shown);
        let request = ModelRequest { system, messages, tools: &specs, context, turn, shown: &shown };
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let model = self.deps.model.clone();
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
        count_tokens(self.deps.model.name(), &turn.usage);
        self.usage.input_tokens += turn.usage.input_tokens;
        self.usage.output_tokens += turn.usage.output_tokens;
        self.usage.cache_read_tokens += turn.usage.cache_read_tokens;
        self.usage.cache_write_tokens += turn.usage.cache_write_tokens;
        self.usage.model_calls += turn.usage.model_calls;
        self.stance = turn.stance;
        self.follow_ups = turn.follow_ups;
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
        // The turn's transcript message, the run's progress and the turn's span are written at
        // once, so they share one commit.
        let message = Message::Assistant { text: turn.text, tool_calls };
        let attributes = serde_json::json!({"iteration": self.iteration, "output_chars": streamed.len()});
        let span = self.span_record("model_call", self.deps.model.name(), started, attributes);
        let (stored, progress, ()) = tokio::join!(
            self.store_message(&message),
            self.deps.log.set_run_progress(&self.run.record.id, self.iteration, &self.usage),
            self.store_span(&span),
        );
        stored?;
        progress?;
        self.messages.push(message);
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
}

/// Tokens a model call used, by provider (the `aware_model_tokens_total` metric).
fn count_tokens(provider: &str, usage: &Usage) {
    for (kind, n) in [("input", usage.input_tokens), ("output", usage.output_tokens)] {
        metrics::counter!("aware_model_tokens_total", "provider" => provider.to_owned(), "kind" => kind).increment(n);
    }
}
