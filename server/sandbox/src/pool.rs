//! The SQL worker pool, parent side. Workers are pre-started (unbound) so a query never waits for
//! a process to boot; the first query binds a worker to its user for good (see `sql_worker`), and
//! the worker then serves only that user. A worker is retired — killed and reaped — after any I/O
//! error, timeout, limit breach or a set number of queries, and replacements start in the
//! background. A worker lowered in priority (see [`crate::priority`]) cannot be raised again: one
//! lowered for its CPU is retired; one lowered because its user had another query running serves
//! only that user's queries that run beside another.

use crate::priority::WorkerPriority;
use crate::protocol::{QueryRequest, Request, Response, ResultTable, nonblocking};
use crate::sql_worker::{MEMORY_ENV, TEST_HOOKS_ENV, THREADS_ENV};
use crate::supervisor::{self, WorkerKind};
use aware_domain::fair::{FairConfig, FairSlots};
use aware_domain::{Error, ErrorCode, Result};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::Notify;

/// What a worker did with a query.
#[derive(Debug)]
pub enum Executed {
    Table(ResultTable),
    /// Not run: its plan reads this many rows from each of the request's tables (an estimate was
    /// asked for, or it is over the request's `ask_above`).
    NotRun {
        per_table: Vec<u64>,
    },
}

/// Pool settings.
#[derive(Clone, Debug)]
pub struct PoolConfig {
    /// The executable that serves `worker sql` (the server binary).
    pub worker_exe: PathBuf,
    /// Queries running at once (and the most workers alive at once).
    pub size: usize,
    /// Of those, how many one user may run at once.
    pub per_user: usize,
    /// Queries one user may have waiting beyond that.
    pub queued_per_user: usize,
    /// The longest a query waits for a worker before it is refused (RESOURCE_EXHAUSTED).
    pub max_wait: Duration,
    /// Unbound workers kept started and waiting.
    pub warm: usize,
    pub memory_mb: u64,
    pub threads: u32,
    /// Extra time after a query's deadline before the parent kills the worker.
    pub kill_grace: Duration,
    /// Queries a worker serves before it is replaced (bounds any slow leak).
    pub max_queries_per_worker: u32,
    /// Enables test probes in workers. Never set by the server.
    pub test_hooks: bool,
    /// The CPU priority of the server's workers (shared with ingestion and the file jail).
    pub priority: WorkerPriority,
}

/// Counters for system status and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub alive: usize,
    pub busy: usize,
    pub warm: usize,
    pub restarts: u64,
}

/// A running worker; killed and reaped when dropped.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    user: Option<String>,
    queries: u32,
    /// Lowered in priority: it serves only its user's queries that run beside another.
    lowered: bool,
    /// Lowered for its CPU (heavy work): retired after its query.
    heavy: bool,
}

impl Drop for Worker {
    fn drop(&mut self) {
        // kill_on_drop would also do it; start_kill makes the intent explicit and tokio reaps.
        let _ = self.child.start_kill();
    }
}

#[derive(Default)]
struct Idle {
    warm: Vec<Worker>,
    /// Bound workers, least recently used first.
    bound: VecDeque<Worker>,
    alive: usize,
    busy: usize,
    restarts: u64,
}

/// A checked-out worker. Dropped without [`Lease::keep`], the worker is retired (killed and
/// reaped) and the pool's books are updated, whatever path the query took.
struct Lease<'a> {
    pool: &'a SqlPool,
    worker: Option<Worker>,
}

impl Lease<'_> {
    /// Returns the worker to the pool for its user's next query.
    fn keep(mut self) {
        let worker = self.worker.take();
        self.pool.checkin(worker);
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(worker) = self.worker.take() {
            drop(worker);
            self.pool.checkin(None);
        }
    }
}

/// The pool. Cheap to clone.
#[derive(Clone)]
pub struct SqlPool {
    config: Arc<PoolConfig>,
    idle: Arc<Mutex<Idle>>,
    /// The query slots, shared fairly between users.
    slots: FairSlots,
    refill: Arc<Notify>,
}

