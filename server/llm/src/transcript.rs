//! The provider-neutral shape of a transcript, with the invariant every provider enforces: each
//! tool call is followed, before anything else, by exactly one result. Calls without a recorded
//! result get a synthetic error result; results without their call are dropped; provider ids are
//! kept where they are unique (so a follow-up references exactly what the provider issued).

use aware_domain::ports::model::Message;
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The id sent to the provider: its own id for the call, or aware's when it gave none.
    pub wire_id: String,
    pub name: String,
    pub arguments: serde_json::Value,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CallResult {
    pub wire_id: String,
    pub content: String,
    pub is_error: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Turn {
    User(String),
    Assistant {
        text: String,
        calls: Vec<Call>,
    },
    /// The results of the assistant turn just before, in its call order.
    Results(Vec<CallResult>),
}

pub const NO_RESULT: &str = "No result was recorded for this call: the run ended before it ran.";

pub fn turns(messages: &[Message]) -> Vec<Turn> {
    let mut out = Vec::new();
    let mut used: HashSet<String> = HashSet::new();
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::User { text } => {
                let text = if text.trim().is_empty() { "(empty message)".to_owned() } else { text.clone() };
                out.push(Turn::User(text));
                i += 1;
            }
            Message::Tool { .. } => i += 1, // a result without its call
            Message::Assistant { text, tool_calls } => {
                i += 1;
                let mut results: HashMap<&str, (&str, bool)> = HashMap::new();
                while let Some(Message::Tool { tool_call_id, content, is_error, .. }) = messages.get(i) {
                    results.entry(tool_call_id.as_str()).or_insert((content.as_str(), *is_error));
                    i += 1;
                }
                if text.trim().is_empty() && tool_calls.is_empty() {
                    continue;
                }
                let mut calls = Vec::new();
                let mut call_results = Vec::new();
                for c in tool_calls {
                    let wire_id = match &c.provider_id {
                        Some(p) if !p.is_empty() && !used.contains(p) => p.clone(),
                        _ => c.id.to_string(),
                    };
                    used.insert(wire_id.clone());
                    let (content, is_error) = results.get(c.id.as_str()).copied().unwrap_or((NO_RESULT, true));
                    let content = if content.trim().is_empty() { "(no output)" } else { content };
                    call_results.push(CallResult { wire_id: wire_id.clone(), content: content.to_owned(), is_error });
                    calls.push(Call { wire_id, name: c.name.clone(), arguments: c.arguments.clone() });
                }
                out.push(Turn::Assistant { text: text.clone(), calls });
                if !call_results.is_empty() {
                    out.push(Turn::Results(call_results));
                }
            }
        }
    }
    if !matches!(out.first(), Some(Turn::User(_))) {
        out.insert(0, Turn::User("(continuing an earlier conversation)".to_owned()));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use aware_domain::ids::ToolCallId;
    use aware_domain::ports::model::ToolCallRequest;
    use serde_json::json;

    fn call(provider: Option<&str>, name: &str) -> ToolCallRequest {
        ToolCallRequest {
            id: ToolCallId::generate(),
            provider_id: provider.map(str::to_owned),
            name: name.into(),
            arguments: json!({}),
        }
    }

    #[test]
    fn every_call_gets_exactly_one_result_in_call_order() {
        let a = call(Some("toolu_1"), "list_datasets");
        let b = call(None, "preview_rows");
        let dup = call(Some("toolu_1"), "get_system_status");
        let messages = vec![
            Message::Tool {
                tool_call_id: ToolCallId::generate(),
                name: "x".into(),
                content: "orphan".into(),
                is_error: false,
            },
            Message::User { text: "hi".into() },
            Message::Assistant { text: String::new(), tool_calls: vec![a.clone(), b.clone(), dup.clone()] },
            Message::Tool { tool_call_id: b.id.clone(), name: b.name.clone(), content: "B".into(), is_error: false },
            Message::Tool {
                tool_call_id: b.id.clone(),
                name: b.name.clone(),
                content: "again".into(),
                is_error: false,
            },
            Message::Assistant { text: String::new(), tool_calls: vec![] },
            Message::User { text: "next".into() },
        ];
        let t = turns(&messages);
        assert_eq!(t.len(), 4, "{t:?}");
        assert_eq!(t[0], Turn::User("hi".into()));
        let Turn::Assistant { calls, .. } = &t[1] else { panic!() };
        let ids: Vec<&str> = calls.iter().map(|c| c.wire_id.as_str()).collect();
        assert_eq!(ids, ["toolu_1", b.id.as_str(), dup.id.as_str()], "a repeated provider id falls back to aware's");
        let Turn::Results(r) = &t[2] else { panic!() };
        assert_eq!(r.iter().map(|r| r.wire_id.as_str()).collect::<Vec<_>>(), ids);
        assert_eq!((r[0].content.as_str(), r[0].is_error), (NO_RESULT, true));
        assert_eq!((r[1].content.as_str(), r[1].is_error), ("B", false));
        assert_eq!(t[3], Turn::User("next".into()));
    }
}
