//! `[agent]` and `[llm]`: which model drives runs and how, who routes a message, and where a
//! provider's model is.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Which language model drives runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// The deterministic offline planner (no network).
    Offline,
    /// Replies read from `agent.script` (tests and demos).
    Script,
    /// Anthropic Messages (`[llm]` says where and which model).
    Anthropic,
    /// An OpenAI-compatible chat-completions server: OpenAI, a proxy, vLLM, llama.cpp, Ollama.
    Openai,
}

/// Who reads a message into an intent for the policy gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RouterKind {
    /// Keyword heuristics (no model call).
    Heuristic,
    /// The configured provider refines the heuristics; an unusable answer keeps them.
    Llm,
}

/// Where the language model is, when `agent.model` names a provider.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Llm {
    /// Anthropic: the host (`/v1/messages` is appended), default `https://api.anthropic.com`.
    /// OpenAI-compatible: up to the version (`/chat/completions` is appended), default
    /// `https://api.openai.com/v1`, e.g. `http://localhost:11434/v1` for Ollama.
    pub base_url: Option<String>,
    /// The key; when unset, `ANTHROPIC_API_KEY` or `OPENAI_API_KEY` from the environment.
    pub api_key: Option<String>,
    /// The model id; defaults to `claude-sonnet-4-5` / `gpt-4.1-mini`.
    pub model: Option<String>,
    /// Output tokens per call (Anthropic: 2048 when unset; OpenAI-compatible: sent only when set).
    pub max_tokens: Option<u32>,
    /// One model call, retries included.
    pub timeout_secs: u64,
    /// Silence allowed while waiting for the response or between stream chunks.
    pub idle_timeout_secs: u64,
    /// Extra attempts for a call that failed before anything was streamed.
    pub max_retries: u32,
}

impl Default for Llm {
    fn default() -> Self {
        Self {
            base_url: None,
            api_key: None,
            model: None,
            max_tokens: None,
            timeout_secs: 120,
            idle_timeout_secs: 30,
            max_retries: 2,
        }
    }
}

/// Never prints the key.
impl std::fmt::Debug for Llm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llm")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("timeout_secs", &self.timeout_secs)
            .field("idle_timeout_secs", &self.idle_timeout_secs)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

/// The agent and its runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Agent {
    pub model: ModelKind,
    /// The JSON script of the scripted model.
    pub script: Option<PathBuf>,
    /// Model calls per run.
    pub max_iterations: u32,
    /// Tool calls per message.
    pub max_tool_calls: u32,
    pub tool_timeout_ms: u64,
    /// How long a confirmation waits for a person before it expires (denied).
    pub confirmation_ttl_secs: u64,
    /// Heartbeats on every open stream.
    pub heartbeat_ms: u64,
    /// Runs active or queued at once per user.
    pub max_active_runs_per_user: u32,
    /// Testing aid: every tool waits this long between its intent row and its side effect.
    pub tool_delay_ms: u64,
    /// Send the router's output and the policy decision as a `RoutingDecided` event in each run.
    pub debug_routing: bool,
    /// `heuristic` or `llm` (needs a provider model).
    pub router: RouterKind,
}

impl Default for Agent {
    fn default() -> Self {
        Self {
            model: ModelKind::Offline,
            script: None,
            max_iterations: 5,
            max_tool_calls: 5,
            tool_timeout_ms: 10_000,
            confirmation_ttl_secs: 60,
            heartbeat_ms: 5_000,
            max_active_runs_per_user: 8,
            tool_delay_ms: 0,
            debug_routing: false,
            router: RouterKind::Heuristic,
        }
    }
}
