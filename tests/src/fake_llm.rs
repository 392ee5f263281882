//! A fake language-model provider for the end-to-end suites: a real HTTP/1.1 server on
//! `127.0.0.1:0` (hand-written HTTP and SSE, no framework) that speaks the streaming wire formats
//! of Anthropic Messages and OpenAI chat completions. It records every request and answers each
//! one with what the test's closure decides — a well-formed stream, a malformed one, an HTTP error,
//! or silence — so a test can act like a model. `validate_anthropic` / `validate_openai` check a
//! request the way the real APIs do: a transcript the real provider would refuse fails the test.
//! The fake stops (its accept loop and every open connection) when dropped.
//!
//! Like a real provider, it also answers the request aware makes to name a new thread (its system
//! prompt starts with [`NAME_THREAD_PROMPT`]): outside the test's script, kept apart from
//! `requests()` and numbered on their own, with the title "About" and the message's first three
//! words — so scripts number only the agent's calls.

use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// How the server's request to name a thread begins (see `aware_core::runs::threads`).
pub const NAME_THREAD_PROMPT: &str = "You name conversations.";

// ---------------------------------------------------------------------------------------------
// Wire formats

/// Which provider the fake plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Anthropic,
    OpenAi,
}

impl Kind {
    /// Both, for tests that run once per provider.
    pub const BOTH: [Kind; 2] = [Kind::Anthropic, Kind::OpenAi];

    /// The server's `agent.model` for this provider.
    pub fn model(self) -> &'static str {
        match self {
            Kind::Anthropic => "anthropic",
            Kind::OpenAi => "openai",
        }
    }

    /// The path the server posts to (given the base URL `FakeLlm::base_url` hands out).
    pub fn path(self) -> &'static str {
        match self {
            Kind::Anthropic => "/v1/messages",
            Kind::OpenAi => "/v1/chat/completions",
        }
    }

    /// A tool-call id in this provider's shape for call `i` of request `n`: unique per fake, as the
    /// real providers' ids are (`toolu_…`, `call_…`).
    pub fn call_id(self, n: usize, i: usize) -> String {
        match self {
            Kind::Anthropic => format!("toolu_fake{n:02}x{i}"),
            Kind::OpenAi => format!("call_fake{n:02}x{i}"),
        }
    }
}

/// Token counts one fake model call reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    /// Anthropic `cache_read_input_tokens`; OpenAI `prompt_tokens_details.cached_tokens` (sent only
    /// when not zero).
    pub cache_read: u64,
}

impl Usage {
    pub fn new(input: u64, output: u64) -> Self {
        Self { input, output, cache_read: 0 }
    }
}

/// One tool call a fake turn makes: the provider's id, the tool name and the argument JSON in the
/// fragments it streams (concatenated, they are the arguments).
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub fragments: Vec<String>,
}

pub fn call<S: Into<String>>(id: impl Into<String>, name: &str, fragments: impl IntoIterator<Item = S>) -> Call {
    Call { id: id.into(), name: name.to_owned(), fragments: fragments.into_iter().map(Into::into).collect() }
}

/// `text` in pieces of at most `size` characters (at least one piece, possibly empty).
pub fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    chars.chunks(size.max(1)).map(|c| c.iter().collect()).collect()
}

/// The same bytes re-cut into pieces of `size` bytes (on character boundaries), so SSE events and
/// even lines arrive split across writes.
pub fn chopped(sse: &[String], size: usize) -> Vec<String> {
    let all: String = sse.concat();
    let mut out = Vec::new();
    let mut current = String::new();
    for c in all.chars() {
        if current.len() + c.len_utf8() > size.max(4) {
            out.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The same stream with `\r\n` line ends (valid SSE, sent by some servers and proxies).
pub fn crlf(sse: &[String]) -> Vec<String> {
    sse.iter().map(|p| p.replace('\n', "\r\n")).collect()
}

/// One Anthropic SSE event (`event:` line named after the payload's `type`).
pub fn anthropic_event(data: Value) -> String {
    let name = data.get("type").and_then(Value::as_str).unwrap_or("message").to_owned();
    format!("event: {name}\ndata: {data}\n\n")
}

/// A complete Anthropic Messages stream: `message_start` (input and cache-read tokens) → a text
/// block of `text_delta`s (when there is text) → one `tool_use` block per call (its
/// `input_json_delta` fragments) → `ping` → `message_delta` (stop reason, cumulative output tokens)
/// → `message_stop`.
pub fn anthropic_sse(text: &[&str], calls: &[Call], usage: Usage) -> Vec<String> {
    let mut out = vec![anthropic_event(json!({
        "type": "message_start",
        "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": "fake-model", "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {
                "input_tokens": usage.input,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": usage.cache_read,
                "output_tokens": 1
            }
        }
    }))];
    let mut index = 0;
    if !text.is_empty() {
        out.push(anthropic_event(json!({
            "type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}
        })));
        out.push(anthropic_event(json!({"type": "ping"})));
        for t in text {
            out.push(anthropic_event(json!({
                "type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": t}
            })));
        }
        out.push(anthropic_event(json!({"type": "content_block_stop", "index": index})));
        index += 1;
    } else {
        out.push(anthropic_event(json!({"type": "ping"})));
    }
    for c in calls {
        out.push(anthropic_event(json!({
            "type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": c.id, "name": c.name, "input": {}}
        })));
        // The API opens every tool input with an empty fragment.
        let fragments = std::iter::once("").chain(c.fragments.iter().map(String::as_str));
        for f in fragments {
            out.push(anthropic_event(json!({
                "type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": f}
            })));
        }
        out.push(anthropic_event(json!({"type": "content_block_stop", "index": index})));
        index += 1;
    }
    let stop_reason = if calls.is_empty() { "end_turn" } else { "tool_use" };
    out.push(anthropic_event(json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {"output_tokens": usage.output}
    })));
    out.push(anthropic_event(json!({"type": "message_stop"})));
    out
}

