//! The run engine in process: the real engine with its SQLite run log, DuckDB workers and the
//! scripted model, built as `aware-server` builds it — no socket, no gRPC. These check the
//! engine's guarantees directly (event order, the resume seam and its framing, confirmation
//! binding, cancel, interrupt, admission) and snapshot the event sequence of scripted runs
//! (`snapshots/`), so a change to the protocol shows in review. The end-to-end suites under
//! `tests/` check the same over the wire, and kill -9 recovery with the real binary.

#![allow(clippy::wildcard_enum_match_arm)] // a test names the kind it expects: any other kind fails it, or is skipped

use aware_core::ErrorCode;
use aware_core::runs::model_view::outcomes;
use aware_core::runs::{Admission, Answer, ClientToolCall, Delivery, NewMessage, OnBusy, RunEngine};
use aware_domain::auth::{Caller, Principal, Role, Source};
use aware_domain::contract::snapshots::{Tools, sequence};
use aware_domain::dataset::DatasetStatus;
use aware_domain::events::{EventPayload, Resolution, RunEvent};
use aware_domain::ids::{ConfirmationId, RunId, UserId};
use aware_domain::run::RunStatus;
use aware_domain::run::ToolPhase;
use aware_server::config::{Config, ModelKind};
use aware_server::grpc::State;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

