//! The question suggester port: questions about a dataset that aware can answer, for a person
//! who does not know what to ask yet.

use crate::dataset::Dataset;
use async_trait::async_trait;

#[async_trait]
pub trait QuestionSuggester: Send + Sync {
    /// A few questions about `dataset`, written from its columns and values, each one read —
    /// among all of the person's datasets (`catalog`), as their question would be — into a plan
    /// over `dataset` before it is offered; none for a dataset that is not ready or is a document.
    async fn suggest(&self, dataset: &Dataset, catalog: std::sync::Arc<[Dataset]>) -> Vec<String>;
}