/// One OpenAI chat-completion chunk (`data:` line) with `delta` in choice 0.
pub fn openai_chunk(delta: Value, finish_reason: Option<&str>) -> String {
    let data = json!({
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "fake-model",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
        "usage": null
    });
    format!("data: {data}\n\n")
}

/// The final usage chunk of a stream with `stream_options.include_usage` (`choices: []`).
pub fn openai_usage(usage: Usage) -> String {
    let mut u = json!({
        "prompt_tokens": usage.input,
        "completion_tokens": usage.output,
        "total_tokens": usage.input + usage.output
    });
    if usage.cache_read > 0 {
        u["prompt_tokens_details"] = json!({"cached_tokens": usage.cache_read});
    }
    let data = json!({
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "fake-model",
        "choices": [], "usage": u
    });
    format!("data: {data}\n\n")
}

/// The end of an OpenAI stream.
pub const OPENAI_DONE: &str = "data: [DONE]\n\n";

/// A complete OpenAI chat-completions stream: the role chunk → content deltas → per call a first
/// fragment (`index`, `id`, `type`, `function.name`, empty `arguments`) and then its argument
/// pieces → `finish_reason` (`tool_calls` or `stop`) → the usage chunk → `[DONE]`.
pub fn openai_sse(text: &[&str], calls: &[Call], usage: Usage) -> Vec<String> {
    let mut out = vec![openai_chunk(json!({"role": "assistant", "content": ""}), None)];
    for t in text {
        out.push(openai_chunk(json!({"content": t}), None));
    }
    for (i, c) in calls.iter().enumerate() {
        out.push(openai_chunk(
            json!({"tool_calls": [{"index": i, "id": c.id, "type": "function", "function": {"name": c.name, "arguments": ""}}]}),
            None,
        ));
        for f in &c.fragments {
            out.push(openai_chunk(json!({"tool_calls": [{"index": i, "function": {"arguments": f}}]}), None));
        }
    }
    let finish = if calls.is_empty() { "stop" } else { "tool_calls" };
    out.push(openai_chunk(json!({}), Some(finish)));
    out.push(openai_usage(usage));
    out.push(OPENAI_DONE.to_owned());
    out
}

/// One fake model turn, built up and then rendered in either format.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Turn {
    pub text: Vec<String>,
    pub calls: Vec<Call>,
    pub usage: Usage,
}

impl Turn {
    /// Streams `chunk` as one text delta.
    pub fn say(mut self, chunk: impl Into<String>) -> Self {
        self.text.push(chunk.into());
        self
    }

    /// Streams `text` in deltas of at most `size` characters.
    pub fn say_in_pieces(mut self, text: &str, size: usize) -> Self {
        self.text.extend(pieces(text, size).into_iter().filter(|p| !p.is_empty()));
        self
    }

    /// Calls `name` with argument JSON streamed as `fragments`.
    pub fn call<S: Into<String>>(
        mut self,
        id: impl Into<String>,
        name: &str,
        fragments: impl IntoIterator<Item = S>,
    ) -> Self {
        self.calls.push(call(id, name, fragments));
        self
    }

    pub fn usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// The turn as `kind`'s SSE events.
    pub fn sse(&self, kind: Kind) -> Vec<String> {
        let text: Vec<&str> = self.text.iter().map(String::as_str).collect();
        match kind {
            Kind::Anthropic => anthropic_sse(&text, &self.calls, self.usage),
            Kind::OpenAi => openai_sse(&text, &self.calls, self.usage),
        }
    }

    /// The turn as a 200 event stream.
    pub fn reply(&self, kind: Kind) -> Reply {
        Reply::Sse(self.sse(kind))
    }
}

// ---------------------------------------------------------------------------------------------
// Requests as the fake saw them

/// A tool call found in a request's transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// Anthropic: `input`. OpenAI: `arguments` parsed, or the raw string when it is not JSON.
    pub arguments: Value,
}

/// A tool result found in a request's transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub id: String,
    /// The name of the call it answers (empty when no call in the request has its id).
    pub name: String,
    pub content: String,
    /// Anthropic's `is_error` (None when absent, and always for OpenAI, which has no such field).
    pub is_error: Option<bool>,
}

/// One request the fake received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names lower-cased (a repeated header keeps its last value).
    pub headers: BTreeMap<String, String>,
    /// The body as JSON (a body that is not JSON is kept as a JSON string).
    pub body: Value,
    /// The body's bytes as received (for binary formats such as OTLP protobuf).
    pub raw: Vec<u8>,
    /// How many earlier requests had exactly this body: 0 for a first attempt, 1 for its first retry…
    pub attempt: usize,
    /// When the request had been read.
    pub received: Instant,
}

