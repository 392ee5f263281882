//! The end of a run: every open tool call gets a result, then the one `RunCompleted`, which
//! the engine publishes once the thread is released.

use super::tool_step::Outcome;
use super::{Driver, Stop};
use crate::ErrorCode;
use crate::Result;
use crate::runs::grounding::{self, Evidence};
use crate::runs::model_view::outcomes::{CANCELLED, NOT_RUN};
use aware_domain::events::{EventPayload, Resolution, RunEvent};
use aware_domain::grounding::Grounding;
use aware_domain::knowledge;
use aware_domain::ports::model::Message;
use aware_domain::run::ToolPhase;
use aware_domain::run::{RunError, RunOutcome, RunStatus};

impl Driver {
    /// Ends the run: every open tool call gets a result, then the one `RunCompleted`.
    pub(super) async fn finish(&mut self, outcome: std::result::Result<(), Stop>) -> Result<RunEvent> {
        let (status, error) = match outcome {
            Ok(()) => match self.messages.last() {
                Some(Message::Assistant { tool_calls, .. }) if tool_calls.is_empty() => (RunStatus::Succeeded, None),
                // A tool run ends with its call's result (which says whether the call did its work).
                Some(Message::Tool { .. }) if self.is_tool_run() => (RunStatus::Succeeded, None),
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
            let summary = if status == RunStatus::Cancelled { CANCELLED } else { NOT_RUN };
            let tool = self.deps.policy.tool(&call.name);
            self.emit(EventPayload::ToolCallStarted {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                arguments_json: call.arguments.to_string(),
                risk: tool.as_ref().map(|t| t.meta().risk).unwrap_or_default(),
                title: call.name.clone(),
                provenance: tool.as_ref().map(|t| t.meta().provenance()).unwrap_or_default(),
            })
            .await?;
            self.tool_done(&call, Outcome::new(ToolPhase::Cancelled, summary)).await?;
        }
        let final_text = self
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::Assistant { text, .. } => (!text.is_empty()).then(|| text.clone()),
                // A tool run's answer is its call's summary.
                Message::Tool { content, .. } if self.is_tool_run() => Some(content.clone()),
                Message::User { .. } | Message::Tool { .. } => None,
            })
            .unwrap_or_default();
        let outcome = self.outcome(status, &final_text);
        let grounding = if status == RunStatus::Succeeded && !self.is_tool_run() && !final_text.is_empty() {
            Some(self.ground(&final_text).await?)
        } else {
            None
        };
        // Post-hooks act on the finished work, before anyone hears the run is over.
        if let Err(e) = self.post_hooks(status).await {
            tracing::warn!(run = %self.run.record.id, error = %e, "a post-hook failed");
        }
        let route = serde_json::to_value(&self.route).unwrap_or_default();
        let span = self.span_record(
            "run",
            "run",
            self.started,
            serde_json::json!({"status": status.as_str(), "outcome": outcome.as_str(), "route": route}),
        );
        // Only an answer offers what to ask next.
        let follow_ups =
            if outcome == RunOutcome::Answered { std::mem::take(&mut self.follow_ups) } else { Vec::new() };
        let last = self.next_event(EventPayload::RunCompleted {
            status,
            error: error.clone(),
            usage: self.usage,
            final_text: final_text.clone(),
            outcome: Some(outcome),
            follow_ups,
        });
        // Every delta is in the log before the run's end.
        self.flush().await?;
        // The run's span and its end are written at once (one commit).
        let ((), completed) = tokio::join!(
            self.store_span(&span),
            self.deps.log.complete_chat_run(
                &last,
                status,
                error.as_ref(),
                &self.usage,
                &final_text,
                grounding.as_ref()
            ),
        );
        completed?;
        // Published by the engine once the thread is free: before anyone hears the run is over.
        Ok(last)
    }

    /// What the run came to. A cancelled or failed run is that. Otherwise the last question it
    /// put to a person decides when it was denied or expired; then what the model said its last
    /// text is. For a model that says nothing: when no tool of the run brought back data, a run
    /// whose calls all failed failed, and a text that is a question asked back; otherwise it
    /// answered.
    fn outcome(&self, status: RunStatus, final_text: &str) -> RunOutcome {
        if status != RunStatus::Succeeded {
            // What the status tells; a run ended in any other state failed.
            return RunOutcome::of_status(status).unwrap_or(RunOutcome::Failed);
        }
        match self.last_gate {
            // A question back the person dismissed ("none of these"): it asked; nothing was answered.
            Some((Resolution::Denied, true)) => return RunOutcome::AskedBack,
            Some((Resolution::Denied, false)) => return RunOutcome::Denied,
            Some((Resolution::Expired, _)) => return RunOutcome::Expired,
            Some((Resolution::Approved | Resolution::Pending | Resolution::Cancelled | Resolution::Superseded, _))
            | None => {}
        }
        // Refused for who the person is (their role, their key), with nothing answered.
        if self.refused_by_policy && self.evidence.is_empty() {
            return RunOutcome::Denied;
        }
        if self.is_tool_run() {
            // The client's one call: its result says whether it did its work.
            return match self.messages.last() {
                Some(Message::Tool { is_error: true, .. }) => RunOutcome::Failed,
                Some(Message::Tool { .. } | Message::User { .. } | Message::Assistant { .. }) | None => {
                    RunOutcome::Answered
                }
            };
        }
        if let Some(said) = self.stance {
            return said;
        }
        if !self.evidence.is_empty() {
            return RunOutcome::Answered;
        }
        if self.messages.iter().any(|m| matches!(m, Message::Tool { .. })) {
            RunOutcome::Failed
        } else if final_text.trim_end().ends_with('?') {
            RunOutcome::AskedBack
        } else {
            RunOutcome::Answered
        }
    }

    /// Traces each number of the answer to this run's tool results (those restored from the log
    /// and those emitted since, so a restarted run grounds against everything it did) and
    /// announces it (`Grounding`). An answer with ungrounded numbers is flagged and counted, not
    /// failed.
    async fn ground(&mut self, answer: &str) -> Result<Grounding> {
        let evidence: Vec<Evidence<'_>> = self
            .evidence
            .iter()
            .filter_map(|e| {
                let EventPayload::ToolResult { tool_call_id, tool_name, llm_summary, rich, is_error: false, .. } =
                    &e.payload
                else {
                    return None;
                };
                Some(Evidence {
                    seq: e.seq,
                    tool_call_id: tool_call_id.as_str(),
                    tool_name,
                    summary: llm_summary,
                    rich: rich.as_ref(),
                })
            })
            .collect();
        let today = self.run.record.created_at.date_naive();
        let mut grounding = grounding::ground(answer, &self.run.record.question, today, &evidence);
        let ungrounded = grounding.ungrounded();
        let numbers = grounding.numbers.len();
        metrics::counter!("aware_answer_numbers_total", "grounded" => "true").increment((numbers - ungrounded) as u64);
        metrics::counter!("aware_answer_numbers_total", "grounded" => "false").increment(ungrounded as u64);
        if ungrounded > 0 {
            metrics::counter!("aware_answers_ungrounded_total").increment(1);
            tracing::info!(run = %self.run.record.id, ungrounded, numbers, "an answer has numbers no tool result holds");
        }
        // An answer of a run that retrieved passages of documents must cite them, and only them.
        let mut searched = false;
        let mut retrieved: Vec<String> = Vec::new();
        for e in &self.evidence {
            if let EventPayload::RetrievalCompleted { chunk_ids, .. } = &e.payload {
                searched = true;
                for id in chunk_ids {
                    if !retrieved.contains(id) {
                        retrieved.push(id.clone());
                    }
                }
            }
        }
        if searched {
            let check = knowledge::check(answer, &retrieved);
            metrics::counter!("aware_answer_citations_total", "status" => check.status.as_str()).increment(1);
            if check.status.failed() {
                tracing::info!(
                    run = %self.run.record.id, status = check.status.as_str(), invalid = ?check.invalid,
                    "an answer from documents failed its citation check"
                );
            }
            grounding.citations = Some(check);
        }
        self.emit(EventPayload::Grounding {
            numbers: grounding.numbers.clone(),
            citations: grounding.citations.clone(),
        })
        .await?;
        Ok(grounding)
    }
}
