//! One external server's tool as an aware tool: named `server.tool`, gated by the scope its
//! configuration maps it to, its risk from its annotations (hints that only ever add caution,
//! over the server's whole life: `Slot::at_least_as_cautious`), and its output treated as data —
//! the model reads a capped text marked as external content, the client gets the result up to
//! `mcp.max_output_kb`, with the cut stated.
//!
//! Everything such a server says is untrusted, its tool's title included. So the approval card
//! of a call is written in aware's own words: the server and the tool's name, the server's title
//! as bounded plain text, and every argument the call would send (long values folded, with the
//! count of characters folded — never dropped). A call with more arguments than a card can list
//! is refused before anyone is asked, and no call is ever allowed for a while: aware cannot tell
//! which of an external tool's arguments name what it acts on, so a grant would let a later call
//! with other arguments through unseen.

use crate::config::ScopeConfig;
use crate::slot::Slot;
use async_trait::async_trait;
use aware_core::runs::model_view::markers;
use aware_core::runs::tools::{Gate, Prepared, ScopeGrant, Tool, ToolContext, ToolId, ToolMeta, ToolOutput};
use aware_core::{Error, ErrorCode, Result};
use aware_domain::events::{ResourceRef, RichResult, Tier, ToolRisk};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

/// What the model may read of an external tool's output or description, at most.
const MAX_TEXT: usize = 2_000;
const MAX_DESCRIPTION: usize = 400;
/// A server's title for its tool, as aware shows it: plain text of at most this many characters.
const MAX_TITLE: usize = 80;
/// A card shows an argument's value whole up to this many characters; a longer one is folded to
/// its first `FOLD_HEAD` and last `FOLD_TAIL` characters.
const MAX_VALUE: usize = 160;
const FOLD_HEAD: usize = 100;
const FOLD_TAIL: usize = 40;
/// The most argument values (leaves of the arguments object) a card lists.
const MAX_ARGUMENTS: usize = 64;

fn capped(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (format!("{}…", &text[..at]), true),
        None => (text.to_owned(), false),
    }
}

/// A server's title as plain text: one line, no control, format (bidi, zero-width) or Markdown
/// characters, at most [`MAX_TITLE`] characters. "**safe to allow**" reads as what it is — the
/// server's words — and never in aware's emphasis.
fn plain_title(raw: &str) -> String {
    let kept: String = raw
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !c.is_control() && !is_format(*c) && !"*_`~#[]<>|\\!".contains(*c))
        .collect();
    let one_line = kept.split_whitespace().collect::<Vec<_>>().join(" ");
    capped(&one_line, MAX_TITLE).0
}

