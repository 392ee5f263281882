//! Fault tests: the server is killed at random points, a SQL worker dies mid-query, the disk fills
//! up or is read-only, a client stops reading, a query runs long. What a user relies on must hold through each: every
//! run reaches a terminal event, the events a client saw before a crash are exactly the start of
//! the stored log (nothing lost, nothing twice), no side effect runs twice, errors say what
//! happened, and the server keeps serving.
#![allow(clippy::unwrap_used)] // test helpers: a panic is the failure report

use aware_e2e::events::stored;
use aware_e2e::{ScriptFile, TestServer, reason, upload};
use aware_proto::v1 as pb;
use pb::server_event::Payload as P;
use prost::Message as _;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

/// A small xorshift generator: the seed is printed, so a failing schedule can be replayed with
/// `FAULTS_SEED=<seed>`.
struct Rng(u64);

impl Rng {
    fn from_env() -> Self {
        let seed = std::env::var("FAULTS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64) | 1
        });
        println!("FAULTS_SEED={seed}");
        Self(seed)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

const ROUNDS: usize = 5;
const RUNS_PER_ROUND: usize = 10;

/// Run `i` of a round: 0–3 stream a long answer, 4–6 run a SQL tool, 7–9 delete a dataset (7 and
/// 8 approved as soon as asked, 9 left waiting across the crash).
fn kind(i: usize) -> &'static str {
    match i {
        0..=3 => "story",
        4..=6 => "count",
        _ => "delete",
    }
}

fn victim(round: usize, i: usize) -> String {
    format!("victim_{round}{}", i - 7)
}

fn crash_script() -> Value {
    let mut replies = vec![
        json!({"when": "tell a story", "turns": [{"chunks": vec!["once upon a time "; 40], "delay_ms": 12}]}),
        json!({"when": "count the churn rows", "turns": [
            {"tool_calls": [{"name": "run_sql_query", "arguments": {"sql": "SELECT count(*) AS n FROM customer_churn"}}]},
            {"chunks": ["Counted ", "the ", "rows."], "delay_ms": 5}
        ]}),
    ];
    for round in 0..ROUNDS {
        for i in 7..10 {
            let name = victim(round, i);
            replies.push(json!({"when": format!("delete {name}"), "turns": [
                {"chunks": ["Deleting ", name.as_str(), "."], "tool_calls": [{"name": "delete_dataset", "arguments": {"dataset": name}}]},
                {"chunks": ["Done."]}
            ]}));
        }
    }
    json!({"replies": replies})
}

fn text_of(round: usize, i: usize) -> String {
    match kind(i) {
        "story" => "tell a story".to_owned(),
        "count" => "count the churn rows".to_owned(),
        _ => format!("delete {}", victim(round, i)),
    }
}

async fn tables(server: &TestServer) -> Vec<String> {
    let all = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
    all.into_inner().datasets.into_iter().map(|d| d.table_name).collect()
}

async fn approve(server: &TestServer, confirmation_id: &str) {
    let req = pb::SubmitConfirmationRequest {
        confirmation_id: confirmation_id.to_owned(),
        approved: true,
        ..Default::default()
    };
    if let Err(e) = server.chat().await.submit_confirmation(req).await {
        // A second answer (the first reached the server just before a crash) is refused as such.
        assert_eq!(reason(&e), "ALREADY_RESOLVED", "approving failed: {e:?}");
    }
}

/// Where a run was, as its client last saw it, when the server died.
fn phase_at_kill(seen: &[pb::ServerEvent]) -> &'static str {
    let pending = |id: &str| {
        !seen.iter().any(|e| matches!(&e.payload, Some(P::ConfirmationResolved(r)) if r.confirmation_id == id))
    };
    match seen.last().and_then(|e| e.payload.as_ref()) {
        None => "not started",
        Some(P::RunCompleted(_)) => "completed",
        Some(P::TextStarted(_) | P::TextDelta(_)) => "model streaming",
        Some(P::ConfirmationRequired(c)) if pending(&c.confirmation_id) => "awaiting confirmation",
        Some(P::ToolCallStarted(_) | P::ToolStatus(_) | P::ConfirmationResolved(_)) => "tool execution",
        Some(_) => "between steps",
    }
}

