//! Files from approved folders: listing them and importing them as datasets (`FilesService` and
//! the `list_directory` / `import_files` tools). Every path goes through the [`FileAccess`] port —
//! the file jail, which runs in a confined worker process — and imports are copies that then take
//! the normal dataset pipeline (so they are audited with their source like any upload).

use crate::auth::{Caller, Capability};
use crate::dataset::{Dataset, DatasetFormat};
use crate::datasets::{DatasetService, UploadMeta};
use crate::error::{Error, ErrorCode, Result};
use crate::fair::FairSlots;
use crate::ids::UserId;
use crate::ports::{AuditEntry, AuditLog};
use crate::run::RunError;
use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::AsyncReadExt;

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

/// The file service. Cheap to clone. `enabled` is false in connected mode. Approved folders are
/// the server's host folders: only admins may list or import them (`Capability::FileRead` and
/// `FileImport`), and each operation takes a worker slot of the caller's share.
#[derive(Clone)]
pub struct FileService {
    roots: Arc<Vec<FileRoot>>,
    access: Arc<dyn FileAccess>,
    slots: FairSlots,
    datasets: DatasetService,
    audit: Arc<dyn AuditLog>,
    /// Where copies wait for ingestion (private to the server).
    copies: PathBuf,
    enabled: bool,
}

fn disabled() -> Error {
    Error::new(ErrorCode::Unimplemented, "file access is off: this server runs in connected mode")
}

impl FileService {
    pub fn new(
        roots: Vec<FileRoot>,
        access: Arc<dyn FileAccess>,
        slots: FairSlots,
        datasets: DatasetService,
        audit: Arc<dyn AuditLog>,
        copies: PathBuf,
        enabled: bool,
    ) -> Self {
        Self { roots: Arc::new(roots), access, slots, datasets, audit, copies, enabled }
    }

    /// The approved folders' names (none in connected mode), for the model's context.
    pub fn root_names(&self) -> Vec<String> {
        if self.enabled { self.roots.iter().map(|r| r.name.clone()).collect() } else { Vec::new() }
    }

    pub fn roots(&self, caller: &Caller) -> Result<Vec<FileRoot>> {
        if !self.enabled {
            return Err(disabled());
        }
        caller.principal.require(Capability::FileRead)?;
        Ok(self.roots.as_ref().clone())
    }

    fn root(&self, name: &str) -> Result<&FileRoot> {
        self.roots.iter().find(|r| r.name == name.trim()).ok_or_else(|| {
            let names: Vec<&str> = self.roots.iter().map(|r| r.name.as_str()).collect();
            Error::new(
                ErrorCode::NotFound,
                format!("no approved folder named {name:?}; there are: {}", names.join(", ")),
            )
            .with_field("root")
        })
    }

    pub async fn list(&self, caller: &Caller, root: &str, path: &str, pattern: &str) -> Result<Listing> {
        if !self.enabled {
            return Err(disabled());
        }
        caller.principal.require(Capability::FileRead)?;
        let r = self.root(root)?;
        let pattern = pattern.trim();
        if pattern.chars().count() > MAX_PATTERN_CHARS || pattern.contains('/') || pattern.chars().any(char::is_control)
        {
            return Err(Error::validation(
                "pattern",
                format!("the pattern must be a file-name glob such as *.csv, at most {MAX_PATTERN_CHARS} characters"),
            ));
        }
        let _slot = self.slots.acquire(caller.principal.user_id.as_str()).await?;
        let (raw, truncated) = self.access.list(&caller.principal.user_id, &r.path, path, pattern, MAX_ENTRIES).await?;
        let entries = raw
            .into_iter()
            .map(|e| DirEntry {
                format: (e.kind == EntryKind::File).then(|| DatasetFormat::from_filename(&e.name)).flatten(),
                modified: DateTime::from_timestamp(e.modified_unix, 0).unwrap_or_default(),
                name: e.name,
                path: e.path,
                kind: e.kind,
                size_bytes: e.size_bytes,
            })
            .collect();
        Ok(Listing { root: r.name.clone(), path: path.trim_end_matches('/').to_owned(), entries, truncated })
    }

