//! `[telemetry]`: OpenTelemetry export of the trace spans.

use serde::{Deserialize, Serialize};

/// OpenTelemetry export of the trace spans (rpc, run, model_call, tool_call, confirmation_wait,
/// sql). Off unless an endpoint is set here, as `AWARE_TELEMETRY__OTLP_ENDPOINT`, or as the
/// standard `OTEL_EXPORTER_OTLP_ENDPOINT`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Telemetry {
    /// Base URL of an OTLP/HTTP collector, e.g. `http://127.0.0.1:4318`; spans are sent as
    /// protobuf to `<endpoint>/v1/traces`.
    pub otlp_endpoint: Option<String>,
    /// Extra headers on every export, e.g. a vendor's API key.
    pub otlp_headers: std::collections::BTreeMap<String, String>,
    /// Seconds one export may take before it is abandoned (the spans are dropped, never the server).
    pub otlp_timeout_secs: u64,
    /// The `service.name` resource attribute.
    pub service_name: String,
    /// Share of new traces recorded, 0.0 to 1.0; a caller's `traceparent` decision is followed.
    pub sample_ratio: f64,
}

impl Default for Telemetry {
    fn default() -> Self {
        Self {
            otlp_endpoint: None,
            otlp_headers: std::collections::BTreeMap::new(),
            otlp_timeout_secs: 5,
            service_name: "aware-server".to_owned(),
            sample_ratio: 1.0,
        }
    }
}
