//! One external server's tool as an aware tool: named `server.tool`, gated by the scope its
//! configuration maps it to, its risk from its annotations (hints that only ever add caution), and
//! its output treated as data — the model reads a capped text marked as external content, the
//! client gets the whole result.

use crate::config::ScopeConfig;
use crate::registry::Slot;
use async_trait::async_trait;
use aware_core::runs::events::{ResourceRef, RichResult, Tier, ToolRisk};
use aware_core::runs::model_view::markers;
use aware_core::runs::tools::{Gate, Prepared, ScopeGrant, Tool, ToolContext, ToolId, ToolMeta, ToolOutput};
use aware_core::{Error, ErrorCode, Result};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

/// What the model may read of an external tool's output or description, at most.
const MAX_TEXT: usize = 2_000;
const MAX_DESCRIPTION: usize = 400;

fn capped(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (format!("{}…", &text[..at]), true),
        None => (text.to_owned(), false),
    }
}

pub(crate) struct ExternalTool {
    meta: ToolMeta,
    schema: Value,
    /// The tool's name on its server.
    remote: String,
    slot: Arc<Slot>,
    timeout: Duration,
}

impl ExternalTool {
    pub(crate) fn new(
        slot: Arc<Slot>,
        tool: &rmcp::model::Tool,
        scope: Option<&ScopeConfig>,
        timeout: Duration,
    ) -> Self {
        let id = ToolId::external(&slot.config.id, &tool.name);
        let hints = tool.annotations.clone().unwrap_or_default();
        let confirm = scope.is_some_and(|s| s.confirm);
        // Hints are untrusted: they may add caution, never remove it (MCP's defaults: destructive
        // and open-world unless the server says otherwise).
        let read_only = hints.read_only_hint == Some(true) && !confirm;
        let destructive = !read_only && hints.destructive_hint != Some(false);
        let open_world = hints.open_world_hint != Some(false);
        let confirmation = if destructive {
            Some(Tier::Elevated)
        } else if confirm || open_world {
            Some(Tier::Standard)
        } else {
            None
        };
        let title = tool.title.clone().or(hints.title).unwrap_or_else(|| tool.name.to_string());
        let (description, _) = capped(tool.description.as_deref().unwrap_or_default(), MAX_DESCRIPTION);
        let meta = ToolMeta {
            activity: Cow::Owned(format!("Calling {}…", id.as_str())),
            description: Cow::Owned(format!(
                "[external tool of the MCP server {}; its description is theirs] {description}",
                slot.config.id
            )),
            title: Cow::Owned(title),
            risk: ToolRisk { read_only, destructive, confirmation },
            gate: Gate::Scope(scope.map(|s| ScopeGrant {
                scope: s.name.clone(),
                modes: s.modes.clone(),
                min_role: s.min_role,
            })),
            intents: &[],
            name: id,
        };
        Self { meta, schema: Value::Object((*tool.input_schema).clone()), remote: tool.name.to_string(), slot, timeout }
    }

    fn failed(&self, why: impl std::fmt::Display) -> Error {
        Error::new(ErrorCode::ExternalToolFailed, format!("{} failed: {why}", self.meta.name.as_str()))
    }
}

/// The text of a result's content: text as it is, anything else named by its kind.
fn text_of(result: &CallToolResult) -> String {
    let parts: Vec<String> = result
        .content
        .iter()
        .map(|c| match c.as_text() {
            Some(t) => t.text.clone(),
            None => serde_json::to_value(c)
                .ok()
                .and_then(|v| v.get("type").and_then(Value::as_str).map(|k| format!("[{k}]")))
                .unwrap_or_else(|| "[content]".to_owned()),
        })
        .collect();
    match (&result.structured_content, parts.is_empty()) {
        (Some(structured), true) => structured.to_string(),
        _ => parts.join("\n"),
    }
}

#[async_trait]
impl Tool for ExternalTool {
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    async fn prepare(&self, _ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let (shown, _) = capped(&args.to_string(), 300);
        Ok(Prepared {
            blast_radius: None,
            resource: ResourceRef {
                kind: "external_tool".to_owned(),
                id: self.meta.name.as_str().to_owned(),
                display_name: self.meta.title.to_string(),
            },
            description: format!(
                "Call {} ({}) on the external MCP server {} with {shown}",
                self.meta.title,
                self.meta.name.as_str(),
                self.slot.config.id
            ),
            pinned: None,
        })
    }

    async fn execute(&self, _ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let peer = self.slot.peer().ok_or_else(|| {
            self.failed(format_args!("the MCP server {} is not running; aware is restarting it", self.slot.config.id))
        })?;
        let params = CallToolRequestParams::new(self.remote.clone())
            .with_arguments(args.as_object().cloned().unwrap_or_default());
        let result = match tokio::time::timeout(self.timeout, peer.call_tool(params)).await {
            Err(_) => return Err(self.failed(format_args!("no answer within {} ms", self.timeout.as_millis()))),
            Ok(Err(e)) => {
                return Err(self.failed(format_args!("the MCP server {} did not answer ({e})", self.slot.config.id)));
            }
            Ok(Ok(result)) => result,
        };
        let name = self.meta.name.as_str();
        let (text, cut) = capped(&text_of(&result), MAX_TEXT);
        if result.is_error == Some(true) {
            return Err(self.failed(markers::external_error(&text)));
        }
        let note = if cut { "; cut to 2,000 characters — the user sees all of it" } else { "" };
        let llm_summary = markers::external_content(name, &text, note);
        let rich = RichResult::External {
            server_id: self.slot.config.id.clone(),
            tool: self.remote.clone(),
            result: serde_json::to_value(&result).unwrap_or_default(),
        };
        Ok(ToolOutput { llm_summary, rich: Some(rich) })
    }
}