    /// The importable files a listing shows (what "import those" means), at most
    /// [`MAX_IMPORT_FILES`].
    pub async fn importable(&self, caller: &Caller, root: &str, path: &str, pattern: &str) -> Result<Vec<String>> {
        let listing = self.list(caller, root, path, pattern).await?;
        let paths: Vec<String> = listing.entries.into_iter().filter(|e| e.format.is_some()).map(|e| e.path).collect();
        if paths.is_empty() {
            return Err(Error::validation("pattern", "that folder has no importable files matching it"));
        }
        Ok(paths.into_iter().take(MAX_IMPORT_FILES).collect())
    }

    /// Checks an import request before anything happens (for confirmations).
    pub fn check_import(&self, caller: &Caller, root: &str, paths: &[String]) -> Result<()> {
        if !self.enabled {
            return Err(disabled());
        }
        caller.principal.require(Capability::FileImport)?;
        self.root(root)?;
        if paths.is_empty() || paths.len() > MAX_IMPORT_FILES {
            return Err(Error::validation("paths", format!("give 1 to {MAX_IMPORT_FILES} files to import")));
        }
        Ok(())
    }

    /// Copies each file out of the jail and ingests it; each succeeds or fails on its own.
    pub async fn import(&self, caller: &Caller, root: &str, paths: &[String]) -> Result<ImportReport> {
        self.check_import(caller, root, paths)?;
        let r = self.root(root)?.clone();
        tokio::fs::create_dir_all(&self.copies).await?;
        let mut files = Vec::new();
        for path in paths {
            let outcome = self.import_one(caller, &r, path).await;
            self.audit_import(caller, &r, path, &outcome).await;
            files.push(match outcome {
                Ok(dataset) => ImportedFile { path: path.clone(), dataset: Some(dataset), error: None },
                Err(e) => ImportedFile { path: path.clone(), dataset: None, error: Some(RunError::from(&e)) },
            });
        }
        Ok(ImportReport { root: r.name, files })
    }

    /// One audit entry per file asked for, refused ones included: who reached for what, from where.
    async fn audit_import(&self, caller: &Caller, root: &FileRoot, path: &str, outcome: &Result<Dataset>) {
        let (result, details) = match outcome {
            Ok(d) => ("succeeded", serde_json::json!({"dataset_id": d.id.as_str(), "table_name": d.table_name})),
            Err(e) => ("failed", serde_json::json!({"code": e.code.as_str(), "message": e.message})),
        };
        let entry = AuditEntry::by(caller, "files.import", "file", format!("{}:{path}", root.name))
            .outcome(result)
            .details(details);
        crate::ports::record_or_log(self.audit.as_ref(), entry).await;
    }

    async fn import_one(&self, caller: &Caller, root: &FileRoot, path: &str) -> Result<Dataset> {
        let dest = self.copies.join(format!("import-{}", uuid::Uuid::now_v7().simple()));
        let result = async {
            let slot = self.slots.acquire(caller.principal.user_id.as_str()).await?;
            let size = self.access.copy(&caller.principal.user_id, &root.path, path, &dest, MAX_IMPORT_BYTES).await?;
            drop(slot);
            let filename = path.rsplit('/').next().unwrap_or(path).to_owned();
            let meta = UploadMeta { filename, format: String::new(), size_bytes: size };
            let file = tokio::fs::File::open(&dest).await?;
            let chunks = futures::stream::unfold(file, |mut f| async move {
                let mut buf = vec![0u8; 1 << 20];
                match f.read(&mut buf).await {
                    Ok(0) => None,
                    Ok(n) => {
                        buf.truncate(n);
                        Some((Ok(Bytes::from(buf)), f))
                    }
                    Err(e) => Some((Err(Error::from(e)), f)),
                }
            });
            self.datasets.upload(caller, meta, Box::pin(chunks)).await
        }
        .await;
        let _ = tokio::fs::remove_file(&dest).await;
        result
    }
}
