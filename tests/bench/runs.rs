//! Run engine bench, against a real server with the scripted model. Prints:
//! - events/s through one `Chat` stream (a run streaming ~10,000 text deltas),
//! - p50/p99 from sending a `UserMessage` to receiving its `RunStarted`, with 1, 64 and 1,000
//!   concurrent streams (each its own thread),
//! - server RSS with 10,000 idle open `Chat` streams,
//! - replay time of a 10,000-event run through `StreamRun` and `ListRunEvents`, and the server's
//!   peak RSS while 16 clients replay it at once,
//! - the server's RSS while one run streams a 20 MB answer (a server of its own).
//!
//! Run: `scripts/bench runs`; `--started-only --streams 1000 --rounds 5` repeats the RunStarted
//! phase alone (to profile it, or for a distribution); `--replay-only --replays 50` measures the
//! replays alone, after the one run they read.

use crate::common::{PeakRss, ProcessTree, chat_message, idle_chat_streams, own_cpu_s, percentile, rss_kib};
use aware_e2e::TestServer;
use aware_proto::v1 as pb;
use aware_proto::v1::chat_service_client::ChatServiceClient;
use aware_proto::v1::runs_service_client::RunsServiceClient;
use pb::server_event::Payload;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;

#[derive(Debug, clap::Args)]
pub(crate) struct Opts {
    /// Concurrent streams of the RunStarted phase, in order.
    #[arg(long, default_value = "1,64,1000", value_delimiter = ',')]
    streams: Vec<usize>,
    /// Times each level of the RunStarted phase runs.
    #[arg(long, default_value_t = 1)]
    rounds: usize,
    /// Only the RunStarted phase.
    #[arg(long)]
    started_only: bool,
    /// Only the big run and its replays.
    #[arg(long, conflicts_with = "started_only")]
    replay_only: bool,
    /// Replays of the big run through each RPC, for a median.
    #[arg(long, default_value_t = 9)]
    replays: usize,
}

const BIG: usize = 9_997;

fn script(path: &std::path::Path) {
    let chunks: Vec<String> = (0..BIG).map(|i| format!("w{i} ")).collect();
    let script = serde_json::json!({"replies": [
        {"when": "big", "turns": [{"chunks": chunks}]},
        {"when": "ping", "turns": [{"chunks": ["pong"]}]}
    ]});
    std::fs::write(path, script.to_string()).expect("script");
}

/// Opens a Chat stream, sends one message, and returns the time to its `RunStarted`; then
/// drains the run to its end.
async fn time_to_run_started(channel: Channel, n: usize) -> f64 {
    let (tx, rx) = mpsc::channel(4);
    let mut client = ChatServiceClient::new(channel);
    let started = Instant::now();
    tx.send(chat_message(&format!("lat-{n}-{}", uuid_like()), &format!("bench-{n}-{}", uuid_like()), "ping"))
        .await
        .expect("send");
    drop(tx);
    let mut stream = client.chat(ReceiverStream::new(rx)).await.expect("chat").into_inner();
    let mut first = None;
    while let Some(r) = stream.message().await.expect("event") {
        if let Some(Payload::RunStarted(_)) = r.event.and_then(|e| e.payload) {
            first.get_or_insert(started.elapsed().as_secs_f64() * 1e3);
        }
    }
    first.expect("run started")
}

/// SendMessage → RunStarted latency under concurrency, with the CPU the phase took on each side:
/// the load generator shares the 2 cores, so its own cost bounds what the server can do.
async fn run_started(server: &TestServer, opts: &Opts) -> anyhow::Result<()> {
    let tree = ProcessTree::new(server.pid().expect("server pid"));
    for streams in opts.streams.iter().flat_map(|&n| std::iter::repeat_n(n, opts.rounds)) {
        let (server_cpu, client_cpu, wall) = (tree.cpu_s(), own_cpu_s(), Instant::now());
        // Spread streams over a few connections, as many clients would.
        let mut channels = Vec::new();
        for _ in 0..streams.div_ceil(100) {
            channels.push(server.channel().await);
        }
        let tasks: Vec<_> =
            (0..streams).map(|i| tokio::spawn(time_to_run_started(channels[i % channels.len()].clone(), i))).collect();
        let mut lat = Vec::new();
        for t in tasks {
            lat.push(t.await?);
        }
        lat.sort_by(f64::total_cmp);
        let per_run = |cpu: f64| cpu * 1e3 / streams as f64;
        println!(
            "message → RunStarted with {streams:>4} concurrent streams: p50 {:.2} ms, p99 {:.2} ms; \
             all {streams} runs done in {:.0} ms, CPU per run: server {:.2} ms, load generator {:.2} ms",
            percentile(&lat, 0.5),
            percentile(&lat, 0.99),
            wall.elapsed().as_secs_f64() * 1e3,
            per_run(tree.cpu_s() - server_cpu),
            per_run(own_cpu_s() - client_cpu),
        );
    }

    Ok(())
}

