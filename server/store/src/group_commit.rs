//! Group commit for the writes of runs: the event log's appends and the writes that go with a
//! run's steps (transcript messages, tool-call intents and results, progress, spans, a run's
//! completion). They all go through one writer task. Writes that arrive while a commit is in
//! progress are written together by the next one: each kind as one multi-row statement, all of
//! them in one transaction, sent to SQLite's connection as one batch of statements. Every caller
//! still returns only once its own write is committed, so no guarantee changes (an event is
//! durable before anyone sees it, a tool call's intent before its side effect); under load, the
//! fixed costs of a commit and of a trip to a connection's thread are shared by the runs writing
//! at that moment. Alone, a write is one statement (or one transaction), as before.

use super::db::{Db, Query};
use super::{db, micros};
use aware_domain::Result;
use aware_domain::events::RunEvent;
use aware_domain::ports::run_log::QueuedAppend;
use std::collections::HashMap;
use tokio::sync::{mpsc, oneshot};

/// Writes per commit (at most ~12 bound values each, far below SQLite's and PostgreSQL's
/// variable limits).
const MAX_BATCH: usize = 128;

/// One `run_events` row, encoded.
pub(crate) struct EventRow {
    pub(crate) run_id: String,
    pub(crate) seq: i64,
    created_at: i64,
    payload: Vec<u8>,
}

impl EventRow {
    pub(crate) fn of(event: &RunEvent) -> Result<Self> {
        Ok(Self {
            run_id: event.run_id.as_str().to_owned(),
            seq: event.seq as i64,
            created_at: micros(event.time),
            payload: serde_json::to_vec(event).map_err(aware_domain::Error::internal)?,
        })
    }
}

/// A `tool_calls` row: an intent (no summary, result or duration) or a result.
pub(crate) struct ToolCallWrite {
    pub id: String,
    pub run_id: String,
    pub iteration: i64,
    pub tool_name: String,
    pub arguments_json: String,
    pub status: &'static str,
    pub at: i64,
    pub llm_summary: Option<String>,
    pub result_json: Option<String>,
    pub duration_ms: Option<i64>,
}

/// A `run_spans` row.
pub(crate) struct SpanWrite {
    pub run_id: String,
    pub span_id: String,
    pub parent_span_id: Option<String>,
    pub kind: String,
    pub name: String,
    pub start_us: i64,
    pub end_us: i64,
    pub attributes_json: String,
}

/// A run's end: its last event, its row's final state and its day's metering, in one commit.
pub(crate) struct Completion {
    pub last: EventRow,
    pub status: &'static str,
    pub outcome: Option<&'static str>,
    pub error_json: Option<String>,
    pub usage_json: String,
    pub final_text: String,
    pub grounding_json: Option<String>,
    pub completed_at: i64,
    pub day: String,
    pub input_tokens: i64,
    pub output_tokens: i64,
}

/// One write of a run, encoded on the caller's task so the writer only writes.
pub(crate) enum Write {
    Event(EventRow),
    /// A run's first event with its row's start: the UI state version it used, and when.
    Started {
        first: EventRow,
        ui_state_version: i64,
        at: i64,
    },
    Message {
        run_id: String,
        idx: i64,
        json: String,
    },
    ToolIntent(ToolCallWrite),
    ToolResult(ToolCallWrite),
    Progress {
        run_id: String,
        iterations: i64,
        usage_json: String,
    },
    Span(SpanWrite),
    Completion(Box<Completion>),
}

impl Write {
    /// The event this write appends, if any.
    pub(crate) fn event(&self) -> Option<&EventRow> {
        match self {
            Self::Event(row) | Self::Started { first: row, .. } => Some(row),
            Self::Completion(c) => Some(&c.last),
            Self::Message { .. }
            | Self::ToolIntent(_)
            | Self::ToolResult(_)
            | Self::Progress { .. }
            | Self::Span(_) => None,
        }
    }
}

struct Pending {
    write: Write,
    done: oneshot::Sender<Result<()>>,
}

/// The handle writes go through; the writer task stops when the last handle is dropped.
#[derive(Clone, Debug)]
pub(crate) struct RunWriter {
    queue: mpsc::UnboundedSender<Pending>,
}

