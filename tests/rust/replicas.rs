//! End to end: two aware replicas on one PostgreSQL database and one data dir, each a real server
//! process. A run started on one is followed, answered and cancelled through the other; a thread
//! busy on one is busy on both; 200 randomised disconnect-and-resume trials reconnect to each
//! replica in turn; and `kill -9` of the replica driving runs hands them to the survivor, which
//! finishes every one without repeating a side effect. The PostgreSQL cluster is the suite's own
//! (`aware-pgtest`), whatever store the other suites use.

#![allow(clippy::unwrap_used)] // test helpers: a panic is the failure report
#![allow(clippy::wildcard_enum_match_arm)] // a test names the kind it expects: any other kind fails it, or is skipped

#[path = "support/chat.rs"]
#[macro_use]
mod support;

use aware_e2e::{TestServer, reason};
use aware_pgtest::{Durability, PgCluster};
use aware_proto::v1 as pb;
use pb::server_event::Payload as P;
use serde_json::{Value, json};
use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use support::*;
use tonic::Code;

/// The suite's cluster, shared by its tests (each gets a database of its own). Held in a
/// static, never dropped: its watchdog stops it when the test process ends.
fn cluster() -> &'static PgCluster {
    static CLUSTER: OnceLock<PgCluster> = OnceLock::new();
    CLUSTER.get_or_init(|| PgCluster::start(Durability::Fast).expect("a PostgreSQL cluster"))
}

/// Two replicas sharing a database and a data dir: `a` starts first (and seeds the samples,
/// unless `args` says not to), then `b`.
struct Pair {
    a: TestServer,
    b: TestServer,
    url: String,
    env: Vec<(String, String)>,
    args: Vec<String>,
    _data: tempfile::TempDir,
}

impl Pair {
    fn start(script: &Script, args: &[&str], extra: &[(&str, &str)]) -> Self {
        Self::start_with(script, args, extra, &[])
    }

    /// As `start`, with `a_only` set for `a` alone (and for `a` restarted).
    fn start_with(script: &Script, args: &[&str], extra: &[(&str, &str)], a_only: &[(&str, &str)]) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let url = cluster().create_database(&format!("replicas_{}", N.fetch_add(1, Ordering::Relaxed))).unwrap();
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().join("data");
        let mut env: Vec<(String, String)> =
            script.env(extra).iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        env.push(("AWARE_STORAGE__URL".into(), url.clone()));
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let for_b: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let for_a: Vec<(&str, &str)> = for_b.iter().chain(a_only).copied().collect();
        let a = TestServer::start_replica(&dir, "a", &argv, &for_a);
        let b = TestServer::start_replica(&dir, "b", &argv, &for_b);
        let a_only = a_only.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        let env = env.into_iter().chain(a_only).collect();
        Self { a, b, url, env, args, _data: data }
    }

    /// Starts `a` again after `kill9`: a new replica on the same data dir and database.
    fn restart_a(&mut self) {
        let env: Vec<(&str, &str)> = self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let argv: Vec<&str> = self.args.iter().map(String::as_str).collect();
        self.a.restart(&argv, &env);
    }

    /// Starts one more replica, `name`, beside the two.
    fn start_another(&self, name: &str) -> TestServer {
        let env: Vec<(&str, &str)> = self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let argv: Vec<&str> = self.args.iter().map(String::as_str).collect();
        TestServer::start_replica(&self.a.data_dir, name, &argv, &env)
    }

    /// How many times the audit log records the deletion of `dataset_id`.
    async fn deletions_audited(&self, dataset_id: &str) -> usize {
        let store = aware_store::Store::connect(&self.url).await.unwrap();
        let trail = store.audit_trail(&aware_domain::ids::UserId::local()).await.unwrap();
        trail.iter().filter(|r| r.action == "dataset.delete" && r.resource_id == dataset_id).count()
    }
}

/// A reply that asks to delete `dataset`, then says it is done.
fn delete_reply(when: &str, dataset: &str) -> Value {
    json!({"when": when, "turns": [
        {"chunks": ["Deleting ", dataset, " once you approve."], "delay_ms": 2,
         "tool_calls": [{"name": "delete_dataset", "arguments": {"dataset": dataset}}]},
        {"chunks": ["Done with ", dataset, "."], "delay_ms": 2}
    ]})
}

