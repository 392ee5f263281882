//! Approved folders as the API shows them: a listing and an import's report (`FilesService`,
//! the `list_directory` and `import_files` tools). The service that lists and imports is
//! `aware_core::files`; the jail it reads through is [`crate::ports::FileAccess`].

use crate::dataset::{Dataset, DatasetFormat};
use crate::run::RunError;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Most entries a listing returns.
pub const MAX_ENTRIES: usize = 1_000;
/// Most files one import takes.
pub const MAX_IMPORT_FILES: usize = 20;
/// Largest file an import copies.
pub const MAX_IMPORT_BYTES: u64 = 500 << 20;
/// Longest listing pattern, in characters. Matching takes at most pattern × name steps, so the
/// bound keeps every match short.
pub const MAX_PATTERN_CHARS: usize = 100;

/// An approved folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRoot {
    pub name: String,
    pub path: PathBuf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    File,
    Directory,
    Other,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DirEntry {
    pub name: String,
    pub path: String,
    pub kind: EntryKind,
    pub size_bytes: u64,
    pub modified: DateTime<Utc>,
    /// What it would import as, when it can be imported.
    pub format: Option<DatasetFormat>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    pub root: String,
    pub path: String,
    pub entries: Vec<DirEntry>,
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportedFile {
    pub path: String,
    pub dataset: Option<Dataset>,
    pub error: Option<RunError>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportReport {
    pub root: String,
    pub files: Vec<ImportedFile>,
}
