//! The dataset service: upload (streamed or chunked), ingestion, reads and deletion, with the
//! ownership, role and audit rules every entry point shares.

use crate::kept_catalogs::KeptCatalogs;
use crate::search::SearchService;
use crate::staging::{FinishedUpload, Staging, too_large};
use aware_domain::auth::{Caller, Capability};
use aware_domain::dataset::{
    Dataset, DatasetFormat, DatasetStatistics, DatasetStatus, ImportOrigin, IngestOutcome, base_table_name,
    clean_filename,
};
use aware_domain::error::{Error, ErrorCode, Result};
use aware_domain::fair::{FairConfig, FairSlots, Open, OpenPerUser, Ticket};
use aware_domain::ids::{DatasetId, UploadId, UserId};
use aware_domain::knowledge;
use aware_domain::ports::{
    AuditEntry, AuditLog, Catalog, DatasetEngine, NewContent, NewDataset, UploadSession, Uploads,
};
use aware_domain::value::Table;
use bytes::Bytes;
use chrono::Utc;
use futures::{Stream, StreamExt};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Preview rows: the default and the maximum.
pub const PREVIEW_DEFAULT_ROWS: u32 = 10;
pub const PREVIEW_MAX_ROWS: u32 = 50;

/// Limits on uploads and ingestion.
#[derive(Clone, Debug)]
pub struct DatasetLimits {
    pub max_upload_bytes: u64,
    /// The largest chunk a browser upload may append at once.
    pub max_chunk_bytes: u32,
    pub max_open_uploads_per_user: u64,
    /// Browser uploads not committed within this time are discarded.
    pub upload_ttl: Duration,
    /// Ingestions running at the same time (each uses a worker process and memory).
    pub max_concurrent_ingests: usize,
    /// Of those, how many one user may run at once.
    pub max_ingests_per_user: usize,
    /// Ingestions one user may have waiting beyond that.
    pub max_queued_ingests_per_user: usize,
    /// The longest an ingestion waits for a slot before the upload is refused.
    pub ingest_wait: Duration,
    /// Streamed uploads (`UploadDataset`) one user may have open at once.
    pub max_upload_streams_per_user: usize,
    /// A streamed upload that sends nothing for this long is abandoned.
    pub upload_idle: Duration,
}

impl Default for DatasetLimits {
    fn default() -> Self {
        Self {
            max_upload_bytes: 512 * 1024 * 1024,
            max_chunk_bytes: 4 * 1024 * 1024,
            max_open_uploads_per_user: 8,
            upload_ttl: Duration::from_secs(3600),
            max_concurrent_ingests: 2,
            max_ingests_per_user: 1,
            max_queued_ingests_per_user: 8,
            ingest_wait: Duration::from_secs(300),
            max_upload_streams_per_user: 4,
            upload_idle: Duration::from_secs(60),
        }
    }
}

/// How a client described a file it is about to upload.
#[derive(Clone, Debug)]
pub struct UploadMeta {
    pub filename: String,
    /// As the client sent it: empty, `csv`, `DATASET_FORMAT_CSV`, ….
    pub format: String,
    /// The total size the client announced (streamed uploads); 0 = unknown.
    pub size_bytes: u64,
}

impl UploadMeta {
    fn parse(&self) -> Result<(String, Option<DatasetFormat>)> {
        Ok((clean_filename(&self.filename)?, DatasetFormat::parse_client(&self.format)?))
    }
}

/// A file about to be ingested: its name, the format the client declared, and where it was
/// imported from.
struct Incoming {
    filename: String,
    format: Option<DatasetFormat>,
    origin: Option<ImportOrigin>,
}

/// What a refresh found: the dataset before and after, and whether its content changed.
#[derive(Clone, Debug)]
pub struct Refreshed {
    pub before: Dataset,
    pub dataset: Dataset,
    pub changed: bool,
}

/// One lock per key (an upload, a dataset), dropped once nobody holds it.
struct Locks<K>(Arc<Mutex<HashMap<K, Arc<tokio::sync::Mutex<()>>>>>);

impl<K> Clone for Locks<K> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<K> Default for Locks<K> {
    fn default() -> Self {
        Self(Arc::default())
    }
}

