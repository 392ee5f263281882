//! The contract of the [`RunLog`] port: what the run engine relies on to keep its guarantees
//! (no event lost or repeated, resume without a gap, at most once for side effects, one answer
//! per confirmation) whatever stores it.

use super::{ana, bo};
use crate::auth::Role;
use crate::events::{EventPayload, Resolution, ResourceRef, RunEvent, Tier};
use crate::ids::{ApiKeyId, ConfirmationId, RunId, ThreadId, ToolCallId, UserId};
use crate::ports::model::Message;
use crate::ports::run_log::{ChatRun, Claim, Confirmation, Created, Lease, Place, RunLog, Snapshot, SpanRecord};
use crate::run::ToolCallRow;
use crate::run::ToolPhase;
use crate::run::{RunKind, RunOutcome, RunRecord, RunStatus, Usage};
use chrono::{Duration, Utc};

/// Runs every check of the contract on `log`, a fresh (empty) adapter whose users `ana` and
/// `bo` exist.
pub async fn run_log(log: &dyn RunLog) {
    threads_belong_to_one_user_and_keep_the_newest_snapshot(log).await;
    a_client_message_id_starts_one_run(log).await;
    events_are_contiguous_from_1_and_read_back_in_order(log).await;
    completing_a_run_appends_its_last_event_and_ends_it(log).await;
    the_transcript_and_the_thread_history_keep_their_order(log).await;
    a_tool_call_has_its_intent_before_its_result(log).await;
    a_confirmation_is_resolved_once(log).await;
    spans_are_kept_per_run(log).await;
    one_run_holds_a_thread_and_the_queue_behind_it_keeps_its_order(log).await;
    a_users_unfinished_runs_are_capped_by_the_insert_itself(log).await;
    a_replica_keeps_its_runs_while_it_renews_and_another_takes_them_over_after(log).await;
    a_queued_run_being_cancelled_is_driven_without_holding_its_thread(log).await;
}

/// A lease of `replica` for a minute from now.
pub(super) fn lease(replica: &str) -> Lease {
    Lease { replica: replica.to_owned(), until: Utc::now() + Duration::seconds(60) }
}

async fn new_run(log: &dyn RunLog, owner: &UserId, thread: &ThreadId, client_msg_id: Option<&str>) -> ChatRun {
    assert!(log.ensure_thread(owner, thread).await.expect("thread"));
    let mut record = RunRecord::new(owner.clone(), RunKind::Chat, "what are my files?", RunStatus::Running);
    record.thread_id = Some(thread.clone());
    record.client_msg_id = client_msg_id.map(str::to_owned);
    let run = ChatRun { record, role: Role::Analyst, key: Some(ApiKeyId::generate()), cancel: None };
    match log.create_chat_run(&run, Place::Drive(&lease("a")), u32::MAX).await.expect("created") {
        Created::New => {
            let stored = log.chat_run(&run.record.id).await.expect("read").expect("stored");
            assert_eq!((stored.role, &stored.key), (run.role, &run.key), "a run keeps whom it acts as");
            run
        }
        Created::Existing(id) | Created::Busy(id) => panic!("a new run was refused for {id}"),
        Created::Full => panic!("a new run was refused as over the cap"),
    }
}

/// A run of `thread` placed as `place` says (queued unless it is driven).
async fn placed_run(log: &dyn RunLog, thread: &ThreadId, place: Place<'_>) -> (ChatRun, Created) {
    assert!(log.ensure_thread(&ana(), thread).await.expect("thread"));
    let status = if let Place::Drive(_) = place { RunStatus::Running } else { RunStatus::Queued };
    let mut record = RunRecord::new(ana(), RunKind::Chat, "and now?", status);
    record.thread_id = Some(thread.clone());
    let run = ChatRun { record, role: Role::Analyst, key: None, cancel: None };
    let created = log.create_chat_run(&run, place, u32::MAX).await.expect("answered");
    (run, created)
}

async fn finish(log: &dyn RunLog, run: &ChatRun) {
    let usage = Usage::default();
    let seq = log.last_seq(&run.record.id).await.expect("read") + 1;
    let last = event(
        run,
        seq,
        EventPayload::RunCompleted {
            status: RunStatus::Succeeded,
            error: None,
            usage,
            final_text: String::new(),
            outcome: Some(RunOutcome::Answered),
            follow_ups: Vec::new(),
        },
    );
    log.complete_chat_run(&last, RunStatus::Succeeded, None, &usage, "", None).await.expect("completed");
}

