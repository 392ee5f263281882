//! `aware-server`: `serve` runs the server; `users` manages users and API keys on a data dir
//! (safe while a server runs on it); `migrate` applies the store's migrations; `gc` applies
//! retention; `worker` is the entry point of sandboxed worker processes.

use anyhow::Context;
use aware_domain::auth::Role;
use aware_server::config::{AuthMode, Config, DeploymentMode, FilesRoot, LogFormat, Overrides};
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// mimalloc instead of glibc's malloc, in the server and its worker processes: a run's many
/// small, short-lived allocations across threads cost several times less (BENCHMARKS.md §11).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "aware-server", version, about = "aware: a situationally aware AI data assistant, served over gRPC")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (gRPC, grpc-web, health and reflection on one port).
    Serve(ServeArgs),
    /// Manage users and their API keys.
    Users {
        #[command(subcommand)]
        command: UsersCommand,
    },
    /// Delete what the retention settings let go: the event logs and traces of runs that ended
    /// long enough ago, old audit entries. Never what a run that has not ended needs.
    Gc {
        #[command(flatten)]
        common: Common,
        /// Keep the events of runs that ended within this many days (default: `retention.events_days`).
        #[arg(long, value_name = "DAYS")]
        events_days: Option<u32>,
        /// Keep the trace spans of runs that ended within this many days (default: `retention.traces_days`).
        #[arg(long, value_name = "DAYS")]
        traces_days: Option<u32>,
        /// Keep audit entries of the last this many days (default: `retention.audit_days`).
        #[arg(long, value_name = "DAYS")]
        audit_days: Option<u32>,
    },
    /// Apply the metadata store's pending migrations and exit: SQLite in the data dir, or the
    /// PostgreSQL database at `storage.url` (once for a fleet of replicas; `serve` applies them too,
    /// under PostgreSQL's migration lock when several start at once).
    Migrate {
        #[command(flatten)]
        common: Common,
    },
    /// Connect to an MCP server at URL (Streamable HTTP) as aware connects to a registered one,
    /// list its tools and call each with the simplest arguments: aware's MCP client on its own
    /// (the MCP conformance suite's client scenarios launch it).
    McpProbe { url: String },
    /// Internal: a sandboxed worker process started by the server.
    #[command(hide = true)]
    Worker {
        #[arg(value_enum)]
        kind: WorkerKind,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum WorkerKind {
    Ingest,
    Sql,
    Files,
}

#[derive(Args, Default)]
struct Common {
    /// Configuration file (default: ./aware.toml when present).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Folder for the database, datasets and staging.
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
}

#[derive(Args)]
struct ServeArgs {
    #[command(flatten)]
    common: Common,
    /// Address to listen on, HOST:PORT (port 0 picks a free port).
    #[arg(long, value_name = "HOST:PORT")]
    listen: Option<String>,
    /// Serve /metrics (Prometheus), /healthz and /readyz on this HOST:PORT (off by default).
    #[arg(long, value_name = "HOST:PORT")]
    admin_listen: Option<String>,
    /// How callers authenticate.
    #[arg(long, value_enum)]
    auth: Option<AuthMode>,
    /// local (file tools allowed) or connected (no file tools).
    #[arg(long, value_parser = deployment_mode)]
    mode: Option<DeploymentMode>,
    /// Log format on stderr.
    #[arg(long, value_enum)]
    log_format: Option<LogFormat>,
    /// Do not seed sample datasets into a new data dir.
    #[arg(long)]
    no_samples: bool,
    /// Serve the built web UI from this folder on the same port.
    #[arg(long)]
    web_dir: Option<PathBuf>,
    /// Approve a folder for the file tools, as NAME=PATH (repeatable; local mode only).
    #[arg(long = "files-root", value_name = "NAME=PATH", value_parser = files_root)]
    files_roots: Vec<FilesRoot>,
}

fn deployment_mode(raw: &str) -> Result<DeploymentMode, String> {
    DeploymentMode::parse(raw).ok_or_else(|| "expected local or connected".to_owned())
}

fn files_root(raw: &str) -> Result<FilesRoot, String> {
    let (name, path) = raw.split_once('=').ok_or("expected NAME=PATH, e.g. downloads=/home/ana/Downloads")?;
    Ok(FilesRoot { name: name.trim().to_owned(), path: PathBuf::from(path) })
}

#[derive(Subcommand)]
enum UsersCommand {
    /// Create a user and print their API token (once, as the last word of the output).
    Add {
        #[command(flatten)]
        common: Common,
        /// Display name.
        #[arg(long)]
        name: String,
        /// viewer, analyst or admin.
        #[arg(long)]
        role: Role,
        /// Make the token expire after this many days.
        #[arg(long, value_name = "DAYS")]
        expires_in_days: Option<u32>,
    },
    /// List users.
    List {
        #[command(flatten)]
        common: Common,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Worker { kind } = cli.command {
        // Workers are plain synchronous processes: no runtime, no logging setup, no config.
        let code = match kind {
            WorkerKind::Ingest => aware_sandbox::ingest::worker_main(),
            WorkerKind::Sql => aware_sandbox::sql_worker::worker_main(),
            WorkerKind::Files => aware_sandbox::files::worker_main(),
        };
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("aware-server: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(dispatch(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aware-server: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn load(common: &Common, mut overrides: Overrides) -> anyhow::Result<Config> {
    overrides.data_dir = common.data_dir.clone();
    Config::load(common.config.as_deref(), &overrides)
}

async fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve(args).await,
        Command::Users { command: UsersCommand::Add { common, name, role, expires_in_days } } => {
            let config = load(&common, Overrides::default())?;
            let store = aware_server::server::open_store(&config).await?;
            let expires_at = expires_in_days.map(|d| chrono::Utc::now() + chrono::Duration::days(d.into()));
            let (user, token) = aware_server::auth::add_user(&store, &name, role, expires_at)
                .await
                .map_err(|e| anyhow::anyhow!("{}", e.message))?;
            println!("Created user {} ({}) with id {}.", user.name, user.role, user.id);
            if let Some(t) = expires_at {
                println!("The token expires at {}.", t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
            }
            println!("Send it as `authorization: Bearer <token>`. It is shown only once:");
            println!("{token}");
            Ok(())
        }
        Command::Migrate { common } => {
            let config = load(&common, Overrides::default())?;
            aware_server::server::open_store(&config).await?;
            let place = match config.storage.redacted_url() {
                Some(url) => format!("PostgreSQL at {url}"),
                None => format!("SQLite at {}", aware_server::server::database_path(&config).display()),
            };
            println!("The metadata store ({place}) is at the current schema.");
            Ok(())
        }
        Command::McpProbe { url } => {
            for line in aware_mcp::probe(&url).await.map_err(|e| anyhow::anyhow!("{}", e.message))? {
                println!("{line}");
            }
            Ok(())
        }
        Command::Gc { common, events_days, traces_days, audit_days } => {
            let config = load(&common, Overrides::default())?;
            let store = aware_server::server::open_store(&config).await?;
            let retention = &config.retention;
            let before = |days: Option<u32>| days.map(|d| chrono::Utc::now() - chrono::Duration::days(i64::from(d)));
            let report = store
                .collect_garbage(
                    before(events_days.or(retention.events_days)),
                    before(traces_days.or(retention.traces_days)),
                    before(audit_days.or(retention.audit_days)),
                )
                .await?;
            println!(
                "Deleted {} events and {} trace spans of runs that ended, and {} audit entries.",
                report.events, report.spans, report.audit
            );
            Ok(())
        }
        Command::Users { command: UsersCommand::List { common } } => {
            let config = load(&common, Overrides::default())?;
            let store = aware_server::server::open_store(&config).await?;
            let users = aware_domain::ports::Users::list_users(&store).await?;
            for u in users {
                println!(
                    "{}\t{}\t{}\t{}",
                    u.id,
                    u.role,
                    u.name,
                    u.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                );
            }
            Ok(())
        }
        Command::Worker { .. } => unreachable!("handled before the runtime starts"),
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let overrides = Overrides {
        listen: args.listen,
        admin_listen: args.admin_listen,
        auth: args.auth,
        mode: args.mode,
        log_format: args.log_format,
        seed_samples: args.no_samples.then_some(false),
        web_dir: args.web_dir,
        files_roots: args.files_roots,
        ..Overrides::default()
    };
    let config = load(&args.common, overrides)?;
    let telemetry = aware_server::telemetry::init(&config)?;
    let served = serve_until_signal(config).await;
    // The spans of the last moments (the shutdown itself included) go out before the exit.
    let _ = tokio::task::spawn_blocking(move || telemetry.shutdown()).await;
    served
}

async fn serve_until_signal(config: Config) -> anyhow::Result<()> {
    let addr = config.listen_addr()?;
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    let serves_web_app = config.web_dir.is_some();
    aware_server::server::run(config, listener, shutdown_signal()?, |bound| {
        if let Some(admin) = bound.admin {
            println!("aware-server admin listening on {admin}");
        }
        println!("aware-server listening on {}", bound.api);
        if serves_web_app {
            println!("aware-server web app at http://{}/", bound.api);
        }
        let _ = std::io::stdout().flush();
    })
    .await?;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves on Ctrl-C (SIGINT) or SIGTERM. The handlers are installed when this is called —
/// before the server says it is listening — so a signal sent as soon as that line appears stops it
/// gracefully instead of killing it.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    let mut terminate = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        tracing::info!("shutting down");
    })
}
