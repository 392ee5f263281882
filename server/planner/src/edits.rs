//! Requests that change things, read into the write tools' calls: rename, describe or refresh a
//! dataset, save the last result as a dataset or as a verified query, delete a verified query, and
//! manage users and API keys. Each ends at a confirmation card (the tools ask); what cannot be read is
//! asked about, never guessed.

use crate::turns::{ask, call, named_dataset, not_understood, refused};
use aware_core::runs::router::{Intent, words};
use aware_core::runs::tools::ToolName;
use aware_domain::dataset::Dataset;
use aware_domain::ports::model::{Message, ModelRequest, ModelTurn};
use serde_json::{Value, json};

/// The call for a change request, or `None` when the request is not one this module reads.
pub(crate) fn plan(request: &ModelRequest<'_>, question: &str, intent: Intent) -> Option<ModelTurn> {
    let allowed = |tool: ToolName| request.tools.iter().any(|t| t.name == tool.as_str());
    let said = words(question);
    let has = |w: &[&str]| said.iter().any(|s| w.contains(&s.as_str()));
    let call_one = |tool: ToolName, args: Value| Some(call(tool, args));
    let datasets = &request.context.datasets;
    match intent {
        Intent::AccountAdmin => account(question, &said, &allowed),
        Intent::DatasetEdit if aware_core::runs::router::asks_refresh(question) => {
            allowed(ToolName::RefreshDataset).then_some(())?;
            let active = datasets.iter().find(|d| d.id.as_str() == request.context.active_dataset_id);
            match named_dataset(question, datasets).or(active) {
                Some(d) => call_one(ToolName::RefreshDataset, json!({"dataset": d.table_name})),
                None => Some(ask(format!(
                    "Which dataset should be read again from its file? You have: {}.",
                    names(datasets)
                ))),
            }
        }
        Intent::DatasetEdit if has(&["rename"]) && allowed(ToolName::RenameDataset) => {
            let (what, to) = split_last(question, " to ")?;
            let to = last_token(to)?;
            match named_dataset(what, datasets) {
                Some(d) => call_one(ToolName::RenameDataset, json!({"dataset": d.table_name, "to": to})),
                None => Some(ask(format!("Which dataset should be renamed to {to}? You have: {}.", names(datasets)))),
            }
        }
        Intent::DatasetEdit if has(&["query", "queries", "sql"]) && has(&["delete", "remove", "drop", "forget"]) => {
            allowed(ToolName::DeleteSavedQuery).then_some(())?;
            let name = quoted(question).or_else(|| split_last(question, "query").map(|(_, n)| clean(n)))?;
            call_one(ToolName::DeleteSavedQuery, json!({"query": name}))
        }
        Intent::DatasetEdit if has(&["query", "queries", "sql"]) && allowed(ToolName::SaveQuery) => {
            let name = quoted(question).or_else(|| split_last(question, " as ").map(|(_, n)| clean(n)))?;
            match last_query(request.messages) {
                Some((asked, mut args)) => {
                    args["name"] = json!(name);
                    args["question"] = json!(asked);
                    call_one(ToolName::SaveQuery, args)
                }
                None => Some(ask("Which query? Ask the question first, then say “remember this query as …”.".into())),
            }
        }
        Intent::DatasetEdit if has(&["dataset", "table"]) && allowed(ToolName::SaveQueryAsDataset) => {
            let name = ["called ", "named ", " as "]
                .iter()
                .find_map(|k| split_last(&question.to_lowercase(), k).map(|(_, n)| n.to_owned()))
                .and_then(|n| last_token(&n))?;
            match last_query(request.messages) {
                Some((_, mut args)) => {
                    args["table_name"] = json!(name);
                    call_one(ToolName::SaveQueryAsDataset, args)
                }
                None => Some(ask(
                    "Which result? Ask the question first, then say “save that as a dataset called …”.".into()
                )),
            }
        }
        Intent::DatasetEdit if allowed(ToolName::DescribeDataset) => {
            let (subject, meaning) = split_last(question, " as ")?;
            let subject = last_token(subject)?;
            let meaning = clean(meaning);
            let active = datasets.iter().find(|d| d.id.as_str() == request.context.active_dataset_id);
            let owner = active
                .into_iter()
                .chain(datasets.iter())
                .find(|d| d.columns.iter().any(|c| c.name.eq_ignore_ascii_case(&subject)));
            if let Some(d) = owner {
                let column = d.columns.iter().find(|c| c.name.eq_ignore_ascii_case(&subject)).map(|c| c.name.clone());
                let note = json!({"column": column, "description": meaning, "unit": unit_in(&meaning)});
                return call_one(ToolName::DescribeDataset, json!({"dataset": d.table_name, "columns": [note]}));
            }
            match named_dataset(&subject.replace('_', " "), datasets) {
                Some(d) => {
                    call_one(ToolName::DescribeDataset, json!({"dataset": d.table_name, "description": meaning}))
                }
                None => Some(not_understood(format!("No dataset of yours has a column or a name like {subject}."))),
            }
        }
        Intent::ChatOnly
        | Intent::DatasetLookup
        | Intent::Preview
        | Intent::Query
        | Intent::Statistics
        | Intent::Search
        | Intent::DatasetAdmin
        | Intent::FileBrowse
        | Intent::FileImport
        | Intent::SystemStatus
        | Intent::RunLookup
        | Intent::ExternalTool
        | Intent::Memory
        | Intent::DatasetEdit
        | Intent::Knowledge => None,
    }
}

