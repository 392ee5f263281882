//! The contracts of conversations: threads listed, renamed, forked (a run copied with its
//! transcript and events) and deleted with their runs; session grants in force until expiry or
//! revocation; an approval's edited arguments kept; feedback on runs; memories and saved queries per user.

use super::{ana, bo};
use crate::ErrorCode;
use crate::auth::Role;
use crate::events::{EventPayload, Resolution, ResourceRef, RunEvent, Tier};
use crate::ids::{ConfirmationId, GrantId, MemoryId, RunId, SavedQueryId, ThreadId, ToolCallId};
use crate::ports::model::Message;
use crate::ports::run_log::{ChatRun, Confirmation, Place, RunLog, SessionGrant, TitleIf};
use crate::ports::{Memory, MemoryStore, RunStore, SavedQueries, SavedQuery};
use crate::run::{Feedback, Rating, RunKind, RunOutcome, RunRecord, RunStatus, Usage};
use chrono::{Duration, Utc};

/// Runs every check on `store`, a fresh adapter whose users `ana` and `bo` exist.
pub async fn conversations<S: RunLog + RunStore>(store: &S) {
    threads_are_listed_renamed_forked_and_deleted(store).await;
    a_session_grant_is_in_force_until_it_expires_or_is_revoked(store).await;
    an_approval_keeps_its_edited_arguments(store).await;
    feedback_is_one_per_run_and_filters_the_list(store).await;
}

async fn finished_run(log: &dyn RunLog, thread: &ThreadId, question: &str, outcome: RunOutcome) -> ChatRun {
    let owner = ana();
    assert!(log.ensure_thread(&owner, thread).await.expect("thread"));
    let mut record = RunRecord::new(owner, RunKind::Chat, question, RunStatus::Running);
    record.thread_id = Some(thread.clone());
    let run = ChatRun { record, role: Role::Analyst, key: None, cancel: None };
    log.create_chat_run(&run, Place::Drive(&super::run_log::lease("a")), u32::MAX).await.expect("created");
    log.append_message(&run.record.id, 0, &Message::User { text: question.into() }).await.expect("message");
    let answer = format!("answer to {question}");
    log.append_message(&run.record.id, 1, &Message::Assistant { text: answer.clone(), tool_calls: vec![] })
        .await
        .expect("message");
    let last = RunEvent {
        run_id: run.record.id.clone(),
        seq: 1,
        time: Utc::now(),
        iteration: 1,
        thread_id: thread.clone(),
        payload: EventPayload::RunCompleted {
            status: RunStatus::Succeeded,
            error: None,
            usage: Usage::default(),
            final_text: answer.clone(),
            outcome: Some(outcome),
            follow_ups: Vec::new(),
        },
    };
    log.complete_chat_run(&last, RunStatus::Succeeded, None, &Usage::default(), &answer, None)
        .await
        .expect("completed");
    run
}

