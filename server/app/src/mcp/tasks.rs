//! The MCP tasks extension (`io.modelcontextprotocol/tasks`) over aware's runs: a call that waits
//! for a person answers with a task whose id is its run's, and the task is read from the run's
//! durable log — so it outlives the request, the session and a restart of the server, and any
//! replica answers for it. `tasks/get` says where the run stands (`working`; `input_required`
//! with the approval form while a confirmation waits; `completed` with the call's result;
//! `cancelled`), `tasks/update` answers the approval, `tasks/cancel` cancels the run. Someone
//! else's task is not found, as their run is.

use super::follow::{Follow, Followed, Part, answer_confirmation, approval_request, approved_in, follow, to_mcp};
use super::results::{Called, POLL_MS, approval_key, approved_by_key, complete, result_from_json, run_of};
use crate::grpc::State;
use aware_domain::auth::Caller;
use aware_domain::ids::{ConfirmationId, RunId};
use aware_domain::run::{RunRecord, RunStatus};
use rmcp::model::{ElicitResult, GetTaskResult, InputResponses, Task};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

/// The task's fields every status shares.
fn base(run_id: &RunId, created_at: chrono::DateTime<chrono::Utc>, status: &str, message: &str) -> Value {
    json!({
        "taskId": run_id.as_str(),
        "status": status,
        "statusMessage": message,
        "createdAt": created_at.to_rfc3339(),
        "lastUpdatedAt": chrono::Utc::now().to_rfc3339(),
        // Runs are kept with their logs: a task does not expire.
        "ttlMs": null,
        "pollIntervalMs": POLL_MS,
    })
}

/// Where a run stands, as a task (`DetailedTask`'s JSON), from what its log holds (`now`).
fn task_of(run_id: &RunId, record: &RunRecord, now: &Followed) -> Result<Value, McpError> {
    Ok(if now.status == RunStatus::Cancelled {
        base(run_id, record.created_at, "cancelled", "the call was cancelled")
    } else if now.ended() {
        let mut task = base(run_id, record.created_at, "completed", "done");
        let result = complete(now, run_id, Called::of(record.kind))?;
        task["result"] = serde_json::to_value(result).map_err(|e| McpError::internal_error(e.to_string(), None))?;
        task
    } else if let Some(waiting) = &now.waiting {
        let message = format!(
            "waiting for a person to approve: {} (answer with tasks/update, or in aware itself)",
            waiting.description
        );
        let mut task = base(run_id, record.created_at, "input_required", &message);
        task["inputRequests"] = json!({approval_key(&waiting.confirmation_id): approval_request(waiting)});
        task
    } else {
        base(run_id, record.created_at, "working", "running")
    })
}

/// The task a call answers with when its run waits for a person, from where the call's
/// following left it (`followed`: its log is not read again).
pub(super) async fn seed(
    state: &State,
    caller: &Caller,
    run_id: &RunId,
    followed: &Followed,
) -> Result<Task, McpError> {
    let (record, _) = state.services.history.get(caller, run_id).await.map_err(|e| to_mcp(&e))?;
    let task = task_of(run_id, &record, followed)?;
    serde_json::from_value(task).map_err(|e| McpError::internal_error(format!("a task did not form: {e}"), None))
}

/// `tasks/get`.
pub(super) async fn get(
    state: &State,
    caller: &Caller,
    task_id: &str,
    ctx: &RequestContext<RoleServer>,
) -> Result<GetTaskResult, McpError> {
    let (run_id, record) = run_of(state, caller, task_id).await?;
    let now = follow(state, caller, &run_id, ctx, Follow::Now, Part::default()).await?;
    result_from_json(task_of(&run_id, &record, &now)?)
}

/// What a client answered to the approvals it was shown.
pub(super) enum Answered {
    /// No answer to an approval.
    Nothing,
    /// The form was dismissed: someone may still answer in aware.
    Dismissed,
    /// This confirmation was approved or denied (or had been answered already).
    Resolved(ConfirmationId),
}

/// Answers the approvals in `responses` (keyed by their confirmation's id, each an
/// `ElicitResult`). Only the confirmation a response names is answered — one answered meanwhile,
/// or someone else's, is left as it is (the engine checks who may answer it).
pub(super) async fn answer_approvals(
    state: &State,
    caller: &Caller,
    responses: Option<&InputResponses>,
) -> Result<Answered, McpError> {
    let mut answered = Answered::Nothing;
    for (key, response) in responses.into_iter().flatten() {
        let Some(id) = approved_by_key(key) else { continue };
        let answer: ElicitResult = serde_json::from_value(response.clone()).map_err(|e| {
            McpError::invalid_params(format!("the answer to {key:?} is not an elicitation result: {e}"), None)
        })?;
        let Some(approved) = approved_in(&answer) else {
            answered = Answered::Dismissed;
            continue;
        };
        answer_confirmation(state, caller, &id, approved).await;
        answered = Answered::Resolved(id);
    }
    Ok(answered)
}

/// `tasks/update`.
pub(super) async fn update(
    state: &State,
    caller: &Caller,
    task_id: &str,
    responses: &InputResponses,
) -> Result<(), McpError> {
    run_of(state, caller, task_id).await?;
    answer_approvals(state, caller, Some(responses)).await.map(|_| ())
}

/// `tasks/cancel`: cancels the run (a pending approval with it).
pub(super) async fn cancel(state: &State, caller: &Caller, task_id: &str) -> Result<(), McpError> {
    let (run_id, _) = run_of(state, caller, task_id).await?;
    state.runs.cancel(caller, &run_id).await.map_err(|e| to_mcp(&e))?;
    Ok(())
}