fn names(datasets: &[Dataset]) -> String {
    datasets.iter().map(|d| d.table_name.as_str()).collect::<Vec<_>>().join(", ")
}

/// The text before and after the last `sep` (case-insensitive).
fn split_last<'a>(text: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    let at = text.to_lowercase().rfind(&sep.to_lowercase())?;
    // Lower-casing can change byte lengths outside ASCII: only split where the original agrees.
    text.is_char_boundary(at).then(|| (&text[..at], &text[at + sep.len()..]))
}

/// The last word-like token of a text (letters, digits, `_`, `.`, `@`, `-`).
fn last_token(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '@' | '-' | '…')))
        .rfind(|t| !t.trim_matches('.').is_empty())
        .map(|t| t.trim_end_matches('.').to_owned())
}

/// A name in quotes ('…', "…", “…”).
fn quoted(text: &str) -> Option<String> {
    for (open, close) in [('\'', '\''), ('"', '"'), ('“', '”'), ('‘', '’')] {
        if let Some(start) = text.find(open) {
            let rest = &text[start + open.len_utf8()..];
            if let Some(end) = rest.find(close) {
                let inner = rest[..end].trim();
                if !inner.is_empty() {
                    return Some(inner.to_owned());
                }
            }
        }
    }
    None
}

fn clean(text: &str) -> String {
    text.trim().trim_end_matches(['.', '!', '?']).trim_matches(['\'', '"', '“', '”']).trim().to_owned()
}

/// The unit a description names ("the asking price in euros" → EUR).
fn unit_in(description: &str) -> &'static str {
    let said = words(description);
    let has = |w: &str| said.iter().any(|s| s == w);
    match () {
        () if has("euros") || has("euro") || has("eur") => "EUR",
        () if has("dollars") || has("usd") => "USD",
        () if has("pounds") || has("gbp") => "GBP",
        () if has("percent") || has("percentage") => "%",
        () if has("days") => "days",
        () if has("months") => "months",
        () if has("metres") || has("meters") => "m",
        _ => "",
    }
}