async fn threads_are_listed_renamed_forked_and_deleted<S: RunLog + RunStore>(store: &S) {
    let log: &dyn RunLog = store;
    let older = ThreadId::generate_for(&ana());
    let newer = ThreadId::generate_for(&ana());
    finished_run(log, &older, "first", RunOutcome::AskedBack).await;
    let second = finished_run(log, &older, "second", RunOutcome::Answered).await;
    let third = finished_run(log, &older, "third", RunOutcome::NotUnderstood).await;
    finished_run(log, &newer, "elsewhere", RunOutcome::Answered).await;
    // A thread without a chat run (a snapshot's) is not listed.
    assert!(log.ensure_thread(&ana(), &ThreadId::generate_for(&ana())).await.expect("thread"));
    assert!(log.set_thread_title(&older, "First title", TitleIf::Untitled).await.expect("titled"));
    assert!(!log.set_thread_title(&older, "Not this one", TitleIf::Untitled).await.expect("kept"));
    assert!(!log.set_thread_title(&older, "Not this either", TitleIf::Still("first title")).await.expect("kept"));
    assert!(log.set_thread_title(&older, "A model's title", TitleIf::Still("First title")).await.expect("named"));
    assert!(log.set_thread_title(&older, "First title", TitleIf::Still("A model's title")).await.expect("back"));
    assert!(!log.set_thread_title(&ThreadId::generate_for(&ana()), "x", TitleIf::Any).await.expect("none"));
    let listed = log.threads(&ana(), None, None, 10).await.expect("listed");
    let ids: Vec<&ThreadId> = listed.iter().map(|t| &t.id).collect();
    assert_eq!(ids, [&newer, &older], "newest activity first");
    assert_eq!((listed[1].title.as_deref(), listed[1].run_count), (Some("First title"), 3));
    assert_eq!(listed[1].last_run_status, Some(RunStatus::Succeeded));
    assert_eq!(listed[1].last_run_outcome, Some(RunOutcome::NotUnderstood), "the newest run's outcome");
    let not_understood = store.list_runs(&ana(), None, None, Some(RunOutcome::NotUnderstood), None, 10).await;
    assert_eq!(not_understood.expect("listed").len(), 1, "only the run that came to it");
    assert!(log.threads(&bo(), None, None, 10).await.expect("listed").is_empty(), "ana's threads are ana's");
    let cursor =
        crate::ports::run_log::ThreadCursor { last_activity_at: listed[0].last_activity_at, thread: newer.clone() };
    let rest = log.threads(&ana(), None, Some(&cursor), 10).await.expect("next page");
    assert_eq!(rest.iter().map(|t| &t.id).collect::<Vec<_>>(), [&older]);
    // A search finds a thread by its title or by any of its questions, letter case aside, and
    // takes `%`, `_` and `\` as themselves.
    let found = |text: &'static str| async move {
        let listed = log.threads(&ana(), Some(text), None, 10).await.expect("searched");
        listed.into_iter().map(|t| t.id).collect::<Vec<_>>()
    };
    assert_eq!(found("first TITLE").await, std::slice::from_ref(&older), "by title");
    assert_eq!(found("SECOND").await, std::slice::from_ref(&older), "by a question that is not the title");
    assert_eq!(found("e").await, [newer.clone(), older.clone()], "newest activity first");
    assert_eq!(found("elsewhere").await, std::slice::from_ref(&newer));
    for nothing in ["%", "_", "\\", "fourth"] {
        assert!(found(nothing).await.is_empty(), "{nothing:?} matches nothing");
    }
    assert!(log.threads(&bo(), Some("first"), None, 10).await.expect("searched").is_empty(), "only the owner's");
    let after_newer = log.threads(&ana(), Some("e"), Some(&cursor), 10).await.expect("next page");
    assert_eq!(after_newer.iter().map(|t| &t.id).collect::<Vec<_>>(), [&older], "a search pages too");
    assert!(log.set_thread_title(&older, "Renamed", TitleIf::Any).await.expect("renamed"));
    assert_eq!(log.thread_summary(&older).await.expect("read").and_then(|t| t.title).as_deref(), Some("Renamed"));

    // A fork holds copies of the runs before the fork point, naming the fork.
    let fork = ThreadId::generate_for(&ana());
    assert!(log.ensure_thread(&ana(), &fork).await.expect("fork"));
    let runs = log.thread_runs(&older, 100).await.expect("runs");
    assert_eq!(runs.iter().map(|r| r.record.question.as_str()).collect::<Vec<_>>(), ["first", "second", "third"]);
    for r in runs.iter().filter(|r| r.record.id < second.record.id) {
        log.copy_run(&r.record.id, &RunId::generate(), &fork).await.expect("copied");
    }
    log.set_thread_fork(&fork, &older, &second.record.id).await.expect("recorded");
    let copied = log.thread_runs(&fork, 100).await.expect("fork runs");
    assert_eq!(copied.len(), 1);
    let copy = &copied[0];
    assert_eq!((copy.record.question.as_str(), copy.record.status), ("first", RunStatus::Succeeded));
    assert_eq!(copy.record.final_text, "answer to first");
    assert_eq!(copy.record.outcome, Some(RunOutcome::AskedBack), "a copy keeps what the run came to");
    let events = log.events(&copy.record.id, 0, 10).await.expect("events");
    assert_eq!(events.len(), 1);
    assert_eq!((&events[0].run_id, &events[0].thread_id), (&copy.record.id, &fork));
    let history = log.thread_history(&fork, &RunId::generate(), 10).await.expect("history");
    assert_eq!(history.len(), 2, "the fork's history is the first turn only: {history:?}");
    let summary = log.thread_summary(&fork).await.expect("read").expect("stored");
    assert_eq!(summary.forked_from, Some((older.clone(), second.record.id.clone())));

    // Deleting a thread removes its runs and everything they left; the fork keeps its copies.
    assert_eq!(log.delete_thread(&older).await.expect("deleted"), 3);
    assert!(log.thread_summary(&older).await.expect("read").is_none());
    assert!(log.chat_run(&third.record.id).await.expect("read").is_none());
    assert!(log.events(&third.record.id, 0, 10).await.expect("events").is_empty());
    assert!(log.messages(&third.record.id).await.expect("messages").is_empty());
    assert_eq!(log.thread_runs(&fork, 100).await.expect("fork runs").len(), 1);
    assert!(store.get_run(&ana(), &second.record.id).await.expect("read").is_none());
}