async fn one_run_holds_a_thread_and_the_queue_behind_it_keeps_its_order(log: &dyn RunLog) {
    let thread = ThreadId::generate_for(&ana());
    let before = log.thread_state(&thread, &ana()).await.expect("read").unfinished_of_owner;
    let (first, created) = placed_run(log, &thread, Place::Drive(&lease("a"))).await;
    assert!(matches!(created, Created::New));
    assert_eq!(log.thread_state(&thread, &ana()).await.expect("read").holder, Some(first.record.id.clone()));
    let (_, second) = placed_run(log, &thread, Place::Drive(&lease("b"))).await;
    match second {
        Created::Busy(holder) => assert_eq!(holder, first.record.id, "the store names the run holding the thread"),
        Created::New | Created::Existing(_) | Created::Full => panic!("a second run held the same thread"),
    }
    let waiting = log.queued_runs().await.expect("counted");
    assert!(!log.thread_state(&thread, &ana()).await.expect("read").waiting);
    let (last_in_line, _) = placed_run(log, &thread, Place::Queue { first: false }).await;
    let (first_in_line, _) = placed_run(log, &thread, Place::Queue { first: true }).await;
    let state = log.thread_state(&thread, &ana()).await.expect("read");
    assert_eq!(state.unfinished_of_owner, before + 3, "queued runs count too");
    assert!(state.waiting, "and wait in the thread");
    assert_eq!(log.queued_runs().await.expect("counted"), waiting + 2);
    assert!(log.promote_queued(Some(&thread), &lease("a")).await.expect("none").is_empty(), "the thread is held");
    finish(log, &first).await;
    assert_eq!(log.thread_state(&thread, &ana()).await.expect("read").holder, None, "a finished run lets go");
    let promoted = log.promote_queued(None, &lease("b")).await.expect("promoted");
    assert_eq!(
        promoted,
        std::slice::from_ref(&first_in_line.record.id),
        "an interrupting message goes first, and alone"
    );
    let stored = log.chat_run(&first_in_line.record.id).await.expect("read").expect("stored");
    assert_eq!(stored.record.status, RunStatus::Running);
    assert!(log.promote_queued(None, &lease("b")).await.expect("none").is_empty(), "one run at a time");
    finish(log, &stored).await;
    let promoted = log.promote_queued(Some(&thread), &lease("b")).await.expect("promoted");
    assert_eq!(promoted, std::slice::from_ref(&last_in_line.record.id));
    let held: Vec<RunId> =
        log.renew_leases(&lease("b")).await.expect("renewed").into_iter().map(|(id, _)| id).collect();
    assert!(held.contains(&last_in_line.record.id), "a promoted run is leased to the replica that promoted it");
}

/// A run of `bo` on a new thread of its own, placed as `place` says, under a cap of `max`.
async fn capped_run(log: &dyn RunLog, place: Place<'_>, max: u32) -> (ChatRun, Created) {
    let thread = ThreadId::generate_for(&bo());
    assert!(log.ensure_thread(&bo(), &thread).await.expect("thread"));
    let status = if let Place::Drive(_) = place { RunStatus::Running } else { RunStatus::Queued };
    let mut record = RunRecord::new(bo(), RunKind::Chat, "how many?", status);
    record.thread_id = Some(thread);
    let run = ChatRun { record, role: Role::Analyst, key: None, cancel: None };
    let created = log.create_chat_run(&run, place, max).await.expect("answered");
    (run, created)
}

