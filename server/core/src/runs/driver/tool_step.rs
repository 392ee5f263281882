//! One tool call, as explicit steps. Each step is derived from what is stored, so a call found
//! unanswered after a restart resumes at the right one without repeating a side effect:
//! `Start` (a result already stored is replayed; an intent without a result is an unknown
//! outcome; a cancelled run ends the call; otherwise the policy gate decides) → `Check` (the
//! arguments) → `Confirm` (a person approves what the call will touch, when its risk says so;
//! `confirmation.rs`) → `Execute` (the intent row, then the side effect, timed and cancellable)
//! → `Done` (the result recorded everywhere).

use super::{Driver, Stop};
use crate::Result;
use crate::policy::{Policy, Refusal};
use crate::runs::model_view::outcomes;
use crate::runs::tools::{Prepared, Tool, ToolContext};
use crate::{Error, ErrorCode};
use aware_domain::events::{EventPayload, Provenance, RichResult, Tier, ToolRisk};
use aware_domain::ports::AuditEntry;
use aware_domain::ports::model::{Message, ToolCallRequest};
use aware_domain::run::RunError;
use aware_domain::run::ToolCallRow;
use aware_domain::run::ToolPhase;
use chrono::Utc;
use std::sync::Arc;

/// Where a tool call stands.
pub(super) enum ToolStep {
    /// Nothing decided yet.
    Start,
    /// It finished before a restart: its stored result goes back into the transcript.
    Replay(ToolCallRow),
    /// The policy gate said no.
    Refuse(Refusal),
    /// Allowed; its arguments are checked next.
    Check(Arc<dyn Tool>, ToolRisk),
    /// Checked, and its risk asks a person first.
    Confirm(Arc<dyn Tool>, Tier, Prepared),
    /// Runs now, with these arguments (the pinned ones when the tool resolved names).
    Execute(Arc<dyn Tool>, serde_json::Value),
    /// Over, with this outcome.
    Done(Box<Outcome>),
}

impl ToolStep {
    pub(super) fn done(outcome: Outcome) -> Self {
        Self::Done(Box::new(outcome))
    }
}

/// A call's final result.
pub(super) struct Outcome {
    phase: ToolPhase,
    summary: String,
    error: Option<RunError>,
    rich: Option<RichResult>,
    duration_ms: u64,
    /// The run stops after recording it (it was cancelled).
    stop: bool,
    /// Attributes of the call's span, when it got as far as running.
    span: Option<serde_json::Value>,
}

impl Outcome {
    pub(super) fn new(phase: ToolPhase, summary: impl Into<String>) -> Self {
        Self { phase, summary: summary.into(), error: None, rich: None, duration_ms: 0, stop: false, span: None }
    }

    pub(super) fn failed(summary: String, e: &Error) -> Self {
        Self { error: Some(RunError::from(e)), ..Self::new(ToolPhase::Failed, summary) }
    }

    pub(super) fn cancelled(summary: impl Into<String>) -> Self {
        Self { stop: true, ..Self::new(ToolPhase::Cancelled, summary) }
    }
}

impl Driver {
    pub(super) async fn tool_call(&mut self, call: ToolCallRequest) -> std::result::Result<(), Stop> {
        let started = Utc::now();
        let mut step = ToolStep::Start;
        loop {
            step = match step {
                ToolStep::Start => self.start(&call).await?,
                ToolStep::Replay(row) => return Ok(self.replay(&call, row).await?),
                ToolStep::Refuse(refusal) => return Ok(self.refuse(&call, &refusal).await?),
                ToolStep::Check(tool, risk) => self.check(&call, tool, risk).await,
                ToolStep::Confirm(tool, tier, prepared) => self.confirm(&call, tool, tier, prepared).await?,
                ToolStep::Execute(tool, args) => self.execute(&call, tool, args).await?,
                ToolStep::Done(outcome) => {
                    let outcome = *outcome;
                    let (stop, span) = (outcome.stop, outcome.span.clone());
                    self.tool_done(&call, outcome).await?;
                    if let Some(attributes) = span {
                        self.span("tool_call", &call.name, started, attributes).await;
                    }
                    return if stop { Err(Stop::Cancelled) } else { Ok(()) };
                }
            };
        }
    }