/// Follows a run from seq 1 with `StreamRun` to its end, approving every confirmation still open.
async fn follow_from_start(server: &TestServer, run_id: &str) -> Vec<pb::ServerEvent> {
    let req = pb::StreamRunRequest { run_id: run_id.to_owned(), after_seq: 0 };
    let mut stream = server.chat().await.stream_run(req).await.unwrap().into_inner();
    let mut events: Vec<pb::ServerEvent> = Vec::new();
    loop {
        let next = tokio::time::timeout(Duration::from_secs(60), stream.message()).await;
        let Some(e) = next.expect("the run's next event within 60 s").unwrap().and_then(|r| r.event) else { break };
        if e.seq == 0 {
            continue;
        }
        if let Some(P::ConfirmationRequired(c)) = &e.payload {
            approve(server, &c.confirmation_id).await;
        }
        events.push(e);
    }
    events
}

/// Kills the server with SIGKILL at random moments while 10 runs at a time stream text, run tools
/// and wait for approvals — 50 runs over 5 crashes. After each restart every run is followed to
/// its end, and: it reached `RunCompleted`; its log is seq 1..n once each; what its client saw
/// before the crash is, byte for byte, the start of that log; no tool call ran twice; a delete
/// is audited at most once and the dataset is gone exactly when the tool says it succeeded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_random_points_in_50_runs_loses_nothing_and_repeats_no_side_effect() {
    let mut rng = Rng::from_env();
    let script = ScriptFile::new(&crash_script());
    let [model, script_path] = script.env();
    let env =
        [model, script_path, ("AWARE_AGENT__TOOL_DELAY_MS", "250"), ("AWARE_AGENT__MAX_ACTIVE_RUNS_PER_USER", "100")];
    let mut server = TestServer::start_with_env(&[], &env);
    for round in 0..ROUNDS {
        for i in 7..10 {
            let name = victim(round, i);
            let csv = format!("id,note\n1,{name}\n2,kept until deleted\n");
            upload(&server, &format!("{name}.csv"), csv.into_bytes()).await.unwrap();
        }
    }
    let mut phases: BTreeMap<&str, usize> = BTreeMap::new();
    let mut deletes: Vec<(String, pb::ToolResult)> = Vec::new();
    for round in 0..ROUNDS {
        // Start the round's runs and watch each, as a client would.
        let mut runs = Vec::new();
        for i in 0..RUNS_PER_ROUND {
            let message = pb::UserMessage { thread_id: format!("t{round}-{i}"), text: text_of(round, i), on_busy: 0 };
            let req = pb::SendMessageRequest { client_msg_id: format!("m{round}-{i}"), message: Some(message) };
            let run_id = server.chat().await.send_message(req).await.unwrap().into_inner().run_id;
            let seen = Arc::new(Mutex::new(Vec::<pb::ServerEvent>::new()));
            let (channel, seen2, approve_early) = (server.channel().await, seen.clone(), i < 9);
            let run = run_id.clone();
            let watcher = tokio::spawn(async move {
                let mut chat = pb::chat_service_client::ChatServiceClient::new(channel);
                let req = pb::StreamRunRequest { run_id: run, after_seq: 0 };
                let Ok(stream) = chat.stream_run(req).await else { return };
                let mut stream = stream.into_inner();
                while let Ok(Some(r)) = stream.message().await {
                    let Some(e) = r.event.filter(|e| e.seq > 0) else { continue };
                    if let (Some(P::ConfirmationRequired(c)), true) = (&e.payload, approve_early) {
                        let req = pb::SubmitConfirmationRequest {
                            confirmation_id: c.confirmation_id.clone(),
                            approved: true,
                            ..Default::default()
                        };
                        let _ = chat.submit_confirmation(req).await;
                    }
                    seen2.lock().unwrap().push(e);
                }
            });
            runs.push((i, run_id, seen, watcher));
        }
        // Early rounds aim at tool execution, later ones at streaming; all at a random moment.
        let delay = match round % 3 {
            0 => 40 + rng.below(200),
            1 => 150 + rng.below(250),
            _ => 50 + rng.below(550),
        };
        tokio::time::sleep(Duration::from_millis(delay)).await;
        server.kill9();
        let mut before = Vec::new();
        for (i, run_id, seen, watcher) in runs {
            // The watcher ends when the connection drops; what it saw is what the client saw.
            tokio::time::timeout(Duration::from_secs(10), watcher).await.expect("watcher ends").unwrap();
            let seen = std::mem::take(&mut *seen.lock().unwrap());
            *phases.entry(phase_at_kill(&seen)).or_default() += 1;
            before.push((i, run_id, seen));
        }
        server.restart(&[], &env);

        for (i, run_id, seen) in before {
            let all = follow_from_start(&server, &run_id).await;
            let what = format!("round {round} run {i} ({}), killed after {delay} ms", kind(i));
            for (n, e) in all.iter().enumerate() {
                assert_eq!(e.seq, n as u64 + 1, "{what}: seq 1..n, no gap or duplicate");
            }
            assert!(matches!(all.last().and_then(|e| e.payload.as_ref()), Some(P::RunCompleted(_))), "{what}: ends");
            assert_eq!(
                all.iter().filter(|e| matches!(e.payload, Some(P::RunCompleted(_)))).count(),
                1,
                "{what}: one RunCompleted"
            );
            assert!(seen.len() <= all.len(), "{what}: the client saw {} events, the log has {}", seen.len(), all.len());
            for (a, b) in seen.iter().zip(&all) {
                assert_eq!(a.encode_to_vec(), b.encode_to_vec(), "{what}: seq {} changed after the crash", a.seq);
            }
            let stored = stored(&server, &run_id).await;
            assert_eq!(stored.len(), all.len(), "{what}: the stored log is what was streamed");
            let mut running: HashMap<&str, usize> = HashMap::new();
            let mut results: HashMap<&str, usize> = HashMap::new();
            for e in &all {
                match &e.payload {
                    Some(P::ToolStatus(s)) if s.phase == pb::ToolPhase::Running as i32 => {
                        *running.entry(s.tool_call_id.as_str()).or_default() += 1;
                    }
                    Some(P::ToolResult(r)) => *results.entry(r.tool_call_id.as_str()).or_default() += 1,
                    _ => {}
                }
            }
            assert!(running.values().all(|n| *n == 1), "{what}: a tool call started twice: {running:?}");
            assert!(results.values().all(|n| *n == 1), "{what}: a tool call has two results: {results:?}");
            if kind(i) == "delete" {
                let result = all.iter().find_map(|e| match &e.payload {
                    Some(P::ToolResult(r)) => Some(r.clone()),
                    _ => None,
                });
                deletes.push((victim(round, i), result.unwrap_or_else(|| panic!("{what}: the delete has a result"))));
            }
        }
    }
    println!("runs by where the crash found them: {phases:?}");
    for phase in ["model streaming", "tool execution", "awaiting confirmation"] {
        assert!(phases.get(phase).copied().unwrap_or(0) > 0, "no run was killed during {phase}: {phases:?}");
    }

    let left = tables(&server).await;
    let store = aware_e2e::storage::open(&server.data_dir).await;
    let trail = store.audit_trail(&aware_domain::ids::UserId::local()).await.unwrap();
    for (name, result) in &deletes {
        let audited =
            trail.iter().filter(|a| a.action == "dataset.delete" && a.details["table_name"] == name.as_str()).count();
        assert!(audited <= 1, "{name} deleted {audited} times");
        if !result.is_error {
            assert!(!left.contains(name), "{name}: the delete succeeded but the dataset is there");
            assert_eq!(audited, 1, "{name}: a successful delete is audited");
        } else {
            assert!(result.llm_summary.starts_with("Outcome unknown"), "{name}: {}", result.llm_summary);
        }
    }
    assert!(deletes.iter().any(|(_, r)| !r.is_error), "some deletes completed");
    assert!(server.stop(), "a clean shutdown after five crashes");
}

