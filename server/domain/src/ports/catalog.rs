//! The dataset catalog port: which datasets a user has, their table names and states.

use crate::dataset::{ColumnNote, Dataset, DatasetFormat, DatasetStatus, ImportOrigin, IngestOutcome, Lineage};
use crate::error::Result;
use crate::ids::{DatasetId, UserId};
use async_trait::async_trait;

/// A dataset about to be ingested.
#[derive(Clone, Debug)]
pub struct NewDataset {
    pub id: DatasetId,
    pub owner: UserId,
    pub name: String,
    /// The preferred table name; the catalog appends `_2`, `_3`, … until it is unique per owner.
    pub base_table_name: String,
    pub format: DatasetFormat,
    pub size_bytes: u64,
    pub version_hash: String,
    /// For a dataset saved from a query.
    pub lineage: Option<Lineage>,
    /// For a dataset imported from an approved folder.
    pub origin: Option<ImportOrigin>,
}

/// A ready dataset's content after a refresh read its source again.
#[derive(Clone, Debug, PartialEq)]
pub struct NewContent {
    pub version_hash: String,
    pub size_bytes: u64,
    pub outcome: IngestOutcome,
    /// The column notes that still name a column.
    pub column_notes: Vec<ColumnNote>,
}

/// What an update of a dataset's names and descriptions changes; `None` keeps it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DatasetUpdate {
    pub name: Option<String>,
    pub table_name: Option<String>,
    pub description: Option<String>,
    /// The whole set of column notes after the change.
    pub column_notes: Option<Vec<ColumnNote>>,
}

/// The dataset catalog. Every read is scoped to an owner.
#[async_trait]
pub trait Catalog: Send + Sync {
    /// Records a dataset in PROCESSING with a unique table name.
    async fn insert_processing(&self, new: NewDataset) -> Result<Dataset>;
    async fn get(&self, owner: &UserId, id: &DatasetId) -> Result<Option<Dataset>>;
    /// Newest first.
    async fn list(&self, owner: &UserId, status: Option<DatasetStatus>) -> Result<Vec<Dataset>>;
    /// PROCESSING → READY. `None` when the dataset was deleted meanwhile.
    async fn mark_ready(&self, id: &DatasetId, outcome: &IngestOutcome) -> Result<Option<Dataset>>;
    /// PROCESSING → ERROR. `None` when the dataset was deleted meanwhile.
    async fn mark_error(&self, id: &DatasetId, reason: &str) -> Result<Option<Dataset>>;
    /// Changes names and descriptions. `None` when the owner has no such dataset; a table name
    /// another of the owner's datasets has is `ALREADY_EXISTS`.
    async fn update(&self, owner: &UserId, id: &DatasetId, update: &DatasetUpdate) -> Result<Option<Dataset>>;
    /// Records a ready dataset's new content (a refresh). `None` when the owner has no such
    /// ready dataset.
    async fn replace_content(&self, owner: &UserId, id: &DatasetId, content: &NewContent) -> Result<Option<Dataset>>;
    /// Removes the catalog row; false when there was none for this owner.
    async fn delete(&self, owner: &UserId, id: &DatasetId) -> Result<bool>;
    /// Every dataset still PROCESSING (after a restart these were interrupted).
    async fn list_processing(&self) -> Result<Vec<Dataset>>;
    /// Whether the owner has any dataset at all (used to seed samples into a new data dir).
    async fn count(&self, owner: &UserId) -> Result<u64>;
    /// A number that moves on with every change to the owner's datasets (a new one, any change of
    /// one, a delete), committed with the change, whoever made it: a list read after the version
    /// was V is at least as new as V. It may also move when nothing the owner sees changed.
    async fn version(&self, owner: &UserId) -> Result<u64>;
}
