//! A call's result as MCP returns it, wherever it is asked for (the call itself, a retry,
//! `get_call_result`, a task): the tool's own result, an `ask_aware` run's answer, why a run
//! ended without one; the run a request names; the keys approvals are answered under.

use super::follow::{CallResult, Followed, to_mcp};
use super::host_text;
use crate::grpc::State;
use aware_domain::auth::Caller;
use aware_domain::events::Resolution;
use aware_domain::ids::{ConfirmationId, RunId};
use aware_domain::run::{RunKind, RunRecord, RunStatus};
use rmcp::ErrorData as McpError;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The key of a confirmation's approval among an `input_required` result's (or a task's) input
/// requests: the confirmation's own id, so a late answer can only answer what its person saw.
pub(super) fn approval_key(id: &ConfirmationId) -> String {
    format!("approve:{id}")
}

/// The confirmation an input response's key answers.
pub(super) fn approved_by_key(key: &str) -> Option<ConfirmationId> {
    key.strip_prefix("approve:").and_then(ConfirmationId::parse)
}

/// A task's suggested polling interval (ms).
pub(super) const POLL_MS: u64 = 1_000;

/// An MCP result type from its JSON (the spec's own shape), marked complete: a 2026-07-28 client
/// requires `resultType`, and rmcp takes it off for a client of an older revision.
pub(super) fn result_from_json<T: DeserializeOwned>(mut v: Value) -> Result<T, McpError> {
    if let Some(object) = v.as_object_mut() {
        object.entry("resultType").or_insert_with(|| json!("complete"));
    }
    serde_json::from_value(v).map_err(|e| McpError::internal_error(format!("an MCP result did not form: {e}"), None))
}

/// What the call was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Called {
    /// One of aware's tools (a run of kind `tool`).
    Tool,
    /// `ask_aware`: a whole agent run.
    Ask,
}

impl Called {
    pub(super) fn of(kind: RunKind) -> Self {
        if kind == RunKind::Tool { Self::Tool } else { Self::Ask }
    }
}

/// A finished call's result, as the call would have answered it.
pub(super) fn complete(
    followed: &Followed,
    run_id: &RunId,
    called: Called,
) -> Result<rmcp::model::CallToolResult, McpError> {
    match called {
        Called::Tool => match followed.results.last() {
            Some(r) => tool_result(r, run_id),
            None => result_from_json(json!({
                "content": [{"type": "text", "text": why_it_ended(followed)}],
                "isError": true,
                "_meta": {"aware/run_id": run_id.as_str()},
            })),
        },
        Called::Ask => ask_result(followed, run_id),
    }
}

/// What an MCP client reads for one tool call: the summary aware wrote, the rows as text for a
/// host's model, the rich result as `structuredContent`, `isError` when it did not do its work.
fn tool_result(r: &CallResult, run_id: &RunId) -> Result<rmcp::model::CallToolResult, McpError> {
    let text = match r.resolution {
        Some(Resolution::Denied | Resolution::Expired | Resolution::Cancelled | Resolution::Superseded) => {
            format!("not approved: {}", r.summary)
        }
        Some(Resolution::Approved | Resolution::Pending) | None => match (&r.error, &r.rich) {
            (Some(e), _) if r.is_error => format!("{} ({})", r.summary, e.code.as_str()),
            (_, Some(rich)) if !r.is_error => host_text::render(&r.summary, rich),
            (Some(_) | None, _) => r.summary.clone(),
        },
    };
    let mut content = vec![json!({"type": "text", "text": text})];
    if let (false, Some(chart)) = (r.is_error, chart_of(r)) {
        content.push(json!({"type": "resource", "resource": {
            "uri": format!("aware://runs/{run_id}/chart"),
            "mimeType": "application/vnd.vegalite.v5+json",
            "text": chart.spec.to_string(),
        }}));
    }
    let mut result = json!({
        "content": content,
        "isError": r.is_error,
        "_meta": {"aware/run_id": run_id.as_str()},
    });
    if let (false, Some(rich)) = (r.is_error, &r.rich) {
        result["structuredContent"] =
            serde_json::to_value(rich).map_err(|e| McpError::internal_error(e.to_string(), None))?;
    }
    result_from_json(result)
}

/// The chart a result's table calls for (the one aware's clients draw), as a Vega-Lite v5 spec
/// with its rows inline: a host that renders Vega-Lite shows it.
fn chart_of(r: &CallResult) -> Option<aware_domain::chart::Chart> {
    if let aware_domain::events::RichResult::Table { table, .. } = r.rich.as_ref()? {
        aware_domain::chart::chart_for(table)
    } else {
        None
    }
}

/// `ask_aware`'s result: the answer, and each result it showed (as text and structured).
fn ask_result(followed: &Followed, run_id: &RunId) -> Result<rmcp::model::CallToolResult, McpError> {
    let results: Vec<Value> = followed
        .results
        .iter()
        .filter_map(|r| Some(json!({"tool": r.tool_name, "result": serde_json::to_value(r.rich.as_ref()?).ok()?})))
        .collect();
    let answer = if followed.final_text.is_empty() { why_it_ended(followed) } else { followed.final_text.clone() };
    let shown: Vec<String> = followed
        .results
        .iter()
        .filter(|r| !r.is_error)
        .filter_map(|r| Some(host_text::render(&format!("{} showed:", r.tool_name), r.rich.as_ref()?)))
        .collect();
    let text = if shown.is_empty() { answer.clone() } else { format!("{answer}\n\n{}", shown.join("\n\n")) };
    result_from_json(json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": {
            "answer": answer,
            "run_id": run_id.as_str(),
            "status": followed.status.as_str(),
            "results": results,
        },
        "isError": followed.status != RunStatus::Succeeded,
        "_meta": {"aware/run_id": run_id.as_str()},
    }))
}

/// Why a run ended without an answer (cancelled before its call, or failed).
fn why_it_ended(f: &Followed) -> String {
    f.error.as_ref().map_or_else(|| format!("the run ended {}", f.status.as_str()), |e| e.message.clone())
}

/// The run a client names (`requestState`, a task id, the `get_call_result` argument) with its
/// record: one of the caller's runs — someone else's is not found, as an unknown one.
pub(super) async fn run_of(state: &State, caller: &Caller, raw: &str) -> Result<(RunId, RunRecord), McpError> {
    let id =
        RunId::parse(raw.trim()).ok_or_else(|| McpError::invalid_params(format!("{raw:?} is not a run id"), None))?;
    let (record, _) = state.services.history.get(caller, &id).await.map_err(|e| to_mcp(&e))?;
    Ok((id, record))
}
