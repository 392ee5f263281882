//! The peer scenario of `../shared/bench/langgraph` run on aware, over real gRPC.
//!
//! One run = a `Chat` call carrying the user's question → the scripted model calls
//! `run_sql_query` with the peer's GROUP BY over a 1,000-row `sales` table (uploaded as a dataset,
//! executed in aware's real SQL sandbox worker) → the result goes back to the model → the answer
//! streams in 20 text chunks → `RunCompleted`. Every event is appended to the run's log (SQLite,
//! or PostgreSQL with `--store postgres`) before it is sent, as always (the peer is measured with `stream_resumable=true` for the same
//! reason).
//!
//! Measured per run, from the moment the call is made: TTFE = first run event (`RunStarted`, the
//! peer's `metadata`), TTFT = first answer chunk, TTC = `RunCompleted`. A run counts as ok only
//! when the tool succeeded, all 20 chunks arrived and the run completed. Per level: runs/s, the
//! percentiles, and the CPU and RSS of the server process *and its sandbox workers*. Levels,
//! run counts, the deadline and the warm-up are the peer harness's. One JSON line per level has
//! the peer's `load.jsonl` fields, so `aware-bench compare` can put both side by side.

use crate::common::{ProcessTree, own_cpu_s, percentile};
use aware_e2e::{ScriptFile, TestServer, upload};
use aware_pgtest::{Durability, PgCluster};
use aware_proto::v1 as pb;
use aware_proto::v1::chat_service_client::ChatServiceClient;
use pb::server_event::Payload;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;

#[derive(Debug, clap::Args)]
pub(crate) struct Opts {
    /// Concurrent clients per level, in order.
    #[arg(long, default_value = "1,8,32,64", value_delimiter = ',')]
    levels: Vec<usize>,
    /// Runs per level (the level also ends at the deadline).
    #[arg(long, default_value_t = 200)]
    runs: usize,
    /// Seconds per level after which no run starts (one in flight gets 30 s more).
    #[arg(long, default_value_t = 120.0)]
    deadline: f64,
    /// Warm-up runs before the first level, not measured.
    #[arg(long, default_value_t = 3)]
    warmup: usize,
    /// Append one JSON line per level here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The `label` field of the JSON lines.
    #[arg(long, default_value = "aware")]
    label: String,
    /// Give every run its own SQL text (a different constant in a filter that keeps every row),
    /// so nothing is answered from the SQL worker's per-session verdict and statement caches.
    #[arg(long)]
    distinct_sql: bool,
    /// Where the server keeps its metadata: `sqlite` (the default, in its data dir) or
    /// `postgres` (a cluster of the bench's own with PostgreSQL's default durability; its CPU is
    /// reported apart, as `db_cpu_ms_per_run`).
    #[arg(long, default_value = "sqlite", value_parser = ["sqlite", "postgres"])]
    store: String,
    /// Servers sharing the store and one data dir (more than one needs `--store postgres`);
    /// client `i` talks to replica `i mod n`, and the CPU and RSS reported are all of theirs.
    #[arg(long, default_value_t = 1)]
    replicas: usize,
}

const QUESTION: &str = "What are total sales by region?";
const SQL: &str =
    "SELECT region, COUNT(*) AS n, ROUND(SUM(amount), 2) AS total FROM sales GROUP BY region ORDER BY region";
const ANSWER_CHUNKS: usize = 20;
const GRACE: Duration = Duration::from_secs(30);

/// The peer's table: id, region (4 values), product (p1..p20), amount (1..500), 1,000 rows.
fn sales_csv() -> String {
    let regions = ["north", "south", "east", "west"];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut csv = String::from("id,region,product,amount\n");
    for i in 0..1000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let cents = 100 + (x >> 20) % 49_900;
        let _ = writeln!(
            csv,
            "{i},{},p{},{}.{:02}",
            regions[(x % 4) as usize],
            1 + (x >> 8) % 20,
            cents / 100,
            cents % 100
        );
    }
    csv
}

/// The question of run `n`: the peer's, or (`distinct`) one tagged `[q-n]` whose reply runs its own SQL.
fn question(n: usize, distinct: bool) -> String {
    if distinct { format!("{QUESTION} [q-{n}]") } else { QUESTION.to_owned() }
}

/// SQL that differs for every run but reads and returns the same as [`SQL`].
fn distinct_sql(n: usize) -> String {
    SQL.replace(" GROUP BY", &format!(" WHERE id <> -{} GROUP BY", n + 1))
}