impl<K: Clone + Eq + std::hash::Hash> Locks<K> {
    fn of(&self, key: &K) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.0.lock().expect("lock map poisoned");
        locks.retain(|_, l| Arc::strong_count(l) > 1);
        locks.entry(key.clone()).or_default().clone()
    }
}

/// The dataset service. Cheap to clone.
#[derive(Clone)]
pub struct DatasetService {
    catalog: Arc<dyn Catalog>,
    engine: Arc<dyn DatasetEngine>,
    uploads: Arc<dyn Uploads>,
    audit: Arc<dyn AuditLog>,
    staging: Staging,
    limits: DatasetLimits,
    /// The ingestion workers, shared fairly between users.
    ingest_slots: FairSlots,
    /// Streamed uploads open per user.
    upload_streams: OpenPerUser,
    /// Serialises appends and commits of one browser upload.
    upload_locks: Locks<UploadId>,
    /// Serialises changes of one dataset's content (refreshes, deletes).
    content_locks: Locks<DatasetId>,
    /// Indexes each dataset that becomes ready, and forgets deleted ones.
    search: SearchService,
    /// Whose datasets changed (added, ready, failed, deleted): for clients that keep a list.
    changes: tokio::sync::broadcast::Sender<UserId>,
    /// The catalogs runs read, kept while the store's version of them stands.
    kept: Arc<KeptCatalogs>,
}

impl DatasetService {
    pub fn new(
        catalog: Arc<dyn Catalog>,
        engine: Arc<dyn DatasetEngine>,
        uploads: Arc<dyn Uploads>,
        audit: Arc<dyn AuditLog>,
        staging: Staging,
        limits: DatasetLimits,
        search: SearchService,
    ) -> Self {
        let ingest_slots = FairSlots::new(FairConfig {
            name: "ingest",
            what: "ingestions",
            slots: limits.max_concurrent_ingests,
            per_user: limits.max_ingests_per_user,
            queued_per_user: limits.max_queued_ingests_per_user,
            max_wait: limits.ingest_wait,
        });
        Self {
            catalog,
            engine,
            uploads,
            audit,
            staging,
            limits,
            ingest_slots,
            upload_streams: Default::default(),
            upload_locks: Default::default(),
            content_locks: Default::default(),
            search,
            changes: tokio::sync::broadcast::channel(64).0,
            kept: Default::default(),
        }
    }

    /// The owners of datasets that change from now on (a lagging receiver has missed some).
    pub fn changes(&self) -> tokio::sync::broadcast::Receiver<UserId> {
        self.changes.subscribe()
    }

    pub(crate) fn changed(&self, owner: &UserId) {
        // Nobody listening is fine.
        let _ = self.changes.send(owner.clone());
    }

    /// The search over these datasets.
    pub fn search(&self) -> &SearchService {
        &self.search
    }

    pub fn limits(&self) -> &DatasetLimits {
        &self.limits
    }

    pub async fn list(&self, caller: &Caller, status: Option<DatasetStatus>) -> Result<Vec<Dataset>> {
        caller.principal.require(Capability::DatasetRead)?;
        self.catalog.list(&caller.principal.user_id, status).await
    }

    /// The caller's whole catalog, newest first, for a run's context: kept between runs while it
    /// has not changed (`kept_catalogs`), so a run's cost does not grow with the catalog. Empty for
    /// a caller whose role may not read datasets.
    pub async fn for_run(&self, caller: &Caller) -> Result<Arc<[Dataset]>> {
        if !caller.principal.role.allows(Capability::DatasetRead) {
            return Ok(Arc::from([]));
        }
        self.kept.read(self.catalog.as_ref(), &caller.principal.user_id).await
    }

    pub async fn get(&self, caller: &Caller, id: &DatasetId) -> Result<Dataset> {
        caller.principal.require(Capability::DatasetRead)?;
        self.catalog
            .get(&caller.principal.user_id, id)
            .await?
            .ok_or_else(|| Error::not_found("dataset", id).with_field("dataset_id"))
    }

