//! The query service: SQL and QueryPlans over a caller's datasets, through the SQL sandbox, each
//! recorded as a run capsule. Used by `QueryService` (other backend services) and, with the same
//! code path, by the assistant's query tools.

use aware_domain::auth::{Caller, Capability};
use aware_domain::dataset::DatasetVersion;
use aware_domain::dataset::{Dataset, DatasetStatus};
use aware_domain::error::{Error, Result};
use aware_domain::ids::RunId;
use aware_domain::ports::{Catalog, HeavyQuery, RunStore, SavedQuery, SqlEngine, SqlOutcome};
use aware_domain::query_plan::{QueryPlan, compile};
use aware_domain::run::{Capsule, QueryMode, RunError, RunKind, RunRecord, RunStatus, Usage, VerifiedQueryUse};
use aware_domain::value::{Table, Value};
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

/// The most rows a query returns (also the default).
pub const DEFAULT_MAX_ROWS: u32 = 10_000;

/// A query's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryAnswer {
    pub run_id: RunId,
    /// The SQL that ran: the validator's canonical text.
    pub executed_sql: String,
    /// For plans: the SQL the plan compiled to (before canonicalisation).
    pub compiled_sql: String,
    pub table: Table,
    /// The datasets it read, at the versions read.
    pub datasets: Vec<DatasetVersion>,
}

#[derive(Clone)]
pub struct QueryService {
    catalog: Arc<dyn Catalog>,
    engine: Arc<dyn SqlEngine>,
    runs: Arc<dyn RunStore>,
    max_rows: u32,
    /// Queries whose plan reads more rows than this run only when the caller says so
    /// (`run_heavy`); `None` runs every query.
    ask_above: Option<u64>,
}

/// Whether the caller has agreed to a query's cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// Refused with `COST_CONFIRMATION_REQUIRED` when it reads more than the server's limit.
    Checked,
    /// Run whatever it reads: a person approved it, the calling service sent `run_heavy`, or
    /// the query is aware's own (a count to word a question back).
    Accepted,
}

impl Cost {
    /// `Accepted` when someone agreed in advance (a person's approval, a request's `run_heavy`),
    /// else `Checked`.
    pub fn agreed(yes: bool) -> Self {
        if yes { Self::Accepted } else { Self::Checked }
    }
}

/// The largest result (as JSON) a run keeps whole, for a rerun's row-level diff; a larger one
/// keeps its hash only.
pub const KEPT_RESULT_BYTES: usize = 1 << 20;

/// A result's hash: its columns (names and types) and its rows as a multiset — row order, which
/// SQL leaves free without ORDER BY (and a parallel scan may vary), does not change it.
pub fn result_hash(table: &Table) -> String {
    use sha2::{Digest, Sha256};
    let mut rows: Vec<String> = table.rows.iter().map(|r| serde_json::to_string(r).unwrap_or_default()).collect();
    rows.sort_unstable();
    let mut h = Sha256::new();
    for c in &table.columns {
        h.update(c.name.as_bytes());
        h.update([0]);
        h.update(c.sql_type.as_bytes());
        h.update([1]);
    }
    for r in &rows {
        h.update(r.as_bytes());
        h.update([2]);
    }
    hex::encode(h.finalize())
}

/// One query of a run computed again ([`QueryService::rerun`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Rerun {
    /// The query run whose SQL ran again.
    pub run_id: RunId,
    pub sql: String,
    pub table: Table,
    pub result_sha256: String,
    /// The hash recorded with the run (empty for runs from before hashes were kept).
    pub recorded_sha256: String,
    /// Rows now that were not in the recorded result, and recorded rows that are gone (as
    /// multisets); empty when the recorded rows were not kept (`rows_kept` false).
    pub added: Vec<Vec<Value>>,
    pub removed: Vec<Vec<Value>>,
    pub unchanged: u64,
    pub rows_kept: bool,
    /// The datasets it read whose version changed since the run.
    pub changed_datasets: Vec<DatasetVersion>,
    /// Why it could not run now (a dataset it read was deleted, or the query failed); the
    /// result and the diff are then empty.
    pub error: Option<aware_domain::run::RunError>,
}

/// `now` against `before` as multisets of rows: (added, removed, unchanged), in their order.
fn row_diff(before: &[Vec<Value>], now: &[Vec<Value>]) -> (Vec<Vec<Value>>, Vec<Vec<Value>>, u64) {
    let key = |r: &Vec<Value>| serde_json::to_string(r).unwrap_or_default();
    let mut left: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for r in before {
        *left.entry(key(r)).or_default() += 1;
    }
    let (mut added, mut unchanged) = (Vec::new(), 0);
    for r in now {
        match left.get_mut(&key(r)).filter(|n| **n > 0) {
            Some(n) => {
                *n -= 1;
                unchanged += 1;
            }
            None => added.push(r.clone()),
        }
    }
    let mut removed = Vec::new();
    for r in before {
        if let Some(n) = left.get_mut(&key(r)).filter(|n| **n > 0) {
            *n -= 1;
            removed.push(r.clone());
        }
    }
    (added, removed, unchanged)
}

