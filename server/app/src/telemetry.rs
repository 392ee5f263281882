//! Logging and trace export: the `tracing` subscriber (text or JSON on stderr, filtered by
//! `log_level`) and, when `telemetry.otlp_endpoint` is set, an OpenTelemetry layer that sends the
//! same spans — rpc, run, model_call, tool_call, confirmation_wait, sql — to an OTLP/HTTP collector.
//! Export runs on its own thread in batches; a slow or absent collector costs dropped spans, never
//! a slower RPC. `log_level` filters what is exported as well as what is logged.

use crate::config::{Config, LogFormat};
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use std::time::Duration;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Keeps the exporter alive; [`Telemetry::shutdown`] sends what is still buffered.
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
    timeout: Duration,
}

/// Installs the global subscriber. Call once, before serving.
pub fn init(config: &Config) -> anyhow::Result<Telemetry> {
    let provider = config.telemetry.otlp_endpoint.as_deref().map(|endpoint| exporter(config, endpoint)).transpose()?;
    let otel = provider.as_ref().map(|p| tracing_opentelemetry::layer().with_tracer(p.tracer("aware-server")));
    let filter = tracing_subscriber::EnvFilter::new(&config.log_level);
    let registry = tracing_subscriber::registry().with(filter).with(otel);
    // Colour only for a person at a terminal; a log file or a pipe gets plain text.
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match config.log_format {
        // JSON logs carry each event's spans (rpc, run with run_id/user/thread, model_call,
        // tool_call, confirmation_wait, sql) and a line when each span closes, with its time.
        LogFormat::Json => registry
            .with(
                fmt.json()
                    .with_current_span(true)
                    .with_span_list(true)
                    .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE),
            )
            .try_init(),
        LogFormat::Text => registry.with(fmt).try_init(),
    }
    .map_err(|e| anyhow::anyhow!("cannot install the log subscriber: {e}"))?;
    if let Some(endpoint) = &config.telemetry.otlp_endpoint {
        tracing::info!(endpoint = %endpoint, "exporting traces over OTLP/HTTP");
    }
    Ok(Telemetry { provider, timeout: Duration::from_secs(config.telemetry.otlp_timeout_secs) })
}

fn exporter(config: &Config, endpoint: &str) -> anyhow::Result<SdkTracerProvider> {
    let t = &config.telemetry;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(traces_url(endpoint))
        .with_timeout(Duration::from_secs(t.otlp_timeout_secs))
        .with_headers(t.otlp_headers.clone().into_iter().collect())
        .build()
        .map_err(|e| anyhow::anyhow!("telemetry.otlp_endpoint {endpoint:?}: {e}"))?;
    // A caller's `traceparent` decides for its trace; new traces are sampled at the ratio.
    opentelemetry::global::set_text_map_propagator(opentelemetry_sdk::propagation::TraceContextPropagator::new());
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(t.sample_ratio))))
        .with_resource(opentelemetry_sdk::Resource::builder().with_service_name(t.service_name.clone()).build())
        .build())
}

/// `<base>/v1/traces`, or the URL as given when it already names the traces path.
fn traces_url(endpoint: &str) -> String {
    let base = endpoint.trim_end_matches('/');
    if base.ends_with("/v1/traces") { base.to_owned() } else { format!("{base}/v1/traces") }
}

impl Telemetry {
    /// Sends the spans still buffered, waiting at most the export timeout. Blocking: call it off
    /// the async workers.
    pub fn shutdown(self) {
        if let Some(provider) = self.provider
            && let Err(e) = provider.shutdown_with_timeout(self.timeout)
        {
            eprintln!("aware-server: the last trace export failed: {e}");
        }
    }
}

/// Makes `span` a child of the caller's trace when the request carries a W3C `traceparent`
/// (only while export is on; otherwise nothing is read).
pub fn continue_caller_trace(span: &tracing::Span, headers: &http::HeaderMap) {
    if !headers.contains_key("traceparent") {
        return;
    }
    let cx =
        opentelemetry::global::get_text_map_propagator(|p| p.extract(&opentelemetry_http::HeaderExtractor(headers)));
    if cx.span().span_context().is_valid() {
        // Fails only when no OpenTelemetry layer is installed: then there is no trace to join.
        let _ = span.set_parent(cx);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_traces_path_is_added_once() {
        assert_eq!(super::traces_url("http://c:4318"), "http://c:4318/v1/traces");
        assert_eq!(super::traces_url("http://c:4318/"), "http://c:4318/v1/traces");
        assert_eq!(super::traces_url("https://c/otlp/v1/traces"), "https://c/otlp/v1/traces");
    }
}