/// The thread's last query that ran without error: the question asked before it, and its
/// arguments as `save_query`/`save_query_as_dataset` take them (`plan`, `sql` or
/// `verified_query`).
fn last_query(messages: &[Message]) -> Option<(String, Value)> {
    let failed: Vec<&aware_domain::ids::ToolCallId> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { tool_call_id, is_error: true, .. } => Some(tool_call_id),
            Message::User { .. } | Message::Assistant { .. } | Message::Tool { .. } => None,
        })
        .collect();
    let mut asked = String::new();
    let mut found = None;
    for m in messages {
        match m {
            Message::User { text } => asked.clone_from(text),
            Message::Assistant { tool_calls, .. } => {
                for c in tool_calls.iter().filter(|c| !failed.contains(&&c.id)) {
                    let args = match ToolName::parse(&c.name) {
                        Some(ToolName::ExecuteQueryPlan) => json!({"plan": c.arguments}),
                        Some(ToolName::RunSqlQuery) if c.arguments.get("sql").is_some() => {
                            json!({"sql": c.arguments["sql"]})
                        }
                        Some(ToolName::RunSqlQuery) if c.arguments.get("verified_query").is_some() => {
                            json!({"verified_query": c.arguments["verified_query"]})
                        }
                        _ => continue,
                    };
                    found = Some((asked.clone(), args));
                }
            }
            Message::Tool { .. } => {}
        }
    }
    found
}

/// Users, roles and keys.
fn account(question: &str, said: &[String], allowed: &dyn Fn(ToolName) -> bool) -> Option<ModelTurn> {
    let has = |w: &[&str]| said.iter().any(|s| w.contains(&s.as_str()));
    let offer = |tool: ToolName, args: Value| allowed(tool).then(|| call(tool, args));
    let role = ["viewer", "analyst", "admin"].into_iter().find(|r| said.iter().any(|s| s == r));
    let tokens: Vec<&str> =
        question.split_whitespace().map(|t| t.trim_matches(|c: char| ",.?!'\"“”’".contains(c))).collect();
    let key = tokens.iter().find(|t| t.starts_with("aw_") || t.starts_with("key_") || t.starts_with("ak_"));
    let email = tokens.iter().find(|t| t.contains('@') && t.len() > 3).map(|t| (*t).to_owned());
    // The person a request names: an email address, else the word after "for", "user" or the verb.
    let person = email.or_else(|| {
        ["for ", "user ", "deactivate ", "reactivate ", "promote ", "demote ", "make "]
            .iter()
            .find_map(|k| split_last(question, k).and_then(|(_, rest)| rest.split_whitespace().next().map(clean)))
            .filter(|p| !p.is_empty())
    });
    let refused = |what: &str| {
        if allowed(ToolName::CreateUser) {
            ask(format!("Who should I {what}? Name the user (their name or id)."))
        } else {
            refused("Managing users and keys is for admins: your role cannot do that.".into())
        }
    };
    if has(&["revoke"]) {
        return match key {
            Some(k) => offer(ToolName::RevokeApiKey, json!({"key": k})).or_else(|| Some(refused("revoke"))),
            None => Some(ask("Which key? Give its id (key_…) or the prefix it starts with (aw_…).".into())),
        };
    }
    let Some(person) = person else { return Some(refused("act on")) };
    let turn = if has(&["deactivate", "suspend", "disable"]) {
        offer(ToolName::DeactivateUser, json!({"user": person}))
    } else if has(&["reactivate", "enable"]) {
        offer(ToolName::ReactivateUser, json!({"user": person}))
    } else if has(&["key", "keys", "apikey"]) {
        offer(ToolName::CreateApiKey, json!({"user": person}))
    } else if has(&["create", "add", "invite", "new", "open"]) && has(&["account", "user", "accounts"]) {
        match role {
            Some(role) => offer(ToolName::CreateUser, json!({"name": person, "role": role})),
            None => return Some(ask(format!("Which role should {person} have: viewer, analyst or admin?"))),
        }
    } else if let Some(role) = role.or(has(&["promote"]).then_some("admin")) {
        offer(ToolName::ChangeUserRole, json!({"user": person, "role": role}))
    } else {
        return Some(ask("I can create users, change roles, deactivate or reactivate users, and create or revoke API keys: say which.".into()));
    };
    turn.or_else(|| Some(refused("change")))
}
