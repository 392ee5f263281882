//! Requests about the tools themselves: "what tools do you have?" is answered from the tools
//! this run is offered (the live list, with where each comes from), and "use everything.echo with
//! hello" calls an external server's tool by name — its arguments read from the rest of the
//! message only when that is unambiguous (a JSON object, or the text for the tool's one string
//! field); otherwise it says what the tool needs instead of guessing.

use crate::turns::{ask, not_understood, text};
use aware_core::runs::router::external_tool_in;
use aware_domain::events::ToolSource;
use aware_domain::ports::model::{ModelRequest, ModelToolCall, ModelTurn, ToolSpec};
use serde_json::{Map, Value, json};

/// Whether a message asks what the assistant can do.
pub(crate) fn asks_for_tools(said: &[String]) -> bool {
    let has = |w: &[&str]| said.iter().any(|s| w.contains(&s.as_str()));
    has(&["tool", "tools"]) && has(&["what", "which", "list", "show", "have", "available"])
}

/// The tools offered, grouped by where they come from.
pub(crate) fn list(request: &ModelRequest<'_>) -> ModelTurn {
    let own: Vec<&str> =
        request.tools.iter().filter(|t| t.provenance.source == ToolSource::Builtin).map(|t| t.name.as_str()).collect();
    let mut lines = vec![format!("I can use {} of aware's own tools: {}.", own.len(), own.join(", "))];
    let mut servers: Vec<&str> = request
        .tools
        .iter()
        .filter(|t| t.provenance.source == ToolSource::External)
        .map(|t| t.provenance.server_id.as_str())
        .collect();
    servers.dedup();
    for server in servers {
        let tools: Vec<String> = request
            .tools
            .iter()
            .filter(|t| t.provenance.source == ToolSource::External && t.provenance.server_id == server)
            .map(|t| format!("{} (scope {})", t.name, t.provenance.scope))
            .collect();
        lines.push(format!("From the external MCP server {server}: {}.", tools.join(", ")));
    }
    if !request.tools.iter().any(|t| t.provenance.source == ToolSource::External) {
        lines.push("No external MCP server's tools are available to you here.".to_owned());
    }
    text(lines.join("\n"))
}

/// The arguments the rest of the message gives `tool`, when that is unambiguous.
fn arguments(tool: &ToolSpec, rest: &str) -> Result<Value, String> {
    let rest = rest.trim();
    if let Ok(Value::Object(args)) = serde_json::from_str::<Value>(rest) {
        return Ok(Value::Object(args));
    }
    let properties = tool.input_schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let strings: Vec<&String> =
        properties.iter().filter(|(_, p)| p.get("type") == Some(&json!("string"))).map(|(k, _)| k).collect();
    let names: Vec<&String> = properties.keys().collect();
    match (names.as_slice(), strings.as_slice()) {
        ([], _) if rest.is_empty() => Ok(Value::Object(Map::new())),
        ([only], [string]) if only == string && !rest.is_empty() => Ok(json!({ (*only).clone(): rest })),
        _ => Err(format!(
            "{} takes {}{}; give them as JSON, e.g. use {} with {{\"{}\": …}}.",
            tool.name,
            if names.is_empty() {
                "no arguments".to_owned()
            } else {
                names.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", ")
            },
            if required.is_empty() { String::new() } else { format!(" (required: {})", required.join(", ")) },
            tool.name,
            names.first().map_or("…", |n| n.as_str()),
        )),
    }
}

/// "use server.tool with …": the call, or why it cannot be made.
pub(crate) fn call_named(request: &ModelRequest<'_>, question: &str) -> Option<ModelTurn> {
    let name = external_tool_in(question)?;
    let Some(tool) = request.tools.iter().find(|t| t.name == name) else {
        return Some(not_understood(format!(
            "I have no tool named {name} here: an external server's tools are used only when they are \
             configured and permitted for you (ask “what tools do you have?”)."
        )));
    };
    let after = question.split_once(name).map_or("", |(_, rest)| rest).trim();
    let rest = after.strip_prefix("with").or_else(|| after.strip_prefix(':')).unwrap_or(after);
    Some(match arguments(tool, rest) {
        Ok(args) => ModelTurn { tool_calls: vec![ModelToolCall::new(&tool.name, args)], ..ModelTurn::default() },
        Err(why) => ask(why),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aware_domain::events::Provenance;

    fn echo() -> ToolSpec {
        ToolSpec {
            name: "everything.echo".into(),
            description: String::new(),
            input_schema: json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}),
            provenance: Provenance {
                source: ToolSource::External,
                server_id: "everything".into(),
                scope: "demo".into(),
            },
        }
    }

    #[test]
    fn arguments_are_read_only_when_unambiguous() {
        assert_eq!(arguments(&echo(), "hello there"), Ok(json!({"message": "hello there"})));
        assert_eq!(arguments(&echo(), r#"{"message": "hi"}"#), Ok(json!({"message": "hi"})));
        assert!(arguments(&echo(), "").is_err(), "an empty message is not guessed");
        let sum = ToolSpec {
            name: "everything.get-sum".into(),
            input_schema: json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
            ..echo()
        };
        let why = arguments(&sum, "2 and 3").unwrap_err();
        assert!(why.contains("a, b") && why.contains("JSON"), "{why}");
        assert_eq!(arguments(&sum, r#"{"a": 2, "b": 3}"#), Ok(json!({"a": 2, "b": 3})));
    }
}
