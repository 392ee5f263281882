//! `aware-client`: a typed client for aware over gRPC, for Rust services and the `aware` CLI.
//!
//! [`AwareClient`] binds a channel to a token and an audit source, hands out the generated service
//! clients with those headers attached, and adds what every caller needs: [`AwareClient::run_stream`]
//! follows a run to its end across disconnects (it reopens `StreamRun` from the last delivered
//! seq with backoff, drops duplicates and watches heartbeats), dataset lookup by name, and a
//! streamed upload with progress.

use aware_proto::v1 as pb;
use pb::admin_service_client::AdminServiceClient;
use pb::audit_service_client::AuditServiceClient;
use pb::chat_service_client::ChatServiceClient;
use pb::datasets_service_client::DatasetsServiceClient;
use pb::files_service_client::FilesServiceClient;
use pb::memory_service_client::MemoryServiceClient;
use pb::query_service_client::QueryServiceClient;
use pb::runs_service_client::RunsServiceClient;
use pb::threads_service_client::ThreadsServiceClient;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::metadata::MetadataValue;
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status};

pub use aware_proto::v1;

/// Adds `authorization` and `x-aware-source` to every call.
#[derive(Clone)]
pub struct Headers {
    token: Option<MetadataValue<tonic::metadata::Ascii>>,
    source: MetadataValue<tonic::metadata::Ascii>,
}

impl Interceptor for Headers {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        if let Some(t) = &self.token {
            req.metadata_mut().insert("authorization", t.clone());
        }
        req.metadata_mut().insert("x-aware-source", self.source.clone());
        Ok(req)
    }
}

type Svc = InterceptedService<Channel, Headers>;

/// A connection to one aware server as one user.
#[derive(Clone)]
pub struct AwareClient {
    channel: Channel,
    headers: Headers,
    max_message_bytes: usize,
}

/// What [`AwareClient::run_stream`] yields.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamItem {
    /// A sequenced event, each exactly once and in order.
    Event(pb::ServerEvent),
    /// The server is alive (sent while a run waits on a tool, a model or a person).
    Heartbeat(pb::ServerEvent),
    /// The connection broke or went silent; it is being reopened after `after_seq`.
    Reconnecting { attempt: u32, after_seq: u64, error: String },
}

/// How [`AwareClient::run_stream`] reconnects.
#[derive(Clone, Debug)]
pub struct StreamOptions {
    pub after_seq: u64,
    /// Silence after which the connection is presumed dead.
    pub heartbeat_timeout: Duration,
    /// Reconnects in a row before giving up.
    pub max_attempts: u32,
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            after_seq: 0,
            heartbeat_timeout: Duration::from_secs(15),
            max_attempts: 8,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
        }
    }
}

/// Codes that no retry fixes.
fn is_final(code: Code) -> bool {
    matches!(
        code,
        Code::NotFound
            | Code::PermissionDenied
            | Code::Unauthenticated
            | Code::InvalidArgument
            | Code::FailedPrecondition
    )
}

impl AwareClient {
    /// Connects to `url` (e.g. `http://127.0.0.1:50051`). `source` is what the audit log records
    /// as the origin of actions: `cli`, `web` or `api`.
    pub async fn connect(url: &str, token: Option<&str>, source: &str) -> anyhow::Result<Self> {
        let channel = Endpoint::from_shared(url.to_owned())
            .map_err(|e| anyhow::anyhow!("{url:?} is not a server URL: {e}"))?
            .connect_timeout(Duration::from_secs(10))
            .http2_keep_alive_interval(Duration::from_secs(20))
            .connect()
            .await
            .map_err(|e| anyhow::anyhow!("cannot reach aware at {url}: {e}"))?;
        let token = token
            .map(|t| format!("Bearer {t}").parse())
            .transpose()
            .map_err(|_| anyhow::anyhow!("the token has characters a header cannot carry"))?;
        let source = source.parse().map_err(|_| anyhow::anyhow!("bad source {source:?}"))?;
        Ok(Self { channel, headers: Headers { token, source }, max_message_bytes: 64 << 20 })
    }

    pub fn chat(&self) -> ChatServiceClient<Svc> {
        ChatServiceClient::with_interceptor(self.channel.clone(), self.headers.clone())
            .max_decoding_message_size(self.max_message_bytes)
    }

    pub fn datasets(&self) -> DatasetsServiceClient<Svc> {
        DatasetsServiceClient::with_interceptor(self.channel.clone(), self.headers.clone())
            .max_decoding_message_size(self.max_message_bytes)
    }

    pub fn files(&self) -> FilesServiceClient<Svc> {
        FilesServiceClient::with_interceptor(self.channel.clone(), self.headers.clone())
            .max_decoding_message_size(self.max_message_bytes)
    }

