//! What the engine tests build a run engine from, as `aware-server`'s `build_state` does but in
//! memory: the storage adapters of `aware-memory` (kept in a [`Store`] that outlives an engine,
//! as a server's database outlives its process), an audit log kept in a list, a scripted model
//! ([`Scripted`]), and — for the ports these tests never reach (the dataset engine, SQL, the file
//! jail, the search index, the question suggester) — implementations that hold nothing: a read
//! of a collection answers it empty, removing what is not there succeeds, and anything that would
//! have to keep or make something up is UNIMPLEMENTED, so a test that reaches one by mistake
//! fails saying so.

use async_trait::async_trait;
use aware_core::admin::AdminService;
use aware_core::curation::CurationService;
use aware_core::datasets::{DatasetLimits, DatasetService};
use aware_core::files::FileService;
use aware_core::history::RunHistory;
use aware_core::memory::MemoryService;
use aware_core::policy::Policy;
use aware_core::query::QueryService;
use aware_core::runs::tools::ToolRegistry;
use aware_core::runs::{EngineConfig, RunEngine, Services, SystemInfo};
use aware_core::search::SearchService;
use aware_core::staging::Staging;
use aware_domain::auth::{DeploymentMode, Principal};
use aware_domain::dataset::{Dataset, DatasetFormat, DatasetStatistics, IngestOutcome};
use aware_domain::fair::{FairConfig, FairSlots};
use aware_domain::ids::{DatasetId, UserId};
use aware_domain::ports::categories::CategoricalColumn;
use aware_domain::ports::files::RawEntry;
use aware_domain::ports::fleet::OneProcess;
use aware_domain::ports::model::{LanguageModel, Message, ModelRequest, ModelToolCall, ModelTurn};
use aware_domain::ports::search_index::{IndexMeta, LexicalMatch, StoredHit, TextDoc, VectorMeta};
use aware_domain::ports::{
    AuditEntry, AuditFilter, AuditLog, Catalog, DatasetEngine, FileAccess, NewDataset, QuestionSuggester, ScanEstimate,
    SearchStore, SqlEngine, SqlOutcome, StoredAuditEntry, Users,
};
use aware_domain::run::Usage;
use aware_domain::search::{SearchConfig, TextColumnProfile};
use aware_domain::value::{Column, Table};
use aware_domain::{Error, ErrorCode, Result};
use aware_memory::{MemoryCatalog, MemoryMemories, MemoryRuns, MemorySavedQueries, MemoryUploads, MemoryUsers};
use serde_json::Value;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// The storage: what a restart keeps.
// ---------------------------------------------------------------------------------------------

/// The storage a server keeps between runs and restarts, in memory. An engine built over it
/// ([`Store::engine`]) shares these `Arc`s; a second engine over the same store is the server
/// restarted on the same database.
#[derive(Clone)]
pub(crate) struct Store {
    users: Arc<MemoryUsers>,
    catalog: Arc<MemoryCatalog>,
    uploads: Arc<MemoryUploads>,
    /// The run records and the run log (one object: they share the runs).
    pub(crate) runs: Arc<MemoryRuns>,
    pub(crate) memories: Arc<MemoryMemories>,
    saved: Arc<MemorySavedQueries>,
    pub(crate) audit: Arc<ListedAudit>,
    /// Where staged uploads would go (no test uploads anything).
    dir: Arc<tempfile::TempDir>,
}

impl Store {
    /// An empty store with the local user (who every test acts as), as `build_state` ensures.
    pub(crate) async fn new() -> Self {
        let store = Self {
            users: Arc::default(),
            catalog: Arc::default(),
            uploads: Arc::default(),
            runs: Arc::default(),
            memories: Arc::default(),
            saved: Arc::default(),
            audit: Arc::default(),
            dir: Arc::new(tempfile::tempdir().unwrap()),
        };
        store.users.ensure_user(&Principal::local()).await.unwrap();
        store
    }

