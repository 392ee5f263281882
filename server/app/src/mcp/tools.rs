//! aware's tools as MCP tools: the input schema a model is given, an output schema for the typed
//! rich result (`structuredContent`), and annotations from each tool's risk. Annotations are
//! hints for the client; what runs is still decided by the policy gate and confirmations.

use aware_core::runs::tools::{Tool, ToolName};
use serde_json::{Value, json};

/// The tool that runs a whole agent run.
pub(super) const ASK_AWARE: &str = "ask_aware";

/// The tool that fetches the outcome of a call that answered before a person approved it.
pub(super) const GET_CALL_RESULT: &str = "get_call_result";

/// One of aware's own tools as MCP lists it (`None` for an external server's tool: aware does not
/// re-serve those).
pub(super) fn listed(tool: &dyn Tool) -> Option<Value> {
    let meta = tool.meta();
    // A question back belongs to a conversation: an MCP client asks its own person.
    let name = meta.name.builtin().filter(|n| *n != ToolName::AskUser)?;
    let read_only = meta.risk.read_only;
    let mut listed = json!({
        "name": name.as_str(),
        "title": meta.title,
        "description": meta.description,
        "inputSchema": tool.input_schema(),
        "annotations": {
            "title": meta.title,
            "readOnlyHint": read_only,
            "destructiveHint": meta.risk.destructive,
            // Reads repeat without effect; a delete of the same dataset twice finds nothing the
            // second time; an import imports again.
            "idempotentHint": read_only || name == ToolName::DeleteDataset,
            // Every tool acts on this server's datasets and approved folders only.
            "openWorldHint": false,
        },
    });
    if let Some(schema) = output_schema(name) {
        // A call that waits for a person may answer before the approval (`calls.rs`).
        let may_wait = meta.risk.confirmation.is_some() || name.may_ask_about_cost();
        listed["outputSchema"] = if may_wait { or_pending(schema) } else { schema };
    }
    Some(listed)
}

/// `ask_aware`: a question answered by a full agent run.
pub(super) fn ask_aware() -> Value {
    json!({
        "name": ASK_AWARE,
        "title": "Ask aware",
        "description": "Ask aware a question about your datasets in plain English. aware runs its own agent \
            (the same one as its chat): it picks and runs its tools, asks a person before anything \
            destructive, and returns its answer, the run id and the results it showed.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "question": {"type": "string", "description": "the question, e.g. \"average price by neighbourhood\""},
                "thread_id": {"type": "string", "description": "continue this conversation (optional)"}
            },
            "required": ["question"],
            "additionalProperties": false
        },
        // A run that waits for a person answers "waiting for approval" first (`calls.rs`).
        "outputSchema": or_pending(json!({
            "type": "object",
            "properties": {
                "answer": {"type": "string"},
                "run_id": {"type": "string"},
                "status": {"type": "string"},
                "results": {"type": "array", "items": {"type": "object"}}
            },
            "required": ["answer", "run_id", "status", "results"]
        })),
        "annotations": {
            "title": "Ask aware",
            // It may change things (import, rename, delete), but never without asking: each
            // such step asks a person on its own, so the question itself needs no approval.
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": false,
            "openWorldHint": false,
        },
    })
}

/// What a call waiting for a person answers with (`structuredContent`), in a tool's output
/// schema beside its result.
fn pending_approval() -> Value {
    result_of(
        "pending_approval",
        json!({
            "run_id": {"type": "string"},
            "confirmation_id": {"type": "string"},
            "tool": {"type": "string"},
            "description": {"type": "string"},
            "tier": {"type": "string"},
            "expires_at": {"type": "string"},
            "steps_done": {"type": "array", "items": {"type": "string"}}
        }),
    )
}

/// A result schema, or the pending approval.
fn or_pending(schema: Value) -> Value {
    json!({"type": "object", "anyOf": [schema, pending_approval()]})
}

/// `get_call_result`: the outcome of a call that answered "waiting for approval".
pub(super) fn get_call_result() -> Value {
    json!({
        "name": GET_CALL_RESULT,
        "title": "Get a call's result",
        "description": "The outcome of an earlier aware call that answered before a person approved it (its \
            structuredContent had type \"pending_approval\"): the call's own result once it has run, a \
            \"not approved\" result when it was denied or expired, or the pending approval again while it waits.",
        "inputSchema": {
            "type": "object",
            "properties": {"run_id": {"type": "string", "description": "the run_id the waiting call returned"}},
            "required": ["run_id"],
            "additionalProperties": false
        },
        "annotations": {
            "title": "Get a call's result",
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        },
    })
}

/// A result of `kind` (the rich result's `type`) with these fields.
fn result_of(kind: &str, properties: Value) -> Value {
    let mut required: Vec<String> = vec!["type".to_owned()];
    if let Some(p) = properties.as_object() {
        required.extend(p.keys().cloned());
    }
    let mut all = json!({"type": {"type": "string", "const": kind}});
    if let (Some(all), Some(p)) = (all.as_object_mut(), properties.as_object()) {
        all.extend(p.clone());
    }
    json!({"type": "object", "properties": all, "required": required})
}

