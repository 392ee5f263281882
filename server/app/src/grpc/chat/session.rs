//! One `Chat` stream: client messages in, engine calls made, each watched run's events out on
//! its own task, heartbeats, and the goodbye when the server stops.

use super::envelopes::{
    accepted, chat_response, forward, goodbye, heartbeat, rejected, resume_rejected, stopped, subscribe, unsequenced,
};
use super::{PROTOCOL_VERSION, message_in, snapshot_in};
use crate::convert;
use crate::grpc::State;
use aware_core::runs::{Admission, Subscription};
use aware_core::{Error, ErrorCode};
use aware_domain::auth::Caller;
use aware_domain::ids::RunId;
use aware_proto::v1 as pb;
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tonic::{Status, Streaming};

/// One `Chat` stream: client messages in, events out.
pub(super) struct Session {
    pub(super) state: State,
    pub(super) caller: Caller,
    /// The request's headers, to authenticate again when access changes.
    pub(super) metadata: tonic::metadata::MetadataMap,
    pub(super) _stream: crate::limits::StreamGuard,
    pub(super) tx: mpsc::Sender<Result<pb::ChatResponse, Status>>,
    pub(super) forwards: JoinSet<RunId>,
    pub(super) watched: HashMap<RunId, AbortHandle>,
}

impl Session {
    async fn send(&self, event: pb::ServerEvent) {
        let _ = self.tx.send(Ok(chat_response(event))).await;
    }

    /// Streams a run on this session (replacing an earlier subscription to the same run).
    fn watch(&mut self, sub: Subscription, replay_from: Option<u64>) {
        let run_id = sub.run_id().clone();
        if let Some(old) = self.watched.remove(&run_id) {
            old.abort();
        }
        let tx = self.tx.clone();
        let id = run_id.clone();
        let handle = self.forwards.spawn(async move {
            forward(sub, tx, chat_response, replay_from).await;
            id
        });
        self.watched.insert(run_id, handle);
    }

    async fn resume(&mut self, client_msg_id: &str, run_id: &str, after_seq: u64) {
        match subscribe(&self.state, &self.caller, run_id, after_seq).await {
            Ok(sub) => self.watch(sub, Some(after_seq)),
            Err(e) => self.send(resume_rejected(&self.state, &self.caller, client_msg_id, run_id, &e).await).await,
        }
    }

    async fn handle(&mut self, request: pb::ChatRequest) {
        use pb::chat_request::Kind;
        let id = request.client_msg_id.clone();
        if let Err(e) = self.state.limits.request(self.caller.principal.user_id.as_str()) {
            self.send(rejected(&id, "", &e, "", 0)).await;
            return;
        }
        match request.kind {
            None => {
                let e = Error::new(ErrorCode::BadRequest, "a ChatRequest needs one of its kinds");
                self.send(rejected(&id, "", &e, "", 0)).await;
            }
            Some(Kind::Hello(hello)) => {
                if hello.protocol_version > PROTOCOL_VERSION {
                    let e = Error::new(
                        ErrorCode::BadRequest,
                        format!("this server speaks protocol version {PROTOCOL_VERSION}"),
                    );
                    self.send(rejected(&id, "", &e, "", 0)).await;
                    return;
                }
                self.send(accepted(&id, "", "", false)).await;
                for r in hello.resume {
                    self.resume(&id, &r.run_id, r.last_event_seq).await;
                }
            }
            Some(Kind::Snapshot(snapshot)) => {
                match self.state.runs.update_state(&self.caller, snapshot_in(snapshot)).await {
                    Ok((thread, version)) => {
                        let applied = pb::StateApplied {
                            client_msg_id: id.clone(),
                            thread_id: thread.name().to_owned(),
                            ui_state_version: version,
                        };
                        self.send(unsequenced("", thread.name(), pb::server_event::Payload::StateApplied(applied)))
                            .await;
                    }
                    Err(e) => self.send(rejected(&id, "", &e, "", 0)).await,
                }
            }
            Some(Kind::Message(m)) => {
                let admitted = match message_in(&id, m) {
                    Ok(message) => self.state.runs.send_message(&self.caller, message).await,
                    Err(e) => Err(e),
                };
                match admitted {
                    Ok(Admission::Started { run_id, thread_id, queued }) => {
                        self.send(accepted(&id, run_id.as_str(), thread_id.name(), queued)).await;
                        match self.state.runs.subscribe(&self.caller, &run_id, 0).await {
                            Ok(sub) => self.watch(sub, None),
                            Err(e) => self.send(rejected(&id, run_id.as_str(), &e, "", 0)).await,
                        }
                    }
                    Ok(Admission::Repeated { run_id, thread_id }) => {
                        self.send(accepted(&id, run_id.as_str(), thread_id.name(), false)).await;
                        self.resume(&id, run_id.as_str(), 0).await;
                    }
                    Ok(Admission::Busy { active_run_id }) => {
                        let e = Error::new(ErrorCode::RunBusy, "this thread already has an active run");
                        self.send(rejected(&id, "", &e, active_run_id.as_str(), 0)).await;
                    }
                    Err(e) => self.send(rejected(&id, "", &e, "", 0)).await,
                }
            }
            Some(Kind::Confirmation(c)) => {
                let answer = convert::answer_in(c.approved, c.scope, c.duration_seconds, &c.edited_arguments_json);
                let resolved = match (convert::confirmation_id_in(&c.confirmation_id), answer) {
                    (Ok(cid), Ok(answer)) => self.state.runs.resolve_confirmation(&self.caller, &cid, answer).await,
                    (Err(e), _) | (_, Err(e)) => Err(e),
                };
                match resolved {
                    Ok((run_id, _, _)) => self.send(accepted(&id, run_id.as_str(), "", false)).await,
                    Err(e) => self.send(rejected(&id, "", &e, "", 0)).await,
                }
            }
            Some(Kind::Clarification(c)) => {
                let choice = Some(c.choice.as_str()).filter(|c| !c.trim().is_empty());
                let resolved = match convert::confirmation_id_in(&c.clarification_id) {
                    Ok(cid) => self.state.runs.resolve_clarification(&self.caller, &cid, choice, c.remember).await,
                    Err(e) => Err(e),
                };
                match resolved {
                    Ok((run_id, _)) => self.send(accepted(&id, run_id.as_str(), "", false)).await,
                    Err(e) => self.send(rejected(&id, "", &e, "", 0)).await,
                }
            }
            Some(Kind::Resume(r)) => self.resume(&id, &r.run_id, r.last_event_seq).await,
            Some(Kind::Cancel(c)) => match self.cancel(&c.run_id).await {
                Ok(_) => self.send(accepted(&id, &c.run_id, "", false)).await,
                Err(e) => self.send(rejected(&id, &c.run_id, &e, "", 0)).await,
            },
        }
    }

