//! The contract of the [`RunStore`] port (run records), which shares the runs with the run log:
//! a chat run created through [`RunLog`] is a run here too, and its capsule gathers the queries
//! its tools ran.

use super::{ana, bo};
use crate::ErrorCode;
use crate::auth::Role;
use crate::dataset::DatasetVersion;
use crate::ids::{DatasetId, RunId, ThreadId, ToolCallId};
use crate::ports::RunStore;
use crate::ports::run_log::{ChatRun, Place, RunLog};
use crate::run::ToolCallRow;
use crate::run::ToolPhase;
use crate::run::{Capsule, QueryMode, RunError, RunKind, RunOutcome, RunRecord, RunStatus, Usage, VerifiedQueryUse};

fn version(table: &str) -> DatasetVersion {
    DatasetVersion { dataset_id: DatasetId::generate(), table_name: table.into(), version_hash: "cd".repeat(32) }
}

/// Runs every check of the contract on `store`, a fresh adapter of both ports whose users `ana`
/// and `bo` exist.
// A little over 120 lines on purpose: one story of a run's records, each step building on the
// last (written, rated, listed, read back with its tool calls), told in order.
pub async fn run_records<S: RunStore + RunLog>(store: &S) {
    let me = ana();
    let thread = ThreadId::generate_for(&me);
    assert!(store.ensure_thread(&me, &thread).await.expect("thread"));
    let mut chat = RunRecord::new(me.clone(), RunKind::Chat, "average price?", RunStatus::Running);
    chat.thread_id = Some(thread.clone());
    let chat_run = ChatRun { record: chat.clone(), role: Role::Analyst, key: None, cancel: None };
    store.create_chat_run(&chat_run, Place::Drive(&super::run_log::lease("a")), u32::MAX).await.expect("chat run");

    // Two queries the chat run's tools ran, and one of another user.
    let mut first = RunRecord::new(me.clone(), RunKind::QueryPlan, "plan", RunStatus::Running);
    first.parent_run_id = Some(chat.id.clone());
    let mut second = RunRecord::new(me.clone(), RunKind::Sql, "SELECT 1", RunStatus::Running);
    second.parent_run_id = Some(chat.id.clone());
    let theirs = RunRecord::new(bo(), RunKind::Sql, "SELECT 2", RunStatus::Running);
    for r in [&first, &second, &theirs] {
        store.insert_run(r).await.expect("inserted");
    }
    assert!(store.insert_run(&first).await.is_err(), "a run id is stored once");

    let (apartments, churn) = (version("apartments"), version("churn"));
    let capsule = |datasets: Vec<DatasetVersion>, mode, sql: &str, ms| Capsule {
        datasets,
        query_mode: mode,
        plan_json: (mode == QueryMode::Plan).then(|| "{}".to_owned()),
        compiled_sql: Some(sql.to_owned()),
        result_summary: Some(format!("{sql}: 1 row")),
        error: None,
        exec_time_ms: Some(ms),
        verified_query: None,
        result_sha256: None,
        result: None,
        tool_calls: Vec::new(),
        grounding: None,
        changed_datasets: Vec::new(),
    };
    // The first query ran a verified query; the chat run's capsule keeps saying so after a later
    // query that did not.
    let verified = VerifiedQueryUse { id: "sq_1".into(), name: "average price".into() };
    let first_capsule = Capsule {
        verified_query: Some(verified.clone()),
        ..capsule(vec![apartments.clone()], QueryMode::Plan, "SELECT avg(price)", 5)
    };
    store.save_capsule(&first.id, &first_capsule).await.expect("saved");
    store
        .save_capsule(&second.id, &capsule(vec![apartments.clone(), churn.clone()], QueryMode::Sql, "SELECT 1", 7))
        .await
        .expect("saved");
    let usage = Usage { input_tokens: 100, output_tokens: 20, model_calls: 2, ..Usage::default() };
    store.finish_run(&first.id, RunStatus::Succeeded, None, &usage).await.expect("finished");
    let failure = RunError { code: ErrorCode::RunnerTimeout, message: "too slow".into(), retryable: true };
    store.finish_run(&second.id, RunStatus::Failed, Some(&failure), &Usage::default()).await.expect("finished");

    let (run, caps) = store.get_run(&me, &first.id).await.expect("read").expect("stored");
    assert_eq!((run.status, run.kind, run.usage.input_tokens), (RunStatus::Succeeded, RunKind::QueryPlan, 100));
    assert!(run.completed_at.is_some(), "a finished run has an end");
    assert_eq!(caps.compiled_sql.as_deref(), Some("SELECT avg(price)"));
    assert_eq!(caps.verified_query.as_ref(), Some(&verified), "stored with its capsule");
    let (run, _) = store.get_run(&me, &second.id).await.expect("read").expect("stored");
    assert_eq!(run.error.as_ref().map(|e| e.code), Some(ErrorCode::RunnerTimeout));
    assert!(store.get_run(&me, &theirs.id).await.expect("read").is_none(), "another user's run does not exist");
    assert!(store.get_run(&me, &RunId::generate()).await.expect("read").is_none());

    // The chat run's capsule: every dataset version its queries read (once each), the last
    // query's mode and SQL, their time added up, and its tool calls.
    let call = ToolCallRow {
        id: ToolCallId::generate(),
        run_id: chat.id.clone(),
        iteration: 1,
        tool_name: "run_sql_query".into(),
        arguments_json: "{}".into(),
        phase: ToolPhase::Running,
        llm_summary: None,
        result_json: None,
        duration_ms: None,
    };
    store.record_tool_intent(&call).await.expect("intent");
    let (run, caps) = store.get_run(&me, &chat.id).await.expect("read").expect("a chat run is a run");
    assert_eq!((run.kind, run.thread_id.as_ref()), (RunKind::Chat, Some(&thread)));
    assert_eq!(caps.datasets, [apartments, churn]);
    assert_eq!((caps.query_mode, caps.compiled_sql.as_deref()), (QueryMode::Sql, Some("SELECT 1")));
    assert_eq!(caps.exec_time_ms, Some(12));
    assert_eq!(caps.verified_query, Some(verified));
    assert_eq!(caps.tool_calls, [call]);

    let mine: Vec<RunId> =
        store.list_runs(&me, None, None, None, None, 10).await.expect("listed").into_iter().map(|r| r.id).collect();
    assert_eq!(mine, [second.id.clone(), first.id.clone(), chat.id.clone()], "newest first, only mine");
    let page: Vec<RunId> = store
        .list_runs(&me, None, None, None, Some(&second.id), 1)
        .await
        .expect("listed")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(page, [first.id.clone()], "before a run, at most `limit`");
    let in_thread: Vec<RunId> = store
        .list_runs(&me, Some(&thread), None, None, None, 10)
        .await
        .expect("listed")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(in_thread, [chat.id.clone()], "a thread's runs");
    // A query run's outcome is its status's: the failed one only, then the answered one only.
    let failed: Vec<RunId> = store
        .list_runs(&me, None, None, Some(RunOutcome::Failed), None, 10)
        .await
        .expect("listed")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(failed, [second.id.clone()], "only runs that came to that outcome");
    let answered = store.list_runs(&me, None, None, Some(RunOutcome::Answered), None, 10).await.expect("listed");
    assert_eq!(
        answered.iter().map(|r| (&r.id, r.outcome)).collect::<Vec<_>>(),
        [(&first.id, Some(RunOutcome::Answered))]
    );

    let (total, runs) = store.usage_since(&me, None).await.expect("summed");
    assert_eq!((runs, total.input_tokens, total.output_tokens, total.model_calls), (3, 100, 20, 2));
    let (_, later) =
        store.usage_since(&me, Some(chrono::Utc::now() + chrono::Duration::hours(1))).await.expect("summed");
    assert_eq!(later, 0, "only runs created since");
}