/// The texts in a content value: a string, or the `text` of its text blocks / parts.
fn texts_of(content: &Value) -> Vec<String> {
    match content {
        Value::String(s) => vec![s.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect(),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => Vec::new(),
    }
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or_default()
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

impl Recorded {
    /// The format of the request, from its path.
    pub fn kind(&self) -> Kind {
        if self.path.ends_with("/chat/completions") { Kind::OpenAi } else { Kind::Anthropic }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(&name.to_ascii_lowercase()).map(String::as_str)
    }

    pub fn messages(&self) -> &[Value] {
        self.body.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The system prompt (Anthropic `system`; OpenAI the first message when it is a system one).
    pub fn system(&self) -> String {
        match self.kind() {
            Kind::Anthropic => texts_of(self.body.get("system").unwrap_or(&Value::Null)).join("\n"),
            Kind::OpenAi => match self.messages().first() {
                Some(m) if matches!(role(m), "system" | "developer") => {
                    texts_of(m.get("content").unwrap_or(&Value::Null)).join("\n")
                }
                _ => String::new(),
            },
        }
    }

    /// The names of the tools offered.
    pub fn tool_names(&self) -> Vec<String> {
        let pointer = match self.kind() {
            Kind::Anthropic => "/name",
            Kind::OpenAi => "/function/name",
        };
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| tools.iter().map(|t| str_at(t, pointer).to_owned()).collect())
            .unwrap_or_default()
    }

    /// The user's newest words: the last text of the last message when that is a user message.
    /// `None` when the request ends with tool results only (the model is to go on from them).
    pub fn last_user_text(&self) -> Option<String> {
        let last = self.messages().last()?;
        if role(last) != "user" {
            return None;
        }
        texts_of(last.get("content").unwrap_or(&Value::Null)).pop()
    }

    /// Every user text in the transcript, in order.
    pub fn user_texts(&self) -> Vec<String> {
        self.messages()
            .iter()
            .filter(|m| role(m) == "user")
            .flat_map(|m| texts_of(m.get("content").unwrap_or(&Value::Null)))
            .collect()
    }

    /// Every tool call in the transcript, in order.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        let mut out = Vec::new();
        for m in self.messages().iter().filter(|m| role(m) == "assistant") {
            match self.kind() {
                Kind::Anthropic => {
                    for b in m.get("content").and_then(Value::as_array).into_iter().flatten() {
                        if b.get("type").and_then(Value::as_str) == Some("tool_use") {
                            out.push(ToolCall {
                                id: str_at(b, "/id").to_owned(),
                                name: str_at(b, "/name").to_owned(),
                                arguments: b.get("input").cloned().unwrap_or(Value::Null),
                            });
                        }
                    }
                }
                Kind::OpenAi => {
                    for c in m.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
                        let raw = str_at(c, "/function/arguments");
                        out.push(ToolCall {
                            id: str_at(c, "/id").to_owned(),
                            name: str_at(c, "/function/name").to_owned(),
                            arguments: serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned())),
                        });
                    }
                }
            }
        }
        out
    }

    fn results_in(&self, messages: &[Value]) -> Vec<ToolResult> {
        let names: HashMap<String, String> = self.tool_calls().into_iter().map(|c| (c.id, c.name)).collect();
        let name = |id: &str| names.get(id).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for m in messages {
            match self.kind() {
                Kind::Anthropic if role(m) == "user" => {
                    for b in m.get("content").and_then(Value::as_array).into_iter().flatten() {
                        if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                            let id = str_at(b, "/tool_use_id").to_owned();
                            out.push(ToolResult {
                                name: name(&id),
                                content: texts_of(b.get("content").unwrap_or(&Value::Null)).join("\n"),
                                is_error: b.get("is_error").and_then(Value::as_bool),
                                id,
                            });
                        }
                    }
                }
                Kind::OpenAi if role(m) == "tool" => {
                    let id = str_at(m, "/tool_call_id").to_owned();
                    out.push(ToolResult {
                        name: name(&id),
                        content: texts_of(m.get("content").unwrap_or(&Value::Null)).join("\n"),
                        is_error: None,
                        id,
                    });
                }
                Kind::Anthropic | Kind::OpenAi => {}
            }
        }
        out
    }

    /// Every tool result in the transcript, in order.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        self.results_in(self.messages())
    }

    /// The results the request ends with: those of the last (user) message for Anthropic, the
    /// trailing tool messages for OpenAI.
    pub fn trailing_results(&self) -> Vec<ToolResult> {
        let messages = self.messages();
        match self.kind() {
            Kind::Anthropic => match messages.last() {
                Some(m) if role(m) == "user" => self.results_in(&messages[messages.len() - 1..]),
                _ => Vec::new(),
            },
            Kind::OpenAi => {
                let start = messages.iter().rposition(|m| role(m) != "tool").map_or(0, |p| p + 1);
                self.results_in(&messages[start..])
            }
        }
    }

    /// Whether the real provider would accept this request (see `validate_anthropic` /
    /// `validate_openai`).
    pub fn validate(&self) -> Result<(), String> {
        match self.kind() {
            Kind::Anthropic => validate_anthropic(&self.body),
            Kind::OpenAi => validate_openai(&self.body),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Validation, the way the providers do it

fn ensure(ok: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(message()) }
}

/// `^[a-zA-Z0-9_-]{1,64}$`, the tool-name rule of both APIs.
fn valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Checks an Anthropic Messages request body as the API does: `model` and `max_tokens`; `system`
/// a string or text blocks; tools with valid unique names and object schemas; messages alternating
/// user/assistant starting with user, none empty, no whitespace-only text; every assistant
/// `tool_use` (unique id, object `input`, valid name) answered by exactly one `tool_result` at the
/// beginning of the immediately following user message, and no `tool_result` without a matching
/// `tool_use` in the assistant message just before.
pub fn validate_anthropic(body: &Value) -> Result<(), String> {
    ensure(body.get("model").and_then(Value::as_str).is_some_and(|m| !m.is_empty()), || {
        "model: field required".to_owned()
    })?;
    ensure(body.get("max_tokens").and_then(Value::as_u64).is_some_and(|n| n >= 1), || {
        "max_tokens: field required (a positive integer)".to_owned()
    })?;
    if let Some(stream) = body.get("stream") {
        ensure(stream.is_boolean(), || "stream: must be a boolean".to_owned())?;
    }
    match body.get("system") {
        None | Some(Value::Null) | Some(Value::String(_)) => {}
        Some(Value::Array(blocks)) => {
            for (i, b) in blocks.iter().enumerate() {
                ensure(
                    b.get("type").and_then(Value::as_str) == Some("text")
                        && b.get("text").is_some_and(Value::is_string),
                    || format!("system.{i}: only text blocks are allowed"),
                )?;
            }
        }
        Some(_) => return Err("system: must be a string or an array of text blocks".to_owned()),
    }
    if let Some(tools) = body.get("tools") {
        let tools = tools.as_array().ok_or("tools: must be an array")?;
        let mut names = HashSet::new();
        for (i, t) in tools.iter().enumerate() {
            let name = str_at(t, "/name");
            ensure(valid_tool_name(name), || {
                format!("tools.{i}.name: {name:?} does not match ^[a-zA-Z0-9_-]{{1,64}}$")
            })?;
            ensure(names.insert(name.to_owned()), || format!("tools: tool names must be unique ({name})"))?;
            ensure(str_at(t, "/input_schema/type") == "object", || {
                format!("tools.{i}.input_schema: an object schema (type \"object\") is required")
            })?;
        }
    }
    let messages = body.get("messages").and_then(Value::as_array).ok_or("messages: field required")?;
    ensure(!messages.is_empty(), || "messages: at least one message is required".to_owned())?;
    let mut ids = HashSet::new();
    // The tool_use ids of the assistant message just before, still to be answered.
    let mut open: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = role(m);
        let expected = if i % 2 == 0 { "user" } else { "assistant" };
        ensure(role == expected, || {
            format!("messages.{i}.role: {role:?} where {expected:?} was expected (roles alternate, starting with user)")
        })?;
        let blocks: Vec<Value> = match m.get("content") {
            Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
            Some(Value::Array(b)) => b.clone(),
            _ => return Err(format!("messages.{i}.content: a string or an array of content blocks is required")),
        };
        ensure(!blocks.is_empty(), || format!("messages.{i}: all messages must have non-empty content"))?;
        for (j, b) in blocks.iter().enumerate() {
            let at = format!("messages.{i}.content.{j}");
            match b.get("type").and_then(Value::as_str).unwrap_or_default() {
                "text" => ensure(b.get("text").and_then(Value::as_str).is_some_and(|t| !t.trim().is_empty()), || {
                    format!("{at}: text content blocks must contain non-whitespace text")
                })?,
                "tool_use" => {
                    ensure(role == "assistant", || format!("{at}: tool_use blocks belong to assistant messages"))?;
                    let id = str_at(b, "/id");
                    ensure(
                        !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                        || format!("{at}.id: {id:?} does not match ^[a-zA-Z0-9_-]+$"),
                    )?;
                    ensure(ids.insert(id.to_owned()), || format!("{at}: `tool_use` ids must be unique ({id})"))?;
                    let name = str_at(b, "/name");
                    ensure(valid_tool_name(name), || format!("{at}.name: {name:?} is not a valid tool name"))?;
                    ensure(b.get("input").is_some_and(Value::is_object), || {
                        format!("{at}.input: Input should be a valid dictionary")
                    })?;
                }
                "tool_result" => {
                    ensure(role == "user", || format!("{at}: tool_result blocks belong to user messages"))?;
                    ensure(b.get("tool_use_id").is_some_and(Value::is_string), || {
                        format!("{at}.tool_use_id: field required")
                    })?;
                    match b.get("content") {
                        None | Some(Value::String(_)) => {}
                        Some(Value::Array(parts)) => {
                            for p in parts {
                                let t = p.get("type").and_then(Value::as_str).unwrap_or_default();
                                ensure(matches!(t, "text" | "image" | "document" | "search_result"), || {
                                    format!("{at}.content: unexpected block type {t:?}")
                                })?;
                            }
                        }
                        Some(_) => return Err(format!("{at}.content: a string or an array of blocks")),
                    }
                    if let Some(e) = b.get("is_error") {
                        ensure(e.is_boolean(), || format!("{at}.is_error: must be a boolean"))?;
                    }
                }
                "image" | "document" => {
                    ensure(role == "user", || format!("{at}: {} blocks belong to user messages", str_at(b, "/type")))?
                }
                "thinking" | "redacted_thinking" => {
                    ensure(role == "assistant", || format!("{at}: thinking blocks belong to assistant messages"))?
                }
                other => return Err(format!("{at}.type: unknown content block type {other:?}")),
            }
        }
        let is_result = |b: &Value| b.get("type").and_then(Value::as_str) == Some("tool_result");
        if role == "user" {
            let leading: Vec<&str> =
                blocks.iter().take_while(|b| is_result(b)).map(|b| str_at(b, "/tool_use_id")).collect();
            if let Some(j) = blocks.iter().skip(leading.len()).position(is_result) {
                return Err(format!(
                    "messages.{i}.content.{}: tool_result blocks must come first in a user message, before any other content",
                    leading.len() + j
                ));
            }
            let mut answered = HashSet::new();
            for (j, id) in leading.iter().enumerate() {
                ensure(open.iter().any(|o| o == id), || {
                    format!(
                        "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each \
                         `tool_result` block must have a corresponding `tool_use` block in the previous message."
                    )
                })?;
                ensure(answered.insert(*id), || format!("messages.{i}.content.{j}: a second tool_result for {id}"))?;
            }
            let missing: Vec<&String> = open.iter().filter(|o| !answered.contains(o.as_str())).collect();
            ensure(missing.is_empty(), || {
                format!(
                    "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {missing:?}. \
                     Did not find {} tool_result block(s) at the beginning of this message. Messages following \
                     `tool_use` blocks must begin with a matching number of `tool_result` blocks.",
                    missing.len()
                )
            })?;
            open.clear();
        } else {
            open = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                .map(|b| str_at(b, "/id").to_owned())
                .collect();
        }
    }
    ensure(open.is_empty(), || {
        format!("messages: `tool_use` ids were found without `tool_result` blocks immediately after: {open:?}")
    })
}

