//! Questions to offer a person about a dataset, and follow-ups after an answer. Each is written
//! from the dataset's own columns and values and then read by the planner exactly as a person's
//! question would be: only those that read into a plan are offered, so every suggestion is one
//! aware can answer.

use crate::lexicon::{Class, Lexicon};
use crate::offline::OfflinePlanner;
use crate::reading::Reading;
use async_trait::async_trait;
use aware_domain::dataset::{Dataset, DatasetStatus};
use aware_domain::ports::QuestionSuggester;
use aware_domain::ports::model::RunContext;
use std::sync::Arc;

/// How many questions a dataset offers at most.
pub(crate) const SUGGESTIONS: usize = 4;
/// How many follow-ups an answer offers at most.
pub(crate) const FOLLOW_UPS: usize = 3;

/// What a dataset's questions are written from: what a row is, a measure, categories, a date.
struct Parts<'a> {
    /// What a row is ("orders"), or "rows in <table>" when the data does not say.
    entity: String,
    /// Each measure's label, and whether its values add up (money, counts, sizes) so that a
    /// total means something.
    measures: Vec<(&'a str, bool)>,
    categories: Vec<(&'a str, Option<&'a str>)>,
    dated: bool,
}

impl<'a> Parts<'a> {
    fn of(lex: &'a Lexicon) -> Self {
        const MEASURES: [Class; 7] =
            [Class::Money, Class::Size, Class::Duration, Class::Rating, Class::Age, Class::Number, Class::Count];
        // Money first: the figure people ask about most.
        let measures = MEASURES
            .iter()
            .flat_map(|class| lex.of_class(*class).into_iter().map(move |i| (i, *class)))
            .map(|(i, class)| {
                let label = lex.columns[i].label.as_str();
                (label, matches!(class, Class::Money | Class::Count | Class::Size) && !per_unit(label))
            })
            .collect();
        let categories = lex
            .of_class(Class::Category)
            .into_iter()
            .map(|i| &lex.columns[i])
            // A handful of values groups well; dozens make a long list, not an answer.
            .filter(|c| (2..=24).contains(&c.values.len()))
            .map(|c| (c.label.as_str(), c.values.first().map(String::as_str)))
            .collect();
        // "how many rows per month?" names no dataset: say which.
        let entity =
            if lex.entity == "rows" { format!("rows in {}", lex.dataset.table_name) } else { lex.entity.clone() };
        Self { entity, measures, categories, dated: !lex.dates().is_empty() }
    }

    /// Questions about the whole dataset, one of each kind before a second of any: a ranking,
    /// a trend, a count of one group, a breakdown.
    fn questions(&self) -> Vec<String> {
        let entity = &self.entity;
        let mut out = Vec::new();
        let measure = self.measures.first().copied();
        let category = self.categories.first().copied();
        if let (Some((m, _)), Some((c, _))) = (measure, category) {
            out.push(format!("which {c} has the highest average {m}?"));
        }
        if self.dated {
            out.push(format!("how many {entity} per month?"));
        }
        if let Some((c, Some(value))) = category {
            out.push(format!("how many {entity} with {c} {value}?"));
        }
        match (measure, self.categories.get(1).copied().or(category)) {
            (Some((m, true)), Some((c, _))) => out.push(format!("total {m} by {c}")),
            (Some((m, false)), Some((c, _))) => out.push(format!("average {m} by {c}")),
            (Some((m, _)), None) => out.push(format!("what is the average {m}?")),
            (None, Some((c, _))) => out.push(format!("how many {entity} by {c}?")),
            (None, None) => {}
        }
        if let (true, Some((m, _))) = (self.dated, measure) {
            out.push(format!("average {m} by month"));
        }
        out.push(format!("how many {entity} are there?"));
        out
    }

    /// Follow-ups of an answer read as `reading`: the same by another category (not one it
    /// grouped or filtered by), the same by month, the top 5 of its groups.
    fn follow_ups(&self, reading: &Reading, lex: &Lexicon, rows: usize) -> Vec<String> {
        let grouped = reading.group.map(|(i, bucket)| (lex.columns[i].label.as_str(), bucket.is_some()));
        let used: Vec<&str> = reading
            .filters
            .iter()
            .map(|f| lex.columns[f.column].label.as_str())
            .chain(grouped.map(|(g, _)| g))
            .collect();
        let mut out = Vec::new();
        if let Some((other, _)) = self.categories.iter().find(|(c, _)| !used.contains(c)) {
            out.push(format!("and by {other}?"));
        }
        if self.dated && !grouped.is_some_and(|(_, by_time)| by_time) {
            out.push("and by month?".to_owned());
        }
        // A top 5 of five groups or fewer is the answer again.
        if let (Some((g, false)), Some((m, additive)), true) = (grouped, self.measures.first(), rows > 5) {
            out.push(format!("top 5 {g} by {} {m}", if *additive { "total" } else { "average" }));
        }
        out
    }
}

/// A measure per unit ("unit price", "rate"): its total means nothing.
fn per_unit(label: &str) -> bool {
    label.split(' ').any(|w| matches!(w, "price" | "rate" | "per" | "average" | "avg" | "ratio" | "unit" | "fee"))
}

#[async_trait]
impl QuestionSuggester for OfflinePlanner {
    /// Up to [`SUGGESTIONS`] questions about `dataset` that the planner, reading them among all
    /// of `catalog` with no dataset open, reads into a plan over `dataset`.
    async fn suggest(&self, dataset: &Dataset, catalog: Arc<[Dataset]>) -> Vec<String> {
        if dataset.status != DatasetStatus::Ready || dataset.format.is_document() {
            return Vec::new();
        }
        let context = RunContext { datasets: catalog, ..RunContext::default() };
        let lex = self.lexicon(dataset, &context).await;
        let mut out = Vec::new();
        for question in Parts::of(&lex).questions() {
            if out.len() == SUGGESTIONS {
                break;
            }
            if self.plans_over(&question, &context, dataset).await {
                out.push(question);
            }
        }
        out
    }
}

impl OfflinePlanner {
    /// Up to [`FOLLOW_UPS`] questions to ask next after a question read as `reading` was
    /// answered, each read as a follow-up of it into a plan of its own.
    /// `rows`: how many the answer's table had.
    pub(crate) async fn follow_ups(&self, lex: &Lexicon, reading: &Reading, rows: usize) -> Vec<String> {
        let mut out = Vec::new();
        for next in Parts::of(lex).follow_ups(reading, lex, rows) {
            if out.len() == FOLLOW_UPS {
                break;
            }
            if self.follows(&next, lex, reading).await {
                out.push(next);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_are_written_from_the_columns_a_dataset_has() {
        let parts = Parts {
            entity: "orders".into(),
            measures: vec![("amount", true)],
            categories: vec![("region", Some("North"))],
            dated: true,
        };
        let asked = parts.questions();
        let kinds = [
            "which region has the highest average amount?",
            "how many orders per month?",
            "how many orders with region North?",
            "total amount by region",
        ];
        assert_eq!(asked[..4], kinds, "one of each kind first");
        let rated = Parts { measures: vec![("rating", false)], ..parts };
        assert!(per_unit("unit price") && !per_unit("amount"), "a unit price is not totalled");
        assert!(rated.questions().contains(&"average rating by region".to_owned()), "a rating is not totalled");
        let bare = Parts { entity: "rows".into(), measures: vec![], categories: vec![], dated: false };
        assert_eq!(bare.questions(), ["how many rows are there?"], "nothing to group or sum: a count");
    }
}