    /// A dataset and, when it is READY, its first `sample_rows` rows.
    pub async fn get_with_sample(
        &self,
        caller: &Caller,
        id: &DatasetId,
        sample_rows: u32,
    ) -> Result<(Dataset, Option<Table>)> {
        let dataset = self.get(caller, id).await?;
        if sample_rows > PREVIEW_MAX_ROWS {
            return Err(Error::validation("sample_rows", format!("sample_rows must be at most {PREVIEW_MAX_ROWS}")));
        }
        let sample = if dataset.status == DatasetStatus::Ready && sample_rows > 0 {
            Some(self.engine.preview(&dataset, sample_rows).await?)
        } else {
            None
        };
        Ok((dataset, sample))
    }

    /// The first rows: `limit` 1 to 50, 0 for the default 10.
    pub async fn preview(&self, caller: &Caller, id: &DatasetId, limit: u32) -> Result<Table> {
        let limit = match limit {
            0 => PREVIEW_DEFAULT_ROWS,
            n if n > PREVIEW_MAX_ROWS => {
                return Err(Error::validation("limit", format!("limit must be between 1 and {PREVIEW_MAX_ROWS}")));
            }
            n => n,
        };
        let dataset = self.ready(caller, id).await?;
        self.engine.preview(&dataset, limit).await
    }

    pub async fn statistics(&self, caller: &Caller, id: &DatasetId) -> Result<DatasetStatistics> {
        let dataset = self.ready(caller, id).await?;
        self.engine.statistics(&dataset).await
    }

    async fn ready(&self, caller: &Caller, id: &DatasetId) -> Result<Dataset> {
        let dataset = self.get(caller, id).await?;
        match dataset.status {
            DatasetStatus::Ready => Ok(dataset),
            DatasetStatus::Processing => Err(Error::new(
                ErrorCode::NotReady,
                format!("dataset {} is still being processed; try again in a moment", dataset.table_name),
            )),
            DatasetStatus::Error => Err(Error::new(
                ErrorCode::NotReady,
                format!(
                    "dataset {} could not be ingested: {}",
                    dataset.table_name,
                    dataset.error.as_deref().unwrap_or("unknown reason")
                ),
            )),
        }
    }

    /// Deletes a dataset: its catalog entry first (so it disappears at once), then its content.
    /// With `expected` (the version a person approved deleting), a dataset whose content changed
    /// since is kept: `RESOURCE_CHANGED`.
    pub async fn delete(&self, caller: &Caller, id: &DatasetId, expected: Option<&str>) -> Result<Dataset> {
        caller.principal.require(Capability::DatasetDelete)?;
        let lock = self.content_locks.of(id);
        let _guard = lock.lock().await;
        let dataset = self.get(caller, id).await?;
        still_as_approved(&dataset, expected)?;
        if !self.catalog.delete(&caller.principal.user_id, &dataset.id).await? {
            return Err(Error::not_found("dataset", &dataset.id).with_field("dataset_id"));
        }
        if let Err(e) = self.engine.remove(&dataset).await {
            tracing::warn!(dataset = %dataset.id, error = %e, "dataset content could not be removed");
        }
        self.search.forget(&dataset.id).await;
        self.changed(&dataset.owner);
        self.audit(caller, "dataset.delete", &dataset, "succeeded").await;
        Ok(dataset)
    }

    /// A streaming upload: the chunks are staged (hashed on the way), then ingested. If the stream
    /// fails before its end, nothing is kept. Refused before a byte is read when the user already
    /// has as many upload streams open, or ingestions queued, as allowed; refused as soon as more
    /// bytes arrive than `size_bytes` announced; abandoned when the client goes quiet.
    pub async fn upload<S>(&self, caller: &Caller, meta: UploadMeta, chunks: S) -> Result<Dataset>
    where
        S: Stream<Item = Result<Bytes>> + Unpin + Send,
    {
        self.receive(caller, meta, chunks, None).await
    }

    /// An upload of a file copied from an approved folder (`origin`), which a refresh can read
    /// again.
    pub(crate) async fn import<S>(
        &self,
        caller: &Caller,
        meta: UploadMeta,
        chunks: S,
        origin: ImportOrigin,
    ) -> Result<Dataset>
    where
        S: Stream<Item = Result<Bytes>> + Unpin + Send,
    {
        self.receive(caller, meta, chunks, Some(origin)).await
    }

