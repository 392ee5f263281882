//! Fair shares of a shared worker pool (SQL queries, ingestions, file operations). Every pool has a
//! fixed number of slots; one user may hold at most their share of them and keep a few more
//! requests waiting, and nobody waits longer than a bound. A request over its user's queue is
//! refused at once, and a wait that runs out is refused then — both RESOURCE_EXHAUSTED with a
//! `RetryInfo` — so one user's flood costs that user, and the slots beyond their share stay free
//! for everyone else.
//!
//! Taking a slot is two steps: [`FairSlots::enter`] counts the request against its user's queue
//! (and refuses it when the queue is full) before any work is done for it — an upload is refused
//! before its bytes are read — and [`Ticket::wait`] then waits, bounded, for the user's share and a
//! slot of the pool. Waiters for the pool's slots are served first come, first served.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The shape of one pool.
#[derive(Clone, Debug)]
pub struct FairConfig {
    /// The pool's name in metrics (`aware_limit_refusals_total{limit}`): `sql`, `ingest`, `files`.
    pub name: &'static str,
    /// What the pool runs, for messages ("SQL queries", "ingestions", "file operations").
    pub what: &'static str,
    /// Slots in the pool (work running at once).
    pub slots: usize,
    /// Slots one user may hold at once.
    pub per_user: usize,
    /// Requests one user may have waiting beyond their share.
    pub queued_per_user: usize,
    /// The longest a request waits for a slot before it is refused.
    pub max_wait: Duration,
}

struct UserQueue {
    /// The user's share: one permit per slot they may hold.
    share: Arc<Semaphore>,
    /// Requests of the user entered and not yet finished (running or waiting).
    entered: usize,
}

/// A pool's slots and every user's share of them. Cheap to clone.
#[derive(Clone)]
pub struct FairSlots {
    config: Arc<FairConfig>,
    slots: Arc<Semaphore>,
    users: Arc<Mutex<HashMap<String, UserQueue>>>,
}

/// How long to tell a refused caller to wait before trying again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

impl FairSlots {
    pub fn new(config: FairConfig) -> Self {
        let slots = config.slots.max(1);
        let config = FairConfig { slots, per_user: config.per_user.clamp(1, slots), ..config };
        Self { slots: Arc::new(Semaphore::new(slots)), config: Arc::new(config), users: Arc::default() }
    }

    pub fn config(&self) -> &FairConfig {
        &self.config
    }

    /// Counts a request of `user` against their queue, or refuses it when the queue is full.
    pub fn enter(&self, user: &str) -> Result<Ticket> {
        let c = &self.config;
        let mut users = self.users.lock().expect("fair slots");
        let queue = users
            .entry(user.to_owned())
            .or_insert_with(|| UserQueue { share: Arc::new(Semaphore::new(c.per_user)), entered: 0 });
        if queue.entered >= c.per_user + c.queued_per_user {
            metrics::counter!("aware_limit_refusals_total", "limit" => c.name).increment(1);
            return Err(Error::resource_exhausted(format!(
                "you already have {} {} running or waiting (at most {} run at once per user); retry in {} ms",
                queue.entered,
                c.what,
                c.per_user,
                RETRY_AFTER.as_millis()
            ))
            .with_retry_after(RETRY_AFTER));
        }
        queue.entered += 1;
        Ok(Ticket { slots: self.clone(), user: user.to_owned(), share: queue.share.clone() })
    }

    /// [`FairSlots::enter`] and [`Ticket::wait`] in one.
    pub async fn acquire(&self, user: &str) -> Result<Slot> {
        self.enter(user)?.wait().await
    }

    fn leave(&self, user: &str) {
        let mut users = self.users.lock().expect("fair slots");
        if let Some(queue) = users.get_mut(user) {
            queue.entered -= 1;
            if queue.entered == 0 {
                users.remove(user);
            }
        }
    }

    /// Slots free right now (for status and tests).
    pub fn available(&self) -> usize {
        self.slots.available_permits()
    }
}

/// A request counted against its user's queue; dropping it leaves the queue.
pub struct Ticket {
    slots: FairSlots,
    user: String,
    share: Arc<Semaphore>,
}