fn hello_reply() -> Value {
    json!({"when": "hello", "turns": [{"chunks": ["Hi", " there."], "delay_ms": 2}]})
}

fn awaiting(e: &pb::ServerEvent) -> bool {
    matches!(payload(e), P::ConfirmationRequired(_))
}

/// A run sent to one replica streams, seq 1 to `run_completed`, from the other; its confirmation
/// is approved there and the tool runs once; both replicas' stored log is what was streamed.
#[tokio::test]
async fn a_run_started_on_one_replica_is_followed_and_approved_on_the_other() {
    let script = script(json!({"replies": [delete_reply("delete churn", "customer_churn")]}));
    let pair = Pair::start(&script, &[], &[]);
    let churn = datasets_as(&pair.b, None).await.into_iter().find(|d| d.table_name == "customer_churn").unwrap();
    let sent = send_message(&pair.a, "m1", "", "please delete churn", pb::OnBusy::Reject).await.unwrap();
    let mut on_b = open_stream_run(&pair.b, &sent.run_id, 0).await;
    let before = stream_until(&mut on_b, awaiting).await;
    let answered = submit(&pair.b, &the_confirmation(&before).confirmation_id, true).await.unwrap();
    assert_eq!(answered.resolution, pb::ConfirmationResolution::Approved as i32);
    let rest = stream_until(&mut on_b, is_completed).await;
    assert!(next_of(&mut on_b).await.is_none(), "StreamRun ends after run_completed");
    let streamed: Vec<pb::ServerEvent> = before.iter().chain(&rest).cloned().collect();
    let all = unframe(&streamed, 0);
    assert_well_formed(&all);
    assert_eq!(status_of(&all), pb::RunStatus::Succeeded);
    assert_eq!(resolutions(&all), [pb::ConfirmationResolution::Approved]);
    assert!(!the_tool_result(&all).is_error, "{:?}", the_tool_result(&all));
    assert_same_bytes(&log(&pair.a, &sent.run_id).await.events, &all, "A's log vs what B streamed");
    assert_same_bytes(&log(&pair.b, &sent.run_id).await.events, &all, "B's log vs what B streamed");
    assert_eq!(tables(&pair.a).await, ["barcelona_apartments", "support_tickets"]);
    assert_eq!(pair.deletions_audited(&churn.id).await, 1, "deleted once");
}

/// A thread held by a run on one replica is busy on the other: REJECT gets RUN_BUSY, ENQUEUE
/// waits for it and then runs, INTERRUPT supersedes it (cancelled through the other replica).
#[tokio::test]
async fn a_busy_thread_is_busy_on_every_replica() {
    let script = script(json!({"replies": [
        delete_reply("delete churn", "customer_churn"),
        delete_reply("delete apartments", "barcelona_apartments"),
        hello_reply()
    ]}));
    let pair = Pair::start(&script, &[], &[]);
    let mut chat = Session::open(&pair.a).await;
    let (first, thread) = chat.start("a", "", "please delete churn").await;
    let before = chat.until("confirmation_required", awaiting).await;

    let err = send_message(&pair.b, "b1", &thread, "hello", pb::OnBusy::Reject).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::Aborted, "RUN_BUSY"));
    let queued = send_message(&pair.b, "b2", &thread, "hello", pb::OnBusy::Enqueue).await.unwrap();
    assert_eq!(get_run(&pair.b, &queued.run_id).await.status, pb::RunStatus::Queued as i32);
    let mut follow_queued = open_stream_run(&pair.b, &queued.run_id, 0).await;
    submit(&pair.b, &the_confirmation(&before).confirmation_id, true).await.unwrap();
    let first_events: Vec<pb::ServerEvent> = before.into_iter().chain(chat.until_completed(&first).await).collect();
    let queued_events = unframe(&stream_until(&mut follow_queued, is_completed).await, 0);
    assert_well_formed(&first_events);
    assert_well_formed(&queued_events);
    assert_eq!(status_of(&queued_events), pb::RunStatus::Succeeded);
    assert!(
        instant!(queued_events[0].time) >= instant!(first_events.last().unwrap().time),
        "the queued run starts after the active one completes"
    );

    // INTERRUPT from the other replica, in a second thread.
    let (held, thread2) = chat.start("d", "", "please delete apartments").await;
    let pending = chat.until("confirmation_required", awaiting).await;
    let interrupting = send_message(&pair.b, "e", &thread2, "hello", pb::OnBusy::Interrupt).await.unwrap();
    let mut follow_new = open_stream_run(&pair.b, &interrupting.run_id, 0).await;
    let superseded: Vec<pb::ServerEvent> = pending.into_iter().chain(chat.until_completed(&held).await).collect();
    let new_events = unframe(&stream_until(&mut follow_new, is_completed).await, 0);
    assert_eq!(resolutions(&superseded), [pb::ConfirmationResolution::Superseded]);
    assert_eq!(status_of(&superseded), pb::RunStatus::Cancelled);
    assert_eq!(status_of(&new_events), pb::RunStatus::Succeeded);
    let P::RunStarted(started) = payload(&new_events[0]) else { unreachable!() };
    assert_eq!(started.parent_run_id, held, "the interrupting run names the run it superseded");
    assert_eq!(tables(&pair.b).await, ["barcelona_apartments", "support_tickets"], "the superseded delete never ran");
}

