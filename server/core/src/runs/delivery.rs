//! Delivery: one subscriber's view of a run — the stored log after its cursor (read a page at a
//! time, so a subscriber's memory does not grow with the run), then the live tail, with no gap
//! and no duplicate at the seam (the resume guarantee), and the replay framing a resuming client
//! reads (`ReplayStarted`, the stored events, `ReplayFinished`). Transports only convert what
//! [`Framed::next`] yields.
//!
//! The live tail of a run driven on this replica is its fan-out channel. A run driven elsewhere
//! (another replica), or not yet (queued), is followed through the replica's feed of signals:
//! each append announced for the run, or a second without one, reads the log after the last
//! event delivered — so a lost signal delays an event, never loses or repeats one.

use crate::{Error, ErrorCode, Result};
use aware_domain::events::RunEvent;
use aware_domain::ids::RunId;
use aware_domain::ports::fleet::Signal;
use aware_domain::ports::run_log::RunLog;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// How long a follower through the feed waits for a signal before it reads the log anyway.
const FEED_POLL: Duration = Duration::from_secs(1);

/// Events read from the log at a time: a subscriber holds at most this many (plus what its
/// transport buffers), however long the run, and its first event goes out after one page.
const PAGE: u32 = 512;

/// Where a subscription's events come from once the stored log is read.
pub(crate) enum Tail {
    /// The fan-out of a run driven on this replica.
    Live(broadcast::Receiver<Arc<RunEvent>>),
    /// The replica's feed: the run is queued or driven by another replica.
    Feed(broadcast::Receiver<Signal>),
    /// Nothing: the run has finished.
    Ended,
}

/// Events of one run for one subscriber.
pub struct Subscription {
    log: Arc<dyn RunLog>,
    feed: broadcast::Sender<Signal>,
    run_id: RunId,
    last: u64,
    replay_until: u64,
    /// The highest seq known to be in the log: pages are read up to it before the tail is.
    stored: u64,
    backlog: VecDeque<Arc<RunEvent>>,
    tail: Tail,
    /// The run's `RunCompleted` is in the backlog.
    done: bool,
    finished: bool,
}

impl Subscription {
    /// The stored log after `after_seq`, then `tail` (subscribed before the log is read, so
    /// nothing falls between them). A cursor beyond the log is CURSOR_AHEAD.
    pub(crate) async fn open(
        log: Arc<dyn RunLog>,
        feed: broadcast::Sender<Signal>,
        run_id: RunId,
        finished: bool,
        tail: Tail,
        after_seq: u64,
    ) -> Result<Self> {
        let last = log.last_seq(&run_id).await?;
        if after_seq > last {
            return Err(Error::new(
                ErrorCode::CursorAhead,
                format!("the run's log ends at seq {last}; cannot resume after {after_seq}"),
            ));
        }
        let backlog: VecDeque<Arc<RunEvent>> =
            log.events(&run_id, after_seq, PAGE).await?.into_iter().map(Arc::new).collect();
        let read = backlog.back().map_or(after_seq, |e| e.seq);
        let done = backlog.back().is_some_and(|e| e.is_terminal());
        // Finished by the log, when the run's status said otherwise a moment ago: its last event.
        let ended = done
            || (!finished
                && read < last
                && log.events(&run_id, last - 1, 1).await?.first().is_some_and(RunEvent::is_terminal));
        Ok(Self {
            finished: finished || ended,
            log,
            feed,
            run_id,
            last: after_seq,
            replay_until: read.max(last),
            stored: read.max(last),
            backlog,
            tail,
            done,
        })
    }

    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// The last seq of the stored log when the subscription started (the replay's end).
    pub fn replay_until(&self) -> u64 {
        self.replay_until
    }

    /// Whether the run had already finished when the subscription started.
    pub fn finished_at_start(&self) -> bool {
        self.finished
    }

    /// The next page of the log after the last event delivered.
    async fn refill(&mut self) -> Result<()> {
        let events = self.log.events(&self.run_id, self.last, PAGE).await?;
        if let Some(e) = events.last() {
            self.stored = self.stored.max(e.seq);
            self.done = e.is_terminal();
        }
        self.backlog.extend(events.into_iter().map(Arc::new));
        Ok(())
    }

