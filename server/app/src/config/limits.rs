//! `[limits]`: the sizes, rates and shares one request or one user may use.

use serde::{Deserialize, Serialize};

/// Size limits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest accepted gRPC message, in MiB (uploads are streamed in chunks below this).
    pub max_message_mb: u32,
    /// Largest dataset file, in MiB.
    pub max_upload_mb: u64,
    /// Browser uploads open at once per user.
    pub max_open_uploads_per_user: u64,
    /// Seconds before an uncommitted browser upload is discarded.
    pub upload_ttl_secs: u64,
    /// Requests per second one user may make, sustained (RPCs and messages on a Chat stream);
    /// 0 turns the limit off.
    pub requests_per_second_per_user: u32,
    /// Requests one user may make at once above the sustained rate.
    pub request_burst_per_user: u32,
    /// `Chat` and `StreamRun` streams one user may hold open.
    pub max_streams_per_user: u32,
    /// Streamed uploads (`UploadDataset`) one user may have open at once.
    pub max_upload_streams_per_user: u32,
    /// Seconds a streamed upload may send nothing before it is abandoned.
    pub upload_idle_secs: u64,
    /// Requests one user may have waiting for each shared worker pool (SQL, ingestion, files)
    /// beyond their share of it; more are refused at once.
    pub max_queued_per_user: u32,
    /// CPU milliseconds a worker process (a query, an ingestion, a file operation) may use at
    /// the server's priority while it is its user's only running worker; past that, and for a
    /// user's second and later concurrent workers, it runs 10 nice levels lower.
    pub interactive_cpu_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_message_mb: 8,
            max_upload_mb: 512,
            max_open_uploads_per_user: 8,
            upload_ttl_secs: 3600,
            requests_per_second_per_user: 200,
            request_burst_per_user: 400,
            max_streams_per_user: 256,
            max_upload_streams_per_user: 4,
            upload_idle_secs: 60,
            max_queued_per_user: 8,
            interactive_cpu_ms: 250,
        }
    }
}
