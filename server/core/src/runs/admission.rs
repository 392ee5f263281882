//! Admission's local side: the runs this replica drives, each with its fan-out channel and
//! controls, and how often a driver that could not finish was tried. The rules themselves — one
//! active run per thread; a second message rejected, queued or put first (`on_busy`); at most
//! `max_active_runs_per_user` unfinished runs per user — are kept by the store, so they hold
//! across replicas (`engine.rs` applies them).

use aware_domain::events::{Resolution, RunEvent, RunPhase};
use aware_domain::ids::{RunId, ThreadId};
use aware_domain::ports::fleet::Signal;
use aware_domain::ports::run_log::ChatRun;
use chrono::{DateTime, Utc};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::{Notify, broadcast, watch};

/// What a second message to a busy thread does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OnBusy {
    #[default]
    Reject,
    Enqueue,
    Interrupt,
}

/// The in-memory side of a run that has not finished: its fan-out channel and controls.
pub(crate) struct Live {
    pub thread: Option<ThreadId>,
    pub tx: broadcast::Sender<Arc<RunEvent>>,
    pub cancel: watch::Sender<Option<Resolution>>,
    pub confirm: Notify,
    pub last_seq: AtomicU64,
    pub state: Mutex<LiveState>,
    /// The replica's feed: every publish also says so there (for followers without a live tail).
    feed: broadcast::Sender<Signal>,
    /// The driver task, to stop when another replica has taken the run over.
    pub task: Mutex<Option<tokio::task::AbortHandle>>,
}

pub(crate) struct LiveState {
    pub phase: RunPhase,
    pub confirmation_expires: Option<DateTime<Utc>>,
}

impl Live {
    fn new(thread: Option<ThreadId>, cancelled: Option<Resolution>, feed: broadcast::Sender<Signal>) -> Arc<Self> {
        Arc::new(Self {
            thread,
            tx: broadcast::channel(1024).0,
            cancel: watch::channel(cancelled).0,
            confirm: Notify::new(),
            last_seq: AtomicU64::new(0),
            state: Mutex::new(LiveState { phase: RunPhase::Queued, confirmation_expires: None }),
            feed,
            task: Mutex::new(None),
        })
    }

    /// Tells the driver to look again: a cancel (with why), or an answer to its confirmation.
    pub(super) fn wake(&self, cancel: Option<Resolution>) {
        if cancel.is_some() {
            self.cancel.send_replace(cancel);
        }
        self.confirm.notify_one();
    }

    /// Fans an event that is already in the log out to the run's live subscribers.
    pub(super) fn publish(&self, event: Arc<RunEvent>) {
        self.last_seq.store(event.seq, Ordering::Relaxed);
        // No subscriber is not an error: the event is in the log.
        if self.feed.receiver_count() > 0 {
            let _ = self.feed.send(Signal::Appended { run: event.run_id.clone(), seq: event.seq });
        }
        let _ = self.tx.send(event);
    }
}

/// A run's state for heartbeats.
#[derive(Clone, Debug, PartialEq)]
pub struct ActiveRunInfo {
    pub run_id: RunId,
    pub phase: RunPhase,
    pub last_seq: u64,
    pub confirmation_ms_left: u64,
}

/// Admission locks by thread: a fixed set of stripes, a thread's lock the stripe its id hashes
/// to (two threads may share one; that only makes one wait).
pub(crate) struct Admission {
    stripes: Box<[tokio::sync::Mutex<()>]>,
    /// Keyed per process, so no one can pick thread ids that share another user's stripe.
    hasher: std::collections::hash_map::RandomState,
}

/// Enough that a burst of new conversations rarely waits on a shared stripe.
const ADMISSION_STRIPES: usize = 256;

impl Default for Admission {
    fn default() -> Self {
        Self {
            stripes: (0..ADMISSION_STRIPES).map(|_| tokio::sync::Mutex::new(())).collect(),
            hasher: std::collections::hash_map::RandomState::new(),
        }
    }
}

impl Admission {
    /// The lock of `thread`'s admissions.
    pub(crate) async fn thread(&self, thread: &ThreadId) -> tokio::sync::MutexGuard<'_, ()> {
        use std::hash::BuildHasher;
        let hash = self.hasher.hash_one(thread);
        self.stripes[(hash % self.stripes.len() as u64) as usize].lock().await
    }

    /// Every thread's lock (in one order, so two callers never hold parts of it each).
    pub(crate) async fn every_thread(&self) -> Vec<tokio::sync::MutexGuard<'_, ()>> {
        let mut all = Vec::with_capacity(self.stripes.len());
        for stripe in &*self.stripes {
            all.push(stripe.lock().await);
        }
        all
    }
}

