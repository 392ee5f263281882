//! The MCP methods. Tools are aware's own registry through the same policy gate as chat runs: a
//! caller is listed the tools their role and this deployment allow, and a `tools/call` becomes a
//! run of kind `tool` (`RunEngine::call_tool`), so the gate, confirmations, limits, the audit
//! log (source `mcp`) and the event log apply to it as to a model's call. `ask_aware` runs the
//! whole agent (`RunEngine::send_message`, as `Chat` does).

use super::calls;
use super::follow::{Part, to_mcp};
use super::results::{Called, result_from_json};
use super::{catalog, tasks, tools};
use crate::grpc::State;
use aware_core::runs::{Admission, ClientToolCall, NewMessage, OnBusy};
use aware_domain::auth::Caller;
use aware_domain::ids::UserId;
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, Extensions, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, GetTaskParams, GetTaskResult, Implementation, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig,
    ServerNotification, SetLevelRequestParams, SubscriptionFilter, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
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

/// Waits until `owner`'s datasets change (a missed change counts: it may have been theirs);
/// `false` once no change can come. A session and a `subscriptions/listen` stream both hear it.
async fn next_change_of(changes: &mut tokio::sync::broadcast::Receiver<UserId>, owner: &UserId) -> bool {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        match changes.recv().await {
            Ok(whose) if whose == *owner => return true,
            Ok(_) => {}
            Err(RecvError::Lagged(_)) => return true,
            Err(RecvError::Closed) => return false,
        }
    }
}

/// A string argument (empty when absent).
fn text_arg<'a>(arguments: &'a Value, name: &str) -> &'a str {
    arguments.get(name).and_then(Value::as_str).unwrap_or_default()
}

impl AwareMcp {
    async fn ask_aware(
        &self,
        caller: &Caller,
        arguments: &Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let message =
            NewMessage::new("", text_arg(arguments, "thread_id"), text_arg(arguments, "question"), OnBusy::Enqueue)
                .map_err(|e| to_mcp(&e))?;
        let run_id = match self.state.runs.send_message(caller, message).await.map_err(|e| to_mcp(&e))? {
            Admission::Started { run_id, .. } | Admission::Repeated { run_id, .. } => run_id,
            Admission::Busy { active_run_id } => {
                return Err(McpError::internal_error(format!("the thread is busy with run {active_run_id}"), None));
            }
        };
        calls::answer(&self.state, caller, &run_id, Called::Ask, ctx, Part { started_it: true, answered: None }).await
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
            .enable_tasks()
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
                let more = tokio::select! {
                    () = ended.cancelled() => return,
                    more = next_change_of(&mut changes, &owner) => more,
                };
                if !more || ctx.peer.is_transport_closed() || ctx.peer.notify_resource_list_changed().await.is_err() {
                    return; // no more changes, or the session is gone
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
        listed.push(tools::get_call_result());
        result_from_json(json!({"tools": listed}))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let caller = caller(&ctx)?;
        // The retry of a call that answered `input_required`: the answer, then the run followed on.
        if let Some(state) = &request.request_state {
            return calls::resume(&self.state, &caller, state, request.input_responses.as_ref(), &ctx).await;
        }
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let name = request.name.as_ref();
        match name {
            tools::ASK_AWARE => return self.ask_aware(&caller, &arguments, &ctx).await,
            tools::GET_CALL_RESULT => {
                let run_id = text_arg(&arguments, "run_id");
                return calls::outcome(&self.state, &caller, run_id, &ctx).await.map(CallToolResponse::from);
            }
            _ => {}
        }
        if self.state.runs.policy().tool(name).and_then(|t| tools::listed(t.as_ref())).is_none() {
            return Err(McpError::invalid_params(format!("there is no tool {name:?}"), None));
        }
        let call = ClientToolCall { tool: name.to_owned(), arguments };
        let run_id = self.state.runs.call_tool(&caller, &call).await.map_err(|e| to_mcp(&e))?;
        calls::answer(&self.state, &caller, &run_id, Called::Tool, &ctx, Part { started_it: true, answered: None })
            .await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let caller = caller(&ctx)?;
        let datasets = self.state.services.datasets.list(&caller, None).await.map_err(|e| to_mcp(&e))?;
        result_from_json(json!({"resources": datasets.iter().map(catalog::listed).collect::<Vec<_>>()}))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        result_from_json(json!({"resourceTemplates": [catalog::template()]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let caller = caller(&ctx)?;
        let read = catalog::read(&self.state.services, &caller, &request.uri).await?;
        result_from_json::<ReadResourceResult>(read).map(ReadResourceResponse::from)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        result_from_json(catalog::prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        result_from_json::<GetPromptResult>(catalog::prompt(&request.name, request.arguments.as_ref())?)
            .map(GetPromptResponse::from)
    }

    /// A 2026-07-28 client's `subscriptions/listen`: it may hear when the caller's datasets
    /// change (`resources` list changed), as a session does after `initialize`.
    fn accepted_subscription_filter(&self, _requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().resources_list_changed().build())
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        let Some(owner) = caller_in(&subscription.request_context().extensions).map(|c| c.principal.user_id.clone())
        else {
            return Ok(());
        };
        let mut changes = self.state.services.datasets.changes();
        loop {
            let more = tokio::select! {
                () = subscription.cancelled() => return Ok(()),
                more = next_change_of(&mut changes, &owner) => more,
            };
            let notification = ServerNotification::ResourceListChangedNotification(Default::default());
            if !more || subscription.sink().send(notification).await.is_err() {
                return Ok(());
            }
        }
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let caller = caller(&ctx)?;
        tasks::get(&self.state, &caller, &request.task_id, &ctx).await
    }

    async fn update_task(&self, request: UpdateTaskParams, ctx: RequestContext<RoleServer>) -> Result<(), McpError> {
        let caller = caller(&ctx)?;
        tasks::update(&self.state, &caller, &request.task_id, &request.input_responses).await
    }

    async fn cancel_task(&self, request: CancelTaskParams, ctx: RequestContext<RoleServer>) -> Result<(), McpError> {
        let caller = caller(&ctx)?;
        tasks::cancel(&self.state, &caller, &request.task_id).await
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
