//! The tools of external MCP servers registered in the configuration (`aware-mcp` implements
//! this). Each is a [`Tool`] named `server.tool` whose metadata carries its scope
//! ([`Gate::Scope`](crate::runs::tools::Gate)); the policy gate decides who may use it where.

use crate::runs::tools::Tool;
use std::sync::Arc;

/// How a registered server is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerState {
    /// Starting, or restarting after it failed (with backoff).
    Starting,
    /// Connected: its tools are offered (as the gate allows).
    Ready,
    /// Not reachable now; retried with backoff. Its tools are unavailable.
    Failed,
}

impl ServerState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Ready => "ready",
            Self::Failed => "failed",
        }
    }
}

/// A registered server, for clients (`GetCapabilities`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalServer {
    pub id: String,
    pub state: ServerState,
    /// Why it failed, when it did.
    pub detail: String,
    /// How many tools it has (0 until it is ready).
    pub tools: u32,
}

pub trait ExternalTools: Send + Sync {
    /// The tools of the servers that are ready now.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
    /// Every registered server and its state.
    fn servers(&self) -> Vec<ExternalServer>;
}

/// No external servers.
pub struct NoExternalTools;

impl ExternalTools for NoExternalTools {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        Vec::new()
    }
    fn servers(&self) -> Vec<ExternalServer> {
        Vec::new()
    }
}
