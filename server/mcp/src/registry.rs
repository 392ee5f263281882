//! The registered servers: each is connected and supervised by a task of its own — started,
//! its tools listed (again on `notifications/tools/list_changed`), and when it fails or dies,
//! marked failed (its tools unavailable) and started again with backoff (1 s doubling to 30 s).
//! Nothing a server does stops aware. What a server's listings have said of each tool's risk is
//! kept for as long as aware runs, across reconnects: a tool that once needed a person's approval
//! keeps needing it, whatever a later listing (or a restarted server) claims.

use crate::config::{Endpoint, ServerConfig};
use crate::slot::Slot;
use crate::tool::{ExternalTool, listed_risk};
use aware_core::runs::tools::Tool;
use aware_core::runs::tools::{ExternalServer, ExternalTools, ServerState};
use aware_core::{Error, Result};
use rmcp::model::{ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::NotificationContext;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

const FIRST_RETRY: Duration = Duration::from_secs(1);
const LAST_RETRY: Duration = Duration::from_secs(30);

/// Hears a server's notifications: a changed tool list is listed again.
#[derive(Default)]
pub(crate) struct Listener {
    changed: Arc<Notify>,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info = Implementation::new("aware", env!("CARGO_PKG_VERSION"));
        // The revision deployed servers speak, and whose sessions and resumable streams aware's
        // client relies on (2026-07-28 dropped both).
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

/// The external MCP servers of the configuration.
pub struct McpRegistry {
    slots: Vec<Arc<Slot>>,
}

impl McpRegistry {
    /// Checks every entry (two servers may not share an id), then starts supervising each; a
    /// tool's result is kept up to `max_output` bytes (as JSON). Call inside a Tokio runtime.
    pub fn start(configs: &[ServerConfig], max_output: usize) -> Result<Arc<Self>> {
        for (i, c) in configs.iter().enumerate() {
            c.check()?;
            if configs[..i].iter().any(|o| o.id == c.id) {
                return Err(Error::validation("mcp.servers.id", format!("two servers have the id {}", c.id)));
            }
        }
        let slots: Vec<Arc<Slot>> = configs.iter().map(|c| Arc::new(Slot::new(c.clone()))).collect();
        for slot in &slots {
            tokio::spawn(supervise(slot.clone(), max_output));
        }
        Ok(Arc::new(Self { slots }))
    }
}

impl ExternalTools for McpRegistry {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.slots
            .iter()
            .flat_map(|s| {
                let now = s.now();
                if now.state == Some(ServerState::Ready) { now.tools.clone() } else { Vec::new() }
            })
            .collect()
    }

    fn servers(&self) -> Vec<ExternalServer> {
        self.slots
            .iter()
            .map(|s| {
                let now = s.now();
                ExternalServer {
                    id: s.config.id.clone(),
                    state: now.state.unwrap_or(ServerState::Starting),
                    detail: now.detail.clone(),
                    tools: u32::try_from(now.tools.len()).unwrap_or(u32::MAX),
                }
            })
            .collect()
    }
}

/// Connects, lists, waits for the end; again and again, with backoff after a failure.
async fn supervise(slot: Arc<Slot>, max_output: usize) {
    let mut retry = FIRST_RETRY;
    loop {
        slot.set(ServerState::Starting, String::new(), None, Vec::new());
        let why = match serve(&slot, max_output).await {
            Ok(why) => {
                retry = FIRST_RETRY;
                why
            }
            Err(why) => why,
        };
        tracing::warn!(server = %slot.config.id, %why, retry_in_s = retry.as_secs(), "an external MCP server is unavailable");
        slot.set(ServerState::Failed, why, None, Vec::new());
        tokio::time::sleep(retry).await;
        retry = (retry * 2).min(LAST_RETRY);
    }
}

/// One connection's life: its tools offered while it lasts. Returns why it ended.
async fn serve(slot: &Arc<Slot>, max_output: usize) -> std::result::Result<String, String> {
    let changed = Arc::new(Notify::new());
    let listener = Listener { changed: changed.clone() };
    let running = match slot.config.endpoint().map_err(|e| e.message)? {
        Endpoint::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args).envs(env);
            let (transport, _) = TokioChildProcess::builder(cmd)
                .stderr(std::process::Stdio::inherit())
                .spawn()
                .map_err(|e| format!("cannot start {command}: {e}"))?;
            listener.serve(transport).await.map_err(|e| format!("did not initialize: {e}"))?
        }
        Endpoint::Http { url, headers } => {
            let mut config = StreamableHttpClientTransportConfig::with_uri(url);
            let mut custom = std::collections::HashMap::new();
            for (name, value) in headers {
                if name.eq_ignore_ascii_case("authorization") {
                    // Checked by `ServerConfig::check`: `Bearer <token>`, any case.
                    let token = value.get(7..).filter(|_| value[..7].eq_ignore_ascii_case("bearer ")).ok_or(
                        "headers.authorization must be `Bearer <token>` (the MCP client sends bearer tokens only)",
                    )?;
                    config = config.auth_header(token.to_owned());
                } else {
                    // Checked by `ServerConfig::check`.
                    let name = http::HeaderName::try_from(name.as_str()).map_err(|e| e.to_string())?;
                    let value = http::HeaderValue::try_from(value.as_str()).map_err(|e| e.to_string())?;
                    custom.insert(name, value);
                }
            }
            config = config.custom_headers(custom);
            let transport = StreamableHttpClientTransport::from_config(config);
            listener.serve(transport).await.map_err(|e| format!("did not initialize at {url}: {e}"))?
        }
    };
    let peer = running.peer().clone();
    let mut ended = tokio::spawn(running.waiting());
    let timeout = Duration::from_millis(slot.config.timeout_ms);
    loop {
        let listed = tokio::time::timeout(timeout, peer.list_all_tools()).await;
        let tools = match listed {
            Ok(Ok(tools)) => tools,
            Ok(Err(e)) => return Err(format!("tools/list failed: {e}")),
            Err(_) => return Err("tools/list did not answer in time".to_owned()),
        };
        let tools: Vec<Arc<dyn Tool>> = tools
            .iter()
            .map(|t| {
                let scope = slot.config.scope_of(&t.name);
                let risk = slot.at_least_as_cautious(&t.name, listed_risk(t, scope));
                Arc::new(ExternalTool::new(slot.clone(), t, scope, risk, timeout, max_output)) as Arc<dyn Tool>
            })
            .collect();
        tracing::info!(server = %slot.config.id, tools = tools.len(), "external MCP server ready");
        slot.set(ServerState::Ready, String::new(), Some(peer.clone()), tools);
        tokio::select! {
            () = changed.notified() => continue,
            end = &mut ended => {
                return Ok(match end {
                    Ok(Ok(reason)) => format!("the connection ended ({reason:?})"),
                    Ok(Err(e)) | Err(e) => format!("the connection failed ({e})"),
                });
            }
        }
    }
}
