//! Admission: which runs are live, which thread each holds, and who waits behind whom. One
//! active run per thread; a second message is rejected, queued or put first (`on_busy`); a user
//! has at most `max_active_runs_per_user` live runs. The table is memory only: at startup it is
//! rebuilt from the run log ([`RunTable::restore`]).

use super::events::{Resolution, RunEvent, RunPhase};
use super::store::ChatRun;
use crate::ids::{RunId, ThreadId, UserId};
use crate::run::RunStatus;
use chrono::{DateTime, Utc};
use std::collections::{HashMap, VecDeque};
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
    pub owner: UserId,
    pub tx: broadcast::Sender<Arc<RunEvent>>,
    pub cancel: watch::Sender<Option<Resolution>>,
    pub confirm: Notify,
    pub last_seq: AtomicU64,
    pub state: Mutex<LiveState>,
}

pub(crate) struct LiveState {
    pub phase: RunPhase,
    pub confirmation_expires: Option<DateTime<Utc>>,
}

impl Live {
    fn new(owner: UserId, cancelled: Option<Resolution>) -> Arc<Self> {
        Arc::new(Self {
            owner,
            tx: broadcast::channel(1024).0,
            cancel: watch::channel(cancelled).0,
            confirm: Notify::new(),
            last_seq: AtomicU64::new(0),
            state: Mutex::new(LiveState { phase: RunPhase::Queued, confirmation_expires: None }),
        })
    }

    /// Fans an event that is already in the log out to the run's live subscribers.
    pub(super) fn publish(&self, event: Arc<RunEvent>) {
        self.last_seq.store(event.seq, Ordering::Relaxed);
        // No subscriber is not an error: the event is in the log.
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

#[derive(Default)]
struct ThreadState {
    active: Option<RunId>,
    queue: VecDeque<RunId>,
}

/// Where an admitted run goes.
pub(crate) struct Placed {
    /// The thread was free: the run holds it and starts now.
    pub started_now: bool,
    /// `on_busy = INTERRUPT`: the run to supersede (the new one waits first in line).
    pub interrupt: Option<RunId>,
}

/// The live runs and the threads' holders and queues.
#[derive(Default)]
pub(crate) struct RunTable {
    live: Mutex<HashMap<RunId, Arc<Live>>>,
    threads: Mutex<HashMap<ThreadId, ThreadState>>,
    /// Serialises admission decisions (busy check, per-user cap, placement).
    pub admission: tokio::sync::Mutex<()>,
}

impl RunTable {
    pub(super) fn live(&self, run_id: &RunId) -> Option<Arc<Live>> {
        self.live.lock().expect("live map").get(run_id).cloned()
    }

    /// The runs that have not finished at the last stop, as they were: their live side, and
    /// each thread's holder and queue. Returns the runs to drive now.
    pub(super) fn restore(&self, runs: &[ChatRun]) -> Vec<RunId> {
        let mut to_start = Vec::new();
        let mut live = self.live.lock().expect("live map");
        let mut threads = self.threads.lock().expect("thread map");
        for run in runs {
            let id = run.record.id.clone();
            let cancelled = run.cancel_requested.then_some(Resolution::Cancelled);
            live.insert(id.clone(), Live::new(run.record.owner.clone(), cancelled));
            let Some(thread) = run.record.thread_id.clone() else { continue };
            let state = threads.entry(thread).or_default();
            if run.record.status == RunStatus::Queued && !run.cancel_requested {
                state.queue.push_back(id);
            } else {
                // A second active run in one thread cannot happen; if it did, it is driven to
                // its end anyway, without holding the thread.
                if state.active.is_none() {
                    state.active = Some(id.clone());
                }
                to_start.push(id);
            }
        }
        for state in threads.values_mut() {
            if state.active.is_none()
                && let Some(next) = state.queue.pop_front()
            {
                state.active = Some(next.clone());
                to_start.push(next);
            }
        }
        to_start
    }

    /// The run holding a thread.
    pub(super) fn active_in(&self, thread: &ThreadId) -> Option<RunId> {
        self.threads.lock().expect("thread map").get(thread).and_then(|s| s.active.clone())
    }

    /// How many runs of a user are live (running, queued or waiting for a person).
    pub(super) fn live_for(&self, owner: &UserId) -> usize {
        self.live.lock().expect("live map").values().filter(|l| &l.owner == owner).count()
    }

    /// Registers a new run and places it in its thread. Decided under the thread lock: the
    /// active run may have finished since the caller looked.
    pub(super) fn admit(&self, run_id: &RunId, owner: &UserId, thread: &ThreadId, on_busy: OnBusy) -> Placed {
        self.live.lock().expect("live map").insert(run_id.clone(), Live::new(owner.clone(), None));
        let mut threads = self.threads.lock().expect("thread map");
        let state = threads.entry(thread.clone()).or_default();
        match (state.active.clone(), on_busy) {
            (None, _) => {
                state.active = Some(run_id.clone());
                Placed { started_now: true, interrupt: None }
            }
            (Some(active), OnBusy::Interrupt) => {
                state.queue.push_front(run_id.clone());
                Placed { started_now: false, interrupt: Some(active) }
            }
            (Some(_), OnBusy::Reject | OnBusy::Enqueue) => {
                state.queue.push_back(run_id.clone());
                Placed { started_now: false, interrupt: None }
            }
        }
    }

    /// Takes a run out of its thread's queue; whether it was queued.
    pub(super) fn unqueue(&self, run_id: &RunId) -> bool {
        let mut threads = self.threads.lock().expect("thread map");
        let mut found = false;
        for state in threads.values_mut() {
            if let Some(pos) = state.queue.iter().position(|id| id == run_id) {
                state.queue.remove(pos);
                found = true;
            }
        }
        found
    }

    /// A run is over: it leaves the live map and its thread. Returns the thread's next run,
    /// which now holds the thread. Idempotent.
    pub(super) fn release(&self, run_id: &RunId) -> Option<RunId> {
        self.live.lock().expect("live map").remove(run_id);
        let mut threads = self.threads.lock().expect("thread map");
        let mut next = None;
        for state in threads.values_mut() {
            if state.active.as_ref() == Some(run_id) {
                state.active = state.queue.pop_front();
                next.clone_from(&state.active);
                break;
            }
        }
        threads.retain(|_, s| s.active.is_some() || !s.queue.is_empty());
        next
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