    /// What is stored about the call, the run's cancel, then the policy gate.
    async fn start(&mut self, call: &ToolCallRequest) -> Result<ToolStep> {
        // A run never driven before has rows only for the calls this driver stored.
        let stored = if self.restored || self.recorded.contains(&call.id) {
            self.deps.log.tool_calls(&self.run.record.id).await?.into_iter().find(|r| r.id == call.id)
        } else {
            None
        };
        if let Some(row) = stored {
            if row.llm_summary.is_some() {
                return Ok(ToolStep::Replay(row));
            }
            if row.phase == ToolPhase::Running {
                // Intent without result: at most once means never again.
                let error = RunError {
                    code: ErrorCode::RunnerInternalError,
                    message: outcomes::UNKNOWN_OUTCOME.into(),
                    retryable: false,
                };
                let outcome =
                    Outcome { error: Some(error), ..Outcome::new(ToolPhase::Failed, outcomes::UNKNOWN_OUTCOME) };
                return Ok(ToolStep::done(outcome));
            }
        }
        if self.cancel_reason().is_some() {
            return Ok(ToolStep::done(Outcome::cancelled(outcomes::CANCELLED)));
        }
        let tool = self.deps.policy.tool(&call.name);
        let risk = tool.as_ref().map(|t| t.meta().risk).unwrap_or_default();
        self.emit(EventPayload::ToolCallStarted {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            arguments_json: call.arguments.to_string(),
            risk,
            title: tool.as_ref().map_or_else(|| call.name.clone(), |t| t.meta().title.to_string()),
            provenance: tool.as_ref().map(|t| t.meta().provenance()).unwrap_or_default(),
        })
        .await?;
        let calls_so_far = self.messages.iter().filter(|m| matches!(m, Message::Tool { .. })).count();
        let calls_so_far = u32::try_from(calls_so_far).unwrap_or(u32::MAX);
        let tool = match self.deps.policy.check(&self.ctx.caller, &self.route, &call.name, calls_so_far) {
            Ok(tool) => tool,
            Err(refusal) => return Ok(ToolStep::Refuse(refusal)),
        };
        Ok(match self.withdrawn(tool.as_ref()).await? {
            Some(refusal) => ToolStep::Refuse(refusal),
            None => ToolStep::Check(tool, risk),
        })
    }

    /// Why the run's owner, as they stand now, may no longer have `tool` take effect (see
    /// `Policy::may_still`); `None` while they may.
    pub(super) async fn withdrawn(&self, tool: &dyn Tool) -> Result<Option<Refusal>> {
        let owner = &self.run.record.owner;
        let now = self.deps.services.admin.standing(owner, self.run.key.as_ref()).await?;
        Ok(Policy::may_still(tool.meta(), Some(self.run.role), now).err())
    }

    /// Finished before a restart: replay its result into the transcript only.
    async fn replay(&mut self, call: &ToolCallRequest, row: ToolCallRow) -> Result<()> {
        let rich = row.result_json.as_deref().and_then(|j| serde_json::from_str(j).ok());
        let result = (row.phase != ToolPhase::Succeeded, row.llm_summary.unwrap_or_default(), None);
        self.publish_result(call, result, row.duration_ms.unwrap_or(0), rich).await
    }