/// Publishes the pool's gauges (`aware_sql_workers{state}`); called with the lock held after
/// every change.
fn publish(idle: &Idle) {
    metrics::gauge!("aware_sql_workers", "state" => "alive").set(idle.alive as f64);
    metrics::gauge!("aware_sql_workers", "state" => "busy").set(idle.busy as f64);
    metrics::gauge!("aware_sql_workers", "state" => "warm").set(idle.warm.len() as f64);
}

/// Counts a SQL worker retired before its time, by cause.
fn retired(cause: &'static str) {
    supervisor::retired(WorkerKind::Sql, cause);
}

impl SqlPool {
    /// Creates the pool and starts its background refiller.
    pub fn start(config: PoolConfig) -> Self {
        let pool = Self {
            slots: FairSlots::new(FairConfig {
                name: "sql",
                what: "SQL queries",
                slots: config.size,
                per_user: config.per_user,
                queued_per_user: config.queued_per_user,
                max_wait: config.max_wait,
            }),
            config: Arc::new(config),
            idle: Arc::default(),
            refill: Arc::new(Notify::new()),
        };
        let weak = pool.clone();
        tokio::spawn(async move { weak.refill_loop().await });
        pool.refill.notify_one();
        pool
    }

    pub fn stats(&self) -> PoolStats {
        let idle = self.idle.lock().expect("pool lock");
        PoolStats { alive: idle.alive, busy: idle.busy, warm: idle.warm.len(), restarts: idle.restarts }
    }

    fn spawn_worker(&self) -> Result<Worker> {
        let mut env =
            vec![(MEMORY_ENV, self.config.memory_mb.to_string()), (THREADS_ENV, self.config.threads.to_string())];
        if self.config.test_hooks {
            env.push((TEST_HOOKS_ENV, "1".to_owned()));
        }
        let mut cmd = supervisor::command(&self.config.worker_exe, WorkerKind::Sql, &env, Stdio::inherit());
        let mut child = cmd.spawn().map_err(|e| Error::internal(format!("cannot start a SQL worker: {e}")))?;
        let stdin = child.stdin.take().ok_or_else(|| Error::internal("worker stdin missing"))?;
        let stdout = child.stdout.take().ok_or_else(|| Error::internal("worker stdout missing"))?;
        Ok(Worker { child, stdin, stdout, user: None, queries: 0, lowered: false, heavy: false })
    }

    async fn refill_loop(self) {
        loop {
            self.refill.notified().await;
            loop {
                let need = {
                    let idle = self.idle.lock().expect("pool lock");
                    idle.warm.len() < self.config.warm && idle.alive < self.config.size + self.config.warm
                };
                if !need {
                    break;
                }
                match self.spawn_worker() {
                    Ok(w) => {
                        let mut idle = self.idle.lock().expect("pool lock");
                        idle.alive += 1;
                        idle.warm.push(w);
                        publish(&idle);
                    }
                    Err(e) => {
                        tracing::error!(error = %e, internal = ?e.internal, "SQL worker refill failed");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        break;
                    }
                }
            }
        }
    }

    /// Takes a worker for `user`: one already bound to them, else a warm one, else a new one. A
    /// lowered worker serves only a query that runs beside another of the user's (which would be
    /// lowered anyway), and is preferred for one.
    fn checkout(&self, user: &str) -> Result<Worker> {
        let beside = self.config.priority.running(user) > 0;
        let worker = {
            let mut idle = self.idle.lock().expect("pool lock");
            let theirs = |w: &Worker, lowered: bool| w.user.as_deref() == Some(user) && w.lowered == lowered;
            let mine = if beside {
                idle.bound
                    .iter()
                    .position(|w| theirs(w, true))
                    .or_else(|| idle.bound.iter().position(|w| theirs(w, false)))
            } else {
                idle.bound.iter().position(|w| theirs(w, false))
            };
            let found = match mine {
                Some(i) => idle.bound.remove(i),
                None => idle.warm.pop(),
            };
            if found.is_none() {
                idle.alive += 1;
            }
            // Keep the number of processes bounded: the least recently used bound worker of
            // someone else makes room.
            if found.is_none() && idle.alive > self.config.size + self.config.warm && idle.bound.pop_front().is_some() {
                idle.alive -= 1;
            }
            idle.busy += 1;
            publish(&idle);
            found
        };
        self.refill.notify_one();
        match worker {
            Some(w) => Ok(w),
            None => self.spawn_worker().inspect_err(|_| {
                let mut idle = self.idle.lock().expect("pool lock");
                idle.alive -= 1;
                idle.busy -= 1;
                publish(&idle);
            }),
        }
    }