/// Clients that all replay the big run at once (every browser reconnecting after a deploy): the
/// server's peak RSS above where it was, sampled every 2 ms, and the time until the last is done.
async fn replay_storm(server: &TestServer, channel: &Channel, run_id: &str) -> anyhow::Result<()> {
    const CLIENTS: usize = 16;
    let pid = server.pid().expect("server pid");
    let before = rss_kib(pid);
    let started = Instant::now();
    let replays: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let mut client = ChatServiceClient::new(channel.clone());
            let req = pb::StreamRunRequest { run_id: run_id.to_owned(), after_seq: 0 };
            tokio::spawn(async move {
                let mut stream = client.stream_run(req).await?.into_inner();
                let mut n = 0usize;
                while let Some(r) = stream.message().await? {
                    n += usize::from(r.event.is_some_and(|e| e.seq > 0));
                }
                anyhow::Ok(n)
            })
        })
        .collect();
    let peak = PeakRss::start(pid, Duration::from_millis(2));
    let counts = futures::future::join_all(replays).await;
    let secs = started.elapsed().as_secs_f64();
    let peak = peak.stop();
    for n in counts {
        anyhow::ensure!(n?? > 10_000, "a replay ended early");
    }
    println!(
        "{CLIENTS} StreamRun replays of it at once: all done in {:.0} ms, server RSS peak +{:.1} MiB over {:.1} MiB",
        secs * 1e3,
        peak.saturating_sub(before) as f64 / 1024.0,
        before as f64 / 1024.0
    );
    Ok(())
}

fn uuid_like() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

