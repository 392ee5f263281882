//! The run engine in process, over the in-memory storage adapters (`aware-memory`) and a scripted
//! model — no app, no SQLite, no worker processes (`support/` builds the engine as the server's
//! `build_state` does). Each test drives runs as a person would (send a message, follow its
//! events, answer a confirmation, cancel, restart the server) and checks what that person would
//! notice; the event sequence of each run is snapshotted (`snapshots/`), so a change to what a
//! run streams shows in review. `server/app/tests/engine.rs` checks the same engine over the
//! real adapters.

#![allow(clippy::unwrap_used)]
#![allow(clippy::wildcard_enum_match_arm)] // a test names the kind it expects: any other kind fails it, or is skipped

mod support;

use aware_core::ErrorCode;
use aware_core::runs::model_view::outcomes;
use aware_core::runs::{
    Admission, Answer, DEFAULT_GRANT, Delivery, NewMessage, OnBusy, RunEngine, Scope, Subscription,
};
use aware_domain::auth::{Caller, Principal, Source};
use aware_domain::contract::snapshots::{Tools, sequence};
use aware_domain::events::{EventPayload, Resolution, RunEvent};
use aware_domain::ids::{ConfirmationId, RunId, UserId};
use aware_domain::ports::MemoryStore;
use aware_domain::ports::model::Message;
use aware_domain::ports::run_log::ToolCalls;
use aware_domain::run::{RunStatus, ToolPhase};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use support::{Scripted, Store, call, say};

// ---------------------------------------------------------------------------------------------
// Driving runs and reading their events.
// ---------------------------------------------------------------------------------------------

/// The local user, through the API: who every test acts as.
fn me() -> Caller {
    Caller { principal: Principal::local(), source: Source::Api }
}

fn owner() -> UserId {
    Principal::local().user_id
}

/// An engine over `store` answering with `model`, recovered as the server starts one.
async fn engine(store: &Store, model: &Arc<Scripted>) -> RunEngine {
    let runs = store.engine(model.clone());
    runs.recover().await.unwrap();
    runs
}

/// Sends `text` to `thread` ("": a new thread) and returns the run it started.
async fn start(runs: &RunEngine, text: &str, thread: &str) -> RunId {
    let message = NewMessage::new("", thread, text, OnBusy::Reject).unwrap();
    match runs.send_message(&me(), message).await.unwrap() {
        Admission::Started { run_id, queued: false, .. } => run_id,
        other => panic!("not started at once: {other:?}"),
    }
}

/// The next event of a subscription; a run that goes quiet for 10 s fails the test rather than
/// hanging it.
async fn next(sub: &mut Subscription) -> Option<Arc<RunEvent>> {
    tokio::time::timeout(Duration::from_secs(10), sub.next())
        .await
        .expect("the run said nothing for 10 s")
        .expect("the log is readable")
}

/// Reads events into `events` until the run asks a person; returns what it asks about.
async fn until_confirmation(sub: &mut Subscription, events: &mut Vec<Arc<RunEvent>>) -> ConfirmationId {
    while let Some(e) = next(sub).await {
        events.push(e.clone());
        if let EventPayload::ConfirmationRequired { confirmation_id, .. } = &e.payload {
            return confirmation_id.clone();
        }
    }
    panic!("the run ended without asking: {}", sequence(events, Tools::Counted));
}

/// Reads events into `events` until the run's `RunCompleted`.
async fn to_end(sub: &mut Subscription, events: &mut Vec<Arc<RunEvent>>) {
    while let Some(e) = next(sub).await {
        events.push(e);
    }
}

/// Every event of a run, from its start to `RunCompleted`.
async fn all_events(runs: &RunEngine, run_id: &RunId) -> Vec<Arc<RunEvent>> {
    let mut sub = runs.subscribe(&me(), run_id, 0).await.unwrap();
    let mut events = Vec::new();
    to_end(&mut sub, &mut events).await;
    events
}

/// The run's status and answer, from its last event (which must be `RunCompleted`).
fn completed(events: &[Arc<RunEvent>]) -> (RunStatus, String) {
    match &events.last().expect("events").payload {
        EventPayload::RunCompleted { status, final_text, .. } => (*status, final_text.clone()),
        other => panic!("the last event is RunCompleted, not {other:?}"),
    }
}

