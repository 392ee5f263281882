//! How cost grows as the work grows. Each part starts a server of its own and prints one line per
//! level, so a row of BENCHMARKS.md's scaling table comes from one sitting:
//! - `datasets`: datasets per user (uploaded through `UploadDataset`) → `ListDatasets` p50 and
//!   response size, and a chat run's CPU (server and workers) and model-request size;
//! - `thread`: runs already on a thread → the next run's CPU and model-request size;
//! - `rows`: dataset rows → the GROUP BY of `aware-bench sql` through `ExecuteSql` vs the same query
//!   on the same DuckDB file in process (the upload limit raised to 4 GiB for 10^8 rows);
//! - `streams`: idle open `Chat` streams → server RSS per stream, and the server's CPU while they
//!   idle (a heartbeat on each every `agent.heartbeat_ms`).
//!
//! The model is the fake provider of the e2e suites (a real HTTP server speaking Anthropic's wire
//! format, answering every request with a short text), so the request the server builds is
//! measured as sent. Run: `scripts/bench scaling [--parts …] [--datasets …] …`.

use crate::common::{ProcessTree, chat_message, idle_chat_streams, percentile, rss_kib};
use crate::sql::group_by_vs_in_process;
use aware_e2e::TestServer;
use aware_e2e::fake_llm::{FakeLlm, Kind, Recorded, Turn, Usage};
use aware_proto::v1 as pb;
use aware_proto::v1::chat_service_client::ChatServiceClient;
use aware_proto::v1::datasets_service_client::DatasetsServiceClient;
use pb::server_event::Payload;
use prost::Message as _;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;

#[derive(Debug, clap::Args)]
pub(crate) struct Opts {
    /// Which parts to run, in order.
    #[arg(long, default_value = "datasets,thread,rows,streams", value_delimiter = ',')]
    parts: Vec<String>,
    /// Datasets per user, ascending.
    #[arg(long, default_value = "1,100,10000", value_delimiter = ',')]
    datasets: Vec<usize>,
    /// Runs already on the thread, ascending.
    #[arg(long, default_value = "1,100,1000", value_delimiter = ',')]
    thread_runs: Vec<usize>,
    /// Dataset rows.
    #[arg(long, default_value = "1000,10000,100000,1000000,10000000,100000000", value_delimiter = ',')]
    rows: Vec<u64>,
    /// Idle streams.
    #[arg(long, default_value = "1000,10000,50000", value_delimiter = ',')]
    streams: Vec<usize>,
    /// Runs measured at each level of `datasets` and `thread` (their CPU is averaged).
    #[arg(long, default_value_t = 20)]
    runs: usize,
}

pub(crate) async fn main(opts: Opts) -> anyhow::Result<()> {
    for part in &opts.parts {
        match part.as_str() {
            "datasets" => datasets(&opts).await?,
            "thread" => thread(&opts).await?,
            "rows" => rows(&opts).await?,
            "streams" => streams(&opts).await?,
            other => anyhow::bail!("unknown part {other:?} (datasets, thread, rows, streams)"),
        }
    }
    Ok(())
}

/// The fake provider: a short answer to every request, nothing else.
async fn model() -> FakeLlm {
    FakeLlm::start(|r: &Recorded, _| Turn::default().say("Noted.").usage(Usage::new(10, 2)).reply(r.kind())).await
}

fn server_on(fake: &FakeLlm) -> TestServer {
    let base = fake.base_url(Kind::Anthropic);
    TestServer::start_with_env(
        &["--no-samples"],
        &[
            ("AWARE_AGENT__MODEL", Kind::Anthropic.model()),
            ("AWARE_LLM__BASE_URL", &base),
            ("AWARE_LLM__API_KEY", "bench-key"),
            ("AWARE_LLM__MODEL", "claude-bench"),
            ("NO_PROXY", "127.0.0.1"),
            ("AWARE_LIMITS__MAX_UPLOAD_STREAMS_PER_USER", "16"),
        ],
    )
}

