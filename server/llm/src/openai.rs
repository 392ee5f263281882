//! OpenAI-compatible chat completions: request bodies and the streamed chunks (`choices[0].delta`
//! text and `tool_calls` fragments, `finish_reason`, a final usage chunk, `[DONE]`). Compatible
//! servers deviate — fragments without `index`, one index reused for parallel calls — so fragments
//! are keyed by index, falling back to their position, and a new id or name starts a new call.

use crate::transcript::{Turn, turns};
use crate::{Decode, Failure, Output, ProviderConfig, json, parse_arguments};
use aware_domain::ports::model::{ModelRequest, ModelToolCall, ModelTurn};
use aware_domain::run::Usage;
use serde_json::{Value, json};
use std::collections::HashMap;

const NAME: &str = "openai";

pub(crate) fn body(request: &ModelRequest<'_>, config: &ProviderConfig) -> Value {
    let mut messages = vec![json!({"role": "system", "content": request.system})];
    for turn in turns(request.messages) {
        match turn {
            Turn::User(text) => messages.push(json!({"role": "user", "content": text})),
            Turn::Assistant { text, calls } => {
                let mut m = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
                if !calls.is_empty() {
                    m["tool_calls"] = calls
                        .into_iter()
                        .map(|c| {
                            // Arguments that were not JSON go back as the text the model sent.
                            let arguments = match c.arguments {
                                Value::String(raw) => raw,
                                other @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_)) => other.to_string(),
                            };
                            json!({"id": c.wire_id, "type": "function", "function": {"name": c.name, "arguments": arguments}})
                        })
                        .collect();
                }
                messages.push(m);
            }
            Turn::Results(results) => {
                for r in results {
                    let content = if r.is_error { format!("Error: {}", r.content) } else { r.content };
                    messages.push(json!({"role": "tool", "tool_call_id": r.wire_id, "content": content}));
                }
            }
        }
    }
    let mut body = json!({
        "model": config.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if let Some(n) = config.max_tokens {
        body["max_tokens"] = json!(n);
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}))
            .collect();
    }
    body
}

#[derive(Debug, Default)]
struct Call {
    id: String,
    name: String,
    arguments: String,
}

#[derive(Debug, Default)]
pub(crate) struct Stream {
    text: String,
    calls: Vec<Call>,
    /// A fragment's key (its index, else its position) → the call it currently feeds.
    slots: HashMap<u64, usize>,
    finish_reason: Option<String>,
    usage: Usage,
}

impl Stream {
    fn fragment(&mut self, position: usize, f: &Value) {
        let key = f.get("index").and_then(Value::as_u64).unwrap_or(position as u64);
        let id = f.get("id").and_then(Value::as_str).filter(|s| !s.is_empty());
        let name = f.pointer("/function/name").and_then(Value::as_str).filter(|s| !s.is_empty());
        let piece = f.pointer("/function/arguments").and_then(Value::as_str).unwrap_or_default();
        let current = self.slots.get(&key).copied();
        let fresh = match current.map(|i| &self.calls[i]) {
            None => true,
            Some(c) => {
                id.is_some_and(|id| !c.id.is_empty() && c.id != id)
                    || name.is_some_and(|n| !c.name.is_empty() && c.name != n)
            }
        };
        let i = if fresh {
            self.calls.push(Call::default());
            self.slots.insert(key, self.calls.len() - 1);
            self.calls.len() - 1
        } else {
            current.unwrap_or_default()
        };
        let call = &mut self.calls[i];
        if let Some(id) = id {
            id.clone_into(&mut call.id);
        }
        if let Some(name) = name {
            name.clone_into(&mut call.name);
        }
        call.arguments.push_str(piece);
    }
}

