//! Starting runs here: a run's driver task, and what starts when one ends (its thread's next
//! queued run) or when a stored run is to be driven by this replica.

use super::admission::{Live, RunTable};
use super::driver::{self, Deps};
use aware_domain::ids::{RunId, ThreadId};
use aware_domain::ports::run_log::ChatRun;
use std::sync::Arc;

/// Starts the driver task of a run registered in `table` (`live`); `admitted`: the run as just
/// admitted, never driven before (not a recovery), so the driver neither reads it back nor
/// restores anything. When the run ends, it leaves the table and its thread's next
/// run is started (here) before its last event is published, so a client that sees
/// `RunCompleted` can send the next message.
pub(super) fn spawn_driver(
    deps: Arc<Deps>,
    table: Arc<RunTable>,
    live: Arc<Live>,
    run_id: RunId,
    admitted: Option<ChatRun>,
) {
    // A run is its own trace (it outlives the RPC that started it and continues after a restart);
    // its span links to what started it — an RPC, or the run before it on the thread — by id
    // only, so that span still closes when its own work ends.
    let span = tracing::info_span!(
        parent: None,
        "run",
        run_id = %run_id,
        user = tracing::field::Empty,
        thread = tracing::field::Empty,
    );
    span.follows_from(tracing::Span::current());
    let handle = live.clone();
    let task = tokio::spawn(async move {
        let last = driver::drive(deps.clone(), run_id.clone(), live.clone(), admitted, span).await;
        let unfinished = match &last {
            Some(_) => false,
            None => {
                deps.log.chat_run(&run_id).await.map_or(true, |r| r.is_some_and(|r| !r.record.status.is_terminal()))
            }
        };
        table.release(&run_id);
        table.note_outcome(&run_id, unfinished);
        // Also when the driver could not finish: the thread's queue must not wait on this replica
        // (a run the store still holds for it is driven again by the next heartbeat).
        // On a store of its own, the replica knows which threads may have a queue.
        if let Some(thread) = &live.thread
            && (deps.fleet.shared() || table.may_have_queue(thread))
            && start_promoted(&deps, &table, Some(thread)).await == 0
        {
            table.no_queue(thread);
        }
        if let Some(last) = last {
            live.publish(Arc::new(last));
        }
    });
    *handle.task.lock().expect("driver task") = Some(task.abort_handle());
}

/// Registers a run this replica is to drive and starts its driver (unless it is driven here
/// already); `fresh`: `run` was just admitted and never driven.
pub(super) fn start(deps: &Arc<Deps>, table: &Arc<RunTable>, run: &ChatRun, fresh: bool) {
    if let Some(live) = table.drive(run, &deps.feed) {
        spawn_driver(deps.clone(), table.clone(), live, run.record.id.clone(), fresh.then(|| run.clone()));
    }
}

/// Starts, here, the next queued run of `thread` (of every thread no run holds, when `None`).
/// Returns how many were started.
pub(super) async fn start_promoted(deps: &Arc<Deps>, table: &Arc<RunTable>, thread: Option<&ThreadId>) -> usize {
    let promoted = {
        // The thread's admission lock, or every thread's for a sweep of them all.
        let _admission = match thread {
            Some(thread) => vec![table.admission.thread(thread).await],
            None => table.admission.every_thread().await,
        };
        deps.log.promote_queued(thread, &deps.lease()).await
    };
    match promoted {
        Ok(ids) => {
            for id in &ids {
                // Restored from what is stored: a run queued by a migration may have events.
                start_stored(deps, table, id, false).await;
            }
            ids.len()
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot start the next queued run");
            0
        }
    }
}

/// Loads a stored run and starts driving it here.
pub(super) async fn start_stored(deps: &Arc<Deps>, table: &Arc<RunTable>, id: &RunId, fresh: bool) {
    match deps.log.chat_run(id).await {
        Ok(Some(run)) => {
            // Runs may wait behind it (it was queued itself, or restored).
            if let Some(thread) = &run.record.thread_id {
                table.note_queue(thread);
            }
            start(deps, table, &run, fresh);
        }
        Ok(None) => {}
        Err(e) => tracing::warn!(run = %id, error = %e, "cannot load a run to drive"),
    }
}