/// An engine over a fresh data dir (with the sample datasets) answering with `script`.
async fn engine(script: Value, tool_delay_ms: u64) -> (tempfile::TempDir, State) {
    let dir = tempfile::tempdir().expect("temp dir");
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).expect("write the script");
    let mut config = Config {
        data_dir: dir.path().join("data"),
        worker_exe: Some(PathBuf::from(env!("CARGO_BIN_EXE_aware-server"))),
        ..Config::default()
    };
    config.agent.model = ModelKind::Script;
    config.agent.script = Some(script_path);
    config.agent.tool_delay_ms = tool_delay_ms;
    let state = aware_server::server::build_state(&config).await.expect("the engine starts");
    // The three sample datasets are ingested in the background: wait until every one is ready.
    for _ in 0..600 {
        let datasets = state.services.datasets.list(&me(), None).await.expect("listed");
        if datasets.len() == 3 && datasets.iter().all(|d| d.status == DatasetStatus::Ready) {
            return (dir, state);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the sample datasets did not become ready in 30 s");
}

fn me() -> Caller {
    Caller { principal: Principal::local(), source: Source::Api }
}

fn someone_else() -> Caller {
    let principal = Principal {
        user_id: UserId::parse("mallory").expect("a user id"),
        name: "m".into(),
        role: Role::Admin,
        key: None,
    };
    Caller { principal, source: Source::Api }
}

fn message(text: &str, thread: &str, on_busy: OnBusy) -> NewMessage {
    NewMessage::new("", thread, text, on_busy).expect("a valid message")
}

async fn start(runs: &RunEngine, text: &str, thread: &str, on_busy: OnBusy) -> RunId {
    match runs.send_message(&me(), message(text, thread, on_busy)).await.expect("admitted") {
        Admission::Started { run_id, .. } => run_id,
        other => panic!("not started: {other:?}"),
    }
}

/// Every event of a run from its start to `RunCompleted`, live.
async fn events(runs: &RunEngine, run_id: &RunId) -> Vec<Arc<RunEvent>> {
    let mut framed = runs.subscribe(&me(), run_id, 0).await.expect("subscribed").framed(None);
    let mut out = Vec::new();
    while let Some(d) = framed.next().await.expect("readable") {
        match d {
            Delivery::Event(e) => out.push(e),
            other => panic!("a subscription from 0 is not framed: {other:?}"),
        }
    }
    out
}

fn completed(events: &[Arc<RunEvent>]) -> (RunStatus, String) {
    match &events.last().expect("events").payload {
        EventPayload::RunCompleted { status, final_text, .. } => (*status, final_text.clone()),
        other => panic!("the last event is RunCompleted, not {other:?}"),
    }
}

fn tool_results(events: &[Arc<RunEvent>]) -> Vec<(String, bool, String)> {
    events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::ToolResult { tool_name, is_error, llm_summary, .. } => {
                Some((tool_name.clone(), *is_error, llm_summary.clone()))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_scripted_run_streams_this_sequence_and_resumes_exactly_at_every_cursor() {
    let script = json!({"replies": [{"when": "my files", "turns": [
        {"tool_calls": [{"name": "list_datasets", "arguments": {}}]},
        {"chunks": ["You have ", "three datasets."]}
    ]}]});
    let (_dir, state) = engine(script, 0).await;
    let run_id = start(&state.runs, "what are my files?", "", OnBusy::Reject).await;
    let events = events(&state.runs, &run_id).await;
    assert_eq!(completed(&events), (RunStatus::Succeeded, "You have three datasets.".to_owned()));
    insta::assert_snapshot!("list_datasets_run", sequence(&events, Tools::Listed));

    // The resume seam: from any cursor, exactly the rest of the log, framed.
    let last = events.len() as u64;
    for after in 0..=last {
        let sub = state.runs.subscribe(&me(), &run_id, after).await.expect("resumable");
        let mut framed = sub.framed(Some(after));
        let mut got = Vec::new();
        while let Some(d) = framed.next().await.expect("readable") {
            got.push(d);
        }
        let mut want = vec![Delivery::ReplayStarted { after_seq: after, last_seq_at_start: last }];
        want.extend(events[after as usize..].iter().cloned().map(Delivery::Event));
        want.push(Delivery::ReplayFinished { last_seq: last, live: false });
        assert_eq!(got, want, "resume after {after}");
    }
    let ahead = state.runs.subscribe(&me(), &run_id, last + 1).await.err().expect("a cursor past the end");
    assert_eq!(ahead.code, ErrorCode::CursorAhead);
    let theirs = state.runs.subscribe(&someone_else(), &run_id, 0).await.err().expect("not their run");
    assert_eq!(theirs.code, ErrorCode::UnknownRun, "another user's run does not exist for them");
}

/// A model that deletes `customer_churn` and then says `reply`; the run's events, each
/// confirmation it asks for answered by `answer`.
async fn delete_run(
    reply: &str,
    answer: impl AsyncFn(&State, &ConfirmationId),
) -> (tempfile::TempDir, State, Vec<Arc<RunEvent>>) {
    let script = json!({"replies": [{"when": "delete", "turns": [
        {"tool_calls": [{"name": "delete_dataset", "arguments": {"dataset": "customer_churn"}}]},
        {"chunks": [reply]}
    ]}]});
    let (dir, state) = engine(script, 0).await;
    let run_id = start(&state.runs, "delete the churn dataset", "", OnBusy::Reject).await;
    let mut framed = state.runs.subscribe(&me(), &run_id, 0).await.expect("subscribed").framed(None);
    let mut events = Vec::new();
    while let Some(Delivery::Event(e)) = framed.next().await.expect("readable") {
        if let EventPayload::ConfirmationRequired { confirmation_id, .. } = &e.payload {
            answer(&state, confirmation_id).await;
        }
        events.push(e);
    }
    (dir, state, events)
}

#[tokio::test]
async fn a_delete_waits_for_its_owner_to_approve_and_then_runs_once() {
    let (_dir, state, events) = delete_run("Deleted.", async |state: &State, id: &ConfirmationId| {
        let err =
            state.runs.resolve_confirmation(&someone_else(), id, Answer::once(true)).await.expect_err("not theirs");
        assert_eq!(err.code, ErrorCode::NotFound, "a confirmation answers only to its owner");
        assert_eq!(
            state.runs.resolve_confirmation(&me(), id, Answer::once(true)).await.expect("approved").1,
            Resolution::Approved
        );
        assert_eq!(
            state.runs.resolve_confirmation(&me(), id, Answer::once(true)).await.expect("same answer").1,
            Resolution::Approved
        );
        let changed =
            state.runs.resolve_confirmation(&me(), id, Answer::once(false)).await.expect_err("already approved");
        assert_eq!(changed.code, ErrorCode::AlreadyResolved);
    })
    .await;
    assert_eq!(completed(&events).0, RunStatus::Succeeded);
    let results = tool_results(&events);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(!results[0].1 && results[0].0 == "delete_dataset", "{results:?}");
    insta::assert_snapshot!("approved_delete_run", sequence(&events, Tools::Listed));
    let left = state.services.datasets.list(&me(), None).await.expect("listed");
    assert!(left.iter().all(|d| d.table_name != "customer_churn"), "the dataset is gone");
    assert_eq!(left.len(), 2);
}

#[tokio::test]
async fn a_denied_delete_changes_nothing_and_the_model_is_told_so() {
    let (_dir, state, events) = delete_run("Kept it.", async |state: &State, id: &ConfirmationId| {
        state.runs.resolve_confirmation(&me(), id, Answer::once(false)).await.expect("denied");
    })
    .await;
    assert_eq!(tool_results(&events), vec![("delete_dataset".to_owned(), true, outcomes::DENIED.to_owned())]);
    assert!(events.iter().any(|e| matches!(e.payload, EventPayload::ToolStatus { phase: ToolPhase::Denied, .. })));
    let left = state.services.datasets.list(&me(), None).await.expect("listed");
    assert_eq!(left.len(), 3, "nothing was deleted");
}

#[tokio::test]
async fn cancel_stops_a_running_tool_and_the_run_ends_cancelled() {
    let script = json!({"replies": [{"when": "status", "turns": [
        {"tool_calls": [{"name": "get_system_status", "arguments": {}}]},
        {"chunks": ["never said"]}
    ]}]});
    // Every tool waits 30 s between its intent row and its side effect.
    let (_dir, state) = engine(script, 30_000).await;
    let run_id = start(&state.runs, "system status", "", OnBusy::Reject).await;
    let mut framed = state.runs.subscribe(&me(), &run_id, 0).await.expect("subscribed").framed(None);
    let mut events = Vec::new();
    while let Some(Delivery::Event(e)) = framed.next().await.expect("readable") {
        if matches!(e.payload, EventPayload::ToolStatus { phase: ToolPhase::Running, .. }) {
            assert_eq!(state.runs.cancel(&me(), &run_id).await.expect("cancelled"), RunStatus::Cancelled);
        }
        events.push(e);
    }
    assert_eq!(completed(&events), (RunStatus::Cancelled, String::new()));
    assert_eq!(tool_results(&events), vec![("get_system_status".to_owned(), true, outcomes::CANCELLED.to_owned())]);
    assert_eq!(state.runs.cancel(&me(), &run_id).await.expect("idempotent"), RunStatus::Cancelled);
}

#[tokio::test]
async fn a_busy_thread_rejects_queues_or_is_interrupted_as_asked() {
    let script = json!({"replies": [
        {"when": "slow", "turns": [{"tool_calls": [{"name": "get_system_status", "arguments": {}}]}, {"chunks": ["slow done"]}]},
        {"when": "quick", "turns": [{"chunks": ["quick done"]}]}
    ]});
    let (_dir, state) = engine(script, 30_000).await;
    let runs = &state.runs;
    let slow = start(runs, "slow status", "t1", OnBusy::Reject).await;
    match runs.send_message(&me(), message("quick one", "t1", OnBusy::Reject)).await.expect("answered") {
        Admission::Busy { active_run_id } => assert_eq!(active_run_id, slow),
        other => panic!("a busy thread rejects: {other:?}"),
    }
    let quick = match runs.send_message(&me(), message("quick two", "t1", OnBusy::Interrupt)).await.expect("admitted") {
        Admission::Started { run_id, queued: true, .. } => run_id,
        other => panic!("an interrupting message waits for the thread: {other:?}"),
    };
    let slow_events = events(runs, &slow).await;
    assert_eq!(completed(&slow_events).0, RunStatus::Cancelled, "the interrupted run ends");
    let quick_events = events(runs, &quick).await;
    assert_eq!(completed(&quick_events), (RunStatus::Succeeded, "quick done".to_owned()));
    let EventPayload::RunStarted { parent_run_id, .. } = &quick_events[0].payload else { panic!("RunStarted first") };
    assert_eq!(parent_run_id.as_ref(), Some(&slow), "the new run names the run it interrupted");
    // The thread is free again as soon as RunCompleted is out.
    let again = start(runs, "quick three", "t1", OnBusy::Reject).await;
    assert_eq!(completed(&events(runs, &again).await).0, RunStatus::Succeeded);
}

#[tokio::test]
async fn a_clients_own_tool_call_is_gated_confirmed_and_listed_as_pending_until_a_person_answers() {
    let (_dir, state) = engine(json!({"replies": []}), 0).await;
    let call = |tool: &str, arguments: Value| ClientToolCall { tool: tool.to_owned(), arguments };

    // A read: no model turn, one result; the run's answer is the call's summary.
    let listed = state.runs.call_tool(&me(), &call("list_datasets", json!({}))).await.expect("started");
    let read = events(&state.runs, &listed).await;
    let (status, answer) = completed(&read);
    assert_eq!(status, RunStatus::Succeeded);
    assert_eq!(tool_results(&read), vec![("list_datasets".to_owned(), false, answer.clone())]);
    assert!(answer.contains("3 dataset"), "{answer}");
    let (run, _) = state.services.history.get(&me(), &listed).await.expect("stored");
    assert_eq!(run.kind, aware_domain::run::RunKind::Tool);

    // A viewer's delete is refused by the gate before anything is resolved.
    let viewer = Caller { principal: Principal { role: Role::Viewer, ..Principal::local() }, source: Source::Api };
    let refused = state.runs.call_tool(&viewer, &call("delete_dataset", json!({"dataset": "customer_churn"}))).await;
    let mut framed =
        state.runs.subscribe(&viewer, &refused.expect("started"), 0).await.expect("subscribed").framed(None);
    let mut denied = false;
    while let Some(Delivery::Event(e)) = framed.next().await.expect("readable") {
        denied |= matches!(e.payload, EventPayload::ToolDenied { .. });
    }
    assert!(denied, "the viewer's call was denied");

    // A delete waits for a person: it is listed as pending (with what it will do) until answered.
    let deleting = state
        .runs
        .call_tool(&me(), &call("delete_dataset", json!({"dataset": "customer_churn"})))
        .await
        .expect("started");
    let mut pending = Vec::new();
    for _ in 0..200 {
        pending = state.runs.pending_confirmations(&me()).await.expect("listed");
        if !pending.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!((&pending[0].run_id, pending[0].tool_name.as_str()), (&deleting, "delete_dataset"));
    assert!(pending[0].description.contains("customer"), "{}", pending[0].description);
    assert!(state.runs.pending_confirmations(&someone_else()).await.expect("listed").is_empty());
    let left = state.services.datasets.list(&me(), None).await.expect("listed");
    assert_eq!(left.len(), 3, "nothing is deleted before the answer");
    state.runs.resolve_confirmation(&me(), &pending[0].id, Answer::once(true)).await.expect("approved");
    let deleted = events(&state.runs, &deleting).await;
    assert_eq!(completed(&deleted).0, RunStatus::Succeeded);
    assert!(!tool_results(&deleted)[0].1, "the delete succeeded");
    assert!(state.runs.pending_confirmations(&me()).await.expect("listed").is_empty());
    let left = state.services.datasets.list(&me(), None).await.expect("listed");
    assert!(left.iter().all(|d| d.table_name != "customer_churn"), "the dataset is gone");

    let not_an_object = state.runs.call_tool(&me(), &call("list_datasets", json!([1]))).await.expect_err("refused");
    assert_eq!(not_an_object.code, ErrorCode::ValidationError);
}
