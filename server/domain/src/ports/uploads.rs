//! The uploads port: chunked browser uploads in progress (the bytes are in the staging folder).

use crate::dataset::DatasetFormat;
use crate::error::Result;
use crate::ids::{UploadId, UserId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

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
