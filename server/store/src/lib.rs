//! SQLite implementations of aware-core's storage ports (catalog, users and API keys, audit log,
//! chunked uploads), with embedded migrations. Only this crate knows SQL for the metadata store; a
//! PostgreSQL twin would implement the same ports.
//!
//! SQLite runs in WAL mode with a busy timeout, so the CLI (`aware-server users add`) can write
//! while a server is running on the same data dir.

use async_trait::async_trait;
use aware_core::auth::{Principal, Role};
use aware_core::dataset::{Dataset, DatasetFormat, DatasetStatus, IngestOutcome};
use aware_core::ids::{ApiKeyId, DatasetId, UploadId, UserId};
use aware_core::ids::{RunId, ThreadId};
use aware_core::ports::{
    ApiKeyGrant, AuditEntry, AuditLog, Catalog, NewDataset, RunStore, UploadSession, Uploads, User, Users,
};
use aware_core::run::{Capsule, QueryMode, RunError, RunKind, RunRecord, RunStatus, Usage};
use aware_core::value::Column;
use aware_core::{Error, Result};
use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow, SqliteSynchronous};
use sqlx::{Row, SqlitePool};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

mod group_commit;
mod runs;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

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

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        // SQLite's primary result codes (the low byte of extended ones): a full disk and a
        // database that cannot be written are the user's to hear about, not internal errors.
        const SQLITE_READONLY: i64 = 8;
        const SQLITE_FULL: i64 = 13;
        match &e {
            StoreError::Database(sqlx::Error::Io(io)) if io.kind() != std::io::ErrorKind::Other => {
                std::io::Error::new(io.kind(), e.to_string()).into()
            }
            StoreError::Database(sqlx::Error::Database(d)) => {
                match d.code().and_then(|c| c.parse::<i64>().ok()).map(|c| c & 0xff) {
                    Some(SQLITE_FULL) => Error::disk_full(&e),
                    Some(SQLITE_READONLY) => Error::read_only(&e),
                    _ => Error::internal(e),
                }
            }
            _ => Error::internal(e),
        }
    }
}

fn db(e: sqlx::Error) -> Error {
    StoreError::Database(e).into()
}

/// The SQLite metadata store.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pool: SqlitePool,
    events: group_commit::EventWriter,
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

impl SqliteStore {
    /// Inserts a run row unless one with its id (or its owner's client message id) exists; returns
    /// the rows inserted (0 or 1). `role` is set for chat runs, which a restart continues as it.
    pub(crate) async fn insert_run_row(&self, run: &RunRecord, role: Option<Role>) -> Result<u64> {
        let inserted = sqlx::query(
            "INSERT INTO runs (id, owner_id, thread_id, kind, status, client_msg_id, question, parent_run_id,
                               ui_state_version, model, last_seq, iterations, usage_json, error_json, created_at,
                               completed_at, role)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT DO NOTHING",
        )
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
        .bind(role.map(Role::as_str))
        .execute(&self.pool)
        .await
        .map_err(db)?;
        Ok(inserted.rows_affected())
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
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new().max_connections(8).connect_with(options).await?;
        MIGRATOR.run(&pool).await?;
        Ok(Self { events: group_commit::EventWriter::start(pool.clone()), pool })
    }

    /// The audit trail of one user, oldest first.
    pub async fn audit_trail(&self, user: &UserId) -> Result<Vec<AuditRecord>> {
        let rows = sqlx::query(
            "SELECT at, user_id, source, action, resource_type, resource_id, outcome, details_json
             FROM audit_log WHERE user_id = ? ORDER BY id",
        )
        .bind(user.as_str())
        .fetch_all(&self.pool)
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

fn parse_format(s: &str) -> Result<DatasetFormat> {
    DatasetFormat::ALL
        .into_iter()
        .find(|f| f.as_str() == s)
        .ok_or_else(|| StoreError::Corrupt(format!("dataset format {s:?}")).into())
}

fn dataset_from_row(r: &SqliteRow) -> Result<Dataset> {
    let status: String = r.get("status");
    let columns: Vec<Column> =
        serde_json::from_str(r.get("columns_json")).map_err(|e| StoreError::Corrupt(format!("columns_json: {e}")))?;
    Ok(Dataset {
        id: DatasetId::parse(r.get("id")).ok_or_else(|| StoreError::Corrupt("dataset id".into()))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| StoreError::Corrupt("owner id".into()))?,
        name: r.get("name"),
        table_name: r.get("table_name"),
        format: parse_format(r.get("format"))?,
        status: DatasetStatus::parse(&status).ok_or_else(|| StoreError::Corrupt(format!("status {status:?}")))?,
        row_count: r.get::<i64, _>("row_count") as u64,
        columns,
        size_bytes: r.get::<i64, _>("size_bytes") as u64,
        version_hash: r.get("version_hash"),
        error: r.get("error"),
        created_at: from_micros(r.get("created_at")),
        updated_at: from_micros(r.get("updated_at")),
    })
}