async fn a_session_grant_is_in_force_until_it_expires_or_is_revoked(log: &dyn RunLog) {
    let now = Utc::now();
    let grant = |class: &str, expires_at| SessionGrant {
        id: GrantId::generate(),
        owner: ana(),
        tool_name: "import_files".into(),
        resource_class: class.into(),
        confirmation_id: ConfirmationId::generate(),
        created_at: now,
        expires_at,
    };
    let live = grant("files:staging", now + Duration::minutes(5));
    let expired = grant("files:other", now - Duration::seconds(1));
    log.create_grant(&live).await.expect("granted");
    log.create_grant(&expired).await.expect("granted");
    let found = log.live_grant(&ana(), "import_files", "files:staging", now).await.expect("read");
    assert_eq!(found.as_ref().map(|g| &g.id), Some(&live.id));
    assert!(log.live_grant(&ana(), "import_files", "files:other", now).await.expect("read").is_none(), "expired");
    assert!(log.live_grant(&bo(), "import_files", "files:staging", now).await.expect("read").is_none(), "ana's");
    assert!(log.live_grant(&ana(), "delete_dataset", "files:staging", now).await.expect("read").is_none());
    let listed = log.live_grants(&ana(), now).await.expect("listed");
    assert_eq!(
        listed.iter().map(|g| (&g.id, g.resource_class.as_str())).collect::<Vec<_>>(),
        [(&live.id, "files:staging")]
    );
    assert!(!log.revoke_grant(&bo(), &live.id, now).await.expect("not bo's"));
    assert!(log.revoke_grant(&ana(), &live.id, now).await.expect("revoked"));
    assert!(!log.revoke_grant(&ana(), &live.id, now).await.expect("once"));
    assert!(log.live_grant(&ana(), "import_files", "files:staging", now).await.expect("read").is_none());
    assert!(log.live_grants(&ana(), now).await.expect("listed").is_empty());
}

async fn an_approval_keeps_its_edited_arguments(log: &dyn RunLog) {
    let run = finished_run(log, &ThreadId::generate_for(&ana()), "import", RunOutcome::Answered).await;
    let now = Utc::now();
    let c = Confirmation {
        id: ConfirmationId::generate(),
        owner: ana(),
        run_id: run.record.id.clone(),
        tool_call_id: ToolCallId::generate(),
        tool_name: "import_files".into(),
        resource: ResourceRef {
            kind: "files".into(),
            id: "staging:a.csv,b.csv".into(),
            display_name: "staging".into(),
        },
        args_sha256: "cd".repeat(32),
        tier: Tier::Standard,
        status: Resolution::Pending,
        created_at: now,
        expires_at: now + Duration::seconds(60),
        description: "Import 2 files".into(),
        edited_args: None,
        grant_id: None,
        bound_version: None,
    };
    log.create_confirmation(&c).await.expect("created");
    let edited = r#"{"paths":["a.csv"],"root":"staging"}"#;
    assert!(log.resolve_confirmation(&c.id, Resolution::Approved, Some(&ana()), Some(edited)).await.expect("resolved"));
    let read = log.confirmation(&c.id).await.expect("read").expect("stored");
    assert_eq!((read.status, read.edited_args.as_deref()), (Resolution::Approved, Some(edited)));
    let granted = Confirmation {
        id: ConfirmationId::generate(),
        tool_call_id: ToolCallId::generate(),
        status: Resolution::Approved,
        grant_id: Some(GrantId::generate()),
        ..c
    };
    log.create_confirmation(&granted).await.expect("created");
    let read = log.confirmation_for_call(&granted.tool_call_id).await.expect("read").expect("stored");
    assert_eq!((read.status, &read.grant_id), (Resolution::Approved, &granted.grant_id));
}

