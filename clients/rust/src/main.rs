//! `aware` — the command-line client: an interactive chat with streamed text, tool activity, tables
//! and Approve/Deny prompts (Ctrl-C cancels the run; dropped connections resume on their own), and
//! commands for datasets, SQL and runs. `--json` prints machine-readable output for scripts.

mod render;

use anyhow::Context as _;
use aware_client::v1 as pb;
use aware_client::{AwareClient, StreamItem, StreamOptions};
use clap::{Parser, Subcommand};
use futures::StreamExt;
use pb::server_event::Payload as P;
use serde_json::json;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "aware",
    version,
    about = "Talk to an aware server: chat with the assistant, manage datasets, run SQL"
)]
struct Cli {
    /// The server (gRPC), e.g. http://127.0.0.1:50051.
    #[arg(long, global = true, env = "AWARECLI_SERVER", default_value = "http://127.0.0.1:50051")]
    server: String,
    /// An API key, for servers in api-key mode.
    #[arg(long, global = true, env = "AWARECLI_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Machine-readable output.
    #[arg(long, global = true)]
    json: bool,
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
    /// List, upload, preview, profile or delete datasets.
    Datasets {
        #[command(subcommand)]
        command: DatasetsCommand,
    },
    /// Run one read-only SQL query over your datasets.
    Sql {
        query: String,
        /// Rows to return (0: the server's default).
        #[arg(long, default_value_t = 0)]
        limit: u32,
    },
    /// Inspect runs.
    Runs {
        #[command(subcommand)]
        command: RunsCommand,
    },
}

#[derive(Subcommand)]
enum DatasetsCommand {
    List,
    /// Upload a CSV, TSV, Parquet, JSON or NDJSON file.
    Upload {
        file: PathBuf,
    },
    /// Show the first rows of a dataset (by table name, file name or id).
    Preview {
        name: String,
        #[arg(long, default_value_t = 10)]
        limit: u32,
    },
    /// Profile every column.
    Stats {
        name: String,
    },
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
}

#[derive(Subcommand)]
enum RunsCommand {
    /// A run's capsule: question, status, usage, data versions, SQL, tool calls.
    Show { run_id: String },
    /// A run's event log.
    Events { run_id: String },
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
            eprintln!("aware: {message}");
            std::process::ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<std::process::ExitCode> {
    let client = AwareClient::connect(&cli.server, cli.token.as_deref(), "cli").await?;
    let json = cli.json;
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
        Command::Datasets { command } => datasets(&client, command, json).await?,
        Command::Sql { query, limit } => {
            let answer = client.query().execute_sql(pb::ExecuteSqlRequest { sql: query, limit }).await?.into_inner();
            let table = answer.table.unwrap_or_default();
            if json {
                println!(
                    "{}",
                    json!({"run_id": answer.run_id, "sql": answer.executed_sql, "rows": render::table_json(&table)})
                );
            } else {
                println!("{}", render::table_text(&table));
            }
        }
        Command::Runs { command } => runs(&client, command, json).await?,
    }
    Ok(std::process::ExitCode::SUCCESS)
}

