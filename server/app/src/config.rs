//! Layered configuration: defaults → `aware.toml` (or `--config FILE`) → `AWARE_*` environment
//! variables (nested keys with `__`, e.g. `AWARE_LIMITS__MAX_UPLOAD_MB=64`) → command-line flags.
//! Validated before anything starts. This is the only module that reads the environment.

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// How callers authenticate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum AuthMode {
    /// One implicit local user (an admin); no token needed. For a person on their own machine.
    Local,
    /// `authorization: Bearer <token>` with keys made by `aware-server users add`.
    ApiKey,
}

/// Where aware runs (`local` or `connected`): the policy gate's mode.
pub use aware_core::policy::DeploymentMode;

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum LogFormat {
    Text,
    Json,
}

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

/// How long finished things are kept (`aware-server gc` deletes the rest; unset keeps forever).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Retention {
    /// Days the event log of a run that ended is kept (runs that have not ended keep theirs).
    pub events_days: Option<u32>,
    /// Days the trace spans of a run that ended are kept.
    pub traces_days: Option<u32>,
    /// Days audit entries are kept.
    pub audit_days: Option<u32>,
}

/// Where the metadata is kept: users and keys, the dataset catalog, threads, runs and their event
/// logs, confirmations, the audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Storage {
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE`: PostgreSQL, which several replicas can
    /// share (each with the same data dir on a shared volume, for the dataset files). Unset:
    /// SQLite in `<data_dir>/aware.db`.
    pub url: Option<String>,
    /// How long a replica's lease on the runs it drives lasts unless renewed (it renews every
    /// third of it): how soon another replica continues the runs of one that stopped.
    pub lease_ms: u64,
}

impl Default for Storage {
    fn default() -> Self {
        Self { url: None, lease_ms: 15_000 }
    }
}

impl Storage {
    /// The URL with its password replaced by `***`, for messages and logs.
    pub fn redacted_url(&self) -> Option<String> {
        let url = self.url.as_deref()?;
        let Some((scheme, rest)) = url.split_once("://") else { return Some(url.to_owned()) };
        let Some((credentials, host)) = rest.rsplit_once('@') else { return Some(url.to_owned()) };
        Some(match credentials.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
            None => url.to_owned(),
        })
    }
}

/// OpenTelemetry export of the trace spans (rpc, run, model_call, tool_call, confirmation_wait,
/// sql). Off unless an endpoint is set here, as `AWARE_TELEMETRY__OTLP_ENDPOINT`, or as the
/// standard `OTEL_EXPORTER_OTLP_ENDPOINT`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Telemetry {
    /// Base URL of an OTLP/HTTP collector, e.g. `http://127.0.0.1:4318`; spans are sent as
    /// protobuf to `<endpoint>/v1/traces`.
    pub otlp_endpoint: Option<String>,
    /// Extra headers on every export, e.g. a vendor's API key.
    pub otlp_headers: std::collections::BTreeMap<String, String>,
    /// Seconds one export may take before it is abandoned (the spans are dropped, never the server).
    pub otlp_timeout_secs: u64,
    /// The `service.name` resource attribute.
    pub service_name: String,
    /// Share of new traces recorded, 0.0 to 1.0; a caller's `traceparent` decision is followed.
    pub sample_ratio: f64,
}

impl Default for Telemetry {
    fn default() -> Self {
        Self {
            otlp_endpoint: None,
            otlp_headers: std::collections::BTreeMap::new(),
            otlp_timeout_secs: 5,
            service_name: "aware-server".to_owned(),
            sample_ratio: 1.0,
        }
    }
}

/// Ingestion workers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ingest {
    /// DuckDB memory limit per ingestion worker, in MiB.
    pub memory_mb: u64,
    /// DuckDB threads per ingestion worker.
    pub threads: u32,
    /// Seconds before an ingestion worker is killed.
    pub timeout_secs: u64,
    /// Ingestions running at once.
    pub concurrency: usize,
    /// Of those, how many one user may run at once (with `auth = "api-key"`).
    pub max_per_user: usize,
    /// Seconds an upload waits for an ingestion slot before it is refused.
    pub queue_wait_secs: u64,
}

impl Default for Ingest {
    fn default() -> Self {
        Self { memory_mb: 1024, threads: 2, timeout_secs: 600, concurrency: 2, max_per_user: 1, queue_wait_secs: 300 }
    }
}