    fn checkin(&self, worker: Option<Worker>) {
        let mut idle = self.idle.lock().expect("pool lock");
        idle.busy -= 1;
        match worker {
            Some(w) if w.queries < self.config.max_queries_per_worker && !w.heavy => idle.bound.push_back(w),
            Some(w) => {
                drop(w);
                idle.alive -= 1;
            }
            None => {
                idle.alive -= 1;
                idle.restarts += 1;
            }
        }
        publish(&idle);
        drop(idle);
        self.refill.notify_one();
    }

    /// Runs one validated query for `user` and returns its table (or, not run, its estimate), once a slot of the user's share
    /// is free (a bounded wait). Cancellation-safe: if the caller stops waiting (a cancelled run),
    /// the lease drops and the worker is killed.
    pub async fn execute(&self, user: &str, request: QueryRequest) -> Result<Executed> {
        let _slot = self.slots.acquire(user).await?;
        let mut lease = Lease { pool: self, worker: Some(self.checkout(user)?) };
        let worker = lease.worker.as_mut().expect("a fresh lease holds its worker");
        worker.user = Some(user.to_owned());
        worker.queries += 1;
        let watch = self.config.priority.watch("sql", user, worker.child.id());
        let deadline = Duration::from_millis(request.timeout_ms) + self.config.kill_grace;
        let outcome = tokio::time::timeout(deadline, async {
            nonblocking::write_frame(&mut worker.stdin, &Request::Query(request)).await?;
            nonblocking::read_frame::<Response>(&mut worker.stdout).await
        })
        .await;
        // Once lowered, always lowered: nothing raises a worker's priority again.
        worker.lowered |= watch.lowered();
        worker.heavy = watch.heavy();
        match outcome {
            Ok(Ok(Response::Table(table))) => {
                lease.keep();
                Ok(Executed::Table(table))
            }
            Ok(Ok(Response::Estimated { per_table })) => {
                lease.keep();
                Ok(Executed::NotRun { per_table })
            }
            Ok(Ok(Response::Failed { code, message })) => {
                // A breached limit may leave the worker in a bad state: retire it.
                // Only the runner's own failures retire it: a refusal of any other kind (and any
                // code added later) leaves a healthy worker.
                #[allow(clippy::wildcard_enum_match_arm)]
                match code {
                    ErrorCode::RunnerTimeout => retired("timeout"),
                    ErrorCode::RunnerResourceExceeded => retired("limit"),
                    ErrorCode::RunnerInternalError => retired("internal_error"),
                    _ => lease.keep(),
                }
                Err(Error::new(code, message))
            }
            Ok(Ok(Response::Probed { .. })) => {
                retired("protocol");
                Err(Error::new(ErrorCode::RunnerInternalError, "the SQL worker answered out of turn"))
            }
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "SQL worker failed; retiring it");
                retired("crashed");
                Err(Error::new(
                    ErrorCode::RunnerInternalError,
                    "the query worker stopped unexpectedly (the query may have exceeded a limit); try again",
                ))
            }
            Err(_) => {
                tracing::warn!("SQL worker missed its deadline; killing it");
                retired("deadline");
                Err(Error::new(ErrorCode::RunnerTimeout, "the query took too long and was stopped"))
            }
        }
    }

    /// Sends a test probe to a fresh worker (test hooks only).
    pub async fn probe(&self, probe: crate::protocol::Probe) -> Result<Response> {
        let mut worker = self.spawn_worker()?;
        nonblocking::write_frame(&mut worker.stdin, &Request::Probe(probe)).await?;
        let response =
            tokio::time::timeout(Duration::from_secs(60), nonblocking::read_frame::<Response>(&mut worker.stdout))
                .await
                .map_err(|_| Error::new(ErrorCode::RunnerTimeout, "probe timed out"))?;
        Ok(response.unwrap_or_else(|e| Response::Probed { ok: false, detail: format!("worker died: {e}") }))
    }
}
