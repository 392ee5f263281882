//! `aware-server mcp-probe URL`: aware's MCP client on its own — connect over Streamable HTTP
//! the way a registered server is connected, list the tools, call each with the simplest
//! arguments its schema allows — so the MCP conformance suite's client scenarios can check it.

use crate::registry::Listener;
use aware_core::{Error, ErrorCode, Result};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Map, Value, json};

fn failed(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::ExternalToolFailed, format!("{what}: {e}"))
}

/// The simplest value of a JSON Schema type.
fn simplest(schema: &Value) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some("number" | "integer") => json!(1),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") => json!({}),
        Some("null") => Value::Null,
        _ => json!("aware"),
    }
}

/// Arguments for every required property.
fn arguments(input_schema: &Map<String, Value>) -> Map<String, Value> {
    let properties = input_schema.get("properties").and_then(Value::as_object);
    let required = input_schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    required
        .iter()
        .filter_map(Value::as_str)
        .map(|name| (name.to_owned(), properties.and_then(|p| p.get(name)).map_or(json!("aware"), simplest)))
        .collect()
}

/// Connects to `url`, lists the tools and calls each; returns one line per call.
pub async fn probe(url: &str) -> Result<Vec<String>> {
    let transport = StreamableHttpClientTransport::from_config(StreamableHttpClientTransportConfig::with_uri(url));
    let running = Listener::default().serve(transport).await.map_err(|e| failed("initialize", e))?;
    let tools = running.peer().list_all_tools().await.map_err(|e| failed("tools/list", e))?;
    let mut lines = Vec::new();
    for tool in tools {
        let params = CallToolRequestParams::new(tool.name.clone()).with_arguments(arguments(&tool.input_schema));
        let result =
            running.peer().call_tool(params).await.map_err(|e| failed(&format!("tools/call {}", tool.name), e))?;
        let text: Vec<String> = result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
        lines.push(format!("{}: {}", tool.name, text.join(" ")));
    }
    let _ = running.cancel().await;
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_arguments_get_the_simplest_value_of_their_type() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "note": {"type": "string"}}, "required": ["a", "b"]});
        let args = arguments(schema.as_object().unwrap());
        assert_eq!(Value::Object(args), json!({"a": 1, "b": 1}));
    }
}
