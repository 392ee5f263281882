//! CPU priority of worker processes. Fair slots keep one user from holding every worker; they do
//! not keep that user's heavy work from taking the CPU everyone's short requests need: on two
//! cores, two long DuckDB queries and a large ingestion leave a neighbour's 80 ms upload waiting
//! in the run queue for half a second. So a worker keeps the server's own priority only while it
//! is short work: once it has used [`WorkerPriority`]'s CPU allowance, or from the start when its
//! user already has another worker running (in any pool), it is lowered [`LOWER_BY`] nice levels.
//!
//! Nice changes nothing on an idle machine — a lowered worker still gets every cycle nobody else
//! wants — it only decides who goes first when the cores are contended. An unprivileged process
//! may lower its children's priority but never raise it again. So a SQL worker lowered for its
//! CPU is retired after its query; one lowered because its user had another worker running is
//! kept for that user's next query that runs beside another (which would be lowered anyway), and
//! never serves one that runs alone (see `pool.rs`). Killing those too made every concurrent
//! query of one user start a new DuckDB process: 12 → 56 ms of CPU per run in the peer bench.

use aware_domain::fair::{Open, OpenPerUser};
use rustix::process::{Pid, getpriority_process, setpriority_process};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::task::JoinHandle;

/// Nice levels a lowered worker is put below the server (at most nice 19). Ten levels weigh about
/// a tenth in the kernel's scheduler: ten lowered workers compete like one at full priority.
pub const LOWER_BY: i32 = 10;

/// How often a running worker's CPU time is read.
const POLL: Duration = Duration::from_millis(25);

/// The workers running for each user, across every pool. Cheap to clone; one per server.
#[derive(Clone, Debug)]
pub struct WorkerPriority {
    running: OpenPerUser,
    /// CPU a worker may use at full priority while it is its user's only one.
    interactive_cpu: Duration,
}

impl WorkerPriority {
    pub fn new(interactive_cpu: Duration) -> Self {
        Self { running: OpenPerUser::default(), interactive_cpu }
    }

    /// Counts worker `pid` as running for `user` (in `pool`: `sql`, `ingest`, `files`) until the
    /// returned guard drops, and lowers its priority when it stops being short work. Needs a
    /// Tokio runtime.
    pub fn watch(&self, pool: &'static str, user: &str, pid: Option<u32>) -> Watch {
        let open = self.running.open(user, usize::MAX).expect("an unbounded count never refuses");
        let lowered = Arc::new(AtomicBool::new(false));
        let Some(pid) = pid else { return Watch { _open: open, lowered, concurrent: false, task: None } };
        if open.others() > 0 {
            lower(pool, "concurrent", pid, &lowered);
            return Watch { _open: open, lowered, concurrent: true, task: None };
        }
        let allowance = ticks(self.interactive_cpu);
        let flag = lowered.clone();
        let task = tokio::spawn(async move {
            let Some(start) = cpu_ticks(pid) else { return };
            loop {
                tokio::time::sleep(POLL).await;
                match cpu_ticks(pid) {
                    Some(now) if now.saturating_sub(start) >= allowance => break,
                    Some(_) => {}
                    None => return,
                }
            }
            lower(pool, "cpu", pid, &flag);
        });
        Watch { _open: open, lowered, concurrent: false, task: Some(task) }
    }

    /// How many workers `user` has running now, in every pool.
    pub fn running(&self, user: &str) -> usize {
        self.running.count(user)
    }
}

/// A worker counted as running; dropping it stops watching.
pub struct Watch {
    _open: Open,
    lowered: Arc<AtomicBool>,
    /// Lowered from the start because its user had another worker running.
    concurrent: bool,
    task: Option<JoinHandle<()>>,
}

impl Watch {
    /// Whether the worker's priority was lowered.
    pub fn lowered(&self) -> bool {
        self.lowered.load(Ordering::Relaxed)
    }

    /// Whether it was lowered for using its CPU allowance: heavy work, not to be reused.
    pub fn heavy(&self) -> bool {
        self.lowered() && !self.concurrent
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// Lowers every thread of process `pid` (nice is per thread on Linux; threads started later
/// inherit it from the thread that starts them). Counted in `aware_workers_lowered_total`.
fn lower(pool: &'static str, cause: &'static str, pid: u32, lowered: &AtomicBool) {
    // Marked first: a query that ends while its threads are being lowered still retires the worker.
    lowered.store(true, Ordering::Relaxed);
    let target = (getpriority_process(None).unwrap_or(0) + LOWER_BY).min(19);
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return };
    for task in tasks.flatten() {
        let tid = task.file_name().to_str().and_then(|t| t.parse().ok()).and_then(Pid::from_raw);
        if let Some(tid) = tid
            && let Err(e) = setpriority_process(Some(tid), target)
        {
            tracing::debug!(pid, tid = tid.as_raw_nonzero(), error = %e, "could not lower a worker thread");
        }
    }
    metrics::counter!("aware_workers_lowered_total", "pool" => pool, "cause" => cause).increment(1);
}

fn ticks(d: Duration) -> u64 {
    (d.as_secs_f64() * rustix::param::clock_ticks_per_second() as f64).ceil() as u64
}

/// User plus system CPU time of process `pid` (all its threads) in clock ticks; `None` once it
/// is gone.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: fields are counted after it. utime and
    // stime are the 14th and 15th fields; the 3rd is the first after the name.
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::process::Stdio;

    fn nice_of(pid: u32) -> i32 {
        getpriority_process(Pid::from_raw(pid as i32)).unwrap()
    }

    fn busy_child() -> tokio::process::Child {
        tokio::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap()
    }

    #[tokio::test]
    async fn a_users_second_worker_is_lowered_at_once_and_a_long_one_once_it_used_its_allowance() {
        let own = getpriority_process(None).unwrap();
        let priority = WorkerPriority::new(Duration::from_millis(100));
        let (mut first, mut second, mut other) = (busy_child(), busy_child(), busy_child());
        let ana = priority.watch("sql", "ana", first.id());
        let ana_again = priority.watch("files", "ana", second.id());
        let bo = priority.watch("ingest", "bo", other.id());
        assert!(ana_again.lowered(), "Ana already has a worker running");
        assert_eq!(nice_of(second.id().unwrap()), (own + LOWER_BY).min(19));
        assert!(!ana.lowered() && !bo.lowered(), "short work keeps its priority");
        assert_eq!(nice_of(first.id().unwrap()), own);
        // Spinning, each uses its 100 ms of CPU within a second or so (two cores, three spinners).
        for _ in 0..200 {
            if ana.lowered() && bo.lowered() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(ana.lowered() && bo.lowered(), "long work is lowered");
        assert_eq!(nice_of(other.id().unwrap()), (own + LOWER_BY).min(19));
        // Once Ana's workers are done, her next one is short work again.
        drop((ana, ana_again));
        let mut third = busy_child();
        let next = priority.watch("sql", "ana", third.id());
        assert!(!next.lowered());
        for child in [&mut first, &mut second, &mut other, &mut third] {
            child.kill().await.unwrap();
        }
    }

    #[test]
    fn reads_a_process_cpu_time() {
        assert!(cpu_ticks(std::process::id()).is_some());
        assert_eq!(cpu_ticks(u32::MAX), None);
    }
}
