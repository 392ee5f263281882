//! `aware` — the command-line client: an interactive chat with streamed text, tool activity, tables
//! and Approve/Deny prompts (Ctrl-C cancels the run; dropped connections resume on their own), and
//! commands for datasets, SQL and runs. `--json` prints machine-readable output for scripts, `--csv`
//! tables for spreadsheets (formula-safe).
//!
//! Everything printed for people goes through [`say!`]/[`note!`], which escape control characters:
//! the data (cells, column names, model text) may carry terminal escape sequences, and a terminal
//! must show them, never obey them.

mod admin;
mod audit;
mod conversations;
mod curation;
mod mcp_proxy;
mod render;

/// `println!` with control characters from the data escaped (see [`render::terminal_safe`]).
macro_rules! say {
    ($($arg:tt)*) => { println!("{}", crate::render::terminal_safe(&format!($($arg)*))) };
}
use say;

/// `eprintln!` with control characters from the data escaped.
macro_rules! note {
    ($($arg:tt)*) => { eprintln!("{}", crate::render::terminal_safe(&format!($($arg)*))) };
}
use note;

use anyhow::Context as _;
use aware_client::v1 as pb;
use aware_client::{AwareClient, StreamItem, StreamOptions};
use clap::{Parser, Subcommand};
use futures::StreamExt;
use pb::server_event::Payload as P;
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use tokio::signal::unix::{Signal, SignalKind, signal};

#[derive(Parser)]
#[command(
    name = "aware",
    version,
    about = "Talk to an aware server: chat with the assistant, manage datasets, run SQL"
)]
struct Cli {
    /// The server (gRPC), e.g. http://127.0.0.1:50051.
    #[arg(
        long,
        global = true,
        env = "AWARECLI_SERVER",
        hide_env_values = true,
        default_value = "http://127.0.0.1:50051"
    )]
    server: String,
    /// An API key, for servers in api-key mode.
    #[arg(long, global = true, env = "AWARECLI_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Machine-readable output.
    #[arg(long, global = true)]
    json: bool,
    /// Tables as CSV (`sql`, `datasets preview`): text that a spreadsheet would run as a formula
    /// (=, +, -, @, tab, CR first) gets a leading `'`.
    #[arg(long, global = true, conflicts_with = "json")]
    csv: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Chat with the assistant: one MESSAGE, or an interactive session when none is given.
    Chat {
        message: Option<String>,
        /// Continue this thread.
        #[arg(long)]
        thread: Option<String>,
        /// Approve every confirmation without asking (scripts).
        #[arg(long, conflicts_with = "no")]
        yes: bool,
        /// Deny every confirmation without asking (scripts).
        #[arg(long)]
        no: bool,
    },
    /// List, upload, preview, profile, rename, describe, refresh or delete datasets; save a
    /// query's result as one.
    Datasets {
        #[command(subcommand)]
        command: DatasetsCommand,
    },
    /// Run one read-only SQL query over your datasets. A query the server estimates to read more
    /// rows than it runs without asking is shown with its estimate and run only if you say yes.
    Sql {
        query: String,
        /// Rows to return (0: the server's default).
        #[arg(long, default_value_t = 0)]
        limit: u32,
        /// Run it whatever it reads, without asking.
        #[arg(long)]
        heavy: bool,
    },
    /// Inspect runs.
    Runs {
        #[command(subcommand)]
        command: RunsCommand,
    },
    /// Confirmations waiting for you (from any chat, or an MCP client's call): list them, or
    /// approve or deny one.
    Approvals {
        #[command(subcommand)]
        command: Option<ApprovalsCommand>,
    },
    /// Your conversations: list, show, rename, delete, or fork one at a past message to edit
    /// and resend it.
    Threads {
        #[command(subcommand)]
        command: conversations::ThreadsCommand,
    },
    /// What the assistant remembers about you: list, add, forget.
    Memory {
        #[command(subcommand)]
        command: conversations::MemoryCommand,
    },
    /// Rate a run's answer (a second rating replaces the first).
    Feedback {
        run_id: String,
        rating: conversations::Rating,
        /// Why, in a sentence.
        #[arg(default_value = "")]
        reason: String,
    },
    /// Tools you allowed to run without asking for a while: list them, or revoke one.
    Grants {
        #[command(subcommand)]
        command: conversations::GrantsCommand,
    },
    /// Verified queries: named questions answered with SQL you approved.
    Queries {
        #[command(subcommand)]
        command: curation::QueriesCommand,
    },
    /// Users and API keys (admins).
    Admin {
        #[command(subcommand)]
        command: admin::AdminCommand,
    },
    /// The audit log: who changed what, from where, newest first (an admin reads everyone's).
    Audit(audit::AuditArgs),
    /// Serve MCP on stdin/stdout for a desktop MCP client, relayed to this server's /mcp (the
    /// same port as --server, the same --token).
    Mcp,
}