    async fn receive<S>(
        &self,
        caller: &Caller,
        meta: UploadMeta,
        chunks: S,
        origin: Option<ImportOrigin>,
    ) -> Result<Dataset>
    where
        S: Stream<Item = Result<Bytes>> + Unpin + Send,
    {
        caller.principal.require(Capability::DatasetWrite)?;
        let (filename, format) = meta.parse()?;
        if meta.size_bytes > self.limits.max_upload_bytes {
            return Err(too_large(self.limits.max_upload_bytes));
        }
        let _stream = self.open_upload_stream(&caller.principal.user_id)?;
        let ticket = self.ingest_slots.enter(caller.principal.user_id.as_str())?;
        let staged = self.stage(meta.size_bytes, chunks).await?;
        self.ingest_detached(caller, Incoming { filename, format, origin }, staged, ticket).await
    }

    /// Stages a stream of chunks (hashed on the way); `size_bytes` is what the client announced
    /// (0: unknown).
    async fn stage<S>(&self, size_bytes: u64, mut chunks: S) -> Result<FinishedUpload>
    where
        S: Stream<Item = Result<Bytes>> + Unpin + Send,
    {
        let announced = (size_bytes > 0).then_some(size_bytes);
        let mut writer = self
            .staging
            .create(UploadId::generate().as_str(), announced.unwrap_or(self.limits.max_upload_bytes))
            .await?;
        let idle = self.limits.upload_idle;
        loop {
            let next = tokio::time::timeout(idle, chunks.next()).await.map_err(|_| {
                Error::new(
                    ErrorCode::Cancelled,
                    format!("the upload sent nothing for {} s and was abandoned; nothing was kept", idle.as_secs()),
                )
            })?;
            let Some(chunk) = next else { break };
            let chunk = chunk?;
            if let Some(size) = announced
                && writer.written() + chunk.len() as u64 > size
            {
                return Err(Error::validation(
                    "size_bytes",
                    format!("the upload sent more than the announced {size} bytes; nothing was kept"),
                ));
            }
            writer.write(&chunk).await?;
        }
        let staged = writer.finish().await?;
        if size_bytes != 0 && staged.size_bytes != size_bytes {
            return Err(Error::validation(
                "size_bytes",
                format!(
                    "the upload ended after {} of the announced {size_bytes} bytes; nothing was kept",
                    staged.size_bytes
                ),
            ));
        }
        Ok(staged)
    }

