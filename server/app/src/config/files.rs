//! `[files]`: the approved folders the file tools may read, and the workers that read them.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// An approved folder the file tools may read (local mode only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesRoot {
    /// How users and the model name it, e.g. `downloads`.
    pub name: String,
    pub path: PathBuf,
}

/// Approved folders. The import staging folder (`<data_dir>/import`, root `staging`) is always one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Files {
    pub roots: Vec<FilesRoot>,
    /// File operations (listings, import copies) running at once, each in a worker process.
    pub workers: usize,
    /// Of those, how many one user may run at once (with `auth = "api-key"`).
    pub max_per_user: usize,
    /// Milliseconds a file operation waits for a worker before it is refused.
    pub queue_wait_ms: u64,
}

impl Default for Files {
    fn default() -> Self {
        Self { roots: Vec::new(), workers: 4, max_per_user: 2, queue_wait_ms: 10_000 }
    }
}