/// Cancel through the replica that does not drive the run: the run waiting for approval ends
/// cancelled on the other, and nothing is deleted.
#[tokio::test]
async fn a_run_is_cancelled_through_the_replica_that_does_not_drive_it() {
    let script = script(json!({"replies": [delete_reply("delete churn", "customer_churn")]}));
    let pair = Pair::start(&script, &[], &[]);
    let mut chat = Session::open(&pair.a).await;
    let (run, _) = chat.start("a", "", "please delete churn").await;
    let before = chat.until("confirmation_required", awaiting).await;
    assert_eq!(cancel_run(&pair.b, &run).await, pb::RunStatus::Cancelled);
    let all: Vec<pb::ServerEvent> = before.into_iter().chain(chat.until_completed(&run).await).collect();
    assert_well_formed(&all);
    assert_eq!(resolutions(&all), [pb::ConfirmationResolution::Cancelled]);
    assert_eq!(status_of(&all), pb::RunStatus::Cancelled);
    assert_eq!(tables(&pair.b).await, SAMPLES);
}

/// The randomised disconnect-and-resume trials of `chat.rs`, reconnecting to each replica in
/// turn and approving through either: every reassembled run is byte-identical to its log.
#[tokio::test]
async fn random_disconnects_and_resumes_across_replicas_lose_and_repeat_nothing() {
    let script = script(trial_script());
    let pair = Pair::start(&script, &["--no-samples"], &[("AWARE_AGENT__MAX_ACTIVE_RUNS_PER_USER", "64")]);
    let total = disconnect_trials(&[&pair.a, &pair.b]).await;
    eprintln!("replica trials: {total:?}");
    assert!(total.connections >= 2 * TRIALS, "most trials were cut at least once: {total:?}");
    assert!(total.cuts_awaiting_confirmation >= 10, "{total:?}");
    assert!(tables(&pair.b).await.is_empty(), "every approved deletion happened");
    assert!(tables(&pair.b).await.is_empty(), "every approved deletion happened");
}

/// A replica that starts while another ingests a file leaves that dataset alone: on a shared
/// catalog, PROCESSING is another replica's work in progress, not a leftover of its own stop.
#[tokio::test]
async fn a_replica_that_starts_leaves_another_replicas_ingest_alone() {
    use aware_domain::ports::{Catalog, NewDataset};
    let script = script(json!({"replies": [hello_reply()]}));
    let pair = Pair::start(&script, &["--no-samples"], &[]);
    let store = aware_store::Store::connect(&pair.url).await.unwrap();
    // As a replica records an ingest it has just begun.
    let ingesting = store
        .insert_processing(NewDataset {
            id: aware_domain::ids::DatasetId::generate(),
            owner: aware_domain::ids::UserId::local(),
            name: "arriving".into(),
            base_table_name: "arriving".into(),
            format: aware_domain::dataset::DatasetFormat::Csv,
            size_bytes: 10,
            version_hash: "0".repeat(64),
            lineage: None,
            origin: None,
        })
        .await
        .unwrap();
    let c = pair.start_another("c");
    let listed = datasets_as(&c, None).await;
    let seen = listed.iter().find(|d| d.id == ingesting.id.as_str()).expect("listed on the new replica");
    assert_eq!(seen.status, pb::DatasetStatus::Processing as i32, "{seen:?}");
    assert!(seen.error.is_empty(), "not marked interrupted: {seen:?}");
}

