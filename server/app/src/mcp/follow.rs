//! An MCP call's run, followed to its end — or to a question only a person answers. Each tool
//! the run starts is a progress notification (when the client sent a progress token). A
//! confirmation is asked through `elicitation/create` when the client's session can elicit
//! ([`Follow::AskingInBand`]); otherwise following stops there ([`Follow::UntilAPerson`]) and the
//! call answers at once with a task, an `input_required` result or a pointer (`calls.rs`). The
//! confirmation stays pending in aware too (`ListPendingConfirmations`, the CLI, the web app),
//! and the first valid answer from anywhere wins. A client that cancels the request cancels the
//! run.

use crate::grpc::State;
use aware_core::runs::{Delivery, Framed};
use aware_domain::auth::Caller;
use aware_domain::events::{EventPayload, Resolution, RichResult, Tier};
use aware_domain::ids::{ConfirmationId, RunId};
use aware_domain::run::{RunError, RunStatus};
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::json;

/// One tool call's result, as the run's log has it.
pub(super) struct CallResult {
    pub tool_name: String,
    pub is_error: bool,
    pub summary: String,
    pub rich: Option<RichResult>,
    pub error: Option<RunError>,
    /// How its confirmation ended, when it needed one.
    pub resolution: Option<Resolution>,
}

/// A confirmation the run waits on.
#[derive(Clone, Debug)]
pub(super) struct Waiting {
    pub confirmation_id: ConfirmationId,
    pub tool_name: String,
    pub description: String,
    pub tier: Tier,
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// How far to follow a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Follow {
    /// To its end, asking the client's person (elicitation) whatever the run asks.
    AskingInBand,
    /// To its end, or to a confirmation nobody has answered yet, whichever comes first.
    UntilAPerson,
    /// What its log holds now: no waiting.
    Now,
}

/// A request's part in the run it follows.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Part<'a> {
    /// The request started the run (its `tools/call`): cancelling the request cancels the run.
    /// A later look at it (`get_call_result`, `tasks/get`, a retry) cancels nothing.
    pub started_it: bool,
    /// A confirmation the request has just answered: not waited on, though the run may not have
    /// logged its resolution yet.
    pub answered: Option<&'a ConfirmationId>,
}

/// A run's outcome, or where it stands.
pub(super) struct Followed {
    /// `Running` when the run has not ended (a confirmation waits, or `Follow::Now`).
    pub status: RunStatus,
    pub final_text: String,
    pub error: Option<RunError>,
    pub results: Vec<CallResult>,
    /// The confirmation the run waits on, when following stopped there.
    pub waiting: Option<Waiting>,
}

impl Followed {
    pub(super) fn ended(&self) -> bool {
        self.status.is_terminal()
    }
}

fn internal(e: impl std::fmt::Display) -> McpError {
    McpError::internal_error(e.to_string(), None)
}

/// An error of aware's as MCP says it: a request's fault (an unknown or someone else's run, a
/// malformed argument) is invalid params, anything else internal.
pub(super) fn to_mcp(e: &aware_core::Error) -> McpError {
    use aware_core::ErrorCode;
    if matches!(e.code, ErrorCode::ValidationError | ErrorCode::NotFound | ErrorCode::UnknownRun) {
        McpError::invalid_params(e.message.clone(), None)
    } else {
        McpError::internal_error(e.message.clone(), None)
    }
}

/// The run's next delivery, unless the request is cancelled first: then the request fails, and
/// the run is cancelled too when this request started it.
async fn next_delivery(
    framed: &mut Framed,
    state: &State,
    caller: &Caller,
    run_id: &RunId,
    ctx: &RequestContext<RoleServer>,
    started_it: bool,
) -> Result<Delivery, McpError> {
    let delivery = tokio::select! {
        biased;
        () = ctx.ct.cancelled() => {
            if started_it {
                let _ = state.runs.cancel(caller, run_id).await;
                return Err(McpError::internal_error("the request was cancelled; so is its run", None));
            }
            return Err(McpError::internal_error("the request was cancelled (the run goes on)", None));
        }
        d = framed.next() => d.map_err(internal)?,
    };
    delivery.ok_or_else(|| internal("the run's log ended before the run did"))
}