/// Each tool result: the tool, whether it is an error, and what the model was told.
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

/// How many events `is` picks.
fn count(events: &[Arc<RunEvent>], is: impl Fn(&EventPayload) -> bool) -> usize {
    events.iter().filter(|e| is(&e.payload)).count()
}

/// The facts the user has kept, as the memory store has them.
async fn memories(store: &Store) -> Vec<String> {
    store.memories.memories(&owner()).await.unwrap().into_iter().map(|m| m.text).collect()
}

/// The last message the model was given in its `call`-th call (from 0).
fn last_told(model: &Scripted, call: usize) -> Message {
    model.told()[call].last().expect("a transcript").clone()
}

const FACT: &str = "Our fiscal year starts in April";

/// A model that proposes remembering [`FACT`] and then says `reply`.
fn proposes_fact(reply: &str) -> Arc<Scripted> {
    Scripted::new([call("remember", json!({"fact": FACT})), say(&[reply])])
}

// ---------------------------------------------------------------------------------------------
// 1. Chat: text only.
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_text_answer_streams_in_order_and_a_resume_from_any_cursor_gets_exactly_the_rest() {
    let store = Store::new().await;
    let model = Scripted::new([say(&["Hello! ", "Ask me about ", "your data."])]);
    let runs = engine(&store, &model).await;
    let run_id = start(&runs, "hello there", "").await;
    let events = all_events(&runs, &run_id).await;

    assert_eq!(completed(&events), (RunStatus::Succeeded, "Hello! Ask me about your data.".to_owned()));
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::TextDelta { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["Hello! ", "Ask me about ", "your data."], "each piece as the model streamed it, in order");
    assert_eq!(model.told(), [vec![Message::User { text: "hello there".to_owned() }]], "one model call");
    insta::assert_snapshot!("chat_run", sequence(&events, Tools::Counted));

    // The resume seam: from any cursor, exactly the rest of the log, framed; and the same page
    // read at once.
    let last = events.len() as u64;
    for after in 0..=last {
        let mut framed = runs.subscribe(&me(), &run_id, after).await.unwrap().framed(Some(after));
        let mut got = Vec::new();
        while let Some(d) = framed.next().await.unwrap() {
            got.push(d);
        }
        let mut want = vec![Delivery::ReplayStarted { after_seq: after, last_seq_at_start: last }];
        want.extend(events[after as usize..].iter().cloned().map(Delivery::Event));
        want.push(Delivery::ReplayFinished { last_seq: last, live: false });
        assert_eq!(got, want, "resume after {after}");

        let page = runs.events(&me(), &run_id, after, 1_000).await.unwrap();
        let rest: Vec<RunEvent> = events[after as usize..].iter().map(|e| (**e).clone()).collect();
        assert_eq!((page.events, page.status, page.last_seq), (rest, RunStatus::Succeeded, last), "page after {after}");
    }
    let ahead = runs.subscribe(&me(), &run_id, last + 1).await.err().expect("a cursor past the end");
    assert_eq!(ahead.code, ErrorCode::CursorAhead);
}

