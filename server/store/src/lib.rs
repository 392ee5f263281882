//! aware-core's storage ports on SQLite (the embedded default: one file in the data dir) and on
//! PostgreSQL (`storage.url`), with embedded migrations for each
//! (`migrations/sqlite/`, `migrations/postgres/`). Only this crate knows SQL for the metadata
//! store. Each port is written once for both engines (`db.rs`: the SQL they share, placeholders
//! renumbered for PostgreSQL) and passes the same contracts (`aware_domain::contract`, run by
//! `tests/contract.rs` on both).
//!
//! One file per port: `catalog.rs`, `users.rs`, `audit.rs`, `uploads.rs`, `run_records.rs` (runs,
//! capsules, feedback), `memories.rs`, `saved_queries.rs` (verified queries), `run_log/` (the run engine's log, a file per concern:
//! `runs.rs`, `leases.rs`, `events.rs` with transcripts, `tool_calls.rs` with spans,
//! `confirmations.rs` with session grants, `threads.rs`, `snapshots.rs`) with `group_commit.rs` (a run's writes that arrive together
//! share one commit); `gc.rs` (what `aware-server gc` removes); `db.rs` (one query, either
//! engine); this file: opening the database, the shared helpers and errors.
//!
//! SQLite runs in WAL mode with a busy timeout, so the CLI (`aware-server users add`) can write
//! while a server is running on the same data dir.

use async_trait::async_trait;
use aware_domain::auth::{Principal, Role};
use aware_domain::dataset::{Dataset, DatasetFormat, DatasetStatus, IngestOutcome};
use aware_domain::ids::{ApiKeyId, DatasetId, UploadId, UserId};
use aware_domain::ids::{RunId, ThreadId};
use aware_domain::ports::{
    ApiKey, ApiKeyGrant, AuditEntry, AuditLog, Catalog, DatasetUpdate, NewContent, NewDataset, RunStore, UploadSession,
    Uploads, User, Users,
};
use aware_domain::run::{Capsule, QueryMode, RunError, RunKind, RunRecord, RunStatus, Usage};
use aware_domain::value::Column;
use aware_domain::{Error, ErrorCode, Result};
use chrono::{DateTime, Utc};
use db::{Db, Row};
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

/// The statuses of a run that holds its thread, and of one that has not finished.
macro_rules! holding {
    () => {
        "kind IN ('chat', 'tool') AND status IN ('running', 'awaiting_confirmation')"
    };
}
macro_rules! unfinished {
    () => {
        "kind IN ('chat', 'tool') AND status IN ('queued', 'running', 'awaiting_confirmation')"
    };
}

mod audit;
mod catalog;
mod db;
mod fleet;
mod gc;
mod group_commit;
mod memories;
mod run_log;
mod run_records;
mod saved_queries;
mod uploads;
mod users;

pub use gc::GcReport;

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Rows a SQLite connection's thread may have read ahead of the task taking them. sqlx's default
/// (50) makes a read of a long event log a thread hand-off (two context switches) per row once
/// the buffer is full; a read is paged by its LIMIT anyway, so the buffer holds no more than it.
const SQLITE_ROW_BUFFER: usize = 4096;

/// Connections a server keeps to PostgreSQL: the run writer's, the readers' and the ports'.
const POSTGRES_CONNECTIONS: u32 = 16;

/// Errors of this layer; they reach clients only as a generic internal error.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    #[error("stored data is malformed: {0}")]
    Corrupt(String),
}

#[async_trait]
impl aware_domain::ports::Health for Store {
    async fn ping(&self) -> Result<()> {
        Ok(self.db.ping().await.map_err(StoreError::from)?)
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        // A full disk and a database that cannot be written are the user's to hear about, not
        // internal errors. SQLite: primary result codes (the low byte of extended ones).
        // PostgreSQL: SQLSTATEs.
        const SQLITE_READONLY: i64 = 8;
        const SQLITE_FULL: i64 = 13;
        match &e {
            StoreError::Database(sqlx::Error::Io(io)) if io.kind() != std::io::ErrorKind::Other => {
                std::io::Error::new(io.kind(), e.to_string()).into()
            }
            StoreError::Database(sqlx::Error::Database(d))
                if d.try_downcast_ref::<sqlx::postgres::PgDatabaseError>().is_some() =>
            {
                match d.code().as_deref() {
                    Some("53100") => Error::disk_full(&e),
                    Some("25006") => Error::read_only(&e),
                    _ => Error::internal(e),
                }
            }
            StoreError::Database(sqlx::Error::Database(d)) => {
                match d.code().and_then(|c| c.parse::<i64>().ok()).map(|c| c & 0xff) {
                    Some(SQLITE_FULL) => Error::disk_full(&e),
                    Some(SQLITE_READONLY) => Error::read_only(&e),
                    _ => Error::internal(e),
                }
            }
            StoreError::Database(_) | StoreError::Migration(_) | StoreError::Corrupt(_) => Error::internal(e),
        }
    }
}

fn db(e: sqlx::Error) -> Error {
    StoreError::Database(e).into()
}