/// The SQL sandbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Sandbox {
    /// Queries running at once (each in its own worker process).
    pub workers: usize,
    /// Worker processes kept started and waiting.
    pub warm_workers: usize,
    /// Milliseconds before a query is interrupted (and its worker killed shortly after).
    pub timeout_ms: u64,
    /// DuckDB memory limit per query, in MiB (the worker's address space is capped too).
    pub memory_mb: u64,
    /// DuckDB threads per query.
    pub threads: u32,
    /// Most rows a query returns.
    pub max_rows: u32,
    /// Most bytes of cell data a query returns, in MiB.
    pub max_result_mb: u64,
    /// Queries one user may run at once (with `auth = "api-key"`).
    pub max_queries_per_user: usize,
    /// Milliseconds a query waits for a worker before it is refused.
    pub queue_wait_ms: u64,
    /// A query whose plan reads more rows than this runs only once someone agrees: in chat a
    /// person approves it, over the API the request sets `run_heavy` (0: never asks).
    pub confirm_scan_rows: u64,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self {
            workers: 4,
            warm_workers: 2,
            timeout_ms: 5_000,
            memory_mb: 256,
            threads: 2,
            max_rows: 10_000,
            max_result_mb: 32,
            max_queries_per_user: 2,
            queue_wait_ms: 10_000,
            confirm_scan_rows: 50_000_000,
        }
    }
}

/// Which language model drives runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// The deterministic offline planner (no network).
    Offline,
    /// Replies read from `agent.script` (tests and demos).
    Script,
    /// Anthropic Messages (`[llm]` says where and which model).
    Anthropic,
    /// An OpenAI-compatible chat-completions server: OpenAI, a proxy, vLLM, llama.cpp, Ollama.
    Openai,
}

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

/// Whether `--auth local` asks for a credential.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LocalCredential {
    /// Required when the server listens beyond loopback, not otherwise.
    Auto,
    /// Always required.
    Required,
    /// Never required (anyone who reaches the port is the local admin).
    Off,
}

/// Where search vectors come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EmbeddingsKind {
    /// all-MiniLM-L6-v2 in-process, from `search.model_dir`; lexical only when it is not there.
    Local,
    /// An OpenAI-compatible `/v1/embeddings` server (`search.embeddings_url`).
    Openai,
    /// No vectors: search matches words only.
    Off,
}

/// Search over the text in datasets.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Search {
    pub embeddings: EmbeddingsKind,
    /// The local model's folder (`config.json`, `tokenizer.json`, `model.safetensors`); default
    /// `<data_dir>/models/all-minilm-l6-v2`. Given explicitly, it must exist.
    pub model_dir: Option<PathBuf>,
    /// `embeddings = "openai"`: the server up to the version, e.g. `http://localhost:11434/v1`
    /// (`/embeddings` is appended).
    pub embeddings_url: Option<String>,
    /// `embeddings = "openai"`: the model id, e.g. `text-embedding-3-small`.
    pub embeddings_model: Option<String>,
    /// `embeddings = "openai"`: the key, when the server needs one (default `$OPENAI_API_KEY`).
    pub embeddings_api_key: Option<String>,
    /// Datasets with more vectors than this are searched through an HNSW graph; smaller ones
    /// exactly.
    pub hnsw_threshold: usize,
    /// Most rows of one dataset indexed for words.
    pub max_rows: u64,
    /// Most rows of one dataset given vectors (the rest are found by words only).
    pub max_vector_rows: u64,
}

impl Default for Search {
    fn default() -> Self {
        Self {
            embeddings: EmbeddingsKind::Local,
            model_dir: None,
            embeddings_url: None,
            embeddings_model: None,
            embeddings_api_key: None,
            hnsw_threshold: 20_000,
            max_rows: 2_000_000,
            max_vector_rows: 200_000,
        }
    }
}

/// Never prints the key.
impl std::fmt::Debug for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Search")
            .field("embeddings", &self.embeddings)
            .field("model_dir", &self.model_dir)
            .field("embeddings_url", &self.embeddings_url)
            .field("embeddings_model", &self.embeddings_model)
            .field("embeddings_api_key", &self.embeddings_api_key.as_ref().map(|_| "<set>"))
            .field("hnsw_threshold", &self.hnsw_threshold)
            .field("max_rows", &self.max_rows)
            .field("max_vector_rows", &self.max_vector_rows)
            .finish()
    }
}