// ---------------------------------------------------------------------------------------------
// 2. Confirmation: approved, denied.
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn an_approved_remember_waits_for_its_owner_then_runs_once_and_the_fact_is_kept() {
    let store = Store::new().await;
    let model = proposes_fact("Noted.");
    let runs = engine(&store, &model).await;
    let run_id = start(&runs, "Our fiscal year starts in April.", "").await;
    let mut sub = runs.subscribe(&me(), &run_id, 0).await.unwrap();
    let mut events = Vec::new();
    let asked = until_confirmation(&mut sub, &mut events).await;

    // The person is asked about the fact itself, and nothing is kept before they answer.
    let pending = runs.pending_confirmations(&me()).await.unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!((&pending[0].id, pending[0].tool_name.as_str()), (&asked, "remember"));
    assert_eq!(pending[0].description, format!("Remember: “{FACT}”?"));
    assert!(memories(&store).await.is_empty(), "nothing is kept before the answer");
    // A fact is approved once, never for a while: the card stays open.
    let for_a_while = Answer { approved: true, scope: Scope::Session(DEFAULT_GRANT), edited_args: None };
    let refused = runs.resolve_confirmation(&me(), &asked, for_a_while).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::PermissionDenied);
    assert_eq!(runs.pending_confirmations(&me()).await.unwrap().len(), 1, "still waiting");

    let (answered, resolution, grant) = runs.resolve_confirmation(&me(), &asked, Answer::once(true)).await.unwrap();
    assert_eq!((answered, resolution, grant), (run_id.clone(), Resolution::Approved, None));
    to_end(&mut sub, &mut events).await;

    assert_eq!(completed(&events), (RunStatus::Succeeded, "Noted.".to_owned()));
    let results = tool_results(&events);
    assert_eq!(results.len(), 1, "the tool ran once: {results:?}");
    assert_eq!((results[0].0.as_str(), results[0].1), ("remember", false));
    assert_eq!(count(&events, |p| matches!(p, EventPayload::MemorySaved { text, .. } if text == FACT)), 1);
    assert_eq!(memories(&store).await, [FACT], "the fact is kept, once");
    let rows = store.runs.tool_calls(&run_id).await.unwrap();
    assert_eq!(
        rows.iter().map(|r| (r.tool_name.as_str(), r.phase)).collect::<Vec<_>>(),
        [("remember", ToolPhase::Succeeded)]
    );
    assert!(runs.pending_confirmations(&me()).await.unwrap().is_empty());
    match last_told(&model, 1) {
        Message::Tool { name, is_error: false, .. } => assert_eq!(name, "remember"),
        other => panic!("the model is next told the tool's result, not {other:?}"),
    }
    insta::assert_snapshot!("approved_remember_run", sequence(&events, Tools::Counted));
}

#[tokio::test]
async fn a_denied_remember_does_not_run_and_the_model_is_told_so() {
    let store = Store::new().await;
    let model = proposes_fact("I will not keep it.");
    let runs = engine(&store, &model).await;
    let run_id = start(&runs, "Our fiscal year starts in April.", "").await;
    let mut sub = runs.subscribe(&me(), &run_id, 0).await.unwrap();
    let mut events = Vec::new();
    let asked = until_confirmation(&mut sub, &mut events).await;
    let (_, resolution, _) = runs.resolve_confirmation(&me(), &asked, Answer::once(false)).await.unwrap();
    assert_eq!(resolution, Resolution::Denied);
    to_end(&mut sub, &mut events).await;

    assert_eq!(completed(&events), (RunStatus::Succeeded, "I will not keep it.".to_owned()));
    assert_eq!(tool_results(&events), [("remember".to_owned(), true, outcomes::DENIED.to_owned())]);
    assert_eq!(count(&events, |p| matches!(p, EventPayload::ToolStatus { phase: ToolPhase::Running, .. })), 0);
    assert_eq!(count(&events, |p| matches!(p, EventPayload::MemorySaved { .. })), 0);
    assert!(memories(&store).await.is_empty(), "nothing is kept");
    match last_told(&model, 1) {
        Message::Tool { name, content, is_error: true, .. } => {
            assert_eq!((name.as_str(), content.as_str()), ("remember", outcomes::DENIED));
        }
        other => panic!("the model is next told the call was denied, not {other:?}"),
    }
    // The answer is final.
    let changed = runs.resolve_confirmation(&me(), &asked, Answer::once(true)).await.unwrap_err();
    assert_eq!(changed.code, ErrorCode::AlreadyResolved);
    insta::assert_snapshot!("denied_remember_run", sequence(&events, Tools::Counted));
}

