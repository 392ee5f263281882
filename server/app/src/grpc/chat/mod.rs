//! `aware.v1.ChatService`: the `Chat` bidi stream and its unary/server-streaming companions for
//! browsers, all on the one run engine. This layer only multiplexes: it turns client messages
//! into engine calls, engine subscriptions into events on the wire, and adds the unsequenced
//! envelopes (heartbeats, replay markers, accepted/rejected answers).
//!
//! Its parts: this file (the service: the stream's entry point and the unary companions, and the
//! conversions of requests in), `session.rs` (one `Chat` stream), `envelopes.rs` (the events this
//! layer adds, and forwarding a subscription).

mod envelopes;
mod session;

use super::State;
use crate::config::AuthMode;
use crate::convert;
use crate::status::to_status;
use aware_core::runs::tools::Gate;
use aware_core::runs::{Admission, NewMessage, OnBusy};
use aware_core::{Error, ErrorCode};
use aware_domain::ids::{RunId, ThreadId};
use aware_domain::ports::run_log::{Snapshot, SnapshotDataset};
use aware_proto::v1 as pb;
use aware_proto::v1::chat_service_server::ChatService;
use envelopes::{forward, goodbye, heartbeat, resume_rejected, stopped, stream_run_response, subscribe};
use futures::Stream;
use session::Session;
use std::collections::HashMap;
use std::pin::Pin;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

/// Version of the Chat protocol (`Hello.protocol_version`).
pub const PROTOCOL_VERSION: u32 = 1;

pub struct Chat {
    pub state: State,
}

type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;
fn on_busy(raw: i32) -> OnBusy {
    match pb::OnBusy::try_from(raw).unwrap_or(pb::OnBusy::Unspecified) {
        pb::OnBusy::Enqueue => OnBusy::Enqueue,
        pb::OnBusy::Interrupt => OnBusy::Interrupt,
        pb::OnBusy::Unspecified | pb::OnBusy::Reject => OnBusy::Reject,
    }
}

fn message_in(client_msg_id: &str, m: pb::UserMessage) -> aware_core::Result<NewMessage> {
    NewMessage::new(client_msg_id, &m.thread_id, &m.text, on_busy(m.on_busy))
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
            metadata: request.metadata().clone(),
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
        let message = message_in(&req.client_msg_id, message).map_err(to_status)?;
        let (run_id, thread_id, queued) = match self.state.runs.send_message(&caller, message).await {
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
        let metadata = request.metadata().clone();
        let req = request.into_inner();
        let (tx, rx) = mpsc::channel(256);
        let state = self.state.clone();
        match subscribe(&self.state, &caller, &req.run_id, req.after_seq).await {
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
                    let mut access = state.auth.changes();
                    loop {
                        tokio::select! {
                            () = &mut forwarding => break,
                            () = stopped(&mut stopping) => {
                                goodbye(&beats, stream_run_response).await;
                                break;
                            }
                            // A revoked key or a deactivated user: the stream ends now.
                            Ok(()) = access.changed() => if let Err(e) = state.auth.caller(&metadata).await {
                                let _ = beats.send(Err(to_status(e))).await;
                                break;
                            },
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
        let confirmation_id = convert::confirmation_id_in(&req.confirmation_id).map_err(to_status)?;
        let answer = convert::answer_in(req.approved, req.scope, req.duration_seconds, &req.edited_arguments_json)
            .map_err(to_status)?;
        let (run_id, resolution, grant) =
            self.state.runs.resolve_confirmation(&caller, &confirmation_id, answer).await.map_err(to_status)?;
        Ok(Response::new(pb::SubmitConfirmationResponse {
            run_id: run_id.to_string(),
            resolution: convert::resolution(resolution).into(),
            grant_id: grant.map(|g| g.to_string()).unwrap_or_default(),
        }))
    }

    async fn submit_clarification(
        &self,
        request: Request<pb::SubmitClarificationRequest>,
    ) -> Result<Response<pb::SubmitClarificationResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let id = convert::confirmation_id_in(&req.clarification_id).map_err(to_status)?;
        let choice = Some(req.choice.as_str()).filter(|c| !c.trim().is_empty());
        let (run_id, resolution) =
            self.state.runs.resolve_clarification(&caller, &id, choice, req.remember).await.map_err(to_status)?;
        Ok(Response::new(pb::SubmitClarificationResponse {
            run_id: run_id.to_string(),
            resolution: convert::resolution(resolution).into(),
        }))
    }

    async fn list_grants(
        &self,
        request: Request<pb::ListGrantsRequest>,
    ) -> Result<Response<pb::ListGrantsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let grants = self.state.runs.grants(&caller).await.map_err(to_status)?;
        Ok(Response::new(pb::ListGrantsResponse { grants: grants.iter().map(convert::grant).collect() }))
    }

    async fn revoke_grant(
        &self,
        request: Request<pb::RevokeGrantRequest>,
    ) -> Result<Response<pb::RevokeGrantResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let raw = request.into_inner().grant_id;
        let id = aware_domain::ids::GrantId::parse_field(&raw, "grant_id").map_err(to_status)?;
        self.state.runs.revoke_grant(&caller, &id).await.map_err(to_status)?;
        Ok(Response::new(pb::RevokeGrantResponse {}))
    }

    async fn cancel_run(
        &self,
        request: Request<pb::CancelRunRequest>,
    ) -> Result<Response<pb::CancelRunResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let status = self
            .state
            .runs
            .cancel(&caller, &RunId::parse_field(&request.into_inner().run_id, "run_id").map_err(to_status)?)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::CancelRunResponse { status: convert::run_status(status).into() }))
    }

    async fn list_pending_confirmations(
        &self,
        request: Request<pb::ListPendingConfirmationsRequest>,
    ) -> Result<Response<pb::ListPendingConfirmationsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let pending = self.state.runs.pending_confirmations(&caller).await.map_err(to_status)?;
        Ok(Response::new(pb::ListPendingConfirmationsResponse {
            confirmations: pending
                .iter()
                .map(|c| convert::pending_confirmation(c, self.state.runs.grantable(c)))
                .collect(),
        }))
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
            .map(|t| {
                let meta = t.meta();
                pb::ToolInfo {
                    name: meta.name.as_str().to_owned(),
                    title: meta.title.to_string(),
                    activity: meta.activity.to_string(),
                    description: meta.description.to_string(),
                    input_schema_json: t.input_schema().to_string(),
                    risk: Some(convert::tool_risk(meta.risk)),
                    capability: match &meta.gate {
                        Gate::Capability(c) => c.as_str().to_owned(),
                        Gate::Scope(grant) => grant.as_ref().map(|g| format!("scope:{}", g.scope)).unwrap_or_default(),
                    },
                    provenance: Some(convert::provenance(&meta.provenance())),
                }
            })
            .collect();
        let external_servers = self
            .state
            .runs
            .policy()
            .external_servers()
            .into_iter()
            .map(|s| pb::ExternalServer {
                id: s.id,
                state: s.state.as_str().to_owned(),
                detail: s.detail,
                tools: s.tools,
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
            external_servers,
        }))
    }
}
