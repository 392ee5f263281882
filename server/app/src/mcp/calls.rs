//! A `tools/call` as a host meets it: the run it starts, followed to its result — and when the
//! run waits for a person, an answer that does not block for the approval's lifetime (hosts time
//! long calls out, ~60 s is common). How the person is asked depends on the client:
//!
//! - it declared the tasks extension (`io.modelcontextprotocol/tasks`): a task as soon as the
//!   run waits for a person (`resultType: "task"`, its id the run's), polled with `tasks/get`, answered with
//!   `tasks/update`, cancelled with `tasks/cancel` (`tasks.rs`);
//! - a 2026-07-28 request from a client that elicits: an `input_required` result carrying the
//!   approval form; the retry with the answer resolves it and follows the run on;
//! - a session (2025-11-25 and older) that elicits: `elicitation/create` on the session, the call
//!   waiting for that answer (the host is asking its person now);
//! - anyone else: at once, a result saying what waits, where to approve it (the web app's run
//!   page, `aware approvals`, gRPC `ListPendingConfirmations`) and how to fetch the outcome later
//!   (the `get_call_result` tool).
//!
//! Results (`results.rs`) carry the rows a host model reads as text (`host_text.rs`) beside the
//! rich result as `structuredContent`, and a table's chart as an embedded Vega-Lite resource.

use super::follow::{Follow, Followed, Part, Waiting, approval_request, follow};
use super::results::{Called, approval_key, complete, result_from_json, run_of};
use crate::grpc::State;
use aware_domain::auth::Caller;
use aware_domain::ids::RunId;
use rmcp::model::{CallToolResponse, ClientCapabilities, CreateTaskResult, InputRequiredResult, ProtocolVersion};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::json;

/// How long `get_call_result` waits for a run that is still working before it says so.
const OUTCOME_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// How this request's client can hear a question for a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asks {
    Task,
    InputRequired,
    OnTheSession,
    Nobody,
}

fn elicits_forms(caps: &ClientCapabilities) -> bool {
    caps.elicitation.as_ref().is_some_and(|e| e.form.is_some() || e.url.is_none())
}

fn asks(ctx: &RequestContext<RoleServer>) -> Asks {
    let caps = ctx.client_capabilities().unwrap_or_default();
    let modern = ctx.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if caps.supports_tasks() {
        Asks::Task
    } else if elicits_forms(&caps) && modern {
        Asks::InputRequired
    } else if elicits_forms(&caps) {
        Asks::OnTheSession
    } else {
        Asks::Nobody
    }
}

/// Follows the call's run and answers: its result, or — when it waits for a person — what this
/// client can do with that.
pub(super) async fn answer(
    state: &State,
    caller: &Caller,
    run_id: &RunId,
    called: Called,
    ctx: &RequestContext<RoleServer>,
    part: Part<'_>,
) -> Result<CallToolResponse, McpError> {
    let how = asks(ctx);
    let follow_how = if how == Asks::OnTheSession { Follow::AskingInBand } else { Follow::UntilAPerson };
    let followed = follow(state, caller, run_id, ctx, follow_how, part).await?;
    match (&followed.waiting, how) {
        (Some(_), Asks::Task) => {
            let task = super::tasks::seed(state, caller, run_id, &followed).await?;
            Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
        }
        (Some(waiting), Asks::InputRequired) => Ok(CallToolResponse::InputRequired(input_required(waiting, run_id)?)),
        (Some(_), Asks::OnTheSession | Asks::Nobody) | (None, _) => {
            settled(ctx, &followed, run_id, called).map(CallToolResponse::from)
        }
    }
}

/// A call's result as far as its run has got: the pointer to a person while an approval waits,
/// else the run's own result.
fn settled(
    ctx: &RequestContext<RoleServer>,
    followed: &Followed,
    run_id: &RunId,
    called: Called,
) -> Result<rmcp::model::CallToolResult, McpError> {
    match &followed.waiting {
        Some(waiting) => pending(ctx, waiting, run_id, followed),
        None => complete(followed, run_id, called),
    }
}