/// Child processes of `pid` whose command line contains `needle`, with their CPU ticks so far.
fn children_cpu(pid: u32, needle: &str) -> Vec<(u32, u64)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Some(f) = aware_e2e::proc_stat(child) else { continue };
        let cmdline = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if f[1] == u64::from(pid) && cmdline.contains(needle) {
            out.push((child, f[11] + f[12]));
        }
    }
    out
}

/// A SQL worker killed with SIGKILL in the middle of a query: that query fails with
/// RUNNER_INTERNAL_ERROR, and the pool replaces the worker — the next queries are answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sql_worker_killed_mid_query_fails_that_query_and_the_pool_recovers() {
    let server = TestServer::start_with_env(&[], &[("AWARE_SANDBOX__TIMEOUT_MS", "60000")]);
    let pid = server.pid().unwrap();
    // 9,000 × 9,000 string pairs, each concatenated and scanned: seconds of work (under the
    // sandbox's cap of 10⁸ rows for a join without a condition), far beyond the moment the
    // worker is killed.
    let mut csv = String::from("id,t\n");
    let mut x: u64 = 0x5EED;
    for i in 0..9000 {
        let t: String = (0..40)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'a' + (x % 26) as u8)
            })
            .collect();
        csv.push_str(&format!("{i},{t}\n"));
    }
    upload(&server, "pairs.csv", csv.into_bytes()).await.unwrap();
    let heavy = "SELECT count(*) FROM pairs a, pairs b WHERE (a.t || b.t) LIKE '%qzqzq%'";
    let mut query = server.query().await;
    let running = tokio::spawn(async move {
        let started = Instant::now();
        let r = query.execute_sql(pb::ExecuteSqlRequest { sql: heavy.into(), limit: 0, ..Default::default() }).await;
        (r, started.elapsed())
    });
    // The busy worker is the one whose CPU time grows.
    tokio::time::sleep(Duration::from_millis(700)).await;
    if running.is_finished() {
        panic!("the query ended early: {:?}", running.await.unwrap().0);
    }
    let first = children_cpu(pid, "worker sql");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let second = children_cpu(pid, "worker sql");
    let busy = second
        .iter()
        .filter_map(|(p, t)| first.iter().find(|(q, _)| q == p).map(|(_, t0)| (*p, t - t0)))
        .max_by_key(|(_, d)| *d)
        .filter(|(_, d)| *d > 0)
        .map(|(p, _)| p)
        .expect("a SQL worker is busy with the query");
    rustix::process::kill_process(rustix::process::Pid::from_raw(busy as i32).unwrap(), rustix::process::Signal::KILL)
        .unwrap();
    let (result, took) = tokio::time::timeout(Duration::from_secs(30), running).await.expect("answered").unwrap();
    let err = result.expect_err("the killed query fails");
    assert_eq!(reason(&err), "RUNNER_INTERNAL_ERROR", "{err:?}");
    assert!(took < Duration::from_secs(30), "the failure is reported when the worker dies, not at the timeout");
    for _ in 0..6 {
        let n = aware_e2e::events::number(&server, "SELECT count(*) FROM customer_churn").await;
        assert!(n.parse::<u64>().unwrap() > 0);
    }
    assert!(!children_cpu(pid, "worker sql").iter().any(|(p, _)| *p == busy), "the dead worker was reaped");
}

