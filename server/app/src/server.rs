//! Wiring: storage, engine and services built from the configuration, then one tonic server with
//! grpc-web + CORS, health, reflection (v1 and v1alpha, for grpcurl 1.8), message-size limits and
//! HTTP/2 keepalive.

use crate::auth::Authenticator;
use crate::config::{Config, DeploymentMode, EmbeddingsKind, ModelKind, RouterKind};
use crate::grpc::{AppState, State, admin, audit, chat::Chat, datasets::Datasets, files, memory, query, runs, threads};
use crate::guard::GuardLayer;
use crate::mcp::McpLayer;
use crate::web::WebLayer;
use anyhow::Context;
use aware_core::admin::AdminService;
use aware_core::categories::CategoryCache;
use aware_core::curation::CurationService;
use aware_core::datasets::{DatasetLimits, DatasetService, UploadMeta};
use aware_core::files::FileService;
use aware_core::history::RunHistory;
use aware_core::memory::MemoryService;
use aware_core::policy::Policy;
use aware_core::query::QueryService;
use aware_core::runs::tools::{SystemInfo, ToolRegistry};
use aware_core::runs::{EngineConfig as RunsConfig, RunEngine, Services};
use aware_core::samples::sample_files;
use aware_core::search::SearchService;
use aware_core::staging::Staging;
use aware_domain::auth::{Caller, Principal, Source};
use aware_domain::fair::{FairConfig, FairSlots};
use aware_domain::files::FileRoot;
use aware_domain::ports::model::LanguageModel;
use aware_domain::ports::search_index::Embedder;
use aware_domain::ports::{AuditLog, Catalog, DatasetEngine, SqlEngine, Users};
use aware_domain::search::SearchConfig;
use aware_llm::embeddings::{EmbeddingsConfig, OpenAiEmbeddings};
use aware_llm::script::Script;
use aware_llm::{Provider, ProviderConfig, ProviderKind};
use aware_planner::OfflinePlanner;
use aware_planner::meaning::Meanings;
use aware_proto::v1::{
    FILE_DESCRIPTOR_SET, admin_service_server::AdminServiceServer, audit_service_server::AuditServiceServer,
    chat_service_server::ChatServiceServer, datasets_service_server::DatasetsServiceServer,
    files_service_server::FilesServiceServer, memory_service_server::MemoryServiceServer,
    query_service_server::QueryServiceServer, runs_service_server::RunsServiceServer,
    threads_service_server::ThreadsServiceServer,
};
use aware_sandbox::files::FileJail;
use aware_sandbox::pool::{PoolConfig, SqlPool};
use aware_sandbox::priority::WorkerPriority;
use aware_sandbox::{DuckDbEngine, EngineConfig, SandboxSql, SqlLimits};
use aware_search::{DiskStore, MiniLm};
use aware_store::Store;
use bytes::Bytes;
use http::{HeaderName, HeaderValue, Method};
use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// HTTP/2 keepalive pings, so idle proxies and load balancers keep long streams open.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(20);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);
/// How often abandoned browser uploads are swept.
const UPLOAD_SWEEP_INTERVAL: Duration = Duration::from_secs(300);

/// The metadata database inside the data dir.
pub fn database_path(config: &Config) -> std::path::PathBuf {
    config.data_dir.join("aware.db")
}