#[derive(Subcommand)]
enum ApprovalsCommand {
    /// List what waits for an answer (the default).
    List,
    /// Approve a confirmation by its id.
    Approve {
        confirmation_id: String,
        /// Also let later calls of this tool on the same kind of resource run without asking
        /// for this many minutes (STANDARD confirmations only; at most 60).
        #[arg(long = "for", value_name = "MINUTES", value_parser = clap::value_parser!(u32).range(1..=60))]
        minutes: Option<u32>,
        /// Approve narrower arguments than asked, as JSON (e.g. fewer files to import); anything
        /// wider is refused.
        #[arg(long, value_name = "JSON")]
        edit: Option<String>,
    },
    /// Deny a confirmation by its id.
    Deny { confirmation_id: String },
}

#[derive(Subcommand)]
enum DatasetsCommand {
    /// List your datasets: table name, file, status (with the reason when a file failed), rows,
    /// columns and size.
    List,
    /// Upload a CSV, TSV, Parquet, JSON or NDJSON file.
    Upload { file: PathBuf },
    /// Show the first rows of a dataset (by table name, file name or id).
    Preview {
        name: String,
        #[arg(long, default_value_t = 10)]
        limit: u32,
    },
    /// Profile every column.
    Stats { name: String },
    /// Search the text of your datasets by words and meaning.
    Search {
        query: String,
        /// Only this dataset (table name or id).
        #[arg(long)]
        dataset: Option<String>,
        /// hybrid (default), lexical or vector.
        #[arg(long, default_value = "hybrid")]
        mode: String,
        #[arg(long, default_value_t = 10)]
        limit: u32,
    },
    /// Delete a dataset (asks first unless --yes).
    Delete {
        name: String,
        #[arg(long)]
        yes: bool,
    },
    #[command(flatten)]
    Edit(curation::EditCommand),
}

#[derive(Subcommand)]
enum RunsCommand {
    /// Your runs, newest first: when, what it came to, the question.
    List {
        /// Only runs that came to this: answered, asked-back, not-understood, denied, expired,
        /// cancelled or failed.
        #[arg(long)]
        outcome: Option<Outcome>,
        /// Only this conversation's runs.
        #[arg(long, default_value = "")]
        thread: String,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// A run's capsule: question, outcome, usage, data versions, SQL, tool calls.
    Show { run_id: String },
    /// A run's event log.
    Events { run_id: String },
    /// Compute a run's queries again over the data as it is now (no model) and show what changed
    /// since the answer: the rows added and removed.
    Rerun { run_id: String },
}

/// What a finished run came to, as `runs list --outcome` names it.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Outcome {
    Answered,
    AskedBack,
    NotUnderstood,
    Denied,
    Expired,
    Cancelled,
    Failed,
}

impl Outcome {
    fn pb(self) -> pb::RunOutcome {
        match self {
            Self::Answered => pb::RunOutcome::Answered,
            Self::AskedBack => pb::RunOutcome::AskedBack,
            Self::NotUnderstood => pb::RunOutcome::NotUnderstood,
            Self::Denied => pb::RunOutcome::Denied,
            Self::Expired => pb::RunOutcome::Expired,
            Self::Cancelled => pb::RunOutcome::Cancelled,
            Self::Failed => pb::RunOutcome::Failed,
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            let message = match e.downcast_ref::<tonic::Status>() {
                Some(s) => format!("{} ({:?})", s.message(), s.code()),
                None => format!("{e:#}"),
            };
            note!("aware: {message}");
            std::process::ExitCode::from(2)
        }
    }
}

/// How a table is printed.
#[derive(Clone, Copy, PartialEq)]
enum Output {
    Text,
    Json,
    Csv,
}

async fn run(cli: Cli) -> anyhow::Result<std::process::ExitCode> {
    let client = AwareClient::connect(&cli.server, cli.token.as_deref(), "cli").await?;
    let json = cli.json;
    let output = if cli.json {
        Output::Json
    } else if cli.csv {
        Output::Csv
    } else {
        Output::Text
    };
    match cli.command {
        Command::Chat { message, thread, yes, no } => {
            let decide = if yes {
                Decide::Approve
            } else if no {
                Decide::Deny
            } else {
                Decide::Ask
            };
            return chat(&client, message, thread.unwrap_or_default(), decide, json).await;
        }
        Command::Datasets { command } => datasets(&client, command, output).await?,
        Command::Sql { query, limit, heavy } => {
            let request = pb::ExecuteSqlRequest { sql: query, limit, run_heavy: heavy };
            let answer = match client.query().execute_sql(request.clone()).await {
                Err(status) if heavy_query(&status) => {
                    if !ask_once(&format!("{}. Run it anyway?", cost_question(&status)), "--heavy").await? {
                        note!("not run");
                        return Ok(std::process::ExitCode::from(1));
                    }
                    client.query().execute_sql(pb::ExecuteSqlRequest { run_heavy: true, ..request }).await?
                }
                answered => answered?,
            }
            .into_inner();
            let table = answer.table.unwrap_or_default();
            match output {
                Output::Json => say!(
                    "{}",
                    json!({"run_id": answer.run_id, "sql": answer.executed_sql, "rows": render::table_json(&table)})
                ),
                Output::Csv => print_csv(&render::table_csv(&table)),
                Output::Text => say!("{}", render::table_text(&table)),
            }
        }
        Command::Runs { command } => runs(&client, command, json).await?,
        Command::Approvals { command } => approvals(&client, command.unwrap_or(ApprovalsCommand::List), json).await?,
        Command::Threads { command } => conversations::threads(&client, command, json).await?,
        Command::Memory { command } => conversations::memory(&client, command, json).await?,
        Command::Feedback { run_id, rating, reason } => {
            conversations::feedback(&client, &run_id, rating, &reason, json).await?;
        }
        Command::Grants { command } => conversations::grants(&client, command, json).await?,
        Command::Audit(args) => audit::audit(&client, args, json).await?,
        Command::Queries { command } => curation::queries(&client, command, json).await?,
        Command::Admin { command } => admin::admin(&client, command, json).await?,
        // The gRPC connection above checked the server is there.
        Command::Mcp => mcp_proxy::serve(&mcp_proxy::endpoint(&cli.server), cli.token.as_deref()).await?,
    }
    Ok(std::process::ExitCode::SUCCESS)
}