    /// Reads a ready dataset's content again from `chunks` (its import source, as the file
    /// service copied it, `size_bytes` long). The same bytes change nothing; new ones replace the
    /// content in place — the old content serves queries until the new is complete, and a file
    /// that fails to ingest leaves the dataset as it was. Notes on columns that are gone are
    /// dropped.
    pub(crate) async fn refresh<S>(
        &self,
        caller: &Caller,
        id: &DatasetId,
        expected: Option<&str>,
        size_bytes: u64,
        chunks: S,
    ) -> Result<Refreshed>
    where
        S: Stream<Item = Result<Bytes>> + Unpin + Send,
    {
        caller.principal.require(Capability::DatasetWrite)?;
        let lock = self.content_locks.of(id);
        let _guard = lock.lock().await;
        let before = self.get(caller, id).await?;
        still_as_approved(&before, expected)?;
        if before.status != DatasetStatus::Ready {
            return Err(Error::validation(
                "dataset_id",
                format!("{} is not ready, so it cannot be refreshed", before.table_name),
            ));
        }
        let staged = self.stage(size_bytes, chunks).await?;
        if staged.sha256 == before.version_hash {
            return Ok(Refreshed { dataset: before.clone(), before, changed: false });
        }
        // Read as what it was imported as, once it is readable at all.
        let sniffed = DatasetFormat::sniff(&staged.head, &before.name).map(|_| before.format);
        readable(&staged, before.format == DatasetFormat::Parquet, sniffed)?;
        self.engine.check_source(staged.path(), before.format).await?;
        let slot = self.ingest_slots.enter(caller.principal.user_id.as_str())?.wait().await?;
        let outcome = self.read_in(&before, staged.path(), before.format).await?;
        drop(slot);
        let column_notes = before
            .column_notes
            .iter()
            .filter(|n| outcome.columns.iter().any(|c| c.name.eq_ignore_ascii_case(&n.column)))
            .cloned()
            .collect();
        let content =
            NewContent { version_hash: staged.sha256.clone(), size_bytes: staged.size_bytes, outcome, column_notes };
        let Some(dataset) = self.catalog.replace_content(&before.owner, &before.id, &content).await? else {
            // Deleted while it was being read again: drop what the engine wrote.
            self.engine.remove(&before).await.ok();
            return Err(Error::not_found("dataset", id).with_field("dataset_id"));
        };
        self.changed(&dataset.owner);
        self.search.index(dataset.clone());
        Ok(Refreshed { before, dataset, changed: true })
    }
    /// Stores a staged file as the dataset's content: a table file through the engine's reader,
    /// a document as its passages ([`aware_domain::knowledge`]).
    async fn read_in(&self, dataset: &Dataset, source: &Path, format: DatasetFormat) -> Result<IngestOutcome> {
        if !format.is_document() {
            return self.engine.ingest(dataset, source, format).await;
        }
        let size = tokio::fs::metadata(source).await.map_err(Error::internal)?.len();
        if size > knowledge::MAX_DOCUMENT_BYTES {
            return Err(Error::new(
                ErrorCode::IngestError,
                format!(
                    "The document is {} MB; documents are limited to {} MB of text.",
                    size.div_ceil(1 << 20),
                    knowledge::MAX_DOCUMENT_BYTES >> 20
                ),
            ));
        }
        let bytes = tokio::fs::read(source).await.map_err(Error::internal)?;
        let (name, table_name) = (dataset.name.clone(), dataset.table_name.clone());
        let markdown = format == DatasetFormat::Markdown;
        let passages = tokio::task::spawn_blocking(move || {
            let text = knowledge::decode(&bytes)?;
            let title = knowledge::title(&text, markdown, &name);
            Ok::<_, Error>(knowledge::table(&table_name, &title, &knowledge::chunk(&text, markdown)))
        })
        .await
        .map_err(Error::internal)??;
        self.engine.materialize(dataset, &passages).await
    }

    /// Counts an open upload stream of `user` until the guard drops, or refuses it.
    fn open_upload_stream(&self, user: &UserId) -> Result<Open> {
        self.upload_streams.open(user.as_str(), self.limits.max_upload_streams_per_user).ok_or_else(|| {
            metrics::counter!("aware_limit_refusals_total", "limit" => "upload_streams").increment(1);
            Error::resource_exhausted(format!(
                "you already have {} uploads streaming (the limit); retry in 1000 ms, once one has finished",
                self.limits.max_upload_streams_per_user
            ))
            .with_retry_after(Duration::from_secs(1))
        })
    }

    /// Starts a browser upload.
    pub async fn create_upload(&self, caller: &Caller, meta: UploadMeta, size_bytes: u64) -> Result<UploadSession> {
        caller.principal.require(Capability::DatasetWrite)?;
        let (filename, format) = meta.parse()?;
        if size_bytes > self.limits.max_upload_bytes {
            return Err(too_large(self.limits.max_upload_bytes));
        }
        let owner = &caller.principal.user_id;
        if self.uploads.count_open(owner).await? >= self.limits.max_open_uploads_per_user {
            return Err(Error::resource_exhausted(format!(
                "at most {} uploads may be open at once; commit or wait for the others",
                self.limits.max_open_uploads_per_user
            )));
        }
        let session = UploadSession {
            id: UploadId::generate(),
            owner: owner.clone(),
            filename,
            format,
            expected_bytes: (size_bytes > 0).then_some(size_bytes),
            received_bytes: 0,
            created_at: Utc::now(),
        };
        self.staging.create_persistent(session.id.as_str()).await?;
        self.uploads.create_session(&session).await?;
        Ok(session)
    }

    async fn session(&self, caller: &Caller, upload_id: &str) -> Result<UploadSession> {
        caller.principal.require(Capability::DatasetWrite)?;
        let id = UploadId::parse_field(upload_id, "upload_id")?;
        self.uploads
            .session(&caller.principal.user_id, &id)
            .await?
            .ok_or_else(|| Error::not_found("upload", &id).with_field("upload_id"))
    }

