//! [`SandboxSql`]: the [`SqlEngine`] port — validate, then run the canonical SQL in a pooled,
//! user-bound worker that sees only the tables the query names.

use crate::ingest::content_paths;
use crate::pool::{PoolStats, SqlPool};
use crate::protocol::{QueryRequest, TableFile};
use crate::validator::{Policy, Rule, validate};
use async_trait::async_trait;
use aware_core::dataset::Dataset;
use aware_core::ids::UserId;
use aware_core::ports::{SqlEngine, SqlOutcome};
use aware_core::value::{Column, Table};
use aware_core::{Error, ErrorCode, Result};
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

    async fn run(&self, owner: &UserId, sql: &str, tables: &[Dataset], max_rows: u64) -> Result<SqlOutcome> {
        let names: HashSet<String> = tables.iter().map(|d| d.table_name.to_lowercase()).collect();
        let validated = validate(sql, &names, &self.policy).map_err(|r| {
            // Crossed generators are refused for the rows they would build, as the worker's
            // product-join check refuses other joins.
            let code = match r.rule {
                Rule::GeneratorProductTooLarge => ErrorCode::RunnerResourceExceeded,
                _ => ErrorCode::SqlPolicyViolation,
            };
            Error::new(code, r.message)
        })?;
        let files: Vec<TableFile> = tables
            .iter()
            .filter(|d| validated.tables.contains(&d.table_name.to_lowercase()))
            .map(|d| {
                let [path, ..] = content_paths(&self.datasets_dir, owner.as_str(), d.id.as_str());
                TableFile { name: d.table_name.clone(), path, version: d.version_hash.clone() }
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
        };
        let result = self.pool.execute(owner.as_str(), request).await?;
        Ok(SqlOutcome {
            executed_sql: validated.canonical,
            tables_read: validated.tables.into_iter().collect(),
            table: Table {
                columns: result.columns.into_iter().map(|(name, ty)| Column::new(name, ty)).collect(),
                rows: result.rows,
                truncated: result.truncated,
                exec_time_ms: result.exec_ms,
            },
        })
    }
}