/// Who reads a message into an intent for the policy gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RouterKind {
    /// Keyword heuristics (no model call).
    Heuristic,
    /// The configured provider refines the heuristics; an unusable answer keeps them.
    Llm,
}

/// Where the language model is, when `agent.model` names a provider.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Llm {
    /// Anthropic: the host (`/v1/messages` is appended), default `https://api.anthropic.com`.
    /// OpenAI-compatible: up to the version (`/chat/completions` is appended), default
    /// `https://api.openai.com/v1`, e.g. `http://localhost:11434/v1` for Ollama.
    pub base_url: Option<String>,
    /// The key; when unset, `ANTHROPIC_API_KEY` or `OPENAI_API_KEY` from the environment.
    pub api_key: Option<String>,
    /// The model id; defaults to `claude-sonnet-4-5` / `gpt-4.1-mini`.
    pub model: Option<String>,
    /// Output tokens per call (Anthropic: 2048 when unset; OpenAI-compatible: sent only when set).
    pub max_tokens: Option<u32>,
    /// One model call, retries included.
    pub timeout_secs: u64,
    /// Silence allowed while waiting for the response or between stream chunks.
    pub idle_timeout_secs: u64,
    /// Extra attempts for a call that failed before anything was streamed.
    pub max_retries: u32,
}

impl Default for Llm {
    fn default() -> Self {
        Self {
            base_url: None,
            api_key: None,
            model: None,
            max_tokens: None,
            timeout_secs: 120,
            idle_timeout_secs: 30,
            max_retries: 2,
        }
    }
}

/// Never prints the key.
impl std::fmt::Debug for Llm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llm")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("timeout_secs", &self.timeout_secs)
            .field("idle_timeout_secs", &self.idle_timeout_secs)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

/// The agent and its runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Agent {
    pub model: ModelKind,
    /// The JSON script of the scripted model.
    pub script: Option<PathBuf>,
    /// Model calls per run.
    pub max_iterations: u32,
    /// Tool calls per message.
    pub max_tool_calls: u32,
    pub tool_timeout_ms: u64,
    /// How long a confirmation waits for a person before it expires (denied).
    pub confirmation_ttl_secs: u64,
    /// Heartbeats on every open stream.
    pub heartbeat_ms: u64,
    /// Runs active or queued at once per user.
    pub max_active_runs_per_user: u32,
    /// Testing aid: every tool waits this long between its intent row and its side effect.
    pub tool_delay_ms: u64,
    /// Send the router's output and the policy decision as a `RoutingDecided` event in each run.
    pub debug_routing: bool,
    /// `heuristic` or `llm` (needs a provider model).
    pub router: RouterKind,
}

impl Default for Agent {
    fn default() -> Self {
        Self {
            model: ModelKind::Offline,
            script: None,
            max_iterations: 5,
            max_tool_calls: 5,
            tool_timeout_ms: 10_000,
            confirmation_ttl_secs: 60,
            heartbeat_ms: 5_000,
            max_active_runs_per_user: 8,
            tool_delay_ms: 0,
            debug_routing: false,
            router: RouterKind::Heuristic,
        }
    }
}

/// MCP both ways: the sessions of aware's own `/mcp` and the external servers whose tools aware
/// uses (see `aware_mcp::ServerConfig` for one entry's fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Mcp {
    pub servers: Vec<aware_mcp::ServerConfig>,
    /// `/mcp` sessions one user may hold open at once (with `auth = "api-key"`); one more
    /// `initialize` is refused (429) until one is closed or reclaimed.
    pub max_sessions_per_user: usize,
    /// `/mcp` sessions open at once on this server, whoever holds them.
    pub max_sessions: usize,
    /// A `/mcp` session that hears nothing from its client for this long is closed.
    pub session_idle_secs: u64,
    /// The most of one external tool's result (as JSON) kept for the client and the run's log,
    /// in KiB (never more than half of `limits.max_message_mb`); the rest is cut, and the cut
    /// said.
    pub max_output_kb: usize,
}

