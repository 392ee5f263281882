//! [`DuckDbEngine`]: one DuckDB file per dataset under `<data dir>/datasets/<owner>/<id>.duckdb`,
//! holding one table `data`. A file per dataset keeps users apart on disk, makes deletion a file
//! removal, and lets ingestion write without locking anyone else's reads.

use crate::ingest::{IngestRequest, IngestResponse, content_paths};
use crate::priority::WorkerPriority;
use crate::spare::{Outcome, Workers};
use crate::sql::ident;
use crate::supervisor::WorkerKind;
use crate::values::{to_f64, to_u64, to_value};
use async_trait::async_trait;
use aware_domain::dataset::{ColumnStatistics, Dataset, DatasetFormat, DatasetStatistics, IngestOutcome};
use aware_domain::ports::DatasetEngine;
use aware_domain::ports::categories::CategoricalColumn;
use aware_domain::ports::search_index::TextDoc;
use aware_domain::search::TextColumnProfile;
use aware_domain::value::{Column, Table, Value, ValueKind};
use aware_domain::{Error, ErrorCode, Result};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Engine settings.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub datasets_dir: PathBuf,
    /// The executable that serves `worker ingest` (the server binary itself).
    pub worker_exe: PathBuf,
    pub ingest_memory_mb: u64,
    pub ingest_threads: u32,
    pub ingest_timeout: Duration,
    /// The largest DuckDB file ingestion may write; also the most decoded data a Parquet file
    /// may hold by its own metadata.
    pub max_dataset_bytes: u64,
    /// Memory for previews and statistics run in the server process.
    pub read_memory_mb: u64,
    /// The CPU priority of the server's workers (shared with the SQL pool and the file jail).
    pub priority: WorkerPriority,
}

/// The DuckDB dataset engine.
#[derive(Clone, Debug)]
pub struct DuckDbEngine {
    config: EngineConfig,
    workers: Workers,
}

/// Rows above which distinct counts are approximate (HyperLogLog) rather than exact.
const EXACT_DISTINCT_MAX_ROWS: u64 = 1_000_000;

impl DuckDbEngine {
    pub fn new(config: EngineConfig) -> Self {
        let workers = Workers::new(config.worker_exe.clone(), WorkerKind::Ingest, config.priority.clone());
        Self { config, workers }
    }

    fn paths(&self, dataset: &Dataset) -> [PathBuf; 4] {
        content_paths(&self.config.datasets_dir, dataset.owner.as_str(), dataset.id.as_str())
    }

    /// Ingests in a worker process for `user`, at the priority their other workers leave it.
    async fn run_worker(&self, user: &str, request: &IngestRequest) -> Result<IngestResponse> {
        let timeout = self.config.ingest_timeout;
        match self.workers.call(user, request, timeout).await? {
            Outcome::Answered(response) => Ok(response),
            Outcome::TimedOut => Err(Error::new(
                ErrorCode::RunnerTimeout,
                format!("Ingestion took longer than {} s and was stopped.", timeout.as_secs()),
            )),
            Outcome::Failed => Err(Error::new(
                ErrorCode::IngestError,
                "The file could not be processed: the ingestion worker stopped while reading it \
                 (it may be corrupt or need more resources than allowed).",
            )),
        }
    }

    /// Opens a dataset's file read-only for a query this crate wrote.
    fn open_read_only(&self, path: &Path) -> Result<duckdb::Connection> {
        let config = duckdb::Config::default()
            .access_mode(duckdb::AccessMode::ReadOnly)
            .and_then(|c| c.threads(2))
            .and_then(|c| c.max_memory(&format!("{}MB", self.config.read_memory_mb)))
            .and_then(|c| c.enable_autoload_extension(false))
            .and_then(|c| c.enable_external_access(false))
            .map_err(Error::internal)?;
        duckdb::Connection::open_with_flags(path, config).map_err(|e| Error::internal(format!("open {path:?}: {e}")))
    }

