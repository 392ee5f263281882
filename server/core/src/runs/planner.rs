//! Two deterministic `LanguageModel`s that need no network: the offline planner (the default
//! when no provider is configured) and the scripted model (tests and demos, from a JSON file).

use super::model::{LanguageModel, Message, ModelRequest, ModelTurn, estimate_tokens, word_deltas};
use crate::dataset::Dataset;
use crate::run::Usage;
use crate::{Error, Result};
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

const HELP: &str = "I can list your datasets (try “what are my files?”) and delete one after you approve it \
                    (try “delete the customer churn dataset”).";

/// The offline planner: routes common requests to tool calls with keyword rules, and writes the
/// answer from the tools' summaries.
pub struct OfflinePlanner;

fn words(s: &str) -> Vec<String> {
    s.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// The dataset the text names best: every word of its table name (or file stem) appears in the
/// text; the longest such name wins.
fn named_dataset<'a>(text: &str, datasets: &'a [Dataset]) -> Option<&'a Dataset> {
    let said = words(text);
    datasets
        .iter()
        .filter_map(|d| {
            let stem = d.name.rsplit_once('.').map_or(d.name.as_str(), |(s, _)| s);
            [d.table_name.as_str(), stem]
                .into_iter()
                .map(words)
                .filter(|w| !w.is_empty() && w.iter().all(|w| said.contains(w)))
                .map(|w| w.len())
                .max()
                .map(|score| (score, d))
        })
        .max_by_key(|(score, _)| *score)
        .map(|(_, d)| d)
}

impl OfflinePlanner {
    fn plan(request: &ModelRequest<'_>) -> ModelTurn {
        let allowed = |name: &str| request.tools.iter().any(|t| t.name == name);
        // After tools ran: answer from their summaries.
        let run_tail: Vec<&Message> =
            request.messages.iter().rev().take_while(|m| !matches!(m, Message::User { .. })).collect();
        if let Some(Message::Tool { .. }) = run_tail.first() {
            let mut parts = Vec::new();
            for m in run_tail.iter().rev() {
                if let Message::Tool { name, content, is_error, .. } = m {
                    parts.push(match (name.as_str(), is_error) {
                        ("list_datasets", false) => content.replacen("The user has", "You have", 1),
                        (_, false) => content.clone(),
                        (_, true) if content.starts_with("Action denied") => "Understood — I did not do it.".to_owned(),
                        (_, true) => format!("That did not work: {content}"),
                    });
                }
            }
            return ModelTurn { text: parts.join("\n\n"), ..ModelTurn::default() };
        }
        let text = match request.messages.last() {
            Some(Message::User { text }) => text.as_str(),
            _ => "",
        };
        let said = words(text);
        let has = |w: &[&str]| said.iter().any(|s| w.contains(&s.as_str()));
        if has(&["delete", "remove", "drop", "erase"]) && allowed("delete_dataset") {
            return match named_dataset(text, &request.context.datasets) {
                Some(d) => ModelTurn {
                    text: format!("I will delete {} once you approve.", d.name),
                    tool_calls: vec![("delete_dataset".to_owned(), json!({"dataset": d.table_name}))],
                    ..ModelTurn::default()
                },
                None => {
                    let names: Vec<&str> = request.context.datasets.iter().map(|d| d.table_name.as_str()).collect();
                    ModelTurn {
                        text: format!("Which dataset should I delete? You have: {}.", names.join(", ")),
                        ..ModelTurn::default()
                    }
                }
            };
        }
        if has(&["files", "file", "datasets", "dataset", "data", "tables", "uploads", "have"])
            && allowed("list_datasets")
        {
            return ModelTurn { tool_calls: vec![("list_datasets".to_owned(), json!({}))], ..ModelTurn::default() };
        }
        ModelTurn { text: HELP.to_owned(), ..ModelTurn::default() }
    }
}

#[async_trait]
impl LanguageModel for OfflinePlanner {
    fn name(&self) -> &str {
        "offline-planner"
    }

    async fn complete(&self, request: ModelRequest<'_>, deltas: UnboundedSender<String>) -> Result<ModelTurn> {
        let input: usize = request.messages.iter().map(|m| format!("{m:?}").len()).sum();
        let mut turn = Self::plan(&request);
        for d in word_deltas(&turn.text) {
            let _ = deltas.send(d);
        }
        turn.usage = Usage {
            input_tokens: (input as u64).div_ceil(4),
            output_tokens: estimate_tokens(&turn.text),
            model_calls: 1,
            ..Usage::default()
        };
        Ok(turn)
    }
}

/// A scripted model, for tests and demos: replies chosen by a substring of the run's user text,
/// one turn per model call of the run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    replies: Vec<ScriptReply>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptReply {
    when: String,
    turns: Vec<ScriptTurn>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptTurn {
    #[serde(default)]
    chunks: Vec<String>,
    #[serde(default)]
    delay_ms: u64,
    #[serde(default)]
    tool_calls: Vec<ScriptToolCall>,
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptToolCall {
    name: String,
    #[serde(default)]
    arguments: serde_json::Value,
}

impl Script {
    pub fn parse(json: &str) -> Result<Self> {
        serde_json::from_str(json).map_err(|e| Error::validation("agent.script", format!("bad model script: {e}")))
    }
}

#[async_trait]
impl LanguageModel for Script {
    fn name(&self) -> &str {
        "script"
    }

    async fn complete(&self, request: ModelRequest<'_>, deltas: UnboundedSender<String>) -> Result<ModelTurn> {
        let user_text = request
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::User { text } => Some(text.to_lowercase()),
                _ => None,
            })
            .unwrap_or_default();
        let Some(reply) = self.replies.iter().find(|r| user_text.contains(&r.when.to_lowercase())) else {
            let text = format!("No scripted reply for “{user_text}”.");
            let _ = deltas.send(text.clone());
            return Ok(ModelTurn { text, ..ModelTurn::default() });
        };
        let Some(turn) = reply.turns.get(request.turn as usize) else {
            return Ok(ModelTurn { text: String::new(), ..ModelTurn::default() });
        };
        let mut text = String::new();
        for chunk in &turn.chunks {
            if turn.delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(turn.delay_ms)).await;
            }
            text.push_str(chunk);
            let _ = deltas.send(chunk.clone());
        }
        Ok(ModelTurn {
            text,
            tool_calls: turn.tool_calls.iter().map(|c| (c.name.clone(), c.arguments.clone())).collect(),
            usage: Usage {
                input_tokens: turn.input_tokens,
                output_tokens: turn.output_tokens,
                model_calls: 1,
                ..Usage::default()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{DatasetFormat, DatasetStatus};
    use crate::ids::{DatasetId, UserId};

    fn dataset(name: &str, table: &str) -> Dataset {
        Dataset {
            id: DatasetId::generate(),
            owner: UserId::local(),
            name: name.to_owned(),
            table_name: table.to_owned(),
            format: DatasetFormat::Csv,
            status: DatasetStatus::Ready,
            row_count: 1,
            columns: vec![],
            size_bytes: 1,
            version_hash: String::new(),
            error: None,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn the_longest_fully_named_dataset_wins() {
        let ds = [dataset("churn.csv", "churn"), dataset("customer_churn.csv", "customer_churn")];
        assert_eq!(named_dataset("delete the customer churn dataset", &ds).unwrap().table_name, "customer_churn");
        assert_eq!(named_dataset("please remove churn", &ds).unwrap().table_name, "churn");
        assert!(named_dataset("delete the apartments", &ds).is_none());
    }
}