/// Child processes of `pid` whose command line contains `needle`: (pid, nice, CPU ticks).
fn children_nice(pid: u32, needle: &str) -> Vec<(u32, u64, u64)> {
    children_cpu(pid, needle)
        .into_iter()
        .filter_map(|(child, ticks)| Some((child, aware_e2e::proc_stat(child)?[16], ticks)))
        .collect()
}

/// Whether every process in `pids` stops running (gone, or a zombie nobody has reaped yet) within
/// five seconds.
async fn exits(pids: &[u32]) -> bool {
    let running = |p: &u32| {
        std::fs::read_to_string(format!("/proc/{p}/stat"))
            .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
    };
    for _ in 0..100 {
        if !pids.iter().any(running) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    !pids.iter().any(running)
}

/// Short work first, and single-use workers started ahead: a query alone keeps the server's CPU
/// priority; one that has used its CPU allowance is lowered ten nice levels while it runs and is
/// not kept for the next query; an upload and a listing leave a spare worker of their kind
/// started; and a server killed with SIGKILL leaves none of those spares behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_work_yields_the_cpu_and_spare_workers_go_with_the_server() {
    let mut server = TestServer::start_with_env(&["--no-samples"], &[("AWARE_SANDBOX__TIMEOUT_MS", "60000")]);
    let pid = server.pid().unwrap();
    let own = aware_e2e::proc_stat(pid).unwrap()[16];
    let n = aware_e2e::events::number(&server, "SELECT 1 AS one").await;
    assert_eq!(n, "1");
    let workers = children_nice(pid, "worker sql");
    assert!(!workers.is_empty() && workers.iter().all(|(_, nice, _)| *nice == own), "{workers:?}");

    // Five million SHA-256s: seconds of CPU, far past the 250 ms allowance, then an answer.
    let long = "SELECT count(*) FROM range(1000000) a(x), range(5) b(y) WHERE sha256(CAST(a.x * b.y AS VARCHAR)) < '0'";
    let mut query = server.query().await;
    let running = tokio::spawn(async move {
        query.execute_sql(pb::ExecuteSqlRequest { sql: long.into(), limit: 0, ..Default::default() }).await
    });
    let mut lowered = None;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        lowered = children_nice(pid, "worker sql").into_iter().find(|(_, nice, _)| *nice == (own + 10).min(19));
        if lowered.is_some() || running.is_finished() {
            break;
        }
    }
    let (lowered, _, ticks) = lowered.expect("the long query's worker is lowered while it runs");
    assert!(ticks >= 20, "lowered only after its allowance: {ticks} ticks");
    let answer = running.await.unwrap().expect("the long query is answered");
    assert_eq!(answer.into_inner().table.unwrap().rows.len(), 1);
    // Retired means killed: the kill is sent as the answer goes out, the exit follows.
    assert!(exits(&[lowered]).await, "a lowered worker is retired, not kept for the next query");

    // Single-use workers: after one of each, a spare of each kind waits for the next request.
    upload(&server, "small.csv", b"a,b\n1,2\n".to_vec()).await.unwrap();
    let mut files = pb::files_service_client::FilesServiceClient::new(server.channel().await);
    files
        .list_directory(pb::ListDirectoryRequest {
            root: "staging".into(),
            path: String::new(),
            pattern: String::new(),
        })
        .await
        .expect("a listing");
    let mut spares = Vec::new();
    for kind in ["worker ingest", "worker files"] {
        let mut found = Vec::new();
        for _ in 0..100 {
            found = children_cpu(pid, kind);
            if !found.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(found.len(), 1, "one spare {kind}: {found:?}");
        spares.push(found[0].0);
    }
    server.kill9();
    assert!(exits(&spares).await, "spare workers exit with the server: {spares:?}");
}

