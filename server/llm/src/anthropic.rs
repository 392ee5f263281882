//! Anthropic Messages: request bodies and the streamed response (`message_start` → content blocks
//! keyed by `index` → `message_delta` → `message_stop`; `ping` and `error` anywhere).

use crate::transcript::{Turn, turns};
use crate::{Decode, Failure, Output, ProviderConfig, json, parse_arguments};
use aware_domain::ports::model::{ModelRequest, ModelToolCall, ModelTurn};
use aware_domain::run::Usage;
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub(crate) const VERSION: &str = "2023-06-01";

pub(crate) fn body(request: &ModelRequest<'_>, config: &ProviderConfig) -> Value {
    let mut messages: Vec<(String, Vec<Value>)> = Vec::new();
    for turn in turns(request.messages) {
        let (role, blocks) = match turn {
            Turn::User(text) => ("user", vec![json!({"type": "text", "text": text})]),
            Turn::Results(results) => (
                "user",
                results
                    .into_iter()
                    .map(|r| {
                        json!({"type": "tool_result", "tool_use_id": r.wire_id, "content": r.content, "is_error": r.is_error})
                    })
                    .collect(),
            ),
            Turn::Assistant { text, calls } => {
                let mut blocks = Vec::new();
                if !text.trim().is_empty() {
                    blocks.push(json!({"type": "text", "text": text.trim_end()}));
                }
                for c in calls {
                    // The API takes an object only; arguments that were not one got an error result.
                    let input = if c.arguments.is_object() { c.arguments } else { json!({}) };
                    blocks.push(json!({"type": "tool_use", "id": c.wire_id, "name": c.name, "input": input}));
                }
                ("assistant", blocks)
            }
        };
        match messages.last_mut() {
            // Consecutive turns of one role become one message (results stay first: they only ever
            // follow an assistant turn).
            Some((last, content)) if last == role => content.extend(blocks),
            _ => messages.push((role.to_owned(), blocks)),
        }
    }
    let messages: Vec<Value> =
        messages.into_iter().map(|(role, content)| json!({"role": role, "content": content})).collect();
    let mut body = json!({
        "model": config.model,
        "max_tokens": config.max_tokens.unwrap_or(2048),
        "system": request.system,
        "messages": messages,
        "stream": true,
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
    }
    body
}

#[derive(Debug)]
enum Block {
    Text,
    Tool { id: String, name: String, input: String, done: bool },
    Other,
}

#[derive(Debug, Default)]
pub(crate) struct Stream {
    started: bool,
    blocks: BTreeMap<u64, Block>,
    text: String,
    usage: Usage,
    stop_reason: Option<String>,
}

const NAME: &str = "anthropic";

fn index(v: &Value) -> Result<u64, Failure> {
    v.get("index")
        .and_then(Value::as_u64)
        .ok_or_else(|| Failure::fatal(format!("{NAME} sent a content block event without an index")))
}

impl Stream {
    fn usage(&mut self, u: &Value) {
        let get = |k: &str| u.get(k).and_then(Value::as_u64);
        if let Some(n) = get("input_tokens") {
            self.usage.input_tokens = n;
        }
        if let Some(n) = get("output_tokens") {
            self.usage.output_tokens = n; // cumulative
        }
        if let Some(n) = get("cache_read_input_tokens") {
            self.usage.cache_read_tokens = n;
        }
        if let Some(n) = get("cache_creation_input_tokens") {
            self.usage.cache_write_tokens = n;
        }
    }
}

impl Decode for Stream {
    fn feed(&mut self, event: &crate::sse::SseEvent, out: &mut Output<'_>) -> Result<bool, Failure> {
        let v = json(event, NAME)?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(event.event.as_str());
        match kind {
            "message_start" => {
                self.started = true;
                if let Some(u) = v.pointer("/message/usage") {
                    self.usage(u);
                }
            }
            "content_block_start" => {
                let i = index(&v)?;
                let block = v.get("content_block").cloned().unwrap_or_default();
                let b = match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let initial = block.get("text").and_then(Value::as_str).unwrap_or_default();
                        self.text.push_str(initial);
                        out.text(initial);
                        Block::Text
                    }
                    Some("tool_use") => {
                        let id = block.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
                        let name = block.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                        if name.is_empty() {
                            return Err(Failure::fatal(format!("{NAME} started a tool_use block without a name")));
                        }
                        Block::Tool { id, name, input: String::new(), done: false }
                    }
                    _ => Block::Other, // thinking, server tools: not ours to interpret
                };
                if self.blocks.insert(i, b).is_some() {
                    return Err(Failure::fatal(format!("{NAME} started content block {i} twice")));
                }
            }
            "content_block_delta" => {
                let i = index(&v)?;
                let delta = v.get("delta").cloned().unwrap_or_default();
                let Some(block) = self.blocks.get_mut(&i) else {
                    return Err(Failure::fatal(format!(
                        "{NAME} sent a delta for content block {i}, which never started"
                    )));
                };
                match (delta.get("type").and_then(Value::as_str), block) {
                    (Some("text_delta"), Block::Text) => {
                        let t = delta.get("text").and_then(Value::as_str).unwrap_or_default();
                        self.text.push_str(t);
                        out.text(t);
                    }
                    (Some("input_json_delta"), Block::Tool { input, done: false, .. }) => {
                        input.push_str(delta.get("partial_json").and_then(Value::as_str).unwrap_or_default());
                    }
                    (Some("text_delta" | "input_json_delta"), _) => {
                        return Err(Failure::fatal(format!("{NAME} sent a delta that does not fit content block {i}")));
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let i = index(&v)?;
                match self.blocks.get_mut(&i) {
                    Some(Block::Tool { done, .. }) => *done = true,
                    Some(_) => {}
                    None => {
                        return Err(Failure::fatal(format!("{NAME} stopped content block {i}, which never started")));
                    }
                }
            }
            "message_delta" => {
                if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(r.to_owned());
                }
                if let Some(u) = v.get("usage") {
                    self.usage(u);
                }
            }
            "message_stop" => return Ok(true),
            "error" => {
                let kind = v.pointer("/error/type").and_then(Value::as_str).unwrap_or("error");
                let message = v.pointer("/error/message").and_then(Value::as_str).unwrap_or("no details");
                let retryable = matches!(kind, "overloaded_error" | "api_error" | "rate_limit_error" | "timeout_error");
                return Err(Failure {
                    message: format!("{NAME} stream error {kind}: {message}"),
                    retryable,
                    retry_after: None,
                });
            }
            _ => {} // ping and event types added later
        }
        Ok(false)
    }

    fn finish(self: Box<Self>, complete: bool) -> Result<ModelTurn, Failure> {
        if !complete {
            let what = if self.started { "before message_stop" } else { "before message_start" };
            return Err(Failure::retry(format!("{NAME} closed the stream {what}")));
        }
        if self.stop_reason.as_deref() == Some("refusal") && self.text.is_empty() {
            return Err(Failure::fatal(format!("{NAME} refused to answer")));
        }
        let tool_calls = self
            .blocks
            .into_values()
            .filter_map(|b| match b {
                // An unfinished block (cut by max_tokens) keeps its partial text: the call gets an
                // error result instead of vanishing from the transcript.
                Block::Tool { id, name, input, .. } => Some(ModelToolCall {
                    provider_id: Some(id).filter(|s| !s.is_empty()),
                    name,
                    arguments: parse_arguments(&input),
                }),
                Block::Text | Block::Other => None,
            })
            .collect();
        let usage = Usage { model_calls: 1, ..self.usage };
        Ok(ModelTurn { text: self.text, tool_calls, usage, ..ModelTurn::default() })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::sse::SseEvent;
    use tokio::sync::mpsc;

    fn run(events: &[Value]) -> (Result<ModelTurn, Failure>, Vec<String>) {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut out = Output { deltas: &tx, emitted: false };
        let mut s: Box<dyn Decode> = Box::<Stream>::default();
        let mut complete = false;
        for e in events {
            match s.feed(&SseEvent { event: String::new(), data: e.to_string() }, &mut out) {
                Ok(true) => {
                    complete = true;
                    break;
                }
                Ok(false) => {}
                Err(f) => return (Err(f), Vec::new()),
            }
        }
        let r = s.finish(complete);
        let mut texts = Vec::new();
        while let Ok(t) = rx.try_recv() {
            texts.push(t);
        }
        (r, texts)
    }

    #[test]
    fn blocks_are_assembled_by_index_and_usage_is_cumulative() {
        let (turn, texts) = run(&[
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 812, "output_tokens": 1, "cache_read_input_tokens": 100}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "preview_rows", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me "}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"dataset\": \"ap"}}),
            json!({"type": "ping"}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "look."}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "t\", \"limit\": 5}"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}}),
            json!({"type": "message_delta", "delta": {}, "usage": {"output_tokens": 57}}),
            json!({"type": "message_stop"}),
        ]);
        let turn = turn.unwrap();
        assert_eq!(texts, ["Let me ", "look."]);
        assert_eq!(turn.text, "Let me look.");
        assert_eq!(turn.tool_calls.len(), 1);
        assert_eq!(turn.tool_calls[0].provider_id.as_deref(), Some("toolu_01"));
        assert_eq!(turn.tool_calls[0].arguments, json!({"dataset": "apt", "limit": 5}));
        assert_eq!((turn.usage.input_tokens, turn.usage.output_tokens, turn.usage.cache_read_tokens), (812, 57, 100));
    }

    #[test]
    fn broken_streams_are_refused_with_their_reason() {
        let start = json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}});
        let stray = json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "{}"}});
        let (r, _) = run(&[start.clone(), stray]);
        assert!(r.unwrap_err().message.contains("never started"));
        let (r, _) = run(std::slice::from_ref(&start));
        let f = r.unwrap_err();
        assert!(f.message.contains("before message_stop") && f.retryable);
        let (r, _) =
            run(&[start, json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})]);
        let f = r.unwrap_err();
        assert!(f.retryable && f.message.contains("overloaded_error"), "{f:?}");
    }

    #[test]
    fn arguments_that_are_not_json_are_kept_for_an_error_result() {
        let (turn, _) = run(&[
            json!({"type": "message_start", "message": {"usage": {}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t1", "name": "list_datasets"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"status\": "}}),
            json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 3}}),
            json!({"type": "message_stop"}),
        ]);
        let turn = turn.unwrap();
        assert_eq!(turn.tool_calls[0].arguments, Value::String("{\"status\": ".into()));
    }
}