async fn approvals(client: &AwareClient, command: ApprovalsCommand, json: bool) -> anyhow::Result<()> {
    let (id, decision) = match command {
        ApprovalsCommand::List => {
            let pending = client
                .chat()
                .list_pending_confirmations(pb::ListPendingConfirmationsRequest {})
                .await?
                .into_inner()
                .confirmations;
            if json {
                let items: Vec<_> = pending
                    .iter()
                    .map(|c| {
                        json!({"confirmation_id": c.confirmation_id, "run_id": c.run_id, "tool": c.tool_name,
                               "description": c.description, "expires_at": c.expires_at.map(|t| t.seconds),
                               "grantable": c.grantable})
                    })
                    .collect();
                say!("{}", json!(items));
            } else if pending.is_empty() {
                say!("Nothing waits for your approval.");
            } else {
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
                for c in &pending {
                    let left = c.expires_at.map_or(0, |t| (t.seconds.max(0) as u64).saturating_sub(now));
                    say!(
                        "{}  {}  {} (expires in {left} s; run {})",
                        c.confirmation_id,
                        c.tool_name,
                        c.description,
                        c.run_id
                    );
                }
            }
            return Ok(());
        }
        ApprovalsCommand::Approve { confirmation_id, minutes, edit } => (confirmation_id, Some((minutes, edit))),
        ApprovalsCommand::Deny { confirmation_id } => (confirmation_id, None),
    };
    let approved = decision.is_some();
    let (minutes, edit) = decision.unwrap_or_default();
    if let Some(edit) = &edit {
        serde_json::from_str::<serde_json::Value>(edit).context("--edit takes the arguments as JSON")?;
    }
    let answer = client
        .answer(pb::SubmitConfirmationRequest {
            confirmation_id: id.clone(),
            approved,
            scope: if minutes.is_some() { pb::ConfirmationScope::Session } else { pb::ConfirmationScope::Once }.into(),
            duration_seconds: minutes.unwrap_or(0) * 60,
            edited_arguments_json: edit.unwrap_or_default(),
        })
        .await?;
    let resolution = pb::ConfirmationResolution::try_from(answer.resolution).unwrap_or_default().as_str_name();
    if json {
        say!(
            "{}",
            json!({"confirmation_id": id, "run_id": answer.run_id, "resolution": resolution, "grant_id": answer.grant_id})
        );
    } else if answer.grant_id.is_empty() {
        say!("{} {id} (run {})", if approved { "Approved" } else { "Denied" }, answer.run_id);
    } else {
        say!(
            "Approved {id} (run {}), and allowed without asking for {} minutes: grant {}",
            answer.run_id,
            minutes.unwrap_or(0),
            answer.grant_id
        );
    }
    Ok(())
}

/// CSV as it is when it goes to a file or a pipe; escaped like the rest when it goes to a terminal.
fn print_csv(csv: &str) {
    if std::io::stdout().is_terminal() {
        print!("{}", render::terminal_safe(&csv.replace("\r\n", "\n")));
    } else {
        print!("{csv}");
    }
}