/// The runs this replica drives. Which run holds a thread, who waits behind it and how many runs
/// a user has are the store's (the same for every replica); this is the live side of each run
/// driven here: its fan-out and controls.
#[derive(Default)]
pub(crate) struct RunTable {
    live: Mutex<HashMap<RunId, Arc<Live>>>,
    /// Serialises this replica's admission decisions for a thread (busy check, placement) and
    /// its promotions; the store's one-run-per-thread rule settles races between replicas, and
    /// its insert counts the per-user cap, so different threads are admitted side by side.
    pub admission: Admission,
    /// Runs whose driver stopped before the run ended: how many times in a row, and when last.
    failures: Mutex<HashMap<RunId, (u32, Instant)>>,
    /// The replica is stopping: it drives nothing more.
    pub stopping: AtomicBool,
    /// Threads in which a run may be waiting, as far as this replica knows: on a store no other
    /// replica shares, the end of a run looks for the next one only in these.
    queues: Mutex<HashSet<ThreadId>>,
}

impl RunTable {
    pub(super) fn live(&self, run_id: &RunId) -> Option<Arc<Live>> {
        self.live.lock().expect("live map").get(run_id).cloned()
    }

    /// Registers a run this replica is about to drive: new, promoted or taken over. `None` when
    /// it is already driven here.
    pub(super) fn drive(&self, run: &ChatRun, feed: &broadcast::Sender<Signal>) -> Option<Arc<Live>> {
        let mut live = self.live.lock().expect("live map");
        if live.contains_key(&run.record.id) || self.stopping.load(Ordering::Relaxed) {
            return None;
        }
        let cancelled = run.cancel;
        let entry = Live::new(run.record.thread_id.clone(), cancelled, feed.clone());
        live.insert(run.record.id.clone(), entry.clone());
        Some(entry)
    }

    /// A run may be waiting in `thread` (one was queued, or the thread's runs were restored).
    pub(super) fn note_queue(&self, thread: &ThreadId) {
        self.queues.lock().expect("queues").insert(thread.clone());
    }

    /// Whether a run may be waiting in `thread`.
    pub(super) fn may_have_queue(&self, thread: &ThreadId) -> bool {
        self.queues.lock().expect("queues").contains(thread)
    }

    /// No run waits in `thread` any more (none was found to start).
    pub(super) fn no_queue(&self, thread: &ThreadId) {
        self.queues.lock().expect("queues").remove(thread);
    }

    /// Records how a driver ended: before its run did (`unfinished`), or with it.
    pub(super) fn note_outcome(&self, run_id: &RunId, unfinished: bool) {
        let mut failures = self.failures.lock().expect("failures");
        if unfinished {
            let entry = failures.entry(run_id.clone()).or_insert((0, Instant::now()));
            *entry = (entry.0 + 1, Instant::now());
        } else {
            failures.remove(run_id);
        }
    }

    /// Whether a run held here and not driven may be driven again now: never tried, or its last
    /// driver stopped long enough ago (`beat` doubled per failure in a row, at most 64 beats).
    pub(super) fn may_retry(&self, run_id: &RunId, beat: std::time::Duration) -> bool {
        if self.stopping.load(Ordering::Relaxed) {
            return false;
        }
        match self.failures.lock().expect("failures").get(run_id) {
            None => true,
            Some((n, at)) => at.elapsed() >= beat * 2u32.pow((*n).min(6)),
        }
    }

    /// The runs driven here.
    pub(super) fn driven(&self) -> Vec<(RunId, Arc<Live>)> {
        self.live.lock().expect("live map").iter().map(|(id, l)| (id.clone(), l.clone())).collect()
    }

    /// A run is over here: it leaves the live map. Idempotent.
    pub(super) fn release(&self, run_id: &RunId) {
        self.live.lock().expect("live map").remove(run_id);
    }

    /// How many runs of all users are in each phase right now.
    pub(super) fn phase_counts(&self) -> Vec<(RunPhase, usize)> {
        let live: Vec<Arc<Live>> = self.live.lock().expect("live runs").values().cloned().collect();
        RunPhase::ALL
            .into_iter()
            .map(|p| (p, live.iter().filter(|l| l.state.lock().expect("live state").phase == p).count()))
            .collect()
    }

    /// Phase, last seq and confirmation time left of a run that has not finished.
    pub(super) fn active_info(&self, run_id: &RunId) -> Option<ActiveRunInfo> {
        let live = self.live(run_id)?;
        let state = live.state.lock().expect("live state");
        let left = state
            .confirmation_expires
            .map(|e| u64::try_from((e - Utc::now()).num_milliseconds()).unwrap_or(0))
            .unwrap_or(0);
        Some(ActiveRunInfo {
            run_id: run_id.clone(),
            phase: state.phase,
            last_seq: live.last_seq.load(Ordering::Relaxed),
            confirmation_ms_left: left,
        })
    }
}