async fn a_users_unfinished_runs_are_capped_by_the_insert_itself(log: &dyn RunLog) {
    let any = ThreadId::generate_for(&bo());
    let before = log.thread_state(&any, &bo()).await.expect("read").unfinished_of_owner;
    let max = before + 2;
    let (first, created) = capped_run(log, Place::Drive(&lease("a")), max).await;
    assert!(matches!(created, Created::New));
    assert!(matches!(capped_run(log, Place::Queue { first: false }, max).await.1, Created::New), "queued runs count");
    let (over, created) = capped_run(log, Place::Drive(&lease("a")), max).await;
    assert!(matches!(created, Created::Full), "a third unfinished run passes a cap of two more");
    assert!(log.chat_run(&over.record.id).await.expect("read").is_none(), "and nothing of it is stored");
    assert!(matches!(capped_run(log, Place::Queue { first: true }, max).await.1, Created::Full), "queued or not");
    assert!(
        matches!(capped_run(log, Place::Drive(&lease("a")), u32::MAX).await.1, Created::New),
        "the cap is the caller's"
    );
    finish(log, &first).await;
    assert!(
        matches!(capped_run(log, Place::Drive(&lease("a")), max + 1).await.1, Created::New),
        "a finished run makes room"
    );
    // Admissions of one user on different threads at the same moment (no lock around them): as
    // many are stored as the cap leaves room for, not one more.
    let now = log.thread_state(&any, &bo()).await.expect("read").unfinished_of_owner;
    let a = lease("a");
    let racing = futures::future::join_all((0..8).map(|_| capped_run(log, Place::Drive(&a), now + 3))).await;
    let stored = racing.iter().filter(|(_, c)| matches!(c, Created::New)).count();
    assert_eq!(stored, 3, "eight at once under room for three");
    assert_eq!(log.thread_state(&any, &bo()).await.expect("read").unfinished_of_owner, now + 3);
}

async fn a_replica_keeps_its_runs_while_it_renews_and_another_takes_them_over_after(log: &dyn RunLog) {
    let thread = ThreadId::generate_for(&ana());
    let short = Lease { replica: "c".into(), until: Utc::now() + Duration::milliseconds(300) };
    let (run, _) = placed_run(log, &thread, Place::Drive(&short)).await;
    let id = &run.record.id;
    let now = Utc::now();
    let taken = log.claim_runs(&lease("d"), now, Claim::Expired).await.expect("claimed");
    assert!(!taken.iter().any(|r| &r.record.id == id), "a run under a lease in force is not taken");
    assert!(log.claim_runs(&lease("d"), now, Claim::Run(id)).await.expect("claimed").is_empty());
    let renewed = log.renew_leases(&short).await.expect("renewed");
    assert!(renewed.iter().any(|(r, cancel)| r == id && cancel.is_none()), "its replica renews it");
    log.request_cancel(id, Resolution::Superseded).await.expect("cancel");
    log.request_cancel(id, Resolution::Cancelled).await.expect("again");
    let renewed = log.renew_leases(&short).await.expect("renewed");
    assert!(
        renewed.iter().any(|(r, cancel)| r == id && *cancel == Some(Resolution::Superseded)),
        "and hears of a cancel, with the first reason given, when it renews"
    );
    let later = short.until + Duration::milliseconds(1);
    let taken = log.claim_runs(&lease("d"), later, Claim::Expired).await.expect("claimed");
    let taken: Vec<&ChatRun> = taken.iter().filter(|r| &r.record.id == id).collect();
    assert_eq!(taken.len(), 1, "an expired lease is taken over");
    assert_eq!(taken[0].cancel, Some(Resolution::Superseded), "why it is to end is kept");
    assert_eq!(taken[0].record.thread_id.as_ref(), Some(&thread));
    assert!(
        !log.renew_leases(&short).await.expect("renewed").iter().any(|(r, _)| r == id),
        "the replica that stopped no longer holds it"
    );
    assert!(
        log.claim_runs(&lease("e"), later, Claim::Expired).await.expect("claimed").iter().all(|r| &r.record.id != id)
    );
    log.release_leases("d").await.expect("released");
    let taken = log.claim_runs(&lease("e"), Utc::now(), Claim::Run(id)).await.expect("claimed");
    assert_eq!(taken.len(), 1, "a lease given up is taken over at once");
    let every = log.claim_runs(&lease("f"), Utc::now(), Claim::Every).await.expect("claimed");
    assert!(every.iter().any(|r| &r.record.id == id), "a store's only server takes every unfinished run");
    finish(log, &run).await;
    assert!(
        log.claim_runs(&lease("g"), Utc::now(), Claim::Every)
            .await
            .expect("claimed")
            .iter()
            .all(|r| &r.record.id != id)
    );
}