async fn datasets(client: &AwareClient, command: DatasetsCommand, output: Output) -> anyhow::Result<()> {
    let json = output == Output::Json;
    match command {
        DatasetsCommand::List => {
            let all = client.datasets().list_datasets(pb::ListDatasetsRequest::default()).await?.into_inner().datasets;
            if json {
                say!("{}", serde_json::Value::Array(all.iter().map(render::dataset_json).collect()));
            } else {
                say!("{}", render::datasets_text(&all));
            }
        }
        DatasetsCommand::Upload { file } => {
            let bytes = tokio::fs::read(&file).await.with_context(|| format!("cannot read {}", file.display()))?;
            let name = file.file_name().and_then(|n| n.to_str()).context("the file needs a UTF-8 name")?.to_owned();
            let bar = indicatif::ProgressBar::new(bytes.len() as u64);
            if json || !std::io::stderr().is_terminal() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
            }
            bar.set_style(
                indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.set_message(render::terminal_safe(&format!("uploading {name}")).into_owned());
            let progress = bar.clone();
            let dataset = client.upload(&name, bytes.into(), move |sent| progress.set_position(sent)).await?;
            bar.finish_and_clear();
            if json {
                say!("{}", render::dataset_json(&dataset));
            } else if dataset.status() == pb::DatasetStatus::Error {
                anyhow::bail!("{} was not loaded: {}", dataset.name, dataset.error);
            } else if matches!(dataset.format(), pb::DatasetFormat::Markdown | pb::DatasetFormat::Text) {
                say!(
                    "{} → document {} ({} passages, cited as {}::NNN; ask what it says)",
                    dataset.name,
                    dataset.table_name,
                    dataset.row_count,
                    dataset.table_name
                );
            } else {
                say!(
                    "{} → table {} ({} rows, {} columns)",
                    dataset.name,
                    dataset.table_name,
                    dataset.row_count,
                    dataset.column_count
                );
            }
        }
        DatasetsCommand::Preview { name, limit } => {
            let d = client.dataset(&name).await?;
            let rows = client
                .datasets()
                .preview_rows(pb::PreviewRowsRequest { dataset_id: d.id.clone(), limit })
                .await?
                .into_inner();
            let table = rows.table.unwrap_or_default();
            match output {
                Output::Json => say!("{}", render::table_json(&table)),
                Output::Csv => print_csv(&render::table_csv(&table)),
                Output::Text => say!("{} ({} rows in all)\n{}", d.table_name, d.row_count, render::table_text(&table)),
            }
        }
        DatasetsCommand::Stats { name } => {
            let d = client.dataset(&name).await?;
            let stats = client
                .datasets()
                .get_dataset_statistics(pb::GetDatasetStatisticsRequest { dataset_id: d.id.clone() })
                .await?
                .into_inner()
                .statistics
                .unwrap_or_default();
            if json {
                say!("{}", render::statistics_json(&stats));
            } else {
                say!("{}: {}", d.table_name, render::statistics_text(&stats));
            }
        }
        DatasetsCommand::Search { query, dataset, mode, limit } => {
            let req = pb::SearchDatasetsRequest { query, dataset_id: dataset.unwrap_or_default(), limit, mode };
            let found = client.datasets().search_datasets(req).await?.into_inner();
            let hits = pb::SearchHits {
                hits: found.hits,
                mode: found.mode,
                datasets_searched: found.datasets_searched,
                note: found.note,
                ..Default::default()
            };
            if json {
                say!("{}", render::search_json(&hits));
            } else if let Some(text) = render::rich_text(&pb::tool_result::Rich::SearchHits(hits)) {
                say!("{text}");
            }
        }
        DatasetsCommand::Delete { name, yes } => {
            let d = client.dataset(&name).await?;
            let what = format!("Delete the dataset {} ({} rows)? This cannot be undone.", d.table_name, d.row_count);
            if !yes && !ask_once(&what, "--yes").await? {
                anyhow::bail!("not deleted");
            }
            client.datasets().delete_dataset(pb::DeleteDatasetRequest { dataset_id: d.id.clone() }).await?;
            if json {
                say!("{}", json!({"deleted": d.id, "table_name": d.table_name}));
            } else {
                say!("Deleted {}.", d.table_name);
            }
        }
        DatasetsCommand::Edit(command) => curation::edit(client, command, json).await?,
    }
    Ok(())
}

