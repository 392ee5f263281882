//! Layered configuration: defaults → `aware.toml` (or `--config FILE`) → `AWARE_*` environment
//! variables (nested keys with `__`, e.g. `AWARE_LIMITS__MAX_UPLOAD_MB=64`) → command-line flags.
//! Validated before anything starts. This is the only module that reads the environment.
//!
//! Here: the top-level [`Config`] with its own fields, the command-line [`Overrides`], loading and
//! validation. Each section has its file: `limits.rs`, `storage.rs` (with `[retention]`),
//! `telemetry.rs`, `sandbox.rs` (`[ingest]` and `[sandbox]`), `agent.rs` (with `[llm]`),
//! `files.rs`, `search.rs`, `mcp.rs`; `tests.rs` the tests.

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

mod agent;
mod files;
mod limits;
mod mcp;
mod sandbox;
mod search;
mod storage;
mod telemetry;
#[cfg(test)]
mod tests;

pub use agent::{Agent, Llm, ModelKind, RouterKind};
pub use files::{Files, FilesRoot};
pub use limits::Limits;
pub use mcp::Mcp;
pub use sandbox::{Ingest, Sandbox};
pub use search::{EmbeddingsKind, Search};
pub use storage::{Retention, Storage};
pub use telemetry::Telemetry;

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
    // Over 120 lines on purpose: one `ensure!` per setting, section by section, each with the
    // message a person reads; there is no logic between them to name.
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