/// Turn 0 calls the tool, turn 1 streams the peer's answer sentence in exactly 20 pieces. With
/// `distinct` runs, one reply per run (`[q-n]`, up to `distinct`) each with its own SQL.
fn script(distinct: Option<usize>) -> Value {
    let words: Vec<&str> =
        "The query returned 4 rows. Sales are split across four regions; north, south, east and west \
         each hold about a quarter of the 1000 orders."
            .split(' ')
            .collect();
    let n = ANSWER_CHUNKS;
    let chunks: Vec<String> =
        (0..n).map(|i| format!("{} ", words[i * words.len() / n..(i + 1) * words.len() / n].join(" "))).collect();
    let reply = |when: String, sql: String| {
        json!({"when": when, "turns": [
            {"tool_calls": [{"name": "run_sql_query", "arguments": {"sql": sql}}]},
            {"chunks": chunks}
        ]})
    };
    let replies: Vec<Value> = match distinct {
        None => vec![reply("total sales by region".into(), SQL.into())],
        Some(runs) => (0..runs).map(|n| reply(format!("[q-{n}]"), distinct_sql(n))).collect(),
    };
    json!({ "replies": replies })
}

#[derive(Debug)]
struct Record {
    ok: bool,
    events: usize,
    ttfe: f64,
    ttft: Option<f64>,
    ttc: f64,
    error: Option<String>,
}

async fn one_run(channel: Channel, n: usize, distinct: bool) -> anyhow::Result<Record> {
    let (tx, rx) = mpsc::channel(1);
    tx.send(pb::ChatRequest {
        client_msg_id: format!("peer-{n}"),
        kind: Some(pb::chat_request::Kind::Message(pb::UserMessage {
            thread_id: format!("peer-thread-{n}"),
            text: question(n, distinct),
            on_busy: 0,
        })),
    })
    .await?;
    drop(tx); // half-close: the stream ends right after the run completes
    let t0 = Instant::now();
    let ms = |t: Instant| t.duration_since(t0).as_secs_f64() * 1e3;
    let mut stream = ChatServiceClient::new(channel).chat(ReceiverStream::new(rx)).await?.into_inner();
    let (mut events, mut chunks, mut ttfe, mut ttft) = (0, 0, None, None);
    let (mut tool_ok, mut completed, mut error) = (false, false, None);
    while let Some(response) = stream.message().await? {
        let Some(event) = response.event.filter(|e| e.seq > 0) else { continue };
        let now = Instant::now();
        events += 1;
        ttfe.get_or_insert(ms(now));
        match event.payload {
            Some(Payload::TextDelta(d)) if !d.delta.is_empty() => {
                chunks += 1;
                ttft.get_or_insert(ms(now));
            }
            Some(Payload::ToolResult(r)) => {
                tool_ok = !r.is_error;
                if r.is_error {
                    error = Some(format!("tool: {:?}", r.error));
                }
            }
            Some(Payload::RunCompleted(c)) => {
                completed = c.status() == pb::RunStatus::Succeeded;
                if !completed {
                    error.get_or_insert(format!("run ended {:?}: {:?}", c.status(), c.error));
                }
            }
            _ => {}
        }
    }
    let ttc = ms(Instant::now());
    Ok(Record {
        ok: tool_ok && completed && chunks == ANSWER_CHUNKS,
        events,
        ttfe: ttfe.unwrap_or(ttc),
        ttft,
        ttc,
        error,
    })
}

/// The CPU seconds and RSS (MiB) of every replica's process tree together.
fn cpu_s(trees: &[ProcessTree]) -> f64 {
    trees.iter().map(ProcessTree::cpu_s).sum()
}

fn rss_mib(trees: &[ProcessTree]) -> f64 {
    trees.iter().map(ProcessTree::rss_mib).sum()
}

