//! The SQL port: untrusted SQL validated and run in the sandbox (`aware-sandbox`).

use crate::dataset::Dataset;
use crate::error::{Error, ErrorCode, Result};
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

/// What a query would read from the stored datasets, by the engine's plan, before it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanEstimate {
    /// Rows read by every scan of a dataset in the plan (a table read twice counts twice).
    pub rows: u64,
    /// The stored bytes those rows take, at the datasets' average row size.
    pub bytes: u64,
}

impl ScanEstimate {
    /// "about 62 million rows (about 2.1 GB)".
    pub fn in_words(&self) -> String {
        format!("{} ({})", crate::dataset::about_rows(self.rows), crate::dataset::in_bytes(self.bytes))
    }

    /// The refusal of a query this large when the server asks above `limit` rows: nothing ran.
    pub fn needs_confirmation(&self, limit: u64) -> Error {
        let mut e = Error::new(
            ErrorCode::CostConfirmationRequired,
            format!(
                "this query would read {}, more than the {} rows this server runs without asking; nothing ran — send it again with run_heavy to run it",
                self.in_words(),
                crate::dataset::grouped(limit)
            ),
        );
        e.metadata = vec![("estimated_rows", self.rows.to_string()), ("estimated_bytes", self.bytes.to_string())];
        e
    }
}

/// The SQL sandbox: validates untrusted SQL against the caller's tables and runs it isolated.
/// Refusals are `SQL_POLICY_VIOLATION`; limits are `RUNNER_TIMEOUT` / `RUNNER_RESOURCE_EXCEEDED`;
/// worker failures `RUNNER_INTERNAL_ERROR`; mistakes in valid SQL (unknown column)
/// `VALIDATION_ERROR`.
#[async_trait]
pub trait SqlEngine: Send + Sync {
    /// `tables` are the caller's READY datasets; only those the query names are made visible.
    /// With `ask_above`, a query whose plan reads more rows than that is not run:
    /// `COST_CONFIRMATION_REQUIRED` ([`ScanEstimate::needs_confirmation`]).
    async fn run(
        &self,
        owner: &UserId,
        sql: &str,
        tables: &[Dataset],
        max_rows: u64,
        ask_above: Option<u64>,
    ) -> Result<SqlOutcome>;
    /// What `sql` would read, checked as `run` checks it, without running it.
    async fn estimate(&self, owner: &UserId, sql: &str, tables: &[Dataset]) -> Result<ScanEstimate>;
    /// `sql` with its references to table `from` renamed to `to` (`SQL_POLICY_VIOLATION` when it
    /// is not one SELECT).
    fn rename_table(&self, sql: &str, from: &str, to: &str) -> Result<String>;
    /// The table names `sql` reads, lower-case (`SQL_POLICY_VIOLATION` when it is not one SELECT).
    fn tables_named(&self, sql: &str) -> Result<Vec<String>>;
}
