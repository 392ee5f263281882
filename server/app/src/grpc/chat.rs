//! `aware.v1.ChatService`. Discovery (`GetCapabilities`) works now; the run engine behind the
//! other RPCs arrives with its own issue, and until then they answer UNIMPLEMENTED with
//! `ErrorInfo` like every other aware error.

use super::State;
use crate::config::{AuthMode, DeploymentMode};
use crate::grpc::unimplemented::not_yet;
use crate::status::to_status;
use aware_proto::v1 as pb;
use aware_proto::v1::chat_service_server::ChatService;
use futures::Stream;
use std::pin::Pin;
use tonic::{Request, Response, Status, Streaming};

/// Version of the Chat protocol (`Hello.protocol_version`).
pub const PROTOCOL_VERSION: u32 = 1;

pub struct Chat {
    pub state: State,
}

type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl ChatService for Chat {
    type ChatStream = EventStream<pb::ChatResponse>;
    type StreamRunStream = EventStream<pb::StreamRunResponse>;

    async fn chat(&self, request: Request<Streaming<pb::ChatRequest>>) -> Result<Response<Self::ChatStream>, Status> {
        self.state.caller(request.metadata()).await?;
        Err(not_yet("Chat"))
    }

    async fn send_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        self.state.caller(request.metadata()).await?;
        Err(not_yet("SendMessage"))
    }

    async fn stream_run(
        &self,
        request: Request<pb::StreamRunRequest>,
    ) -> Result<Response<Self::StreamRunStream>, Status> {
        self.state.caller(request.metadata()).await?;
        Err(not_yet("StreamRun"))
    }

    async fn update_state(
        &self,
        request: Request<pb::UpdateStateRequest>,
    ) -> Result<Response<pb::UpdateStateResponse>, Status> {
        self.state.caller(request.metadata()).await?;
        Err(not_yet("UpdateState"))
    }

    async fn submit_confirmation(
        &self,
        request: Request<pb::SubmitConfirmationRequest>,
    ) -> Result<Response<pb::SubmitConfirmationResponse>, Status> {
        self.state.caller(request.metadata()).await?;
        Err(not_yet("SubmitConfirmation"))
    }

    async fn cancel_run(
        &self,
        request: Request<pb::CancelRunRequest>,
    ) -> Result<Response<pb::CancelRunResponse>, Status> {
        self.state.caller(request.metadata()).await?;
        Err(not_yet("CancelRun"))
    }

    async fn get_capabilities(
        &self,
        request: Request<pb::GetCapabilitiesRequest>,
    ) -> Result<Response<pb::GetCapabilitiesResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let config = &self.state.config;
        Ok(Response::new(pb::GetCapabilitiesResponse {
            protocol_version: PROTOCOL_VERSION,
            server_version: env!("CARGO_PKG_VERSION").to_owned(),
            heartbeat_interval_ms: 5_000,
            confirmation_ttl_ms: 60_000,
            max_iterations: 5,
            max_tool_calls_per_message: 5,
            tool_timeout_ms: 10_000,
            on_busy_modes: vec![pb::OnBusy::Reject.into(), pb::OnBusy::Enqueue.into(), pb::OnBusy::Interrupt.into()],
            tools: Vec::new(),
            mode: match config.mode {
                DeploymentMode::Local => "local",
                DeploymentMode::Connected => "connected",
            }
            .to_owned(),
            auth_mode: match config.auth {
                AuthMode::Local => "local",
                AuthMode::ApiKey => "api-key",
            }
            .to_owned(),
            model_provider: String::new(),
            role: caller.principal.role.as_str().to_owned(),
            max_upload_bytes: config.max_upload_bytes(),
            max_message_bytes: u32::try_from(config.max_message_bytes())
                .map_err(|e| to_status(aware_core::Error::internal(e)))?,
        }))
    }
}
