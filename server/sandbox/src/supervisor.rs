//! Worker supervision: how every worker process of this crate is started and how its early end
//! is counted. There are three kinds, all the server binary's `worker <kind>` subcommand:
//! - `sql`: the SQL pool's sessions (`pool.rs`), long-lived and framed (`protocol.rs`), one
//!   user's queries each;
//! - `ingest` and `files`: single-use (`spare.rs`: one request in on stdin, one answer out on
//!   stdout, then exit), with one spare each started ahead; their wire formats are in
//!   `ingest.rs` and `files.rs`.
//!
//! Threat model: a worker handles hostile input (an upload, a query, a path) and may crash, hang
//! or be taken over. It starts with an empty environment (plus what its kind needs) and sets up its own confinement before it reads anything (seccomp, landlock, resource limits: see
//! each worker's module). The server gives it a deadline, lowers its CPU priority when it runs
//! long (`priority.rs`), and kills it — never reusing it — after any I/O error, limit breach or
//! missed deadline. Every handle is `kill_on_drop`, so a worker is killed and reaped (tokio
//! reaps killed children) whatever path its caller took, including a panic or a cancelled future.

use std::path::Path;
use std::process::Stdio;
use tokio::process::Command;

/// The kinds of worker process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkerKind {
    Sql,
    Ingest,
    Files,
}

impl WorkerKind {
    /// The `worker` subcommand, and the `pool` label of the workers' metrics.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Sql => "sql",
            Self::Ingest => "ingest",
            Self::Files => "files",
        }
    }
}

/// What every worker's environment holds besides its own settings. The server binary allocates
/// through mimalloc, which by default reserves address space a GiB at a time: under a worker's
/// `RLIMIT_AS` that would leave DuckDB's own allocations too little room (queries failed as out
/// of memory, and the worker aborted, in ~0.2% of the peer bench's runs). A smaller step keeps
/// the limit meaning what it says.
const WORKER_ENV: [(&str, &str); 1] = [("MIMALLOC_ARENA_RESERVE", "16MiB")];

/// The command that starts a worker of `kind` from `exe` (the server binary): an empty
/// environment but `env` (and [`WORKER_ENV`]), stdin and stdout piped for its wire protocol,
/// `stderr` as the caller wants it, and killed when its handle is dropped. (The working directory
/// stays the server's: a SQL session resolves the data dir, which may be relative, from it.)
pub(crate) fn command(exe: &Path, kind: WorkerKind, env: &[(&str, String)], stderr: Stdio) -> Command {
    let mut cmd = Command::new(exe);
    cmd.args(["worker", kind.as_str()])
        .env_clear()
        .envs(WORKER_ENV)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .kill_on_drop(true);
    cmd
}

/// Counts a worker that ended before its time, by cause (`aware_workers_retired_total{pool,
/// cause}`): `deadline` (killed at its deadline), `timeout`, `limit` and `internal_error` (the
/// worker reported it), `crashed` (exited or was killed by a signal), `protocol` (answered
/// garbage), `stale` (a spare that died while it waited).
pub(crate) fn retired(kind: WorkerKind, cause: &'static str) {
    metrics::counter!("aware_workers_retired_total", "pool" => kind.as_str(), "cause" => cause).increment(1);
}