impl Decode for Stream {
    fn feed(&mut self, event: &crate::sse::SseEvent, out: &mut Output<'_>) -> Result<bool, Failure> {
        if event.data.trim() == "[DONE]" {
            return Ok(true);
        }
        let v = json(event, NAME)?;
        if let Some(e) = v.get("error") {
            let message = e.get("message").and_then(Value::as_str).unwrap_or("no details");
            let kind = [e.get("type"), e.get("code")]
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("/");
            let retryable = ["server_error", "rate_limit", "overloaded", "timeout"].iter().any(|k| kind.contains(k));
            return Err(Failure {
                message: format!("{NAME} stream error {kind}: {message}"),
                retryable,
                retry_after: None,
            });
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            let get = |p: &str| u.pointer(p).and_then(Value::as_u64);
            self.usage.input_tokens = get("/prompt_tokens").unwrap_or(self.usage.input_tokens);
            self.usage.output_tokens = get("/completion_tokens").unwrap_or(self.usage.output_tokens);
            self.usage.cache_read_tokens =
                get("/prompt_tokens_details/cached_tokens").unwrap_or(self.usage.cache_read_tokens);
        }
        let Some(choice) = v.get("choices").and_then(Value::as_array).and_then(|c| c.first()) else {
            return Ok(false);
        };
        if let Some(delta) = choice.get("delta") {
            if let Some(t) = delta.get("content").and_then(Value::as_str) {
                self.text.push_str(t);
                out.text(t);
            }
            if let Some(fragments) = delta.get("tool_calls").and_then(Value::as_array) {
                for (position, f) in fragments.iter().enumerate() {
                    self.fragment(position, f);
                }
            }
        }
        if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(r.to_owned());
        }
        Ok(false)
    }

    fn finish(self: Box<Self>, complete: bool) -> Result<ModelTurn, Failure> {
        // Some servers close without `[DONE]`; a stated finish reason is enough.
        if !complete && self.finish_reason.is_none() {
            return Err(Failure::retry(format!("{NAME} closed the stream before the model finished")));
        }
        if self.finish_reason.as_deref() == Some("content_filter") && self.text.is_empty() && self.calls.is_empty() {
            return Err(Failure::fatal(format!("{NAME} withheld the answer (content_filter)")));
        }
        let mut tool_calls = Vec::new();
        for c in self.calls {
            if c.name.is_empty() {
                return Err(Failure::fatal(format!("{NAME} sent a tool call without a function name")));
            }
            tool_calls.push(ModelToolCall {
                provider_id: Some(c.id).filter(|s| !s.is_empty()),
                name: c.name,
                arguments: parse_arguments(&c.arguments),
            });
        }
        Ok(ModelTurn {
            text: self.text,
            tool_calls,
            usage: Usage { model_calls: 1, ..self.usage },
            ..ModelTurn::default()
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::sse::SseEvent;
    use tokio::sync::mpsc;

    fn run(chunks: &[Value], done: bool) -> Result<ModelTurn, Failure> {
        let (tx, _rx) = mpsc::unbounded_channel();
        let mut out = Output { deltas: &tx, emitted: false };
        let mut s: Box<dyn Decode> = Box::<Stream>::default();
        for c in chunks {
            s.feed(&SseEvent { event: String::new(), data: c.to_string() }, &mut out)?;
        }
        if done {
            assert!(s.feed(&SseEvent { event: String::new(), data: "[DONE]".into() }, &mut out)?);
        }
        s.finish(done)
    }

    fn tc(fragments: Value) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": fragments}}]})
    }

    #[test]
    fn fragments_assemble_by_index_and_usage_comes_last() {
        let turn = run(
            &[
                json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Sure. "}}]}),
                tc(json!([{"index": 0, "id": "call_a", "type": "function", "function": {"name": "list_datasets", "arguments": ""}}])),
                tc(json!([{"index": 1, "id": "call_b", "type": "function", "function": {"name": "preview_rows", "arguments": "{\"data"}}])),
                tc(json!([{"index": 0, "function": {"arguments": "{}"}}])),
                tc(json!([{"index": 1, "function": {"arguments": "set\":\"x\"}"}}])),
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
                json!({"choices": [], "usage": {"prompt_tokens": 812, "completion_tokens": 21, "total_tokens": 833}}),
            ],
            true,
        )
        .unwrap();
        assert_eq!(turn.text, "Sure. ");
        let calls: Vec<_> = turn
            .tool_calls
            .iter()
            .map(|c| (c.provider_id.clone().unwrap(), c.name.as_str(), c.arguments.clone()))
            .collect();
        assert_eq!(
            calls,
            [("call_a".into(), "list_datasets", json!({})), ("call_b".into(), "preview_rows", json!({"dataset": "x"}))]
        );
        assert_eq!((turn.usage.input_tokens, turn.usage.output_tokens), (812, 21));
    }

    #[test]
    fn missing_indexes_and_reused_indexes_still_give_one_call_each() {
        // No index at all: positions key the fragments.
        let turn = run(
            &[
                tc(json!([{"id": "c1", "function": {"name": "list_datasets", "arguments": "{"}}, {"id": "c2", "function": {"name": "get_system_status", "arguments": ""}}])),
                tc(json!([{"function": {"arguments": "}"}}])),
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            ],
            false,
        )
        .unwrap();
        assert_eq!(turn.tool_calls.len(), 2);
        assert_eq!(turn.tool_calls[0].arguments, json!({}));
        // Ollama: every parallel call at index 0, each whole, each with its own id.
        let turn = run(
            &[
                tc(json!([{"index": 0, "id": "o1", "function": {"name": "list_datasets", "arguments": "{}"}}])),
                tc(json!([{"index": 0, "id": "o2", "function": {"name": "get_system_status", "arguments": "{}"}}])),
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            ],
            true,
        )
        .unwrap();
        let ids: Vec<_> = turn.tool_calls.iter().map(|c| c.provider_id.clone().unwrap()).collect();
        assert_eq!(ids, ["o1", "o2"]);
    }

    #[test]
    fn an_unfinished_stream_or_an_error_chunk_fails() {
        let partial = [json!({"choices": [{"index": 0, "delta": {"content": "Hel"}}]})];
        assert!(run(&partial, false).unwrap_err().message.contains("before the model finished"));
        let err = run(&[json!({"error": {"message": "boom", "type": "server_error"}})], false).unwrap_err();
        assert!(err.retryable && err.message.contains("boom"));
    }
}
