//! The run engine's limits and timings, as the app configures them.

use std::time::Duration;

/// Limits and timings of runs.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub max_iterations: u32,
    pub max_tool_calls: u32,
    pub tool_timeout: Duration,
    pub confirmation_ttl: Duration,
    pub max_active_runs_per_user: u32,
    /// Test aid: every tool sleeps this long between its intent row and its side effect.
    pub tool_delay: Duration,
    /// How many earlier runs of the thread the model sees.
    pub history_runs: u32,
    /// Emit the router's output and the gate's decision as a `RoutingDecided` event.
    pub debug_routing: bool,
    /// Let the model refine the heuristic route (one extra, tool-less model call per run).
    pub llm_router: bool,
    /// How long a replica's lease on the runs it drives lasts unless renewed (every third of
    /// it): how long another replica waits before it takes over the runs of one that stopped.
    pub lease_ttl: Duration,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            max_iterations: 5,
            max_tool_calls: 5,
            tool_timeout: Duration::from_secs(10),
            confirmation_ttl: Duration::from_secs(60),
            max_active_runs_per_user: 8,
            tool_delay: Duration::ZERO,
            history_runs: 10,
            debug_routing: false,
            llm_router: false,
            lease_ttl: Duration::from_secs(15),
        }
    }
}
