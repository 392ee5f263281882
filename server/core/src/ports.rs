//! Ports: the traits through which the domain reaches storage and the data engine. `aware-store`
//! implements the storage ports with SQLite (and can gain a PostgreSQL twin without touching the
//! domain); `aware-sandbox` implements [`DatasetEngine`] with DuckDB.

use crate::auth::{Principal, Role, Source};
use crate::categories::CategoricalColumn;
use crate::dataset::{Dataset, DatasetFormat, DatasetStatistics, DatasetStatus, IngestOutcome};
use crate::error::Result;
use crate::ids::{ApiKeyId, DatasetId, RunId, ThreadId, UploadId, UserId};
use crate::run::{Capsule, RunError, RunRecord, RunStatus, Usage};
use crate::search::{TextColumnProfile, TextDoc};
use crate::value::Table;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::path::Path;

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
    /// Removes the catalog row; false when there was none for this owner.
    async fn delete(&self, owner: &UserId, id: &DatasetId) -> Result<bool>;
    /// Every dataset still PROCESSING (after a restart these were interrupted).
    async fn list_processing(&self) -> Result<Vec<Dataset>>;
    /// Whether the owner has any dataset at all (used to seed samples into a new data dir).
    async fn count(&self, owner: &UserId) -> Result<u64>;
}

/// A stored user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: UserId,
    pub name: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
}

/// An API key as authentication sees it.
#[derive(Clone, Debug)]
pub struct ApiKeyGrant {
    pub key_id: ApiKeyId,
    pub principal: Principal,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked: bool,
}

/// Users and their API keys. Tokens are never stored, only their sha256.
#[async_trait]
pub trait Users: Send + Sync {
    async fn create_user(&self, name: &str, role: Role) -> Result<User>;
    /// Creates the user with this exact id if it does not exist yet (the local user).
    async fn ensure_user(&self, principal: &Principal) -> Result<()>;
    async fn add_api_key(
        &self,
        user: &UserId,
        token_sha256: &str,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<ApiKeyId>;
    async fn find_api_key(&self, token_sha256: &str) -> Result<Option<ApiKeyGrant>>;
    async fn list_users(&self) -> Result<Vec<User>>;
}

/// One audited action.
#[derive(Clone, Debug)]
pub struct AuditEntry {
    pub user_id: UserId,
    pub source: Source,
    /// e.g. `dataset.upload`, `dataset.delete`.
    pub action: String,
    pub resource_type: String,
    pub resource_id: String,
    /// `succeeded`, `failed`, `denied`.
    pub outcome: String,
    pub details: serde_json::Value,
}

/// The append-only audit log.
#[async_trait]
pub trait AuditLog: Send + Sync {
    async fn record(&self, entry: AuditEntry) -> Result<()>;
}

/// A browser upload in progress.
#[derive(Clone, Debug, PartialEq)]
pub struct UploadSession {
    pub id: UploadId,
    pub owner: UserId,
    pub filename: String,
    pub format: Option<DatasetFormat>,
    pub expected_bytes: Option<u64>,
    pub received_bytes: u64,
    pub created_at: DateTime<Utc>,
}

/// Chunked-upload bookkeeping (the bytes themselves live in the staging folder).
#[async_trait]
pub trait Uploads: Send + Sync {
    async fn create_session(&self, session: &UploadSession) -> Result<()>;
    async fn session(&self, owner: &UserId, id: &UploadId) -> Result<Option<UploadSession>>;
    async fn set_received(&self, id: &UploadId, received_bytes: u64) -> Result<()>;
    async fn remove_session(&self, id: &UploadId) -> Result<()>;
    async fn count_open(&self, owner: &UserId) -> Result<u64>;
    /// Removes and returns the sessions created before `cutoff`.
    async fn take_expired(&self, cutoff: DateTime<Utc>) -> Result<Vec<UploadId>>;
}

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

/// Where runs and their capsules are kept. (The run engine adds events, tool calls and
/// confirmations to this port.)
#[async_trait]
pub trait RunStore: Send + Sync {
    async fn insert_run(&self, run: &RunRecord) -> Result<()>;
    /// Records the terminal state of a run.
    async fn finish_run(&self, id: &RunId, status: RunStatus, error: Option<&RunError>, usage: &Usage) -> Result<()>;
    async fn save_capsule(&self, id: &RunId, capsule: &Capsule) -> Result<()>;
    /// A run of this owner, with its capsule.
    async fn get_run(&self, owner: &UserId, id: &RunId) -> Result<Option<(RunRecord, Capsule)>>;
    /// The owner's runs (of one thread, or all), newest first, `before` a run id for paging.
    async fn list_runs(
        &self,
        owner: &UserId,
        thread: Option<&ThreadId>,
        before: Option<&RunId>,
        limit: u32,
    ) -> Result<Vec<RunRecord>>;
    /// The owner's model usage summed over runs created at or after `since`, and how many runs.
    async fn usage_since(&self, owner: &UserId, since: Option<DateTime<Utc>>) -> Result<(Usage, u32)>;
}

/// A query over some of a user's tables, after validation and execution.
#[derive(Clone, Debug, PartialEq)]
pub struct SqlOutcome {
    /// The canonical SQL that ran.
    pub executed_sql: String,
    /// The tables it read (lower-case SQL names).
    pub tables_read: Vec<String>,
    pub table: Table,
}

/// The SQL sandbox: validates untrusted SQL against the caller's tables and runs it isolated.
/// Refusals are `SQL_POLICY_VIOLATION`; limits are `RUNNER_TIMEOUT` / `RUNNER_RESOURCE_EXCEEDED`;
/// worker failures `RUNNER_INTERNAL_ERROR`; mistakes in valid SQL (unknown column)
/// `VALIDATION_ERROR`.
#[async_trait]
pub trait SqlEngine: Send + Sync {
    /// `tables` are the caller's READY datasets; only those the query names are made visible.
    async fn run(&self, owner: &UserId, sql: &str, tables: &[Dataset], max_rows: u64) -> Result<SqlOutcome>;
}