    /// The gate said no: `ToolDenied`, and the reason as the call's result.
    async fn refuse(&mut self, call: &ToolCallRequest, refusal: &Refusal) -> Result<()> {
        let reason = refusal.to_string();
        self.emit(EventPayload::ToolDenied {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            reason: reason.clone(),
            code: refusal.code().to_owned(),
            provenance: self.provenance(&call.name),
        })
        .await?;
        let row = ToolCallRow {
            llm_summary: Some(reason.clone()),
            duration_ms: Some(0),
            ..self.row(call, ToolPhase::Denied)
        };
        self.deps.log.record_tool_result(&row).await?;
        self.recorded.insert(call.id.clone());
        self.push_message(Message::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: reason,
            is_error: true,
        })
        .await
    }

    /// The arguments: a JSON object the tool accepts, resolved to what it will touch.
    async fn check(&self, call: &ToolCallRequest, tool: Arc<dyn Tool>, risk: ToolRisk) -> ToolStep {
        if !call.arguments.is_object() {
            let e = outcomes::arguments_not_an_object(&call.arguments);
            return ToolStep::done(Outcome::failed(outcomes::invalid_call(&e), &e));
        }
        match tool.prepare(&self.ctx, &call.arguments).await {
            Err(e) => ToolStep::done(Outcome::failed(outcomes::invalid_call(&e), &e)),
            // A call that asks although its tool does not always never asks less than its tool.
            Ok(prepared) => match prepared.ask.max(risk.confirmation) {
                Some(tier) => ToolStep::Confirm(tool, tier, prepared),
                None => {
                    let args = prepared.pinned.unwrap_or_else(|| call.arguments.clone());
                    ToolStep::Execute(tool, args)
                }
            },
        }
    }

    /// The intent row, then the side effect, within the time limit, unless the run is cancelled.
    async fn execute(
        &mut self,
        call: &ToolCallRequest,
        tool: Arc<dyn Tool>,
        args: serde_json::Value,
    ) -> Result<ToolStep> {
        let intent = self.row(call, ToolPhase::Running);
        self.deps.log.record_tool_intent(&intent).await?;
        self.recorded.insert(call.id.clone());
        self.set_phase(aware_domain::events::RunPhase::ExecutingTool, None);
        self.emit(EventPayload::ToolStatus {
            tool_call_id: call.id.clone(),
            phase: ToolPhase::Running,
            message: String::new(),
        })
        .await?;
        let exec_started = std::time::Instant::now();
        // The test hook's delay counts against the limit, as a slow tool's time would.
        let delay = self.deps.config.tool_delay;
        let timeout = self.deps.config.tool_timeout;
        // An approved call's moment of effect is now, not its approval: time has passed since.
        let asked = self.approvals.contains_key(&call.id);
        let ctx = ToolContext { approved: asked, ..self.ctx.clone() };
        let work = async {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            if asked && let Some(refusal) = self.withdrawn(tool.as_ref()).await? {
                return Err(Error::permission_denied(refusal.to_string()));
            }
            tool.execute(&ctx, &args).await
        };
        let outcome = tokio::select! {
            biased;
            () = self.cancelled() => None,
            r = tokio::time::timeout(timeout, work) => Some(r),
        };
        let ms = exec_started.elapsed().as_millis() as u64;
        let span = Some(serde_json::json!({"duration_ms": ms}));
        let result = match outcome {
            None => {
                let summary =
                    if tool.meta().risk.read_only { outcomes::CANCELLED } else { outcomes::CANCELLED_WHILE_RUNNING };
                let span = Some(serde_json::json!({"phase": "cancelled"}));
                return Ok(ToolStep::done(Outcome { duration_ms: ms, span, ..Outcome::cancelled(summary) }));
            }
            Some(Err(_)) => Err(outcomes::timed_out(timeout)),
            Some(Ok(r)) => r,
        };
        Ok(ToolStep::done(match result {
            Ok(out) => {
                Outcome { rich: out.rich, duration_ms: ms, span, ..Outcome::new(ToolPhase::Succeeded, out.llm_summary) }
            }
            Err(e) => Outcome { duration_ms: ms, span, ..Outcome::failed(outcomes::failed(&e), &e) },
        }))
    }

    /// Where the tool a call names comes from (nothing known for a tool that does not exist).
    pub(super) fn provenance(&self, name: &str) -> Provenance {
        self.deps.policy.tool(name).map(|t| t.meta().provenance()).unwrap_or_default()
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

    /// Post-hook: every tool call's outcome goes to the audit log, with who made the call as source.
    async fn audit(&self, call: &ToolCallRequest, phase: ToolPhase, duration_ms: u64) {
        let entry = AuditEntry {
            user_id: self.run.record.owner.clone(),
            // The assistant, or the MCP client whose own call this is.
            source: self.ctx.caller.source,
            action: format!("tool.{}", call.name),
            resource_type: "tool_call".to_owned(),
            resource_id: call.id.to_string(),
            outcome: phase.as_str().to_owned(),
            details: {
                let mut details = serde_json::json!({
                    "run_id": self.run.record.id.as_str(),
                    "arguments": call.arguments,
                    "duration_ms": duration_ms,
                });
                if let Some(approval) = self.approvals.get(&call.id) {
                    // Both: what was asked and what the person let run.
                    details["approved_arguments"] = approval.edited.clone().unwrap_or_default();
                    details["grant_id"] = approval.grant.as_ref().map(|g| g.as_str()).into();
                }
                details
            },
        };
        aware_domain::ports::record_or_log(self.deps.services.audit.as_ref(), entry).await;
    }

    /// Records a tool's final result everywhere: the row, the events, the transcript.
    pub(super) async fn tool_done(&mut self, call: &ToolCallRequest, outcome: Outcome) -> Result<()> {
        let Outcome { phase, mut summary, error, rich, duration_ms, .. } = outcome;
        // (A question back's answer is its result's own text.)
        if let Some(edited) = self.approvals.get(&call.id).and_then(|a| a.edited.as_ref())
            && !crate::runs::tools::ask::is_clarification(&call.name)
        {
            // The model learns the person narrowed its call, and to what.
            summary = outcomes::approved_with_edits(edited, &summary);
        }
        let row = ToolCallRow {
            llm_summary: Some(summary.clone()),
            result_json: rich.as_ref().and_then(|r| serde_json::to_string(r).ok()),
            duration_ms: Some(duration_ms),
            ..self.row(call, phase)
        };
        self.deps.log.record_tool_result(&row).await?;
        self.recorded.insert(call.id.clone());
        if let Some(rich) = &rich {
            Arc::make_mut(&mut self.shown).push((call.id.clone(), rich.clone()));
        }
        metrics::counter!("aware_tool_calls_total", "tool" => call.name.clone(), "outcome" => phase.as_str())
            .increment(1);
        self.audit(call, phase, duration_ms).await;
        self.emit(EventPayload::ToolStatus { tool_call_id: call.id.clone(), phase, message: String::new() }).await?;
        self.publish_result(call, (phase != ToolPhase::Succeeded, summary, error), duration_ms, rich).await
    }

    /// A call's result as the client sees it (`ToolResult`) and the model reads it (the
    /// transcript): `(is_error, summary, error)`.
    async fn publish_result(
        &mut self,
        call: &ToolCallRequest,
        (is_error, summary, error): (bool, String, Option<RunError>),
        duration_ms: u64,
        rich: Option<RichResult>,
    ) -> Result<()> {
        let retrieved = if let Some(RichResult::Knowledge { results }) = &rich
            && !is_error
        {
            Some(EventPayload::RetrievalCompleted {
                tool_call_id: call.id.clone(),
                query: results.query.clone(),
                chunk_ids: results.chunks.iter().map(|c| c.chunk_id.clone()).collect(),
            })
        } else {
            None
        };
        self.emit(EventPayload::ToolResult {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            is_error,
            llm_summary: summary.clone(),
            error,
            duration_ms,
            rich,
            provenance: Box::new(self.provenance(&call.name)),
        })
        .await?;
        // What the answer may cite.
        if let Some(retrieved) = retrieved {
            self.emit(retrieved).await?;
        }
        self.push_message(Message::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: summary,
            is_error,
        })
        .await
    }
}
