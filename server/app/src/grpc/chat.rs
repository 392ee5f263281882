//! `aware.v1.ChatService`: the `Chat` bidi stream and its unary/server-streaming companions for
//! browsers, all on the one run engine. This layer only multiplexes: it turns client messages
//! into engine calls, engine subscriptions into events on the wire, and adds the unsequenced
//! envelopes (heartbeats, replay markers, accepted/rejected answers).

use super::State;
use crate::config::AuthMode;
use crate::convert;
use crate::status::to_status;
use aware_core::auth::Caller;
use aware_core::ids::{RunId, ThreadId};
use aware_core::runs::store::{Snapshot, SnapshotDataset};
use aware_core::runs::{Admission, Delivery, NewMessage, OnBusy, Subscription};
use aware_core::{Error, ErrorCode};
use aware_proto::v1 as pb;
use aware_proto::v1::chat_service_server::ChatService;
use futures::Stream;
use std::collections::HashMap;
use std::pin::Pin;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

/// Version of the Chat protocol (`Hello.protocol_version`).
pub const PROTOCOL_VERSION: u32 = 1;

pub struct Chat {
    pub state: State,
}

type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;
type Wrap<T> = fn(pb::ServerEvent) -> T;

fn chat_response(event: pb::ServerEvent) -> pb::ChatResponse {
    pb::ChatResponse { event: Some(event) }
}

fn stream_run_response(event: pb::ServerEvent) -> pb::StreamRunResponse {
    pb::StreamRunResponse { event: Some(event) }
}

/// An unsequenced event (seq 0, never stored).
fn unsequenced(run_id: &str, thread_id: &str, payload: pb::server_event::Payload) -> pb::ServerEvent {
    pb::ServerEvent {
        run_id: run_id.to_owned(),
        seq: 0,
        time: Some(convert::timestamp(chrono::Utc::now())),
        iteration: 0,
        thread_id: thread_id.to_owned(),
        payload: Some(payload),
    }
}

fn rejected(client_msg_id: &str, run_id: &str, e: &Error, active_run_id: &str, last_seq: u64) -> pb::ServerEvent {
    let code = if e.code == ErrorCode::ValidationError { ErrorCode::BadRequest } else { e.code };
    unsequenced(
        run_id,
        "",
        pb::server_event::Payload::Rejected(pb::Rejected {
            client_msg_id: client_msg_id.to_owned(),
            code: convert::error_code(code).into(),
            message: e.message.clone(),
            active_run_id: active_run_id.to_owned(),
            last_seq,
        }),
    )
}

/// The in-band answer to a resume that cannot be served; a cursor beyond the log is told where
/// the log ends.
async fn resume_rejected(
    state: &State,
    caller: &Caller,
    client_msg_id: &str,
    run_id: &str,
    e: &Error,
) -> pb::ServerEvent {
    let last_seq =
        if e.code == ErrorCode::CursorAhead { state.runs.last_seq(caller, run_id).await.unwrap_or(0) } else { 0 };
    rejected(client_msg_id, run_id, e, "", last_seq)
}

fn accepted(client_msg_id: &str, run_id: &str, thread_id: &str, queued: bool) -> pb::ServerEvent {
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
async fn stopped(shutdown: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|s| *s).await;
}

/// How long a client should wait before reconnecting after [`goodbye`].
const RETRY_AFTER_MS: u32 = 1_000;

