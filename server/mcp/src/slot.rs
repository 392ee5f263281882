//! One registered server as the rest of the crate sees it: its configuration, where it stands
//! now (state, tools, the connection), and the most cautious risk each of its tools was ever
//! listed with. The registry supervises slots; each external tool calls through its own.

use crate::config::ServerConfig;
use aware_core::runs::tools::ServerState;
use aware_core::runs::tools::Tool;
use aware_domain::events::ToolRisk;
use rmcp::RoleClient;
use rmcp::service::Peer;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A server's current state, its tools and the connection to call them on.
#[derive(Default)]
pub(crate) struct Now {
    pub(crate) state: Option<ServerState>,
    pub(crate) detail: String,
    pub(crate) peer: Option<Peer<RoleClient>>,
    pub(crate) tools: Vec<Arc<dyn Tool>>,
}

/// One registered server.
pub(crate) struct Slot {
    pub(crate) config: ServerConfig,
    now: Mutex<Now>,
    /// The most cautious risk each tool has been listed with so far, by its name on the server.
    caution: Mutex<HashMap<String, ToolRisk>>,
}

impl Slot {
    pub(crate) fn new(config: ServerConfig) -> Self {
        Self { config, now: Mutex::default(), caution: Mutex::default() }
    }

    pub(crate) fn now(&self) -> std::sync::MutexGuard<'_, Now> {
        self.now.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `listed`, made at least as cautious as every risk `tool` was listed with before: no longer
    /// read-only once it was not, destructive once it was, and asking a person at least as
    /// firmly as it ever did.
    pub(crate) fn at_least_as_cautious(&self, tool: &str, listed: ToolRisk) -> ToolRisk {
        let mut caution = self.caution.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let risk = match caution.get(tool) {
            None => listed,
            Some(before) => ToolRisk {
                read_only: before.read_only && listed.read_only,
                destructive: before.destructive || listed.destructive,
                // None < STANDARD < ELEVATED: the firmer of the two.
                confirmation: before.confirmation.max(listed.confirmation),
            },
        };
        caution.insert(tool.to_owned(), risk);
        risk
    }

    /// The connection, while the server is ready.
    pub(crate) fn peer(&self) -> Option<Peer<RoleClient>> {
        let now = self.now();
        (now.state == Some(ServerState::Ready)).then(|| now.peer.clone()).flatten()
    }

    pub(crate) fn set(
        &self,
        state: ServerState,
        detail: String,
        peer: Option<Peer<RoleClient>>,
        tools: Vec<Arc<dyn Tool>>,
    ) {
        *self.now() = Now { state: Some(state), detail, peer, tools };
    }
}