async fn a_queued_run_being_cancelled_is_driven_without_holding_its_thread(log: &dyn RunLog) {
    let thread = ThreadId::generate_for(&ana());
    let (holder, _) = placed_run(log, &thread, Place::Drive(&lease("a"))).await;
    let (queued, _) = placed_run(log, &thread, Place::Queue { first: false }).await;
    let id = &queued.record.id;
    assert!(
        log.claim_runs(&lease("b"), Utc::now(), Claim::Run(id)).await.expect("none").is_empty(),
        "nothing to drive yet"
    );
    log.request_cancel(id, Resolution::Cancelled).await.expect("cancel");
    let taken = log.claim_runs(&lease("b"), Utc::now(), Claim::Run(id)).await.expect("claimed");
    assert_eq!(taken.len(), 1, "a cancelled queued run needs a driver to end it");
    log.start_run(&started(&queued, 1), 1).await.expect("started");
    let stored = log.chat_run(id).await.expect("read").expect("stored");
    assert_eq!(stored.record.status, RunStatus::Queued, "it never holds the thread");
    assert_eq!(log.thread_state(&thread, &ana()).await.expect("read").holder, Some(holder.record.id.clone()));
    finish(log, &holder).await;
    assert!(
        log.promote_queued(Some(&thread), &lease("a")).await.expect("none").is_empty(),
        "a cancelled run is not started"
    );
}

fn event(run: &ChatRun, seq: u64, payload: EventPayload) -> RunEvent {
    RunEvent {
        run_id: run.record.id.clone(),
        seq,
        time: Utc::now(),
        iteration: 1,
        thread_id: run.record.thread_id.clone().expect("a chat run has a thread"),
        payload,
    }
}

/// `run`'s first event, as its driver makes it.
fn started(run: &ChatRun, ui_state_version: u64) -> RunEvent {
    let mut first = event(
        run,
        1,
        EventPayload::RunStarted {
            user_text: run.record.question.clone(),
            ui_state_version,
            max_iterations: 5,
            parent_run_id: None,
            model: String::new(),
            client_msg_id: String::new(),
            tools: Vec::new(),
        },
    );
    first.time = run.record.created_at;
    first
}

fn delta(text: &str) -> EventPayload {
    EventPayload::TextDelta { message_id: "m1".into(), delta: text.into() }
}

/// What the log must give back of an event (its time may lose precision below a microsecond).
fn shape(e: &RunEvent) -> (RunId, u64, u32, ThreadId, EventPayload) {
    (e.run_id.clone(), e.seq, e.iteration, e.thread_id.clone(), e.payload.clone())
}

async fn threads_belong_to_one_user_and_keep_the_newest_snapshot(log: &dyn RunLog) {
    let thread = ThreadId::generate_for(&ana());
    assert!(log.ensure_thread(&ana(), &thread).await.expect("created"), "a new thread is its creator's");
    assert!(log.ensure_thread(&ana(), &thread).await.expect("again"), "and stays theirs");
    assert!(!log.ensure_thread(&bo(), &thread).await.expect("someone else"), "never another user's");
    assert_eq!(log.snapshot(&thread).await.expect("read"), None);
    let at = |v: u64, route: &str| Snapshot {
        thread_id: Some(thread.clone()),
        ui_state_version: v,
        current_route: route.into(),
        ..Snapshot::default()
    };
    assert_eq!(log.save_snapshot(&thread, &at(5, "/datasets")).await.expect("saved"), 5);
    assert_eq!(log.save_snapshot(&thread, &at(3, "/old")).await.expect("older"), 5, "an older snapshot is ignored");
    assert_eq!(log.snapshot(&thread).await.expect("read"), Some(at(5, "/datasets")));
    assert_eq!(log.save_snapshot(&thread, &at(6, "/runs")).await.expect("newer"), 6);
    assert_eq!(log.snapshot(&thread).await.expect("read").map(|s| s.current_route), Some("/runs".into()));
}