impl Default for Mcp {
    fn default() -> Self {
        Self {
            servers: Vec::new(),
            max_sessions_per_user: 16,
            max_sessions: 1_024,
            session_idle_secs: 300,
            max_output_kb: 2_048,
        }
    }
}

/// The server's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// `HOST:PORT` to serve gRPC, grpc-web, health and reflection on (port 0 picks a free port).
    pub listen: String,
    /// `HOST:PORT` of the admin port: `/metrics` (Prometheus text), `/healthz`, `/readyz`. Off
    /// when unset; keep it private (it is not authenticated).
    pub admin_listen: Option<String>,
    /// Folder for the metadata database, dataset files and upload staging. Created if missing.
    pub data_dir: PathBuf,
    /// `local` (one implicit admin user) or `api-key` (bearer tokens).
    pub auth: AuthMode,
    /// `local` or `connected` (no file tools).
    pub mode: DeploymentMode,
    /// `text` or `json` logs (on stderr).
    pub log_format: LogFormat,
    /// A tracing filter, e.g. `info` or `aware_server=debug,info`.
    pub log_level: String,
    /// Browser origins allowed to call the API (grpc-web) besides the server's own. `*` allows
    /// any; a `:*` suffix allows any port, e.g. `http://localhost:*`. None by default: a page on
    /// another local port is another application, and in local mode it would act as the user.
    pub cors_origins: Vec<String>,
    /// Host names the API and the web app answer to, besides loopback names (`localhost`,
    /// `*.localhost`) and IP addresses, e.g. `["aware.example.com"]`; a request for any other host
    /// is refused (DNS rebinding).
    pub allowed_hosts: Vec<String>,
    /// `auth = "local"`: whether callers must send the local token (`authorization: Bearer`,
    /// the token in `<data_dir>/local-token`): `auto` (when listening beyond loopback),
    /// `required` or `off`.
    pub local_credential: LocalCredential,
    /// Seed three sample datasets for the local user when the data dir is new.
    pub seed_samples: bool,
    /// Seconds open connections get to finish after SIGTERM/Ctrl-C.
    pub shutdown_grace_secs: u64,
    pub limits: Limits,
    pub retention: Retention,
    pub storage: Storage,
    pub telemetry: Telemetry,
    pub ingest: Ingest,
    pub sandbox: Sandbox,
    pub agent: Agent,
    pub llm: Llm,
    pub files: Files,
    pub search: Search,
    /// External MCP servers whose tools aware may use (`[[mcp.servers]]`).
    pub mcp: Mcp,
    /// The executable that runs worker processes; defaults to this server binary.
    pub worker_exe: Option<PathBuf>,
    /// The built web UI (a folder with `index.html`), served on the same port; unset: no UI.
    pub web_dir: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:50051".to_owned(),
            admin_listen: None,
            data_dir: PathBuf::from("aware-data"),
            auth: AuthMode::Local,
            mode: DeploymentMode::Local,
            log_format: LogFormat::Text,
            log_level: "info,tantivy=warn,rmcp=warn".to_owned(),
            cors_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            local_credential: LocalCredential::Auto,
            seed_samples: true,
            shutdown_grace_secs: 10,
            limits: Limits::default(),
            retention: Retention::default(),
            storage: Storage::default(),
            telemetry: Telemetry::default(),
            ingest: Ingest::default(),
            sandbox: Sandbox::default(),
            agent: Agent::default(),
            llm: Llm::default(),
            files: Files::default(),
            search: Search::default(),
            mcp: Mcp::default(),
            worker_exe: None,
            web_dir: None,
        }
    }
}

/// Values given on the command line (the last layer). Unset flags leave lower layers alone.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Overrides {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_listen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<DeploymentMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_format: Option<LogFormat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed_samples: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_dir: Option<PathBuf>,
    /// `--files-root NAME=PATH`: added to the configured roots.
    #[serde(skip)]
    pub files_roots: Vec<FilesRoot>,
}

