//! [`SandboxSql`]: the [`SqlEngine`] port — validate, then run the canonical SQL in a pooled,
//! user-bound worker that sees only the tables the query names.

use crate::ingest::content_paths;
use crate::pool::{Executed, PoolStats, SqlPool};
use crate::protocol::{QueryRequest, TableFile};
use crate::validator::{Policy, Rule, validate};
use async_trait::async_trait;
use aware_domain::dataset::Dataset;
use aware_domain::ids::UserId;
use aware_domain::ports::{HeavyQuery, ScanEstimate, SqlEngine, SqlOutcome};
use aware_domain::value::{Column, Table};
use aware_domain::{Error, ErrorCode, Result};
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

/// Sandbox limits per query.
#[derive(Clone, Debug)]
pub struct SqlLimits {
    pub timeout: Duration,
    pub max_bytes: u64,
}

#[derive(Clone)]
pub struct SandboxSql {
    pool: SqlPool,
    datasets_dir: PathBuf,
    policy: Policy,
    limits: SqlLimits,
}

impl SandboxSql {
    pub fn new(pool: SqlPool, datasets_dir: PathBuf, limits: SqlLimits) -> Self {
        Self { pool, datasets_dir, policy: Policy::default(), limits }
    }

    pub fn pool_stats(&self) -> PoolStats {
        self.pool.stats()
    }
}

#[async_trait]
impl SqlEngine for SandboxSql {
    fn rename_table(&self, sql: &str, from: &str, to: &str) -> Result<String> {
        crate::validator::rename_table(sql, from, to).map_err(|r| Error::new(ErrorCode::SqlPolicyViolation, r.message))
    }

    fn tables_named(&self, sql: &str) -> Result<Vec<String>> {
        crate::validator::tables_named(sql).map_err(|r| Error::new(ErrorCode::SqlPolicyViolation, r.message))
    }

    async fn run(
        &self,
        owner: &UserId,
        sql: &str,
        tables: &[Dataset],
        max_rows: u64,
        ask_above: Option<u64>,
    ) -> Result<SqlOutcome> {
        let (request, read, canonical, names) = self.request(owner, sql, tables, max_rows).await?;
        let request = QueryRequest { ask_above, ..request };
        match self.pool.execute(owner.as_str(), request).await? {
            Executed::Table(result) => Ok(SqlOutcome {
                executed_sql: canonical,
                tables_read: names,
                table: Table {
                    columns: result.columns.into_iter().map(|(name, ty)| Column::new(name, ty)).collect(),
                    rows: result.rows,
                    truncated: result.truncated,
                    exec_time_ms: result.exec_ms,
                },
            }),
            Executed::NotRun { per_table } => {
                Err(HeavyQuery { estimate: estimate(&per_table, &read), limit: ask_above.unwrap_or_default() }
                    .refusal())
            }
        }
    }

    async fn estimate(&self, owner: &UserId, sql: &str, tables: &[Dataset]) -> Result<ScanEstimate> {
        let (request, read, ..) = self.request(owner, sql, tables, 0).await?;
        let request = QueryRequest { estimate_only: true, ..request };
        match self.pool.execute(owner.as_str(), request).await? {
            Executed::NotRun { per_table } => Ok(estimate(&per_table, &read)),
            Executed::Table(_) => {
                Err(Error::new(ErrorCode::RunnerInternalError, "the SQL worker ran a query it was asked to estimate"))
            }
        }
    }
}

impl SandboxSql {
    /// `sql` validated against the caller's tables, as a request to a worker (not yet limited by
    /// cost), with the datasets it reads, its canonical text and the names it reads.
    async fn request<'t>(
        &self,
        owner: &UserId,
        sql: &str,
        tables: &'t [Dataset],
        max_rows: u64,
    ) -> Result<(QueryRequest, Vec<&'t Dataset>, String, Vec<String>)> {
        let names: HashSet<String> = tables.iter().map(|d| d.table_name.to_lowercase()).collect();
        let validated = validate(sql, &names, &self.policy).map_err(|r| {
            // Crossed generators are refused for the rows they would build, as the worker's
            // product-join check refuses other joins.
            // Every rule but the generators' is a policy violation, including rules added later.
            #[allow(clippy::wildcard_enum_match_arm)]
            let code = match r.rule {
                Rule::GeneratorProductTooLarge => ErrorCode::RunnerResourceExceeded,
                _ => ErrorCode::SqlPolicyViolation,
            };
            Error::new(code, r.message)
        })?;
        let read: Vec<&Dataset> =
            tables.iter().filter(|d| validated.tables.contains(&d.table_name.to_lowercase())).collect();
        let files: Vec<TableFile> = read
            .iter()
            .map(|d| {
                let [path, ..] = content_paths(&self.datasets_dir, owner.as_str(), d.id.as_str());
                TableFile { name: d.table_name.clone(), path, version: d.version_hash.clone(), rows: d.row_count }
            })
            .collect();
        let user_dir = self.datasets_dir.join(owner.as_str());
        tokio::fs::create_dir_all(&user_dir).await?;
        let request = QueryRequest {
            user_dir,
            tables: files,
            sql: validated.canonical.clone(),
            max_rows,
            max_bytes: self.limits.max_bytes,
            timeout_ms: self.limits.timeout.as_millis() as u64,
            ask_above: None,
            estimate_only: false,
        };
        Ok((request, read, validated.canonical, validated.tables.into_iter().collect()))
    }
}

/// A plan's rows read from each table, and the bytes they take in the files they came from.
fn estimate(per_table: &[u64], read: &[&Dataset]) -> ScanEstimate {
    let mut out = ScanEstimate::default();
    for (rows, d) in per_table.iter().zip(read) {
        out.rows = out.rows.saturating_add(*rows);
        if d.row_count > 0 {
            let bytes = (*rows as f64 * d.size_bytes as f64 / d.row_count as f64).round() as u64;
            out.bytes = out.bytes.saturating_add(bytes);
        }
    }
    out
}
