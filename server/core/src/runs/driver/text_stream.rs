//! Text deltas without a wait per delta. A model streams an answer in many small deltas; each
//! is still appended to the log before anyone sees it, but the driver does not wait for each
//! commit: it queues the append (appends commit in queue order) and hands the event to this
//! run's publisher task, which publishes each delta once its commit is done, in order. Deltas that
//! arrive while a commit is in progress share the next one.
//!
//! At most [`MAX_QUEUED`] deltas are queued per run: a model faster than the disk waits for the
//! queue to drain (back-pressure), so memory stays bounded however long the answer.
//!
//! Anything else the driver does first waits until every queued delta is committed and published
//! ([`Driver::flush`]), so the log and the clients see the run's steps in the order it took them.
//! A delta that could not be stored stops the run as a failed append always did: later deltas
//! are refused by the log (no gap), and the run goes on from the missing seq.

use super::Driver;
use crate::Error;
use crate::Result;
use crate::runs::admission::Live;
use aware_domain::events::{EventPayload, RunEvent};
use aware_domain::ports::run_log::QueuedAppend;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// Deltas a run may have queued and not yet published.
const MAX_QUEUED: usize = 512;

enum Flow {
    /// Publish once committed.
    Publish(Arc<RunEvent>, QueuedAppend),
    /// Answer once everything before is published (or refused).
    Barrier(oneshot::Sender<()>),
}

/// A run's publisher task for queued deltas, and the first delta it could not publish.
pub(super) struct TextStream {
    flows: mpsc::UnboundedSender<Flow>,
    /// Deltas queued and not yet published (or refused).
    queued: Arc<AtomicUsize>,
    /// The seq of the first delta whose append failed, and why.
    failed: Arc<Mutex<Option<(u64, Error)>>>,
}

impl TextStream {
    fn start(live: Arc<Live>) -> Self {
        let (flows, mut queue) = mpsc::unbounded_channel();
        let failed: Arc<Mutex<Option<(u64, Error)>>> = Arc::default();
        let slot = failed.clone();
        let queued = Arc::new(AtomicUsize::new(0));
        let left = queued.clone();
        tokio::spawn(async move {
            while let Some(flow) = queue.recv().await {
                match flow {
                    Flow::Publish(event, committed) => {
                        let outcome = committed.await;
                        let mut failure = slot.lock().expect("text stream failure");
                        match outcome {
                            // After a failure nothing more is published until the driver has
                            // heard of it (the log refuses what follows anyway).
                            Ok(()) if failure.is_none() => live.publish(event),
                            Ok(()) => {}
                            Err(e) => {
                                failure.get_or_insert((event.seq, e));
                            }
                        }
                        left.fetch_sub(1, Ordering::Relaxed);
                    }
                    Flow::Barrier(done) => {
                        let _ = done.send(());
                    }
                }
            }
        });
        Self { flows, queued, failed }
    }

    fn has_failed(&self) -> bool {
        self.failed.lock().expect("text stream failure").is_some()
    }
}

impl Driver {
    /// Queues a text delta for the log and its publication; returns without waiting for either.
    pub(super) async fn stream_delta(&mut self, payload: EventPayload) -> Result<()> {
        if self.text_stream.as_ref().is_some_and(|s| s.has_failed() || s.queued.load(Ordering::Relaxed) >= MAX_QUEUED) {
            self.flush().await?;
        }
        let event = self.next_event(payload);
        let committed = self.deps.log.queue_event(&event.for_storage());
        self.last_seq = event.seq;
        let stream = self.text_stream.get_or_insert_with(|| TextStream::start(self.live.clone()));
        stream.queued.fetch_add(1, Ordering::Relaxed);
        stream
            .flows
            .send(Flow::Publish(Arc::new(event), committed))
            .map_err(|_| Error::internal("the run's text publisher has stopped"))
    }

    /// Waits until every queued delta is committed and published. If one could not be stored,
    /// says why, and the run's next event takes its seq.
    pub(super) async fn flush(&mut self) -> Result<()> {
        let Some(stream) = &self.text_stream else { return Ok(()) };
        let (done, flushed) = oneshot::channel();
        if stream.flows.send(Flow::Barrier(done)).is_ok() {
            let _ = flushed.await;
        }
        let failure = stream.failed.lock().expect("text stream failure").take();
        match failure {
            None => Ok(()),
            Some((seq, e)) => {
                self.last_seq = seq - 1;
                Err(e)
            }
        }
    }
}
