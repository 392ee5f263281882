//! The model turns the offline planner writes, each saying what it comes to (its stance): an
//! answer, a question back, not understood, failed, refused, or one tool call; and which dataset
//! a text names. Shared by the planner's readers (`offline.rs`, `edits.rs`, `tools_talk.rs`).

use aware_core::runs::router::words;
use aware_core::runs::tools::ToolName;
use aware_domain::dataset::Dataset;
use aware_domain::ports::model::{ModelToolCall, ModelTurn};
use aware_domain::run::RunOutcome;
use serde_json::Value;

/// A turn that calls one tool.
pub(crate) fn call(tool: ToolName, args: Value) -> ModelTurn {
    ModelTurn { tool_calls: vec![ModelToolCall::new(tool.as_str(), args)], ..ModelTurn::default() }
}

/// An answer (the planner says so: a run that answers is never taken for a question back).
pub(crate) fn text(text: String) -> ModelTurn {
    ModelTurn { text, stance: Some(RunOutcome::Answered), ..ModelTurn::default() }
}

/// A question back to the person: which dataset, which key, which role …
pub(crate) fn ask(text: String) -> ModelTurn {
    ModelTurn { stance: Some(RunOutcome::AskedBack), ..self::text(text) }
}

/// What the planner could not understand, or cannot answer, in its words.
pub(crate) fn not_understood(text: String) -> ModelTurn {
    ModelTurn { stance: Some(RunOutcome::NotUnderstood), ..self::text(text) }
}

/// What went wrong, when the calls that would have answered failed.
pub(crate) fn failed(text: String) -> ModelTurn {
    ModelTurn { stance: Some(RunOutcome::Failed), ..self::text(text) }
}

/// A request the person's role does not allow.
pub(crate) fn refused(text: String) -> ModelTurn {
    ModelTurn { stance: Some(RunOutcome::Denied), ..self::text(text) }
}

/// The dataset the text names best: the most words of its table name (or file stem) appear in
/// the text ("the apartments" → `barcelona_apartments`); a full name beats a partial one. Short
/// words count only when they carry a digit ("sales q1" → `sales_q1`, not `sales_q2`).
pub(crate) fn named_dataset<'a>(text: &str, datasets: &'a [Dataset]) -> Option<&'a Dataset> {
    let said: Vec<String> =
        words(text).into_iter().map(|w| w.strip_suffix('s').map(str::to_owned).unwrap_or(w)).collect();
    datasets
        .iter()
        .filter_map(|d| {
            let stem = d.name.rsplit_once('.').map_or(d.name.as_str(), |(s, _)| s);
            [d.table_name.as_str(), stem]
                .into_iter()
                .map(|name| {
                    let parts: Vec<String> =
                        words(name).into_iter().map(|w| w.strip_suffix('s').map(str::to_owned).unwrap_or(w)).collect();
                    let telling = |p: &&String| p.len() > 2 || p.chars().any(|c| c.is_ascii_digit());
                    let hits = parts.iter().filter(telling).filter(|p| said.contains(p)).count();
                    (hits * 2 + usize::from(hits == parts.len()), hits)
                })
                .filter(|(_, hits)| *hits > 0)
                .map(|(score, _)| score)
                .max()
                .map(|score| (score, d))
        })
        .max_by_key(|(score, _)| *score)
        .map(|(_, d)| d)
}
