//! The file jail: listing and copying files beneath an approved folder, in a confined worker
//! process (`aware-sandbox` implements it).

use crate::Result;
use crate::files::EntryKind;
use crate::ids::UserId;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One raw entry from the jail.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RawEntry {
    pub name: String,
    pub path: String,
    pub kind: EntryKind,
    pub size_bytes: u64,
    pub modified_unix: i64,
}

/// The file jail. Refusals are `PATH_REFUSED`; missing paths `NOT_FOUND`; a file where a folder
/// was expected (or a bad pattern) `VALIDATION_ERROR`; an oversized file `RESOURCE_EXHAUSTED`.
#[async_trait]
pub trait FileAccess: Send + Sync {
    /// Lists a folder beneath `root` for `user` (whose other work sets the worker's priority).
    async fn list(
        &self,
        user: &UserId,
        root: &Path,
        path: &str,
        pattern: &str,
        max_entries: usize,
    ) -> Result<(Vec<RawEntry>, bool)>;
    /// Copies one file beneath `root` into `dest` (a new file) for `user`; returns the bytes
    /// copied.
    async fn copy(&self, user: &UserId, root: &Path, path: &str, dest: &Path, max_bytes: u64) -> Result<u64>;
}
