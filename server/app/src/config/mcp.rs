//! `[mcp]`: aware's own `/mcp` sessions and the external MCP servers whose tools it uses.

use serde::{Deserialize, Serialize};

/// MCP both ways: the sessions of aware's own `/mcp` and the external servers whose tools aware
/// uses (see `aware_mcp::ServerConfig` for one entry's fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Mcp {
    pub servers: Vec<aware_mcp::ServerConfig>,
    /// `/mcp` sessions one user may hold open at once (with `auth = "api-key"`); one more
    /// `initialize` is refused (429) until one is closed or reclaimed.
    pub max_sessions_per_user: usize,
    /// `/mcp` sessions open at once on this server, whoever holds them.
    pub max_sessions: usize,
    /// A `/mcp` session that hears nothing from its client for this long is closed.
    pub session_idle_secs: u64,
    /// The most of one external tool's result (as JSON) kept for the client and the run's log,
    /// in KiB (never more than half of `limits.max_message_mb`); the rest is cut, and the cut
    /// said.
    pub max_output_kb: usize,
}

impl Default for Mcp {
    fn default() -> Self {
        Self {
            servers: Vec::new(),
            max_sessions_per_user: 16,
            max_sessions: 1_024,
            session_idle_secs: 300,
            max_output_kb: 2_048,
        }
    }
}
