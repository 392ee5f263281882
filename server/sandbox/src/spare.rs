//! Single-use worker processes (ingestion, file operations), each started before it is needed.
//! A process per request keeps one request's hostile input away from every other, but starting
//! one is most of a small request's cost: loading DuckDB's 70 MB library takes ~13 ms and an
//! ingestion worker's DuckDB another ~26 ms, against ~20 ms to ingest an 8-byte CSV. So each kind
//! keeps one spare started and waiting on its stdin (it reads nothing else before its request): a
//! request takes it, and a replacement starts in the background. A spare that died while it
//! waited is noticed when the request is written to it, and a fresh process takes the request.
//!
//! A spare needs no cleanup: when the server goes, its stdin closes and it exits. How a worker
//! starts and how its early end is counted is `supervisor.rs`.

use crate::priority::WorkerPriority;
use crate::supervisor::{self, WorkerKind};
use aware_domain::{Error, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::Child;

/// One kind of worker (`aware-server worker <kind>`) with its spare. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Workers {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    exe: PathBuf,
    kind: WorkerKind,
    priority: WorkerPriority,
    spare: Mutex<Spare>,
}

#[derive(Debug, Default)]
struct Spare {
    child: Option<Child>,
    /// A replacement is starting: requests that find no spare meanwhile start their own process
    /// and leave the refill to it, so a burst starts one spare, not one per request.
    refilling: bool,
}

impl Workers {
    /// Workers of `kind` run from `exe` (the server binary). The first spare starts with the
    /// first request: a server that never ingests never holds one.
    pub fn new(exe: PathBuf, kind: WorkerKind, priority: WorkerPriority) -> Self {
        Self { inner: Arc::new(Inner { exe, kind, priority, spare: Mutex::default() }) }
    }

    fn start(&self) -> Result<Child> {
        let kind = self.inner.kind;
        supervisor::command(&self.inner.exe, kind, &[], Stdio::piped())
            // Single-use workers are sent absolute paths only.
            .current_dir("/")
            .spawn()
            .map_err(|e| Error::internal(format!("cannot start a {} worker {:?}: {e}", kind.as_str(), self.inner.exe)))
    }

    /// The spare, or a new process when there is none; either way a new spare is on its way.
    fn take(&self) -> Result<Child> {
        let (child, refill) = {
            let mut spare = self.inner.spare.lock().expect("spare lock");
            let refill = !spare.refilling;
            spare.refilling = true;
            (spare.child.take(), refill)
        };
        if refill {
            let this = self.clone();
            tokio::spawn(async move {
                let started = this.start();
                let mut spare = this.inner.spare.lock().expect("spare lock");
                spare.refilling = false;
                match started {
                    Ok(child) => spare.child = Some(child),
                    Err(e) => tracing::warn!(error = %e, internal = ?e.internal, "no spare worker"),
                }
            });
        }
        match child {
            Some(child) => Ok(child),
            None => self.start(),
        }
    }

    /// Sends `request` (JSON) to a worker for `user` and reads its JSON answer once it exits. A
    /// worker that misses `deadline` is killed; one that exits unsuccessfully has its stderr
    /// logged. Each caller says what those two mean to its user.
    pub async fn call<Q: Serialize, A: DeserializeOwned>(
        &self,
        user: &str,
        request: &Q,
        deadline: Duration,
    ) -> Result<Outcome<A>> {
        let input = serde_json::to_vec(request).map_err(Error::internal)?;
        let mut child = self.take()?;
        if let Err(e) = write_request(&mut child, &input).await {
            // The spare died while it waited (or could not read): a fresh one takes the request.
            tracing::warn!(kind = self.inner.kind.as_str(), error = %e, "a spare worker was gone; starting another");
            supervisor::retired(self.inner.kind, "stale");
            child = self.start()?;
            write_request(&mut child, &input).await?;
        }
        let kind = self.inner.kind;
        let _watch = self.inner.priority.watch(kind.as_str(), user, child.id());
        // Dropping the child on timeout kills it (kill_on_drop) and tokio reaps it.
        let Ok(output) = tokio::time::timeout(deadline, child.wait_with_output()).await else {
            supervisor::retired(kind, "deadline");
            return Ok(Outcome::TimedOut);
        };
        let output = output?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            tracing::warn!(kind = kind.as_str(), status = %output.status, stderr = %stderr.chars().take(2000).collect::<String>(), "worker failed");
            supervisor::retired(kind, "crashed");
            return Ok(Outcome::Failed);
        }
        serde_json::from_slice(&output.stdout).map(Outcome::Answered).map_err(|e| {
            supervisor::retired(kind, "protocol");
            Error::internal(format!("the {} worker answered garbage: {e}", kind.as_str()))
        })
    }
}

/// How a worker call ended.
pub enum Outcome<A> {
    Answered(A),
    /// Killed at its deadline.
    TimedOut,
    /// Exited unsuccessfully (a crash, a signal, a limit).
    Failed,
}

async fn write_request(child: &mut Child, input: &[u8]) -> std::io::Result<()> {
    let mut stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("worker stdin missing"))?;
    stdin.write_all(input).await?;
    stdin.shutdown().await
}
