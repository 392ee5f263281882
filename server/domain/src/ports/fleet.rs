//! The replicas sharing one store. Every replica has a feed of [`Signal`]s: appends to run logs
//! (its own, and — when the store is shared — other replicas', as the store announces them after
//! their commit), wake-ups for runs a person answered or cancelled through another replica, and
//! "signals may have been lost". Followers of a run driven elsewhere read its log on each signal
//! (`delivery.rs`); the feed only says when to look, so a lost signal delays an event and never
//! loses it. [`OneProcess`] is the feed of a store only one server uses (SQLite, memory).

use crate::Result;
use crate::events::Resolution;
use crate::ids::RunId;
use async_trait::async_trait;
use tokio::sync::broadcast;

/// Something that happened to a run, on this replica or another.
#[derive(Clone, Debug, PartialEq)]
pub enum Signal {
    /// The run's log now reaches `seq` (committed).
    Appended { run: RunId, seq: u64 },
    /// Look at the run again: a cancel (with why), or an answer to its confirmation.
    Wake { run: RunId, cancel: Option<Resolution> },
    /// Signals from other replicas may have been lost (the store's connection dropped):
    /// whoever waits on one should read the store again.
    Missed,
}

/// How replicas reach each other through their store.
#[async_trait]
pub trait Fleet: Send + Sync {
    /// Whether other replicas may share the store (and drive runs this one does not).
    fn shared(&self) -> bool;
    /// Tells every replica to look at `run` again (the one driving it acts on it).
    async fn wake(&self, run: &RunId, cancel: Option<Resolution>) -> Result<()>;
    /// Forwards other replicas' signals into `feed` from now on (a task of its own).
    fn forward(&self, feed: broadcast::Sender<Signal>);
}

/// A store only this server uses: there is nobody to tell and nothing to hear.
pub struct OneProcess;

#[async_trait]
impl Fleet for OneProcess {
    fn shared(&self) -> bool {
        false
    }

    async fn wake(&self, _run: &RunId, _cancel: Option<Resolution>) -> Result<()> {
        Ok(())
    }

    fn forward(&self, _feed: broadcast::Sender<Signal>) {}
}