/// Queries of one user that run side by side are lowered (a user's second query yields to other
/// users' first), and those workers are kept for the user's next side-by-side queries: killing
/// them made every such query start a new DuckDB process (56 ms of CPU per run at 64 clients in
/// the peer bench, 10 ms with reuse). A query that runs alone still gets a worker at full priority.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn side_by_side_queries_reuse_their_lowered_workers_and_a_lone_query_keeps_full_priority() {
    let server = TestServer::start_with_env(&["--no-samples"], &[]);
    let pid = server.pid().unwrap();
    let own = aware_e2e::proc_stat(pid).unwrap()[16];
    let low = (own + 10).min(19);
    let lowered = || -> Vec<u32> {
        children_nice(pid, "worker sql").into_iter().filter(|(_, nice, _)| *nice == low).map(|(p, _, _)| p).collect()
    };
    let burst = || {
        futures::future::join_all((0..6).map(|i| {
            let sql = format!("SELECT sum(a.x * b.y + {i}) FROM range(1000000) a(x), range(3) b(y)");
            let server = &server;
            async move { aware_e2e::events::number(server, &sql).await }
        }))
    };
    let mut first = Vec::new();
    for _ in 0..5 {
        burst().await;
        first = lowered();
        if !first.is_empty() {
            break;
        }
    }
    assert!(!first.is_empty(), "after a burst, the workers it lowered are kept for the next one (not retired)");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let kept = lowered();
    assert!(first.iter().all(|p| kept.contains(p)), "lowered workers are kept, not retired: {first:?} → {kept:?}");

    // Alone, a query is served at full priority: the worker that did its work was never lowered.
    let before: HashMap<u32, u64> = children_nice(pid, "worker sql").into_iter().map(|(p, _, t)| (p, t)).collect();
    aware_e2e::events::number(&server, "SELECT sum(a.x * b.y) FROM range(1000000) a(x), range(10) b(y)").await;
    let (busiest, nice, used) = children_nice(pid, "worker sql")
        .into_iter()
        .map(|(p, nice, t)| (p, nice, t - before.get(&p).copied().unwrap_or(0)))
        .max_by_key(|(_, _, used)| *used)
        .unwrap();
    assert!(used > 0, "the lone query's worker used CPU");
    assert_eq!(nice, own, "worker {busiest} ran the lone query at full priority");
}