/// Opens the metadata store — SQLite in the data dir, or PostgreSQL at `storage.url` — creating
/// the data dir and applying pending migrations.
pub async fn open_store(config: &Config) -> anyhow::Result<Store> {
    std::fs::create_dir_all(&config.data_dir)
        .with_context(|| format!("cannot create data dir {}", config.data_dir.display()))?;
    // Say plainly when the data dir cannot be written, before SQLite reports it as "unable to
    // open database file" or, worse, opens an existing database that every write then fails on.
    let probe = config.data_dir.join(".aware-write-probe");
    if let Err(e) = std::fs::write(&probe, b"") {
        #[expect(clippy::wildcard_enum_match_arm, reason = "io::ErrorKind is non-exhaustive")]
        let what = match e.kind() {
            std::io::ErrorKind::ReadOnlyFilesystem => "is on a read-only file system",
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => "is on a full disk",
            std::io::ErrorKind::PermissionDenied => "is not writable by this user",
            _ => "cannot be written",
        };
        anyhow::bail!(
            "the data directory {} {what} ({e}); aware keeps its database, datasets and run logs there and must be able to write to it",
            config.data_dir.display()
        );
    }
    let _ = std::fs::remove_file(&probe);
    if let (Some(url), Some(shown)) = (&config.storage.url, config.storage.redacted_url()) {
        return Store::connect(url).await.with_context(|| format!("cannot open the PostgreSQL store at {shown}"));
    }
    let path = database_path(config);
    Store::open(&path).await.with_context(|| format!("cannot open {}", path.display()))
}

/// Everything the server serves, built from `config`: the store, the workers, the services and
/// the run engine (with unfinished runs recovered). `run` serves it; in-process tests drive it.
pub async fn build_state(config: &Config) -> anyhow::Result<State> {
    // Samples are seeded once, into a new data dir: on SQLite, one without a database yet; on
    // PostgreSQL (shared by replicas), one without dataset files yet.
    let new_data_dir = match config.storage.url {
        None => !database_path(config).exists(),
        Some(_) => !config.data_dir.join("datasets").exists(),
    };
    let store = Arc::new(open_store(config).await?);
    let local_token = local_token(config)?;
    store.ensure_user(&Principal::local()).await?;
    let worker_exe = match &config.worker_exe {
        Some(p) => p.clone(),
        None => std::env::current_exe().context("cannot find the server executable for worker processes")?,
    };
    let sandbox = &config.sandbox;
    let queued = config.limits.max_queued_per_user as usize;
    // One count of every user's running workers, across the three pools, sets their priority.
    let priority = WorkerPriority::new(Duration::from_millis(config.limits.interactive_cpu_ms));
    let (sql, engine) = duckdb_engines(config, &worker_exe, &priority);
    let search = search_service(config, engine.clone(), store.clone())?;
    let query = QueryService::new(store.clone(), sql.clone(), store.clone(), sandbox.max_rows)
        .asking_above(sandbox.confirm_scan_rows);
    let datasets = DatasetService::new(
        store.clone(),
        engine.clone(),
        store.clone(),
        store.clone(),
        Staging::new(config.data_dir.join("staging")),
        dataset_limits(config),
        search.clone(),
    );
    datasets.recover(ingest_window(config)).await.map_err(|e| anyhow::anyhow!("recovery after restart failed: {e}"))?;
    search.resume(store.as_ref()).await.map_err(|e| anyhow::anyhow!("search indexes could not be resumed: {e}"))?;
    let file_slots = FairSlots::new(FairConfig {
        name: "files",
        what: "file operations",
        slots: config.files.workers,
        per_user: share(config, config.files.max_per_user, config.files.workers),
        queued_per_user: queued,
        max_wait: Duration::from_millis(config.files.queue_wait_ms),
    });
    let files = file_service(config, &worker_exe, file_slots, priority, &datasets, store.clone())?;
    if new_data_dir && config.seed_samples {
        seed_samples(&datasets).await;
    }
    let planner = planner(config, &engine, &search);
    let model = model(config, &planner)?;
    let history = RunHistory::new(store.clone(), store.clone(), store.clone());
    let memory = MemoryService::new(store.clone(), store.clone());
    let auth = Authenticator::new(config.auth, store.clone() as Arc<dyn Users>, local_token.as_deref());
    // A change of who may do what (through the API or the assistant) reaches the next request and
    // every open stream.
    let forget = auth.clone();
    let admin =
        AdminService::new(store.clone(), store.clone()).on_access_change(Arc::new(move || forget.forget_cached()));
    let curation = CurationService::new(
        store.clone(),
        engine.clone(),
        sql.clone(),
        store.clone(),
        datasets.clone(),
        query.clone(),
        store.clone(),
    );
    let services = Services {
        datasets,
        files,
        query,
        history,
        memory,
        curation,
        admin: admin.clone(),
        audit: store.clone() as Arc<dyn AuditLog>,
        system: SystemInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            mode: config.mode,
            model_provider: model.name().to_owned(),
            storage: if store.engine() == "postgres" { "PostgreSQL" } else { "SQLite" }.to_owned(),
        },
        suggestions: planner,
    };
    // External MCP servers: supervised from now on; a server that fails never stops aware.
    let external = aware_mcp::McpRegistry::start(&config.mcp.servers, config.max_external_output_bytes())?;
    let runs = RunEngine::new(
        store.clone(),
        store.fleet(),
        model,
        Policy::new(ToolRegistry::standard(), config.mode, config.agent.max_tool_calls).with_external(external),
        services.clone(),
        engine_config(config),
    );
    let recovered = runs.recover().await.map_err(|e| anyhow::anyhow!("run recovery after restart failed: {e}"))?;
    if recovered > 0 {
        tracing::info!(runs = recovered, "continuing runs that were unfinished at the last stop");
    }
    Ok(Arc::new(AppState {
        config: config.clone(),
        auth,
        admin,
        services,
        runs,
        limits: crate::limits::UserLimits::new(&config.limits, config.auth == crate::config::AuthMode::ApiKey),
        shutdown: tokio::sync::watch::Sender::new(false),
        health: store,
    }))
}

