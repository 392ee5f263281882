//! The form the engine's snapshot tests write a run in: one line per event — seq, model turn,
//! payload — without what differs between runs (ids, times, durations), with rich results
//! reduced to their kind. Shared by `aware-core`'s engine tests (over the in-memory adapters) and
//! the app's (over SQLite and DuckDB), so both snapshot the same way.

use crate::events::{EventPayload, RunEvent};
use serde_json::{Value, json};
use std::sync::Arc;

/// How a snapshot shows the tools a run starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tools {
    /// Each tool, as `RunStarted` lists it.
    Listed,
    /// How many there are (when the list is the policy's, not what a test is about).
    Counted,
}

/// The events, one line each. Checks that seq counts from 1 with no gap and no repeat.
pub fn sequence(events: &[Arc<RunEvent>], tools: Tools) -> String {
    /// A generated id (`ds_` and 32 hex digits) anywhere in a value becomes `…`.
    fn redact_ids(v: &mut Value) {
        match v {
            Value::String(s)
                if s.split_once('_')
                    .is_some_and(|(_, hex)| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit())) =>
            {
                *v = json!("…");
            }
            Value::Array(items) => items.iter_mut().for_each(redact_ids),
            Value::Object(m) => m.values_mut().for_each(redact_ids),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    fn redact(v: &mut Value) {
        if let Value::Object(m) = v {
            for (k, v) in m.iter_mut() {
                let set = v.as_str().is_some_and(|s| !s.is_empty());
                if ((k.ends_with("_id") || k == "id") && set) || k == "expires_at" || k == "duration_ms" {
                    *v = json!("…");
                } else if let Some(mut inner) =
                    v.as_str().filter(|_| k.ends_with("_json")).and_then(|s| serde_json::from_str::<Value>(s).ok())
                {
                    // Arguments as JSON text: the ids they name are generated too.
                    redact_ids(&mut inner);
                    *v = json!(inner.to_string());
                } else if k == "rich" && !v.is_null() {
                    *v = json!(v.get("kind").or_else(|| v.get("type")).cloned().unwrap_or(json!("…")));
                } else {
                    redact(v);
                }
            }
        }
    }
    let mut lines = Vec::new();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1, "seq counts from 1 without a gap or a repeat");
        let mut payload = serde_json::to_value(&e.payload).expect("an event serialises");
        if let (EventPayload::RunStarted { tools: listed, .. }, Tools::Counted) = (&e.payload, tools) {
            payload["tools"] = json!(format!("{} tools", listed.len()));
        }
        redact(&mut payload);
        lines.push(format!("{:>2} it{} {payload}", e.seq, e.iteration));
    }
    lines.join("\n")
}