    /// Writes a dataset's content with `write` into its temporary file, then moves it in place
    /// (dropping the old write-ahead log); a failed attempt leaves nothing behind.
    async fn write_content<F, Fut>(&self, dataset: &Dataset, write: F) -> Result<IngestOutcome>
    where
        F: FnOnce(PathBuf) -> Fut,
        Fut: std::future::Future<Output = Result<IngestOutcome>>,
    {
        let [final_path, final_wal, tmp_path, tmp_wal] = self.paths(dataset);
        if let Some(dir) = final_path.parent() {
            tokio::fs::create_dir_all(dir).await?;
        }
        for p in [&tmp_path, &tmp_wal] {
            let _ = tokio::fs::remove_file(p).await;
        }
        match write(tmp_path.clone()).await {
            Ok(outcome) => {
                let _ = tokio::fs::remove_file(&final_wal).await;
                tokio::fs::rename(&tmp_path, &final_path).await?;
                Ok(outcome)
            }
            Err(e) => {
                for p in [&tmp_path, &tmp_wal] {
                    let _ = tokio::fs::remove_file(p).await;
                }
                Err(e)
            }
        }
    }

    async fn blocking<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&DuckDbEngine) -> Result<T> + Send + 'static,
    {
        let this = self.clone();
        tokio::task::spawn_blocking(move || f(&this)).await.map_err(Error::internal)?
    }
}

fn db_err(e: duckdb::Error) -> Error {
    Error::internal(format!("duckdb: {e}"))
}

#[async_trait]
impl DatasetEngine for DuckDbEngine {
    async fn check_source(&self, source: &Path, format: DatasetFormat) -> Result<()> {
        if format != DatasetFormat::Parquet {
            return Ok(());
        }
        let path = source.to_owned();
        let size = tokio::task::spawn_blocking(move || crate::parquet_meta::parquet_size(&path))
            .await
            .map_err(Error::internal)?;
        let limit = self.config.max_dataset_bytes;
        match size {
            Some(size) if size.decoded_bytes > limit => Err(Error::new(
                ErrorCode::RunnerResourceExceeded,
                format!(
                    "The Parquet file holds about {} MiB of data once decompressed (its own metadata says so); \
                     at most {} MiB are ingested.",
                    size.decoded_bytes >> 20,
                    limit >> 20
                ),
            )),
            _ => Ok(()),
        }
    }

    async fn ingest(&self, dataset: &Dataset, source: &Path, format: DatasetFormat) -> Result<IngestOutcome> {
        self.write_content(dataset, |target| async move {
            let request = IngestRequest {
                source: source.to_owned(),
                target,
                format,
                memory_limit_mb: self.config.ingest_memory_mb,
                threads: self.config.ingest_threads,
                cpu_seconds: self.config.ingest_timeout.as_secs().max(1) * 2,
                max_file_bytes: self.config.max_dataset_bytes,
            };
            match self.run_worker(dataset.owner.as_str(), &request).await? {
                IngestResponse::Ingested { row_count, columns } => Ok(IngestOutcome {
                    row_count,
                    columns: columns.into_iter().map(|(name, ty)| Column::new(name, ty)).collect(),
                }),
                IngestResponse::Rejected { message } => Err(Error::new(ErrorCode::IngestError, message)),
                IngestResponse::TooBig { message } => Err(Error::new(ErrorCode::RunnerResourceExceeded, message)),
            }
        })
        .await
    }