/// Local mode's credential when the configuration asks for one: read from (or first written to)
/// the data dir, and where it is said in the log.
fn local_token(config: &Config) -> anyhow::Result<Option<String>> {
    if !config.local_token_required() {
        return Ok(None);
    }
    let token = crate::auth::local_token(&config.data_dir)
        .with_context(|| format!("cannot read or create the local token in {}", config.data_dir.display()))?;
    tracing::info!(
        file = %config.data_dir.join(crate::auth::LOCAL_TOKEN_FILE).display(),
        "local mode asks for a credential: send `authorization: Bearer <the token in this file>`"
    );
    Ok(Some(token))
}

/// A user's share of a pool of `slots`: per-user shares apply when there are users to share
/// between (API keys); local mode's one user may use every slot of every pool.
fn share(config: &Config, per_user: usize, slots: usize) -> usize {
    if config.multi_user() { per_user.min(slots) } else { slots }
}

/// DuckDB in its workers: the SQL sandbox's pool of sessions, and the dataset engine (ingestion,
/// previews, statistics).
fn duckdb_engines(
    config: &Config,
    worker_exe: &std::path::Path,
    priority: &WorkerPriority,
) -> (Arc<dyn SqlEngine>, Arc<dyn DatasetEngine>) {
    let sandbox = &config.sandbox;
    let datasets_dir = config.data_dir.join("datasets");
    let pool = SqlPool::start(PoolConfig {
        worker_exe: worker_exe.to_path_buf(),
        size: sandbox.workers,
        per_user: share(config, sandbox.max_queries_per_user, sandbox.workers),
        queued_per_user: config.limits.max_queued_per_user as usize,
        max_wait: Duration::from_millis(sandbox.queue_wait_ms),
        warm: sandbox.warm_workers,
        memory_mb: sandbox.memory_mb,
        threads: sandbox.threads,
        kill_grace: Duration::from_millis(1500),
        max_queries_per_worker: 500,
        test_hooks: false,
        priority: priority.clone(),
    });
    let sql = SandboxSql::new(
        pool,
        datasets_dir.clone(),
        SqlLimits {
            timeout: Duration::from_millis(sandbox.timeout_ms),
            max_bytes: sandbox.max_result_mb * 1024 * 1024,
        },
    );
    let engine = DuckDbEngine::new(EngineConfig {
        datasets_dir,
        worker_exe: worker_exe.to_path_buf(),
        ingest_memory_mb: config.ingest.memory_mb,
        ingest_threads: config.ingest.threads,
        ingest_timeout: Duration::from_secs(config.ingest.timeout_secs),
        max_dataset_bytes: config.max_upload_bytes().saturating_mul(4).max(1 << 30),
        read_memory_mb: 512,
        priority: priority.clone(),
    });
    (Arc::new(sql), Arc::new(engine))
}

