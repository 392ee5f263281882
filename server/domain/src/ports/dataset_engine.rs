//! The dataset engine port: where dataset content is stored, ingested and read (DuckDB in
//! `aware-sandbox`).

use crate::dataset::{Dataset, DatasetFormat, DatasetStatistics, IngestOutcome};
use crate::error::Result;
use crate::ports::categories::CategoricalColumn;
use crate::ports::search_index::TextDoc;
use crate::search::TextColumnProfile;
use crate::value::Table;
use async_trait::async_trait;
use std::path::Path;

/// The columnar engine that stores dataset content and answers questions about it.
#[async_trait]
pub trait DatasetEngine: Send + Sync {
    /// Refuses a staged file whose own metadata shows it is over the limits (e.g. a small
    /// Parquet file that decompresses to gigabytes), before it takes an ingestion slot. Cheap:
    /// reads metadata, never the data.
    async fn check_source(&self, _source: &Path, _format: DatasetFormat) -> Result<()> {
        Ok(())
    }
    /// Ingests `source` (a staged upload) as the dataset's content. Content problems are
    /// `ErrorCode::IngestError` with a reason a person understands.
    async fn ingest(&self, dataset: &Dataset, source: &Path, format: DatasetFormat) -> Result<IngestOutcome>;
    /// Writes a query's whole result as the dataset's content, with the result's column types.
    /// Columns that have no exact stored form (nested values, intervals, times with a zone) are
    /// refused (`VALIDATION_ERROR`), never written approximately.
    async fn materialize(&self, dataset: &Dataset, table: &Table) -> Result<IngestOutcome>;
    /// The first `limit` rows.
    async fn preview(&self, dataset: &Dataset, limit: u32) -> Result<Table>;
    async fn statistics(&self, dataset: &Dataset) -> Result<DatasetStatistics>;
    /// Removes the dataset's stored content (idempotent).
    async fn remove(&self, dataset: &Dataset) -> Result<()>;
    /// How each string column reads (for choosing the columns search indexes).
    async fn text_profile(&self, dataset: &Dataset) -> Result<Vec<TextColumnProfile>>;
    /// The values of `columns` for each row (0-based row ids, in order), at most `max_rows`.
    async fn text_rows(&self, dataset: &Dataset, columns: &[String], max_rows: u64) -> Result<Vec<TextDoc>>;
    /// Each text column with at most `max_distinct` distinct non-empty values (of at most 100
    /// characters each), with those values.
    async fn categorical_values(&self, dataset: &Dataset, max_distinct: u32) -> Result<Vec<CategoricalColumn>>;
}
