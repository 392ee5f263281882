//! The MCP methods. Tools are aware's own registry through the same policy gate as chat runs: a
//! caller is listed the tools their role and this deployment allow, and a `tools/call` becomes a
//! run of kind `tool` (`RunEngine::call_tool`), so the gate, confirmations, limits, the audit
//! log (source `mcp`) and the event log apply to it as to a model's call. `ask_aware` runs the
//! whole agent (`RunEngine::send_message`, as `Chat` does).

use super::follow::{CallResult, Followed, follow};
use super::{catalog, tools};
use crate::grpc::State;
use aware_core::auth::Caller;
use aware_core::run::RunStatus;
use aware_core::runs::events::Resolution;
use aware_core::runs::{Admission, ClientToolCall, NewMessage, OnBusy};
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Extensions, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerCapabilities, ServerConfig, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio_util::sync::{CancellationToken, DropGuard};

/// One MCP session's handler (the state is shared by all).
pub(crate) struct AwareMcp {
    state: State,
    /// Cancelled when the handler is dropped, that is when its session has ended: the tasks the
    /// session started (its `list_changed` listener) end with it instead of holding it in memory.
    ended: CancellationToken,
    _end_on_drop: DropGuard,
}

impl AwareMcp {
    pub(crate) fn new(state: State) -> Self {
        let ended = CancellationToken::new();
        Self { state, _end_on_drop: ended.clone().drop_guard(), ended }
    }
}

/// The authenticated caller of the HTTP request that carried a message (`mod.rs` puts it there).
fn caller_in(extensions: &Extensions) -> Option<&Caller> {
    extensions.get::<http::request::Parts>().and_then(|parts| parts.extensions.get::<Caller>())
}

fn caller(ctx: &RequestContext<RoleServer>) -> Result<Caller, McpError> {
    caller_in(&ctx.extensions)
        .cloned()
        .ok_or_else(|| McpError::internal_error("the request carries no authenticated caller", None))
}

/// An MCP type from its JSON (the spec's own shape).
fn from_json<T: DeserializeOwned>(v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| McpError::internal_error(format!("an MCP result did not form: {e}"), None))
}

fn to_mcp(e: &aware_core::Error) -> McpError {
    use aware_core::ErrorCode;
    if matches!(e.code, ErrorCode::ValidationError | ErrorCode::NotFound) {
        McpError::invalid_params(e.message.clone(), None)
    } else {
        McpError::internal_error(e.message.clone(), None)
    }
}

/// What an MCP client reads for one call: a short text (the summary the model would get), the
/// rich result as `structuredContent`, `isError` when it did not do its work.
fn call_result(r: &CallResult, run_id: &str) -> Result<CallToolResult, McpError> {
    let text = match r.resolution {
        Some(Resolution::Denied | Resolution::Expired | Resolution::Cancelled | Resolution::Superseded) => {
            format!("not approved: {}", r.summary)
        }
        Some(Resolution::Approved | Resolution::Pending) | None => match &r.error {
            Some(e) if r.is_error => format!("{} ({})", r.summary, e.code.as_str()),
            Some(_) | None => r.summary.clone(),
        },
    };
    let mut result = json!({
        "content": [{"type": "text", "text": text}],
        "isError": r.is_error,
        "_meta": {"aware/run_id": run_id},
    });
    if let (false, Some(rich)) = (r.is_error, &r.rich) {
        result["structuredContent"] =
            serde_json::to_value(rich).map_err(|e| McpError::internal_error(e.to_string(), None))?;
    }
    from_json(result)
}

/// Why a run ended without an answer (cancelled before its call, or failed).
fn why_it_ended(f: &Followed) -> String {
    f.error.as_ref().map_or_else(|| format!("the run ended {}", f.status.as_str()), |e| e.message.clone())
}

impl AwareMcp {
    async fn call_tool_run(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let call = ClientToolCall { tool: name.to_owned(), arguments };
        let run_id = self.state.runs.call_tool(caller, &call).await.map_err(|e| to_mcp(&e))?;
        let followed = follow(&self.state, caller, &run_id, ctx).await?;
        match followed.results.last() {
            Some(r) => call_result(r, run_id.as_str()),
            None => from_json(json!({"content": [{"type": "text", "text": why_it_ended(&followed)}], "isError": true})),
        }
    }

