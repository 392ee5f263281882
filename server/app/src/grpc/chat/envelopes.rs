//! The Chat protocol's envelopes: the unsequenced events this layer adds around a run's own
//! (accepted and rejected answers, heartbeats, the replay markers, the goodbye on shutdown), and
//! `forward`, which sends one subscription's deliveries to a stream.

use super::super::State;
use crate::convert;
use crate::status::to_status;
use aware_core::Error;
use aware_core::ErrorCode;
use aware_core::runs::{Delivery, Subscription};
use aware_domain::auth::Caller;
use aware_domain::ids::RunId;
use aware_proto::v1 as pb;
use tokio::sync::mpsc;
use tonic::Status;

pub(super) type Wrap<T> = fn(pb::ServerEvent) -> T;

pub(super) fn chat_response(event: pb::ServerEvent) -> pb::ChatResponse {
    pb::ChatResponse { event: Some(event) }
}

pub(super) fn stream_run_response(event: pb::ServerEvent) -> pb::StreamRunResponse {
    pb::StreamRunResponse { event: Some(event) }
}

/// An unsequenced event (seq 0, never stored).
pub(super) fn unsequenced(run_id: &str, thread_id: &str, payload: pb::server_event::Payload) -> pb::ServerEvent {
    pb::ServerEvent {
        run_id: run_id.to_owned(),
        seq: 0,
        time: Some(convert::timestamp(chrono::Utc::now())),
        iteration: 0,
        thread_id: thread_id.to_owned(),
        payload: Some(payload),
    }
}

pub(super) fn rejected(
    client_msg_id: &str,
    run_id: &str,
    e: &Error,
    active_run_id: &str,
    last_seq: u64,
) -> pb::ServerEvent {
    unsequenced(
        run_id,
        "",
        pb::server_event::Payload::Rejected(pb::Rejected {
            client_msg_id: client_msg_id.to_owned(),
            code: crate::status::rejection_code(e.code).into(),
            message: e.message.clone(),
            active_run_id: active_run_id.to_owned(),
            last_seq,
        }),
    )
}

/// The in-band answer to a resume that cannot be served; a cursor beyond the log is told where
/// the log ends.
/// A subscription to the run a request names (`run_id` as the client sent it).
pub(super) async fn subscribe(
    state: &State,
    caller: &Caller,
    run_id: &str,
    after_seq: u64,
) -> Result<Subscription, Error> {
    state.runs.subscribe(caller, &RunId::in_stream(run_id)?, after_seq).await
}

pub(super) async fn resume_rejected(
    state: &State,
    caller: &Caller,
    client_msg_id: &str,
    run_id: &str,
    e: &Error,
) -> pb::ServerEvent {
    let last_seq = match (e.code, RunId::in_stream(run_id)) {
        (ErrorCode::CursorAhead, Ok(id)) => state.runs.last_seq(caller, &id).await.unwrap_or(0),
        _ => 0,
    };
    rejected(client_msg_id, run_id, e, "", last_seq)
}

pub(super) fn accepted(client_msg_id: &str, run_id: &str, thread_id: &str, queued: bool) -> pb::ServerEvent {
    unsequenced(
        run_id,
        thread_id,
        pb::server_event::Payload::Accepted(pb::Accepted {
            client_msg_id: client_msg_id.to_owned(),
            thread_id: thread_id.to_owned(),
            queued,
        }),
    )
}

/// Resolves once the server starts shutting down.
pub(super) async fn stopped(shutdown: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|s| *s).await;
}

/// How long a client should wait before reconnecting after [`goodbye`].
pub(super) const RETRY_AFTER_MS: u32 = 1_000;

/// The last words of every open stream when the server stops: a `ShuttingDown` event, then the
/// stream ends with UNAVAILABLE (which clients retry). Runs are durable; they continue after the
/// restart and the client resumes from its last seq.
pub(super) async fn goodbye<T>(tx: &mpsc::Sender<Result<T, Status>>, wrap: Wrap<T>) {
    let message = "the server is shutting down; runs continue when it is back: reconnect and resume from your last seq";
    let event = unsequenced(
        "",
        "",
        pb::server_event::Payload::ShuttingDown(pb::ShuttingDown {
            message: message.to_owned(),
            retry_after_ms: RETRY_AFTER_MS,
        }),
    );
    let _ = tx.send(Ok(wrap(event))).await;
    let _ = tx.send(Err(Status::unavailable(message))).await;
}

pub(super) fn heartbeat(state: &State, runs: &[RunId]) -> pb::ServerEvent {
    let active_runs = runs
        .iter()
        .filter_map(|id| state.runs.active_info(id))
        .map(|i| pb::ActiveRun {
            run_id: i.run_id.to_string(),
            phase: convert::run_phase(i.phase).into(),
            last_seq: i.last_seq,
            confirmation_ms_left: i.confirmation_ms_left,
        })
        .collect();
    unsequenced(
        "",
        "",
        pb::server_event::Payload::Heartbeat(pb::Heartbeat {
            server_time: Some(convert::timestamp(chrono::Utc::now())),
            active_runs,
        }),
    )
}

/// Sends a subscription's events until `RunCompleted` (or the client goes away). With
/// `replay_from`, the stored part is framed by `ReplayStarted`/`ReplayFinished` (the framing is
/// the engine's: `aware_core::runs::delivery`; this only converts).
pub(super) async fn forward<T: Send + 'static>(
    sub: Subscription,
    tx: mpsc::Sender<Result<T, Status>>,
    wrap: Wrap<T>,
    replay_from: Option<u64>,
) {
    let mut framed = sub.framed(replay_from);
    let run_id = framed.run_id().to_string();
    loop {
        let event = match framed.next().await {
            Ok(Some(Delivery::Event(e))) => convert::event(&e),
            Ok(Some(Delivery::ReplayStarted { after_seq, last_seq_at_start })) => unsequenced(
                &run_id,
                "",
                pb::server_event::Payload::ReplayStarted(pb::ReplayStarted { after_seq, last_seq_at_start }),
            ),
            Ok(Some(Delivery::ReplayFinished { last_seq, live })) => unsequenced(
                &run_id,
                "",
                pb::server_event::Payload::ReplayFinished(pb::ReplayFinished { last_seq, live }),
            ),
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(run = %run_id, error = %e, "cannot read a run's events");
                let _ = tx.send(Err(to_status(e))).await;
                return;
            }
        };
        if tx.send(Ok(wrap(event))).await.is_err() {
            return;
        }
    }
}