/// The last words of every open stream when the server stops: a `ShuttingDown` event, then the
/// stream ends with UNAVAILABLE (which clients retry). Runs are durable; they continue after the
/// restart and the client resumes from its last seq.
async fn goodbye<T>(tx: &mpsc::Sender<Result<T, Status>>, wrap: Wrap<T>) {
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

fn heartbeat(state: &State, runs: &[RunId]) -> pb::ServerEvent {
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
async fn forward<T: Send + 'static>(
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

/// One `Chat` stream: client messages in, events out.
struct Session {
    state: State,
    caller: Caller,
    _stream: crate::limits::StreamGuard,
    tx: mpsc::Sender<Result<pb::ChatResponse, Status>>,
    forwards: JoinSet<RunId>,
    watched: HashMap<RunId, AbortHandle>,
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
        match self.state.runs.subscribe(&self.caller, run_id, after_seq).await {
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
                let message = message_in(&id, m);
                match self.state.runs.send_message(&self.caller, message).await {
                    Ok(Admission::Started { run_id, thread_id, queued }) => {
                        self.send(accepted(&id, run_id.as_str(), thread_id.name(), queued)).await;
                        match self.state.runs.subscribe(&self.caller, run_id.as_str(), 0).await {
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
                match self.state.runs.resolve_confirmation(&self.caller, &c.confirmation_id, c.approved).await {
                    Ok((run_id, _)) => self.send(accepted(&id, run_id.as_str(), "", false)).await,
                    Err(e) => self.send(rejected(&id, "", &e, "", 0)).await,
                }
            }
            Some(Kind::Resume(r)) => self.resume(&id, &r.run_id, r.last_event_seq).await,
            Some(Kind::Cancel(c)) => match self.state.runs.cancel(&self.caller, &c.run_id).await {
                Ok(_) => self.send(accepted(&id, &c.run_id, "", false)).await,
                Err(e) => self.send(rejected(&id, &c.run_id, &e, "", 0)).await,
            },
        }
    }

    fn watched_runs(&self) -> Vec<RunId> {
        self.watched.keys().cloned().collect()
    }

    async fn run(mut self, mut inbound: Streaming<pb::ChatRequest>) {
        let interval = Duration::from_millis(self.state.config.agent.heartbeat_ms);
        let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let tx = self.tx.clone();
        let mut stopping = self.state.shutdown.subscribe();
        // Client messages, until the client half-closes (or the stream breaks).
        loop {
            tokio::select! {
                () = stopped(&mut stopping) => {
                    self.forwards.abort_all();
                    goodbye(&tx, chat_response).await;
                    return;
                }
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

fn on_busy(raw: i32) -> OnBusy {
    match pb::OnBusy::try_from(raw).unwrap_or(pb::OnBusy::Unspecified) {
        pb::OnBusy::Enqueue => OnBusy::Enqueue,
        pb::OnBusy::Interrupt => OnBusy::Interrupt,
        pb::OnBusy::Unspecified | pb::OnBusy::Reject => OnBusy::Reject,
    }
}

fn message_in(client_msg_id: &str, m: pb::UserMessage) -> NewMessage {
    NewMessage {
        client_msg_id: client_msg_id.to_owned(),
        thread_id: m.thread_id,
        text: m.text,
        on_busy: on_busy(m.on_busy),
    }
}

fn snapshot_in(s: pb::StateSnapshot) -> Snapshot {
    Snapshot {
        thread_id: ThreadId::parse(&s.thread_id),
        ui_state_version: s.ui_state_version,
        current_route: s.current_route,
        active_dataset_id: s.active_dataset_id,
        datasets: s
            .datasets
            .into_iter()
            .map(|d| SnapshotDataset { id: d.id, name: d.name, row_count: d.row_count })
            .collect(),
    }
}

#[tonic::async_trait]
impl ChatService for Chat {
    type ChatStream = EventStream<pb::ChatResponse>;
    type StreamRunStream = EventStream<pb::StreamRunResponse>;

    async fn chat(&self, request: Request<Streaming<pb::ChatRequest>>) -> Result<Response<Self::ChatStream>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let stream = self.state.limits.open_stream(caller.principal.user_id.as_str()).map_err(to_status)?;
        let (tx, rx) = mpsc::channel(256);
        let session = Session {
            state: self.state.clone(),
            caller,
            _stream: stream,
            tx,
            forwards: JoinSet::new(),
            watched: HashMap::new(),
        };
        // The session is the Chat call's real life: its span stays open until the stream ends,
        // and the runs it starts link to it.
        tokio::spawn(tracing::Instrument::instrument(session.run(request.into_inner()), tracing::Span::current()));
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn send_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let message = req.message.ok_or_else(|| to_status(Error::validation("message", "a message is required")))?;
        let (run_id, thread_id, queued) =
            match self.state.runs.send_message(&caller, message_in(&req.client_msg_id, message)).await {
                Ok(Admission::Started { run_id, thread_id, queued }) => (run_id, thread_id, queued),
                Ok(Admission::Repeated { run_id, thread_id }) => (run_id, thread_id, false),
                Ok(Admission::Busy { active_run_id }) => {
                    return Err(to_status(Error::new(
                        ErrorCode::RunBusy,
                        format!("this thread already has an active run ({active_run_id})"),
                    )));
                }
                Err(e) => return Err(to_status(e)),
            };
        Ok(Response::new(pb::SendMessageResponse {
            run_id: run_id.to_string(),
            thread_id: thread_id.name().to_owned(),
            queued,
        }))
    }

    async fn stream_run(
        &self,
        request: Request<pb::StreamRunRequest>,
    ) -> Result<Response<Self::StreamRunStream>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let stream = self.state.limits.open_stream(caller.principal.user_id.as_str()).map_err(to_status)?;
        let req = request.into_inner();
        let (tx, rx) = mpsc::channel(256);
        let state = self.state.clone();
        match self.state.runs.subscribe(&caller, &req.run_id, req.after_seq).await {
            Ok(sub) => {
                let run_id = sub.run_id().clone();
                tokio::spawn(async move {
                    let _stream = stream;
                    let interval = Duration::from_millis(state.config.agent.heartbeat_ms);
                    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
                    let beats = tx.clone();
                    let forwarding = forward(sub, tx, stream_run_response, Some(req.after_seq));
                    tokio::pin!(forwarding);
                    let mut stopping = state.shutdown.subscribe();
                    loop {
                        tokio::select! {
                            () = &mut forwarding => break,
                            () = stopped(&mut stopping) => {
                                goodbye(&beats, stream_run_response).await;
                                break;
                            }
                            _ = beat.tick() => {
                                let hb = heartbeat(&state, std::slice::from_ref(&run_id));
                                if beats.send(Ok(stream_run_response(hb))).await.is_err() {
                                    break;
                                }
                            }
                        }
                    }
                });
            }
            Err(e) => {
                let answer = resume_rejected(&self.state, &caller, "", &req.run_id, &e).await;
                let _ = tx.send(Ok(stream_run_response(answer))).await;
            }
        }
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn update_state(
        &self,
        request: Request<pb::UpdateStateRequest>,
    ) -> Result<Response<pb::UpdateStateResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let snapshot = request
            .into_inner()
            .snapshot
            .ok_or_else(|| to_status(Error::validation("snapshot", "a snapshot is required")))?;
        let (thread, version) =
            self.state.runs.update_state(&caller, snapshot_in(snapshot)).await.map_err(to_status)?;
        Ok(Response::new(pb::UpdateStateResponse { thread_id: thread.name().to_owned(), ui_state_version: version }))
    }

    async fn submit_confirmation(
        &self,
        request: Request<pb::SubmitConfirmationRequest>,
    ) -> Result<Response<pb::SubmitConfirmationResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let (run_id, resolution) = self
            .state
            .runs
            .resolve_confirmation(&caller, &req.confirmation_id, req.approved)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::SubmitConfirmationResponse {
            run_id: run_id.to_string(),
            resolution: convert::resolution(resolution).into(),
        }))
    }

    async fn cancel_run(
        &self,
        request: Request<pb::CancelRunRequest>,
    ) -> Result<Response<pb::CancelRunResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let status = self.state.runs.cancel(&caller, &request.into_inner().run_id).await.map_err(to_status)?;
        Ok(Response::new(pb::CancelRunResponse { status: convert::run_status(status).into() }))
    }

    async fn get_capabilities(
        &self,
        request: Request<pb::GetCapabilitiesRequest>,
    ) -> Result<Response<pb::GetCapabilitiesResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let config = &self.state.config;
        let agent = &config.agent;
        let tools = self
            .state
            .runs
            .policy()
            .available(&caller)
            .into_iter()
            .map(|t| pb::ToolInfo {
                name: t.meta().name.as_str().to_owned(),
                title: t.meta().title.to_owned(),
                activity: t.meta().activity.to_owned(),
                description: t.meta().description.to_owned(),
                input_schema_json: t.input_schema().to_string(),
                risk: Some(convert::tool_risk(t.meta().risk)),
                capability: t.meta().capability.as_str().to_owned(),
            })
            .collect();
        let ms = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        Ok(Response::new(pb::GetCapabilitiesResponse {
            protocol_version: PROTOCOL_VERSION,
            server_version: env!("CARGO_PKG_VERSION").to_owned(),
            heartbeat_interval_ms: ms(agent.heartbeat_ms),
            confirmation_ttl_ms: ms(agent.confirmation_ttl_secs * 1000),
            max_iterations: agent.max_iterations,
            max_tool_calls_per_message: agent.max_tool_calls,
            tool_timeout_ms: ms(agent.tool_timeout_ms),
            on_busy_modes: vec![pb::OnBusy::Reject.into(), pb::OnBusy::Enqueue.into(), pb::OnBusy::Interrupt.into()],
            tools,
            mode: config.mode.as_str().to_owned(),
            auth_mode: match config.auth {
                AuthMode::Local => "local",
                AuthMode::ApiKey => "api-key",
            }
            .to_owned(),
            model_provider: self.state.runs.model_name().to_owned(),
            role: caller.principal.role.as_str().to_owned(),
            max_upload_bytes: config.max_upload_bytes(),
            max_message_bytes: u32::try_from(config.max_message_bytes())
                .map_err(|e| to_status(aware_core::Error::internal(e)))?,
        }))
    }
}