/// Follows `run_id` from its first event as far as `how` says.
pub(super) async fn follow(
    state: &State,
    caller: &Caller,
    run_id: &RunId,
    ctx: &RequestContext<RoleServer>,
    how: Follow,
    part: Part<'_>,
) -> Result<Followed, McpError> {
    let mut framed = state.runs.subscribe(caller, run_id, 0).await.map_err(|e| to_mcp(&e))?.framed(Some(0));
    let progress = ctx.meta.get_progress_token();
    let mut steps = 0u32;
    let mut results: Vec<CallResult> = Vec::new();
    let mut pending_resolution: Option<Resolution> = None;
    let mut waiting: Option<Waiting> = None;
    let mut live = false;
    let so_far = |results, waiting| Followed {
        status: RunStatus::Running,
        final_text: String::new(),
        error: None,
        results,
        waiting,
    };
    loop {
        let event = match next_delivery(&mut framed, state, caller, run_id, ctx, part.started_it).await? {
            Delivery::Event(e) => e,
            Delivery::ReplayStarted { .. } => continue,
            Delivery::ReplayFinished { live: still_running, .. } => {
                live = true;
                let stop_here = how == Follow::Now || (how == Follow::UntilAPerson && waiting.is_some());
                if still_running && stop_here {
                    return Ok(so_far(results, waiting));
                }
                continue;
            }
        };
        match &event.payload {
            EventPayload::ToolCallStarted { title, .. } => {
                steps += 1;
                if let Some(token) = &progress {
                    notify(ctx, token, steps, title).await;
                }
            }
            EventPayload::ConfirmationRequired {
                confirmation_id, description, tier, tool_name, expires_at, ..
            } => {
                if part.answered == Some(confirmation_id) {
                    continue; // answered by this request; its resolution is on its way to the log
                }
                if how == Follow::AskingInBand {
                    ask(state.clone(), caller.clone(), ctx.clone(), confirmation_id.clone(), description, *tier);
                }
                waiting = Some(Waiting {
                    confirmation_id: confirmation_id.clone(),
                    tool_name: tool_name.clone(),
                    description: description.clone(),
                    tier: *tier,
                    expires_at: *expires_at,
                });
                if live && how == Follow::UntilAPerson {
                    return Ok(so_far(results, waiting));
                }
            }
            EventPayload::ClarificationRequired { clarification_id, question, .. } => {
                if how == Follow::AskingInBand {
                    clarify(state.clone(), caller.clone(), ctx.clone(), clarification_id.clone(), question);
                }
            }
            EventPayload::ConfirmationResolved { resolution, .. } => {
                pending_resolution = Some(*resolution);
                waiting = None;
            }
            EventPayload::ToolResult { tool_name, is_error, llm_summary, error, rich, .. } => {
                results.push(CallResult {
                    tool_name: tool_name.clone(),
                    is_error: *is_error,
                    summary: llm_summary.clone(),
                    rich: rich.clone(),
                    error: error.clone(),
                    resolution: pending_resolution.take(),
                });
            }
            EventPayload::ToolDenied { tool_name, reason, .. } => {
                results.push(CallResult {
                    tool_name: tool_name.clone(),
                    is_error: true,
                    summary: reason.clone(),
                    rich: None,
                    error: None,
                    resolution: None,
                });
            }
            EventPayload::RunCompleted { status, final_text, error, .. } => {
                return Ok(Followed {
                    status: *status,
                    final_text: final_text.clone(),
                    error: error.clone(),
                    results,
                    waiting: None,
                });
            }
            EventPayload::RunStarted { .. }
            | EventPayload::TextStarted { .. }
            | EventPayload::TextDelta { .. }
            | EventPayload::TextEnded { .. }
            | EventPayload::ToolStatus { .. }
            | EventPayload::MemorySaved { .. }
            | EventPayload::MemoryForgotten { .. }
            | EventPayload::Grounding { .. }
            | EventPayload::RetrievalCompleted { .. }
            | EventPayload::ClarificationResolved { .. }
            | EventPayload::RoutingDecided { .. } => {}
        }
    }
}

async fn notify(ctx: &RequestContext<RoleServer>, token: &ProgressToken, step: u32, title: &str) {
    let param = serde_json::from_value::<ProgressNotificationParam>(json!({
        "progressToken": token,
        "progress": step,
        "message": format!("{title}…"),
    }));
    if let Ok(param) = param
        && let Err(e) = ctx.peer.notify_progress(param).await
    {
        tracing::debug!(error = %e, "an MCP progress notification was not delivered");
    }
}