/// One level: `conc` clients, each on its own connection (as the peer's HTTP pool) to a replica
/// in turn, running until `total` runs have started or the deadline passed. `trees`: the
/// replicas' processes to measure (none: not measured).
async fn level(
    servers: &[TestServer],
    trees: &[ProcessTree],
    conc: usize,
    total: usize,
    deadline: f64,
    distinct: bool,
) -> Value {
    let counter = Arc::new(AtomicUsize::new(0));
    let mut channels = Vec::new();
    for i in 0..conc {
        channels.push(servers[i % servers.len()].channel().await);
    }
    let rss = Arc::new(std::sync::Mutex::new(Vec::new()));
    let measured = !trees.is_empty();
    let sampler = measured.then(|| {
        let (pids, rss) = (trees.iter().map(|t| t.pid).collect::<Vec<_>>(), rss.clone());
        tokio::spawn(async move {
            let trees: Vec<ProcessTree> = pids.into_iter().map(ProcessTree::new).collect();
            loop {
                let v = rss_mib(&trees);
                rss.lock().expect("rss samples").push(v);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    });
    let (cpu0, client0) = (cpu_s(trees), own_cpu_s());
    let started = Instant::now();
    let stop_at = started + Duration::from_secs_f64(deadline);
    let workers: Vec<_> = channels
        .into_iter()
        .map(|channel| {
            let counter = counter.clone();
            tokio::spawn(async move {
                let (mut records, mut failures) = (Vec::new(), Vec::new());
                while Instant::now() < stop_at {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    if n >= total {
                        break;
                    }
                    let id = next_id();
                    let budget = (stop_at + GRACE).saturating_duration_since(Instant::now());
                    match tokio::time::timeout(budget, one_run(channel.clone(), id, distinct)).await {
                        Ok(Ok(r)) => records.push(r),
                        Ok(Err(e)) => failures.push(format!("{e:#}")),
                        Err(_) => failures.push("timed out".to_owned()),
                    }
                }
                (records, failures)
            })
        })
        .collect();
    let (mut records, mut failures) = (Vec::new(), Vec::new());
    for w in workers {
        let (r, f) = w.await.expect("worker");
        records.extend(r);
        failures.extend(f);
    }
    let wall = started.elapsed().as_secs_f64();
    if let Some(s) = sampler {
        s.abort();
    }
    let ok: Vec<&Record> = records.iter().filter(|r| r.ok).collect();
    let pcts = |f: &dyn Fn(&Record) -> Option<f64>| {
        let mut xs: Vec<f64> = ok.iter().filter_map(|r| f(r)).collect();
        xs.sort_by(f64::total_cmp);
        json!({"p50": round1(percentile(&xs, 0.5)), "p95": round1(percentile(&xs, 0.95)), "p99": round1(percentile(&xs, 0.99))})
    };
    let mut events: Vec<usize> = records.iter().map(|r| r.events).collect();
    events.sort_unstable();
    events.dedup();
    let runs = records.len().max(1) as f64;
    let rss = rss.lock().expect("rss samples").clone();
    let server_cpu = measured.then(|| cpu_s(trees) - cpu0);
    let end_rss = measured.then(|| rss_mib(trees));
    let mut errors: Vec<String> =
        failures.iter().cloned().chain(records.iter().filter_map(|r| r.error.clone())).collect();
    errors.sort();
    errors.dedup();
    errors.truncate(3);
    json!({
        "concurrency": conc,
        "runs_ok": ok.len(),
        "runs_bad": records.len() - ok.len(),
        "exceptions": failures.len(),
        "wall_s": round1(wall),
        "runs_per_s": (ok.len() as f64 / wall * 100.0).round() / 100.0,
        "events_per_run": events,
        "server_cpu_pct": server_cpu.map(|c| round1(100.0 * c / wall)),
        "server_cpu_ms_per_run": server_cpu.map(|c| round1(1000.0 * c / runs)),
        "server_rss_mb": match (rss.first(), end_rss) {
            (Some(first), Some(end)) => json!({"start": round1(*first), "peak": round1(rss.iter().copied().fold(0.0, f64::max)), "end": round1(end)}),
            _ => Value::Null,
        },
        "rss_growth_kib_per_run": match (rss.first(), end_rss) {
            (Some(first), Some(end)) => json!(round1(1024.0 * (end - first) / runs)),
            _ => Value::Null,
        },
        "client_cpu_pct": round1(100.0 * (own_cpu_s() - client0) / wall),
        "sample_errors": errors,
        "ttfe_ms": pcts(&|r| Some(r.ttfe)),
        "ttft_ms": pcts(&|r| r.ttft),
        "ttc_ms": pcts(&|r| Some(r.ttc)),
        "stream_ms": pcts(&|r| Some(r.ttc - r.ttfe)),
    })
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn next_id() -> usize {
    static N: AtomicUsize = AtomicUsize::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

pub(crate) async fn main(opts: Opts) -> anyhow::Result<()> {
    let runs_at_most = opts.warmup.max(opts.replicas) + opts.levels.len() * opts.runs;
    let script = ScriptFile::new(&script(opts.distinct_sql.then_some(runs_at_most)));
    let [model, script_path] = script.env();
    // The peer's scenario is one user with many clients, and LangGraph has no per-user limits:
    // the run and SQL-queue caps a shared aware server keeps per user are lifted so the load
    // measures the server, not its fairness rules.
    let cluster = match opts.store.as_str() {
        "postgres" => Some(PgCluster::start(Durability::Default).map_err(anyhow::Error::msg)?),
        _ => None,
    };
    let url = cluster.as_ref().map(|c| c.create_database("aware")).transpose().map_err(anyhow::Error::msg)?;
    let mut env = vec![
        model,
        script_path,
        ("AWARE_AGENT__MAX_ACTIVE_RUNS_PER_USER", "1000"),
        ("AWARE_LIMITS__MAX_QUEUED_PER_USER", "1000"),
    ];
    if let Some(url) = &url {
        env.push(("AWARE_STORAGE__URL", url.as_str()));
    }
    anyhow::ensure!(opts.replicas >= 1, "--replicas is at least 1");
    anyhow::ensure!(
        opts.replicas == 1 || url.is_some(),
        "several replicas share a PostgreSQL store: add --store postgres"
    );
    // Replicas share one data dir (the dataset files); each has a log of its own.
    let data = tempfile::tempdir()?;
    let servers: Vec<TestServer> = (0..opts.replicas)
        .map(|i| TestServer::start_replica(&data.path().join("data"), &format!("r{i}"), &["--no-samples"], &env))
        .collect();
    let database = cluster.as_ref().map(|c| ProcessTree::new(c.pid()));
    let uploaded = upload(&servers[0], "sales.csv", sales_csv().into_bytes()).await?;
    anyhow::ensure!(uploaded.row_count == 1000, "sales upload: {uploaded:?}");
    let trees: Vec<ProcessTree> = servers.iter().filter_map(TestServer::pid).map(ProcessTree::new).collect();
    let warm = level(&servers, &[], servers.len(), opts.warmup.max(servers.len()), 30.0, opts.distinct_sql).await;
    anyhow::ensure!(warm["runs_bad"] == 0 && warm["exceptions"] == 0, "warm-up failed: {warm}");
    let git = std::process::Command::new("git").args(["rev-parse", "--short", "HEAD"]).output().ok();
    let commit = git.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_default();
    let sql = if opts.distinct_sql { "a distinct SQL text per run" } else { "one SQL text" };
    println!(
        "aware {commit} (dev profile), peer scenario ({sql}), {} store, {} replica(s), levels {:?}",
        opts.store, opts.replicas, opts.levels
    );
    for conc in &opts.levels {
        let db0 = database.as_ref().map(ProcessTree::cpu_s);
        let mut result = level(&servers, &trees, *conc, opts.runs, opts.deadline, opts.distinct_sql).await;
        if let (Some(db), Some(db0)) = (&database, db0) {
            let runs = (result["runs_ok"].as_u64().unwrap_or(0) + result["runs_bad"].as_u64().unwrap_or(0)).max(1);
            result["db_cpu_ms_per_run"] = json!(round1(1000.0 * (db.cpu_s() - db0) / runs as f64));
        }
        result["store"] = json!(opts.store);
        result["replicas"] = json!(opts.replicas);
        result["label"] = json!(opts.label);
        result["stream_mode"] = json!(["chat"]);
        result["resumable"] = json!(true);
        println!(
            "c={conc:>3}: {}/{} ok, {} runs/s, TTFE p50/p99 {}/{} ms, TTC p50/p99 {}/{} ms, server CPU {} ms/run, database CPU {} ms/run, RSS {} MiB",
            result["runs_ok"],
            result["runs_ok"].as_u64().unwrap_or(0) + result["runs_bad"].as_u64().unwrap_or(0),
            result["runs_per_s"],
            result["ttfe_ms"]["p50"],
            result["ttfe_ms"]["p99"],
            result["ttc_ms"]["p50"],
            result["ttc_ms"]["p99"],
            result["server_cpu_ms_per_run"],
            result["db_cpu_ms_per_run"],
            result["server_rss_mb"]["peak"],
        );
        if let Some(out) = &opts.out {
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(out)?;
            writeln!(f, "{result}")?;
        }
    }
    Ok(())
}