    async fn ask_aware(
        &self,
        caller: &Caller,
        arguments: &Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let question = arguments.get("question").and_then(Value::as_str).unwrap_or_default();
        let thread_id = arguments.get("thread_id").and_then(Value::as_str).unwrap_or_default();
        let message = NewMessage {
            client_msg_id: String::new(),
            thread_id: thread_id.to_owned(),
            text: question.to_owned(),
            on_busy: OnBusy::Enqueue,
        };
        let run_id = match self.state.runs.send_message(caller, message).await.map_err(|e| to_mcp(&e))? {
            Admission::Started { run_id, .. } | Admission::Repeated { run_id, .. } => run_id,
            Admission::Busy { active_run_id } => {
                return Err(McpError::internal_error(format!("the thread is busy with run {active_run_id}"), None));
            }
        };
        let followed = follow(&self.state, caller, &run_id, ctx).await?;
        let results: Vec<Value> = followed
            .results
            .iter()
            .filter_map(|r| Some(json!({"tool": r.tool_name, "result": serde_json::to_value(r.rich.as_ref()?).ok()?})))
            .collect();
        let answer = if followed.final_text.is_empty() { why_it_ended(&followed) } else { followed.final_text.clone() };
        from_json(json!({
            "content": [{"type": "text", "text": answer}],
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
}

impl ServerHandler for AwareMcp {
    // Logging is in the 2025-11-25 revision most clients speak (SEP-2577 drops it later).
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_prompts()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .build();
        InitializeResult::new(capabilities)
            .with_server_info(Implementation::new("aware", env!("CARGO_PKG_VERSION")).with_title("aware"))
            .with_instructions(
                "aware is a data assistant over the user's datasets. Use its tools to list, describe, \
                 preview, query (read-only DuckDB SQL), profile and search datasets; use ask_aware for a \
                 question in plain English. Deleting asks a person first.",
            )
    }

    /// From now on the session hears when the caller's datasets change
    /// (`notifications/resources/list_changed`), until it closes.
    async fn on_initialized(&self, ctx: NotificationContext<RoleServer>) {
        let Some(owner) = caller_in(&ctx.extensions).map(|c| c.principal.user_id.clone()) else {
            return;
        };
        let mut changes = self.state.services.datasets.changes();
        let ended = self.ended.clone();
        tokio::spawn(async move {
            loop {
                let changed = tokio::select! {
                    () = ended.cancelled() => return,
                    changed = changes.recv() => changed,
                };
                let mine = match changed {
                    Ok(whose) => whose == owner,
                    // Missed some: one of them may have been this caller's.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => true,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                };
                if ctx.peer.is_transport_closed() {
                    return;
                }
                if mine && ctx.peer.notify_resource_list_changed().await.is_err() {
                    return; // the session is gone
                }
            }
        });
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let caller = caller(&ctx)?;
        let mut listed: Vec<Value> =
            self.state.runs.policy().available(&caller).iter().filter_map(|t| tools::listed(t.as_ref())).collect();
        listed.push(tools::ask_aware());
        from_json(json!({"tools": listed}))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let caller = caller(&ctx)?;
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let name = request.name.as_ref();
        if name == tools::ASK_AWARE {
            return self.ask_aware(&caller, &arguments, &ctx).await.map(CallToolResponse::from);
        }
        if self.state.runs.policy().tool(name).and_then(|t| tools::listed(t.as_ref())).is_none() {
            return Err(McpError::invalid_params(format!("there is no tool {name:?}"), None));
        }
        self.call_tool_run(&caller, name, arguments, &ctx).await.map(CallToolResponse::from)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let caller = caller(&ctx)?;
        let datasets = self.state.services.datasets.list(&caller, None).await.map_err(|e| to_mcp(&e))?;
        from_json(json!({"resources": datasets.iter().map(catalog::listed).collect::<Vec<_>>()}))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        from_json(json!({"resourceTemplates": [catalog::template()]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let caller = caller(&ctx)?;
        let read = catalog::read(&self.state.services, &caller, &request.uri).await?;
        from_json::<ReadResourceResult>(read).map(ReadResourceResponse::from)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        from_json(catalog::prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        from_json::<GetPromptResult>(catalog::prompt(&request.name, request.arguments.as_ref())?)
            .map(GetPromptResponse::from)
    }

    /// aware sends no log messages over MCP (its logs stay on the server); any level is accepted.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        _request: SetLevelRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(())
    }
}