/// The limits of uploads and ingestion, per user and in all.
fn dataset_limits(config: &Config) -> DatasetLimits {
    let queued = config.limits.max_queued_per_user as usize;
    DatasetLimits {
        max_upload_bytes: config.max_upload_bytes(),
        // Leave room for the other fields of AppendUploadRequest under the message limit.
        max_chunk_bytes: u32::try_from(config.max_message_bytes() - 64 * 1024).unwrap_or(u32::MAX),
        max_open_uploads_per_user: config.limits.max_open_uploads_per_user,
        upload_ttl: Duration::from_secs(config.limits.upload_ttl_secs),
        max_concurrent_ingests: config.ingest.concurrency,
        max_ingests_per_user: share(config, config.ingest.max_per_user, config.ingest.concurrency),
        max_queued_ingests_per_user: queued,
        ingest_wait: Duration::from_secs(config.ingest.queue_wait_secs),
        max_upload_streams_per_user: config.limits.max_upload_streams_per_user as usize,
        upload_idle: Duration::from_secs(config.limits.upload_idle_secs),
    }
}

/// The offline planner answers when no model is configured, and always writes the questions a
/// dataset suggests. Linking a question's words by meaning reads the dataset's column names: only
/// with the in-process model, so nothing the planner reads leaves the process.
fn planner(config: &Config, engine: &Arc<dyn DatasetEngine>, search: &SearchService) -> Arc<OfflinePlanner> {
    let planner = OfflinePlanner::new(Arc::new(CategoryCache::new(engine.clone())));
    Arc::new(match search.embedder().filter(|_| config.search.embeddings == EmbeddingsKind::Local) {
        Some(embedder) => planner.with_meanings(Meanings::new(embedder)),
        None => planner,
    })
}

/// The model runs talk to: a script (tests and demos), a provider, or the offline planner.
fn model(config: &Config, planner: &Arc<OfflinePlanner>) -> anyhow::Result<Arc<dyn LanguageModel>> {
    Ok(match (&config.agent.model, &config.agent.script) {
        (ModelKind::Script, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the model script {}", path.display()))?;
            Arc::new(Script::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?)
        }
        (ModelKind::Anthropic | ModelKind::Openai, _) => Arc::new(provider(config)?),
        (ModelKind::Script | ModelKind::Offline, _) => planner.clone(),
    })
}

/// The run engine's limits, from the `[agent]` section and the store's lease.
fn engine_config(config: &Config) -> RunsConfig {
    let agent = &config.agent;
    RunsConfig {
        max_iterations: agent.max_iterations,
        max_tool_calls: agent.max_tool_calls,
        tool_timeout: Duration::from_millis(agent.tool_timeout_ms),
        confirmation_ttl: Duration::from_secs(agent.confirmation_ttl_secs),
        max_active_runs_per_user: agent.max_active_runs_per_user,
        tool_delay: Duration::from_millis(agent.tool_delay_ms),
        debug_routing: agent.debug_routing,
        llm_router: agent.router == RouterKind::Llm,
        lease_ttl: Duration::from_millis(config.storage.lease_ms),
        ..RunsConfig::default()
    }
}