async fn datasets(client: &AwareClient, command: DatasetsCommand, json: bool) -> anyhow::Result<()> {
    match command {
        DatasetsCommand::List => {
            let all = client.datasets().list_datasets(pb::ListDatasetsRequest::default()).await?.into_inner().datasets;
            if json {
                println!("{}", serde_json::Value::Array(all.iter().map(render::dataset_json).collect()));
            } else {
                println!("{}", render::datasets_text(&all));
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
            bar.set_message(format!("uploading {name}"));
            let progress = bar.clone();
            let dataset = client.upload(&name, bytes.into(), move |sent| progress.set_position(sent)).await?;
            bar.finish_and_clear();
            if json {
                println!("{}", render::dataset_json(&dataset));
            } else {
                println!(
                    "{} → table {} ({} rows, {} columns)",
                    dataset.name, dataset.table_name, dataset.row_count, dataset.column_count
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
            if json {
                println!("{}", render::table_json(&table));
            } else {
                println!("{} ({} rows in all)\n{}", d.table_name, d.row_count, render::table_text(&table));
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
                println!("{}", render::statistics_json(&stats));
            } else {
                println!("{}: {}", d.table_name, render::statistics_text(&stats));
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
                println!("{}", render::search_json(&hits));
            } else if let Some(text) = render::rich_text(&pb::tool_result::Rich::SearchHits(hits)) {
                println!("{text}");
            }
        }
        DatasetsCommand::Delete { name, yes } => {
            let d = client.dataset(&name).await?;
            let what = format!("Delete the dataset {} ({} rows)? This cannot be undone.", d.table_name, d.row_count);
            if !yes && !ask(&what)? {
                anyhow::bail!("not deleted");
            }
            client.datasets().delete_dataset(pb::DeleteDatasetRequest { dataset_id: d.id.clone() }).await?;
            if json {
                println!("{}", json!({"deleted": d.id, "table_name": d.table_name}));
            } else {
                println!("Deleted {}.", d.table_name);
            }
        }
    }
    Ok(())
}

async fn runs(client: &AwareClient, command: RunsCommand, json: bool) -> anyhow::Result<()> {
    match command {
        RunsCommand::Show { run_id } => {
            let run = client.runs().get_run(pb::GetRunRequest { run_id }).await?.into_inner().run.unwrap_or_default();
            let usage = run.usage.unwrap_or_default();
            if json {
                println!(
                    "{}",
                    json!({
                        "run_id": run.run_id, "thread_id": run.thread_id, "status": format!("{:?}", run.status()),
                        "question": run.question, "model": run.model, "final_text": run.final_text,
                        "compiled_sql": run.compiled_sql, "plan_json": run.plan_json, "result_summary": run.result_summary,
                        "datasets": run.datasets.iter().map(|d| json!({"table_name": d.table_name, "version_hash": d.version_hash})).collect::<Vec<_>>(),
                        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "model_calls": usage.model_calls},
                        "tool_calls": run.tool_calls.iter().map(|t| json!({"tool": t.tool_name, "arguments": t.arguments_json, "summary": t.llm_summary})).collect::<Vec<_>>(),
                    })
                );
                return Ok(());
            }
            println!("run       {} ({:?}, {:?})", run.run_id, run.kind(), run.status());
            println!("question  {}", run.question);
            if !run.model.is_empty() {
                println!(
                    "model     {} · {} calls · {} in / {} out tokens",
                    run.model, usage.model_calls, usage.input_tokens, usage.output_tokens
                );
            }
            for d in &run.datasets {
                println!("data      {} @ {}", d.table_name, d.version_hash.get(..12).unwrap_or(&d.version_hash));
            }
            if !run.compiled_sql.is_empty() {
                println!("sql       {}", run.compiled_sql);
            }
            for t in &run.tool_calls {
                println!(
                    "tool      {} {} → {}",
                    t.tool_name,
                    t.arguments_json,
                    t.llm_summary.lines().next().unwrap_or_default()
                );
            }
            if !run.final_text.is_empty() {
                println!("answer    {}", run.final_text);
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
                    println!("{}", json!({"seq": e.seq, "kind": kind, "detail": detail}));
                } else {
                    println!("{:>4}  {kind:<22} {detail}", e.seq);
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

/// A yes/no question on the terminal; "no" when there is no terminal to ask on.
fn ask(question: &str) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        eprintln!("{question}\n(no terminal to ask on: treated as no; pass --yes to approve)");
        return Ok(false);
    }
    eprint!("{question} [y/N] ");
    std::io::stderr().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(matches!(line.trim().to_lowercase().as_str(), "y" | "yes"))
}

async fn chat(
    client: &AwareClient,
    message: Option<String>,
    mut thread: String,
    decide: Decide,
    json: bool,
) -> anyhow::Result<std::process::ExitCode> {
    if let Some(text) = message {
        let (status, _) = one_run(client, &mut thread, &text, decide, json).await?;
        return Ok(if status == pb::RunStatus::Succeeded {
            std::process::ExitCode::SUCCESS
        } else {
            std::process::ExitCode::from(1)
        });
    }
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        eprintln!("aware chat — ask about your data; Ctrl-C cancels a run, Ctrl-D leaves.");
    }
    let mut lines = std::io::stdin().lock().lines();
    loop {
        if interactive {
            eprint!("\nyou> ");
            std::io::stderr().flush()?;
        }
        let Some(line) = lines.next().transpose()? else { break };
        if line.trim().is_empty() {
            continue;
        }
        one_run(client, &mut thread, line.trim(), decide, json).await?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// Sends one message and shows its run to the end.
async fn one_run(
    client: &AwareClient,
    thread: &mut String,
    text: &str,
    decide: Decide,
    json: bool,
) -> anyhow::Result<(pb::RunStatus, String)> {
    let sent = client.send_message(thread, text, "").await?;
    thread.clone_from(&sent.thread_id);
    let mut stream = client.run_stream(&sent.run_id, StreamOptions::default());
    let mut text_open = false;
    let mut cancelled = false;
    let mut final_text = String::new();
    loop {
        let item = tokio::select! {
            item = stream.next() => item,
            _ = tokio::signal::ctrl_c(), if !cancelled => {
                cancelled = true;
                eprintln!("\n(cancelling…)");
                client.cancel(&sent.run_id).await?;
                continue;
            }
        };
        let Some(item) = item else { anyhow::bail!("the run's stream ended without RunCompleted") };
        let event = match item? {
            StreamItem::Event(e) => e,
            StreamItem::Heartbeat(_) => continue,
            StreamItem::Reconnecting { attempt, .. } => {
                eprintln!("(connection lost; reconnecting, attempt {attempt}…)");
                continue;
            }
        };
        if json {
            let (kind, detail) = render::event_line(&event);
            println!("{}", json!({"run_id": event.run_id, "seq": event.seq, "kind": kind, "detail": detail}));
        }
        match event.payload {
            Some(P::TextDelta(d)) if !json => {
                print!("{}", d.delta);
                std::io::stdout().flush()?;
                text_open = true;
            }
            Some(P::TextEnded(_)) if text_open && !json => {
                println!();
                text_open = false;
            }
            Some(P::ToolCallStarted(c)) if !json => eprintln!("· {}…", c.title),
            Some(P::ToolResult(r)) if !json => {
                if r.is_error {
                    eprintln!("✗ {}: {}", r.tool_name, r.llm_summary);
                } else {
                    eprintln!("✓ {} ({} ms)", r.tool_name, r.duration_ms);
                    if let Some(text) = r.rich.as_ref().and_then(render::rich_text) {
                        println!("{text}");
                    }
                }
            }
            Some(P::ToolDenied(d)) if !json => eprintln!("⊘ {}: {}", d.tool_name, d.reason),
            Some(P::ConfirmationRequired(c)) => {
                let elevated = c.tier() == pb::ConfirmationTier::Elevated;
                let question = format!("{}{}", if elevated { "⚠ CAUTION: " } else { "" }, c.description);
                let approved = match decide {
                    Decide::Approve => true,
                    Decide::Deny => false,
                    Decide::Ask => ask(&format!("{question}\nApprove?"))?,
                };
                if !json {
                    eprintln!("{question} → {}", if approved { "approved" } else { "denied" });
                }
                let answer = client.confirm(&c.confirmation_id, approved).await?;
                if answer.resolution()
                    != if approved { pb::ConfirmationResolution::Approved } else { pb::ConfirmationResolution::Denied }
                {
                    eprintln!("(already decided: {:?})", answer.resolution());
                }
            }
            Some(P::RunCompleted(done)) => {
                if text_open && !json {
                    println!();
                }
                final_text.clone_from(&done.final_text);
                let status = done.status();
                if status != pb::RunStatus::Succeeded && !json {
                    let why = done.error.map(|e| format!(": {}", e.message)).unwrap_or_default();
                    eprintln!("(run {:?}{why})", status);
                }
                return Ok((status, final_text));
            }
            _ => {}
        }
    }
}