/// A typed cell: `{"t": kind, "v": value}` (decimals as exact text, dates as days since 1970,
/// timestamps as microseconds since 1970 UTC).
fn table() -> Value {
    json!({
        "type": "object",
        "properties": {
            "columns": {"type": "array", "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "sql_type": {"type": "string"}, "kind": {"type": "string"}},
                "required": ["name", "sql_type"]
            }},
            "rows": {"type": "array", "items": {"type": "array", "items": {
                "type": "object", "properties": {"t": {"type": "string"}, "v": {}}, "required": ["t"]
            }}},
            "truncated": {"type": "boolean"},
            "exec_time_ms": {"type": "integer"}
        },
        "required": ["columns", "rows", "truncated"]
    })
}

/// The shape of a tool's `structuredContent`: its rich result, as aware's clients get it (none
/// for the memory tools, whose result is their text).
fn output_schema(name: ToolName) -> Option<Value> {
    let object = json!({"type": "object"});
    let objects = json!({"type": "array", "items": {"type": "object"}});
    Some(match name {
        ToolName::ListDatasets => result_of("dataset_list", json!({"datasets": objects})),
        ToolName::GetDatasetDetail => {
            result_of("dataset_detail", json!({"dataset": object, "sample": {"anyOf": [table(), {"type": "null"}]}}))
        }
        ToolName::PreviewRows | ToolName::RunSqlQuery | ToolName::ExecuteQueryPlan => {
            result_of("table", json!({"table": table(), "executed_sql": {"type": "string"}}))
        }
        ToolName::GetDatasetStatistics => result_of("statistics", json!({"statistics": object})),
        ToolName::GetSystemStatus => result_of("system_status", json!({"status": object})),
        ToolName::GetRunStatus => result_of("run", json!({"run": object, "capsule": object})),
        ToolName::SearchDatasets => result_of("search_hits", json!({"results": object})),
        ToolName::SearchKnowledge => result_of("knowledge", json!({"results": object})),
        ToolName::DeleteDataset => result_of("deleted_dataset", json!({"dataset": object})),
        ToolName::ListDirectory => result_of("directory_listing", json!({"listing": object})),
        ToolName::ImportFiles => result_of("import_report", json!({"report": object})),
        ToolName::RenameDataset
        | ToolName::DescribeDataset
        | ToolName::SaveQueryAsDataset
        | ToolName::RefreshDataset => {
            result_of("dataset_changed", json!({"change": {"type": "string"}, "dataset": object}))
        }
        ToolName::SaveQuery | ToolName::DeleteSavedQuery => {
            result_of("saved_query", json!({"change": {"type": "string"}, "query": object}))
        }
        ToolName::CreateUser
        | ToolName::ChangeUserRole
        | ToolName::DeactivateUser
        | ToolName::ReactivateUser
        | ToolName::CreateApiKey
        | ToolName::RevokeApiKey => result_of(
            "account",
            json!({"change": {"type": "string"}, "user": {}, "api_key": {}, "token": {"type": "string"}}),
        ),
        ToolName::Remember | ToolName::ForgetMemory | ToolName::AskUser => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aware_core::runs::tools::ToolRegistry;

    #[test]
    fn every_tool_declares_its_result_type_and_the_truth_about_its_risk() {
        for tool in ToolRegistry::standard().all() {
            let meta = tool.meta();
            let Some(listed) = listed(tool.as_ref()) else {
                assert_eq!(meta.name.builtin(), Some(ToolName::AskUser));
                continue;
            };
            let name = meta.name.builtin();
            let schema = &listed["outputSchema"];
            if matches!(name, Some(ToolName::Remember | ToolName::ForgetMemory)) {
                assert!(listed.get("outputSchema").is_none(), "a result of text only: {listed}");
            } else if meta.risk.confirmation.is_some() || name.is_some_and(ToolName::may_ask_about_cost) {
                // A tool a person approves may answer "waiting for approval" first.
                let kinds: Vec<&Value> =
                    schema["anyOf"].as_array().unwrap().iter().map(|s| &s["properties"]["type"]["const"]).collect();
                assert!(kinds[0].is_string() && kinds[1] == "pending_approval", "{listed}");
            } else {
                assert!(schema["properties"]["type"]["const"].is_string(), "{listed}");
            }
            let hints = &listed["annotations"];
            assert_eq!(hints["readOnlyHint"], json!(meta.risk.read_only), "{listed}");
            assert_eq!(hints["destructiveHint"], json!(meta.risk.destructive), "{listed}");
            // A tool that only reads neither destroys nor needs an approval.
            if meta.risk.read_only {
                assert!(!meta.risk.destructive && meta.risk.confirmation.is_none(), "{listed}");
            }
        }
        let registry = ToolRegistry::standard();
        let delete = registry.all().into_iter().find(|t| t.meta().name.builtin() == Some(ToolName::DeleteDataset));
        assert_eq!(listed(delete.unwrap().as_ref()).unwrap()["annotations"]["destructiveHint"], json!(true));
    }

    #[test]
    fn asking_aware_is_not_destructive_and_fetching_a_result_only_reads() {
        let ask = ask_aware();
        assert_eq!(ask["annotations"]["destructiveHint"], json!(false), "each destructive step asks on its own");
        assert_eq!(ask["annotations"]["readOnlyHint"], json!(false));
        let get = get_call_result();
        assert_eq!(get["annotations"]["readOnlyHint"], json!(true));
    }
}