// ---------------------------------------------------------------------------------------------
// 3. Cancel while waiting for a person.
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_run_cancelled_while_it_asks_ends_cancelled_and_its_confirmation_closes_cancelled() {
    let store = Store::new().await;
    let model = proposes_fact("never said");
    let runs = engine(&store, &model).await;
    let run_id = start(&runs, "Our fiscal year starts in April.", "").await;
    let mut sub = runs.subscribe(&me(), &run_id, 0).await.unwrap();
    let mut events = Vec::new();
    let asked = until_confirmation(&mut sub, &mut events).await;
    assert_eq!(runs.cancel(&me(), &run_id).await.unwrap(), RunStatus::Cancelled);
    to_end(&mut sub, &mut events).await;

    assert_eq!(completed(&events), (RunStatus::Cancelled, String::new()));
    let closed: Vec<Resolution> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::ConfirmationResolved { confirmation_id, resolution, .. } if *confirmation_id == asked => {
                Some(*resolution)
            }
            _ => None,
        })
        .collect();
    assert_eq!(closed, [Resolution::Cancelled], "the card closes as cancelled");
    assert_eq!(tool_results(&events), [("remember".to_owned(), true, outcomes::CANCELLED.to_owned())]);
    assert!(memories(&store).await.is_empty(), "nothing is kept");
    assert_eq!((model.told().len(), model.left()), (1, 1), "the model is not asked again");
    assert!(runs.pending_confirmations(&me()).await.unwrap().is_empty(), "nothing waits for the person");
    let late = runs.resolve_confirmation(&me(), &asked, Answer::once(true)).await.unwrap_err();
    assert_eq!(late.code, ErrorCode::AlreadyResolved, "a late approval does nothing");
    assert_eq!(runs.cancel(&me(), &run_id).await.unwrap(), RunStatus::Cancelled, "cancel is idempotent");
    insta::assert_snapshot!("cancelled_while_asking_run", sequence(&events, Tools::Counted));
}

// ---------------------------------------------------------------------------------------------
// 4. A crash while a run waits, and the restart.
// ---------------------------------------------------------------------------------------------

/// A runtime of its own: dropping it ends every task it runs where it stands (the run's driver,
/// the heartbeat), as a killed process would — no graceful stop, no lease given up.
fn process() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn a_run_waiting_at_a_crash_is_recovered_and_finishes_once_approved_without_a_gap_or_a_repeat() {
    let model = Scripted::new([call("remember", json!({"fact": FACT})), say(&["Noted, ", "after the restart."])]);

    let first = process();
    let (store, run_id, asked, before) = first.block_on(async {
        let store = Store::new().await;
        let runs = engine(&store, &model).await;
        let run_id = start(&runs, "Our fiscal year starts in April.", "").await;
        let mut sub = runs.subscribe(&me(), &run_id, 0).await.unwrap();
        let mut events = Vec::new();
        let asked = until_confirmation(&mut sub, &mut events).await;
        (store, run_id, asked, events)
    });
    drop(first); // the crash

    process().block_on(async {
        let runs = store.engine(model.clone());
        assert_eq!(runs.recover().await.unwrap(), 1, "the unfinished run is driven again");
        let pending = runs.pending_confirmations(&me()).await.unwrap();
        assert_eq!(pending.iter().map(|c| &c.id).collect::<Vec<_>>(), [&asked], "the same question still waits");

        let mut sub = runs.subscribe(&me(), &run_id, 0).await.unwrap();
        let mut events = Vec::new();
        for _ in 0..before.len() {
            events.push(next(&mut sub).await.expect("the log before the crash"));
        }
        assert_eq!(events, before, "the log up to the crash, as it was streamed then");
        runs.resolve_confirmation(&me(), &asked, Answer::once(true)).await.unwrap();
        to_end(&mut sub, &mut events).await;

        assert_eq!(completed(&events), (RunStatus::Succeeded, "Noted, after the restart.".to_owned()));
        assert_eq!(count(&events, |p| matches!(p, EventPayload::ToolCallStarted { .. })), 1);
        assert_eq!(count(&events, |p| matches!(p, EventPayload::ConfirmationRequired { .. })), 1, "asked once");
        assert_eq!(count(&events, |p| matches!(p, EventPayload::ConfirmationResolved { .. })), 1);
        let results = tool_results(&events);
        assert_eq!(results.len(), 1, "the tool ran once: {results:?}");
        assert_eq!((results[0].0.as_str(), results[0].1), ("remember", false));
        assert_eq!(count(&events, |p| matches!(p, EventPayload::MemorySaved { .. })), 1);
        assert_eq!(memories(&store).await, [FACT]);
        assert_eq!((model.told().len(), model.left()), (2, 0), "one model call before the crash, one after");
        // `sequence` checks seq 1, 2, 3, … with no gap and no repeat across the restart.
        insta::assert_snapshot!("resumed_after_crash_run", sequence(&events, Tools::Counted));
        let stored = runs.events(&me(), &run_id, 0, 1_000).await.unwrap();
        assert_eq!(stored.events.len(), events.len(), "the stored log is what was streamed");
    });
}

