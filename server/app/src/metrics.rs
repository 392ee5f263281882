//! Operations: the Prometheus metrics and the admin port (`--admin-listen`: `/metrics`,
//! `/healthz`, `/readyz`), apart from the API port so it can stay private.
//!
//! Every layer counts through the `metrics` facade (as it logs through `tracing`); this module
//! installs the recorder and renders it. What is counted where:
//! - RPCs (`aware_rpc_requests_total{method,code}`, `aware_rpc_duration_seconds{method}`,
//!   `aware_rpc_in_flight{method}` — open streams included): [`RpcMetricsLayer`] here, on the
//!   native gRPC side of grpc-web, reading the status from the trailers when a call ends;
//! - runs by phase (`aware_runs_active{phase}`): read from the run engine at each scrape;
//! - tool calls, confirmations, model tokens: the run driver (`aware-core`);
//! - the SQL worker pool (`aware_sql_workers{state}`, `aware_workers_retired_total{pool,cause}`):
//!   the pool (`aware-sandbox`).

use crate::grpc::State;
use axum::extract::State as Extract;
use axum::http::StatusCode;
use axum::routing::get;
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

/// The process-wide recorder (installed once; later calls return the same handle).
pub fn recorder() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0];
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &buckets)
                .expect("histogram buckets are not empty")
                .set_buckets_for_metric(
                    Matcher::Full("aware_run_commit_batch_size".into()),
                    &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0],
                )
                .expect("histogram buckets are not empty")
                .build_recorder();
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("a metrics recorder was already installed; /metrics shows only its own");
            }
            describe();
            handle
        })
        .clone()
}

fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram};
    describe_counter!("aware_rpc_requests_total", "RPCs finished, by method and gRPC code");
    describe_histogram!("aware_rpc_duration_seconds", "RPC duration by method (a stream: its whole life)");
    describe_gauge!("aware_rpc_in_flight", "RPCs in progress (open streams included), by method");
    describe_gauge!("aware_runs_active", "runs not yet completed, by phase");
    describe_counter!("aware_tool_calls_total", "tool calls finished, by tool and outcome");
    describe_counter!("aware_confirmations_total", "confirmations resolved, by outcome");
    describe_counter!("aware_model_tokens_total", "model tokens, by provider and kind (input/output)");
    describe_gauge!("aware_sql_workers", "SQL worker processes: alive, busy, warm");
    describe_counter!("aware_workers_retired_total", "Worker processes retired early, by pool and cause");
    describe_histogram!(
        "aware_run_commit_batch_size",
        "run writes (events, transcript, tool calls, progress, spans, completions) per group commit"
    );
}

/// The gRPC code's name for the `code` label.
fn code_name(code: &str) -> &'static str {
    match code.parse::<i32>().map(tonic::Code::from_i32) {
        Ok(tonic::Code::Ok) => "OK",
        Ok(tonic::Code::Cancelled) => "CANCELLED",
        Ok(tonic::Code::Unknown) => "UNKNOWN",
        Ok(tonic::Code::InvalidArgument) => "INVALID_ARGUMENT",
        Ok(tonic::Code::DeadlineExceeded) => "DEADLINE_EXCEEDED",
        Ok(tonic::Code::NotFound) => "NOT_FOUND",
        Ok(tonic::Code::AlreadyExists) => "ALREADY_EXISTS",
        Ok(tonic::Code::PermissionDenied) => "PERMISSION_DENIED",
        Ok(tonic::Code::ResourceExhausted) => "RESOURCE_EXHAUSTED",
        Ok(tonic::Code::FailedPrecondition) => "FAILED_PRECONDITION",
        Ok(tonic::Code::Aborted) => "ABORTED",
        Ok(tonic::Code::OutOfRange) => "OUT_OF_RANGE",
        Ok(tonic::Code::Unimplemented) => "UNIMPLEMENTED",
        Ok(tonic::Code::Internal) => "INTERNAL",
        Ok(tonic::Code::Unavailable) => "UNAVAILABLE",
        Ok(tonic::Code::DataLoss) => "DATA_LOSS",
        Ok(tonic::Code::Unauthenticated) => "UNAUTHENTICATED",
        Err(_) => "UNKNOWN",
    }
}

/// The `method` label: the gRPC path when it looks like one (`/package.Service/Method`), else
/// `other` — label values must not be whatever a client sends.
fn method_label(path: &str) -> String {
    let plausible = path.len() <= 128
        && path.starts_with('/')
        && path.matches('/').count() == 2
        && path[1..].chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '/');
    if plausible && (path.starts_with("/aware.v1.") || path.starts_with("/grpc.")) {
        path.to_owned()
    } else {
        "other".to_owned()
    }
}

