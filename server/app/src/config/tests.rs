//! Loading the layers in order, and the checks that refuse bad values.

use super::*;

#[test]
#[allow(clippy::result_large_err)] // figment::Jail's own error type
fn layers_apply_in_order_and_bad_values_are_refused() {
    figment::Jail::expect_with(|jail| {
        jail.create_file(
            "aware.toml",
            "listen = \"127.0.0.1:7000\"\nauth = \"api-key\"\n[limits]\nmax_upload_mb = 64\n",
        )?;
        jail.set_env("AWARE_LISTEN", "127.0.0.1:7001");
        jail.set_env("AWARE_INGEST__THREADS", "3");
        let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
        assert_eq!(c.listen, "127.0.0.1:7001", "env beats the file");
        assert_eq!(c.auth, AuthMode::ApiKey, "the file beats defaults");
        assert_eq!(c.limits.max_upload_mb, 64);
        assert_eq!(c.ingest.threads, 3);
        let flags = Overrides { listen: Some("127.0.0.1:0".into()), ..Overrides::default() };
        let c = Config::load(None, &flags).map_err(|e| e.to_string())?;
        assert_eq!(c.listen, "127.0.0.1:0", "flags beat env");

        jail.set_env("AWARE_LISTEN", "nonsense");
        let err = Config::load(None, &Overrides::default()).unwrap_err().to_string();
        assert!(err.contains("HOST:PORT"), "{err}");
        jail.set_env("AWARE_LISTEN", "127.0.0.1:1");
        jail.set_env("AWARE_LIMITS__MAX_MESSAGE_MB", "0");
        assert!(Config::load(None, &Overrides::default()).is_err());
        jail.set_env("AWARE_LIMITS__MAX_MESSAGE_MB", "8");
        jail.create_file("aware.toml", "unknown_key = 1\n")?;
        let err = Config::load(None, &Overrides::default()).unwrap_err().to_string();
        assert!(err.contains("unknown_key"), "typos are reported: {err}");
        Ok(())
    });
}

#[test]
fn the_local_token_is_asked_for_beyond_loopback_unless_configured_otherwise() {
    let with = |listen: &str, credential| Config {
        listen: listen.to_owned(),
        local_credential: credential,
        ..Config::default()
    };
    assert!(!with("127.0.0.1:50051", LocalCredential::Auto).local_token_required());
    assert!(!with("[::1]:50051", LocalCredential::Auto).local_token_required());
    assert!(with("0.0.0.0:50051", LocalCredential::Auto).local_token_required());
    assert!(with("192.168.1.5:50051", LocalCredential::Auto).local_token_required());
    assert!(with("127.0.0.1:50051", LocalCredential::Required).local_token_required());
    assert!(!with("0.0.0.0:50051", LocalCredential::Off).local_token_required());
    let api_key = Config { auth: AuthMode::ApiKey, ..with("0.0.0.0:1", LocalCredential::Required) };
    assert!(!api_key.local_token_required(), "API keys are credentials already");
    let bad = Config { allowed_hosts: vec!["https://x.example".into()], ..Config::default() };
    assert!(bad.validate().unwrap_err().to_string().contains("allowed_hosts"));
}

#[test]
#[allow(clippy::result_large_err)] // figment::Jail's own error type
fn the_otlp_endpoint_comes_from_aware_settings_or_the_standard_otel_variable() {
    figment::Jail::expect_with(|jail| {
        jail.clear_env();
        let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
        assert_eq!(c.telemetry.otlp_endpoint, None, "off by default");
        jail.set_env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318");
        let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
        assert_eq!(c.telemetry.otlp_endpoint.as_deref(), Some("http://collector:4318"));
        jail.set_env("AWARE_TELEMETRY__OTLP_ENDPOINT", "https://otel.example:443");
        let c = Config::load(None, &Overrides::default()).map_err(|e| e.to_string())?;
        assert_eq!(c.telemetry.otlp_endpoint.as_deref(), Some("https://otel.example:443"), "ours wins");
        jail.set_env("AWARE_TELEMETRY__OTLP_ENDPOINT", "collector:4318");
        let err = Config::load(None, &Overrides::default()).unwrap_err().to_string();
        assert!(err.contains("telemetry.otlp_endpoint"), "{err}");
        jail.set_env("AWARE_TELEMETRY__OTLP_ENDPOINT", "http://collector:4318");
        jail.set_env("AWARE_TELEMETRY__SAMPLE_RATIO", "1.5");
        let err = Config::load(None, &Overrides::default()).unwrap_err().to_string();
        assert!(err.contains("sample_ratio"), "{err}");
        Ok(())
    });
}