    async fn materialize(&self, dataset: &Dataset, table: &Table) -> Result<IngestOutcome> {
        for c in &table.columns {
            let zoned_time = c.kind == ValueKind::Time && c.sql_type.to_ascii_uppercase().contains("ZONE");
            if matches!(c.kind, ValueKind::Nested | ValueKind::Interval) || zoned_time {
                return Err(Error::validation(
                    "sql",
                    format!(
                        "the column {} is {}, which a saved dataset cannot hold exactly; cast it to text \
                         (CAST({} AS VARCHAR)) or leave it out",
                        c.name, c.sql_type, c.name
                    ),
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(twice) = table.columns.iter().find(|c| !seen.insert(c.name.to_lowercase())) {
            return Err(Error::validation(
                "sql",
                format!("the result has two columns named {}; give them different names with AS", twice.name),
            ));
        }
        let table = table.clone();
        self.write_content(dataset, |target| self.blocking(move |_| write_table(&target, &table))).await
    }

    async fn preview(&self, dataset: &Dataset, limit: u32) -> Result<Table> {
        let dataset = dataset.clone();
        self.blocking(move |engine| {
            let started = Instant::now();
            let [path, ..] = engine.paths(&dataset);
            let conn = engine.open_read_only(&path)?;
            let mut stmt = conn.prepare(&format!("SELECT * FROM data LIMIT {}", limit + 1)).map_err(db_err)?;
            let width = dataset.columns.len();
            let mut rows = stmt.query([]).map_err(db_err)?;
            let mut out = Vec::new();
            while let Some(row) = rows.next().map_err(db_err)? {
                let cells = (0..width)
                    .map(|i| row.get::<_, duckdb::types::Value>(i).map(to_value))
                    .collect::<duckdb::Result<Vec<_>>>()
                    .map_err(db_err)?;
                out.push(cells);
            }
            let truncated = out.len() > limit as usize;
            out.truncate(limit as usize);
            Ok(Table {
                columns: dataset.columns.clone(),
                rows: out,
                truncated,
                exec_time_ms: started.elapsed().as_millis() as u64,
            })
        })
        .await
    }

    async fn statistics(&self, dataset: &Dataset) -> Result<DatasetStatistics> {
        let dataset = dataset.clone();
        self.blocking(move |engine| {
            let started = Instant::now();
            let [path, ..] = engine.paths(&dataset);
            let conn = engine.open_read_only(&path)?;
            let exact = dataset.row_count <= EXACT_DISTINCT_MAX_ROWS;
            let mut exprs = vec!["count(*)".to_owned()];
            for c in &dataset.columns {
                exprs.extend(column_profile_exprs(c, exact));
            }
            let sql = format!("SELECT {} FROM data", exprs.join(", "));
            let values: Vec<duckdb::types::Value> =
                conn.query_row(&sql, [], |row| (0..exprs.len()).map(|i| row.get(i)).collect()).map_err(db_err)?;
            let mut it = values.into_iter();
            let row_count = it.next().map(|v| to_u64(&v)).unwrap_or(0);
            let columns = dataset
                .columns
                .iter()
                .map(|c| {
                    let mut next = || it.next().unwrap_or(duckdb::types::Value::Null);
                    let non_null = to_u64(&next());
                    let distinct_count = to_u64(&next());
                    let (min, max) = if profiles_min_max(c.kind) {
                        (to_value(next()), to_value(next()))
                    } else {
                        (Value::Null, Value::Null)
                    };
                    let (mean, median, stddev) = if c.kind.is_numeric() {
                        (to_f64(&next()), to_f64(&next()), to_f64(&next()))
                    } else {
                        (None, None, None)
                    };
                    let (min_length, max_length) = if c.kind == ValueKind::String {
                        (Some(to_u64(&next())).filter(|_| non_null > 0), Some(to_u64(&next())).filter(|_| non_null > 0))
                    } else {
                        (None, None)
                    };
                    ColumnStatistics {
                        name: c.name.clone(),
                        sql_type: c.sql_type.clone(),
                        kind: c.kind,
                        null_count: row_count.saturating_sub(non_null),
                        distinct_count,
                        min,
                        max,
                        mean,
                        median,
                        stddev,
                        min_length,
                        max_length,
                    }
                })
                .collect();
            Ok(DatasetStatistics {
                dataset_id: dataset.id.clone(),
                table_name: dataset.table_name.clone(),
                row_count,
                columns,
                exec_time_ms: started.elapsed().as_millis() as u64,
            })
        })
        .await
    }

    async fn text_profile(&self, dataset: &Dataset) -> Result<Vec<TextColumnProfile>> {
        let dataset = dataset.clone();
        self.blocking(move |engine| {
            let strings: Vec<&Column> = dataset.columns.iter().filter(|c| c.kind == ValueKind::String).collect();
            if strings.is_empty() {
                return Ok(Vec::new());
            }
            let exprs: Vec<String> = strings
                .iter()
                .flat_map(|c| {
                    let q = ident(&c.name);
                    [
                        format!("count({q})"),
                        format!("coalesce(avg(length({q})), 0)::DOUBLE"),
                        format!("coalesce(avg(CASE WHEN contains({q}, ' ') THEN 1.0 ELSE 0.0 END), 0)::DOUBLE"),
                    ]
                })
                .collect();
            let sql = format!("SELECT {} FROM (SELECT * FROM data LIMIT {TEXT_PROFILE_ROWS})", exprs.join(", "));
            let [path, ..] = engine.paths(&dataset);
            let conn = engine.open_read_only(&path)?;
            let values: Vec<duckdb::types::Value> =
                conn.query_row(&sql, [], |row| (0..exprs.len()).map(|i| row.get(i)).collect()).map_err(db_err)?;
            Ok(strings
                .iter()
                .zip(values.chunks(3))
                .map(|(c, v)| TextColumnProfile {
                    name: c.name.clone(),
                    non_null: to_u64(&v[0]),
                    avg_chars: to_f64(&v[1]).unwrap_or(0.0),
                    with_space: to_f64(&v[2]).unwrap_or(0.0),
                })
                .collect())
        })
        .await
    }

    async fn text_rows(&self, dataset: &Dataset, columns: &[String], max_rows: u64) -> Result<Vec<TextDoc>> {
        let dataset = dataset.clone();
        let columns = columns.to_vec();
        self.blocking(move |engine| {
            let cols: Vec<String> = columns.iter().map(|c| format!("coalesce({}::VARCHAR, '')", ident(c))).collect();
            let sql = format!("SELECT rowid, {} FROM data ORDER BY rowid LIMIT {max_rows}", cols.join(", "));
            let [path, ..] = engine.paths(&dataset);
            let conn = engine.open_read_only(&path)?;
            let mut stmt = conn.prepare(&sql).map_err(db_err)?;
            let mut rows = stmt.query([]).map_err(db_err)?;
            let mut docs = Vec::new();
            while let Some(row) = rows.next().map_err(db_err)? {
                let row_id: i64 = row.get(0).map_err(db_err)?;
                let fields = (1..=columns.len()).map(|i| row.get::<_, String>(i)).collect::<duckdb::Result<_>>();
                docs.push(TextDoc { row_id: row_id as u64, fields: fields.map_err(db_err)? });
            }
            Ok(docs)
        })
        .await
    }

    async fn categorical_values(&self, dataset: &Dataset, max_distinct: u32) -> Result<Vec<CategoricalColumn>> {
        let dataset = dataset.clone();
        self.blocking(move |engine| {
            let strings: Vec<&Column> = dataset.columns.iter().filter(|c| c.kind == ValueKind::String).collect();
            if strings.is_empty() {
                return Ok(Vec::new());
            }
            let [path, ..] = engine.paths(&dataset);
            let conn = engine.open_read_only(&path)?;
            // One pass estimates every column's distinct count; only the few-valued ones are read.
            let exprs: Vec<String> =
                strings.iter().map(|c| format!("approx_count_distinct({})", ident(&c.name))).collect();
            let sql = format!("SELECT {} FROM data", exprs.join(", "));
            let estimates: Vec<duckdb::types::Value> =
                conn.query_row(&sql, [], |row| (0..exprs.len()).map(|i| row.get(i)).collect()).map_err(db_err)?;
            let mut out = Vec::new();
            for (c, estimate) in strings.iter().zip(&estimates) {
                // HyperLogLog is within a few percent; the exact read below decides.
                if to_u64(estimate) > u64::from(max_distinct) * 11 / 10 + 2 {
                    continue;
                }
                let q = ident(&c.name);
                let sql = format!(
                    "SELECT DISTINCT {q} FROM data WHERE {q} IS NOT NULL AND length({q}) BETWEEN 1 AND 100 \
                     ORDER BY 1 LIMIT {}",
                    u64::from(max_distinct) + 1
                );
                let mut stmt = conn.prepare(&sql).map_err(db_err)?;
                let values: Vec<String> = stmt
                    .query_map([], |row| row.get::<_, String>(0))
                    .map_err(db_err)?
                    .collect::<duckdb::Result<_>>()
                    .map_err(db_err)?;
                if values.len() <= max_distinct as usize && !values.is_empty() {
                    out.push(CategoricalColumn { column: c.name.clone(), values });
                }
            }
            Ok(out)
        })
        .await
    }

    async fn remove(&self, dataset: &Dataset) -> Result<()> {
        for path in self.paths(dataset) {
            match tokio::fs::remove_file(&path).await {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }
}

/// Writes `table` into a new DuckDB file as its table `data`, each column with the result's own
/// type; the values are bound as parameters (never spliced into SQL) and cast by DuckDB.
fn write_table(path: &Path, table: &Table) -> Result<IngestOutcome> {
    use duckdb::types::{TimeUnit, Value as Db};
    let db = duckdb::Connection::open(path).map_err(db_err)?;
    let columns: Vec<String> = table.columns.iter().map(|c| format!("{} {}", ident(&c.name), c.sql_type)).collect();
    db.execute_batch(&format!("CREATE TABLE data ({}); BEGIN TRANSACTION;", columns.join(", "))).map_err(db_err)?;
    let marks = vec!["?"; table.columns.len()].join(", ");
    {
        let mut insert = db.prepare(&format!("INSERT INTO data VALUES ({marks})")).map_err(db_err)?;
        for row in &table.rows {
            let cells: Vec<Db> = row
                .iter()
                .map(|v| match v {
                    Value::Null => Db::Null,
                    Value::Bool(b) => Db::Boolean(*b),
                    Value::Int(n) => Db::BigInt(*n),
                    Value::Double(x) => Db::Double(*x),
                    Value::Decimal(s) | Value::String(s) | Value::Text(s) => Db::Text(s.clone()),
                    Value::Date(d) => Db::Date32(*d),
                    Value::Timestamp(t) => Db::Timestamp(TimeUnit::Microsecond, *t),
                    Value::Time(t) => Db::Time64(TimeUnit::Microsecond, *t),
                    Value::Bytes(b) => Db::Blob(b.clone()),
                })
                .collect();
            insert.execute(duckdb::params_from_iter(cells)).map_err(db_err)?;
        }
    }
    db.execute_batch("COMMIT; CHECKPOINT;").map_err(db_err)?;
    let row_count: i64 = db.query_row("SELECT count(*) FROM data", [], |r| r.get(0)).map_err(db_err)?;
    let columns = table.columns.iter().map(|c| Column::new(c.name.clone(), c.sql_type.clone())).collect();
    Ok(IngestOutcome { row_count: row_count as u64, columns })
}

/// Rows read to profile text columns: the first ones are enough to tell prose from codes.
const TEXT_PROFILE_ROWS: u64 = 10_000;

fn profiles_min_max(kind: ValueKind) -> bool {
    !matches!(kind, ValueKind::Nested | ValueKind::Bytes | ValueKind::Interval)
}

/// The aggregate expressions profiling one column, in the order `statistics` reads them back.
fn column_profile_exprs(c: &Column, exact_distinct: bool) -> Vec<String> {
    let q = ident(&c.name);
    let mut e = vec![
        format!("count({q})"),
        if exact_distinct { format!("count(DISTINCT {q})") } else { format!("approx_count_distinct({q})") },
    ];
    if profiles_min_max(c.kind) {
        e.push(format!("min({q})"));
        e.push(format!("max({q})"));
    }
    if c.kind.is_numeric() {
        e.push(format!("avg({q})::DOUBLE"));
        e.push(format!("median({q})::DOUBLE"));
        e.push(format!("stddev_samp({q})::DOUBLE"));
    }
    if c.kind == ValueKind::String {
        e.push(format!("min(length({q}))"));
        e.push(format!("max(length({q}))"));
    }
    e
}