async fn runs(client: &AwareClient, command: RunsCommand, json: bool) -> anyhow::Result<()> {
    match command {
        RunsCommand::Show { run_id } => {
            let run = client.runs().get_run(pb::GetRunRequest { run_id }).await?.into_inner().run.unwrap_or_default();
            let usage = run.usage.unwrap_or_default();
            if json {
                say!(
                    "{}",
                    json!({
                        "run_id": run.run_id, "thread_id": run.thread_id, "status": format!("{:?}", run.status()),
                        "outcome": render::enum_word(run.outcome().as_str_name(), "RUN_OUTCOME_"),
                        "question": run.question, "model": run.model, "final_text": run.final_text,
                        "compiled_sql": run.compiled_sql, "plan_json": run.plan_json, "result_summary": run.result_summary,
                        "datasets": run.datasets.iter().map(|d| json!({"table_name": d.table_name, "version_hash": d.version_hash})).collect::<Vec<_>>(),
                        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "model_calls": usage.model_calls},
                        "tool_calls": run.tool_calls.iter().map(|t| json!({"tool": t.tool_name, "arguments": t.arguments_json, "summary": t.llm_summary})).collect::<Vec<_>>(),
                        "feedback": conversations::feedback_json(run.feedback.as_ref()),
                    })
                );
                return Ok(());
            }
            say!(
                "run       {} ({}, {})",
                run.run_id,
                render::enum_word(run.kind().as_str_name(), "RUN_KIND_"),
                render::state_text(run.status(), run.outcome())
            );
            say!("question  {}", run.question);
            if !run.model.is_empty() {
                // Usage only when a model was used (the offline planner calls none).
                if usage.model_calls > 0 || usage.input_tokens + usage.output_tokens > 0 {
                    say!(
                        "model     {} · {} calls · {} in / {} out tokens",
                        run.model,
                        usage.model_calls,
                        usage.input_tokens,
                        usage.output_tokens
                    );
                } else {
                    say!("model     {}", run.model);
                }
            }
            for d in &run.datasets {
                say!("data      {} @ {}", d.table_name, d.version_hash.get(..12).unwrap_or(&d.version_hash));
            }
            if !run.compiled_sql.is_empty() {
                say!("sql       {}", run.compiled_sql);
            }
            for t in &run.tool_calls {
                say!(
                    "tool      {} {} → {}",
                    t.tool_name,
                    t.arguments_json,
                    t.llm_summary.lines().next().unwrap_or_default()
                );
            }
            if !run.final_text.is_empty() {
                say!("answer    {}", run.final_text);
            }
            if let Some(f) = &run.feedback {
                say!("feedback  {}", conversations::feedback_text(f));
            }
        }
        RunsCommand::List { outcome, thread, limit } => {
            let page = client
                .runs()
                .list_runs(pb::ListRunsRequest {
                    thread_id: thread,
                    page_size: limit.clamp(1, 100),
                    page_token: String::new(),
                    rating: 0,
                    outcome: outcome.map_or(pb::RunOutcome::Unspecified, Outcome::pb).into(),
                })
                .await?
                .into_inner();
            if json {
                let runs: Vec<_> = page
                    .runs
                    .iter()
                    .map(|r| {
                        json!({
                            "run_id": r.run_id, "thread_id": r.thread_id,
                            "kind": render::enum_word(r.kind().as_str_name(), "RUN_KIND_"),
                            "status": render::enum_word(r.status().as_str_name(), "RUN_STATUS_"),
                            "outcome": render::enum_word(r.outcome().as_str_name(), "RUN_OUTCOME_"),
                            "question": r.question, "created_at": r.created_at.map(|t| t.seconds),
                        })
                    })
                    .collect();
                say!("{}", serde_json::Value::Array(runs));
            } else if page.runs.is_empty() {
                say!("No runs{}.", if outcome.is_some() { " with that outcome" } else { " yet" });
            } else {
                for r in &page.runs {
                    say!(
                        "{}  {}  {:<14}  {}",
                        r.created_at.map_or_else(|| "-".to_owned(), |t| render::time_text(t.seconds)),
                        r.run_id,
                        render::state_text(r.status(), r.outcome()),
                        r.question.lines().next().unwrap_or_default()
                    );
                }
            }
        }
        RunsCommand::Rerun { run_id } => {
            let reruns = client.runs().rerun_query(pb::RerunQueryRequest { run_id }).await?.into_inner().queries;
            for r in &reruns {
                if json {
                    say!(
                        "{}",
                        json!({
                            "run_id": r.run_id, "sql": r.sql, "unchanged": r.result_sha256 == r.recorded_sha256,
                            "result_sha256": r.result_sha256, "recorded_sha256": r.recorded_sha256,
                            "added_rows": r.added_rows.iter().map(|row| row.values.iter().map(render::value_text).collect::<Vec<_>>()).collect::<Vec<_>>(),
                            "removed_rows": r.removed_rows.iter().map(|row| row.values.iter().map(render::value_text).collect::<Vec<_>>()).collect::<Vec<_>>(),
                            "unchanged_rows": r.unchanged_rows,
                        })
                    );
                } else {
                    say!("{}", render::rerun_text(r));
                }
            }
        }
        RunsCommand::Events { run_id } => {
            let page = client
                .runs()
                .list_run_events(pb::ListRunEventsRequest { run_id, after_seq: 0, limit: 0 })
                .await?
                .into_inner();
            for e in &page.events {
                let (kind, detail) = render::event_line(e);
                if json {
                    say!("{}", json!({"seq": e.seq, "kind": kind, "detail": detail}));
                } else {
                    say!("{:>4}  {kind:<22} {detail}", e.seq);
                }
            }
        }
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Decide {
    Approve,
    Deny,
    Ask,
}

/// The lines a person types, read on a thread of their own. The session loop and the
/// confirmation prompt both take their lines from here — nothing holds the stdin lock across a
/// prompt — and waiting for a line never blocks the runtime, so Ctrl-C, the run's stream and an
/// expiring confirmation are handled while the prompt waits.
struct Lines {
    rx: tokio::sync::mpsc::Receiver<std::io::Result<String>>,
}

impl Lines {
    fn stdin() -> Self {
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        std::thread::spawn(move || {
            for line in std::io::stdin().lines() {
                if tx.blocking_send(line).is_err() {
                    return;
                }
            }
        });
        Self { rx }
    }

    /// The next line; `None` at the end of input (Ctrl-D).
    async fn next(&mut self) -> Option<std::io::Result<String>> {
        self.rx.recv().await
    }
}

/// Whether the server refused a query for what it would read (`COST_CONFIRMATION_REQUIRED`).
fn heavy_query(status: &tonic::Status) -> bool {
    use tonic_types::StatusExt;
    status.get_details_error_info().is_some_and(|info| info.reason == "COST_CONFIRMATION_REQUIRED")
}

/// "This query would read about 62 million rows (2.1 GB)", from the refusal's estimate.
fn cost_question(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    let info = status.get_details_error_info();
    let figure =
        |key: &str| info.as_ref().and_then(|i| i.metadata.get(key)).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    format!(
        "This query would read about {} rows ({})",
        render::figure_text(figure("estimated_rows") as f64, "rows"),
        render::bytes_text(figure("estimated_bytes"))
    )
}

fn is_yes(line: &str) -> bool {
    matches!(line.trim().to_lowercase().as_str(), "y" | "yes")
}

/// A yes/no question outside a chat (`datasets delete`, a large `sql`); "no" without a terminal
/// to ask on, saying which `flag` answers yes in advance.
async fn ask_once(question: &str, flag: &str) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        note!("{question}\n(no terminal to ask on: treated as no; pass {flag} to approve)");
        return Ok(false);
    }
    eprint!("{} [y/N] ", render::terminal_safe(question));
    std::io::stderr().flush()?;
    let mut interrupts = signal(SignalKind::interrupt())?;
    let mut lines = Lines::stdin();
    tokio::select! {
        line = lines.next() => Ok(line.transpose()?.is_some_and(|l| is_yes(&l))),
        _ = interrupts.recv() => { eprintln!(); Ok(false) }
    }
}

