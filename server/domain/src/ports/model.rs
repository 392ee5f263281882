//! The `LanguageModel` port and the transcript it is given.

use crate::Result;
use crate::dataset::Dataset;
use crate::events::RichResult;
use crate::ids::ToolCallId;
use crate::run::Usage;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::UnboundedSender;

/// A tool call the model asked for. The engine gives it its id before anything runs, and the
/// transcript keeps it, so a restart sees the same id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRequest {
    pub id: ToolCallId,
    /// The id the provider gave the call (`toolu_…`, `call_…`), sent back with its result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    pub name: String,
    /// A JSON object; anything else (e.g. a string holding JSON that did not parse) is refused with
    /// an error result.
    pub arguments: serde_json::Value,
}

/// A tool call as the model produced it, before the engine gives it an id.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelToolCall {
    pub provider_id: Option<String>,
    pub name: String,
    pub arguments: serde_json::Value,
}

impl ModelToolCall {
    pub fn new(name: impl Into<String>, arguments: serde_json::Value) -> Self {
        Self { provider_id: None, name: name.into(), arguments }
    }
}

/// One entry of the model-facing transcript.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    User { text: String },
    Assistant { text: String, tool_calls: Vec<ToolCallRequest> },
    Tool { tool_call_id: ToolCallId, name: String, content: String, is_error: bool },
}

/// A tool as the model sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: serde_json::Value,
    /// Where the tool comes from (an external server's tools are named `server.tool`).
    #[serde(skip)]
    pub provenance: crate::events::Provenance,
}

/// What the agent knows about where the user is and what they have ("eyes").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunContext {
    pub current_route: String,
    pub active_dataset_id: String,
    pub ui_state_version: u64,
    /// The user's real datasets, from the catalog (shared with the runs that read it unchanged).
    pub datasets: std::sync::Arc<[Dataset]>,
    /// The approved folders the file tools may read (none in connected mode).
    pub file_roots: Vec<String>,
    /// What the user asked aware to remember, most relevant to this request first (bounded).
    pub memories: Vec<String>,
    /// The user's verified (saved) queries that match this request's question.
    pub verified_queries: Vec<crate::ports::SavedQuery>,
}

/// One model call.
pub struct ModelRequest<'a> {
    pub system: String,
    /// Earlier runs of the thread, then this run's transcript.
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
    pub context: &'a RunContext,
    /// How many model calls this run has made before this one.
    pub turn: u32,
    /// What this run's tool calls showed the user, by call. Only for models running inside this
    /// process (the offline planner writes its answer from what the person sees); a network
    /// provider never sends these: its track is the summaries in `messages`.
    pub shown: &'a [(ToolCallId, RichResult)],
}

/// What one model call produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelTurn {
    pub text: String,
    pub tool_calls: Vec<ModelToolCall>,
    pub usage: Usage,
    /// What the text is, when the model says: an answer, a question back, what it did not
    /// understand, or a refusal its caller's role calls for (`Denied`). A network model says
    /// nothing; the run then judges by what it did (see the driver's `finish`).
    pub stance: Option<crate::run::RunOutcome>,
    /// Questions to offer the person next, each one the model can answer (the offline planner
    /// reads each before it offers it).
    pub follow_ups: Vec<String>,
}

/// A language model: streams text deltas into `deltas` and returns the whole turn. Dropping the
/// future aborts the call.
#[async_trait]
pub trait LanguageModel: Send + Sync {
    /// A short name for run records ("offline-planner", "script", a model id).
    fn name(&self) -> &str;
    /// Whether this model names threads from their first message (a network model does; the
    /// offline planner leaves the first message's title).
    fn names_threads(&self) -> bool {
        false
    }
    async fn complete(&self, request: ModelRequest<'_>, deltas: UnboundedSender<String>) -> Result<ModelTurn>;
}

/// Splits `text` into phrase-sized deltas for a model that has its whole text at once: a delta
/// ends at a line's end, or at the first space after [`PHRASE_CHARS`] characters (each keeps its
/// trailing whitespace). An answer still arrives piece by piece, in a handful of events rather
/// than one per word.
pub fn phrase_deltas(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = 0;
    for c in text.chars() {
        current.push(c);
        chars += 1;
        if c == '\n' || (c.is_whitespace() && chars >= PHRASE_CHARS && !current.trim().is_empty()) {
            out.push(std::mem::take(&mut current));
            chars = 0;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// How long a phrase of [`phrase_deltas`] grows before it ends at a space.
pub const PHRASE_CHARS: usize = 48;

/// A rough token estimate (about four characters a token) for usage of aborted calls.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrase_deltas_reassemble_the_text_in_a_few_pieces() {
        let text = "You have 3 datasets:\n- a (10 rows)  \n- b";
        assert_eq!(phrase_deltas(text).concat(), text);
        assert_eq!(phrase_deltas(text), ["You have 3 datasets:\n", "- a (10 rows)  \n", "- b"], "a line each");
        let long = "word ".repeat(60);
        let pieces = phrase_deltas(&long);
        assert_eq!(pieces.concat(), long);
        assert!((4..=8).contains(&pieces.len()), "300 characters in a few deltas, not 60: {}", pieces.len());
    }
}