/// A replica stopped gracefully (SIGTERM) hands its runs over at once, not after its lease: the
/// run it drove, waiting for approval, is approved through the other and completes there. (The
/// lease here is a minute, longer than the hang guard.)
#[tokio::test]
async fn a_replica_stopped_gracefully_hands_its_runs_over_at_once() {
    let script = script(json!({"replies": [delete_reply("delete churn", "customer_churn")]}));
    let mut pair = Pair::start(&script, &[], &[("AWARE_STORAGE__LEASE_MS", "60000")]);
    let sent = send_message(&pair.a, "m1", "", "please delete churn", pb::OnBusy::Reject).await.unwrap();
    let mut on_b = open_stream_run(&pair.b, &sent.run_id, 0).await;
    let before = stream_until(&mut on_b, awaiting).await;
    assert!(pair.a.stop(), "A stops cleanly");
    submit(&pair.b, &the_confirmation(&before).confirmation_id, true).await.unwrap();
    let rest = stream_until(&mut on_b, is_completed).await;
    let all = unframe(&before.into_iter().chain(rest).collect::<Vec<_>>(), 0);
    assert_well_formed(&all);
    assert_eq!(status_of(&all), pb::RunStatus::Succeeded);
    assert!(!the_tool_result(&all).is_error, "{:?}", the_tool_result(&all));
    assert_eq!(tables(&pair.b).await, ["barcelona_apartments", "support_tickets"]);
}

async fn search_words(server: &TestServer, query: &str) -> pb::SearchDatasetsResponse {
    let req =
        pb::SearchDatasetsRequest { query: query.into(), dataset_id: String::new(), limit: 5, mode: "lexical".into() };
    server.datasets().await.search_datasets(req).await.unwrap().into_inner()
}

