//! Language-model providers behind `aware-core`'s `LanguageModel` port. Each speaks its provider's
//! streaming wire format over HTTP (SSE): **Anthropic Messages** and **OpenAI-compatible chat
//! completions** (OpenAI itself, a metering proxy, vLLM, llama.cpp, Ollama). Text deltas stream to
//! the run as they arrive; tool calls are assembled from fragments by the provider's own key and
//! parsed only when complete; usage is taken from the stream. A failed call is retried only while
//! nothing has been streamed to the user. HTTP and TLS live here so the core stays free of them.
//! [`script::Script`] is the scripted model for tests and demos.

mod anthropic;
pub mod embeddings;
mod openai;
pub mod script;
pub mod sse;
pub mod transcript;

use async_trait::async_trait;
use aware_domain::ports::model::{LanguageModel, ModelRequest, ModelTurn};
use aware_domain::{Error, ErrorCode, Result};
use sse::{SseDecoder, SseEvent};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

/// Which wire format a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProviderKind {
    Anthropic,
    OpenAi,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
        }
    }

    /// Anthropic's base URL is the host (`/v1/messages` is appended); OpenAI-compatible base URLs
    /// include the version (`/chat/completions` is appended), as each provider's SDK has it.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Anthropic => "https://api.anthropic.com",
            Self::OpenAi => "https://api.openai.com/v1",
        }
    }
}

/// How to reach a provider.
#[derive(Clone, Debug)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    pub base_url: String,
    /// Empty for servers that need none (Ollama, llama.cpp).
    pub api_key: String,
    pub model: String,
    /// Output cap per call. Anthropic requires one (2048 when unset); OpenAI-compatible servers get
    /// `max_tokens` only when it is set (some newer models refuse that parameter).
    pub max_tokens: Option<u32>,
    /// The whole call, retries included.
    pub timeout: Duration,
    /// Silence allowed between two pieces of a stream (and before the response headers).
    pub idle_timeout: Duration,
    /// Extra attempts after a failure that happened before any output.
    pub max_retries: u32,
}

/// A provider client.
pub struct Provider {
    config: ProviderConfig,
    name: String,
    http: reqwest::Client,
}

impl Provider {
    pub fn new(config: ProviderConfig) -> Result<Self> {
        let http = reqwest::Client::builder()
            .connect_timeout(config.idle_timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("aware/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::new(ErrorCode::ModelError, format!("cannot build the HTTP client: {e}")))?;
        let name = format!("{}:{}", config.kind.as_str(), config.model);
        Ok(Self { config, name, http })
    }

    fn endpoint(&self) -> String {
        let base = self.config.base_url.trim_end_matches('/');
        match self.config.kind {
            ProviderKind::Anthropic => format!("{base}/v1/messages"),
            ProviderKind::OpenAi => format!("{base}/chat/completions"),
        }
    }

    /// One HTTP request and its stream.
    async fn attempt(&self, body: &[u8], out: &mut Output<'_>) -> std::result::Result<ModelTurn, Failure> {
        let kind = self.config.kind;
        let mut req = self
            .http
            .post(self.endpoint())
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(body.to_vec());
        req = match kind {
            ProviderKind::Anthropic => {
                req.header("x-api-key", &self.config.api_key).header("anthropic-version", anthropic::VERSION)
            }
            ProviderKind::OpenAi if self.config.api_key.is_empty() => req,
            ProviderKind::OpenAi => req.bearer_auth(&self.config.api_key),
        };
        let idle = self.config.idle_timeout;
        let mut response = match tokio::time::timeout(idle, req.send()).await {
            Err(_) => return Err(Failure::retry(format!("no response within {} s", idle.as_secs_f32()))),
            Ok(Err(e)) => {
                return Err(Failure::retry(format!("cannot reach {}: {}", self.endpoint(), source_chain(&e))));
            }
            Ok(Ok(r)) => r,
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(|s| Duration::from_secs_f64(s.min(30.0)));
            let body = read_capped(&mut response, idle, 64 << 10).await;
            let detail = error_detail(&body);
            let retryable = matches!(status.as_u16(), 408 | 409 | 429 | 500..=599);
            return Err(Failure {
                message: format!("{} returned HTTP {}: {detail}", kind.as_str(), status.as_u16()),
                retryable,
                retry_after,
            });
        }
        let content_type =
            response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        if !content_type.starts_with("text/event-stream") {
            return Err(Failure::fatal(format!(
                "{} answered with {:?} instead of an event stream",
                kind.as_str(),
                content_type
            )));
        }
        let mut decoder: Box<dyn Decode> = match kind {
            ProviderKind::Anthropic => Box::<anthropic::Stream>::default(),
            ProviderKind::OpenAi => Box::<openai::Stream>::default(),
        };
        let mut sse = SseDecoder::default();
        loop {
            let chunk = match tokio::time::timeout(idle, response.chunk()).await {
                Err(_) => return Err(Failure::retry(format!("the stream stalled for {} s", idle.as_secs_f32()))),
                Ok(Err(e)) => return Err(Failure::retry(format!("the stream broke: {}", source_chain(&e)))),
                Ok(Ok(c)) => c,
            };
            let events = match &chunk {
                Some(bytes) => sse.push(bytes).map_err(Failure::fatal)?,
                None => sse.finish().map_err(Failure::fatal)?.into_iter().collect(),
            };
            for event in events {
                if decoder.feed(&event, out)? {
                    return decoder.finish(true);
                }
            }
            if chunk.is_none() {
                return decoder.finish(false);
            }
        }
    }
}

#[async_trait]
impl LanguageModel for Provider {
    fn name(&self) -> &str {
        &self.name
    }

    fn names_threads(&self) -> bool {
        true
    }

    async fn complete(&self, request: ModelRequest<'_>, deltas: UnboundedSender<String>) -> Result<ModelTurn> {
        let body = match self.config.kind {
            ProviderKind::Anthropic => anthropic::body(&request, &self.config),
            ProviderKind::OpenAi => openai::body(&request, &self.config),
        };
        let body = serde_json::to_vec(&body).map_err(|e| Error::new(ErrorCode::ModelError, e.to_string()))?;
        let mut out = Output { deltas: &deltas, emitted: false };
        let calls = async {
            let mut attempt = 0u32;
            loop {
                match self.attempt(&body, &mut out).await {
                    Ok(turn) => return Ok(turn),
                    Err(f) if f.retryable && !out.emitted && attempt < self.config.max_retries => {
                        let wait = f.retry_after.unwrap_or(Duration::from_millis(250 << attempt.min(6)));
                        tracing::warn!(provider = %self.name, attempt, error = %f.message, "model call failed before any output; retrying");
                        tokio::time::sleep(wait).await;
                        attempt += 1;
                    }
                    Err(f) => return Err(f),
                }
            }
        };
        match tokio::time::timeout(self.config.timeout, calls).await {
            Ok(Ok(turn)) => Ok(turn),
            Ok(Err(f)) => Err(Error::new(ErrorCode::ModelError, f.message)),
            Err(_) => Err(Error::new(
                ErrorCode::ModelError,
                format!("{} did not finish within {} s", self.config.kind.as_str(), self.config.timeout.as_secs()),
            )),
        }
    }
}

/// Where a stream's text goes; remembers whether anything reached the user (no retry after that).
pub(crate) struct Output<'a> {
    deltas: &'a UnboundedSender<String>,
    emitted: bool,
}

impl Output<'_> {
    pub(crate) fn text(&mut self, delta: &str) {
        if !delta.is_empty() {
            self.emitted = true;
            let _ = self.deltas.send(delta.to_owned());
        }
    }
}