impl RunWriter {
    /// Starts the writer task on the current runtime.
    pub(crate) fn start(db: Db) -> Self {
        let (queue, pending) = mpsc::unbounded_channel();
        tokio::spawn(write_batches(db, pending));
        Self { queue }
    }

    /// Writes `write`; returns once it is committed (or why it could not be).
    pub(crate) async fn write(&self, write: Write) -> Result<()> {
        self.queue(write).await
    }

    /// Queues `write` now (writes commit in the order they are queued); the future resolves once
    /// it is committed.
    pub(crate) fn queue(&self, write: Write) -> QueuedAppend {
        let (done, committed) = oneshot::channel();
        let queued = self.queue.send(Pending { write, done });
        let stopped = || aware_domain::Error::internal("the run log writer has stopped");
        Box::pin(async move {
            queued.map_err(|_| stopped())?;
            committed.await.map_err(|_| stopped())?
        })
    }
}

/// Runs whose event at a seq could not be stored (and is not in the log): their later events are
/// refused until that seq is stored, so a run's log never has a gap, even when appends were
/// queued behind the one that failed.
#[derive(Default)]
struct Gaps(HashMap<String, i64>);

impl Gaps {
    /// Why `write` may not be written now, if it appends past a run's missing event.
    fn refusal(&self, write: &Write) -> Option<aware_domain::Error> {
        let row = write.event()?;
        let missing = *self.0.get(&row.run_id)?;
        (row.seq > missing).then(|| {
            aware_domain::Error::internal(format!(
                "event {} of run {} follows event {missing}, which could not be stored",
                row.seq, row.run_id
            ))
        })
    }

    fn committed(&mut self, write: &Write) {
        if let Some(row) = write.event()
            && (self.0.get(&row.run_id) == Some(&row.seq) || matches!(write, Write::Completion(_)))
        {
            self.0.remove(&row.run_id);
        }
    }

    /// An append that failed leaves a gap unless its seq is already taken.
    fn failed(&mut self, write: &Write, error: &sqlx::Error) {
        let taken = matches!(error, sqlx::Error::Database(d) if d.is_unique_violation());
        if let Some(row) = write.event()
            && !taken
        {
            let missing = self.0.entry(row.run_id.clone()).or_insert(row.seq);
            *missing = (*missing).min(row.seq);
        }
    }
}

async fn write_batches(database: Db, mut pending: mpsc::UnboundedReceiver<Pending>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut gaps = Gaps::default();
    let per_commit = metrics::histogram!("aware_run_commit_batch_size");
    while pending.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let mut writable = Vec::with_capacity(batch.len());
        for p in batch.drain(..) {
            match gaps.refusal(&p.write) {
                Some(refused) => {
                    let _ = p.done.send(Err(refused));
                }
                None => writable.push(p),
            }
        }
        if writable.len() > 1 && commit(&database, &writable.iter().map(|p| &p.write).collect::<Vec<_>>()).await.is_ok()
        {
            per_commit.record(writable.len() as f64);
            for p in writable {
                gaps.committed(&p.write);
                let _ = p.done.send(Ok(()));
            }
            continue;
        }
        // Alone, or the batch failed (e.g. one duplicate seq): each write on its own, in order, so
        // every caller hears its own outcome and one bad write never fails its neighbours (but a
        // run's events after one that failed are refused).
        for p in writable {
            let outcome = match gaps.refusal(&p.write) {
                Some(refused) => Err(refused),
                None => match commit(&database, &[&p.write]).await {
                    Ok(()) => {
                        per_commit.record(1.0);
                        gaps.committed(&p.write);
                        Ok(())
                    }
                    Err(e) => {
                        gaps.failed(&p.write, &e);
                        Err(db(e))
                    }
                },
            };
            let _ = p.done.send(outcome);
        }
    }
}