/// `SELECT <every dataset column> FROM datasets <rest>`, as a static string (sqlx only takes
/// audited, static SQL).
macro_rules! select_datasets {
    ($rest:literal) => {
        concat!(
            "SELECT id, owner_id, name, table_name, format, status, row_count, columns_json, size_bytes, ",
            "version_hash, error, created_at, updated_at FROM datasets ",
            $rest
        )
    };
}

impl SqliteStore {
    async fn dataset_by_id(&self, id: &DatasetId) -> Result<Option<Dataset>> {
        let row = sqlx::query(select_datasets!("WHERE id = ?"))
            .bind(id.as_str())
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        row.as_ref().map(dataset_from_row).transpose()
    }
}

#[async_trait]
impl Catalog for SqliteStore {
    async fn insert_processing(&self, new: NewDataset) -> Result<Dataset> {
        let now = micros(Utc::now());
        for n in 1..=1000 {
            let table_name = aware_core::dataset::table_name_candidate(&new.base_table_name, n);
            let inserted = sqlx::query(
                "INSERT INTO datasets (id, owner_id, name, table_name, format, status, size_bytes,
                                       version_hash, created_at, updated_at)
                 VALUES (?, ?, ?, ?, ?, 'processing', ?, ?, ?, ?)",
            )
            .bind(new.id.as_str())
            .bind(new.owner.as_str())
            .bind(&new.name)
            .bind(&table_name)
            .bind(new.format.as_str())
            .bind(new.size_bytes as i64)
            .bind(&new.version_hash)
            .bind(now)
            .bind(now)
            .execute(&self.pool)
            .await;
            match inserted {
                Ok(_) => {
                    return self
                        .dataset_by_id(&new.id)
                        .await?
                        .ok_or_else(|| Error::internal("dataset vanished right after insert"));
                }
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => continue,
                Err(e) => return Err(db(e)),
            }
        }
        Err(Error::resource_exhausted(format!(
            "too many datasets are named like {}; delete some first",
            new.base_table_name
        )))
    }

    async fn get(&self, owner: &UserId, id: &DatasetId) -> Result<Option<Dataset>> {
        let row = sqlx::query(select_datasets!("WHERE id = ? AND owner_id = ?"))
            .bind(id.as_str())
            .bind(owner.as_str())
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?;
        row.as_ref().map(dataset_from_row).transpose()
    }

    async fn list(&self, owner: &UserId, status: Option<DatasetStatus>) -> Result<Vec<Dataset>> {
        let rows = sqlx::query(select_datasets!(
            "WHERE owner_id = ?1 AND (?2 IS NULL OR status = ?2) ORDER BY created_at DESC, id DESC"
        ))
        .bind(owner.as_str())
        .bind(status.map(DatasetStatus::as_str))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter().map(dataset_from_row).collect()
    }

    async fn mark_ready(&self, id: &DatasetId, outcome: &IngestOutcome) -> Result<Option<Dataset>> {
        let columns = serde_json::to_string(&outcome.columns).map_err(Error::internal)?;
        let done = sqlx::query(
            "UPDATE datasets SET status = 'ready', row_count = ?, columns_json = ?, error = NULL, updated_at = ?
             WHERE id = ? AND status = 'processing'",
        )
        .bind(outcome.row_count as i64)
        .bind(columns)
        .bind(micros(Utc::now()))
        .bind(id.as_str())
        .execute(&self.pool)
        .await
        .map_err(db)?;
        if done.rows_affected() == 0 {
            return Ok(None);
        }
        self.dataset_by_id(id).await
    }

    async fn mark_error(&self, id: &DatasetId, reason: &str) -> Result<Option<Dataset>> {
        let done = sqlx::query(
            "UPDATE datasets SET status = 'error', error = ?, updated_at = ? WHERE id = ? AND status = 'processing'",
        )
        .bind(reason)
        .bind(micros(Utc::now()))
        .bind(id.as_str())
        .execute(&self.pool)
        .await
        .map_err(db)?;
        if done.rows_affected() == 0 {
            return Ok(None);
        }
        self.dataset_by_id(id).await
    }

    async fn delete(&self, owner: &UserId, id: &DatasetId) -> Result<bool> {
        let done = sqlx::query("DELETE FROM datasets WHERE id = ? AND owner_id = ?")
            .bind(id.as_str())
            .bind(owner.as_str())
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(done.rows_affected() > 0)
    }

    async fn list_processing(&self) -> Result<Vec<Dataset>> {
        let rows =
            sqlx::query(select_datasets!("WHERE status = 'processing'")).fetch_all(&self.pool).await.map_err(db)?;
        rows.iter().map(dataset_from_row).collect()
    }

    async fn count(&self, owner: &UserId) -> Result<u64> {
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM datasets WHERE owner_id = ?")
            .bind(owner.as_str())
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
        Ok(n as u64)
    }
}