    /// The next event, or `None` after `RunCompleted`.
    pub async fn next(&mut self) -> Result<Option<Arc<RunEvent>>> {
        loop {
            if let Some(e) = self.backlog.pop_front() {
                if e.seq <= self.last {
                    continue;
                }
                self.last = e.seq;
                if e.is_terminal() {
                    self.done = true;
                    self.backlog.clear();
                }
                return Ok(Some(e));
            }
            if self.done {
                return Ok(None);
            }
            if self.last < self.stored {
                // The stored log goes on: its next page, before anything from the tail.
                self.refill().await?;
                if self.backlog.is_empty() {
                    // Gone meanwhile (its thread was deleted): the tail says what is left.
                    self.stored = self.last;
                }
                continue;
            }
            match &mut self.tail {
                Tail::Ended => {
                    // Not live: the stored log is all there is.
                    self.refill().await?;
                    if self.backlog.is_empty() {
                        return Ok(None);
                    }
                }
                Tail::Live(rx) => match rx.recv().await {
                    Ok(e) if e.seq <= self.last => {}
                    Ok(e) if e.seq == self.last + 1 => self.backlog.push_back(e),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => self.refill().await?,
                    Err(broadcast::error::RecvError::Closed) => {
                        // Its driver here is gone: finished (its last event is in the log), or
                        // taken over by another replica (followed through the feed from now).
                        self.tail = Tail::Feed(self.feed.subscribe());
                        self.refill().await?;
                    }
                },
                Tail::Feed(_) => {
                    self.refill().await?;
                    if self.backlog.is_empty() && !self.wait_for_feed().await? {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// Waits until the feed announces an append to this run after the last event delivered, or
    /// says signals were missed, or a second passes. False when the run is gone (its thread was
    /// deleted) or finished without more events for this subscriber.
    async fn wait_for_feed(&mut self) -> Result<bool> {
        let Tail::Feed(rx) = &mut self.tail else { return Ok(true) };
        let deadline = tokio::time::Instant::now() + FEED_POLL;
        loop {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Ok(Signal::Appended { run, seq })) if run == self.run_id && seq > self.last => return Ok(true),
                Ok(Ok(Signal::Missed) | Err(broadcast::error::RecvError::Lagged(_))) => return Ok(true),
                Ok(Ok(Signal::Appended { .. } | Signal::Wake { .. })) => {}
                Ok(Err(broadcast::error::RecvError::Closed)) => return Ok(false),
                Err(_elapsed) => break,
            }
        }
        // A quiet second: is there still a run to wait for?
        let status = self.log.chat_run(&self.run_id).await?.map(|r| r.record.status);
        match status {
            None => Ok(false),
            Some(s) if s.is_terminal() => {
                // Its last event is committed with its status: read once more, then it is over.
                self.refill().await?;
                self.tail = Tail::Ended;
                Ok(true)
            }
            Some(_) => Ok(true),
        }
    }
}

/// What a subscriber receives.
#[derive(Clone, Debug, PartialEq)]
pub enum Delivery {
    /// A resume starts: the stored events after `after_seq` follow, up to `last_seq_at_start`.
    ReplayStarted { after_seq: u64, last_seq_at_start: u64 },
    /// One event of the run, in seq order.
    Event(Arc<RunEvent>),
    /// The stored part is over; `live`: live events follow (the run had not finished).
    ReplayFinished { last_seq: u64, live: bool },
}

/// A subscription with its replay framing (when it resumes from a cursor).
pub struct Framed {
    sub: Subscription,
    replay_from: Option<u64>,
    started: bool,
    replaying: bool,
    last: u64,
    ended: bool,
}

impl Subscription {
    /// Frames the stored part with `ReplayStarted`/`ReplayFinished` when `replay_from` is set
    /// (a resume); without it, only events.
    pub fn framed(self, replay_from: Option<u64>) -> Framed {
        Framed {
            sub: self,
            replay_from,
            started: false,
            replaying: replay_from.is_some(),
            last: replay_from.unwrap_or(0),
            ended: false,
        }
    }
}

impl Framed {
    pub fn run_id(&self) -> &RunId {
        self.sub.run_id()
    }

    /// The next thing to send, or `None` when the stream of this run is over: after
    /// `RunCompleted`, or after the replay of a run that had finished.
    pub async fn next(&mut self) -> Result<Option<Delivery>> {
        if self.ended {
            return Ok(None);
        }
        if let (false, Some(after_seq)) = (self.started, self.replay_from) {
            self.started = true;
            return Ok(Some(Delivery::ReplayStarted { after_seq, last_seq_at_start: self.sub.replay_until() }));
        }
        if self.replaying && self.last >= self.sub.replay_until() {
            self.replaying = false;
            let live = !self.sub.finished_at_start();
            self.ended = !live;
            return Ok(Some(Delivery::ReplayFinished { last_seq: self.last, live }));
        }
        match self.sub.next().await? {
            Some(e) => {
                self.last = e.seq;
                self.ended = e.is_terminal() && !self.replaying;
                Ok(Some(Delivery::Event(e)))
            }
            None => {
                self.ended = true;
                Ok(self.replaying.then_some(Delivery::ReplayFinished { last_seq: self.last, live: false }))
            }
        }
    }
}