async fn a_client_message_id_starts_one_run(log: &dyn RunLog) {
    let thread = ThreadId::generate_for(&ana());
    let run = new_run(log, &ana(), &thread, Some("msg-1")).await;
    let mut again = run.clone();
    again.record.id = RunId::generate();
    match log.create_chat_run(&again, Place::Drive(&lease("b")), u32::MAX).await.expect("answered") {
        Created::Existing(id) => assert_eq!(id, run.record.id, "the same message is the same run"),
        Created::New | Created::Busy(_) | Created::Full => panic!("a second run for one client message id"),
    }
    assert_eq!(log.run_by_client_msg(&ana(), "msg-1").await.expect("found"), Some(run.record.id.clone()));
    assert_eq!(log.run_by_client_msg(&bo(), "msg-1").await.expect("looked up"), None, "ids are per user");
    let stored = log.chat_run(&run.record.id).await.expect("read").expect("stored");
    assert_eq!((stored.role, stored.cancel), (Role::Analyst, None));
    assert_eq!(stored.record.question, "what are my files?");
    assert_eq!(stored.record.thread_id.as_ref(), Some(&thread));
    assert_eq!(log.chat_run(&RunId::generate()).await.expect("read"), None);

    log.start_run(&started(&run, 7), 7).await.expect("started");
    assert_eq!(log.events(&run.record.id, 0, 10).await.expect("read"), vec![started(&run, 7)], "with its first event");
    log.set_run_route(&run.record.id, "{\"intent\":\"query\"}").await.expect("route");
    log.request_cancel(&run.record.id, Resolution::Cancelled).await.expect("cancel");
    let stored = log.chat_run(&run.record.id).await.expect("read").expect("stored");
    assert_eq!((stored.record.status, stored.record.ui_state_version), (RunStatus::Running, 7));
    assert_eq!(stored.cancel, Some(Resolution::Cancelled), "a cancel request survives a restart");
    assert_eq!(log.run_route(&run.record.id).await.expect("read").as_deref(), Some("{\"intent\":\"query\"}"));
    let unfinished = log.claim_runs(&lease("a"), Utc::now(), Claim::Every).await.expect("listed");
    assert!(unfinished.iter().any(|r| r.record.id == run.record.id), "a running run is unfinished");
    let ids: Vec<&RunId> = unfinished.iter().map(|r| &r.record.id).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "oldest first");
}

async fn events_are_contiguous_from_1_and_read_back_in_order(log: &dyn RunLog) {
    let run = new_run(log, &ana(), &ThreadId::generate_for(&ana()), None).await;
    let id = &run.record.id;
    assert_eq!(log.last_seq(id).await.expect("read"), 0, "an empty log ends at 0");
    let written: Vec<RunEvent> = (1..=5).map(|seq| event(&run, seq, delta(&format!("part {seq}")))).collect();
    for e in &written {
        log.append_event(e).await.expect("appended");
    }
    assert_eq!(log.last_seq(id).await.expect("read"), 5);
    let all: Vec<_> = log.events(id, 0, u32::MAX).await.expect("read").iter().map(shape).collect();
    assert_eq!(all, written.iter().map(shape).collect::<Vec<_>>());
    let page: Vec<u64> = log.events(id, 2, 2).await.expect("read").iter().map(|e| e.seq).collect();
    assert_eq!(page, [3, 4], "after a cursor, at most `limit`");
    assert!(log.events(id, 5, 10).await.expect("read").is_empty());
    assert!(log.events(id, u64::MAX, 10).await.expect("read").is_empty(), "a cursor past the end is no error here");
    let twice = log.append_event(&event(&run, 3, delta("again"))).await;
    assert!(twice.is_err(), "a seq is written once");
    let third = log.events(id, 2, 1).await.expect("read");
    assert_eq!(third[0].payload, delta("part 3"), "and the first write stays");
    let other = new_run(log, &ana(), &ThreadId::generate_for(&ana()), None).await;
    assert!(log.events(&other.record.id, 0, 10).await.expect("read").is_empty(), "logs are per run");
}

async fn completing_a_run_appends_its_last_event_and_ends_it(log: &dyn RunLog) {
    let run = new_run(log, &ana(), &ThreadId::generate_for(&ana()), None).await;
    let id = &run.record.id;
    log.append_event(&event(&run, 1, delta("hello"))).await.expect("appended");
    let usage = Usage { input_tokens: 10, output_tokens: 3, model_calls: 1, ..Usage::default() };
    let last = event(
        &run,
        2,
        EventPayload::RunCompleted {
            status: RunStatus::Succeeded,
            error: None,
            usage,
            final_text: "hello".into(),
            outcome: Some(RunOutcome::Denied),
            follow_ups: Vec::new(),
        },
    );
    log.complete_chat_run(&last, RunStatus::Succeeded, None, &usage, "hello", None).await.expect("completed");
    assert_eq!(log.last_seq(id).await.expect("read"), 2);
    let events = log.events(id, 1, 10).await.expect("read");
    assert!(events.len() == 1 && events[0].is_terminal(), "the last event is in the log");
    let stored = log.chat_run(id).await.expect("read").expect("stored");
    assert_eq!((stored.record.status, stored.record.final_text.as_str()), (RunStatus::Succeeded, "hello"));
    assert_eq!(stored.record.usage.input_tokens, 10);
    assert_eq!(stored.record.outcome, Some(RunOutcome::Denied), "what the run came to, apart from its status");
    assert!(
        !log.claim_runs(&lease("a"), Utc::now(), Claim::Every)
            .await
            .expect("listed")
            .iter()
            .any(|r| &r.record.id == id)
    );
    log.set_run_status(id, RunStatus::Running).await.expect("answered");
    let stored = log.chat_run(id).await.expect("read").expect("stored");
    assert_eq!(stored.record.status, RunStatus::Succeeded, "a finished run stays finished");
}