/// Sends `text` on `thread` through a `Chat` stream and reads it to `RunCompleted`; false when the
/// run did not complete.
async fn run_once(channel: Channel, id: &str, thread: &str, text: &str) -> anyhow::Result<bool> {
    let (tx, rx) = mpsc::channel(1);
    tx.send(chat_message(id, thread, text)).await?;
    drop(tx);
    let mut stream = ChatServiceClient::new(channel).chat(ReceiverStream::new(rx)).await?.into_inner();
    while let Some(r) = stream.message().await? {
        if let Some(Payload::RunCompleted(_)) = r.event.and_then(|e| e.payload) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Waits until the server and its workers are quiet (under 5% of a core over half a second, at
/// most two minutes): uploads leave indexing behind them, which is not the runs' cost.
async fn settle(tree: &ProcessTree) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        let cpu = tree.cpu_s();
        tokio::time::sleep(Duration::from_millis(500)).await;
        if tree.cpu_s() - cpu < 0.025 {
            return;
        }
    }
}

/// `runs` runs, one after another, once the server is quiet; CPU per run (server and workers) in ms and the mean size of
/// the model requests they made, in bytes. `thread` None gives each run a thread of its own.
async fn measure_runs(
    server: &TestServer,
    fake: &FakeLlm,
    runs: usize,
    thread: Option<&str>,
    label: &str,
) -> anyhow::Result<(f64, f64)> {
    let channel = server.channel().await;
    let tree = ProcessTree::new(server.pid().expect("server pid"));
    settle(&tree).await;
    let seen = fake.count();
    let cpu = tree.cpu_s();
    for i in 0..runs {
        let own = format!("{label}-{i}");
        let thread = thread.unwrap_or(&own);
        anyhow::ensure!(
            run_once(channel.clone(), &format!("m-{label}-{i}"), thread, "how are the numbers looking?").await?,
            "a measured run did not complete"
        );
    }
    let cpu_ms = (tree.cpu_s() - cpu) * 1e3 / runs as f64;
    let sent = fake.requests();
    let sizes: Vec<usize> = sent[seen..].iter().map(|r| r.raw.len()).collect();
    anyhow::ensure!(!sizes.is_empty(), "the runs asked the model nothing");
    Ok((cpu_ms, sizes.iter().sum::<usize>() as f64 / sizes.len() as f64))
}

async fn datasets(opts: &Opts) -> anyhow::Result<()> {
    let fake = model().await;
    let server = server_on(&fake);
    let channel = server.channel().await;
    let mut have = 0;
    for &level in &opts.datasets {
        let new = level.saturating_sub(have);
        let t = Instant::now();
        // Uploads in parallel, as several people (or one script) would make them.
        let mut pending = tokio::task::JoinSet::new();
        for i in have..level {
            while pending.len() >= 8 {
                pending.join_next().await.expect("an upload")??;
            }
            let channel = channel.clone();
            pending.spawn(async move {
                let csv = format!("region,amount\nnorth,{i}\nsouth,{}\n", i * 2);
                let chunk = pb::UploadDatasetRequest {
                    filename: format!("table_{i:05}.csv"),
                    size_bytes: csv.len() as u64,
                    chunk: csv.into_bytes().into(),
                    ..Default::default()
                };
                let d = DatasetsServiceClient::new(channel).upload_dataset(tokio_stream::iter([chunk])).await?;
                let d = d.into_inner().dataset.unwrap_or_default();
                anyhow::ensure!(d.row_count == 2, "upload {i}: {}", d.error);
                Ok(())
            });
        }
        while let Some(done) = pending.join_next().await {
            done??;
        }
        let made = t.elapsed();
        have = level;

        let mut client = DatasetsServiceClient::new(channel.clone()).max_decoding_message_size(256 << 20);
        let (mut lat, mut bytes, mut listed) = (Vec::new(), 0, 0);
        for _ in 0..30 {
            let t = Instant::now();
            let r = client.list_datasets(pb::ListDatasetsRequest::default()).await?.into_inner();
            lat.push(t.elapsed().as_secs_f64() * 1e3);
            (bytes, listed) = (r.encoded_len(), r.datasets.len());
        }
        lat.sort_by(f64::total_cmp);
        let (cpu_ms, request) = measure_runs(&server, &fake, opts.runs, None, &format!("ds{level}")).await?;
        println!(
            "datasets per user {level:>6}: ListDatasets p50 {:.2} ms ({listed} datasets, {:.1} KiB); a chat run {cpu_ms:.1} ms CPU, model request {:.1} KiB (the {new} new uploads took {:.1} s)",
            percentile(&lat, 0.5),
            bytes as f64 / 1024.0,
            request / 1024.0,
            made.as_secs_f64()
        );
    }
    Ok(())
}

async fn thread(opts: &Opts) -> anyhow::Result<()> {
    let fake = model().await;
    let server = server_on(&fake);
    let channel = server.channel().await;
    let thread = "long-thread";
    let mut have = 0;
    for &level in &opts.thread_runs {
        for i in have..level {
            anyhow::ensure!(
                run_once(channel.clone(), &format!("fill-{i}"), thread, &format!("note number {i} about the figures"))
                    .await?,
                "run {i} on the thread did not complete"
            );
        }
        have = level;
        let (cpu_ms, request) = measure_runs(&server, &fake, opts.runs, Some(thread), &format!("th{level}")).await?;
        have += opts.runs;
        println!(
            "runs on the thread {level:>6}: the next run {cpu_ms:.1} ms CPU, model request {:.1} KiB",
            request / 1024.0
        );
    }
    Ok(())
}

async fn rows(opts: &Opts) -> anyhow::Result<()> {
    // 10^8 generated rows are ~0.9 GB of Parquet: past the default upload limit (512 MiB).
    let server = TestServer::start_with_env(&["--no-samples"], &[("AWARE_LIMITS__MAX_UPLOAD_MB", "4096")]);
    for &rows in &opts.rows {
        let (sandboxed, direct) = group_by_vs_in_process(&server, rows).await?;
        println!(
            "dataset rows {rows:>11}: GROUP BY through ExecuteSql median {sandboxed:.1} ms, in-process DuckDB {direct:.1} ms, ratio {:.2}x",
            sandboxed / direct
        );
    }
    Ok(())
}

async fn streams(opts: &Opts) -> anyhow::Result<()> {
    for &n in &opts.streams {
        let server = TestServer::start(&["--no-samples"]);
        let pid = server.pid().expect("server pid");
        let tree = ProcessTree::new(pid);
        let before = rss_kib(pid);
        let t = Instant::now();
        let held = idle_chat_streams(&server, n).await?;
        let opened = t.elapsed();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let after = rss_kib(pid);
        // Idle: only heartbeats flow (the client reads none of them; they wait in the windows).
        let idle = Duration::from_secs(10);
        let cpu = tree.cpu_s();
        tokio::time::sleep(idle).await;
        let cpu_per_s = (tree.cpu_s() - cpu) / idle.as_secs_f64();
        println!(
            "idle Chat streams {n:>6}: server RSS {:.1} MiB ({:.1} KiB per stream), CPU while idle {:.1} ms/s ({:.1} µs per stream per second); opened in {:.1} s",
            after as f64 / 1024.0,
            after.saturating_sub(before) as f64 / n as f64,
            cpu_per_s * 1e3,
            cpu_per_s * 1e6 / n as f64,
            opened.as_secs_f64()
        );
        drop(held);
    }
    Ok(())
}