/// Why an attempt failed.
#[derive(Debug)]
pub(crate) struct Failure {
    pub message: String,
    pub retryable: bool,
    pub retry_after: Option<Duration>,
}

impl Failure {
    pub(crate) fn fatal(message: impl Into<String>) -> Self {
        Self { message: message.into(), retryable: false, retry_after: None }
    }

    pub(crate) fn retry(message: impl Into<String>) -> Self {
        Self { message: message.into(), retryable: true, retry_after: None }
    }
}

/// A provider's stream, one SSE event at a time.
pub(crate) trait Decode: Send {
    /// Returns true when the stream says the turn is complete.
    fn feed(&mut self, event: &SseEvent, out: &mut Output<'_>) -> std::result::Result<bool, Failure>;
    /// The turn, once the stream is complete or has ended (`complete` false: it ended without saying so).
    fn finish(self: Box<Self>, complete: bool) -> std::result::Result<ModelTurn, Failure>;
}

/// A tool call's argument text, parsed once complete. Text that is not JSON is kept as a string so
/// the call still gets its (error) result; an empty text means no arguments.
pub(crate) fn parse_arguments(raw: &str) -> serde_json::Value {
    if raw.trim().is_empty() {
        return serde_json::json!({});
    }
    serde_json::from_str(raw).unwrap_or_else(|_| serde_json::Value::String(raw.to_owned()))
}

/// Parses one event's JSON, naming the provider and event when it is not JSON.
pub(crate) fn json(event: &SseEvent, provider: &str) -> std::result::Result<serde_json::Value, Failure> {
    serde_json::from_str(&event.data).map_err(|e| {
        let shown: String = event.data.chars().take(120).collect();
        Failure::fatal(format!("{provider} sent a malformed stream event ({e}): {shown}"))
    })
}

/// The message of an error body in either provider's shape, else the body's start.
fn error_detail(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message").or_else(|| v.get("message")).and_then(|m| m.as_str()).map(str::to_owned)
    });
    message.unwrap_or_else(|| {
        let s: String = body.chars().take(200).collect();
        if s.trim().is_empty() { "no details".to_owned() } else { s }
    })
}

async fn read_capped(response: &mut reqwest::Response, idle: Duration, cap: usize) -> String {
    let mut body = Vec::new();
    while body.len() < cap {
        match tokio::time::timeout(idle, response.chunk()).await {
            Ok(Ok(Some(c))) => body.extend_from_slice(&c),
            _ => break,
        }
    }
    body.truncate(cap);
    String::from_utf8_lossy(&body).into_owned()
}

fn source_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(inner) = cur {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        cur = inner.source();
    }
    s
}