/// A short description of a result, for capsules (never cell values).
pub fn describe_result(table: &Table) -> String {
    let names: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).take(12).collect();
    format!(
        "{} row{} × {} column{} ({}){}",
        table.rows.len(),
        if table.rows.len() == 1 { "" } else { "s" },
        table.columns.len(),
        if table.columns.len() == 1 { "" } else { "s" },
        names.join(", "),
        if table.truncated { ", truncated" } else { "" }
    )
}

impl QueryService {
    pub fn new(catalog: Arc<dyn Catalog>, engine: Arc<dyn SqlEngine>, runs: Arc<dyn RunStore>, max_rows: u32) -> Self {
        Self { catalog, engine, runs, max_rows, ask_above: None }
    }

    /// Asks before a query whose plan reads more than `rows` rows (0: never asks).
    pub fn asking_above(mut self, rows: u64) -> Self {
        self.ask_above = (rows > 0).then_some(rows);
        self
    }

    /// What `sql` would read, when that is more than this server runs without asking; `None`
    /// when it is not, or when no estimate can be made (running it then says why).
    pub async fn heavy_sql(&self, caller: &Caller, sql: &str) -> Option<HeavyQuery> {
        let limit = self.ask_above?;
        let tables = self.ready_tables(caller).await.ok()?;
        self.heavy(caller, sql, &tables, limit).await
    }

    /// As [`Self::heavy_sql`], for the SQL a plan over `dataset` (the one it names, as the caller
    /// already found it) compiles to.
    pub async fn heavy_plan(&self, caller: &Caller, plan: &QueryPlan, dataset: &Dataset) -> Option<HeavyQuery> {
        let limit = self.ask_above?;
        // Checked before compiling: a plan reads its one dataset.
        if far_below(dataset.row_count, limit) {
            return None;
        }
        let compiled = compile(plan, dataset, self.max_rows).ok()?;
        self.heavy(caller, &compiled, std::slice::from_ref(dataset), limit).await
    }

    /// As [`Self::heavy_plan`], finding the dataset the plan names among the caller's.
    pub async fn heavy_plan_named(&self, caller: &Caller, plan: &QueryPlan) -> Option<HeavyQuery> {
        self.ask_above?;
        let tables = self.ready_tables(caller).await.ok()?;
        self.heavy_plan(caller, plan, find_dataset(&tables, plan).ok()?).await
    }

    async fn heavy(&self, caller: &Caller, sql: &str, tables: &[Dataset], limit: u64) -> Option<HeavyQuery> {
        let named = self.engine.tables_named(sql).ok()?;
        let stored: u64 = tables
            .iter()
            .filter(|d| named.iter().any(|n| n.eq_ignore_ascii_case(&d.table_name)))
            .map(|d| d.row_count)
            .sum();
        if far_below(stored, limit) {
            return None;
        }
        let estimate = self.engine.estimate(&caller.principal.user_id, sql, tables).await.ok()?;
        (estimate.rows > limit).then_some(HeavyQuery { estimate, limit })
    }

    /// The most rows a query returns.
    pub fn max_rows(&self) -> u32 {
        self.max_rows
    }

    fn limit(&self, limit: u32, field: &str) -> Result<u32> {
        match limit {
            0 => Ok(self.max_rows),
            n if n > self.max_rows => Err(Error::validation(field, format!("limit must be at most {}", self.max_rows))),
            n => Ok(n),
        }
    }

    async fn ready_tables(&self, caller: &Caller) -> Result<Vec<Dataset>> {
        self.catalog.list(&caller.principal.user_id, Some(DatasetStatus::Ready)).await
    }

    /// Runs SQL over the caller's datasets.
    /// `parent` is the chat run whose tool asked (its capsule gathers its queries').
    pub async fn execute_sql(
        &self,
        caller: &Caller,
        sql: &str,
        limit: u32,
        parent: Option<&RunId>,
        cost: Cost,
    ) -> Result<QueryAnswer> {
        self.execute_sql_as(caller, sql, limit, parent, None, cost).await
    }

    /// Runs a verified (saved) query's SQL; the run's capsule records which one.
    pub async fn execute_verified(
        &self,
        caller: &Caller,
        saved: &SavedQuery,
        limit: u32,
        parent: Option<&RunId>,
        cost: Cost,
    ) -> Result<QueryAnswer> {
        let used = VerifiedQueryUse { id: saved.id.to_string(), name: saved.name.clone() };
        self.execute_sql_as(caller, &saved.sql, limit, parent, Some(used), cost).await
    }

