//! Operations: the admin port (`--admin-listen`) — health, readiness, and Prometheus metrics
//! that name what the server is doing and move with the traffic.
#![allow(clippy::unwrap_used)] // test helpers: a panic is the failure report

use aware_e2e::TestServer;
use aware_proto::v1 as pb;
use serde_json::json;
use std::collections::BTreeMap;

/// `name{labels}` (labels sorted, so order does not matter) → value, from the text format.
fn parse(text: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let Some((series, value)) = line.rsplit_once(' ') else { continue };
        let key = match series.split_once('{') {
            Some((name, labels)) => {
                let mut labels: Vec<&str> = labels.trim_end_matches('}').split(',').collect();
                labels.sort_unstable();
                format!("{name}{{{}}}", labels.join(","))
            }
            None => series.to_owned(),
        };
        out.insert(key, value.parse().unwrap_or(f64::NAN));
    }
    out
}

fn scrape(server: &TestServer) -> BTreeMap<String, f64> {
    let (status, body) = server.admin_get("/metrics");
    assert_eq!(status, 200, "{body}");
    parse(&body)
}

fn value(m: &BTreeMap<String, f64>, key: &str) -> f64 {
    m.get(key).copied().unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_port_reports_health_and_metrics_that_move_with_the_traffic() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let reply = |when: &str, tool: &str, args: serde_json::Value| {
        json!({"when": when, "turns": [
            {"tool_calls": [{"name": tool, "arguments": args}], "input_tokens": 30, "output_tokens": 5},
            {"chunks": ["Done."], "input_tokens": 40, "output_tokens": 2}
        ]})
    };
    let replies = json!({"replies": [
        reply("count", "run_sql_query", json!({"sql": "SELECT count(*) FROM customer_churn"})),
        reply("delete", "delete_dataset", json!({"dataset": "customer_churn"})),
    ]});
    std::fs::write(&script, replies.to_string()).unwrap();
    let server = TestServer::start_with_env(
        &["--admin-listen", "127.0.0.1:0"],
        &[("AWARE_AGENT__MODEL", "script"), ("AWARE_AGENT__SCRIPT", script.to_str().unwrap())],
    );
    assert_eq!(server.admin_get("/healthz"), (200, "ok\n".to_owned()));
    assert_eq!(server.admin_get("/readyz"), (200, "ready\n".to_owned()));
    assert_eq!(server.admin_get("/nope").0, 404);
    let before = scrape(&server);
    for phase in ["queued", "waiting_model", "streaming", "executing_tool", "awaiting_confirmation"] {
        assert_eq!(value(&before, &format!("aware_runs_active{{phase=\"{phase}\"}}")), 0.0, "{before:?}");
        assert!(before.contains_key(&format!("aware_runs_active{{phase=\"{phase}\"}}")));
    }

    // Traffic: a run with a SQL tool, a run whose delete waits for approval, refused calls.
    let client = server.client(None).await;
    let send = |id: &str, text: &str| {
        let message = pb::UserMessage { thread_id: format!("ops-{id}"), text: text.into(), on_busy: 0 };
        pb::SendMessageRequest { client_msg_id: id.into(), message: Some(message) }
    };
    let run = server.chat().await.send_message(send("m1", "count the rows")).await.unwrap().into_inner().run_id;
    aware_e2e::events::follow(&client, &run, aware_e2e::events::no_confirmation).await;
    let run = server.chat().await.send_message(send("m2", "delete it")).await.unwrap().into_inner().run_id;
    // While it waits for the approval, its StreamRun is an open stream and the run is counted.
    let mut watch = server
        .chat()
        .await
        .stream_run(pb::StreamRunRequest { run_id: run.clone(), after_seq: 0 })
        .await
        .unwrap()
        .into_inner();
    let mut confirmation = None;
    while confirmation.is_none() {
        let e = watch.message().await.unwrap().unwrap().event.unwrap();
        if let Some(pb::server_event::Payload::ConfirmationRequired(c)) = e.payload {
            confirmation = Some(c.confirmation_id);
        }
    }
    let waiting = scrape(&server);
    assert_eq!(value(&waiting, "aware_runs_active{phase=\"awaiting_confirmation\"}"), 1.0);
    assert!(value(&waiting, "aware_rpc_in_flight{method=\"/aware.v1.ChatService/StreamRun\"}") >= 1.0, "{waiting:?}");
    client.confirm(&confirmation.unwrap(), true).await.unwrap();
    while watch.message().await.unwrap().is_some() {}
    let bad = server.query().await.execute_sql(pb::ExecuteSqlRequest { sql: "DROP TABLE x".into(), limit: 0 }).await;
    assert_eq!(bad.unwrap_err().code(), tonic::Code::InvalidArgument);
    let missing = server
        .datasets()
        .await
        .get_dataset(pb::GetDatasetRequest { dataset_id: "ds_nope".into(), sample_rows: None })
        .await;
    assert_eq!(missing.unwrap_err().code(), tonic::Code::NotFound);

    let after = scrape(&server);
    let moved = |key: &str| value(&after, key) - value(&before, key);
    assert_eq!(moved("aware_rpc_requests_total{code=\"OK\",method=\"/aware.v1.ChatService/SendMessage\"}"), 2.0);
    assert_eq!(
        moved("aware_rpc_requests_total{code=\"INVALID_ARGUMENT\",method=\"/aware.v1.QueryService/ExecuteSql\"}"),
        1.0
    );
    assert_eq!(
        moved("aware_rpc_requests_total{code=\"NOT_FOUND\",method=\"/aware.v1.DatasetsService/GetDataset\"}"),
        1.0
    );
    assert!(moved("aware_rpc_duration_seconds_count{method=\"/aware.v1.ChatService/StreamRun\"}") >= 1.0, "{after:?}");
    assert_eq!(value(&after, "aware_rpc_in_flight{method=\"/aware.v1.ChatService/StreamRun\"}"), 0.0, "stream closed");
    assert_eq!(moved("aware_tool_calls_total{outcome=\"succeeded\",tool=\"run_sql_query\"}"), 1.0);
    assert_eq!(moved("aware_tool_calls_total{outcome=\"succeeded\",tool=\"delete_dataset\"}"), 1.0);
    assert_eq!(moved("aware_confirmations_total{outcome=\"approved\"}"), 1.0);
    assert_eq!(moved("aware_model_tokens_total{kind=\"input\",provider=\"script\"}"), 140.0);
    assert_eq!(moved("aware_model_tokens_total{kind=\"output\",provider=\"script\"}"), 14.0);
    assert!(value(&after, "aware_sql_workers{state=\"alive\"}") >= 1.0, "{after:?}");
    assert_eq!(value(&after, "aware_sql_workers{state=\"busy\"}"), 0.0);
    assert_eq!(value(&after, "aware_runs_active{phase=\"awaiting_confirmation\"}"), 0.0);
    let (_, text) = server.admin_get("/metrics");
    assert!(text.contains("# HELP aware_tool_calls_total"), "described for people");
    assert!(
        text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).all(|l| l.starts_with("aware_")),
        "every metric is aware_*"
    );
}