async fn the_transcript_and_the_thread_history_keep_their_order(log: &dyn RunLog) {
    let thread = ThreadId::generate_for(&ana());
    let user = |t: &str| Message::User { text: t.into() };
    let answer = |t: &str| Message::Assistant { text: t.into(), tool_calls: Vec::new() };
    let mut finished = Vec::new();
    for n in 1..=3 {
        let run = new_run(log, &ana(), &thread, None).await;
        log.append_message(&run.record.id, 0, &user(&format!("q{n}"))).await.expect("appended");
        log.append_message(&run.record.id, 1, &answer(&format!("a{n}"))).await.expect("appended");
        let last = event(
            &run,
            1,
            EventPayload::RunCompleted {
                status: RunStatus::Succeeded,
                error: None,
                usage: Usage::default(),
                final_text: String::new(),
                // A log written before outcomes: the status tells it.
                outcome: None,
                follow_ups: Vec::new(),
            },
        );
        log.complete_chat_run(&last, RunStatus::Succeeded, None, &Usage::default(), "", None).await.expect("done");
        finished.push(run);
    }
    let current = new_run(log, &ana(), &thread, None).await;
    log.append_message(&current.record.id, 0, &user("now")).await.expect("appended");
    assert_eq!(log.messages(&current.record.id).await.expect("read"), [user("now")]);
    assert_eq!(log.messages(&finished[0].record.id).await.expect("read"), [user("q1"), answer("a1")]);
    let old_log = log.chat_run(&finished[0].record.id).await.expect("read").expect("stored");
    assert_eq!(old_log.record.outcome, Some(RunOutcome::Answered), "without an outcome, succeeded is answered");
    let history = log.thread_history(&thread, &current.record.id, 2).await.expect("read");
    assert_eq!(history, [user("q2"), answer("a2"), user("q3"), answer("a3")], "the last 2 runs, oldest first");
    let before_second = log.thread_history(&thread, &finished[1].record.id, 10).await.expect("read");
    assert_eq!(before_second, [user("q1"), answer("a1")], "only runs before the given one");
}

async fn a_tool_call_has_its_intent_before_its_result(log: &dyn RunLog) {
    let run = new_run(log, &ana(), &ThreadId::generate_for(&ana()), None).await;
    let row = |id: &ToolCallId, phase| ToolCallRow {
        id: id.clone(),
        run_id: run.record.id.clone(),
        iteration: 1,
        tool_name: "delete_dataset".into(),
        arguments_json: "{\"dataset\":\"churn\"}".into(),
        phase,
        llm_summary: None,
        result_json: None,
        duration_ms: None,
    };
    let first = ToolCallId::generate();
    log.record_tool_intent(&row(&first, ToolPhase::Running)).await.expect("intent");
    let rows = log.tool_calls(&run.record.id).await.expect("read");
    assert_eq!(rows, [row(&first, ToolPhase::Running)], "an intent without a result reads as running");
    let done = ToolCallRow {
        llm_summary: Some("Deleted.".into()),
        result_json: Some("{}".into()),
        duration_ms: Some(12),
        ..row(&first, ToolPhase::Succeeded)
    };
    log.record_tool_result(&done).await.expect("result");
    // A refusal has a result and no intent.
    let second = ToolCallId::generate();
    let refused =
        ToolCallRow { llm_summary: Some("no".into()), duration_ms: Some(0), ..row(&second, ToolPhase::Denied) };
    log.record_tool_result(&refused).await.expect("result");
    assert_eq!(log.tool_calls(&run.record.id).await.expect("read"), [done, refused], "one row per call, in order");
}