impl Ticket {
    /// Waits for a place in the user's share, then a slot of the pool, for at most the pool's
    /// bound.
    pub async fn wait(self) -> Result<Slot> {
        let c = self.slots.config.clone();
        let waited = tokio::time::timeout(c.max_wait, async {
            let share = self.share.clone().acquire_owned().await;
            let slot = self.slots.slots.clone().acquire_owned().await;
            (share, slot)
        })
        .await;
        match waited {
            Ok((Ok(share), Ok(slot))) => Ok(Slot { _slot: slot, _share: share, _ticket: self }),
            Ok(_) => Err(Error::internal(format!("the pool of {} is closed", c.what))),
            Err(_) => {
                metrics::counter!("aware_limit_refusals_total", "limit" => c.name).increment(1);
                Err(Error::resource_exhausted(format!(
                    "the server is busy: no slot for your {} within {} s; retry in {} ms",
                    c.what,
                    c.max_wait.as_secs_f64().ceil(),
                    RETRY_AFTER.as_millis()
                ))
                .with_retry_after(RETRY_AFTER))
            }
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.slots.leave(&self.user);
    }
}

/// A held slot; dropping it frees the slot and the place in the user's share.
pub struct Slot {
    _slot: OwnedSemaphorePermit,
    _share: OwnedSemaphorePermit,
    _ticket: Ticket,
}

/// How many of something each user has open at once (Chat streams, upload streams), each counted
/// until its [`Open`] guard drops.
#[derive(Clone, Debug, Default)]
pub struct OpenPerUser {
    counts: Arc<Mutex<HashMap<String, usize>>>,
}

impl OpenPerUser {
    /// Counts one more open for `user`, or `None` when they already have `max` open.
    pub fn open(&self, user: &str, max: usize) -> Option<Open> {
        let mut counts = self.counts.lock().expect("open counts");
        let open = counts.entry(user.to_owned()).or_default();
        if *open >= max {
            return None;
        }
        let others = *open;
        *open += 1;
        Some(Open { counts: self.counts.clone(), user: user.to_owned(), others })
    }

    /// How many `user` has open now.
    pub fn count(&self, user: &str) -> usize {
        self.counts.lock().expect("open counts").get(user).copied().unwrap_or(0)
    }
}

/// One thing counted open against its user while it lives.
pub struct Open {
    counts: Arc<Mutex<HashMap<String, usize>>>,
    user: String,
    others: usize,
}

impl Open {
    /// How many others of the user's were open when this one opened.
    pub fn others(&self) -> usize {
        self.others
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().expect("open counts");
        if let Some(open) = counts.get_mut(&self.user) {
            *open -= 1;
            if *open == 0 {
                counts.remove(&self.user);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn pool(slots: usize, per_user: usize, queued: usize, wait_ms: u64) -> FairSlots {
        FairSlots::new(FairConfig {
            name: "sql",
            what: "SQL queries",
            slots,
            per_user,
            queued_per_user: queued,
            max_wait: Duration::from_millis(wait_ms),
        })
    }

    #[tokio::test]
    async fn a_flooding_user_keeps_to_their_share_and_the_rest_stays_free_for_others() {
        let p = pool(4, 2, 1, 50);
        let a1 = p.acquire("ana").await.unwrap();
        let _a2 = p.acquire("ana").await.unwrap();
        // Ana's third waits for her own share (not the pool), her fourth is refused at once.
        let waiting = p.enter("ana").unwrap();
        let refused = p.enter("ana").err().expect("over the queue");
        assert_eq!(refused.code, ErrorCode::ResourceExhausted);
        assert!(refused.retry_after.is_some() && refused.message.contains("retry in"), "{}", refused.message);
        // Bo is served at once from the slots Ana cannot take.
        let b1 = p.acquire("bo").await.unwrap();
        let _b2 = p.acquire("bo").await.unwrap();
        assert_eq!(p.available(), 0);
        // Ana's waiting request gets nothing within the bound: refused with a retry hint.
        let timed_out = waiting.wait().await.err().expect("the wait is bounded");
        assert_eq!(timed_out.code, ErrorCode::ResourceExhausted);
        assert!(timed_out.retry_after.is_some());
        // Freed places are reused; a user with nothing entered is forgotten.
        drop(a1);
        let a3 = p.acquire("ana").await.unwrap();
        drop(b1);
        assert_eq!(p.available(), 1);
        drop((a3, _a2, _b2));
        assert_eq!(p.available(), 4);
        assert!(p.users.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_waiting_request_is_served_when_a_slot_frees_up() {
        let p = pool(1, 1, 4, 5_000);
        let held = p.acquire("ana").await.unwrap();
        let next = tokio::spawn({
            let p = p.clone();
            async move { p.acquire("bo").await.map(|_| ()) }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(held);
        next.await.unwrap().expect("served once the slot was free");
        assert!(p.users.lock().unwrap().is_empty(), "nothing is left counted");
    }
}