    /// Appends a chunk at `offset`; re-sending an already-applied chunk is a no-op.
    pub async fn append_upload(&self, caller: &Caller, upload_id: &str, offset: u64, chunk: &[u8]) -> Result<u64> {
        let session = self.session(caller, upload_id).await?;
        let lock = self.upload_locks.of(&session.id);
        let _guard = lock.lock().await;
        let session = self.session(caller, upload_id).await?; // re-read under the lock
        if chunk.len() > self.limits.max_chunk_bytes as usize {
            return Err(Error::validation(
                "chunk",
                format!("chunks may be at most {} bytes", self.limits.max_chunk_bytes),
            ));
        }
        let received = session.received_bytes;
        let misplaced =
            || Error::validation("offset", format!("the upload has {received} bytes; the next chunk must start there"));
        // Any u64 may arrive here: the end is computed without overflow.
        let new_len = offset.checked_add(chunk.len() as u64).ok_or_else(misplaced)?;
        if new_len <= received && offset < received {
            return Ok(received); // a retry of a chunk we already have
        }
        if offset > received {
            return Err(misplaced());
        }
        if new_len > self.limits.max_upload_bytes || session.expected_bytes.is_some_and(|e| new_len > e) {
            return Err(too_large(self.limits.max_upload_bytes.min(session.expected_bytes.unwrap_or(u64::MAX))));
        }
        let received = self.staging.append(session.id.as_str(), offset, chunk).await?;
        self.uploads.set_received(&session.id, received).await?;
        Ok(received)
    }

    /// Ends a browser upload and ingests it.
    pub async fn commit_upload(&self, caller: &Caller, upload_id: &str) -> Result<Dataset> {
        let session = self.session(caller, upload_id).await?;
        let lock = self.upload_locks.of(&session.id);
        let _guard = lock.lock().await;
        let session = self.session(caller, upload_id).await?;
        if let Some(expected) = session.expected_bytes.filter(|&e| e != session.received_bytes) {
            return Err(Error::validation(
                "upload_id",
                format!("the upload is incomplete: {} of {expected} bytes received", session.received_bytes),
            ));
        }
        let ticket = self.ingest_slots.enter(caller.principal.user_id.as_str())?;
        self.uploads.remove_session(&session.id).await?;
        let staged = self.staging.finish_persistent(session.id.as_str()).await?;
        let incoming = Incoming { filename: session.filename, format: session.format, origin: None };
        self.ingest_detached(caller, incoming, staged, ticket).await
    }

    /// Discards browser uploads older than the TTL. Returns how many were removed.
    pub async fn sweep_expired_uploads(&self) -> Result<usize> {
        let ttl = chrono::Duration::from_std(self.limits.upload_ttl).unwrap_or(chrono::Duration::hours(1));
        let expired = self.uploads.take_expired(Utc::now() - ttl).await?;
        for id in &expired {
            self.staging.discard(id.as_str()).await;
        }
        Ok(expired.len())
    }

    /// Runs the ingestion on its own task: once the bytes are in, a client that goes away does
    /// not leave a dataset stuck in PROCESSING.
    async fn ingest_detached(
        &self,
        caller: &Caller,
        incoming: Incoming,
        staged: FinishedUpload,
        ticket: Ticket,
    ) -> Result<Dataset> {
        let this = self.clone();
        let caller = caller.clone();
        tokio::spawn(async move { this.ingest(&caller, incoming, staged, ticket).await })
            .await
            .map_err(|e| Error::internal(format!("ingestion task failed: {e}")))?
    }