    async fn execute_sql_as(
        &self,
        caller: &Caller,
        sql: &str,
        limit: u32,
        parent: Option<&RunId>,
        verified_query: Option<VerifiedQueryUse>,
        cost: Cost,
    ) -> Result<QueryAnswer> {
        caller.principal.require(Capability::Query)?;
        let limit = self.limit(limit, "limit")?;
        if sql.trim().is_empty() {
            return Err(Error::validation("sql", "a SQL query is required"));
        }
        let tables = self.ready_tables(caller).await?;
        let mut run = RunRecord::new(caller.principal.user_id.clone(), RunKind::Sql, sql, RunStatus::Running);
        run.parent_run_id = parent.cloned();
        self.runs.insert_run(&run).await?;
        let capsule = Capsule { query_mode: QueryMode::Sql, verified_query, ..Capsule::default() };
        let span = tracing::info_span!("sql", run_id = %run.id, user = %caller.principal.user_id, parent = ?parent.map(RunId::as_str));
        self.run_and_record(
            caller,
            run,
            capsule,
            Sql { text: sql, tables: &tables, limit, compiled: String::new(), cost },
        )
        .instrument(span)
        .await
    }

    /// Compiles a plan against its dataset's schema and runs the SQL it compiles to.
    pub async fn execute_plan(
        &self,
        caller: &Caller,
        plan: &QueryPlan,
        limit: u32,
        parent: Option<&RunId>,
        cost: Cost,
    ) -> Result<QueryAnswer> {
        caller.principal.require(Capability::Query)?;
        let limit = self.limit(limit, "limit")?;
        let tables = self.ready_tables(caller).await?;
        let dataset = find_dataset(&tables, plan)?.clone();
        let plan_json = serde_json::to_string(plan).map_err(Error::internal)?;
        let compiled = compile(plan, &dataset, limit)?;
        let mut run =
            RunRecord::new(caller.principal.user_id.clone(), RunKind::QueryPlan, plan_json.clone(), RunStatus::Running);
        run.parent_run_id = parent.cloned();
        self.runs.insert_run(&run).await?;
        let capsule = Capsule { query_mode: QueryMode::Plan, plan_json: Some(plan_json), ..Capsule::default() };
        let span = tracing::info_span!("sql", run_id = %run.id, user = %caller.principal.user_id, parent = ?parent.map(RunId::as_str));
        let sql = Sql { text: &compiled.clone(), tables: &[dataset], limit, compiled, cost };
        self.run_and_record(caller, run, capsule, sql).instrument(span).await
    }

    /// Computes a finished run's queries again — a query run's SQL, or each query a chat run's
    /// tools ran — without a model, in the sandbox, over the datasets as they are now, and
    /// compares each result with the one recorded. Nothing is recorded.
    pub async fn rerun(&self, caller: &Caller, id: &RunId) -> Result<Vec<Rerun>> {
        caller.principal.require(Capability::Query)?;
        let owner = &caller.principal.user_id;
        let (run, capsule) =
            self.runs.get_run(owner, id).await?.ok_or_else(|| Error::not_found("run", id).with_field("run_id"))?;
        let queries =
            if run.kind.is_driven() { self.runs.query_runs_of(owner, id).await? } else { vec![(run, capsule)] };
        let queries: Vec<_> =
            queries.into_iter().filter(|(r, c)| r.status == RunStatus::Succeeded && c.compiled_sql.is_some()).collect();
        if queries.is_empty() {
            return Err(Error::validation(
                "run_id",
                format!("run {id} ran no query that succeeded, so there is nothing to run again"),
            ));
        }
        let tables = self.ready_tables(caller).await?;
        let mut out = Vec::new();
        for (r, c) in queries {
            let sql = c.compiled_sql.clone().unwrap_or_default();
            // A result cut at the row cap is compared over as many rows as it had.
            let limit = match &c.result {
                Some(t) if t.truncated => t.rows.len() as u64,
                _ => u64::from(self.max_rows),
            };
            let changed_datasets = crate::history::changed_since(self.catalog.as_ref(), owner, &c.datasets).await?;
            let not_run = |error: Error| Rerun {
                run_id: r.id.clone(),
                sql: sql.clone(),
                table: Table::default(),
                result_sha256: String::new(),
                recorded_sha256: c.result_sha256.clone().unwrap_or_default(),
                added: Vec::new(),
                removed: Vec::new(),
                unchanged: 0,
                rows_kept: false,
                changed_datasets: changed_datasets.clone(),
                error: Some(aware_domain::run::RunError {
                    code: error.code,
                    message: error.message.clone(),
                    retryable: error.retryable(),
                }),
            };
            // A deleted dataset is not computed over: another that took its table name since
            // would be read in its place.
            let gone: Vec<&str> =
                changed_datasets.iter().filter(|d| d.version_hash.is_empty()).map(|d| d.table_name.as_str()).collect();
            if !gone.is_empty() {
                out.push(not_run(Error::new(
                    crate::ErrorCode::NotFound,
                    format!("{} was deleted since, so there is nothing to compute it over", gone.join(" and ")),
                )));
                continue;
            }
            // What ran once runs again without asking about its cost.
            let table = match self.engine.run(owner, &sql, &tables, limit, None).await {
                Ok(outcome) => outcome.table,
                Err(e) => {
                    out.push(not_run(e));
                    continue;
                }
            };
            let (added, removed, unchanged, rows_kept) = match &c.result {
                Some(before) => {
                    let (a, r, u) = row_diff(&before.rows, &table.rows);
                    (a, r, u, true)
                }
                None => (Vec::new(), Vec::new(), 0, false),
            };
            out.push(Rerun {
                run_id: r.id,
                sql,
                result_sha256: result_hash(&table),
                recorded_sha256: c.result_sha256.clone().unwrap_or_default(),
                table,
                added,
                removed,
                unchanged,
                rows_kept,
                changed_datasets,
                error: None,
            });
        }
        Ok(out)
    }

