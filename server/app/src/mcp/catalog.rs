//! Datasets as MCP resources (`aware://datasets/{id}`: schema and statistics as JSON) and the
//! seed questions as MCP prompts.

use aware_core::runs::Services;
use aware_core::{Error, ErrorCode};
use aware_domain::auth::Caller;
use aware_domain::dataset::{Dataset, DatasetStatus};
use aware_domain::ids::DatasetId;
use rmcp::ErrorData as McpError;
use serde_json::{Map, Value, json};

const SCHEME: &str = "aware://datasets/";

/// The resource template every dataset matches.
pub(super) fn template() -> Value {
    json!({
        "uriTemplate": format!("{SCHEME}{{id}}"),
        "name": "dataset",
        "title": "A dataset",
        "description": "One of your datasets: its schema, row count and (when ready) column statistics, as JSON.",
        "mimeType": "application/json",
    })
}

/// A dataset as a listed resource.
pub(super) fn listed(d: &Dataset) -> Value {
    json!({
        "uri": format!("{SCHEME}{}", d.id),
        "name": d.table_name,
        "title": d.name,
        "description": format!("{} ({}, {}): {} rows, {} columns", d.name, d.format.as_str(), d.status.as_str(), d.row_count, d.columns.len()),
        "mimeType": "application/json",
        "size": d.size_bytes,
    })
}

/// An error reading `uri`: not found (with the uri, as SEP-2164 asks) or a bad request.
fn error(e: &Error, uri: &str) -> McpError {
    if e.code == ErrorCode::NotFound {
        McpError::resource_not_found(e.message.clone(), Some(json!({"uri": uri})))
    } else {
        McpError::invalid_params(e.message.clone(), None)
    }
}

/// A dataset resource's contents: the dataset (schema included) and its statistics once ready.
pub(super) async fn read(services: &Services, caller: &Caller, uri: &str) -> Result<Value, McpError> {
    let id = uri.strip_prefix(SCHEME).and_then(DatasetId::parse).ok_or_else(|| {
        McpError::resource_not_found(
            format!("no resource {uri}: aware's are {SCHEME}<dataset id>"),
            Some(json!({"uri": uri})),
        )
    })?;
    let dataset = services.datasets.get(caller, &id).await.map_err(|e| error(&e, uri))?;
    let statistics = if dataset.status == DatasetStatus::Ready {
        Some(services.datasets.statistics(caller, &id).await.map_err(|e| error(&e, uri))?)
    } else {
        None
    };
    let body = json!({"dataset": dataset, "statistics": statistics});
    Ok(json!({"contents": [{"uri": uri, "mimeType": "application/json", "text": body.to_string()}]}))
}

/// A seed question as a prompt: its name, what it asks, its arguments.
struct Seed {
    name: &'static str,
    title: &'static str,
    arguments: &'static [(&'static str, &'static str)],
    text: fn(&Map<String, Value>) -> String,
}

fn arg<'a>(args: &'a Map<String, Value>, name: &str) -> &'a str {
    args.get(name).and_then(Value::as_str).unwrap_or_default()
}

const SEEDS: [Seed; 3] = [
    Seed {
        name: "what_are_my_files",
        title: "What are my files?",
        arguments: &[],
        text: |_| "What are my files?".to_owned(),
    },
    Seed {
        name: "summarize_dataset",
        title: "Summarize a dataset",
        arguments: &[("name", "the dataset's name or table name")],
        text: |a| format!("Summarize the dataset {}.", arg(a, "name")),
    },
    Seed {
        name: "average_by_group",
        title: "Average of a column by group",
        arguments: &[
            ("column", "the numeric column to average"),
            ("group", "the column to group by"),
            ("dataset", "the dataset's name or table name"),
        ],
        text: |a| format!("Average {} by {} in {}", arg(a, "column"), arg(a, "group"), arg(a, "dataset")),
    },
];

pub(super) fn prompts() -> Value {
    let prompts: Vec<Value> = SEEDS
        .iter()
        .map(|s| {
            let arguments: Vec<Value> =
                s.arguments.iter().map(|(n, d)| json!({"name": n, "description": d, "required": true})).collect();
            json!({"name": s.name, "title": s.title, "description": s.title, "arguments": arguments})
        })
        .collect();
    json!({"prompts": prompts})
}

/// A prompt's messages, every argument given.
pub(super) fn prompt(name: &str, args: Option<&Map<String, Value>>) -> Result<Value, McpError> {
    let seed = SEEDS
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| McpError::invalid_params(format!("no prompt {name:?}"), None))?;
    let empty = Map::new();
    let args = args.unwrap_or(&empty);
    for (n, _) in seed.arguments {
        if arg(args, n).trim().is_empty() {
            return Err(McpError::invalid_params(format!("the prompt {name} needs the argument {n:?}"), None));
        }
    }
    Ok(json!({
        "description": seed.title,
        "messages": [{"role": "user", "content": {"type": "text", "text": (seed.text)(args)}}],
    }))
}