fn user_from_row(r: &SqliteRow) -> Result<User> {
    let role: String = r.get("role");
    Ok(User {
        id: UserId::parse(r.get("id")).ok_or_else(|| StoreError::Corrupt("user id".into()))?,
        name: r.get("name"),
        role: Role::from_str(&role)?,
        created_at: from_micros(r.get("created_at")),
    })
}

#[async_trait]
impl Users for SqliteStore {
    async fn create_user(&self, name: &str, role: Role) -> Result<User> {
        let user = User { id: UserId::generate(), name: name.to_owned(), role, created_at: Utc::now() };
        sqlx::query("INSERT INTO users (id, name, role, created_at) VALUES (?, ?, ?, ?)")
            .bind(user.id.as_str())
            .bind(name)
            .bind(role.as_str())
            .bind(micros(user.created_at))
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(user)
    }

    async fn ensure_user(&self, principal: &Principal) -> Result<()> {
        sqlx::query("INSERT OR IGNORE INTO users (id, name, role, created_at) VALUES (?, ?, ?, ?)")
            .bind(principal.user_id.as_str())
            .bind(&principal.name)
            .bind(principal.role.as_str())
            .bind(micros(Utc::now()))
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn add_api_key(
        &self,
        user: &UserId,
        token_sha256: &str,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<ApiKeyId> {
        let id = ApiKeyId::generate();
        sqlx::query("INSERT INTO api_keys (id, user_id, token_sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
            .bind(id.as_str())
            .bind(user.as_str())
            .bind(token_sha256)
            .bind(micros(Utc::now()))
            .bind(expires_at.map(micros))
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(id)
    }

    async fn find_api_key(&self, token_sha256: &str) -> Result<Option<ApiKeyGrant>> {
        let row = sqlx::query(
            "SELECT k.id AS key_id, k.expires_at, k.revoked_at, u.id, u.name, u.role, u.created_at
             FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.token_sha256 = ?",
        )
        .bind(token_sha256)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        let Some(r) = row else { return Ok(None) };
        let user = user_from_row(&r)?;
        Ok(Some(ApiKeyGrant {
            key_id: ApiKeyId::parse(r.get("key_id")).ok_or_else(|| StoreError::Corrupt("key id".into()))?,
            principal: Principal { user_id: user.id, name: user.name, role: user.role },
            expires_at: r.get::<Option<i64>, _>("expires_at").map(from_micros),
            revoked: r.get::<Option<i64>, _>("revoked_at").is_some(),
        }))
    }

    async fn list_users(&self) -> Result<Vec<User>> {
        let rows = sqlx::query("SELECT id, name, role, created_at FROM users ORDER BY created_at")
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        rows.iter().map(user_from_row).collect()
    }
}

#[async_trait]
impl AuditLog for SqliteStore {
    async fn record(&self, e: AuditEntry) -> Result<()> {
        sqlx::query(
            "INSERT INTO audit_log (at, user_id, source, action, resource_type, resource_id, outcome, details_json)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(micros(Utc::now()))
        .bind(e.user_id.as_str())
        .bind(e.source.as_str())
        .bind(&e.action)
        .bind(&e.resource_type)
        .bind(&e.resource_id)
        .bind(&e.outcome)
        .bind(e.details.to_string())
        .execute(&self.pool)
        .await
        .map_err(db)?;
        Ok(())
    }
}

fn upload_from_row(r: &SqliteRow) -> Result<UploadSession> {
    Ok(UploadSession {
        id: UploadId::parse(r.get("id")).ok_or_else(|| StoreError::Corrupt("upload id".into()))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| StoreError::Corrupt("owner id".into()))?,
        filename: r.get("filename"),
        format: r.get::<Option<String>, _>("format").as_deref().map(parse_format).transpose()?,
        expected_bytes: r.get::<Option<i64>, _>("expected_bytes").map(|n| n as u64),
        received_bytes: r.get::<i64, _>("received_bytes") as u64,
        created_at: from_micros(r.get("created_at")),
    })
}

#[async_trait]
impl Uploads for SqliteStore {
    async fn create_session(&self, s: &UploadSession) -> Result<()> {
        sqlx::query(
            "INSERT INTO uploads (id, owner_id, filename, format, expected_bytes, received_bytes, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(s.id.as_str())
        .bind(s.owner.as_str())
        .bind(&s.filename)
        .bind(s.format.map(DatasetFormat::as_str))
        .bind(s.expected_bytes.map(|n| n as i64))
        .bind(s.received_bytes as i64)
        .bind(micros(s.created_at))
        .execute(&self.pool)
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn session(&self, owner: &UserId, id: &UploadId) -> Result<Option<UploadSession>> {
        let row = sqlx::query(
            "SELECT id, owner_id, filename, format, expected_bytes, received_bytes, created_at
             FROM uploads WHERE id = ? AND owner_id = ?",
        )
        .bind(id.as_str())
        .bind(owner.as_str())
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        row.as_ref().map(upload_from_row).transpose()
    }

    async fn set_received(&self, id: &UploadId, received_bytes: u64) -> Result<()> {
        sqlx::query("UPDATE uploads SET received_bytes = ? WHERE id = ?")
            .bind(received_bytes as i64)
            .bind(id.as_str())
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn remove_session(&self, id: &UploadId) -> Result<()> {
        sqlx::query("DELETE FROM uploads WHERE id = ?").bind(id.as_str()).execute(&self.pool).await.map_err(db)?;
        Ok(())
    }

    async fn count_open(&self, owner: &UserId) -> Result<u64> {
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM uploads WHERE owner_id = ?")
            .bind(owner.as_str())
            .fetch_one(&self.pool)
            .await
            .map_err(db)?;
        Ok(n as u64)
    }

    async fn take_expired(&self, cutoff: DateTime<Utc>) -> Result<Vec<UploadId>> {
        let ids: Vec<String> = sqlx::query_scalar("DELETE FROM uploads WHERE created_at < ? RETURNING id")
            .bind(micros(cutoff))
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        Ok(ids.iter().filter_map(|id| UploadId::parse(id)).collect())
    }
}

fn json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(Error::internal)
}

fn from_json<T: for<'de> serde::Deserialize<'de>>(column: &str, raw: Option<String>) -> Result<Option<T>> {
    raw.map(|r| serde_json::from_str(&r).map_err(|e| StoreError::Corrupt(format!("{column}: {e}")).into())).transpose()
}

/// `SELECT <every run column> FROM runs <rest>`.
macro_rules! select_runs {
    ($rest:literal) => {
        concat!(
            "SELECT id, owner_id, thread_id, kind, status, client_msg_id, question, parent_run_id, ui_state_version, ",
            "model, last_seq, iterations, usage_json, error_json, created_at, completed_at, final_text FROM runs ",
            $rest
        )
    };
}

/// `SELECT` of run capsules (alias `c`) with the given tail.
macro_rules! select_capsules {
    ($tail:literal) => {
        concat!(
            "SELECT c.datasets_json, c.query_mode, c.plan_json, c.compiled_sql, c.result_summary, c.error_json, ",
            "c.exec_time_ms FROM run_capsules c ",
            $tail
        )
    };
}

fn capsule_from_row(c: &SqliteRow) -> Result<Capsule> {
    Ok(Capsule {
        datasets: from_json("datasets_json", c.get("datasets_json"))?.unwrap_or_default(),
        query_mode: QueryMode::parse(&c.get::<String, _>("query_mode")).unwrap_or_default(),
        plan_json: c.get("plan_json"),
        compiled_sql: c.get("compiled_sql"),
        result_summary: c.get("result_summary"),
        error: from_json("error_json", c.get("error_json"))?,
        exec_time_ms: c.get::<Option<i64>, _>("exec_time_ms").map(|n| n as u64),
        tool_calls: Vec::new(),
    })
}

fn run_from_row(r: &SqliteRow) -> Result<RunRecord> {
    let kind: String = r.get("kind");
    let status: String = r.get("status");
    let corrupt = |what: &str| -> Error { StoreError::Corrupt(what.to_owned()).into() };
    Ok(RunRecord {
        id: RunId::parse(r.get("id")).ok_or_else(|| corrupt("run id"))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| corrupt("owner id"))?,
        thread_id: r.get::<Option<String>, _>("thread_id").as_deref().and_then(ThreadId::parse),
        kind: RunKind::parse(&kind).ok_or_else(|| corrupt("run kind"))?,
        status: RunStatus::parse(&status).ok_or_else(|| corrupt("run status"))?,
        question: r.get("question"),
        client_msg_id: r.get("client_msg_id"),
        parent_run_id: r.get::<Option<String>, _>("parent_run_id").as_deref().and_then(RunId::parse),
        ui_state_version: r.get::<i64, _>("ui_state_version") as u64,
        model: r.get("model"),
        last_seq: r.get::<i64, _>("last_seq") as u64,
        iterations: r.get::<i64, _>("iterations") as u32,
        usage: from_json("usage_json", r.get("usage_json"))?.unwrap_or_default(),
        error: from_json("error_json", r.get("error_json"))?,
        final_text: r.get::<Option<String>, _>("final_text").unwrap_or_default(),
        created_at: from_micros(r.get("created_at")),
        completed_at: r.get::<Option<i64>, _>("completed_at").map(from_micros),
    })
}

#[async_trait]
impl RunStore for SqliteStore {
    async fn insert_run(&self, run: &RunRecord) -> Result<()> {
        match self.insert_run_row(run, None).await? {
            1 => Ok(()),
            _ => Err(StoreError::Corrupt(format!("run {} exists already", run.id)).into()),
        }
    }

    async fn finish_run(&self, id: &RunId, status: RunStatus, error: Option<&RunError>, usage: &Usage) -> Result<()> {
        sqlx::query("UPDATE runs SET status = ?, error_json = ?, usage_json = ?, completed_at = ? WHERE id = ?")
            .bind(status.as_str())
            .bind(error.map(json).transpose()?)
            .bind(json(usage)?)
            .bind(micros(Utc::now()))
            .bind(id.as_str())
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn save_capsule(&self, id: &RunId, c: &Capsule) -> Result<()> {
        sqlx::query(
            "INSERT INTO run_capsules (run_id, datasets_json, query_mode, plan_json, compiled_sql, result_summary, error_json, exec_time_ms)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (run_id) DO UPDATE SET datasets_json = excluded.datasets_json, query_mode = excluded.query_mode,
                 plan_json = excluded.plan_json, compiled_sql = excluded.compiled_sql, result_summary = excluded.result_summary,
                 error_json = excluded.error_json, exec_time_ms = excluded.exec_time_ms",
        )
        .bind(id.as_str())
        .bind(json(&c.datasets)?)
        .bind(c.query_mode.as_str())
        .bind(c.plan_json.as_deref())
        .bind(c.compiled_sql.as_deref())
        .bind(c.result_summary.as_deref())
        .bind(c.error.as_ref().map(json).transpose()?)
        .bind(c.exec_time_ms.map(|n| n as i64))
        .execute(&self.pool)
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn get_run(&self, owner: &UserId, id: &RunId) -> Result<Option<(RunRecord, Capsule)>> {
        let Some(row) = sqlx::query(select_runs!("WHERE id = ? AND owner_id = ?"))
            .bind(id.as_str())
            .bind(owner.as_str())
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?
        else {
            return Ok(None);
        };
        let run = run_from_row(&row)?;
        let mut capsule = match sqlx::query(select_capsules!("WHERE c.run_id = ?"))
            .bind(id.as_str())
            .fetch_optional(&self.pool)
            .await
            .map_err(db)?
        {
            None => Capsule::default(),
            Some(c) => capsule_from_row(&c)?,
        };
        if run.kind == RunKind::Chat {
            // A chat run's capsule gathers the queries its tools ran: every dataset version they
            // read, and the last query's mode, plan, SQL, summary; exec time adds up.
            let children = sqlx::query(select_capsules!(
                "JOIN runs r ON r.id = c.run_id WHERE r.parent_run_id = ? AND r.kind IN ('sql', 'query_plan') ORDER BY r.id"
            ))
            .bind(id.as_str())
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
            for c in &children {
                let child = capsule_from_row(c)?;
                for d in child.datasets {
                    if !capsule.datasets.contains(&d) {
                        capsule.datasets.push(d);
                    }
                }
                capsule.query_mode = child.query_mode;
                capsule.plan_json = child.plan_json;
                capsule.compiled_sql = child.compiled_sql;
                capsule.result_summary = child.result_summary;
                capsule.exec_time_ms = Some(capsule.exec_time_ms.unwrap_or(0) + child.exec_time_ms.unwrap_or(0));
            }
            capsule.error = run.error.clone();
            capsule.tool_calls = aware_core::runs::store::RunLog::tool_calls(self, id).await?;
        }
        Ok(Some((run, capsule)))
    }

    async fn list_runs(
        &self,
        owner: &UserId,
        thread: Option<&ThreadId>,
        before: Option<&RunId>,
        limit: u32,
    ) -> Result<Vec<RunRecord>> {
        // Run ids are time-ordered (UUIDv7), so paging by id is paging by creation time.
        let rows = sqlx::query(select_runs!(
            "WHERE owner_id = ?1 AND (?2 IS NULL OR thread_id = ?2) AND (?3 IS NULL OR id < ?3) ORDER BY id DESC LIMIT ?4"
        ))
        .bind(owner.as_str())
        .bind(thread.map(ThreadId::as_str))
        .bind(before.map(RunId::as_str))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(db)?;
        rows.iter().map(run_from_row).collect()
    }

    async fn usage_since(&self, owner: &UserId, since: Option<DateTime<Utc>>) -> Result<(Usage, u32)> {
        let row = sqlx::query(
            "SELECT count(*) AS runs,
                    coalesce(sum(json_extract(usage_json, '$.input_tokens')), 0) AS input,
                    coalesce(sum(json_extract(usage_json, '$.output_tokens')), 0) AS output,
                    coalesce(sum(json_extract(usage_json, '$.cache_read_tokens')), 0) AS cache_read,
                    coalesce(sum(json_extract(usage_json, '$.cache_write_tokens')), 0) AS cache_write,
                    coalesce(sum(json_extract(usage_json, '$.model_calls')), 0) AS calls,
                    coalesce(max(json_extract(usage_json, '$.partial')), 0) AS partial
             FROM runs WHERE owner_id = ?1 AND created_at >= ?2",
        )
        .bind(owner.as_str())
        .bind(since.map_or(i64::MIN, micros))
        .fetch_one(&self.pool)
        .await
        .map_err(db)?;
        let n = |c: &str| u64::try_from(row.get::<i64, _>(c)).unwrap_or(0);
        let usage = Usage {
            input_tokens: n("input"),
            output_tokens: n("output"),
            cache_read_tokens: n("cache_read"),
            cache_write_tokens: n("cache_write"),
            model_calls: u32::try_from(n("calls")).unwrap_or(u32::MAX),
            partial: n("partial") > 0,
        };
        Ok((usage, u32::try_from(n("runs")).unwrap_or(u32::MAX)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aware_core::auth::Source;

    async fn store() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("aware.db")).await.unwrap();
        store.ensure_user(&Principal::local()).await.unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn api_keys_resolve_to_their_user_and_audit_is_recorded() {
        let (_dir, store) = store().await;
        let user = store.create_user("ana", Role::Viewer).await.unwrap();
        store.add_api_key(&user.id, "hash1", None).await.unwrap();
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
    }
}

/// What [`SqliteStore::collect_garbage`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GcReport {
    pub events: u64,
    pub spans: u64,
    pub audit: u64,
}

impl SqliteStore {
    /// Retention: deletes the event logs and the trace spans of runs that ended before
    /// `events_before` / `traces_before`, and audit entries older than `audit_before` (`None`:
    /// keep). Only runs with a terminal status count; one that has not ended is never touched,
    /// whatever its age: its log is how it continues after a restart and how its clients resume.
    pub async fn collect_garbage(
        &self,
        events_before: Option<DateTime<Utc>>,
        traces_before: Option<DateTime<Utc>>,
        audit_before: Option<DateTime<Utc>>,
    ) -> Result<GcReport, StoreError> {
        let mut report = GcReport::default();
        // Only runs with a terminal status count; the list comes from `RunStatus` itself.
        let terminal: Vec<String> =
            RunStatus::ALL.into_iter().filter(|s| s.is_terminal()).map(|s| format!("'{}'", s.as_str())).collect();
        let ended = format!(
            "SELECT id FROM runs WHERE status IN ({}) AND completed_at IS NOT NULL AND completed_at < ?",
            terminal.join(", ")
        );
        for (table, before, count) in
            [("run_events", events_before, &mut report.events), ("run_spans", traces_before, &mut report.spans)]
        {
            if let Some(t) = before {
                // Built only from our table names and `RunStatus` names, never from input.
                let sql = sqlx::AssertSqlSafe(format!("DELETE FROM {table} WHERE run_id IN ({ended})"));
                *count = sqlx::query(sql).bind(micros(t)).execute(&self.pool).await?.rows_affected();
            }
        }
        if let Some(t) = audit_before {
            report.audit = sqlx::query("DELETE FROM audit_log WHERE at < ?")
                .bind(micros(t))
                .execute(&self.pool)
                .await?
                .rows_affected();
        }
        Ok(report)
    }
}
