//! The scripted model, for tests and demos: replies chosen by a substring of the run's user
//! text, one turn per model call of the run (`agent.model = "script"`, `agent.script = FILE`).

use async_trait::async_trait;
use aware_domain::ports::model::{LanguageModel, Message, ModelRequest, ModelToolCall, ModelTurn};
use aware_domain::run::Usage;
use aware_domain::{Error, Result};
use serde::Deserialize;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

/// What a scripted turn without token counts costs: one model call.
const ONE_CALL: Usage = Usage {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    model_calls: 1,
    partial: false,
};

/// A scripted model, for tests and demos: replies chosen by a substring of the run's user text,
/// one turn per model call of the run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    replies: Vec<ScriptReply>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptReply {
    when: String,
    turns: Vec<ScriptTurn>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptTurn {
    #[serde(default)]
    chunks: Vec<String>,
    #[serde(default)]
    delay_ms: u64,
    #[serde(default)]
    tool_calls: Vec<ScriptToolCall>,
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptToolCall {
    name: String,
    #[serde(default)]
    arguments: serde_json::Value,
}

impl Script {
    pub fn parse(json: &str) -> Result<Self> {
        let mut script: Self = serde_json::from_str(json)
            .map_err(|e| Error::validation("agent.script", format!("bad model script: {e}")))?;
        // Matching ignores case; fold the patterns once, not on every model call.
        for reply in &mut script.replies {
            reply.when = reply.when.to_lowercase();
        }
        Ok(script)
    }
}

#[async_trait]
impl LanguageModel for Script {
    fn name(&self) -> &str {
        "script"
    }

    async fn complete(&self, request: ModelRequest<'_>, deltas: UnboundedSender<String>) -> Result<ModelTurn> {
        let user_text = request
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::User { text } => Some(text.to_lowercase()),
                Message::Assistant { .. } | Message::Tool { .. } => None,
            })
            .unwrap_or_default();
        let Some(reply) = self.replies.iter().find(|r| user_text.contains(&r.when)) else {
            let text = format!("No scripted reply for “{user_text}”.");
            let _ = deltas.send(text.clone());
            return Ok(ModelTurn { text, usage: ONE_CALL, ..ModelTurn::default() });
        };
        let Some(turn) = reply.turns.get(request.turn as usize) else {
            return Ok(ModelTurn { text: String::new(), usage: ONE_CALL, ..ModelTurn::default() });
        };
        let mut text = String::new();
        for chunk in &turn.chunks {
            if turn.delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(turn.delay_ms)).await;
            }
            text.push_str(chunk);
            let _ = deltas.send(chunk.clone());
        }
        Ok(ModelTurn {
            text,
            tool_calls: turn.tool_calls.iter().map(|c| ModelToolCall::new(&c.name, c.arguments.clone())).collect(),
            usage: Usage {
                input_tokens: turn.input_tokens,
                output_tokens: turn.output_tokens,
                model_calls: 1,
                ..Usage::default()
            },
            ..ModelTurn::default()
        })
    }
}
