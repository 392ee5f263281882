//! Admission: which runs are live, which thread each holds, and who waits behind whom. One
//! active run per thread; a second message is rejected, queued or put first (`on_busy`); a user
//! has at most `max_active_runs_per_user` live runs. The table is memory only: at startup it is
//! rebuilt from the run log ([`RunTable::restore`]).

use super::events::{Resolution, RunEvent, RunPhase};
use super::fleet::Signal;
use super::store::ChatRun;
use crate::ids::{RunId, ThreadId};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
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

/// The runs this replica drives. Which run holds a thread, who waits behind it and how many runs
/// a user has are the store's (the same for every replica); this is the live side of each run
/// driven here: its fan-out and controls.
#[derive(Default)]
pub(crate) struct RunTable {
    live: Mutex<HashMap<RunId, Arc<Live>>>,
    /// Serialises this replica's admission decisions (busy check, per-user cap, placement) and
    /// promotions; the store's one-run-per-thread rule settles races between replicas.
    pub admission: tokio::sync::Mutex<()>,
}

impl RunTable {
    pub(super) fn live(&self, run_id: &RunId) -> Option<Arc<Live>> {
        self.live.lock().expect("live map").get(run_id).cloned()
    }

    /// Registers a run this replica is about to drive: new, promoted or taken over. `None` when
    /// it is already driven here.
    pub(super) fn drive(&self, run: &ChatRun, feed: &broadcast::Sender<Signal>) -> Option<Arc<Live>> {
        let mut live = self.live.lock().expect("live map");
        if live.contains_key(&run.record.id) {
            return None;
        }
        let cancelled = run.cancel_requested.then_some(Resolution::Cancelled);
        let entry = Live::new(run.record.thread_id.clone(), cancelled, feed.clone());
        live.insert(run.record.id.clone(), entry.clone());
        Some(entry)
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