    /// Checks what can be checked without a worker (empty, binary, a Parquet file whose metadata
    /// promises more data than allowed), then waits — bounded — for an ingestion slot of the
    /// user's share, and ingests. A file the checks refuse becomes a dataset in ERROR with the
    /// reason, without taking a slot; a wait that runs out refuses the upload and keeps nothing.
    async fn ingest(
        &self,
        caller: &Caller,
        incoming: Incoming,
        staged: FinishedUpload,
        ticket: Ticket,
    ) -> Result<Dataset> {
        let Incoming { filename, format, origin } = incoming;
        let sniffed = format.or_else(|| DatasetFormat::sniff(&staged.head, &filename));
        let claims_parquet = format.or_else(|| DatasetFormat::from_filename(&filename)) == Some(DatasetFormat::Parquet);
        let checked = match readable(&staged, claims_parquet, sniffed) {
            Ok(format) => self.engine.check_source(staged.path(), format).await.map(|()| format),
            Err(e) => Err(e),
        };
        let slot = if checked.is_ok() { Some(ticket.wait().await?) } else { None };
        let new = NewDataset {
            id: DatasetId::generate(),
            owner: caller.principal.user_id.clone(),
            base_table_name: base_table_name(&filename),
            name: filename.clone(),
            format: if claims_parquet {
                DatasetFormat::Parquet
            } else {
                sniffed.or_else(|| DatasetFormat::from_filename(&filename)).unwrap_or(DatasetFormat::Csv)
            },
            size_bytes: staged.size_bytes,
            version_hash: staged.sha256.clone(),
            lineage: None,
            origin,
        };
        let dataset = self.catalog.insert_processing(new).await?;
        self.changed(&dataset.owner);
        let outcome = match checked {
            Ok(format) => self.read_in(&dataset, staged.path(), format).await,
            Err(e) => Err(e),
        };
        drop(slot);
        drop(staged);
        let (updated, outcome_label) = match outcome {
            Ok(outcome) => (self.catalog.mark_ready(&dataset.id, &outcome).await?, "succeeded"),
            Err(e) => {
                if e.code != ErrorCode::IngestError {
                    tracing::warn!(dataset = %dataset.id, error = %e, internal = ?e.internal, "ingestion failed");
                }
                let reason = match e.code {
                    ErrorCode::IngestError | ErrorCode::RunnerResourceExceeded | ErrorCode::RunnerTimeout => e.message,
                    // Anything else is the server's fault, and its message is not for users.
                    ErrorCode::ValidationError
                    | ErrorCode::SqlPolicyViolation
                    | ErrorCode::RunnerInternalError
                    | ErrorCode::NotFound
                    | ErrorCode::PermissionDenied
                    | ErrorCode::Unauthenticated
                    | ErrorCode::ConfirmationExpired
                    | ErrorCode::RunBusy
                    | ErrorCode::UnknownRun
                    | ErrorCode::TokenExpired
                    | ErrorCode::AlreadyResolved
                    | ErrorCode::NotAuthorized
                    | ErrorCode::BadRequest
                    | ErrorCode::CursorAhead
                    | ErrorCode::ResourceExhausted
                    | ErrorCode::ModelError
                    | ErrorCode::Cancelled
                    | ErrorCode::AlreadyExists
                    | ErrorCode::Unimplemented
                    | ErrorCode::Internal
                    | ErrorCode::PathRefused
                    | ErrorCode::NotReady
                    | ErrorCode::StorageUnavailable
                    | ErrorCode::ExternalToolFailed
                    | ErrorCode::ResourceChanged
                    | ErrorCode::CostConfirmationRequired => {
                        "The file could not be processed because of a server error; try again.".to_owned()
                    }
                };
                self.engine.remove(&dataset).await.ok();
                (self.catalog.mark_error(&dataset.id, &reason).await?, "failed")
            }
        };
        let Some(updated) = updated else {
            // Deleted while it was being ingested: drop whatever the engine wrote.
            self.engine.remove(&dataset).await.ok();
            return Err(Error::not_found("dataset", &dataset.id));
        };
        self.changed(&updated.owner);
        self.audit(caller, "dataset.upload", &updated, outcome_label).await;
        if updated.status == DatasetStatus::Ready {
            self.search.index(updated.clone());
        }
        Ok(updated)
    }

    /// After a restart: datasets left in PROCESSING were interrupted; say so, and remove leftovers
    /// in the staging folder (browser uploads excepted: they can still be committed).
    ///
    /// `shared`: other replicas share the catalog and the data dir, and one of them may be
    /// ingesting right now for up to this long — so only a dataset PROCESSING for longer was
    /// interrupted (the others are left to [`DatasetService::mark_interrupted`] later).
    pub async fn recover(&self, shared: Option<Duration>) -> Result<()> {
        self.mark_interrupted(shared).await?;
        self.staging.clean(&|key| key.starts_with(UploadId::PREFIX)).await?;
        self.sweep_expired_uploads().await?;
        Ok(())
    }