/// Checks an OpenAI chat-completions request body as the API does: `model`; the system prompt
/// first; tools of type function with valid unique names; user messages with content; assistant
/// messages with content or non-empty `tool_calls` (unique ids, type function, a string
/// `arguments`), each immediately followed by exactly one tool message per `tool_call_id`, in any
/// order; no tool message anywhere else; `stream_options` only with `stream`.
pub fn validate_openai(body: &Value) -> Result<(), String> {
    ensure(body.get("model").and_then(Value::as_str).is_some_and(|m| !m.is_empty()), || {
        "you must provide a model parameter".to_owned()
    })?;
    if body.get("stream_options").is_some_and(|o| !o.is_null()) {
        ensure(body.get("stream") == Some(&Value::Bool(true)), || {
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.".to_owned()
        })?;
    }
    if let Some(tools) = body.get("tools") {
        let tools = tools.as_array().ok_or("tools: must be an array")?;
        let mut names = HashSet::new();
        for (i, t) in tools.iter().enumerate() {
            ensure(str_at(t, "/type") == "function", || format!("tools[{i}].type: expected 'function'"))?;
            let name = str_at(t, "/function/name");
            ensure(valid_tool_name(name), || format!("tools[{i}].function.name: {name:?} is invalid"))?;
            ensure(names.insert(name.to_owned()), || format!("tools: duplicate function name {name}"))?;
            if let Some(p) = t.pointer("/function/parameters") {
                ensure(p.is_object(), || format!("tools[{i}].function.parameters: expected an object"))?;
            }
        }
    }
    let messages = body.get("messages").and_then(Value::as_array).ok_or("messages: required")?;
    ensure(!messages.is_empty(), || "messages: expected an array with minimum length 1".to_owned())?;
    ensure(matches!(role(&messages[0]), "system" | "developer"), || {
        format!("messages[0]: the system prompt comes first, got role {:?}", role(&messages[0]))
    })?;
    let content_ok = |c: Option<&Value>| matches!(c, Some(Value::String(_)) | Some(Value::Array(_)));
    let mut ids = HashSet::new();
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        match role(m) {
            "system" | "developer" | "user" => {
                ensure(content_ok(m.get("content")), || {
                    format!("messages[{i}].content: expected a string or an array")
                })?;
            }
            "assistant" => {
                let calls = match m.get("tool_calls") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(c)) => {
                        ensure(!c.is_empty(), || {
                            format!("messages[{i}].tool_calls: empty array. Expected an array with minimum length 1")
                        })?;
                        c.clone()
                    }
                    Some(_) => return Err(format!("messages[{i}].tool_calls: expected an array")),
                };
                match m.get("content") {
                    None | Some(Value::Null) => ensure(!calls.is_empty(), || {
                        format!(
                            "messages[{i}].content: expected a string, got null (an assistant message needs content or tool_calls)"
                        )
                    })?,
                    c => ensure(content_ok(c), || format!("messages[{i}].content: expected a string or an array"))?,
                }
                let mut open = Vec::new();
                for (j, c) in calls.iter().enumerate() {
                    let at = format!("messages[{i}].tool_calls[{j}]");
                    let id = str_at(c, "/id");
                    ensure(!id.is_empty(), || format!("{at}.id: required"))?;
                    ensure(ids.insert(id.to_owned()), || format!("{at}.id: duplicate tool call id {id}"))?;
                    ensure(str_at(c, "/type") == "function", || format!("{at}.type: expected 'function'"))?;
                    ensure(!str_at(c, "/function/name").is_empty(), || format!("{at}.function.name: required"))?;
                    ensure(c.pointer("/function/arguments").is_some_and(Value::is_string), || {
                        format!("{at}.function.arguments: expected a string")
                    })?;
                    open.push(id.to_owned());
                }
                if !open.is_empty() {
                    let mut answered = HashSet::new();
                    let mut k = i + 1;
                    while let Some(t) = messages.get(k).filter(|t| role(t) == "tool") {
                        let id = str_at(t, "/tool_call_id");
                        ensure(open.iter().any(|o| o == id), || {
                            format!(
                                "messages[{k}]: Invalid parameter: messages with role 'tool' must be a response to a \
                                 preceeding message with 'tool_calls' (no call {id:?})."
                            )
                        })?;
                        ensure(answered.insert(id.to_owned()), || {
                            format!("messages[{k}]: a second tool message for tool_call_id {id}")
                        })?;
                        ensure(content_ok(t.get("content")), || format!("messages[{k}].content: expected a string"))?;
                        k += 1;
                    }
                    let missing: Vec<&String> = open.iter().filter(|o| !answered.contains(*o)).collect();
                    ensure(missing.is_empty(), || {
                        format!(
                            "messages[{i}]: An assistant message with 'tool_calls' must be followed by tool messages \
                             responding to each 'tool_call_id'. The following tool_call_ids did not have response \
                             messages: {missing:?}"
                        )
                    })?;
                    i = k;
                    continue;
                }
            }
            "tool" => {
                return Err(format!(
                    "messages[{i}]: Invalid parameter: messages with role 'tool' must be a response to a preceeding \
                     message with 'tool_calls'."
                ));
            }
            other => return Err(format!("messages[{i}].role: unknown role {other:?}")),
        }
        i += 1;
    }
    Ok(())
}