    async fn cancel(&self, run_id: &str) -> aware_core::Result<aware_domain::run::RunStatus> {
        self.state.runs.cancel(&self.caller, &RunId::in_stream(run_id)?).await
    }

    fn watched_runs(&self) -> Vec<RunId> {
        self.watched.keys().cloned().collect()
    }

    /// After access changed: the caller as they are now (a new role holds at once), or the end
    /// of the stream with UNAUTHENTICATED when their key was revoked or they were deactivated.
    async fn reauthenticate(&mut self) -> bool {
        match self.state.auth.caller(&self.metadata).await {
            Ok(caller) => {
                self.caller = caller;
                true
            }
            Err(e) => {
                self.forwards.abort_all();
                let _ = self.tx.send(Err(crate::status::to_status(e))).await;
                false
            }
        }
    }

    pub(super) async fn run(mut self, mut inbound: Streaming<pb::ChatRequest>) {
        let interval = Duration::from_millis(self.state.config.agent.heartbeat_ms);
        let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let tx = self.tx.clone();
        let mut stopping = self.state.shutdown.subscribe();
        let mut access = self.state.auth.changes();
        // Client messages, until the client half-closes (or the stream breaks).
        loop {
            tokio::select! {
                () = stopped(&mut stopping) => {
                    self.forwards.abort_all();
                    goodbye(&tx, chat_response).await;
                    return;
                }
                Ok(()) = access.changed() => if !self.reauthenticate().await { return },
                message = inbound.message() => match message {
                    Ok(Some(m)) => self.handle(m).await,
                    Ok(None) => break,
                    Err(status) => {
                        tracing::debug!(%status, "chat stream broke; its runs continue");
                        self.forwards.abort_all();
                        return;
                    }
                },
                Some(done) = self.forwards.join_next() => {
                    if let Ok(id) = done { self.watched.remove(&id); }
                }
                _ = beat.tick() => self.send(heartbeat(&self.state, &self.watched_runs())).await,
                () = tx.closed() => {
                    self.forwards.abort_all();
                    return;
                }
            }
        }
        // Half-closed: finish every run started or resumed here, then end the stream.
        loop {
            tokio::select! {
                () = stopped(&mut stopping) => {
                    self.forwards.abort_all();
                    goodbye(&tx, chat_response).await;
                    return;
                }
                Ok(()) = access.changed() => if !self.reauthenticate().await { return },
                done = self.forwards.join_next() => match done {
                    Some(Ok(id)) => { self.watched.remove(&id); }
                    Some(Err(_)) => {}
                    None => return,
                },
                _ = beat.tick() => self.send(heartbeat(&self.state, &self.watched_runs())).await,
                () = tx.closed() => {
                    self.forwards.abort_all();
                    return;
                }
            }
        }
    }
}