// ---------------------------------------------------------------------------------------------
// 5. Session grants.
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn approving_for_a_while_lets_the_same_tool_on_the_same_dataset_run_again_unasked_but_not_another() {
    let store = Store::new().await;
    let sales = store.add_dataset(&owner(), "sales", &["region", "amount"]).await;
    let customers = store.add_dataset(&owner(), "customers", &["name", "city"]).await;
    let model = Scripted::new([
        // The first run.
        call("describe_dataset", json!({"dataset": "sales", "description": "Orders from the web shop"})),
        say(&["Described."]),
        // The second run, in the same thread.
        call("describe_dataset", json!({"dataset": "sales", "description": "One row per web shop order"})),
        call("describe_dataset", json!({"dataset": "customers", "description": "People who ordered"})),
        say(&["Both described."]),
    ]);
    let runs = engine(&store, &model).await;

    // Asked, and approved for a while.
    let first = start(&runs, "describe sales as orders from the web shop", "shop").await;
    let mut sub = runs.subscribe(&me(), &first, 0).await.unwrap();
    let mut events = Vec::new();
    let asked = until_confirmation(&mut sub, &mut events).await;
    match &events.last().unwrap().payload {
        EventPayload::ConfirmationRequired { grantable, resource, .. } => {
            assert!(grantable, "a STANDARD change may be allowed for a while");
            assert_eq!(resource.id, sales.id.as_str());
        }
        other => panic!("asked, not {other:?}"),
    }
    let for_a_while = Answer { approved: true, scope: Scope::Session(DEFAULT_GRANT), edited_args: None };
    let (_, resolution, grant) = runs.resolve_confirmation(&me(), &asked, for_a_while).await.unwrap();
    assert_eq!(resolution, Resolution::Approved);
    let grant = grant.expect("a grant is made");
    to_end(&mut sub, &mut events).await;
    assert_eq!(completed(&events), (RunStatus::Succeeded, "Described.".to_owned()));
    assert_eq!(store.dataset(&owner(), &sales.id).await.description, "Orders from the web shop");
    let grants = runs.grants(&me()).await.unwrap();
    let granted: Vec<_> = grants.iter().map(|g| (&g.id, g.tool_name.as_str(), g.resource_class.clone())).collect();
    assert_eq!(granted, [(&grant, "describe_dataset", format!("dataset:{}", sales.id))]);
    insta::assert_snapshot!("granted_describe_first_run", sequence(&events, Tools::Counted));

    // The same tool on the same dataset runs without asking; another dataset still asks.
    let second = start(&runs, "describe sales as one row per order, and customers as people who ordered", "shop").await;
    let mut sub = runs.subscribe(&me(), &second, 0).await.unwrap();
    let mut events = Vec::new();
    let asked = until_confirmation(&mut sub, &mut events).await;
    let by_grant: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::ConfirmationResolved { resolution, grant_id, .. } => Some((*resolution, grant_id.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(by_grant, [(Resolution::Approved, Some(grant.clone()))], "the sales change was approved by the grant");
    assert_eq!(
        tool_results(&events).iter().map(|r| (r.0.as_str(), r.1)).collect::<Vec<_>>(),
        [("describe_dataset", false)]
    );
    assert_eq!(store.dataset(&owner(), &sales.id).await.description, "One row per web shop order");
    let pending = runs.pending_confirmations(&me()).await.unwrap();
    assert_eq!(
        pending.iter().map(|c| (&c.id, c.resource.id.as_str())).collect::<Vec<_>>(),
        [(&asked, customers.id.as_str())]
    );
    assert_eq!(store.dataset(&owner(), &customers.id).await.description, "", "not before the person answers");
    runs.resolve_confirmation(&me(), &asked, Answer::once(true)).await.unwrap();
    to_end(&mut sub, &mut events).await;

    assert_eq!(completed(&events), (RunStatus::Succeeded, "Both described.".to_owned()));
    assert_eq!(
        count(&events, |p| matches!(p, EventPayload::ConfirmationRequired { .. })),
        1,
        "asked once, for customers"
    );
    assert_eq!(store.dataset(&owner(), &customers.id).await.description, "People who ordered");
    let uses = store.audit.actions().into_iter().filter(|a| a.starts_with("grant.")).collect::<Vec<_>>();
    assert_eq!(uses, ["grant.create", "grant.use"], "the grant and its one use are audited");
    insta::assert_snapshot!("granted_describe_second_run", sequence(&events, Tools::Counted));
}