/// Whether every tool the request's transcript calls is among the tools it offers (a stricter rule
/// than the APIs': within one run, the model only ever sees and calls the run's tools).
pub fn calls_are_offered(request: &Recorded) -> Result<(), String> {
    let offered = request.tool_names();
    let stray: Vec<String> =
        request.tool_calls().into_iter().map(|c| c.name).filter(|n| !offered.contains(n)).collect();
    ensure(stray.is_empty(), || format!("tool calls of tools not offered: {stray:?} (offered: {offered:?})"))
}

// ---------------------------------------------------------------------------------------------
// The server

/// What the fake answers one request with.
#[derive(Clone, Debug)]
pub enum Reply {
    /// `200`, `text/event-stream`, the pieces written one by one (a short pause between), then close.
    Sse(Vec<String>),
    /// Like `Sse`, then the connection stays open and silent: a stalled stream.
    SseThenStall(Vec<String>),
    /// Like `Sse`, then `beat` again every `every`, forever: a stream that never goes quiet and
    /// never ends.
    Drip { pieces: Vec<String>, beat: String, every: Duration },
    /// Another status with a body (JSON) and extra headers, then close.
    Status { code: u16, headers: Vec<(String, String)>, body: String },
    /// The request is read, then the connection is closed without an answer.
    Close,
    /// The request is read and never answered.
    Hang,
}