/// Commits `writes`: one statement per kind (per row for updates), in one transaction when there
/// is more than one statement. SQLite gets them as one batch of statements; PostgreSQL, which
/// takes one statement per bound query, one after the other on the transaction's connection. A
/// single write's statements are prepared once and kept.
async fn commit(db: &Db, writes: &[&Write]) -> Result<(), sqlx::Error> {
    let mut statements = Statements::default();
    statements.push(writes);
    // On PostgreSQL other replicas may follow these runs: the commit tells them how far each
    // run's log now reaches (delivered once it commits, never before).
    let notices = if db.is_postgres() {
        crate::fleet::appended(writes.iter().filter_map(|w| w.event()).map(|e| (e.run_id.as_str(), e.seq)))
    } else {
        Vec::new()
    };
    for notice in &notices {
        statements.list.push(Statement { sql: crate::fleet::NOTIFY.to_owned(), args: vec![Arg::Text(notice)] });
    }
    let keep = writes.len() == 1;
    let mut list = statements.list;
    if list.len() == 1 {
        let Statement { sql, args } = list.swap_remove(0);
        return bound(db.built(sql), &args).persistent(keep).execute().await.map(|_| ());
    }
    let mut tx = db.begin().await?;
    if db.is_postgres() {
        for Statement { sql, args } in list {
            bound(tx.built(sql), &args).persistent(keep).execute().await?;
        }
    } else {
        let sql = list.iter().map(|s| s.sql.as_str()).collect::<Vec<_>>().join("; ");
        let args: Vec<Arg<'_>> = list.into_iter().flat_map(|s| s.args).collect();
        bound(tx.built(sql), &args).persistent(keep).execute().await?;
    }
    tx.commit().await
}

/// `query` with `args` bound after the values it has.
fn bound<S, P>(mut query: Query<S, P>, args: &[Arg<'_>]) -> Query<S, P> {
    for arg in args {
        query = match *arg {
            Arg::Text(v) => query.bind(v),
            Arg::MaybeText(v) => query.bind(v),
            Arg::Int(v) => query.bind(v),
            Arg::MaybeInt(v) => query.bind(v),
            Arg::Bytes(v) => query.bind(v),
        };
    }
    query
}

/// A bound value of a run write.
#[derive(Clone, Copy)]
enum Arg<'a> {
    Text(&'a str),
    MaybeText(Option<&'a str>),
    Int(i64),
    MaybeInt(Option<i64>),
    Bytes(&'a [u8]),
}

/// One statement: SQL with `?` placeholders and its values in order.
struct Statement<'a> {
    sql: String,
    args: Vec<Arg<'a>>,
}

impl<'a> Statement<'a> {
    /// `INSERT INTO <head> VALUES (?, …), …` with a row of values per item.
    fn insert<T>(head: &str, items: &[T], row: impl Fn(&T) -> Vec<Arg<'a>>) -> Self {
        let mut sql = format!("INSERT INTO {head} VALUES ");
        let mut args = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let values = row(item);
            sql.push_str(if i == 0 { "(" } else { ", (" });
            sql.push_str(&vec!["?"; values.len()].join(", "));
            sql.push(')');
            args.extend(values);
        }
        Self { sql, args }
    }
}

/// The statements of a commit.
#[derive(Default)]
struct Statements<'a> {
    list: Vec<Statement<'a>>,
}