    /// Marks as interrupted (ERROR) the datasets PROCESSING for longer than `longer_than` (all of
    /// them when `None`: no ingest is running anywhere), and removes what they left. Returns how
    /// many there were.
    pub async fn mark_interrupted(&self, longer_than: Option<Duration>) -> Result<usize> {
        let now = chrono::Utc::now();
        let longest = longer_than.and_then(|d| chrono::Duration::from_std(d).ok());
        let mut marked = 0;
        for dataset in self.catalog.list_processing().await? {
            if longest.is_some_and(|longest| now - dataset.updated_at < longest) {
                continue;
            }
            self.engine.remove(&dataset).await.ok();
            self.catalog
                .mark_error(&dataset.id, "Ingestion was interrupted by a server restart; upload the file again.")
                .await?;
            marked += 1;
        }
        Ok(marked)
    }

    async fn audit(&self, caller: &Caller, action: &str, dataset: &Dataset, outcome: &str) {
        let entry = AuditEntry::by(caller, action, "dataset", dataset.id.to_string()).outcome(outcome).details(
            serde_json::json!({
                "name": dataset.name,
                "table_name": dataset.table_name,
                "format": dataset.format.as_str(),
                "size_bytes": dataset.size_bytes,
                "version_hash": dataset.version_hash,
                "status": dataset.status.as_str(),
                "row_count": dataset.row_count,
                "error": dataset.error,
            }),
        );
        aware_domain::ports::record_or_log(self.audit.as_ref(), entry).await;
    }
}

/// What can be refused before a worker reads the staged bytes — empty, claimed Parquet without
/// Parquet's signature, binary (no format `sniffed`) — or the format to read them as. Shared by an
/// upload's ingestion and a refresh.
fn readable(staged: &FinishedUpload, claims_parquet: bool, sniffed: Option<DatasetFormat>) -> Result<DatasetFormat> {
    if staged.size_bytes == 0 || staged.head.iter().all(u8::is_ascii_whitespace) {
        Err(Error::new(ErrorCode::IngestError, "The file is empty."))
    } else if claims_parquet && !staged.head.starts_with(b"PAR1") {
        Err(Error::new(ErrorCode::IngestError, not_parquet(DatasetFormat::sniff(&staged.head, ""))))
    } else {
        sniffed.ok_or_else(|| {
            Error::new(ErrorCode::IngestError, "The file is not CSV, TSV, Parquet or JSON: it contains binary data.")
        })
    }
}

/// Why a file named (or declared) Parquet is refused when it does not start with Parquet's
/// signature, and what it looks like instead.
fn not_parquet(looks_like: Option<DatasetFormat>) -> String {
    let (what, extension) = match looks_like {
        Some(DatasetFormat::Csv) => ("CSV text", Some(".csv")),
        Some(DatasetFormat::Tsv) => ("tab-separated text", Some(".tsv")),
        Some(DatasetFormat::Json) => ("JSON", Some(".json")),
        Some(DatasetFormat::Ndjson) => ("JSON lines", Some(".ndjson")),
        Some(DatasetFormat::Markdown) => ("Markdown text", Some(".md")),
        Some(DatasetFormat::Text) => ("plain text", Some(".txt")),
        Some(DatasetFormat::Parquet | DatasetFormat::Derived) | None => ("binary data of another kind", None),
    };
    let rename = extension.map(|e| format!(" Rename it to {e} to load it as such.")).unwrap_or_default();
    format!(
        "This is not a Parquet file: it does not start with Parquet's signature (PAR1); it looks like {what}.{rename}"
    )
}

/// `RESOURCE_CHANGED` when a person approved a change to `expected`, the version the dataset had
/// then, and its content is another one now.
pub fn still_as_approved(dataset: &Dataset, expected: Option<&str>) -> Result<()> {
    match expected {
        Some(v) if v != dataset.version_hash => Err(Error::resource_changed(format!(
            "{} changed after the change was asked for (its content is another version now); nothing was done. \
             Ask again to act on what is there now.",
            dataset.table_name
        ))),
        _ => Ok(()),
    }
}
