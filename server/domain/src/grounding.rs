//! Number provenance as data: each number of a run's answer and where it came from (a cell of a
//! tool result, an aggregate of a result's column, a summary the model was given, the question),
//! or `None` — ungrounded. The check that fills it is `aware_core::runs::grounding`.

use serde::{Deserialize, Serialize};

/// Where a number in an answer came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NumberSource {
    /// The seq of the `ToolResult` event in the run's log; 0 for the question.
    pub seq: u64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_call_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// Where in it, for people: "row 3, avg_price", "sum of amount", "the summary you were
    /// given", "the question".
    pub location: String,
    /// The source's value as it is stored (a cell's full precision).
    pub value: String,
}

/// One number of an answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NumberClaim {
    /// As written, e.g. `1,234.5`, `35%`, `2.1M`.
    pub text: String,
    /// What it says, scale and percent applied (`35%` → 35, `2.1M` → 2,100,000).
    pub value: f64,
    /// Its place in the answer, in characters (Unicode scalar values), end exclusive.
    pub start: u32,
    pub end: u32,
    /// `None`: ungrounded — no tool result of the run holds it.
    pub source: Option<NumberSource>,
}

/// The numbers of a run's answer and their sources.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Grounding {
    pub numbers: Vec<NumberClaim>,
    /// When the run retrieved passages of documents: the check of the answer's citations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citations: Option<crate::knowledge::CitationCheck>,
}

impl Grounding {
    pub fn ungrounded(&self) -> usize {
        self.numbers.iter().filter(|n| n.source.is_none()).count()
    }
}