impl Reply {
    pub fn status(code: u16, body: Value) -> Self {
        Reply::Status { code, headers: Vec::new(), body: body.to_string() }
    }

    pub fn with_header(self, name: &str, value: &str) -> Self {
        match self {
            Reply::Status { code, mut headers, body } => {
                headers.push((name.to_owned(), value.to_owned()));
                Reply::Status { code, headers, body }
            }
            other @ (Reply::Sse(_) | Reply::SseThenStall(_) | Reply::Drip { .. } | Reply::Close | Reply::Hang) => other,
        }
    }
}

type Handler = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

/// A running fake provider.
pub struct FakeLlm {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    titles: Arc<Mutex<Vec<Recorded>>>,
    panicked: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

/// Between two written pieces of a stream.
const PIECE_PAUSE: Duration = Duration::from_millis(1);

impl FakeLlm {
    /// Starts the fake; `reply` gets each request and its number (0-based, in arrival order).
    pub async fn start(reply: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the fake provider");
        let addr = listener.local_addr().expect("the fake provider's address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let titles = Arc::new(Mutex::new(Vec::new()));
        let panicked = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(reply);
        let (recorded, named, panics) = (requests.clone(), titles.clone(), panicked.clone());
        let task = tokio::spawn(async move {
            // Owned by this task: aborting it drops the set, which aborts every connection.
            let mut connections = JoinSet::new();
            loop {
                match listener.accept().await {
                    Ok((stream, _)) => {
                        while connections.try_join_next().is_some() {}
                        let logs = Logs { requests: recorded.clone(), titles: named.clone(), panicked: panics.clone() };
                        connections.spawn(serve(stream, handler.clone(), logs));
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                }
            }
        });
        Self { addr, requests, titles, panicked, task }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL the server is configured with: the host for Anthropic (it appends
    /// `/v1/messages`), up to the version for OpenAI-compatible servers (it appends
    /// `/chat/completions`).
    pub fn base_url(&self, kind: Kind) -> String {
        match kind {
            Kind::Anthropic => self.url(),
            Kind::OpenAi => format!("{}/v1", self.url()),
        }
    }

    /// Every request so far, in arrival order. Panics if the reply closure panicked.
    pub fn requests(&self) -> Vec<Recorded> {
        let panics = self.panicked.lock().expect("panics lock").clone();
        assert!(panics.is_empty(), "the fake provider's reply closure panicked: {panics:?}");
        self.requests.lock().expect("requests lock").clone()
    }

    pub fn count(&self) -> usize {
        self.requests.lock().expect("requests lock").len()
    }

    /// The requests to name a thread, in arrival order (answered outside the script).
    pub fn title_requests(&self) -> Vec<Recorded> {
        self.titles.lock().expect("titles lock").clone()
    }
}

/// Where `serve` keeps what it saw.
struct Logs {
    requests: Arc<Mutex<Vec<Recorded>>>,
    titles: Arc<Mutex<Vec<Recorded>>>,
    panicked: Arc<Mutex<Vec<String>>>,
}

/// The fake's answer to a request to name a thread: "About" and the message's first three words.
fn title_reply(request: &Recorded) -> Option<Reply> {
    if !request.system().starts_with(NAME_THREAD_PROMPT) || !request.tool_names().is_empty() {
        return None;
    }
    let message = request.last_user_text().unwrap_or_default();
    let words: Vec<&str> = message.split_whitespace().take(3).collect();
    Some(Turn::default().say(format!("About {}", words.join(" "))).reply(request.kind()))
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(mut stream: TcpStream, handler: Arc<Handler>, logs: Logs) {
    let _ = stream.set_nodelay(true);
    let Ok(Some(request)) = read_request(&mut stream).await else { return };
    if let Some(reply) = title_reply(&request) {
        if let Ok(mut all) = logs.titles.lock() {
            all.push(request);
        }
        let _ = respond(&mut stream, reply).await;
        return;
    }
    let (request, n) = {
        let Ok(mut all) = logs.requests.lock() else { return };
        let attempt = all.iter().filter(|r| r.body == request.body).count();
        let request = Recorded { attempt, ..request };
        all.push(request.clone());
        (request, all.len() - 1)
    };
    let reply = match std::panic::catch_unwind(AssertUnwindSafe(|| handler(&request, n))) {
        Ok(r) => r,
        Err(p) => {
            let message = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            if let Ok(mut all) = logs.panicked.lock() {
                all.push(format!("request {n}: {message}"));
            }
            Reply::status(400, json!({"type": "error", "error": {"type": "fake_panic", "message": message}}))
        }
    };
    let _ = respond(&mut stream, reply).await;
}

async fn respond(stream: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n\
                            cache-control: no-cache\r\nconnection: close\r\n\r\n";
    match reply {
        Reply::Sse(pieces) => {
            write_stream(stream, SSE_HEAD, &pieces).await?;
            stream.shutdown().await?;
        }
        Reply::SseThenStall(pieces) => {
            write_stream(stream, SSE_HEAD, &pieces).await?;
            std::future::pending::<()>().await;
        }
        Reply::Drip { pieces, beat, every } => {
            write_stream(stream, SSE_HEAD, &pieces).await?;
            loop {
                tokio::time::sleep(every).await;
                stream.write_all(beat.as_bytes()).await?;
                stream.flush().await?;
            }
        }
        Reply::Close => {}
        Reply::Status { code, headers, body } => {
            let mut head = format!(
                "HTTP/1.1 {code} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                reason_phrase(code),
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(body.as_bytes()).await?;
            stream.flush().await?;
            stream.shutdown().await?;
        }
        Reply::Hang => std::future::pending::<()>().await,
    }
    Ok(())
}

async fn write_stream(stream: &mut TcpStream, head: &str, pieces: &[String]) -> std::io::Result<()> {
    stream.write_all(head.as_bytes()).await?;
    stream.flush().await?;
    for p in pieces {
        tokio::time::sleep(PIECE_PAUSE).await;
        stream.write_all(p.as_bytes()).await?;
        stream.flush().await?;
    }
    Ok(())
}

fn reason_phrase(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A chunked body, once all of it is there.
fn dechunk(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = raw;
    loop {
        let line_end = find(rest, b"\r\n")?;
        let size_text = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        if rest.len() < size + 2 {
            return None;
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

/// Largest request the fake reads.
const MAX_REQUEST: usize = 32 << 20;

/// Reads one request: request line, headers, and a `content-length` (or chunked) body.
async fn read_request(stream: &mut TcpStream) -> std::io::Result<Option<Recorded>> {
    let mut buf = Vec::new();
    let mut tmp = vec![0u8; 64 << 10];
    let head_end = loop {
        if let Some(p) = find(&buf, b"\r\n\r\n") {
            break p;
        }
        let n = stream.read(&mut tmp).await?;
        if n == 0 || buf.len() > MAX_REQUEST {
            return Ok(None);
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split_whitespace();
    let method = request_line.next().unwrap_or_default().to_owned();
    let path = request_line.next().unwrap_or_default().to_owned();
    let headers: BTreeMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut raw = buf[head_end + 4..].to_vec();
    let chunked = headers.get("transfer-encoding").is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
    let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
    let body = loop {
        if chunked {
            if let Some(b) = dechunk(&raw) {
                break b;
            }
        } else if raw.len() >= length {
            raw.truncate(length);
            break raw;
        }
        let n = stream.read(&mut tmp).await?;
        if n == 0 || raw.len() > MAX_REQUEST {
            break raw;
        }
        raw.extend_from_slice(&tmp[..n]);
    };
    let json =
        serde_json::from_slice(&body).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    Ok(Some(Recorded { method, path, headers, body: json, raw: body, attempt: 0, received: Instant::now() }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn anthropic(messages: Value) -> Value {
        json!({"model": "m", "max_tokens": 10, "tools": [{"name": "list_datasets", "input_schema": {"type": "object"}}],
               "messages": messages, "stream": true})
    }

    fn openai(messages: Value) -> Value {
        let mut all = vec![json!({"role": "system", "content": "s"})];
        all.extend(messages.as_array().unwrap().iter().cloned());
        json!({"model": "m", "messages": all, "stream": true, "stream_options": {"include_usage": true}})
    }

    fn err(r: Result<(), String>, needle: &str) {
        let e = r.expect_err("refused");
        assert!(e.contains(needle), "{needle:?} not in {e:?}");
    }

    #[test]
    fn anthropic_transcripts_are_checked_like_the_api_does() {
        let call = json!({"role": "assistant", "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "toolu_1", "name": "list_datasets", "input": {}},
            {"type": "tool_use", "id": "toolu_2", "name": "list_datasets", "input": {}}]});
        let result = |id: &str| json!({"type": "tool_result", "tool_use_id": id, "content": "ok"});
        let hi = json!({"role": "user", "content": "hi"});
        validate_anthropic(&anthropic(json!([
            hi, call, {"role": "user", "content": [result("toolu_2"), result("toolu_1"), {"type": "text", "text": "more"}]}
        ])))
        .unwrap();
        err(
            validate_anthropic(&anthropic(json!([hi, call, {"role": "user", "content": [result("toolu_1")]}]))),
            "without `tool_result`",
        );
        err(
            validate_anthropic(&anthropic(
                json!([hi, call, {"role": "user", "content": [{"type": "text", "text": "x"}, result("toolu_1"), result("toolu_2")]}]),
            )),
            "must come first",
        );
        err(
            validate_anthropic(&anthropic(
                json!([hi, call, {"role": "user", "content": [result("toolu_1"), result("toolu_2"), result("toolu_9")]}]),
            )),
            "unexpected `tool_use_id`",
        );
        err(
            validate_anthropic(&anthropic(
                json!([hi, {"role": "assistant", "content": "ok"}, {"role": "user", "content": [result("toolu_1")]}]),
            )),
            "unexpected `tool_use_id`",
        );
        err(validate_anthropic(&anthropic(json!([hi, call]))), "without `tool_result`");
        err(validate_anthropic(&anthropic(json!([hi, hi]))), "roles alternate");
        err(validate_anthropic(&anthropic(json!([{"role": "user", "content": " "}]))), "non-whitespace");
        err(validate_anthropic(&anthropic(json!([{"role": "user", "content": []}]))), "non-empty content");
        let bad_input =
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": "{"}]});
        err(validate_anthropic(&anthropic(json!([hi, bad_input]))), "valid dictionary");
        let twice = json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "x", "input": {}}, {"type": "tool_use", "id": "t", "name": "x", "input": {}}]});
        err(validate_anthropic(&anthropic(json!([hi, twice]))), "unique");
    }

    #[test]
    fn openai_transcripts_are_checked_like_the_api_does() {
        let call = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "list_datasets", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "list_datasets", "arguments": "{"}}]});
        let tool = |id: &str| json!({"role": "tool", "tool_call_id": id, "content": "ok"});
        let hi = json!({"role": "user", "content": "hi"});
        validate_openai(&openai(json!([hi, call, tool("c2"), tool("c1"), hi]))).unwrap();
        err(validate_openai(&openai(json!([hi, call, tool("c1"), hi]))), "did not have response messages");
        err(validate_openai(&openai(json!([hi, call, tool("c1"), tool("c2"), tool("c3")]))), "role 'tool'");
        err(validate_openai(&openai(json!([hi, tool("c1")]))), "role 'tool'");
        err(validate_openai(&openai(json!([hi, {"role": "assistant", "content": null}]))), "got null");
        let object_args = json!({"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "x", "arguments": {}}}]});
        err(validate_openai(&openai(json!([hi, object_args, tool("c1")]))), "expected a string");
        err(validate_openai(&json!({"model": "m", "messages": [hi]})), "system prompt comes first");
    }

    #[test]
    fn requests_read_as_a_model_would_read_them() {
        let r = Recorded {
            method: "POST".into(),
            path: "/v1/messages".into(),
            headers: BTreeMap::new(),
            body: anthropic(json!([
                {"role": "user", "content": "first"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "list_datasets", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "result"}], "is_error": true},
                    {"type": "text", "text": "second"}]}
            ])),
            raw: Vec::new(),
            attempt: 0,
            received: Instant::now(),
        };
        assert_eq!(r.kind(), Kind::Anthropic);
        assert_eq!(r.last_user_text().as_deref(), Some("second"));
        assert_eq!(r.user_texts(), ["first", "second"]);
        let expected = ToolResult {
            id: "toolu_1".into(),
            name: "list_datasets".into(),
            content: "result".into(),
            is_error: Some(true),
        };
        assert_eq!(r.trailing_results(), [expected]);
        assert_eq!(r.tool_names(), ["list_datasets"]);
        r.validate().unwrap();
    }

    #[test]
    fn the_builders_stream_well_formed_events() {
        let turn =
            Turn::default().say("Hi").call("toolu_1", "list_datasets", ["{\"a\":", "1}"]).usage(Usage::new(5, 7));
        let anthropic = turn.sse(Kind::Anthropic);
        for piece in &anthropic {
            let (event, data) = piece.strip_suffix("\n\n").unwrap().split_once('\n').unwrap();
            let data: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(event.strip_prefix("event: ").unwrap(), data["type"]);
        }
        assert!(anthropic.last().unwrap().contains("message_stop"));
        let openai = turn.sse(Kind::OpenAi);
        assert_eq!(openai.last().unwrap(), OPENAI_DONE);
        let arguments: String = openai
            .iter()
            .filter_map(|p| serde_json::from_str::<Value>(p.strip_prefix("data: ")?.trim()).ok())
            .filter_map(|v| v.pointer("/choices/0/delta/tool_calls/0/function/arguments")?.as_str().map(str::to_owned))
            .collect();
        assert_eq!(arguments, "{\"a\":1}");
        assert_eq!(chopped(&openai, 5).concat(), openai.concat());
    }

    #[tokio::test]
    async fn the_fake_records_requests_and_answers_over_real_http() {
        let fake = FakeLlm::start(|_, n| {
            if n == 0 {
                Reply::status(529, json!({"error": "busy"})).with_header("retry-after", "1")
            } else {
                Reply::Sse(vec!["data: a\n\n".into(), "data: b\n\n".into()])
            }
        })
        .await;
        let addr = fake.url().strip_prefix("http://").unwrap().to_owned();
        let body = r#"{"model":"m"}"#;
        let mut answers = Vec::new();
        for _ in 0..2 {
            let mut s = TcpStream::connect(&addr).await.unwrap();
            let head = format!(
                "POST /v1/messages HTTP/1.1\r\nHost: x\r\nX-Api-Key: k\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            s.write_all(head.as_bytes()).await.unwrap();
            s.write_all(body.as_bytes()).await.unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).await.unwrap();
            answers.push(out);
        }
        assert!(answers[0].starts_with("HTTP/1.1 529 Overloaded\r\n") && answers[0].contains("retry-after: 1\r\n"));
        assert!(answers[0].ends_with(r#"{"error":"busy"}"#));
        assert!(answers[1].starts_with("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream"));
        assert!(answers[1].ends_with("\r\n\r\ndata: a\n\ndata: b\n\n"));
        let requests = fake.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!((requests[0].header("x-api-key"), requests[0].body.clone()), (Some("k"), json!({"model": "m"})));
        assert_eq!((requests[0].attempt, requests[1].attempt), (0, 1));
    }
}