/// The metadata store, on SQLite or PostgreSQL.
#[derive(Clone, Debug)]
pub struct Store {
    db: Db,
    writes: group_commit::RunWriter,
}

/// One row of the audit log.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditRecord {
    pub at: DateTime<Utc>,
    pub user_id: String,
    pub source: String,
    pub action: String,
    pub resource_type: String,
    pub resource_id: String,
    pub outcome: String,
    pub details: serde_json::Value,
}

fn micros(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}

fn from_micros(us: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(us).unwrap_or_default()
}

/// Where a new run row stands: who drives it until when, its place in its thread's queue, and
/// how many unfinished runs its owner may have (`None`: no cap, for runs no thread holds).
#[derive(Clone, Copy, Default)]
pub(crate) struct Placing<'a> {
    pub lease_owner: Option<&'a str>,
    pub lease_expires_at: Option<i64>,
    pub queue_rank: i64,
    pub max_unfinished: Option<i64>,
}

/// A run row's columns, in the order [`bind_run`] binds them.
macro_rules! run_row_columns {
    () => {
        "INSERT INTO runs (id, owner_id, thread_id, kind, status, client_msg_id, question, parent_run_id,
                           ui_state_version, model, last_seq, iterations, usage_json, error_json, created_at,
                           completed_at, role, api_key_id, lease_owner, lease_expires_at, queue_rank) "
    };
}

/// Whom a chat run acts as (its owner's role when it started, and the key it was started with);
/// nothing for a run record of another kind.
#[derive(Clone, Copy, Default)]
pub(crate) struct ActsAs<'q> {
    pub(crate) role: Option<Role>,
    pub(crate) key: Option<&'q ApiKeyId>,
}

/// Binds a run row's values to an insert written with [`run_row_columns`].
fn bind_run<'q, S, P>(
    query: db::Query<S, P>,
    run: &'q RunRecord,
    acts_as: ActsAs<'q>,
    placing: Placing<'q>,
) -> Result<db::Query<S, P>> {
    Ok(query
        .bind(run.id.as_str())
        .bind(run.owner.as_str())
        .bind(run.thread_id.as_ref().map(ThreadId::as_str))
        .bind(run.kind.as_str())
        .bind(run.status.as_str())
        .bind(run.client_msg_id.as_deref())
        .bind(&run.question)
        .bind(run.parent_run_id.as_ref().map(RunId::as_str))
        .bind(run.ui_state_version as i64)
        .bind(run.model.as_deref())
        .bind(run.last_seq as i64)
        .bind(i64::from(run.iterations))
        .bind(json(&run.usage)?)
        .bind(run.error.as_ref().map(json).transpose()?)
        .bind(micros(run.created_at))
        .bind(run.completed_at.map(micros))
        .bind(acts_as.role.map(Role::as_str))
        .bind(acts_as.key.map(ApiKeyId::as_str))
        .bind(placing.lease_owner)
        .bind(placing.lease_expires_at)
        .bind(placing.queue_rank))
}

impl Store {
    /// Inserts a run row unless one with its id (or its owner's client message id) exists, or it
    /// would be a second active run of its thread, or (with `placing.max_unfinished`) its owner's
    /// unfinished runs would pass the cap; returns the rows inserted (0 or 1). `acts_as` is set for
    /// chat runs, which a restart continues as it; `placing` for runs of a thread.
    ///
    /// The cap is counted by the insert itself, so admissions need no lock across threads: on
    /// SQLite one statement is atomic; on PostgreSQL the owner's advisory lock, held until the
    /// insert commits, makes concurrent admissions of one user (on any replica) count one after
    /// the other.
    pub(crate) async fn insert_run_row(
        &self,
        run: &RunRecord,
        acts_as: ActsAs<'_>,
        placing: Placing<'_>,
    ) -> Result<u64> {
        const PLAIN: &str = concat!(
            run_row_columns!(),
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
        );
        // `WHERE` before `ON CONFLICT` also keeps SQLite from reading the upsert as a join's `ON`.
        const CAPPED: &str = concat!(
            run_row_columns!(),
            "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
              WHERE (SELECT count(*) FROM runs WHERE owner_id = ? AND ",
            unfinished!(),
            ") < ? ON CONFLICT DO NOTHING"
        );
        let Some(max) = placing.max_unfinished else {
            return bind_run(self.db.query(PLAIN), run, acts_as, placing)?.execute().await.map_err(db);
        };
        let owner = run.owner.as_str();
        if !self.db.is_postgres() {
            return bind_run(self.db.query(CAPPED), run, acts_as, placing)?
                .bind(owner)
                .bind(max)
                .execute()
                .await
                .map_err(db);
        }
        let mut tx = self.db.begin().await.map_err(db)?;
        tx.query("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))").bind(owner).execute().await.map_err(db)?;
        let inserted =
            bind_run(tx.query(CAPPED), run, acts_as, placing)?.bind(owner).bind(max).execute().await.map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(inserted)
    }

    /// Opens (creating if needed) the database file and applies pending migrations.
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // WAL + NORMAL survives a process crash (kill -9); only an OS crash can lose the
            // last commits.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true)
            .row_buffer_size(SQLITE_ROW_BUFFER);
        let pool = SqlitePoolOptions::new().max_connections(8).connect_with(options).await?;
        SQLITE_MIGRATIONS.run(&pool).await?;
        Ok(Self::on(Db::Sqlite(pool)))
    }