/// On a shared store (PostgreSQL), how long another replica's ingest may be in progress: its
/// wait for a slot, then its time limit, and a minute more. Only an ingest older than that was
/// interrupted. `None` on SQLite, where no other server ingests.
fn ingest_window(config: &Config) -> Option<Duration> {
    config.storage.url.is_some().then(|| {
        Duration::from_secs(config.ingest.queue_wait_secs + config.ingest.timeout_secs) + Duration::from_secs(60)
    })
}

/// Search indexes under `<data_dir>/search`, with vectors from the configured embedder: the local
/// model when its files are there (lexical only otherwise, said once in the log).
fn search_service(
    config: &Config,
    engine: Arc<dyn DatasetEngine>,
    catalog: Arc<dyn Catalog>,
) -> anyhow::Result<SearchService> {
    let se = &config.search;
    let store = DiskStore::new(config.data_dir.join("search"), se.hnsw_threshold)
        .map_err(|e| anyhow::anyhow!("cannot open the search indexes: {e}"))?;
    let embedder: Option<Arc<dyn Embedder>> = match se.embeddings {
        EmbeddingsKind::Off => None,
        EmbeddingsKind::Openai => Some(Arc::new(OpenAiEmbeddings::new(EmbeddingsConfig {
            base_url: se.embeddings_url.clone().unwrap_or_default(),
            api_key: se.embeddings_api_key.clone().unwrap_or_default(),
            model: se.embeddings_model.clone().unwrap_or_default(),
            timeout: Duration::from_secs(60),
        })?)),
        EmbeddingsKind::Local => {
            let dir = se.model_dir.clone().unwrap_or_else(|| config.data_dir.join("models").join("all-minilm-l6-v2"));
            match MiniLm::open(&dir) {
                Ok(model) => Some(Arc::new(model)),
                Err(e) if se.model_dir.is_some() => return Err(e.into()),
                Err(_) => {
                    tracing::info!(
                        dir = %dir.display(),
                        "no local embedding model: search matches words only (scripts/install-tools fetches all-MiniLM-L6-v2)"
                    );
                    None
                }
            }
        }
    };
    let limits = SearchConfig { max_rows: se.max_rows, max_vector_rows: se.max_vector_rows };
    Ok(SearchService::new(Arc::new(store), embedder, engine, catalog, limits))
}

/// The approved folders (the import staging folder first) behind the file jail; off in connected
/// mode.
fn file_service(
    config: &Config,
    worker_exe: &Path,
    slots: FairSlots,
    priority: WorkerPriority,
    datasets: &DatasetService,
    audit: Arc<dyn AuditLog>,
) -> anyhow::Result<FileService> {
    let staging = config.data_dir.join("import");
    std::fs::create_dir_all(&staging).with_context(|| format!("cannot create {}", staging.display()))?;
    let mut roots = vec![FileRoot { name: "staging".to_owned(), path: staging.canonicalize()? }];
    for r in &config.files.roots {
        let path = r.path.canonicalize().with_context(|| format!("files root {}", r.path.display()))?;
        roots.push(FileRoot { name: r.name.clone(), path });
    }
    // Each root's identity is taken now: a folder swapped in at its path later is refused.
    let paths: Vec<std::path::PathBuf> = roots.iter().map(|r| r.path.clone()).collect();
    let jail = FileJail::new(worker_exe.to_owned(), Duration::from_secs(120), priority, &paths)
        .context("cannot open the approved folders")?;
    let enabled = config.mode == DeploymentMode::Local;
    // Copies live only while one import runs; any left here were cut off by a crash.
    let copies = config.data_dir.join("staging").join("files");
    match std::fs::remove_dir_all(&copies) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(anyhow::anyhow!("cannot clear {}: {e}", copies.display()));
        }
        _ => {}
    }
    Ok(FileService::new(roots, Arc::new(jail), slots, datasets.clone(), audit, copies, enabled))
}