async fn feedback_is_one_per_run_and_filters_the_list<S: RunLog + RunStore>(store: &S) {
    let thread = ThreadId::generate_for(&ana());
    let liked = finished_run(store, &thread, "liked", RunOutcome::Answered).await;
    let other = finished_run(store, &thread, "other", RunOutcome::Answered).await;
    let up = Feedback { rating: Rating::Up, reason: "clear".into(), at: Utc::now() };
    let down = Feedback { rating: Rating::Down, reason: "wrong total".into(), at: Utc::now() };
    assert!(store.set_feedback(&ana(), &liked.record.id, &down).await.expect("rated"));
    assert!(store.set_feedback(&ana(), &liked.record.id, &up).await.expect("replaced"));
    assert!(!store.set_feedback(&bo(), &other.record.id, &down).await.expect("not bo's"));
    let (read, _) = store.get_run(&ana(), &liked.record.id).await.expect("read").expect("stored");
    let read = read.feedback.expect("rated");
    assert_eq!((read.rating, read.reason.as_str()), (Rating::Up, "clear"));
    let ups = store.list_runs(&ana(), Some(&thread), Some(Rating::Up), None, None, 10).await.expect("listed");
    assert_eq!(ups.iter().map(|r| &r.id).collect::<Vec<_>>(), [&liked.record.id]);
    assert!(
        store.list_runs(&ana(), Some(&thread), Some(Rating::Down), None, None, 10).await.expect("listed").is_empty()
    );
    assert_eq!(store.list_runs(&ana(), Some(&thread), None, None, None, 10).await.expect("listed").len(), 2);
}

/// The memory port: per user, newest first, deleted by its owner only.
pub async fn memories(store: &dyn MemoryStore) {
    let memory = |owner, text: &str, age: i64| Memory {
        id: MemoryId::generate(),
        owner,
        text: text.into(),
        source_run: None,
        created_at: Utc::now() - Duration::seconds(age),
        last_used_at: None,
    };
    let old = memory(ana(), "our fiscal year starts in April", 10);
    let new = memory(ana(), "revenue is in EUR", 0);
    let bos = memory(bo(), "bo's secret", 5);
    for m in [&old, &new, &bos] {
        store.add_memory(m).await.expect("added");
    }
    let texts = |all: Vec<Memory>| all.into_iter().map(|m| m.text).collect::<Vec<_>>();
    assert_eq!(
        texts(store.memories(&ana()).await.expect("listed")),
        ["revenue is in EUR", "our fiscal year starts in April"]
    );
    assert_eq!(texts(store.memories(&bo()).await.expect("listed")), ["bo's secret"]);
    assert!(!store.delete_memory(&bo(), &old.id).await.expect("not bo's"));
    let at = Utc::now();
    store.touch_memories(&ana(), &[old.id.clone(), bos.id.clone()], at).await.expect("touched");
    let used: Vec<bool> =
        store.memories(&ana()).await.expect("listed").iter().map(|m| m.last_used_at.is_some()).collect();
    assert_eq!(used, [false, true]);
    assert!(store.memories(&bo()).await.expect("listed")[0].last_used_at.is_none(), "bo's untouched by ana");
    assert!(store.delete_memory(&ana(), &old.id).await.expect("deleted"));
    assert_eq!(texts(store.memories(&ana()).await.expect("listed")), ["revenue is in EUR"]);
}

/// The saved-queries port: per user, listed by name, names unique per user whatever their case,
/// deleted and changed by their owner only.
pub async fn saved_queries(store: &dyn SavedQueries) {
    let query = |owner, name: &str| SavedQuery {
        id: SavedQueryId::generate(),
        owner,
        name: name.into(),
        question: name.into(),
        sql: "SELECT 1".into(),
        created_at: Utc::now(),
        updated_at: Utc::now(),
    };
    let (zeta, alpha, bos) = (query(ana(), "Zeta totals"), query(ana(), "alpha counts"), query(bo(), "alpha counts"));
    for q in [&zeta, &alpha, &bos] {
        store.insert_saved_query(q).await.expect("saved");
    }
    let twice = store.insert_saved_query(&query(ana(), "ZETA TOTALS")).await.expect_err("the same name again");
    assert_eq!(twice.code, ErrorCode::AlreadyExists);
    let names = |all: Vec<SavedQuery>| all.into_iter().map(|q| q.name).collect::<Vec<_>>();
    assert_eq!(names(store.saved_queries(&ana()).await.expect("listed")), ["alpha counts", "Zeta totals"]);
    store.set_saved_query_sql(&bo(), &zeta.id, "SELECT 2").await.expect("answered");
    store.set_saved_query_sql(&ana(), &alpha.id, "SELECT 3").await.expect("changed");
    let sqls: Vec<String> = store.saved_queries(&ana()).await.expect("listed").into_iter().map(|q| q.sql).collect();
    assert_eq!(sqls, ["SELECT 3", "SELECT 1"], "only the owner changes a query");
    assert!(!store.delete_saved_query(&bo(), &zeta.id).await.expect("not bo's"));
    assert!(store.delete_saved_query(&ana(), &zeta.id).await.expect("deleted"));
    assert_eq!(names(store.saved_queries(&ana()).await.expect("listed")), ["alpha counts"]);
    assert_eq!(names(store.saved_queries(&bo()).await.expect("listed")), ["alpha counts"]);
}