    async fn run_and_record(
        &self,
        caller: &Caller,
        run: RunRecord,
        mut capsule: Capsule,
        sql: Sql<'_>,
    ) -> Result<QueryAnswer> {
        let Sql { text, tables, limit, compiled: compiled_sql, cost } = sql;
        let started = Instant::now();
        let ask_above = self.ask_above.filter(|_| cost == Cost::Checked);
        let outcome = self.engine.run(&caller.principal.user_id, text, tables, u64::from(limit), ask_above).await;
        capsule.exec_time_ms = Some(started.elapsed().as_millis() as u64);
        let status = match &outcome {
            Ok(SqlOutcome { executed_sql, tables_read, table }) => {
                capsule.compiled_sql = Some(executed_sql.clone());
                capsule.datasets = tables
                    .iter()
                    .filter(|d| tables_read.iter().any(|t| t.eq_ignore_ascii_case(&d.table_name)))
                    .map(|d| DatasetVersion {
                        dataset_id: d.id.clone(),
                        table_name: d.table_name.clone(),
                        version_hash: d.version_hash.clone(),
                    })
                    .collect();
                capsule.result_summary = Some(describe_result(table));
                capsule.result_sha256 = Some(result_hash(table));
                capsule.result =
                    serde_json::to_vec(table).is_ok_and(|json| json.len() <= KEPT_RESULT_BYTES).then(|| table.clone());
                RunStatus::Succeeded
            }
            Err(e) => {
                capsule.error = Some(RunError::from(e));
                if !compiled_sql.is_empty() {
                    capsule.compiled_sql = Some(compiled_sql.clone());
                }
                RunStatus::Failed
            }
        };
        self.runs.save_capsule(&run.id, &capsule).await?;
        self.runs.finish_run(&run.id, status, capsule.error.as_ref(), &Usage::default()).await?;
        let SqlOutcome { executed_sql, table, .. } = outcome?;
        Ok(QueryAnswer {
            run_id: run.id,
            compiled_sql: if compiled_sql.is_empty() { executed_sql.clone() } else { compiled_sql },
            executed_sql,
            table,
            datasets: capsule.datasets,
        })
    }
}

/// Whether tables holding `rows` in all are so far below the limit that no plan is asked for: a
/// query reads a table a few times at most, and one that reads it more is still refused when it
/// runs.
fn far_below(rows: u64, limit: u64) -> bool {
    rows.saturating_mul(4) <= limit
}

/// The SQL a query run executes, over which tables, with which cap.
struct Sql<'a> {
    text: &'a str,
    tables: &'a [Dataset],
    limit: u32,
    /// For plans: the SQL the plan compiled to (empty for SQL).
    compiled: String,
    cost: Cost,
}

/// The dataset a plan names (by id or table name) among the caller's ready ones.
fn find_dataset<'a>(tables: &'a [Dataset], plan: &QueryPlan) -> Result<&'a Dataset> {
    let wanted = plan.dataset.trim();
    tables
        .iter()
        .find(|d| d.id.as_str() == wanted || d.table_name.eq_ignore_ascii_case(wanted))
        .ok_or_else(|| Error::not_found("dataset", format!("{wanted:?}")).with_field("plan.dataset"))
}