async fn chat(
    client: &AwareClient,
    message: Option<String>,
    mut thread: String,
    decide: Decide,
    json: bool,
) -> anyhow::Result<std::process::ExitCode> {
    // Ctrl-C is ours from here on: it cancels a run, or leaves at the `you>` prompt.
    let mut interrupts = signal(SignalKind::interrupt())?;
    let interactive = std::io::stdin().is_terminal();
    // Lines come from stdin for a session, or for answering a prompt on a terminal.
    let mut lines = (message.is_none() || interactive).then(Lines::stdin);
    let mut session = Session { client, decide, json, interactive, interrupts: &mut interrupts };
    if let Some(text) = message {
        let status = session.one_run(&mut thread, &text, lines.as_mut()).await?;
        return Ok(if status == pb::RunStatus::Succeeded {
            std::process::ExitCode::SUCCESS
        } else {
            std::process::ExitCode::from(1)
        });
    }
    let Some(mut lines) = lines else { return Ok(std::process::ExitCode::SUCCESS) };
    if interactive {
        eprintln!("aware chat — ask about your data; Ctrl-C cancels a run (or leaves at the prompt), Ctrl-D leaves.");
    }
    loop {
        if interactive {
            eprint!("\nyou> ");
            std::io::stderr().flush()?;
        }
        let line = tokio::select! {
            line = lines.next() => line,
            _ = session.interrupts.recv() => {
                eprintln!();
                break;
            }
        };
        let Some(line) = line.transpose()? else { break };
        if line.trim().is_empty() {
            continue;
        }
        session.one_run(&mut thread, line.trim(), Some(&mut lines)).await?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

struct Session<'a> {
    client: &'a AwareClient,
    decide: Decide,
    json: bool,
    interactive: bool,
    interrupts: &'a mut Signal,
}

/// What the run loop waits for next.
enum Next {
    // Boxed: a stream item is large, and this enum is built on every turn of the loop.
    Item(Box<Option<Result<StreamItem, tonic::Status>>>),
    Line(Option<std::io::Result<String>>),
    Interrupt,
}

impl Session<'_> {
    /// Sends one message and shows its run to the end; a confirmation is asked about while the
    /// run's events keep arriving (an expiry or an answer from elsewhere ends the question).
    async fn one_run(
        &mut self,
        thread: &mut String,
        text: &str,
        mut lines: Option<&mut Lines>,
    ) -> anyhow::Result<pb::RunStatus> {
        let client = self.client;
        let json = self.json;
        let sent = client.send_message(thread, text, "").await?;
        thread.clone_from(&sent.thread_id);
        let mut stream = client.run_stream(&sent.run_id, StreamOptions::default());
        let mut text_open = false;
        let mut cancelled = false;
        // The confirmation the prompt is asking about, and whether it may be allowed for a while.
        let mut asking: Option<(String, bool)> = None;
        // The clarification the prompt is asking about, and its options' values.
        let mut choosing: Option<(String, Vec<String>)> = None;
        // The confirmations this run showed a card for (the others a session grant answered).
        let mut shown: Vec<String> = Vec::new();
        // The passages of documents this run retrieved, for its Sources.
        let mut passages: Vec<pb::KnowledgeChunk> = Vec::new();
        loop {
            let answer = async {
                match (asking.is_some() || choosing.is_some(), lines.as_deref_mut()) {
                    (true, Some(lines)) => lines.next().await,
                    _ => std::future::pending().await,
                }
            };
            let next = tokio::select! {
                item = stream.next() => Next::Item(Box::new(item)),
                line = answer => Next::Line(line),
                _ = self.interrupts.recv(), if !cancelled => Next::Interrupt,
            };
            let item = match next {
                Next::Interrupt => {
                    cancelled = true;
                    asking = None;
                    choosing = None;
                    eprintln!("\n(cancelling…)");
                    client.cancel(&sent.run_id).await?;
                    continue;
                }
                Next::Line(line) => {
                    if let Some((id, options)) = choosing.take() {
                        // "2" picks the second option, "2!" also keeps it as a rule; anything else skips.
                        let line = line.transpose()?.unwrap_or_default();
                        let said = line.trim();
                        let remember = said.ends_with('!');
                        let picked = said.trim_end_matches('!').trim().parse::<usize>().ok();
                        let choice = picked.and_then(|n| options.get(n.wrapping_sub(1)));
                        client.clarify(&id, choice.map(String::as_str), remember).await?;
                        match choice {
                            Some(c) => note!("→ {}{}", c, if remember { " (kept as a rule)" } else { "" }),
                            None => note!("→ none of these"),
                        }
                        continue;
                    }
                    let Some((id, grantable)) = asking.take() else { continue };
                    // End of input at the prompt is a "no", like an empty answer.
                    let line = line.transpose()?.unwrap_or_default();
                    let reply = if grantable && line.trim().eq_ignore_ascii_case("a") {
                        Reply::ForAWhile
                    } else if is_yes(&line) {
                        Reply::Yes
                    } else {
                        Reply::No
                    };
                    self.answer(&id, reply).await?;
                    continue;
                }
                Next::Item(item) => *item,
            };
            let Some(item) = item else { anyhow::bail!("the run's stream ended without RunCompleted") };
            let event = match item? {
                StreamItem::Event(e) => e,
                StreamItem::Heartbeat(_) => continue,
                StreamItem::Reconnecting { attempt, .. } => {
                    note!("(connection lost; reconnecting, attempt {attempt}…)");
                    continue;
                }
            };
            if json {
                let (kind, detail) = render::event_line(&event);
                say!("{}", json!({"run_id": event.run_id, "seq": event.seq, "kind": kind, "detail": detail}));
            }
            match event.payload {
                Some(P::TextDelta(d)) if !json => {
                    print!("{}", render::terminal_safe(&d.delta));
                    std::io::stdout().flush()?;
                    text_open = true;
                }
                Some(P::TextEnded(_)) if text_open && !json => {
                    println!();
                    text_open = false;
                }
                Some(P::ToolCallStarted(c)) if !json => note!("· {}…", c.title),
                Some(P::ToolResult(r)) if !json => {
                    if r.is_error {
                        note!("✗ {}: {}", r.tool_name, r.llm_summary);
                    } else {
                        note!("✓ {} ({} ms)", r.tool_name, r.duration_ms);
                        if let Some(pb::tool_result::Rich::Knowledge(k)) = &r.rich {
                            passages.extend(k.chunks.iter().cloned());
                        }
                        if let Some(text) = r.rich.as_ref().and_then(render::rich_text) {
                            say!("{text}");
                        }
                        if let (Some(chart), Some(pb::tool_result::Rich::Table(t))) = (&r.chart, &r.rich)
                            && let Some(text) = render::chart_text(chart, t)
                        {
                            say!("{text}");
                        }
                    }
                }
                Some(P::Grounding(g)) if !json => {
                    if let Some(check) = &g.citations {
                        if text_open {
                            println!();
                            text_open = false;
                        }
                        say!("{}", render::sources_text(check, &passages));
                    }
                }
                Some(P::ToolDenied(d)) if !json => note!("⊘ {}: {}", d.tool_name, d.reason),
                Some(P::MemorySaved(m)) if !json => note!("★ remembered: {}", m.text),
                Some(P::MemoryForgotten(m)) if !json => note!("☆ forgotten: {}", m.text),
                Some(P::ClarificationRequired(c)) => {
                    if text_open {
                        println!();
                        text_open = false;
                    }
                    let mut prompt = render::terminal_safe(&c.question).into_owned();
                    for (i, o) in c.options.iter().enumerate() {
                        prompt.push_str(&format!("\n  {}. {}", i + 1, render::terminal_safe(&o.label)));
                    }
                    if self.interactive && lines.is_some() {
                        eprint!(
                            "{prompt}\nChoose 1–{} (add ! to keep it as a rule; Enter: none of these) ",
                            c.options.len()
                        );
                        std::io::stderr().flush()?;
                        choosing =
                            Some((c.clarification_id.clone(), c.options.iter().map(|o| o.value.clone()).collect()));
                    } else {
                        note!("{prompt}\n(no terminal to ask on: not answered; ask again naming the column)");
                        client.clarify(&c.clarification_id, None, false).await?;
                    }
                }
                Some(P::ClarificationResolved(r))
                    if choosing.as_ref().is_some_and(|(id, _)| *id == r.clarification_id) =>
                {
                    choosing = None;
                    note!("\n(no longer waiting for an answer: {})", resolution_text(r.resolution()));
                }
                Some(P::ConfirmationRequired(c)) => {
                    shown.push(c.confirmation_id.clone());
                    let elevated = c.tier() == pb::ConfirmationTier::Elevated;
                    let question = format!("{}{}", if elevated { "⚠ CAUTION: " } else { "" }, c.description);
                    match self.decide {
                        Decide::Approve | Decide::Deny => {
                            let approved = matches!(self.decide, Decide::Approve);
                            if !json {
                                note!("{question} → {}", if approved { "approved" } else { "denied" });
                            }
                            self.answer(&c.confirmation_id, if approved { Reply::Yes } else { Reply::No }).await?;
                        }
                        Decide::Ask if self.interactive && lines.is_some() => {
                            if text_open {
                                println!();
                                text_open = false;
                            }
                            let choices =
                                if c.grantable { "[y/N, or a: yes, and allow for 5 minutes]" } else { "[y/N]" };
                            eprint!("{}\nApprove? {choices} ", render::terminal_safe(&question));
                            std::io::stderr().flush()?;
                            asking = Some((c.confirmation_id.clone(), c.grantable));
                        }
                        Decide::Ask => {
                            note!("{question}\n(no terminal to ask on: treated as no; pass --yes to approve)");
                            self.answer(&c.confirmation_id, Reply::No).await?;
                        }
                    }
                }
                Some(P::ConfirmationResolved(r))
                    if !json && !r.grant_id.is_empty() && !shown.contains(&r.confirmation_id) =>
                {
                    note!("(allowed without asking by your session grant {})", r.grant_id);
                }
                Some(P::ConfirmationResolved(r)) if asking.as_ref().is_some_and(|(id, _)| *id == r.confirmation_id) => {
                    // Decided without this prompt: it expired, or someone answered elsewhere.
                    asking = None;
                    note!("\n(no longer waiting for an answer: {})", resolution_text(r.resolution()));
                }
                Some(P::RunCompleted(done)) => {
                    if text_open && !json {
                        println!();
                    }
                    let status = done.status();
                    let answered = matches!(done.outcome(), pb::RunOutcome::Answered | pb::RunOutcome::Unspecified);
                    if (status != pb::RunStatus::Succeeded || !answered) && !json {
                        let why = done.error.as_ref().map(|e| format!(": {}", e.message)).unwrap_or_default();
                        note!("(run {}{why})", render::state_text(status, done.outcome()));
                    }
                    return Ok(status);
                }
                _ => {}
            }
        }
    }

    async fn answer(&self, confirmation_id: &str, reply: Reply) -> anyhow::Result<()> {
        let approved = !matches!(reply, Reply::No);
        let scope = if matches!(reply, Reply::ForAWhile) {
            pb::ConfirmationScope::Session
        } else {
            pb::ConfirmationScope::Once
        };
        let req = pb::SubmitConfirmationRequest {
            confirmation_id: confirmation_id.into(),
            approved,
            scope: scope.into(),
            duration_seconds: 0, // the server's default: 5 minutes
            edited_arguments_json: String::new(),
        };
        let answer = self.client.answer(req).await?;
        let wanted = if approved { pb::ConfirmationResolution::Approved } else { pb::ConfirmationResolution::Denied };
        if answer.resolution() == wanted {
            if !self.json && matches!(self.decide, Decide::Ask) && self.interactive {
                let how = match reply {
                    Reply::Yes => "approved".to_owned(),
                    Reply::ForAWhile => {
                        format!("approved, and allowed without asking for 5 minutes (grant {})", answer.grant_id)
                    }
                    Reply::No => "denied — nothing changed".to_owned(),
                };
                eprintln!("→ {}", render::terminal_safe(&how));
            }
        } else {
            note!("(already decided: {})", resolution_text(answer.resolution()));
        }
        Ok(())
    }
}

/// A person's answer to a confirmation.
#[derive(Clone, Copy)]
enum Reply {
    Yes,
    No,
    /// Yes, and the same tool on the same kind of resource runs without asking for 5 minutes.
    ForAWhile,
}

fn resolution_text(r: pb::ConfirmationResolution) -> &'static str {
    match r {
        pb::ConfirmationResolution::Approved => "approved",
        pb::ConfirmationResolution::Denied => "denied — nothing changed",
        pb::ConfirmationResolution::Expired => "expired — nothing changed",
        pb::ConfirmationResolution::Cancelled => "cancelled — nothing changed",
        pb::ConfirmationResolution::Superseded => "superseded — nothing changed",
        pb::ConfirmationResolution::Unspecified => "unknown",
    }
}