impl<'a> Statements<'a> {
    /// In an order that keeps every write's meaning: rows before the updates of the same run.
    fn push(&mut self, writes: &[&'a Write]) {
        let events: Vec<&EventRow> = writes.iter().filter_map(|w| w.event()).collect();
        if !events.is_empty() {
            self.list.push(Statement::insert("run_events (run_id, seq, created_at, payload)", &events, |r| {
                vec![Arg::Text(&r.run_id), Arg::Int(r.seq), Arg::Int(r.created_at), Arg::Bytes(&r.payload)]
            }));
        }
        let messages: Vec<_> = writes
            .iter()
            .filter_map(
                |w| if let Write::Message { run_id, idx, json } = w { Some((run_id, *idx, json)) } else { None },
            )
            .collect();
        if !messages.is_empty() {
            self.list.push(Statement::insert("run_messages (run_id, idx, message_json)", &messages, |m| {
                vec![Arg::Text(m.0), Arg::Int(m.1), Arg::Text(m.2)]
            }));
        }
        let intents: Vec<&ToolCallWrite> =
            writes.iter().filter_map(|w| if let Write::ToolIntent(c) = w { Some(c) } else { None }).collect();
        if !intents.is_empty() {
            self.list.push(Statement::insert(
                "tool_calls (id, run_id, iteration, tool_name, arguments_json, status, intent_at)",
                &intents,
                |c| {
                    vec![
                        Arg::Text(&c.id),
                        Arg::Text(&c.run_id),
                        Arg::Int(c.iteration),
                        Arg::Text(&c.tool_name),
                        Arg::Text(&c.arguments_json),
                        Arg::Text(c.status),
                        Arg::Int(c.at),
                    ]
                },
            ));
        }
        let results: Vec<&ToolCallWrite> =
            writes.iter().filter_map(|w| if let Write::ToolResult(c) = w { Some(c) } else { None }).collect();
        if !results.is_empty() {
            let mut upsert = Statement::insert(
                "tool_calls (id, run_id, iteration, tool_name, arguments_json, status, completed_at, llm_summary, \
                 result_json, duration_ms)",
                &results,
                |c| {
                    vec![
                        Arg::Text(&c.id),
                        Arg::Text(&c.run_id),
                        Arg::Int(c.iteration),
                        Arg::Text(&c.tool_name),
                        Arg::Text(&c.arguments_json),
                        Arg::Text(c.status),
                        Arg::Int(c.at),
                        Arg::MaybeText(c.llm_summary.as_deref()),
                        Arg::MaybeText(c.result_json.as_deref()),
                        Arg::MaybeInt(c.duration_ms),
                    ]
                },
            );
            upsert.sql.push_str(
                " ON CONFLICT (id) DO UPDATE SET status = excluded.status, completed_at = excluded.completed_at, \
                 llm_summary = excluded.llm_summary, result_json = excluded.result_json, \
                 duration_ms = excluded.duration_ms",
            );
            self.list.push(upsert);
        }
        let spans: Vec<&SpanWrite> =
            writes.iter().filter_map(|w| if let Write::Span(s) = w { Some(s) } else { None }).collect();
        if !spans.is_empty() {
            let mut upsert = Statement::insert(
                "run_spans (run_id, span_id, parent_span_id, kind, name, start_us, end_us, attributes_json)",
                &spans,
                |s| {
                    vec![
                        Arg::Text(&s.run_id),
                        Arg::Text(&s.span_id),
                        Arg::MaybeText(s.parent_span_id.as_deref()),
                        Arg::Text(&s.kind),
                        Arg::Text(&s.name),
                        Arg::Int(s.start_us),
                        Arg::Int(s.end_us),
                        Arg::Text(&s.attributes_json),
                    ]
                },
            );
            upsert.sql.push_str(
                " ON CONFLICT (run_id, span_id) DO UPDATE SET parent_span_id = excluded.parent_span_id, \
                 kind = excluded.kind, name = excluded.name, start_us = excluded.start_us, end_us = excluded.end_us, \
                 attributes_json = excluded.attributes_json",
            );
            self.list.push(upsert);
        }
        for w in writes {
            match w {
                Write::Progress { run_id, iterations, usage_json } => self.list.push(Statement {
                    sql: "UPDATE runs SET iterations = ?, usage_json = ? WHERE id = ?".into(),
                    args: vec![Arg::Int(*iterations), Arg::Text(usage_json), Arg::Text(run_id)],
                }),
                Write::Completion(c) => self.complete(c),
                // A queued run being cancelled is driven only to end it: it never holds its thread.
                Write::Started { first, ui_state_version, at } => self.list.push(Statement {
                    sql: "UPDATE runs SET ui_state_version = ?, started_at = coalesce(started_at, ?), \
                          status = CASE WHEN status = 'queued' AND cancel_requested = 1 THEN status ELSE 'running' END \
                          WHERE id = ? AND status IN ('queued', 'running', 'awaiting_confirmation')"
                        .into(),
                    args: vec![Arg::Int(*ui_state_version), Arg::Int(*at), Arg::Text(&first.run_id)],
                }),
                Write::Event(_)
                | Write::Message { .. }
                | Write::ToolIntent(_)
                | Write::ToolResult(_)
                | Write::Span(_) => {}
            }
        }
    }

    /// The run row's final state and the metering of its user's day (runs and tokens).
    fn complete(&mut self, c: &'a Completion) {
        self.list.push(Statement {
            sql: "UPDATE runs SET status = ?, outcome = ?, error_json = ?, usage_json = ?, final_text = ?, \
                  grounding_json = ?, last_seq = ?, completed_at = ? WHERE id = ?"
                .into(),
            args: vec![
                Arg::Text(c.status),
                Arg::MaybeText(c.outcome),
                Arg::MaybeText(c.error_json.as_deref()),
                Arg::Text(&c.usage_json),
                Arg::Text(&c.final_text),
                Arg::MaybeText(c.grounding_json.as_deref()),
                Arg::Int(c.last.seq),
                Arg::Int(c.completed_at),
                Arg::Text(&c.last.run_id),
            ],
        });
        self.list.push(Statement {
            sql: "INSERT INTO usage_daily (user_id, day, runs, input_tokens, output_tokens) \
                  SELECT owner_id, ?, 1, ?, ? FROM runs WHERE id = ? \
                  ON CONFLICT (user_id, day) DO UPDATE SET runs = usage_daily.runs + 1, \
                  input_tokens = usage_daily.input_tokens + excluded.input_tokens, \
                  output_tokens = usage_daily.output_tokens + excluded.output_tokens"
                .into(),
            args: vec![
                Arg::Text(&c.day),
                Arg::Int(c.input_tokens),
                Arg::Int(c.output_tokens),
                Arg::Text(&c.last.run_id),
            ],
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::Store;
    use aware_domain::auth::{Principal, Role};
    use aware_domain::events::{EventPayload, RunEvent};
    use aware_domain::ids::{RunId, ThreadId, UserId};
    use aware_domain::ports::Users;
    use aware_domain::ports::run_log::{ChatRun, ChatRuns, Place, RunEvents, ToolCalls};
    use aware_domain::run::{RunKind, RunRecord, RunStatus};

    enum Engine {
        Sqlite,
        Postgres,
    }

    /// What keeps a test's database alive.
    enum Home {
        Sqlite(#[expect(dead_code, reason = "held for its Drop")] tempfile::TempDir),
        Postgres(#[expect(dead_code, reason = "held for its Drop")] aware_pgtest::PgCluster),
    }

    async fn open(engine: Engine) -> (Home, Store) {
        let (home, store) = match engine {
            Engine::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let store = Store::open(&dir.path().join("aware.db")).await.unwrap();
                (Home::Sqlite(dir), store)
            }
            Engine::Postgres => {
                let cluster = aware_pgtest::PgCluster::start(aware_pgtest::Durability::Fast).unwrap();
                let store = Store::connect(&cluster.create_database("aware").unwrap()).await.unwrap();
                (Home::Postgres(cluster), store)
            }
        };
        store.ensure_user(&Principal::local()).await.unwrap();
        (home, store)
    }

    fn delta(run: &RunId, seq: u64, text: &str) -> RunEvent {
        RunEvent {
            run_id: run.clone(),
            seq,
            time: chrono::Utc::now(),
            iteration: 0,
            thread_id: ThreadId::generate(),
            payload: EventPayload::TextDelta { message_id: "m".into(), delta: text.into() },
        }
    }

    /// 32 runs append 40 events each at once: every event is stored once, in order; a duplicate
    /// seq in the same moment fails only its own append.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_appends_all_land_in_order_and_each_caller_hears_its_own_outcome() {
        for engine in [Engine::Sqlite, Engine::Postgres] {
            let (_home, store) = open(engine).await;
            concurrent_appends(store).await;
        }
    }

    async fn concurrent_appends(store: Store) {
        let mut runs = Vec::new();
        for i in 0..32 {
            let record = RunRecord::new(UserId::local(), RunKind::Chat, format!("q{i}"), RunStatus::Running);
            store
                .create_chat_run(
                    &ChatRun { record: record.clone(), role: Role::Admin, key: None, cancel: None },
                    Place::Queue { first: false },
                    u32::MAX,
                )
                .await
                .unwrap();
            runs.push(record.id);
        }
        let writers: Vec<_> = runs
            .iter()
            .map(|run| {
                let (store, run) = (store.clone(), run.clone());
                tokio::spawn(async move {
                    for seq in 1..=40 {
                        store.append_event(&delta(&run, seq, &format!("{seq}"))).await.unwrap();
                    }
                })
            })
            .collect();
        // Meanwhile one run's driver repeats a seq: only that append is refused.
        let dup = runs[0].clone();
        let (a, b) = (delta(&dup, 1000, "a"), delta(&dup, 1000, "b"));
        let (first, second) = tokio::join!(store.append_event(&a), store.append_event(&b));
        assert!(first.is_ok() != second.is_ok(), "exactly one of the two wins: {first:?} {second:?}");
        for w in writers {
            w.await.unwrap();
        }
        for run in &runs {
            let events = store.events(run, 0, 10_000).await.unwrap();
            let seqs: Vec<u64> = events.iter().map(|e| e.seq).filter(|&s| s <= 40).collect();
            assert_eq!(seqs, (1..=40).collect::<Vec<_>>(), "run {run}: every event once, in order");
        }
        let stored: i64 = store.db.query("SELECT count(*) FROM run_events").fetch_scalar().await.unwrap();
        assert_eq!(stored, 32 * 40 + 1);
    }

    /// 24 runs take every step at once (transcript, tool intent and result, progress, span,
    /// events, completion), so commits mix kinds and runs: every write lands once with its own
    /// values, and a transcript message stored twice fails only its own caller.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_writes_of_many_runs_share_commits_and_each_lands_as_written() {
        for engine in [Engine::Sqlite, Engine::Postgres] {
            let (_home, store) = open(engine).await;
            many_runs_writing(store).await;
        }
    }

    async fn many_runs_writing(store: Store) {
        use aware_domain::ids::ToolCallId;
        use aware_domain::ports::model::Message;
        use aware_domain::ports::run_log::SpanRecord;
        use aware_domain::run::ToolCallRow;
        use aware_domain::run::ToolPhase;
        use aware_domain::run::Usage;
        let mut runs = Vec::new();
        for i in 0..24 {
            let record = RunRecord::new(UserId::local(), RunKind::Chat, format!("q{i}"), RunStatus::Running);
            store
                .create_chat_run(
                    &ChatRun { record: record.clone(), role: Role::Admin, key: None, cancel: None },
                    Place::Queue { first: false },
                    u32::MAX,
                )
                .await
                .unwrap();
            runs.push(record.id);
        }
        let steps = runs.iter().enumerate().map(|(i, run)| {
            let (store, run) = (store.clone(), run.clone());
            tokio::spawn(async move {
                let question = Message::User { text: format!("question {i}") };
                store.append_message(&run, 0, &question).await.unwrap();
                let call = ToolCallRow {
                    id: ToolCallId::generate(),
                    run_id: run.clone(),
                    iteration: 1,
                    tool_name: "run_sql_query".into(),
                    arguments_json: format!("{{\"n\":{i}}}"),
                    phase: ToolPhase::Running,
                    llm_summary: None,
                    result_json: None,
                    duration_ms: None,
                };
                store.record_tool_intent(&call).await.unwrap();
                store.append_event(&delta(&run, 1, "a")).await.unwrap();
                let done = ToolCallRow {
                    phase: ToolPhase::Succeeded,
                    llm_summary: Some(format!("{i} rows")),
                    duration_ms: Some(i as u64),
                    ..call
                };
                store.record_tool_result(&done).await.unwrap();
                let usage = Usage { input_tokens: 10, output_tokens: i as u64, ..Usage::default() };
                store.set_run_progress(&run, 2, &usage).await.unwrap();
                let span = SpanRecord {
                    span_id: format!("run-{run}"),
                    parent_span_id: None,
                    kind: "run".into(),
                    name: "chat".into(),
                    start: chrono::Utc::now(),
                    end: chrono::Utc::now(),
                    attributes: serde_json::Map::new(),
                };
                store.insert_span(&run, &span).await.unwrap();
                let answer = format!("answer {i}");
                let last = RunEvent {
                    payload: EventPayload::RunCompleted {
                        status: RunStatus::Succeeded,
                        error: None,
                        usage,
                        final_text: answer.clone(),
                        outcome: Some(aware_domain::run::RunOutcome::Answered),
                        follow_ups: Vec::new(),
                    },
                    ..delta(&run, 2, "")
                };
                store.complete_chat_run(&last, RunStatus::Succeeded, None, &usage, &answer, None).await.unwrap();
            })
        });
        let steps: Vec<_> = steps.collect();
        // Meanwhile one run's transcript gets the same index twice: only one of them is stored.
        let dup = runs[0].clone();
        let (a, b) = (Message::User { text: "a".into() }, Message::User { text: "b".into() });
        let (first, second) = tokio::join!(store.append_message(&dup, 7, &a), store.append_message(&dup, 7, &b));
        assert!(first.is_ok() != second.is_ok(), "exactly one of the two wins: {first:?} {second:?}");
        for s in steps {
            s.await.unwrap();
        }
        for (i, run) in runs.iter().enumerate() {
            let messages = store.messages(run).await.unwrap();
            assert_eq!(messages[0], Message::User { text: format!("question {i}") });
            let calls = store.tool_calls(run).await.unwrap();
            assert_eq!(calls.len(), 1, "run {i}: one row per call");
            assert_eq!(
                (calls[0].phase, calls[0].llm_summary.as_deref()),
                (ToolPhase::Succeeded, Some(&*format!("{i} rows")))
            );
            assert_eq!(calls[0].arguments_json, format!("{{\"n\":{i}}}"));
            let chat = store.chat_run(run).await.unwrap().unwrap();
            assert_eq!(chat.record.status, RunStatus::Succeeded);
            assert_eq!((chat.record.iterations, chat.record.usage.output_tokens), (2, i as u64));
            assert_eq!(chat.record.last_seq, 2);
            let seqs: Vec<u64> = store.events(run, 0, 10).await.unwrap().iter().map(|e| e.seq).collect();
            assert_eq!(seqs, [1, 2]);
            assert_eq!(store.spans(run).await.unwrap().len(), 1);
        }
        let row =
            store.db.query("SELECT runs, input_tokens, output_tokens FROM usage_daily").fetch_one().await.unwrap();
        let metered: (i64, i64, i64) = (row.get("runs"), row.get("input_tokens"), row.get("output_tokens"));
        assert_eq!(metered, (24, 240, (0..24).sum::<i64>()), "every completion metered once");
    }

    /// Six deltas are queued at once and the fourth cannot be stored: the ones before it land,
    /// the ones after it are refused (no gap), and the run goes on from the missing seq.
    #[tokio::test]
    async fn an_append_that_fails_refuses_the_queued_ones_after_it_so_the_log_has_no_gap() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("aware.db")).await.unwrap();
        store.ensure_user(&Principal::local()).await.unwrap();
        let record = RunRecord::new(UserId::local(), RunKind::Chat, "q", RunStatus::Running);
        let chat = ChatRun { record: record.clone(), role: Role::Admin, key: None, cancel: None };
        store.create_chat_run(&chat, Place::Queue { first: false }, u32::MAX).await.unwrap();
        let run = record.id;
        store
            .db
            .query(
                "CREATE TRIGGER failing BEFORE INSERT ON run_events WHEN NEW.seq = 4 \
             BEGIN SELECT RAISE(ABORT, 'the disk said no'); END",
            )
            .execute()
            .await
            .unwrap();
        let queued: Vec<_> = (1..=6).map(|seq| store.queue_event(&delta(&run, seq, "x"))).collect();
        let mut outcomes = Vec::new();
        for q in queued {
            outcomes.push(q.await.is_ok());
        }
        assert_eq!(outcomes, [true, true, true, false, false, false]);
        let seqs = |events: Vec<RunEvent>| events.iter().map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(seqs(store.events(&run, 0, 100).await.unwrap()), [1, 2, 3]);
        // Later appends past the gap are refused too, until the missing seq is stored.
        assert!(store.append_event(&delta(&run, 5, "x")).await.is_err());
        store.db.query("DROP TRIGGER failing").execute().await.unwrap();
        store.append_event(&delta(&run, 4, "again")).await.unwrap();
        store.append_event(&delta(&run, 5, "and on")).await.unwrap();
        assert_eq!(seqs(store.events(&run, 0, 100).await.unwrap()), [1, 2, 3, 4, 5]);
        // A seq that is already taken is no gap: the run's next appends are not held back.
        assert!(store.append_event(&delta(&run, 5, "twice")).await.is_err());
        store.append_event(&delta(&run, 6, "next")).await.unwrap();
    }
}