    /// A READY dataset of `owner` named `table`, written to the catalog directly (as an ingest
    /// would leave it; there is no dataset engine here to ingest anything).
    pub(crate) async fn add_dataset(&self, owner: &UserId, table: &str, columns: &[&str]) -> Dataset {
        let new = NewDataset {
            id: DatasetId::generate(),
            owner: owner.clone(),
            name: format!("{table}.csv"),
            base_table_name: table.to_owned(),
            format: DatasetFormat::Csv,
            size_bytes: 1024,
            version_hash: format!("{table}-v1"),
            lineage: None,
            origin: None,
        };
        let added = self.catalog.insert_processing(new).await.unwrap();
        let outcome =
            IngestOutcome { row_count: 10, columns: columns.iter().map(|c| Column::new(*c, "VARCHAR")).collect() };
        self.catalog.mark_ready(&added.id, &outcome).await.unwrap().unwrap()
    }

    /// A dataset as the catalog has it now.
    pub(crate) async fn dataset(&self, owner: &UserId, id: &DatasetId) -> Dataset {
        self.catalog.get(owner, id).await.unwrap().unwrap()
    }

    /// A run engine over this store answering with `model`, wired as `aware-server`'s
    /// `build_state` wires it (one process: `OneProcess`; the standard tools in local mode).
    /// Call [`RunEngine::recover`] on it before use, as the server does.
    pub(crate) fn engine(&self, model: Arc<Scripted>) -> RunEngine {
        let audit: Arc<dyn AuditLog> = self.audit.clone();
        let engine: Arc<dyn DatasetEngine> = Arc::new(NoDatasetEngine);
        let sql: Arc<dyn SqlEngine> = Arc::new(NoSql);
        let search = SearchService::new(
            Arc::new(NoSearchIndex),
            None,
            engine.clone(),
            self.catalog.clone(),
            SearchConfig { max_vector_rows: 0, max_rows: 0 },
        );
        let datasets = DatasetService::new(
            self.catalog.clone(),
            engine.clone(),
            self.uploads.clone(),
            audit.clone(),
            Staging::new(self.dir.path().join("staging")),
            DatasetLimits::default(),
            search,
        );
        let file_slots = FairSlots::new(FairConfig {
            name: "files",
            what: "file operations",
            slots: 1,
            per_user: 1,
            queued_per_user: 1,
            max_wait: Duration::from_secs(1),
        });
        // No approved folders: the file tools have nothing to reach.
        let files = FileService::new(
            Vec::new(),
            Arc::new(NoFiles),
            file_slots,
            datasets.clone(),
            audit.clone(),
            self.dir.path().join("copies"),
            false,
        );
        let query = QueryService::new(self.catalog.clone(), sql.clone(), self.runs.clone(), 1_000);
        let curation = CurationService::new(
            self.catalog.clone(),
            engine,
            sql,
            self.saved.clone(),
            datasets.clone(),
            query.clone(),
            audit.clone(),
        );
        let config = EngineConfig::default();
        let services = Services {
            datasets,
            files,
            query,
            history: RunHistory::new(self.runs.clone(), audit.clone(), self.catalog.clone()),
            memory: MemoryService::new(self.memories.clone(), audit.clone()),
            curation,
            admin: AdminService::new(self.users.clone(), audit.clone()),
            audit,
            system: SystemInfo {
                version: "test".to_owned(),
                mode: DeploymentMode::Local,
                model_provider: model.name().to_owned(),
                storage: "memory".to_owned(),
            },
            suggestions: Arc::new(NoSuggestions),
        };
        let policy = Policy::new(ToolRegistry::standard(), DeploymentMode::Local, config.max_tool_calls);
        RunEngine::new(self.runs.clone(), Arc::new(OneProcess), model, policy, services, config)
    }
}

// ---------------------------------------------------------------------------------------------
// The model: a script of turns.
// ---------------------------------------------------------------------------------------------

/// One model turn of a script: text streamed in pieces, or tool calls.
pub(crate) struct Turn {
    chunks: Vec<String>,
    calls: Vec<ModelToolCall>,
}