/// The form that asks a person to approve (`elicitation/create`'s params): in a session's
/// elicitation, an `input_required` result and a task's input requests alike.
pub(super) fn approval_form(description: &str, tier: Tier) -> serde_json::Value {
    let message = format!(
        "aware asks before it acts ({} tier): {} Approve? You can also answer in aware itself.",
        tier.as_str(),
        description.trim_end_matches('.').to_owned() + "."
    );
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {"approve": {"type": "boolean", "title": "Approve", "description": "Go ahead"}},
            "required": ["approve"]
        }
    })
}

/// The approval form as one of a result's (or a task's) input requests.
pub(super) fn approval_request(waiting: &Waiting) -> serde_json::Value {
    json!({"method": "elicitation/create", "params": approval_form(&waiting.description, waiting.tier)})
}

/// Answers confirmation `id` for `caller` (from an elicitation, an `input_required` retry or a
/// task update). One answered meanwhile, or not the caller's, is left as it is: the engine checks
/// who may answer and the first answer wins.
pub(super) async fn answer_confirmation(state: &State, caller: &Caller, id: &ConfirmationId, approved: bool) {
    if let Err(e) = state.runs.resolve_confirmation(caller, id, aware_core::runs::Answer::once(approved)).await {
        tracing::debug!(error = %e, "an MCP client's answer came after another, or named no confirmation of theirs");
    }
}

/// What a person answered to [`approval_form`]: `None` when they dismissed it (someone may
/// still answer in aware).
pub(super) fn approved_in(answer: &ElicitResult) -> Option<bool> {
    match answer.action {
        ElicitationAction::Accept => {
            answer.content.as_ref().and_then(|c| c.get("approve")).and_then(serde_json::Value::as_bool)
        }
        ElicitationAction::Decline => Some(false),
        // Dismissed (or an answer this SDK does not know).
        ElicitationAction::Cancel | _ => None,
    }
}

/// Asks the client's person to approve, in the background: an answer resolves the confirmation
/// (unless someone answered in aware first); a dismissed or failed request leaves it pending.
fn ask(
    state: State,
    caller: Caller,
    ctx: RequestContext<RoleServer>,
    id: ConfirmationId,
    description: &str,
    tier: Tier,
) {
    let form = approval_form(description, tier);
    tokio::spawn(async move {
        let Ok(params) = serde_json::from_value::<ElicitRequestParams>(form) else { return };
        let answer: ElicitResult = match ctx.peer.create_elicitation(params).await {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(error = %e, "an MCP elicitation failed; the confirmation stays pending");
                return;
            }
        };
        if let Some(approved) = approved_in(&answer) {
            answer_confirmation(&state, &caller, &id, approved).await;
        }
    });
}

/// Asks the client's person which option they meant, in the background: a choice answers the
/// clarification (unless someone answered in aware first); a decline dismisses it.
fn clarify(
    state: State,
    caller: Caller,
    ctx: RequestContext<RoleServer>,
    id: ConfirmationId,
    question: &aware_domain::events::Clarification,
) {
    let values: Vec<&str> = question.options.iter().map(|o| o.value.as_str()).collect();
    let labels: Vec<&str> = question.options.iter().map(|o| o.label.as_str()).collect();
    let params = serde_json::from_value::<ElicitRequestParams>(json!({
        "mode": "form",
        "message": format!("aware asks: {} You can also answer in aware itself.", question.question),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "choice": {"type": "string", "title": "Which one", "enum": values, "enumNames": labels},
                "remember": {"type": "boolean", "title": "Remember", "description": "Keep this as a rule of the dataset"}
            },
            "required": ["choice"]
        }
    }));
    tokio::spawn(async move {
        let Ok(params) = params else { return };
        let answer: ElicitResult = match ctx.peer.create_elicitation(params).await {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(error = %e, "an MCP elicitation failed; the clarification stays open");
                return;
            }
        };
        let field = |name: &str| answer.content.as_ref().and_then(|c| c.get(name)).cloned();
        let choice = match answer.action {
            ElicitationAction::Accept => field("choice").and_then(|c| c.as_str().map(str::to_owned)).map(Some),
            ElicitationAction::Decline => Some(None),
            ElicitationAction::Cancel | _ => None,
        };
        let remember = field("remember").and_then(|r| r.as_bool()).unwrap_or(false);
        if let Some(choice) = choice
            && let Err(e) = state.runs.resolve_clarification(&caller, &id, choice.as_deref(), remember).await
        {
            tracing::debug!(error = %e, "an MCP client's answer came after another");
        }
    });
}