pub(crate) async fn main(opts: Opts) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let script_path = dir.path().join("script.json");
    script(&script_path);
    let env = [
        ("AWARE_AGENT__MODEL", "script"),
        ("AWARE_AGENT__SCRIPT", script_path.to_str().expect("utf-8 path")),
        ("AWARE_AGENT__MAX_ACTIVE_RUNS_PER_USER", "5000"),
    ];
    let server = TestServer::start_with_env(&["--no-samples"], &env);

    let channel = server.channel().await;
    if opts.started_only {
        return run_started(&server, &opts).await;
    }
    // 1. Events/s through one stream.
    let (tx, rx) = mpsc::channel(4);
    tx.send(chat_message("big-1", "big", "big run")).await?;
    drop(tx);
    let mut stream = ChatServiceClient::new(channel.clone()).chat(ReceiverStream::new(rx)).await?.into_inner();
    let (mut first, mut count, mut last_seq, mut run_id) = (None, 0u64, 0, String::new());
    while let Some(r) = stream.message().await? {
        let e = r.event.expect("event");
        if e.seq > 0 {
            first.get_or_insert_with(Instant::now);
            count += 1;
            last_seq = e.seq;
            run_id.clone_from(&e.run_id);
        }
    }
    let secs = first.expect("events").elapsed().as_secs_f64();
    println!(
        "one Chat stream: {count} events in {:.3} s = {:.0} events/s (each appended to SQLite before it is sent)",
        secs,
        count as f64 / secs
    );
    assert_eq!(count, last_seq);

    if !opts.replay_only {
        run_started(&server, &opts).await?;
    }

    // 3. Replay of a 10,000-event run: the median of several, each read to its last event.
    let mut runs = RunsServiceClient::new(channel.clone()).max_decoding_message_size(256 << 20);
    let (mut listed, mut streamed, mut firsts, mut events) = (Vec::new(), Vec::new(), Vec::new(), (0, 0));
    for _ in 0..opts.replays {
        let t = Instant::now();
        let page = runs
            .list_run_events(pb::ListRunEventsRequest { run_id: run_id.clone(), after_seq: 0, limit: 10_000 })
            .await?
            .into_inner();
        listed.push(t.elapsed().as_secs_f64() * 1e3);
        events.0 = page.events.len();
        let t = Instant::now();
        let mut replay = ChatServiceClient::new(channel.clone())
            .stream_run(pb::StreamRunRequest { run_id: run_id.clone(), after_seq: 0 })
            .await?
            .into_inner();
        let mut replayed = 0;
        while let Some(r) = replay.message().await? {
            if r.event.is_some_and(|e| e.seq > 0) {
                if replayed == 0 {
                    firsts.push(t.elapsed().as_secs_f64() * 1e3);
                }
                replayed += 1;
            }
        }
        streamed.push(t.elapsed().as_secs_f64() * 1e3);
        events.1 = replayed;
    }
    listed.sort_by(f64::total_cmp);
    streamed.sort_by(f64::total_cmp);
    firsts.sort_by(f64::total_cmp);
    println!(
        "ListRunEvents of a {}-event run: median {:.1} ms, best {:.1} ms ({} reads)",
        events.0,
        percentile(&listed, 0.5),
        listed[0],
        opts.replays
    );
    println!(
        "StreamRun replay of a {}-event run: median {:.1} ms, best {:.1} ms, its first event after {:.1} ms (median) ({} replays)",
        events.1,
        percentile(&streamed, 0.5),
        streamed[0],
        percentile(&firsts, 0.5),
        opts.replays
    );
    replay_storm(&server, &channel, &run_id).await?;
    if opts.replay_only {
        return Ok(());
    }

    // 4. Memory with 10,000 idle open streams.
    let pid = server.pid().expect("server pid");
    let before = rss_kib(pid);
    let held = idle_chat_streams(&server, 10_000).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_kib(pid);
    println!(
        "RSS with 10000 idle Chat streams: {:.1} MiB (before: {:.1} MiB, {:.1} KiB per stream)",
        after as f64 / 1024.0,
        before as f64 / 1024.0,
        (after.saturating_sub(before)) as f64 / 10_000.0
    );
    drop(held);
    drop(server);

    // 5. Peak RSS while one run streams a 20 MB answer: 20,000 deltas of 1,000 bytes of text, read as
    // they come; RSS sampled every 5 ms, against RSS before the message (script already read).
    let answer_path = dir.path().join("answer.json");
    // Words, not digits: an answer made of digits would be one 20 MB number to ground.
    let chunk: String = "a quick brown fox jumps over the lazy dog. ".repeat(24)[..1000].to_owned();
    let chunks = vec![chunk; ANSWER_MB * 1000];
    let answer = serde_json::json!({"replies": [{"when": "long", "turns": [{"chunks": chunks}]}]});
    std::fs::write(&answer_path, answer.to_string())?;
    let env = [("AWARE_AGENT__MODEL", "script"), ("AWARE_AGENT__SCRIPT", answer_path.to_str().expect("utf-8 path"))];
    let server = TestServer::start_with_env(&["--no-samples"], &env);
    let pid = server.pid().expect("server pid");
    let before = rss_kib(pid);
    let peak = PeakRss::start(pid, Duration::from_millis(5));
    let (tx, rx) = mpsc::channel(4);
    tx.send(chat_message("long-1", "long", "a long answer")).await?;
    drop(tx);
    let mut client = ChatServiceClient::new(server.channel().await).max_decoding_message_size(256 << 20);
    let mut stream = client.chat(ReceiverStream::new(rx)).await?.into_inner();
    let mut text = 0usize;
    while let Some(r) = stream.message().await? {
        if let Some(Payload::TextDelta(d)) = r.event.and_then(|e| e.payload) {
            text += d.delta.len();
        }
    }
    let peak = peak.stop();
    let grown = peak.saturating_sub(before) as f64 / 1024.0;
    let mb = text as f64 / (1024.0 * 1024.0);
    println!(
        "one run streaming a {mb:.1} MiB answer: peak RSS {:.1} MiB (before: {:.1} MiB), grown {grown:.1} MiB = {:.1}× the answer",
        peak as f64 / 1024.0,
        before as f64 / 1024.0,
        grown / mb
    );
    Ok(())
}

/// The size of the long answer, in MB.
const ANSWER_MB: usize = 20;