const FLOOD_CHUNKS: usize = 20_000;

/// Reads a Chat stream to its run's end: every sequenced event in order, then the text length.
async fn read_to_end(stream: &mut tonic::Streaming<pb::ChatResponse>) -> usize {
    let (mut next_seq, mut text) = (1u64, 0usize);
    loop {
        let r = tokio::time::timeout(Duration::from_secs(60), stream.message()).await.expect("events flow");
        let e = r.unwrap().expect("the stream stays open until the run's end").event.unwrap();
        if e.seq == 0 {
            continue;
        }
        assert_eq!(e.seq, next_seq, "in order, nothing skipped");
        next_seq += 1;
        match e.payload {
            Some(P::TextDelta(d)) => text += d.delta.len(),
            Some(P::RunCompleted(c)) => {
                assert_eq!(c.status(), pb::RunStatus::Succeeded);
                return text;
            }
            _ => {}
        }
    }
}

/// On a fresh server, a run streaming ~20 MB of text in 20,000 events to a `Chat` client that
/// reads as it goes (`stall` false) or reads nothing until the run has ended (`stall` true).
/// Returns the server's peak RSS growth (KiB) while the run lasted and the text the client got.
async fn flood(stall: bool) -> (u64, usize) {
    let chunk = "x".repeat(1000) + " ";
    let script =
        ScriptFile::new(&json!({"replies": [{"when": "flood", "turns": [{"chunks": vec![chunk; FLOOD_CHUNKS]}]}]}));
    let server = TestServer::start_with_env(&["--no-samples"], &script.env());
    let pid = server.pid().unwrap();
    let rss = || aware_e2e::rss_kib(pid);
    let base = rss();
    let (tx, rx) = mpsc::channel(1);
    let message = pb::UserMessage { thread_id: "flood".into(), text: "flood".into(), on_busy: 0 };
    tx.send(pb::ChatRequest { client_msg_id: "m1".into(), kind: Some(pb::chat_request::Kind::Message(message)) })
        .await
        .unwrap();
    let mut stream = server.chat().await.chat(ReceiverStream::new(rx)).await.unwrap().into_inner();
    let (mut stalled, reader) = if stall {
        (Some(stream), None)
    } else {
        (None, Some(tokio::spawn(async move { read_to_end(&mut stream).await })))
    };

    let mut peak = base;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        peak = peak.max(rss());
        let req = pb::ListRunsRequest { thread_id: "flood".into(), ..Default::default() };
        let runs = server.runs().await.list_runs(req).await.unwrap().into_inner().runs;
        if let Some(run) =
            runs.first().filter(|r| !matches!(r.status(), pb::RunStatus::Running | pb::RunStatus::Queued))
        {
            assert_eq!(run.status(), pb::RunStatus::Succeeded);
            break;
        }
        assert!(Instant::now() < deadline, "the run did not finish (stalled client: {stall})");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let text = match (reader, stalled.as_mut()) {
        (Some(r), _) => r.await.unwrap(),
        // The client wakes up after the run ended: it still gets every event, in order.
        (None, Some(stream)) => read_to_end(stream).await,
        (None, None) => unreachable!("one of the two clients"),
    };
    drop(tx);
    (peak.saturating_sub(base), text)
}

/// A client that sends a message on `Chat` and then stops reading: the run still completes (it
/// does not wait for that client), the server holds no more memory for it than for a client
/// that keeps up (events wait in the stored log, not in a queue per client), and when the client
/// reads again it gets all 20,000 events in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_does_not_hold_the_run_or_grow_the_server() {
    let (reading, text) = flood(false).await;
    assert_eq!(text, FLOOD_CHUNKS * 1001, "the reading client got all the text");
    let (stalled, text) = flood(true).await;
    assert_eq!(text, FLOOD_CHUNKS * 1001, "the stalled client got all the text once it read");
    println!(
        "peak server RSS growth during a 20 MB run: {reading} KiB with a reading client, {stalled} KiB with a stalled one"
    );
    assert!(
        stalled < reading + reading / 2 + 16 * 1024,
        "a stalled client cost {stalled} KiB against {reading} KiB for one that reads"
    );
}