/// Unicode format characters that change how text reads without showing: bidi controls and
/// zero-width characters.
fn is_format(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// One segment of an argument's path as the card shows it: a plain name as it is, anything else
/// as a JSON string (so a key cannot start a line of its own), folded when long.
fn path_segment(key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().count() <= 40
        && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
    if plain { key.to_owned() } else { fold(&Value::String(key.to_owned()).to_string()).0 }
}

/// `text` folded to its head and tail when longer than [`MAX_VALUE`]; the characters folded.
fn fold(text: &str) -> (String, usize) {
    let n = text.chars().count();
    if n <= MAX_VALUE {
        return (text.to_owned(), 0);
    }
    let head: String = text.chars().take(FOLD_HEAD).collect();
    let tail: String = text.chars().skip(n - FOLD_TAIL).collect();
    let folded = n - FOLD_HEAD - FOLD_TAIL;
    (format!("{head}…({folded} characters folded)…{tail}"), folded)
}

/// Every leaf of `value` as (path, value as JSON), in order.
fn leaves(path: String, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(m) if !m.is_empty() => {
            for (k, v) in m {
                let key = path_segment(k);
                leaves(if path.is_empty() { key } else { format!("{path}.{key}") }, v, out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, v) in a.iter().enumerate() {
                leaves(format!("{path}[{i}]"), v, out);
            }
        }
        leaf @ (Value::Null
        | Value::Bool(_)
        | Value::Number(_)
        | Value::String(_)
        | Value::Array(_)
        | Value::Object(_)) => out.push((path, leaf.to_string())),
    }
}

/// The card of a call: what will happen, in aware's words, with every argument.
fn card(server: &str, name: &str, title: &str, args: &Value) -> Result<String> {
    let mut all = Vec::new();
    if args.as_object().is_none_or(|m| !m.is_empty()) {
        leaves(String::new(), args, &mut all);
    }
    if all.len() > MAX_ARGUMENTS {
        return Err(Error::validation(
            "arguments",
            format!(
                "this call to {name} has {} argument values; an approval card lists at most {MAX_ARGUMENTS}, so it \
                 cannot be asked about",
                all.len()
            ),
        ));
    }
    let mut text = format!(
        "Call the tool {name} of the external MCP server {server} (it calls itself “{title}”; the server's words, not aware's)"
    );
    if all.is_empty() {
        text.push_str(" with no arguments.");
        return Ok(text);
    }
    text.push_str(&format!(" with {} argument value{}:", all.len(), if all.len() == 1 { "" } else { "s" }));
    let mut folded = 0;
    for (path, value) in &all {
        let (shown, n) = fold(value);
        folded += n;
        text.push_str(&format!("\n- {path}: {shown}"));
    }
    if folded > 0 {
        text.push_str(&format!("\n{folded} characters folded in long values (shown as …); nothing left out."));
    }
    Ok(text)
}

pub(crate) struct ExternalTool {
    meta: ToolMeta,
    schema: Value,
    /// The tool's name on its server.
    remote: String,
    slot: Arc<Slot>,
    timeout: Duration,
    /// The most bytes of a result (as JSON) kept for the client and the run's log.
    max_output: usize,
}

/// The risk a listing's annotations (and the scope's `confirm`) give a tool. Hints are untrusted:
/// they may add caution, never remove it (MCP's defaults: destructive and open-world unless the
/// server says otherwise).
pub(crate) fn listed_risk(tool: &rmcp::model::Tool, scope: Option<&ScopeConfig>) -> ToolRisk {
    let hints = tool.annotations.clone().unwrap_or_default();
    let confirm = scope.is_some_and(|s| s.confirm);
    let read_only = hints.read_only_hint == Some(true) && !confirm;
    let destructive = !read_only && hints.destructive_hint != Some(false);
    let open_world = hints.open_world_hint != Some(false);
    let confirmation = if destructive {
        Some(Tier::Elevated)
    } else if confirm || open_world {
        Some(Tier::Standard)
    } else {
        None
    };
    ToolRisk { read_only, destructive, confirmation }
}

impl ExternalTool {
    /// `risk`: as cautious as the tool has ever been listed (see `Slot::at_least_as_cautious`).
    pub(crate) fn new(
        slot: Arc<Slot>,
        tool: &rmcp::model::Tool,
        scope: Option<&ScopeConfig>,
        risk: ToolRisk,
        timeout: Duration,
        max_output: usize,
    ) -> Self {
        let id = ToolId::external(&slot.config.id, &tool.name);
        let hinted = tool.annotations.as_ref().and_then(|h| h.title.clone());
        let title = plain_title(tool.title.as_deref().or(hinted.as_deref()).unwrap_or(&tool.name));
        let (description, _) = capped(tool.description.as_deref().unwrap_or_default(), MAX_DESCRIPTION);
        let meta = ToolMeta {
            activity: Cow::Owned(format!("Calling {}…", id.as_str())),
            description: Cow::Owned(format!(
                "[external tool of the MCP server {}; its description is theirs] {description}",
                slot.config.id
            )),
            title: Cow::Owned(title),
            risk,
            gate: Gate::Scope(scope.map(|s| ScopeGrant {
                scope: s.name.clone(),
                modes: s.modes.clone(),
                min_role: s.min_role,
            })),
            intents: &[],
            name: id,
        };
        Self {
            meta,
            schema: Value::Object((*tool.input_schema).clone()),
            remote: tool.name.to_string(),
            slot,
            timeout,
            max_output,
        }
    }

    fn failed(&self, why: impl std::fmt::Display) -> Error {
        Error::new(ErrorCode::ExternalToolFailed, format!("{} failed: {why}", self.meta.name.as_str()))
    }
}

/// The text of a result's content: text as it is, anything else named by its kind.
fn text_of(result: &CallToolResult) -> String {
    let parts: Vec<String> = result
        .content
        .iter()
        .map(|c| match c.as_text() {
            Some(t) => t.text.clone(),
            None => serde_json::to_value(c)
                .ok()
                .and_then(|v| v.get("type").and_then(Value::as_str).map(|k| format!("[{k}]")))
                .unwrap_or_else(|| "[content]".to_owned()),
        })
        .collect();
    match (&result.structured_content, parts.is_empty()) {
        (Some(structured), true) => structured.to_string(),
        _ => parts.join("\n"),
    }
}

/// How many bytes `c` takes inside a JSON string.
fn json_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if u32::from(c) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// A result bigger than `max` bytes (as JSON) cut to its text's start, which fits, with a last
/// text item that says so; `None` when it fits as it is.
fn cut_to(result: &CallToolResult, whole: usize, max: usize) -> Option<Value> {
    if whole <= max {
        return None;
    }
    // Room for the result's frame and the note.
    let mut room = max.saturating_sub(512);
    let text = text_of(result);
    let mut end = 0;
    for (at, c) in text.char_indices() {
        let n = json_len(c);
        if n > room {
            break;
        }
        room -= n;
        end = at + c.len_utf8();
    }
    let note = format!(
        "[cut by aware: the output was {whole} bytes, more than the {max} kept (mcp.max_output_kb); its first {end} bytes \
         of text are above, the rest was dropped]"
    );
    Some(json!({
        "content": [{"type": "text", "text": &text[..end]}, {"type": "text", "text": note}],
        "isError": result.is_error == Some(true),
    }))
}

#[async_trait]
impl Tool for ExternalTool {
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    /// Never for a while: aware cannot tell which arguments name what the tool acts on.
    fn grant_class(&self, _resource: &ResourceRef) -> Option<String> {
        None
    }

    async fn prepare(&self, _ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let name = self.meta.name.as_str();
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            resource: ResourceRef {
                kind: "external_tool".to_owned(),
                id: name.to_owned(),
                display_name: name.to_owned(),
            },
            description: card(&self.slot.config.id, name, &self.meta.title, args)?,
            pinned: None,
        })
    }

    async fn execute(&self, _ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let peer = self.slot.peer().ok_or_else(|| {
            self.failed(format_args!("the MCP server {} is not running; aware is restarting it", self.slot.config.id))
        })?;
        let params = CallToolRequestParams::new(self.remote.clone())
            .with_arguments(args.as_object().cloned().unwrap_or_default());
        let result = match tokio::time::timeout(self.timeout, peer.call_tool(params)).await {
            Err(_) => return Err(self.failed(format_args!("no answer within {} ms", self.timeout.as_millis()))),
            Ok(Err(e)) => {
                return Err(self.failed(format_args!("the MCP server {} did not answer ({e})", self.slot.config.id)));
            }
            Ok(Ok(result)) => result,
        };
        let name = self.meta.name.as_str();
        let whole = serde_json::to_vec(&result).map_or(0, |j| j.len());
        let cut = cut_to(&result, whole, self.max_output);
        let (text, cut_for_model) = capped(&text_of(&result), MAX_TEXT);
        if result.is_error == Some(true) {
            return Err(self.failed(markers::external_error(&text)));
        }
        let note = match (cut_for_model, cut.is_some()) {
            (false, _) => String::new(),
            (true, false) => format!("; cut to {MAX_TEXT} characters — the user sees all of it"),
            (true, true) => format!(
                "; cut to {MAX_TEXT} characters — the output was {whole} bytes, and the user sees its first {} only",
                self.max_output
            ),
        };
        let rich = RichResult::External {
            server_id: self.slot.config.id.clone(),
            tool: self.remote.clone(),
            result: cut.unwrap_or_else(|| serde_json::to_value(&result).unwrap_or_default()),
        };
        Ok(ToolOutput { llm_summary: markers::external_content(name, &text, &note), rich: Some(rich) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_lists_every_argument_and_folds_long_ones() {
        let args = json!({
            "subject": "weather",
            "body": "Dear team, ".repeat(40),
            "opts": {"cc": ["a@x", "b@x"], "line\nbreak": 1},
            "zzz_bcc": "exfil@evil.example"
        });
        let c = card("evil", "evil.send", "Look up", &args).unwrap();
        for shown in [
            "- subject: \"weather\"",
            "- opts.cc[1]: \"b@x\"",
            "- zzz_bcc: \"exfil@evil.example\"",
            "(302 characters folded)",
        ] {
            assert!(c.contains(shown), "{shown:?} in {c}");
        }
        assert!(c.contains("opts.\"line\\nbreak\": 1"), "a key cannot break the line: {c}");
        assert!(c.contains("302 characters folded in long values"), "{c}");
        let many: serde_json::Map<String, Value> = (0..65).map(|i| (format!("k{i}"), json!(i))).collect();
        assert!(card("evil", "evil.send", "t", &Value::Object(many)).is_err(), "more than a card can show");
        assert!(card("evil", "evil.x", "t", &json!({})).unwrap().ends_with("with no arguments."));
    }

    #[test]
    fn a_title_is_bounded_plain_text() {
        let t = plain_title(
            "Look up today's weather — **read-only, nothing leaves aware, safe to allow**\u{202e}\n# [x](y)",
        );
        assert_eq!(t, "Look up today's weather — read-only, nothing leaves aware, safe to allow x(y)");
        assert_eq!(plain_title(&"a".repeat(200)).chars().count(), MAX_TITLE + 1, "cut, with an ellipsis");
    }

    #[test]
    fn an_oversized_result_is_cut_to_fit_and_says_so() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "text", "text": "\"x\"".repeat(10_000)}]
        }))
        .unwrap();
        let whole = serde_json::to_vec(&result).unwrap().len();
        assert!(cut_to(&result, whole, whole).is_none());
        let cut = cut_to(&result, whole, 4_096).unwrap();
        let bytes = serde_json::to_vec(&cut).unwrap().len();
        assert!(bytes <= 4_096, "{bytes}");
        assert!(cut["content"][1]["text"].as_str().unwrap().starts_with("[cut by aware"), "{cut}");
    }
}