/// Ingests the sample datasets for the local user through the normal upload path.
async fn seed_samples(datasets: &DatasetService) {
    let caller = Caller { principal: Principal::local(), source: Source::System };
    for sample in sample_files() {
        let meta = UploadMeta { filename: sample.filename.to_owned(), format: "csv".to_owned(), size_bytes: 0 };
        let chunks = futures::stream::iter([Ok(Bytes::from(sample.content))]);
        match datasets.upload(&caller, meta, chunks).await {
            Ok(d) => {
                tracing::info!(table = %d.table_name, rows = d.row_count, status = d.status.as_str(), "seeded sample dataset")
            }
            Err(e) => tracing::warn!(file = sample.filename, error = %e, "could not seed a sample dataset"),
        }
    }
}

/// Browser origins allowed by the configuration (`*`, exact origins, or `scheme://host:*`).
fn cors_layer(origins: &[String]) -> CorsLayer {
    let patterns: Vec<String> = origins.to_vec();
    let allow = if patterns.iter().any(|p| p == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::predicate(move |origin: &HeaderValue, _| {
            origin.to_str().is_ok_and(|origin| crate::guard::origin_matches(&patterns, origin))
        })
    };
    CorsLayer::new()
        .allow_origin(allow)
        .allow_methods([Method::POST, Method::OPTIONS])
        .allow_headers([
            http::header::CONTENT_TYPE,
            http::header::AUTHORIZATION,
            HeaderName::from_static("x-grpc-web"),
            HeaderName::from_static("x-user-agent"),
            HeaderName::from_static("grpc-timeout"),
            HeaderName::from_static(crate::auth::SOURCE_HEADER),
        ])
        // Without these, browsers cannot read error statuses (they arrive as "missing trailer").
        .expose_headers([
            HeaderName::from_static("grpc-status"),
            HeaderName::from_static("grpc-message"),
            HeaderName::from_static("grpc-status-details-bin"),
        ])
        .max_age(Duration::from_secs(86_400))
}

/// Where a started server listens.
pub struct Listening {
    pub api: SocketAddr,
    /// The admin port (`/metrics`, `/healthz`, `/readyz`), when `admin_listen` is set.
    pub admin: Option<SocketAddr>,
}

/// The admin port (metrics, health, readiness), when one is configured: served until `stopped`.
fn spawn_admin(
    listener: Option<TcpListener>,
    state: &State,
    ready: &Arc<std::sync::atomic::AtomicBool>,
    stopped: tokio::sync::oneshot::Receiver<()>,
) -> anyhow::Result<Option<std::net::SocketAddr>> {
    let Some(l) = listener else { return Ok(None) };
    let admin_addr = l.local_addr()?;
    let served = crate::metrics::serve_admin(l, state.clone(), ready.clone(), async move {
        let _ = stopped.await;
    });
    tokio::spawn(async move {
        if let Err(e) = served.await {
            tracing::error!(error = %e, "the admin port stopped");
        }
    });
    Ok(Some(admin_addr))
}

/// What a stopping server still does once it no longer serves.
async fn wind_down(state: &State, grace: Duration) {
    // A tool in the middle of its side effect gets the rest of the grace period to finish, so its
    // outcome is recorded rather than "unknown" after the restart. Everything else is durable at
    // every event and simply continues after the restart.
    if !state.runs.settle_tools(grace).await {
        tracing::warn!(
            "a tool was still running at the end of the grace period; it will be reported as outcome unknown"
        );
    }
    // The runs still unfinished continue at once on another replica (or on this one restarted),
    // not after their lease.
    if let Err(e) = state.runs.release_leases().await {
        tracing::warn!(error = %e, "cannot give up this replica's leases; other replicas wait for them to expire");
    }
}