impl Config {
    /// Loads the layers. `file` defaults to `aware.toml` in the working directory (optional).
    pub fn load(file: Option<&Path>, overrides: &Overrides) -> anyhow::Result<Self> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        figment = match file {
            Some(path) => {
                anyhow::ensure!(path.exists(), "config file {} does not exist", path.display());
                figment.merge(Toml::file_exact(path))
            }
            None => figment.merge(Toml::file("aware.toml")),
        };
        let mut config: Config = figment
            .merge(Env::prefixed("AWARE_").split("__"))
            .merge(Serialized::defaults(overrides))
            .extract()
            .map_err(|e| anyhow::anyhow!("invalid configuration: {e}"))?;
        config.files.roots.extend(overrides.files_roots.iter().cloned());
        if config.search.embeddings == EmbeddingsKind::Openai && config.search.embeddings_api_key.is_none() {
            config.search.embeddings_api_key = std::env::var("OPENAI_API_KEY").ok().filter(|k| !k.is_empty());
        }
        if config.llm.api_key.is_none() {
            let var = match config.agent.model {
                ModelKind::Anthropic => Some("ANTHROPIC_API_KEY"),
                ModelKind::Openai => Some("OPENAI_API_KEY"),
                ModelKind::Offline | ModelKind::Script => None,
            };
            config.llm.api_key = var.and_then(|v| std::env::var(v).ok()).filter(|k| !k.is_empty());
        }
        if config.telemetry.otlp_endpoint.is_none() {
            config.telemetry.otlp_endpoint =
                std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").ok().filter(|e| !e.trim().is_empty());
        }
        // Workers run elsewhere (their own working directory): every path they get is absolute.
        if config.data_dir.is_relative() && !config.data_dir.as_os_str().is_empty() {
            config.data_dir = std::env::current_dir()?.join(&config.data_dir);
        }
        config.validate()?;
        Ok(config)
    }

    /// Checks values that types alone cannot.
    pub fn validate(&self) -> anyhow::Result<()> {
        self.listen_addr()?;
        anyhow::ensure!(!self.data_dir.as_os_str().is_empty(), "data_dir must not be empty");
        anyhow::ensure!((300..=600_000).contains(&self.storage.lease_ms), "storage.lease_ms must be 300 to 600000");
        if let Some(url) = &self.storage.url {
            anyhow::ensure!(
                url.starts_with("postgres://") || url.starts_with("postgresql://"),
                "storage.url must be a PostgreSQL URL (postgres://user:password@host:port/database); leave it \
                 unset to keep the metadata in SQLite in the data dir"
            );
        }
        let l = &self.limits;
        anyhow::ensure!((1..=256).contains(&l.max_message_mb), "limits.max_message_mb must be 1 to 256");
        anyhow::ensure!(l.max_upload_mb >= 1, "limits.max_upload_mb must be at least 1");
        anyhow::ensure!(l.upload_ttl_secs >= 60, "limits.upload_ttl_secs must be at least 60");
        anyhow::ensure!(self.ingest.memory_mb >= 64, "ingest.memory_mb must be at least 64");
        anyhow::ensure!((1..=64).contains(&self.ingest.threads), "ingest.threads must be 1 to 64");
        anyhow::ensure!(self.ingest.timeout_secs >= 1, "ingest.timeout_secs must be at least 1");
        anyhow::ensure!(self.ingest.concurrency >= 1, "ingest.concurrency must be at least 1");
        anyhow::ensure!(self.ingest.max_per_user >= 1, "ingest.max_per_user must be at least 1");
        anyhow::ensure!(self.ingest.queue_wait_secs >= 1, "ingest.queue_wait_secs must be at least 1");
        anyhow::ensure!(l.max_upload_streams_per_user >= 1, "limits.max_upload_streams_per_user must be at least 1");
        anyhow::ensure!((1..=3_600).contains(&l.upload_idle_secs), "limits.upload_idle_secs must be 1 to 3600");
        let fi = &self.files;
        anyhow::ensure!((1..=64).contains(&fi.workers), "files.workers must be 1 to 64");
        anyhow::ensure!(fi.max_per_user >= 1, "files.max_per_user must be at least 1");
        anyhow::ensure!(fi.queue_wait_ms >= 10, "files.queue_wait_ms must be at least 10");
        for host in &self.allowed_hosts {
            anyhow::ensure!(
                !host.is_empty()
                    && host.len() <= 253
                    && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'),
                "allowed_hosts: {host:?} must be a host name without scheme or port, e.g. aware.example.com"
            );
        }
        let ag = &self.agent;
        anyhow::ensure!((1..=50).contains(&ag.max_iterations), "agent.max_iterations must be 1 to 50");
        anyhow::ensure!((1..=50).contains(&ag.max_tool_calls), "agent.max_tool_calls must be 1 to 50");
        anyhow::ensure!((100..=600_000).contains(&ag.tool_timeout_ms), "agent.tool_timeout_ms must be 100 to 600000");
        anyhow::ensure!(
            (1..=86_400).contains(&ag.confirmation_ttl_secs),
            "agent.confirmation_ttl_secs must be 1 to 86400"
        );
        anyhow::ensure!((50..=60_000).contains(&ag.heartbeat_ms), "agent.heartbeat_ms must be 50 to 60000");
        anyhow::ensure!(ag.max_active_runs_per_user >= 1, "agent.max_active_runs_per_user must be at least 1");
        anyhow::ensure!(
            ag.model != ModelKind::Script || ag.script.is_some(),
            "agent.model = \"script\" needs agent.script (a JSON file)"
        );
        anyhow::ensure!(
            ag.router == RouterKind::Heuristic || matches!(ag.model, ModelKind::Anthropic | ModelKind::Openai),
            "agent.router = \"llm\" needs agent.model = \"anthropic\" or \"openai\""
        );
        if let Some(dir) = &self.web_dir {
            anyhow::ensure!(
                dir.join("index.html").is_file(),
                "web_dir {} has no index.html (build the UI with scripts/serve or npm run build in web-client)",
                dir.display()
            );
        }
        let mut names = std::collections::HashSet::new();
        for r in &self.files.roots {
            anyhow::ensure!(
                !r.name.is_empty()
                    && r.name.len() <= 40
                    && r.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'),
                "files root name {:?} must be 1-40 characters of a-z, 0-9, _ and -",
                r.name
            );
            anyhow::ensure!(
                r.name != "staging",
                "files root name \"staging\" is reserved for the import staging folder"
            );
            anyhow::ensure!(names.insert(r.name.as_str()), "files root {:?} is given twice", r.name);
            anyhow::ensure!(r.path.is_dir(), "files root {} = {} is not an existing folder", r.name, r.path.display());
        }
        let llm = &self.llm;
        anyhow::ensure!(
            ag.model != ModelKind::Anthropic || llm.api_key.is_some(),
            "agent.model = \"anthropic\" needs llm.api_key (or ANTHROPIC_API_KEY in the environment)"
        );
        if let Some(url) = &llm.base_url {
            anyhow::ensure!(
                url.starts_with("http://") || url.starts_with("https://"),
                "llm.base_url {url:?} must start with http:// or https://"
            );
        }
        anyhow::ensure!((1..=3_600).contains(&llm.timeout_secs), "llm.timeout_secs must be 1 to 3600");
        anyhow::ensure!((1..=600).contains(&llm.idle_timeout_secs), "llm.idle_timeout_secs must be 1 to 600");
        anyhow::ensure!(llm.max_retries <= 10, "llm.max_retries must be at most 10");
        anyhow::ensure!(llm.max_tokens.is_none_or(|n| n >= 1), "llm.max_tokens must be at least 1");
        let se = &self.search;
        if let Some(dir) = &se.model_dir {
            anyhow::ensure!(
                se.embeddings != EmbeddingsKind::Local || dir.join("model.safetensors").is_file(),
                "search.model_dir {} has no model.safetensors (scripts/install-tools fetches all-MiniLM-L6-v2)",
                dir.display()
            );
        }
        if se.embeddings == EmbeddingsKind::Openai {
            let url = se.embeddings_url.as_deref().unwrap_or_default();
            anyhow::ensure!(
                url.starts_with("http://") || url.starts_with("https://"),
                "search.embeddings = \"openai\" needs search.embeddings_url (http:// or https://)"
            );
            anyhow::ensure!(
                se.embeddings_model.as_deref().is_some_and(|m| !m.is_empty()),
                "search.embeddings = \"openai\" needs search.embeddings_model"
            );
        }
        anyhow::ensure!(se.hnsw_threshold >= 100, "search.hnsw_threshold must be at least 100");
        anyhow::ensure!(se.max_rows >= 1, "search.max_rows must be at least 1");
        let mc = &self.mcp;
        anyhow::ensure!(mc.max_sessions_per_user >= 1, "mcp.max_sessions_per_user must be at least 1");
        anyhow::ensure!(mc.max_sessions >= 1, "mcp.max_sessions must be at least 1");
        anyhow::ensure!((1..=86_400).contains(&mc.session_idle_secs), "mcp.session_idle_secs must be 1 to 86400");
        anyhow::ensure!(mc.max_output_kb >= 1, "mcp.max_output_kb must be at least 1");
        let sb = &self.sandbox;
        anyhow::ensure!((1..=64).contains(&sb.workers), "sandbox.workers must be 1 to 64");
        anyhow::ensure!(sb.warm_workers <= 64, "sandbox.warm_workers must be at most 64");
        anyhow::ensure!(self.limits.interactive_cpu_ms >= 10, "limits.interactive_cpu_ms must be at least 10");
        anyhow::ensure!((100..=600_000).contains(&sb.timeout_ms), "sandbox.timeout_ms must be 100 to 600000");
        anyhow::ensure!(sb.memory_mb >= 64, "sandbox.memory_mb must be at least 64");
        anyhow::ensure!((1..=64).contains(&sb.threads), "sandbox.threads must be 1 to 64");
        anyhow::ensure!((1..=1_000_000).contains(&sb.max_rows), "sandbox.max_rows must be 1 to 1000000");
        anyhow::ensure!(sb.max_result_mb >= 1, "sandbox.max_result_mb must be at least 1");
        anyhow::ensure!(sb.max_queries_per_user >= 1, "sandbox.max_queries_per_user must be at least 1");
        anyhow::ensure!(sb.queue_wait_ms >= 10, "sandbox.queue_wait_ms must be at least 10");
        let te = &self.telemetry;
        if let Some(url) = &te.otlp_endpoint {
            anyhow::ensure!(
                (url.starts_with("http://") || url.starts_with("https://")) && url.parse::<http::Uri>().is_ok(),
                "telemetry.otlp_endpoint {url:?} must be an http:// or https:// URL, e.g. http://127.0.0.1:4318"
            );
        }
        for (name, value) in &te.otlp_headers {
            anyhow::ensure!(
                http::HeaderName::try_from(name.as_str()).is_ok()
                    && http::HeaderValue::try_from(value.as_str()).is_ok(),
                "telemetry.otlp_headers: {name:?} is not a valid HTTP header"
            );
        }
        anyhow::ensure!((1..=120).contains(&te.otlp_timeout_secs), "telemetry.otlp_timeout_secs must be 1 to 120");
        anyhow::ensure!((0.0..=1.0).contains(&te.sample_ratio), "telemetry.sample_ratio must be 0.0 to 1.0");
        anyhow::ensure!(!te.service_name.trim().is_empty(), "telemetry.service_name must not be empty");
        tracing_subscriber::EnvFilter::try_new(&self.log_level)
            .map_err(|e| anyhow::anyhow!("log_level {:?} is not a valid filter: {e}", self.log_level))?;
        Ok(())
    }

    pub fn listen_addr(&self) -> anyhow::Result<SocketAddr> {
        self.listen
            .parse()
            .map_err(|e| anyhow::anyhow!("listen {:?} is not HOST:PORT (e.g. 127.0.0.1:50051): {e}", self.listen))
    }

    /// Whether requests in `auth = "local"` must carry the local token.
    pub fn local_token_required(&self) -> bool {
        self.auth == AuthMode::Local
            && match self.local_credential {
                LocalCredential::Required => true,
                LocalCredential::Off => false,
                LocalCredential::Auto => !self.listen_addr().is_ok_and(|a| a.ip().is_loopback()),
            }
    }

    /// Whether users are told apart (`auth = "api-key"`): only then do per-user shares of the
    /// worker pools apply; local mode's one user may use every slot.
    pub fn multi_user(&self) -> bool {
        self.auth == AuthMode::ApiKey
    }

    pub fn max_message_bytes(&self) -> usize {
        self.limits.max_message_mb as usize * 1024 * 1024
    }

    /// The most of an external tool's result kept: `mcp.max_output_kb`, and never more than half
    /// a gRPC message, so the event that carries it reaches every client with room to spare.
    pub fn max_external_output_bytes(&self) -> usize {
        (self.mcp.max_output_kb * 1024).min(self.max_message_bytes() / 2)
    }

    pub fn max_upload_bytes(&self) -> u64 {
        self.limits.max_upload_mb * 1024 * 1024
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::result_large_err)] // figment::Jail's own error type
    fn layers_apply_in_order_and_bad_values_are_refused() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "aware.toml",
                "listen = \"127.0.0.1:7000\"\nauth = \"api-key\"\n[limits]\nmax_upload_mb = 64\n",
            )?;
            jail.set_env("AWARE_LISTEN", "127.0.0.1:7001");
            jail.set_env("AWARE_INGEST__THREADS", "3");
            let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
            assert_eq!(c.listen, "127.0.0.1:7001", "env beats the file");
            assert_eq!(c.auth, AuthMode::ApiKey, "the file beats defaults");
            assert_eq!(c.limits.max_upload_mb, 64);
            assert_eq!(c.ingest.threads, 3);
            let flags = Overrides { listen: Some("127.0.0.1:0".into()), ..Overrides::default() };
            let c = Config::load(None, &flags).map_err(|e| e.to_string())?;
            assert_eq!(c.listen, "127.0.0.1:0", "flags beat env");

            jail.set_env("AWARE_LISTEN", "nonsense");
            let err = Config::load(None, &Overrides::default()).unwrap_err().to_string();
            assert!(err.contains("HOST:PORT"), "{err}");
            jail.set_env("AWARE_LISTEN", "127.0.0.1:1");
            jail.set_env("AWARE_LIMITS__MAX_MESSAGE_MB", "0");
            assert!(Config::load(None, &Overrides::default()).is_err());
            jail.set_env("AWARE_LIMITS__MAX_MESSAGE_MB", "8");
            jail.create_file("aware.toml", "unknown_key = 1\n")?;
            let err = Config::load(None, &Overrides::default()).unwrap_err().to_string();
            assert!(err.contains("unknown_key"), "typos are reported: {err}");
            Ok(())
        });
    }

    #[test]
    fn the_local_token_is_asked_for_beyond_loopback_unless_configured_otherwise() {
        let with = |listen: &str, credential| Config {
            listen: listen.to_owned(),
            local_credential: credential,
            ..Config::default()
        };
        assert!(!with("127.0.0.1:50051", LocalCredential::Auto).local_token_required());
        assert!(!with("[::1]:50051", LocalCredential::Auto).local_token_required());
        assert!(with("0.0.0.0:50051", LocalCredential::Auto).local_token_required());
        assert!(with("192.168.1.5:50051", LocalCredential::Auto).local_token_required());
        assert!(with("127.0.0.1:50051", LocalCredential::Required).local_token_required());
        assert!(!with("0.0.0.0:50051", LocalCredential::Off).local_token_required());
        let api_key = Config { auth: AuthMode::ApiKey, ..with("0.0.0.0:1", LocalCredential::Required) };
        assert!(!api_key.local_token_required(), "API keys are credentials already");
        let bad = Config { allowed_hosts: vec!["https://x.example".into()], ..Config::default() };
        assert!(bad.validate().unwrap_err().to_string().contains("allowed_hosts"));
    }

    #[test]
    #[allow(clippy::result_large_err)] // figment::Jail's own error type
    fn the_otlp_endpoint_comes_from_aware_settings_or_the_standard_otel_variable() {
        figment::Jail::expect_with(|jail| {
            jail.clear_env();
            let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
            assert_eq!(c.telemetry.otlp_endpoint, None, "off by default");
            jail.set_env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318");
            let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
            assert_eq!(c.telemetry.otlp_endpoint.as_deref(), Some("http://collector:4318"));
            jail.set_env("AWARE_TELEMETRY__OTLP_ENDPOINT", "https://otel.example:443");
            let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
            assert_eq!(c.telemetry.otlp_endpoint.as_deref(), Some("https://otel.example:443"), "ours wins");
            jail.set_env("AWARE_TELEMETRY__OTLP_ENDPOINT", "collector:4318");
            let err = Config::load(None, &Overrides::default()).unwrap_err().to_string();
            assert!(err.contains("telemetry.otlp_endpoint"), "{err}");
            jail.set_env("AWARE_TELEMETRY__OTLP_ENDPOINT", "http://collector:4318");
            jail.set_env("AWARE_TELEMETRY__SAMPLE_RATIO", "1.5");
            let err = Config::load(None, &Overrides::default()).unwrap_err().to_string();
            assert!(err.contains("sample_ratio"), "{err}");
            Ok(())
        });
    }
}
