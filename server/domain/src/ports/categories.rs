//! Where the planner gets a dataset's categorical values and profile (`aware_core::categories`
//! caches them from the [`DatasetEngine`](crate::ports::DatasetEngine)).

use crate::Result;
use crate::dataset::{Dataset, DatasetStatistics};
use async_trait::async_trait;
use std::sync::Arc;

/// A text column with few distinct values, and those values.
#[derive(Clone, Debug, PartialEq)]
pub struct CategoricalColumn {
    pub column: String,
    pub values: Vec<String>,
}

/// Most distinct values a column may have to count as categorical.
pub const MAX_CATEGORIES: u32 = 200;

/// Where the planner gets a dataset's categorical values.
#[async_trait]
pub trait Categories: Send + Sync {
    /// The dataset's categorical columns (none for a dataset that is not READY).
    async fn categories(&self, dataset: &Dataset) -> Result<ColumnsOf>;
    /// The dataset's profile — each column's range and missing values — (none for a dataset
    /// that is not READY): a question's "in March" takes the data's year from it.
    async fn profile(&self, dataset: &Dataset) -> Result<Option<Arc<DatasetStatistics>>>;
}

/// A dataset's categorical columns, shared.
pub type ColumnsOf = Arc<Vec<CategoricalColumn>>;