/// Sends one message and follows its run to the end; the streamed events.
async fn chat_once(server: &TestServer, id: &str) -> Result<Vec<pb::ServerEvent>, tonic::Status> {
    let client = server.client(None).await;
    let run_id = client.send_message(&format!("disk-{id}"), "hello", id).await?.run_id;
    Ok(aware_e2e::events::follow(&client, &run_id, aware_e2e::events::no_confirmation).await)
}

/// The data dir fills up under a running server: writes fail with an error that says the disk
/// is full, reads keep working, nothing already stored is damaged, the failed upload leaves no
/// debris behind, and the server goes on working once there is room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_gives_a_clear_error_and_damages_nothing() {
    let script = ScriptFile::new(&json!({"replies": [{"when": "hello", "turns": [{"chunks": ["Hello ", "there."]}]}]}));
    let server = TestServer::start_on_small_disk(16, &["--no-samples"], &script.env());
    upload(&server, "keep.csv", b"id,amount\n1,100\n2,200\n".to_vec()).await.unwrap();
    let first = chat_once(&server, "c1").await.unwrap();
    let sum = || aware_e2e::events::number(&server, "SELECT sum(amount) FROM keep");
    assert_eq!(sum().await, "300");

    // A 24 MB upload does not fit on the 16 MiB disk.
    let mut big = String::from("id,text\n");
    for i in 0..400_000 {
        big.push_str(&format!("{i},some words to fill the disk {i}\n"));
    }
    let err = upload(&server, "big.csv", big.into_bytes()).await.expect_err("the disk is full");
    assert_eq!((err.code(), reason(&err).as_str()), (tonic::Code::ResourceExhausted, "RESOURCE_EXHAUSTED"));
    assert!(err.message().contains("disk is full"), "the message says what happened: {}", err.message());
    let list = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
    let names: Vec<String> = list.into_inner().datasets.into_iter().map(|d| d.table_name).collect();
    assert_eq!(names, ["keep"], "the failed upload left no dataset");
    assert_eq!(sum().await, "300");
    let stored = stored(&server, &first[0].run_id).await;
    assert_eq!(stored, first, "a stored run reads back unchanged");
    // Its staged bytes were removed, so there is room again.
    upload(&server, "after_full.csv", b"id\n1\n".to_vec()).await.expect("an upload that fits");
    chat_once(&server, "c2").await.expect("runs work after a full disk");
}

/// A server pointed at a read-only data dir refuses to start and says why (no panic, no
/// half-started server); the data in it is intact for the next start on a writable mount.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_data_dir_is_refused_at_start_with_a_clear_message_and_kept_intact() {
    let script = ScriptFile::new(&json!({"replies": [{"when": "hello", "turns": [{"chunks": ["Hello ", "there."]}]}]}));
    let env = script.env();
    let mut server = TestServer::start_with_env(&["--no-samples"], &env);
    upload(&server, "keep.csv", b"id,amount\n1,100\n2,200\n".to_vec()).await.unwrap();
    let first = chat_once(&server, "c1").await.unwrap();
    assert!(server.stop());

    // The same data dir, bind-mounted read-only in a private mount namespace.
    let mut child = std::process::Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg("mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" && exec \"$@\"")
        .arg(&server.data_dir)
        .arg(aware_e2e::server_bin())
        .args(["serve", "--listen", "127.0.0.1:0", "--no-samples", "--data-dir"])
        .arg(&server.data_dir)
        .envs(env)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server started (or hung) on a read-only data dir");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "refused to start");
    assert!(!stderr.contains("panicked"), "no panic: {stderr}");
    assert!(stderr.contains("is on a read-only file system"), "says the data dir is read-only: {stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("listening"), "never listened");

    server.restart(&["--no-samples"], &env);
    assert_eq!(aware_e2e::events::number(&server, "SELECT sum(amount) FROM keep").await, "300");
    let stored = stored(&server, &first[0].run_id).await;
    assert_eq!(stored, first, "the stored run is intact");
    chat_once(&server, "c2").await.expect("runs work on the writable data dir");
}