/// A turn that answers with `chunks` streamed one text delta each.
pub(crate) fn say(chunks: &[&str]) -> Turn {
    Turn { chunks: chunks.iter().map(|c| (*c).to_owned()).collect(), calls: Vec::new() }
}

/// A turn that calls `tool` with `arguments`.
pub(crate) fn call(tool: &str, arguments: Value) -> Turn {
    Turn { chunks: Vec::new(), calls: vec![ModelToolCall::new(tool, arguments)] }
}

/// A language model that answers each call with the next turn of its script, whatever it is
/// asked, and keeps the transcript every call was given (what the model was told). A call with
/// no turn left fails (MODEL_ERROR), so a run that asks the model more than the test expects
/// ends FAILED instead of passing quietly.
pub(crate) struct Scripted {
    turns: Mutex<VecDeque<Turn>>,
    told: Mutex<Vec<Vec<Message>>>,
}

impl Scripted {
    pub(crate) fn new(turns: impl IntoIterator<Item = Turn>) -> Arc<Self> {
        Arc::new(Self { turns: Mutex::new(turns.into_iter().collect()), told: Mutex::default() })
    }

    /// The transcript each model call was given (earlier runs of the thread, then this run's),
    /// in call order.
    pub(crate) fn told(&self) -> Vec<Vec<Message>> {
        self.told.lock().unwrap().clone()
    }

    /// Turns not asked for yet.
    pub(crate) fn left(&self) -> usize {
        self.turns.lock().unwrap().len()
    }
}

