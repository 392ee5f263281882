//! A tool call a client makes itself (an MCP `tools/call`): a run of kind `tool` whose one call
//! is stored as its question, so a restarted server drives it the same way.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool and its arguments, as a client asked for them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientToolCall {
    pub tool: String,
    pub arguments: Value,
}

impl ClientToolCall {
    /// The run's question: the call as JSON.
    pub fn to_question(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_question(question: &str) -> Result<Self> {
        serde_json::from_str(question).map_err(|e| Error::internal(format!("a tool run's call does not parse: {e}")))
    }
}
