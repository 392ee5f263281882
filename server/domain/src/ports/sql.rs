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
    /// What those rows take in the files they came from, table by table (each table's file size
    /// per row, times the rows read from it).
    pub bytes: u64,
}

/// A query that reads more rows than the server runs without asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeavyQuery {
    pub estimate: ScanEstimate,
    /// The server's limit (`sandbox.confirm_scan_rows`).
    pub limit: u64,
}

impl HeavyQuery {
    /// "about 1,400 rows (27.0 KB), more than the 1,000 rows this server runs without asking"
    /// (the exact count where rounding would meet the limit).
    pub fn in_words(&self) -> String {
        use crate::dataset::{about_rows, grouped, in_bytes, rounded_estimate};
        let rows = self.estimate.rows;
        let rows =
            if rounded_estimate(rows) <= self.limit { format!("{} rows", grouped(rows)) } else { about_rows(rows) };
        format!(
            "{rows} ({}), more than the {} rows this server runs without asking",
            in_bytes(self.estimate.bytes),
            grouped(self.limit)
        )
    }

    /// The refusal of running it unasked: `COST_CONFIRMATION_REQUIRED`, the estimate in the
    /// message and in `metadata`; nothing ran.
    pub fn refusal(&self) -> Error {
        let mut e = Error::new(
            ErrorCode::CostConfirmationRequired,
            format!("this query would read {}; nothing ran", self.in_words()),
        );
        e.metadata = vec![
            ("estimated_rows", self.estimate.rows.to_string()),
            ("estimated_bytes", self.estimate.bytes.to_string()),
        ];
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
    /// `COST_CONFIRMATION_REQUIRED` ([`HeavyQuery::refusal`]).
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