/// The background sweep: expired browser uploads discarded and, on a shared store, ingests whose
/// replica stopped marked interrupted.
fn spawn_sweeper(state: &State, config: &Config) -> tokio::task::JoinHandle<()> {
    let datasets = state.services.datasets.clone();
    let ingesting_elsewhere = ingest_window(config);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(UPLOAD_SWEEP_INTERVAL);
        loop {
            tick.tick().await;
            match datasets.sweep_expired_uploads().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "discarded expired browser uploads"),
                Err(e) => tracing::warn!(error = %e, "upload sweep failed"),
            }
            // On a shared store, an ingest whose replica stopped is found here, once it has
            // been processing longer than any ingest lasts.
            if ingesting_elsewhere.is_some() {
                match datasets.mark_interrupted(ingesting_elsewhere).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(datasets = n, "marked ingests whose replica stopped as interrupted"),
                    Err(e) => tracing::warn!(error = %e, "the sweep of interrupted ingests failed"),
                }
            }
        }
    })
}

/// gRPC health: every service serving.
async fn health_service() -> tonic_health::pb::health_server::HealthServer<impl tonic_health::pb::health_server::Health>
{
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<DatasetsServiceServer<Datasets>>().await;
    health.set_serving::<ChatServiceServer<Chat>>().await;
    health.set_serving::<RunsServiceServer<runs::Runs>>().await;
    health.set_serving::<QueryServiceServer<query::Query>>().await;
    health.set_serving::<FilesServiceServer<files::Files>>().await;
    health.set_serving::<ThreadsServiceServer<threads::Threads>>().await;
    health.set_serving::<MemoryServiceServer<memory::Memories>>().await;
    health.set_serving::<AuditServiceServer<audit::Audit>>().await;
    health.set_serving::<AdminServiceServer<admin::Admin>>().await;
    health_service
}