/// The retry of a call that answered `input_required`, with what the client's person answered:
/// an approval or a denial resolves that confirmation and the run is followed on; a dismissed
/// form is not asked again — the call answers with where to approve instead.
pub(super) async fn resume(
    state: &State,
    caller: &Caller,
    request_state: &str,
    responses: Option<&rmcp::model::InputResponses>,
    ctx: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let (run_id, record) = run_of(state, caller, request_state).await?;
    let called = Called::of(record.kind);
    match super::tasks::answer_approvals(state, caller, responses).await? {
        super::tasks::Answered::Resolved(id) => {
            answer(state, caller, &run_id, called, ctx, Part { started_it: false, answered: Some(&id) }).await
        }
        super::tasks::Answered::Dismissed => {
            let now = follow(state, caller, &run_id, ctx, Follow::UntilAPerson, Part::default()).await?;
            settled(ctx, &now, &run_id, called).map(CallToolResponse::from)
        }
        super::tasks::Answered::Nothing => answer(state, caller, &run_id, called, ctx, Part::default()).await,
    }
}

/// The `input_required` result that asks for an approval; the retry echoes `requestState` (the
/// run id: aware checks on the retry that the run is the caller's).
fn input_required(waiting: &Waiting, run_id: &RunId) -> Result<InputRequiredResult, McpError> {
    result_from_json(json!({
        "resultType": "input_required",
        "inputRequests": {approval_key(&waiting.confirmation_id): approval_request(waiting)},
        "requestState": run_id.as_str(),
    }))
}

/// Where a person approves the run's confirmation, as the host can tell them.
fn where_to_approve(ctx: &RequestContext<RoleServer>, waiting: &Waiting, run_id: &RunId) -> String {
    let host = ctx
        .extensions
        .get::<http::request::Parts>()
        .and_then(|p| p.headers.get(http::header::HOST))
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned);
    let web = host.map_or_else(
        || format!("the web app's page of run {run_id}"),
        |host| format!("the web app at http://{host}/runs/{run_id}"),
    );
    format!(
        "{web}, or with `aware approvals approve {id}` (or `deny`), or over gRPC (aware.v1.ChatService: \
         ListPendingConfirmations, SubmitConfirmation {id})",
        id = waiting.confirmation_id
    )
}

/// A call that waits for a person, said at once: what waits, where to approve, how to get the
/// outcome. Not an error (nothing failed) — its `structuredContent` is the `pending_approval`
/// shape every tool that asks declares in its output schema.
fn pending(
    ctx: &RequestContext<RoleServer>,
    waiting: &Waiting,
    run_id: &RunId,
    followed: &Followed,
) -> Result<rmcp::model::CallToolResult, McpError> {
    let text = format!(
        "Waiting for a person to approve ({} tier): {} Nothing has been done yet. Ask the user to approve or deny it \
         in {} before {} UTC; then call get_call_result with run_id \"{run_id}\" for the outcome (if nobody answers \
         by then, nothing happens).",
        waiting.tier.as_str(),
        waiting.description.trim_end_matches('.').to_owned() + ".",
        where_to_approve(ctx, waiting, run_id),
        waiting.expires_at.format("%Y-%m-%d %H:%M:%S"),
    );
    let done: Vec<&str> = followed.results.iter().map(|r| r.tool_name.as_str()).collect();
    result_from_json(json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": {
            "type": "pending_approval",
            "run_id": run_id.as_str(),
            "confirmation_id": waiting.confirmation_id.as_str(),
            "tool": waiting.tool_name,
            "description": waiting.description,
            "tier": waiting.tier.as_str(),
            "expires_at": waiting.expires_at.to_rfc3339(),
            "steps_done": done,
        },
        "isError": false,
        "_meta": {"aware/run_id": run_id.as_str()},
    }))
}

/// `get_call_result`: the outcome of a call that answered before a person had approved: its
/// result once the run has ended, the `pending_approval` result again while the approval waits,
/// or — when the run is still working after [`OUTCOME_WAIT`] — that it is, to ask again.
pub(super) async fn outcome(
    state: &State,
    caller: &Caller,
    raw_run_id: &str,
    ctx: &RequestContext<RoleServer>,
) -> Result<rmcp::model::CallToolResult, McpError> {
    let (run_id, record) = run_of(state, caller, raw_run_id).await?;
    let following = follow(state, caller, &run_id, ctx, Follow::UntilAPerson, Part::default());
    let Ok(followed) = tokio::time::timeout(OUTCOME_WAIT, following).await else {
        return result_from_json(json!({
            "content": [{"type": "text", "text": format!("Run {run_id} is still working; ask again with get_call_result.")}],
            "structuredContent": {"type": "running", "run_id": run_id.as_str()},
            "isError": false,
        }));
    };
    settled(ctx, &followed?, &run_id, Called::of(record.kind))
}
