//! The SQL port: untrusted SQL validated and run in the sandbox (`aware-sandbox`).

use crate::dataset::Dataset;
use crate::error::Result;
use crate::ids::UserId;
use crate::value::Table;
use async_trait::async_trait;

/// A query over some of a user's tables, after validation and execution.
#[derive(Clone, Debug, PartialEq)]
pub struct SqlOutcome {
    /// The canonical SQL that ran.
    pub executed_sql: String,
    /// The tables it read (lower-case SQL names).
    pub tables_read: Vec<String>,
    pub table: Table,
}

/// The SQL sandbox: validates untrusted SQL against the caller's tables and runs it isolated.
/// Refusals are `SQL_POLICY_VIOLATION`; limits are `RUNNER_TIMEOUT` / `RUNNER_RESOURCE_EXCEEDED`;
/// worker failures `RUNNER_INTERNAL_ERROR`; mistakes in valid SQL (unknown column)
/// `VALIDATION_ERROR`.
#[async_trait]
pub trait SqlEngine: Send + Sync {
    /// `tables` are the caller's READY datasets; only those the query names are made visible.
    async fn run(&self, owner: &UserId, sql: &str, tables: &[Dataset], max_rows: u64) -> Result<SqlOutcome>;
    /// `sql` with its references to table `from` renamed to `to` (`SQL_POLICY_VIOLATION` when it
    /// is not one SELECT).
    fn rename_table(&self, sql: &str, from: &str, to: &str) -> Result<String>;
    /// The table names `sql` reads, lower-case (`SQL_POLICY_VIOLATION` when it is not one SELECT).
    fn tables_named(&self, sql: &str) -> Result<Vec<String>>;
}