/// Tower layer that counts RPCs (see the module docs).
#[derive(Clone, Copy, Default)]
pub struct RpcMetricsLayer;

impl<S> tower::Layer<S> for RpcMetricsLayer {
    type Service = RpcMetrics<S>;
    fn layer(&self, inner: S) -> Self::Service {
        RpcMetrics { inner }
    }
}

#[derive(Clone)]
pub struct RpcMetrics<S> {
    inner: S,
}

impl<S, B> tower::Service<http::Request<B>> for RpcMetrics<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>> + Send,
    S::Future: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let mut call = Call::start(method_label(request.uri().path()));
        // `otel.*` name the exported span after the method and mark it as the server side of a call.
        let span = tracing::info_span!("rpc", method = %call.method, otel.name = %call.method, otel.kind = "server");
        crate::telemetry::continue_caller_trace(&span, request.headers());
        let response = tracing::Instrument::instrument(self.inner.call(request), span);
        Box::pin(async move {
            let response = response.await?;
            // A trailers-only response (most errors) carries its status in the headers.
            if let Some(code) = response.headers().get("grpc-status").and_then(|v| v.to_str().ok()) {
                call.finish(code_name(code));
            }
            Ok(response.map(|body| tonic::body::Body::new(MeteredBody { inner: body, call })))
        })
    }
}

/// One RPC being counted: in flight from its start until its status is known or it is dropped
/// (a client that went away counts as CANCELLED).
struct Call {
    method: String,
    started: Instant,
    done: bool,
}

impl Call {
    fn start(method: String) -> Self {
        metrics::gauge!("aware_rpc_in_flight", "method" => method.clone()).increment(1.0);
        Self { method, started: Instant::now(), done: false }
    }

    fn finish(&mut self, code: &'static str) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let method = self.method.clone();
        metrics::gauge!("aware_rpc_in_flight", "method" => method.clone()).decrement(1.0);
        metrics::counter!("aware_rpc_requests_total", "method" => method.clone(), "code" => code).increment(1);
        metrics::histogram!("aware_rpc_duration_seconds", "method" => method)
            .record(self.started.elapsed().as_secs_f64());
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        self.finish("CANCELLED");
    }
}

struct MeteredBody {
    inner: tonic::body::Body,
    call: Call,
}

impl Body for MeteredBody {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        let this = &mut *self;
        let frame = Pin::new(&mut this.inner).poll_frame(cx);
        match &frame {
            Poll::Ready(Some(Ok(f))) => {
                if let Some(code) = f.trailers_ref().and_then(|t| t.get("grpc-status")).and_then(|v| v.to_str().ok()) {
                    this.call.finish(code_name(code));
                }
            }
            Poll::Ready(Some(Err(_))) => this.call.finish("INTERNAL"),
            Poll::Ready(None) => this.call.finish("OK"),
            Poll::Pending => {}
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[derive(Clone)]
struct Admin {
    handle: PrometheusHandle,
    state: State,
    ready: Arc<AtomicBool>,
}

/// Serves the admin port until `shutdown` resolves. `/readyz` answers 200 while `ready` is set
/// (the API accepts requests) and the database answers a query; 503 once draining starts, or
/// while the database does not answer (within 2 s).
pub async fn serve_admin(
    listener: tokio::net::TcpListener,
    state: State,
    ready: Arc<AtomicBool>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let admin = Admin { handle: recorder(), state, ready };
    let app = axum::Router::new()
        .route("/metrics", get(render))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .with_state(admin);
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}

async fn render(Extract(admin): Extract<Admin>) -> ([(http::header::HeaderName, &'static str); 1], String) {
    match admin.state.runs.phase_counts().await {
        Ok(counts) => {
            for (phase, n) in counts {
                metrics::gauge!("aware_runs_active", "phase" => phase.as_str()).set(n as f64);
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot count the queued runs for /metrics"),
    }
    ([(http::header::CONTENT_TYPE, "text/plain; version=0.0.4")], admin.handle.render())
}

async fn readyz(Extract(admin): Extract<Admin>) -> (StatusCode, &'static str) {
    if !admin.ready.load(Ordering::Relaxed) {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n");
    }
    match tokio::time::timeout(std::time::Duration::from_secs(2), admin.state.health.ping()).await {
        Ok(Ok(())) => (StatusCode::OK, "ready\n"),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "readiness: the database does not answer");
            (StatusCode::SERVICE_UNAVAILABLE, "database unavailable\n")
        }
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, "database unavailable\n"),
    }
}