/// Serves until `shutdown` resolves. `on_ready` is called with the bound addresses once
/// everything is set up and requests are about to be accepted.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    on_ready: impl FnOnce(Listening),
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    // Installed first, so everything that counts from here on is recorded.
    crate::metrics::recorder();
    let state = build_state(&config).await?;
    let admin_listener = match &config.admin_listen {
        Some(a) => {
            Some(TcpListener::bind(a.as_str()).await.with_context(|| format!("cannot listen on {a} (admin_listen)"))?)
        }
        None => None,
    };

    let sweeper = spawn_sweeper(&state, &config);

    let max = config.max_message_bytes();
    let datasets = DatasetsServiceServer::new(Datasets { state: state.clone() }).max_decoding_message_size(max);
    let chat = ChatServiceServer::new(Chat { state: state.clone() }).max_decoding_message_size(max);
    let runs = RunsServiceServer::new(runs::Runs { state: state.clone() }).max_decoding_message_size(max);
    let query = QueryServiceServer::new(query::Query { state: state.clone() }).max_decoding_message_size(max);
    let files = FilesServiceServer::new(files::Files { state: state.clone() }).max_decoding_message_size(max);
    let threads = ThreadsServiceServer::new(threads::Threads { state: state.clone() }).max_decoding_message_size(max);
    let memories = MemoryServiceServer::new(memory::Memories { state: state.clone() }).max_decoding_message_size(max);
    let audit = AuditServiceServer::new(audit::Audit { state: state.clone() }).max_decoding_message_size(max);
    let admin = AdminServiceServer::new(admin::Admin { state: state.clone() }).max_decoding_message_size(max);

    let health_service = health_service().await;

    let reflection = |b: tonic_reflection::server::Builder<'static>| {
        b.register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            // google.rpc.ErrorInfo, BadRequest, RetryInfo…: so grpcurl decodes an error's details.
            .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection(tonic_reflection::server::Builder::configure()).build_v1()?;
    let reflection_v1alpha = reflection(tonic_reflection::server::Builder::configure()).build_v1alpha()?;

    // Cancelled when shutdown starts: MCP sessions and their event streams end.
    let stop_mcp = tokio_util::sync::CancellationToken::new();
    let router = Server::builder()
        .accept_http1(true)
        .http2_keepalive_interval(Some(KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
        // First of all: a request for a host or from an origin this server does not serve (DNS
        // rebinding) gets neither the page nor the API.
        .layer(GuardLayer::new(&config.allowed_hosts, &config.cors_origins))
        // MCP's Streamable HTTP (its GET opens an event stream, so before the web app's GETs).
        .layer(McpLayer::new(state.clone(), stop_mcp.clone()))
        .layer(WebLayer::new(config.web_dir.as_deref()))
        .layer(cors_layer(&config.cors_origins))
        .layer(tonic_web::GrpcWebLayer::new())
        .layer(crate::metrics::RpcMetricsLayer)
        .add_service(datasets)
        .add_service(chat)
        .add_service(runs)
        .add_service(query)
        .add_service(files)
        .add_service(threads)
        .add_service(memories)
        .add_service(audit)
        .add_service(admin)
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha);

    // Once shutdown starts, open connections get GOAWAY and a grace period to finish; a client
    // that never lets go does not keep the process alive past it.
    let draining = Arc::new(tokio::sync::Notify::new());
    let ready = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (stop_admin, admin_stopped) = tokio::sync::oneshot::channel::<()>();
    let signal = {
        let (draining, ready, state, stop_mcp) = (draining.clone(), ready.clone(), state.clone(), stop_mcp.clone());
        async move {
            shutdown.await;
            tracing::info!("shutting down: open streams are told and closed; tools in progress may finish");
            ready.store(false, std::sync::atomic::Ordering::Relaxed);
            state.shutdown.send_replace(true);
            stop_mcp.cancel();
            draining.notify_one();
        }
    };
    let grace = Duration::from_secs(config.shutdown_grace_secs);
    let admin = spawn_admin(admin_listener, &state, &ready, admin_stopped)?;
    ready.store(true, std::sync::atomic::Ordering::Relaxed);
    on_ready(Listening { api: addr, admin });
    let served = tokio::select! {
        // Nagle's algorithm would hold small responses back ~40 ms behind delayed ACKs. The
        // builder's `tcp_nodelay` does not reach sockets from a custom incoming stream, so it is set here.
        served = router.serve_with_incoming_shutdown(TcpIncoming::from(listener).with_nodelay(Some(true)), signal) => served,
        () = async { draining.notified().await; tokio::time::sleep(grace).await } => {
            tracing::warn!(grace_secs = grace.as_secs(), "connections still open after the shutdown grace period; exiting");
            Ok(())
        }
    };
    sweeper.abort();
    wind_down(&state, grace).await;
    let _ = stop_admin.send(());
    served.context("server failed")
}

/// The language-model provider `agent.model` names, configured from `[llm]`.
fn provider(config: &Config) -> anyhow::Result<Provider> {
    let kind = match config.agent.model {
        ModelKind::Anthropic => ProviderKind::Anthropic,
        // Only the two network kinds reach here; the others have no provider section of their own.
        ModelKind::Openai | ModelKind::Offline | ModelKind::Script => ProviderKind::OpenAi,
    };
    let llm = &config.llm;
    let default_model = match kind {
        ProviderKind::Anthropic => "claude-sonnet-4-5",
        ProviderKind::OpenAi => "gpt-4.1-mini",
    };
    let provider = Provider::new(ProviderConfig {
        kind,
        base_url: llm.base_url.clone().unwrap_or_else(|| kind.default_base_url().to_owned()),
        api_key: llm.api_key.clone().unwrap_or_default(),
        model: llm.model.clone().unwrap_or_else(|| default_model.to_owned()),
        max_tokens: llm.max_tokens,
        timeout: Duration::from_secs(llm.timeout_secs),
        idle_timeout: Duration::from_secs(llm.idle_timeout_secs),
        max_retries: llm.max_retries,
    })?;
    tracing::info!(model = provider.name(), "runs use a language-model provider");
    Ok(provider)
}
