//! This replica among the others sharing one store: the heartbeat that renews its leases and
//! takes over the runs of a replica that stopped, and the wake-ups other replicas send (answers
//! and cancels for runs driven here). The port to the other replicas is
//! `aware_domain::ports::fleet`.

use super::admission::RunTable;
use super::driver::Deps;
use super::spawn::{start, start_promoted, start_stored};
use crate::Result;
use aware_domain::ids::RunId;
use aware_domain::ports::fleet::Signal;
use aware_domain::ports::run_log::Claim;
use chrono::Utc;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::broadcast;

/// Takes over the runs `which` names; returns how many this replica now drives.
pub(super) async fn take_over(deps: &Arc<Deps>, table: &Arc<RunTable>, which: Claim<'_>) -> Result<usize> {
    let runs = deps.log.claim_runs(&deps.lease(), Utc::now(), which).await?;
    for run in &runs {
        if let Some(thread) = &run.record.thread_id {
            table.note_queue(thread);
        }
        // Restored from what is stored (a run that never started has nothing stored yet).
        start(deps, table, run, false);
    }
    Ok(runs.len())
}

/// One beat of the replica's heartbeat: renews its leases, stops driving runs another replica
/// took over, drives what it holds and does not drive (a driver that could not finish), takes
/// over runs whose replica stopped, and starts queued runs that nobody started.
async fn heartbeat(deps: &Arc<Deps>, table: &Arc<RunTable>) -> Result<()> {
    let driven = table.driven();
    let held = deps.log.renew_leases(&deps.lease()).await?;
    let held_ids: std::collections::HashSet<&RunId> = held.iter().map(|(id, _)| id).collect();
    for (id, live) in driven {
        if held_ids.contains(&id) {
            continue;
        }
        // Not renewed: finished (its driver is winding down) or taken over by another replica.
        let taken = deps.log.chat_run(&id).await?.is_some_and(|r| !r.record.status.is_terminal());
        if taken {
            tracing::warn!(run = %id, "another replica took this run over; it is no longer driven here");
            if let Some(task) = live.task.lock().expect("driver task").take() {
                task.abort();
            }
            table.release(&id);
        }
    }
    for (id, cancel) in &held {
        match table.live(id) {
            // A cancel that reached the store through another replica whose wake-up was lost.
            Some(live) if cancel.is_some() && live.cancel.borrow().is_none() => live.wake(*cancel),
            Some(_) => {}
            // Held here and not driven: its driver could not finish (tried again, less and less
            // often), or it was stored and not yet started (then it is started here once).
            None if table.may_retry(id, deps.config.lease_ttl / 3) => start_stored(deps, table, id, false).await,
            None => {}
        }
    }
    take_over(deps, table, Claim::Expired).await?;
    start_promoted(deps, table, None).await;
    Ok(())
}

/// The replica's background work while its engine lives: the heartbeat every third of a lease,
/// and, when the store is shared, the wake-ups other replicas send.
pub(super) fn keep_alive(deps: Arc<Deps>, table: Weak<RunTable>) {
    let beat = (deps.config.lease_ttl / 3).max(Duration::from_millis(100));
    if deps.fleet.shared() {
        hear_wake_ups(deps.clone(), table.clone());
    }
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(beat);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        loop {
            tick.tick().await;
            let Some(table) = table.upgrade() else { return };
            if table.stopping.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if let Err(e) = heartbeat(&deps, &table).await {
                tracing::warn!(error = %e, "the run heartbeat failed; leases are renewed at the next beat");
            }
        }
    });
}

/// Acts on other replicas' wake-ups: answers and cancels for runs driven here; a run nobody
/// drives (a queued run to cancel, the runs of a replica that stopped) is taken over here.
pub(super) fn hear_wake_ups(deps: Arc<Deps>, table: Weak<RunTable>) {
    let mut signals = deps.feed.subscribe();
    tokio::spawn(async move {
        loop {
            let signal = match signals.recv().await {
                Ok(s) => s,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let Some(table) = table.upgrade() else { return };
            if let Signal::Wake { run, cancel } = signal {
                match table.live(&run) {
                    Some(live) => live.wake(cancel),
                    // A queued run to cancel that nobody drives, or a run whose replica gave it up:
                    // taken over here if its lease is not in force (a run driven elsewhere is not).
                    None => {
                        if let Err(e) = take_over(&deps, &table, Claim::Run(&run)).await {
                            tracing::warn!(run = %run, error = %e, "cannot take a run over");
                        }
                    }
                }
            }
        }
    });
}