#[async_trait]
impl LanguageModel for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    async fn complete(
        &self,
        request: ModelRequest<'_>,
        deltas: tokio::sync::mpsc::UnboundedSender<String>,
    ) -> Result<ModelTurn> {
        self.told.lock().unwrap().push(request.messages.to_vec());
        let Some(turn) = self.turns.lock().unwrap().pop_front() else {
            return Err(Error::new(ErrorCode::ModelError, "the script has no turn left"));
        };
        for chunk in &turn.chunks {
            // The driver hears deltas while the call is in flight; a closed channel is its end.
            let _ = deltas.send(chunk.clone());
        }
        Ok(ModelTurn {
            text: turn.chunks.concat(),
            tool_calls: turn.calls,
            usage: Usage { model_calls: 1, ..Usage::default() },
            ..ModelTurn::default()
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The audit log: `aware-memory` has none, so a list.
// ---------------------------------------------------------------------------------------------

/// The audit log as a list of entries, for tests to read.
#[derive(Default)]
pub(crate) struct ListedAudit {
    entries: Mutex<Vec<AuditEntry>>,
}

impl ListedAudit {
    /// The actions recorded so far, oldest first (`grant.create`, `grant.use`, …).
    pub(crate) fn actions(&self) -> Vec<String> {
        self.entries.lock().unwrap().iter().map(|e| e.action.clone()).collect()
    }
}

#[async_trait]
impl AuditLog for ListedAudit {
    async fn record(&self, entry: AuditEntry) -> Result<()> {
        self.entries.lock().unwrap().push(entry);
        Ok(())
    }

    async fn entries(&self, _: &AuditFilter, _: Option<u64>, _: u32) -> Result<Vec<StoredAuditEntry>> {
        Err(unused("reading the audit log"))
    }
}

// ---------------------------------------------------------------------------------------------
// Ports the engine tests never reach: they hold nothing.
// ---------------------------------------------------------------------------------------------

fn unused(what: &str) -> Error {
    Error::new(ErrorCode::Unimplemented, format!("{what} is not part of the engine tests"))
}

/// The dataset engine (DuckDB in `aware-sandbox`): no dataset has content here.
struct NoDatasetEngine;

#[async_trait]
impl DatasetEngine for NoDatasetEngine {
    async fn ingest(&self, _: &Dataset, _: &Path, _: DatasetFormat) -> Result<IngestOutcome> {
        Err(unused("ingesting a dataset"))
    }
    async fn materialize(&self, _: &Dataset, _: &Table) -> Result<IngestOutcome> {
        Err(unused("materialising a dataset"))
    }
    async fn preview(&self, _: &Dataset, _: u32) -> Result<Table> {
        Err(unused("a dataset's preview"))
    }
    async fn statistics(&self, _: &Dataset) -> Result<DatasetStatistics> {
        Err(unused("a dataset's statistics"))
    }
    async fn remove(&self, _: &Dataset) -> Result<()> {
        Ok(())
    }
    async fn text_profile(&self, _: &Dataset) -> Result<Vec<TextColumnProfile>> {
        Ok(Vec::new())
    }
    async fn text_rows(&self, _: &Dataset, _: &[String], _: u64) -> Result<Vec<TextDoc>> {
        Ok(Vec::new())
    }
    async fn categorical_values(&self, _: &Dataset, _: u32) -> Result<Vec<CategoricalColumn>> {
        Ok(Vec::new())
    }
}

/// The SQL sandbox: nothing runs here.
struct NoSql;

#[async_trait]
impl SqlEngine for NoSql {
    async fn run(&self, _: &UserId, _: &str, _: &[Dataset], _: u64, _: Option<u64>) -> Result<SqlOutcome> {
        Err(unused("running SQL"))
    }
    async fn estimate(&self, _: &UserId, _: &str, _: &[Dataset]) -> Result<ScanEstimate> {
        Err(unused("estimating SQL"))
    }
    fn rename_table(&self, _: &str, _: &str, _: &str) -> Result<String> {
        Err(unused("renaming a table in SQL"))
    }
    fn tables_named(&self, _: &str) -> Result<Vec<String>> {
        Err(unused("reading the tables SQL names"))
    }
}

/// The file jail: no approved folder is configured, so nothing is listed or copied.
struct NoFiles;

#[async_trait]
impl FileAccess for NoFiles {
    async fn list(&self, _: &UserId, _: &Path, _: &str, _: &str, _: usize) -> Result<(Vec<RawEntry>, bool)> {
        Ok((Vec::new(), false))
    }
    async fn copy(&self, _: &UserId, _: &Path, _: &str, _: &Path, _: u64) -> Result<u64> {
        Err(unused("copying a file"))
    }
}

/// The search index: no dataset is indexed (and there is no embedder).
struct NoSearchIndex;

#[async_trait]
impl SearchStore for NoSearchIndex {
    async fn build(&self, _: &IndexMeta, _: Vec<TextDoc>) -> Result<()> {
        Err(unused("building a search index"))
    }
    async fn clear_vectors(&self, _: &DatasetId) -> Result<()> {
        Ok(())
    }
    async fn add_vectors(&self, _: &DatasetId, _: Vec<u64>, _: Vec<Vec<f32>>) -> Result<()> {
        Err(unused("storing vectors"))
    }
    async fn seal_vectors(&self, _: &DatasetId, _: &str) -> Result<VectorMeta> {
        Err(unused("sealing vectors"))
    }
    async fn lexical(&self, _: &DatasetId, _: &str, _: usize) -> Result<Vec<LexicalMatch>> {
        Ok(Vec::new())
    }
    async fn nearest(&self, _: &DatasetId, _: &[f32], _: usize) -> Result<Vec<(u64, f32)>> {
        Ok(Vec::new())
    }
    async fn hits(&self, _: &DatasetId, _: &str, _: &[u64]) -> Result<Vec<StoredHit>> {
        Ok(Vec::new())
    }
    async fn load(&self, _: &DatasetId) -> Result<Option<IndexMeta>> {
        Ok(None)
    }
    async fn remove(&self, _: &DatasetId) -> Result<()> {
        Ok(())
    }
}

/// The question suggester (the offline planner): no suggestions.
struct NoSuggestions;

#[async_trait]
impl QuestionSuggester for NoSuggestions {
    async fn suggest(&self, _: &Dataset, _: Arc<[Dataset]>) -> Vec<String> {
        Vec::new()
    }
}