    pub fn query(&self) -> QueryServiceClient<Svc> {
        QueryServiceClient::with_interceptor(self.channel.clone(), self.headers.clone())
            .max_decoding_message_size(self.max_message_bytes)
    }

    pub fn runs(&self) -> RunsServiceClient<Svc> {
        RunsServiceClient::with_interceptor(self.channel.clone(), self.headers.clone())
            .max_decoding_message_size(self.max_message_bytes)
    }

    pub fn threads(&self) -> ThreadsServiceClient<Svc> {
        ThreadsServiceClient::with_interceptor(self.channel.clone(), self.headers.clone())
            .max_decoding_message_size(self.max_message_bytes)
    }

    pub fn admin(&self) -> AdminServiceClient<Svc> {
        AdminServiceClient::with_interceptor(self.channel.clone(), self.headers.clone())
            .max_decoding_message_size(self.max_message_bytes)
    }

    pub fn audit(&self) -> AuditServiceClient<Svc> {
        AuditServiceClient::with_interceptor(self.channel.clone(), self.headers.clone())
            .max_decoding_message_size(self.max_message_bytes)
    }

    pub fn memory(&self) -> MemoryServiceClient<Svc> {
        MemoryServiceClient::with_interceptor(self.channel.clone(), self.headers.clone())
            .max_decoding_message_size(self.max_message_bytes)
    }

    /// Answers a confirmation with every option: a session scope, edited (narrowed) arguments.
    pub async fn answer(&self, req: pb::SubmitConfirmationRequest) -> Result<pb::SubmitConfirmationResponse, Status> {
        Ok(self.chat().submit_confirmation(req).await?.into_inner())
    }

    /// Rates a run's answer.
    pub async fn feedback(&self, run_id: &str, up: bool, reason: &str) -> Result<pb::Feedback, Status> {
        let rating = if up { pb::FeedbackRating::Up } else { pb::FeedbackRating::Down };
        let req = pb::SubmitFeedbackRequest { run_id: run_id.into(), rating: rating.into(), reason: reason.into() };
        let answered = self.runs().submit_feedback(req).await?.into_inner();
        answered.feedback.ok_or_else(|| Status::internal("the server returned no feedback"))
    }

    /// A dataset by id, SQL table name or file name (case-insensitive), with a helpful error.
    pub async fn dataset(&self, name: &str) -> Result<pb::Dataset, Status> {
        let all = self.datasets().list_datasets(pb::ListDatasetsRequest::default()).await?.into_inner().datasets;
        let wanted = name.trim();
        if let Some(d) = all.iter().find(|d| {
            d.id == wanted || d.table_name.eq_ignore_ascii_case(wanted) || d.name.eq_ignore_ascii_case(wanted)
        }) {
            return Ok(d.clone());
        }
        let names: Vec<&str> = all.iter().map(|d| d.table_name.as_str()).collect();
        Err(Status::not_found(format!(
            "no dataset named {wanted:?}; you have: {}",
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        )))
    }

    /// Uploads `bytes` as `filename` in 1 MiB messages of one client stream; `progress` sees the
    /// bytes handed to the transport so far.
    pub async fn upload(
        &self,
        filename: &str,
        bytes: bytes::Bytes,
        progress: impl Fn(u64) + Send + 'static,
    ) -> Result<pb::Dataset, Status> {
        const CHUNK: usize = 1 << 20;
        let total = bytes.len() as u64;
        let filename = filename.to_owned();
        let chunks: Vec<bytes::Bytes> = if bytes.is_empty() {
            vec![bytes::Bytes::new()]
        } else {
            (0..bytes.len()).step_by(CHUNK).map(|i| bytes.slice(i..(i + CHUNK).min(bytes.len()))).collect()
        };
        let messages = futures::stream::iter(chunks.into_iter().enumerate().map(move |(i, chunk)| {
            progress(((i * CHUNK) as u64 + chunk.len() as u64).min(total));
            if i == 0 {
                pb::UploadDatasetRequest { filename: filename.clone(), size_bytes: total, chunk, ..Default::default() }
            } else {
                pb::UploadDatasetRequest { chunk, ..Default::default() }
            }
        }));
        let answer = self.datasets().upload_dataset(messages).await?.into_inner();
        answer.dataset.ok_or_else(|| Status::internal("the server accepted the upload but returned no dataset"))
    }

    /// Starts a run; `client_msg_id` makes a retried send return the same run.
    pub async fn send_message(
        &self,
        thread_id: &str,
        text: &str,
        client_msg_id: &str,
    ) -> Result<pb::SendMessageResponse, Status> {
        let message = pb::UserMessage { thread_id: thread_id.into(), text: text.into(), on_busy: 0 };
        let req = pb::SendMessageRequest { client_msg_id: client_msg_id.into(), message: Some(message) };
        Ok(self.chat().send_message(req).await?.into_inner())
    }