/// A dataset uploaded to one replica after the other started is searchable on both: the other
/// takes the index as it was written to the shared data dir.
#[tokio::test]
async fn a_dataset_indexed_on_one_replica_is_searched_on_the_other() {
    let script = script(json!({"replies": [hello_reply()]}));
    let pair = Pair::start(&script, &["--no-samples"], &[("AWARE_SEARCH__EMBEDDINGS", "off")]);
    let csv = "id,note\n1,the zebra crossed the road\n2,a quiet afternoon\n3,nothing to see\n";
    let dataset = upload_csv(&pair.a, None, "notes.csv", csv).await;
    // A indexes in the background; then B, which never indexed it, answers the same.
    let deadline = Instant::now() + std::time::Duration::from_secs(30);
    let on_a = loop {
        let found = search_words(&pair.a, "zebra").await;
        if !found.hits.is_empty() {
            break found;
        }
        assert!(Instant::now() < deadline, "A never indexed the dataset: {found:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let on_b = search_words(&pair.b, "zebra").await;
    let rows =
        |r: &pb::SearchDatasetsResponse| r.hits.iter().map(|h| (h.dataset_id.clone(), h.row_id)).collect::<Vec<_>>();
    assert_eq!(rows(&on_b), rows(&on_a), "B: {on_b:?}");
    assert_eq!(rows(&on_b), [(dataset.id.clone(), 0)]);
}

/// Where a round kills the replica driving its run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Streaming,
    InTool,
    AwaitingApproval,
}

const ROUNDS: usize = 20;
const LEASE_MS: u64 = 1_500;

/// `kill -9` of the replica driving a run, 20 rounds — mid-answer, in a tool's side effect,
/// awaiting approval — with a follower on the other replica all along: the survivor takes the
/// run over once its lease expires and finishes it; the follower's log is seamless and the
/// stored one; an interrupted delete is reported "outcome unknown" and never run again, an
/// approved one runs once.
#[tokio::test]
async fn kill_9_of_the_driving_replica_hands_its_runs_to_the_other() {
    let long: Vec<String> = (0..60).map(|i| format!("w{i} ")).collect();
    let mut replies: Vec<Value> =
        (0..ROUNDS).map(|r| delete_reply(&format!("delete r{r}x"), &format!("r{r}x"))).collect();
    replies.push(json!({"when": "stream", "turns": [{"chunks": long, "delay_ms": 40}]}));
    let script = script(json!({ "replies": replies }));
    let lease = LEASE_MS.to_string();
    // A's tools linger between their intent and their side effect, so a kill lands inside one.
    let slow_tools = [("AWARE_AGENT__TOOL_DELAY_MS", "4000")];
    let mut pair =
        Pair::start_with(&script, &["--no-samples"], &[("AWARE_STORAGE__LEASE_MS", lease.as_str())], &slow_tools);
    let mut takeovers = Vec::new();
    for r in 0..ROUNDS {
        let phase = [Phase::Streaming, Phase::InTool, Phase::AwaitingApproval][r % 3];
        let ctx = format!("round {r} ({phase:?})");
        let dataset = upload_csv(&pair.b, None, &format!("r{r}x.csv"), "id\n1\n").await;
        let text = if phase == Phase::Streaming { format!("stream [{r}]") } else { format!("please delete r{r}x") };
        let sent = send_message(&pair.a, &format!("m{r}"), "", &text, pb::OnBusy::Reject).await.unwrap();
        let mut follower = open_stream_run(&pair.b, &sent.run_id, 0).await;
        let mut seen = match phase {
            Phase::Streaming => {
                let deltas = Cell::new(0);
                stream_until(&mut follower, |e| {
                    deltas.set(deltas.get() + usize::from(matches!(payload(e), P::TextDelta(_))));
                    deltas.get() == 5
                })
                .await
            }
            Phase::InTool | Phase::AwaitingApproval => stream_until(&mut follower, awaiting).await,
        };
        if phase == Phase::InTool {
            submit(&pair.b, &the_confirmation(&seen).confirmation_id, true).await.unwrap();
            seen.extend(
                stream_until(
                    &mut follower,
                    |e| matches!(payload(e), P::ToolStatus(s) if s.phase == pb::ToolPhase::Running as i32),
                )
                .await,
            );
        }
        pair.a.kill9();
        let killed = Instant::now();
        if phase == Phase::AwaitingApproval {
            // Answered while nobody drives the run: whoever takes it over finds the answer.
            submit(&pair.b, &the_confirmation(&seen).confirmation_id, true).await.unwrap();
        }
        let next = stream_until(&mut follower, |_| true).await;
        takeovers.push(killed.elapsed());
        seen.extend(next);
        if !is_completed(seen.last().unwrap()) {
            seen.extend(stream_until(&mut follower, is_completed).await);
        }
        assert!(next_of(&mut follower).await.is_none(), "{ctx}: StreamRun ends after run_completed");
        let seen = unframe(&seen, 0);
        assert_well_formed(&seen);
        assert_eq!(status_of(&seen), pb::RunStatus::Succeeded, "{ctx}");
        assert_same_bytes(&log(&pair.b, &sent.run_id).await.events, &seen, &format!("{ctx}: the log vs the follower"));
        let deleted = match phase {
            Phase::Streaming => None,
            Phase::InTool => {
                let result = the_tool_result(&seen);
                assert!(result.llm_summary.starts_with("Outcome unknown"), "{ctx}: {}", result.llm_summary);
                assert_eq!(
                    tool_phases(&seen),
                    [pb::ToolPhase::AwaitingConfirmation, pb::ToolPhase::Running, pb::ToolPhase::Failed],
                    "{ctx}: never RUNNING twice"
                );
                Some(false)
            }
            Phase::AwaitingApproval => {
                assert!(!the_tool_result(&seen).is_error, "{ctx}: {:?}", the_tool_result(&seen));
                Some(true)
            }
        };
        if let Some(deleted) = deleted {
            let left = tables(&pair.b).await.contains(&format!("r{r}x"));
            assert_eq!(left, !deleted, "{ctx}: the dataset is deleted only when the approved call ran");
            assert_eq!(pair.deletions_audited(&dataset.id).await, usize::from(deleted), "{ctx}: audited at most once");
        }
        pair.restart_a();
    }
    takeovers.sort();
    eprintln!(
        "takeover after kill -9 (lease {LEASE_MS} ms): median {:?}, max {:?} over {ROUNDS} rounds",
        takeovers[ROUNDS / 2],
        takeovers[ROUNDS - 1]
    );
}