    /// Connects to PostgreSQL at `url` (`postgres://user@host:port/database`) and applies pending
    /// migrations (once, under PostgreSQL's advisory lock, however many replicas start at once).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(POSTGRES_CONNECTIONS)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        POSTGRES_MIGRATIONS.run(&pool).await?;
        Ok(Self::on(Db::Postgres(pool)))
    }

    fn on(db: Db) -> Self {
        Self { writes: group_commit::RunWriter::start(db.clone()), db }
    }

    /// `postgres` or `sqlite`.
    pub fn engine(&self) -> &'static str {
        if self.db.is_postgres() { "postgres" } else { "sqlite" }
    }

    /// The audit trail of one user, oldest first.
    pub async fn audit_trail(&self, user: &UserId) -> Result<Vec<AuditRecord>> {
        let rows = self
            .db
            .query(
                "SELECT at, user_id, source, action, resource_type, resource_id, outcome, details_json
             FROM audit_log WHERE user_id = ? ORDER BY id",
            )
            .bind(user.as_str())
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| {
                Ok(AuditRecord {
                    at: from_micros(r.get("at")),
                    user_id: r.get("user_id"),
                    source: r.get("source"),
                    action: r.get("action"),
                    resource_type: r.get("resource_type"),
                    resource_id: r.get("resource_id"),
                    outcome: r.get("outcome"),
                    details: serde_json::from_str(r.get("details_json"))
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                })
            })
            .collect()
    }
}

fn json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(Error::internal)
}

fn from_json<T: for<'de> serde::Deserialize<'de>>(column: &str, raw: Option<String>) -> Result<Option<T>> {
    raw.map(|r| serde_json::from_str(&r).map_err(|e| StoreError::Corrupt(format!("{column}: {e}")).into())).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use aware_domain::auth::Source;

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("aware.db")).await.unwrap();
        store.ensure_user(&Principal::local()).await.unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn api_keys_resolve_to_their_user_and_audit_is_recorded() {
        let (_dir, store) = store().await;
        let user = store.create_user("ana", Role::Viewer).await.unwrap();
        store.add_api_key(&user.id, "hash1", "aw_1", None).await.unwrap();
        let grant = store.find_api_key("hash1").await.unwrap().unwrap();
        assert_eq!(grant.principal.user_id, user.id);
        assert_eq!(grant.principal.role, Role::Viewer);
        assert!(!grant.revoked);
        assert!(store.find_api_key("nope").await.unwrap().is_none());

        store
            .record(AuditEntry {
                user_id: user.id.clone(),
                source: Source::Web,
                action: "dataset.delete".into(),
                resource_type: "dataset".into(),
                resource_id: "ds_1".into(),
                outcome: "succeeded".into(),
                details: serde_json::json!({"name": "x.csv"}),
            })
            .await
            .unwrap();
        let trail = store.audit_trail(&user.id).await.unwrap();
        assert_eq!(trail.len(), 1);
        assert_eq!((trail[0].source.as_str(), trail[0].action.as_str()), ("web", "dataset.delete"));
        assert_eq!(trail[0].details["name"], "x.csv");

        // A prefix is a prefix: `_` and `%` in it are letters, not patterns.
        for action in ["data_set.rename", "dataXset.rename", "data_set", "data_set.delete"] {
            let entry = AuditEntry { action: action.into(), source: Source::Cli, ..trail_entry(&user.id) };
            store.record(entry).await.unwrap();
        }
        let read = |action: &str| {
            let filter = aware_domain::ports::AuditFilter { action: Some(action.to_owned()), ..Default::default() };
            let store = &store;
            async move {
                let found = store.entries(&filter, None, 10).await.unwrap();
                found.into_iter().map(|e| e.entry.action).collect::<Vec<_>>()
            }
        };
        assert_eq!(read("data_set.").await, ["data_set.delete", "data_set.rename"]);
        assert_eq!(read("data_set").await, ["data_set"]);
        let newest = store.entries(&Default::default(), None, 2).await.unwrap();
        let older = store.entries(&Default::default(), Some(newest[1].id), 10).await.unwrap();
        assert_eq!(older.len(), 3, "below the page's last id: the rest");
        let web = aware_domain::ports::AuditFilter { source: Some(Source::Web), ..Default::default() };
        assert_eq!(store.entries(&web, None, 10).await.unwrap().len(), 1);
    }

    fn trail_entry(user: &UserId) -> AuditEntry {
        AuditEntry {
            user_id: user.clone(),
            source: Source::Api,
            action: String::new(),
            resource_type: "dataset".into(),
            resource_id: "ds_1".into(),
            outcome: "succeeded".into(),
            details: serde_json::json!({}),
        }
    }
}