    pub async fn confirm(
        &self,
        confirmation_id: &str,
        approved: bool,
    ) -> Result<pb::SubmitConfirmationResponse, Status> {
        let req =
            pb::SubmitConfirmationRequest { confirmation_id: confirmation_id.into(), approved, ..Default::default() };
        Ok(self.chat().submit_confirmation(req).await?.into_inner())
    }

    /// Answers a clarification with one of its options' values (`None` dismisses it); with
    /// `remember` the answer is kept as a rule of the dataset.
    pub async fn clarify(
        &self,
        clarification_id: &str,
        choice: Option<&str>,
        remember: bool,
    ) -> Result<pb::SubmitClarificationResponse, Status> {
        let req = pb::SubmitClarificationRequest {
            clarification_id: clarification_id.into(),
            choice: choice.unwrap_or_default().into(),
            remember,
        };
        Ok(self.chat().submit_clarification(req).await?.into_inner())
    }

    pub async fn cancel(&self, run_id: &str) -> Result<pb::CancelRunResponse, Status> {
        Ok(self.chat().cancel_run(pb::CancelRunRequest { run_id: run_id.into() }).await?.into_inner())
    }

    /// Follows a run until `RunCompleted`, across disconnects: every sequenced event once, in
    /// order. Ends after `RunCompleted`, or with an error when the run cannot be followed
    /// (unknown, not yours) or the server stayed unreachable for `max_attempts` reconnects.
    pub fn run_stream(&self, run_id: &str, options: StreamOptions) -> ReceiverStream<Result<StreamItem, Status>> {
        let (tx, rx) = mpsc::channel(256);
        let client = self.clone();
        let run_id = run_id.to_owned();
        tokio::spawn(async move {
            let mut after_seq = options.after_seq;
            let mut failures = 0u32;
            loop {
                let error = match client.follow_once(&run_id, &mut after_seq, &mut failures, &options, &tx).await {
                    Ok(true) => return, // completed, or nobody listens any more
                    Ok(false) => "the stream ended before the run did".to_owned(),
                    Err(s) if is_final(s.code()) => {
                        let _ = tx.send(Err(s)).await;
                        return;
                    }
                    Err(s) => s.message().to_owned(),
                };
                failures += 1;
                if failures > options.max_attempts {
                    let message =
                        format!("gave up following {run_id} after {} reconnects: {error}", options.max_attempts);
                    let _ = tx.send(Err(Status::unavailable(message))).await;
                    return;
                }
                let item = StreamItem::Reconnecting { attempt: failures, after_seq, error };
                if tx.send(Ok(item)).await.is_err() {
                    return;
                }
                let wait = options.initial_backoff.saturating_mul(1 << (failures - 1).min(16)).min(options.max_backoff);
                tokio::time::sleep(wait).await;
            }
        });
        ReceiverStream::new(rx)
    }

    /// One connection's worth of a run. `Ok(true)`: done (completed or the receiver is gone).
    async fn follow_once(
        &self,
        run_id: &str,
        after_seq: &mut u64,
        failures: &mut u32,
        options: &StreamOptions,
        tx: &mpsc::Sender<Result<StreamItem, Status>>,
    ) -> Result<bool, Status> {
        let req = pb::StreamRunRequest { run_id: run_id.into(), after_seq: *after_seq };
        let opened = tokio::time::timeout(options.heartbeat_timeout, self.chat().stream_run(req))
            .await
            .map_err(|_| Status::unavailable("no answer to StreamRun"))??;
        let mut stream = opened.into_inner();
        loop {
            let next = tokio::time::timeout(options.heartbeat_timeout, stream.message()).await.map_err(|_| {
                Status::unavailable(format!("no event or heartbeat for {:?}", options.heartbeat_timeout))
            })??;
            let Some(response) = next else { return Ok(false) };
            let Some(event) = response.event else { continue };
            let item = if event.seq == 0 {
                match event.payload {
                    Some(pb::server_event::Payload::Heartbeat(_)) => StreamItem::Heartbeat(event),
                    _ => continue, // replay markers
                }
            } else if event.seq <= *after_seq {
                continue; // delivered before a reconnect
            } else {
                *after_seq = event.seq;
                *failures = 0;
                let done = matches!(event.payload, Some(pb::server_event::Payload::RunCompleted(_)));
                if tx.send(Ok(StreamItem::Event(event))).await.is_err() || done {
                    return Ok(true);
                }
                continue;
            };
            if tx.send(Ok(item)).await.is_err() {
                return Ok(true);
            }
        }
    }
}
