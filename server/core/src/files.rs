//! Files from approved folders: listing them, importing them as datasets and refreshing a dataset
//! from the file it was imported from (`FilesService`, `DatasetsService.RefreshDataset` and the
//! `list_directory` / `import_files` / `refresh_dataset` tools). Every path goes through the [`FileAccess`] port —
//! the file jail, which runs in a confined worker process — and imports are copies that then take
//! the normal dataset pipeline (so they are audited with their source like any upload).

use crate::datasets::{DatasetService, Refreshed, UploadMeta};
use aware_domain::auth::{Caller, Capability};
use aware_domain::dataset::{Dataset, DatasetFormat, ImportOrigin};
use aware_domain::error::{Error, ErrorCode, Result};
use aware_domain::fair::FairSlots;
use aware_domain::files::{
    DirEntry, EntryKind, FileRoot, ImportReport, ImportedFile, Listing, MAX_ENTRIES, MAX_IMPORT_BYTES,
    MAX_IMPORT_FILES, MAX_PATTERN_CHARS,
};
use aware_domain::ids::DatasetId;
use aware_domain::ports::files::FileAccess;
use aware_domain::ports::{AuditEntry, AuditLog};
use aware_domain::run::RunError;
use bytes::Bytes;
use chrono::DateTime;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::AsyncReadExt;

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
        aware_domain::ports::record_or_log(self.audit.as_ref(), entry).await;
    }

    async fn import_one(&self, caller: &Caller, root: &FileRoot, path: &str) -> Result<Dataset> {
        let dest = self.copies.join(format!("import-{}", uuid::Uuid::now_v7().simple()));
        let result = async {
            let size = self.copy_out(caller, root, path, &dest).await?;
            let filename = path.rsplit('/').next().unwrap_or(path).to_owned();
            let meta = UploadMeta { filename, format: String::new(), size_bytes: size };
            let origin = ImportOrigin { root: root.name.clone(), path: path.to_owned() };
            self.datasets.import(caller, meta, file_chunks(&dest).await?, origin).await
        }
        .await;
        let _ = tokio::fs::remove_file(&dest).await;
        result
    }

    /// Copies a file out of the jail into `dest` (with a worker slot of the caller's share).
    async fn copy_out(&self, caller: &Caller, root: &FileRoot, path: &str, dest: &Path) -> Result<u64> {
        let _slot = self.slots.acquire(caller.principal.user_id.as_str()).await?;
        self.access.copy(&caller.principal.user_id, &root.path, path, dest, MAX_IMPORT_BYTES).await
    }

    /// Checks that a dataset can be refreshed (for confirmations): the caller may import files,
    /// it was imported from an approved folder, and that folder is still approved.
    pub fn check_refresh(&self, caller: &Caller, dataset: &Dataset) -> Result<ImportOrigin> {
        if !self.enabled {
            return Err(disabled());
        }
        caller.principal.require(Capability::FileImport)?;
        caller.principal.require(Capability::DatasetWrite)?;
        let Some(origin) = &dataset.origin else {
            let how = if dataset.lineage.is_some() { "was saved from a query" } else { "was uploaded" };
            return Err(Error::validation(
                "dataset_id",
                format!(
                    "{} {how}, not imported from an approved folder, so there is no file to read again; \
                     upload the new file instead",
                    dataset.table_name
                ),
            ));
        };
        self.root(&origin.root).map_err(|_| {
            Error::validation(
                "dataset_id",
                format!(
                    "{} was imported from the folder “{}”, which is no longer approved on this server",
                    dataset.table_name, origin.root
                ),
            )
        })?;
        Ok(origin.clone())
    }

    /// Reads a dataset again from the file it was imported from: unchanged bytes change nothing;
    /// new ones replace its content (`DatasetService::refresh`). Audited either way.
    pub async fn refresh(&self, caller: &Caller, id: &DatasetId, expected: Option<&str>) -> Result<Refreshed> {
        let dest = self.copies.join(format!("refresh-{}", uuid::Uuid::now_v7().simple()));
        let outcome: Result<(Refreshed, ImportOrigin)> = async {
            let dataset = self.datasets.get(caller, id).await?;
            crate::datasets::still_as_approved(&dataset, expected)?;
            let origin = self.check_refresh(caller, &dataset)?;
            let root = self.root(&origin.root)?.clone();
            tokio::fs::create_dir_all(&self.copies).await?;
            let size = self.copy_out(caller, &root, &origin.path, &dest).await.map_err(|e| Error {
                message: format!(
                    "{}:{} could not be read again: {}; {} is unchanged",
                    root.name, origin.path, e.message, dataset.table_name
                ),
                ..e
            })?;
            let refreshed =
                self.datasets.refresh(caller, id, expected, size, file_chunks(&dest).await?).await.map_err(|e| {
                    if matches!(e.code, ErrorCode::NotFound | ErrorCode::ResourceChanged) {
                        return e; // deleted or changed meanwhile
                    }
                    let message = format!("{} {} is unchanged.", e.message, dataset.table_name);
                    Error { message, ..e }
                })?;
            Ok((refreshed, origin))
        }
        .await;
        let _ = tokio::fs::remove_file(&dest).await;
        let (result, details) = match &outcome {
            Ok((r, origin)) => (
                if r.changed { "succeeded" } else { "unchanged" },
                serde_json::json!({
                    "file": format!("{}:{}", origin.root, origin.path),
                    "table_name": r.dataset.table_name,
                    "rows_before": r.before.row_count,
                    "rows_after": r.dataset.row_count,
                    "version_before": r.before.version_hash,
                    "version_after": r.dataset.version_hash,
                }),
            ),
            Err(e) => ("failed", serde_json::json!({"code": e.code.as_str(), "message": e.message})),
        };
        let entry =
            AuditEntry::by(caller, "dataset.refresh", "dataset", id.to_string()).outcome(result).details(details);
        aware_domain::ports::record_or_log(self.audit.as_ref(), entry).await;
        outcome.map(|(refreshed, _)| refreshed)
    }
}

/// A file's content as a stream of chunks of up to 1 MiB.
async fn file_chunks(path: &Path) -> Result<impl futures::Stream<Item = Result<Bytes>> + Unpin + Send + use<>> {
    let file = tokio::fs::File::open(path).await?;
    Ok(Box::pin(futures::stream::unfold(file, |mut f| async move {
        let mut buf = vec![0u8; 1 << 20];
        match f.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(Bytes::from(buf)), f))
            }
            Err(e) => Some((Err(Error::from(e)), f)),
        }
    })))
}