async fn a_confirmation_is_resolved_once(log: &dyn RunLog) {
    let run = new_run(log, &ana(), &ThreadId::generate_for(&ana()), None).await;
    let now = Utc::now();
    let call = ToolCallId::generate();
    let c = Confirmation {
        id: ConfirmationId::generate(),
        owner: ana(),
        run_id: run.record.id.clone(),
        tool_call_id: call.clone(),
        tool_name: "delete_dataset".into(),
        resource: ResourceRef { kind: "dataset".into(), id: "ds_1".into(), display_name: "churn.csv".into() },
        args_sha256: "ab".repeat(32),
        tier: Tier::Elevated,
        status: Resolution::Pending,
        created_at: now,
        expires_at: now + Duration::seconds(60),
        description: "Delete churn.csv".into(),
        edited_args: None,
        grant_id: None,
        bound_version: Some("9f".repeat(32)),
    };
    log.create_confirmation(&c).await.expect("created");
    let read = log.confirmation(&c.id).await.expect("read").expect("stored");
    assert_eq!((read.status, &read.resource, read.tier), (Resolution::Pending, &c.resource, Tier::Elevated));
    assert_eq!(read.description, "Delete churn.csv");
    assert_eq!(read.bound_version, c.bound_version, "the version the approval binds to is kept");
    // Pending ones are listed for their owner only, oldest first, until they expire.
    let later = Confirmation {
        id: ConfirmationId::generate(),
        tool_call_id: ToolCallId::generate(),
        created_at: now + Duration::seconds(1),
        expires_at: now + Duration::seconds(5),
        ..c.clone()
    };
    log.create_confirmation(&later).await.expect("created");
    let ids = |v: Vec<Confirmation>| v.into_iter().map(|x| x.id).collect::<Vec<_>>();
    let pending = log.pending_confirmations(&ana(), now).await.expect("listed");
    assert_eq!(ids(pending), [c.id.clone(), later.id.clone()]);
    assert!(log.pending_confirmations(&bo(), now).await.expect("listed").is_empty(), "another user's are not theirs");
    let after_expiry = log.pending_confirmations(&ana(), now + Duration::seconds(10)).await.expect("listed");
    assert_eq!(ids(after_expiry), std::slice::from_ref(&c.id), "an expired one is not waiting any more");
    assert_eq!(log.confirmation_for_call(&call).await.expect("read").map(|x| x.id), Some(c.id.clone()));
    assert_eq!(log.confirmation(&ConfirmationId::generate()).await.expect("read"), None);
    assert!(log.resolve_confirmation(&c.id, Resolution::Approved, Some(&ana()), None).await.expect("resolved"));
    assert!(
        !log.resolve_confirmation(&c.id, Resolution::Denied, Some(&ana()), None).await.expect("answered"),
        "only a pending confirmation changes"
    );
    assert!(!log.resolve_confirmation(&c.id, Resolution::Approved, None, None).await.expect("answered"));
    assert_eq!(log.confirmation(&c.id).await.expect("read").map(|x| x.status), Some(Resolution::Approved));
    assert_eq!(ids(log.pending_confirmations(&ana(), now).await.expect("listed")), [later.id], "answered: gone");
}

async fn spans_are_kept_per_run(log: &dyn RunLog) {
    let run = new_run(log, &ana(), &ThreadId::generate_for(&ana()), None).await;
    let start = Utc::now() - Duration::seconds(2);
    let span = |id: &str, offset: i64| SpanRecord {
        span_id: id.into(),
        parent_span_id: (id != "run").then(|| "run".to_owned()),
        kind: if id == "run" { "run".into() } else { "tool_call".into() },
        name: id.into(),
        start: start + Duration::milliseconds(offset),
        end: start + Duration::milliseconds(offset + 5),
        attributes: serde_json::Map::from_iter([("n".to_owned(), serde_json::json!(offset))]),
    };
    log.insert_span(&run.record.id, &span("tool", 10)).await.expect("inserted");
    log.insert_span(&run.record.id, &span("run", 0)).await.expect("inserted");
    let names: Vec<String> = log.spans(&run.record.id).await.expect("read").into_iter().map(|s| s.span_id).collect();
    assert_eq!(names, ["run", "tool"], "by start time");
    let read = log.spans(&run.record.id).await.expect("read");
    assert_eq!(read[1].attributes, span("tool", 10).attributes);
    assert_eq!(read[1].parent_span_id.as_deref(), Some("run"));
    let other = new_run(log, &ana(), &ThreadId::generate_for(&ana()), None).await;
    assert!(log.spans(&other.record.id).await.expect("read").is_empty());
}
