//! Group commit for the event log. Appends that arrive while a commit is in progress are written
//! together by the next one: one multi-row INSERT, one transaction, one WAL commit for all of
//! them. Every caller still returns only once its own event is committed, so the log's guarantee
//! (an event is durable before anyone sees it) is unchanged; under load, the fixed cost of a
//! SQLite commit and of a trip to a connection is shared by the runs appending at that moment.
//! Alone, an append is one commit, as before.

use super::{db, micros};
use aware_core::Result;
use aware_core::runs::events::RunEvent;
use sqlx::{QueryBuilder, SqlitePool};
use tokio::sync::{mpsc, oneshot};

/// Rows per INSERT (4 bound values each, far below SQLite's variable limit).
const MAX_BATCH: usize = 128;

/// One `run_events` row, encoded.
pub(crate) struct Row {
    run_id: String,
    seq: i64,
    created_at: i64,
    payload: Vec<u8>,
}

impl Row {
    pub(crate) fn of(event: &RunEvent) -> Result<Self> {
        Ok(Self {
            run_id: event.run_id.as_str().to_owned(),
            seq: event.seq as i64,
            created_at: micros(event.time),
            payload: serde_json::to_vec(event).map_err(aware_core::Error::internal)?,
        })
    }
}

struct Pending {
    row: Row,
    done: oneshot::Sender<Result<()>>,
}

/// The handle appends go through; the writer task stops when the last handle is dropped.
#[derive(Clone, Debug)]
pub(crate) struct EventWriter {
    queue: mpsc::UnboundedSender<Pending>,
}

impl EventWriter {
    /// Starts the writer task on the current runtime.
    pub(crate) fn start(pool: SqlitePool) -> Self {
        let (queue, pending) = mpsc::unbounded_channel();
        tokio::spawn(write_batches(pool, pending));
        Self { queue }
    }

    /// Appends one event; returns once it is committed (or why it could not be).
    pub(crate) async fn append(&self, event: &RunEvent) -> Result<()> {
        // Encoding happens here, on the caller's task, so the writer only writes.
        let row = Row::of(event)?;
        let (done, committed) = oneshot::channel();
        let stopped = || aware_core::Error::internal("the event log writer has stopped");
        self.queue.send(Pending { row, done }).map_err(|_| stopped())?;
        committed.await.map_err(|_| stopped())?
    }
}

async fn write_batches(pool: SqlitePool, mut pending: mpsc::UnboundedReceiver<Pending>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let per_commit = metrics::histogram!("aware_event_commit_batch_size");
    while pending.recv_many(&mut batch, MAX_BATCH).await > 0 {
        if batch.len() > 1 && insert(&pool, batch.iter().map(|p| &p.row)).await.is_ok() {
            per_commit.record(batch.len() as f64);
            for p in batch.drain(..) {
                let _ = p.done.send(Ok(()));
            }
            continue;
        }
        // Alone, or the batch failed (e.g. one duplicate seq): each row on its own, so every
        // caller hears its own outcome and one bad row never fails its neighbours.
        for p in batch.drain(..) {
            let outcome = insert(&pool, [&p.row]).await;
            if outcome.is_ok() {
                per_commit.record(1.0);
            }
            let _ = p.done.send(outcome);
        }
    }
}

/// Inserts `rows` in one statement (prepared once and kept when it is a single row).
pub(crate) async fn insert<'r, 'e>(
    db_: impl sqlx::SqliteExecutor<'e>,
    rows: impl IntoIterator<Item = &'r Row>,
) -> Result<()> {
    let mut count = 0;
    let mut query = QueryBuilder::new("INSERT INTO run_events (run_id, seq, created_at, payload) ");
    query.push_values(rows, |mut values, row| {
        count += 1;
        values.push_bind(&row.run_id).push_bind(row.seq).push_bind(row.created_at).push_bind(&row.payload);
    });
    query.build().persistent(count == 1).execute(db_).await.map_err(db)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::SqliteStore;
    use aware_core::auth::{Principal, Role};
    use aware_core::ids::{RunId, ThreadId, UserId};
    use aware_core::ports::Users;
    use aware_core::run::{RunKind, RunRecord, RunStatus};
    use aware_core::runs::events::{EventPayload, RunEvent};
    use aware_core::runs::store::{ChatRun, RunLog};

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
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("aware.db")).await.unwrap();
        store.ensure_user(&Principal::local()).await.unwrap();
        let mut runs = Vec::new();
        for i in 0..32 {
            let record = RunRecord::new(UserId::local(), RunKind::Chat, format!("q{i}"), RunStatus::Running);
            store
                .create_chat_run(&ChatRun { record: record.clone(), role: Role::Admin, cancel_requested: false })
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
        let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM run_events").fetch_one(&store.pool).await.unwrap();
        assert_eq!(stored, 32 * 40 + 1);
    }
}
