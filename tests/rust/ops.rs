//! Operations: the admin port (`--admin-listen`) — health, readiness, and Prometheus metrics
//! that name what the server is doing and move with the traffic.
#![allow(clippy::unwrap_used)] // test helpers: a panic is the failure report

use aware_e2e::TestServer;
use aware_e2e::events::stored;
use aware_e2e::fake_llm::{FakeLlm, Reply};
use aware_proto::v1 as pb;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message as _;
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

/// A scripted model that answers "count …" with one SQL tool call over `customer_churn`, then "Counted."
fn count_rows_script() -> aware_e2e::ScriptFile {
    aware_e2e::ScriptFile::new(&json!({"replies": [{"when": "count", "turns": [
        {"tool_calls": [{"name": "run_sql_query", "arguments": {"sql": "SELECT count(*) FROM customer_churn"}}]},
        {"chunks": ["Counted."]}
    ]}]}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_port_reports_health_and_metrics_that_move_with_the_traffic() {
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
    let script = aware_e2e::ScriptFile::new(&replies);
    let server = TestServer::start_with_env(&["--admin-listen", "127.0.0.1:0"], &script.env());
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
    let run = client.send_message("ops-m1", "count the rows", "m1").await.unwrap().run_id;
    aware_e2e::events::follow(&client, &run, aware_e2e::events::no_confirmation).await;
    let run = client.send_message("ops-m2", "delete it", "m2").await.unwrap().run_id;
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
    let bad = server
        .query()
        .await
        .execute_sql(pb::ExecuteSqlRequest { sql: "DROP TABLE x".into(), limit: 0, ..Default::default() })
        .await;
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

/// What one `Chat` client saw: its run's events, whether the server said it was shutting down,
/// and how the stream ended.
#[derive(Default)]
struct Seen {
    events: Vec<pb::ServerEvent>,
    shutting_down: bool,
    ended: Option<tonic::Code>,
}

/// SIGTERM while one run streams its answer, one runs a tool and one waits for an approval:
/// every open stream is told (`ShuttingDown`, then UNAVAILABLE), the server exits cleanly
/// within the grace period after letting the running tool finish, and after the restart every
/// run completes — what the clients saw before is exactly the start of each log, and the tool that
/// was running reports its real outcome, not "unknown".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_active_runs_tells_the_streams_and_loses_nothing() {
    use pb::server_event::Payload as P;
    use prost::Message as _;
    let replies = json!({"replies": [
        {"when": "story", "turns": [{"chunks": vec!["once upon a time "; 80], "delay_ms": 25}]},
        {"when": "count", "turns": [
            {"tool_calls": [{"name": "run_sql_query", "arguments": {"sql": "SELECT count(*) FROM customer_churn"}}]},
            {"chunks": ["Counted."]}
        ]},
        {"when": "delete", "turns": [
            {"tool_calls": [{"name": "delete_dataset", "arguments": {"dataset": "support_tickets"}}]},
            {"chunks": ["Deleted."]}
        ]}
    ]});
    let script = aware_e2e::ScriptFile::new(&replies);
    let [model, script_path] = script.env();
    let env = [model, script_path, ("AWARE_AGENT__TOOL_DELAY_MS", "1500")];
    let mut server = TestServer::start_with_env(&[], &env);

    let mut clients = Vec::new();
    for (i, text) in ["tell me a story", "count the rows", "delete the tickets"].into_iter().enumerate() {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let message = pb::UserMessage { thread_id: format!("term-{i}"), text: text.into(), on_busy: 0 };
        tx.send(pb::ChatRequest {
            client_msg_id: format!("m{i}"),
            kind: Some(pb::chat_request::Kind::Message(message)),
        })
        .await
        .unwrap();
        let mut stream =
            server.chat().await.chat(tokio_stream::wrappers::ReceiverStream::new(rx)).await.unwrap().into_inner();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Seen::default()));
        let out = seen.clone();
        let reader = tokio::spawn(async move {
            let _open = tx; // never half-closed: only the server ends this stream
            loop {
                match stream.message().await {
                    Ok(Some(r)) => {
                        let e = r.event.unwrap();
                        let mut seen = out.lock().unwrap();
                        if matches!(e.payload, Some(P::ShuttingDown(_))) {
                            seen.shutting_down = true;
                        } else if e.seq > 0 {
                            seen.events.push(e);
                        }
                    }
                    Ok(None) => break out.lock().unwrap().ended = Some(tonic::Code::Ok),
                    Err(status) => break out.lock().unwrap().ended = Some(status.code()),
                }
            }
        });
        clients.push((seen, reader));
    }
    // Wait for the three situations: text streaming, a tool running, an approval pending.
    let has = |i: usize, f: &dyn Fn(&pb::ServerEvent) -> bool| clients[i].0.lock().unwrap().events.iter().any(f);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !(has(0, &|e| matches!(e.payload, Some(P::TextDelta(_))))
        && has(1, &|e| matches!(&e.payload, Some(P::ToolStatus(s)) if s.phase == pb::ToolPhase::Running as i32))
        && has(2, &|e| matches!(e.payload, Some(P::ConfirmationRequired(_)))))
    {
        assert!(std::time::Instant::now() < deadline, "the runs did not reach their states");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }

    let started = std::time::Instant::now();
    assert!(server.stop(), "SIGTERM ends the process cleanly");
    let took = started.elapsed();
    println!("SIGTERM → exit: {} ms", took.as_millis());
    assert!(took < std::time::Duration::from_secs(10), "within the grace period");
    let mut before = Vec::new();
    for (seen, reader) in clients {
        reader.await.unwrap();
        let seen = std::mem::take(&mut *seen.lock().unwrap());
        assert!(seen.shutting_down, "every open stream was told");
        assert_eq!(seen.ended, Some(tonic::Code::Unavailable), "and ended UNAVAILABLE");
        before.push(seen.events);
    }

    server.restart(&[], &env);
    let client = server.client(None).await;
    let mut after = Vec::new();
    for seen in &before {
        let run_id = seen[0].run_id.clone();
        let all = aware_e2e::events::follow(&client, &run_id, |_| true).await;
        for (n, e) in all.iter().enumerate() {
            assert_eq!(e.seq, n as u64 + 1, "seq 1..n once each");
        }
        assert!(matches!(all.last().unwrap().payload, Some(P::RunCompleted(_))));
        for (a, b) in seen.iter().zip(&all) {
            assert_eq!(a.encode_to_vec(), b.encode_to_vec(), "seq {} is what the client saw before", a.seq);
        }
        after.push(all);
    }
    let result = |events: &[pb::ServerEvent]| {
        events
            .iter()
            .find_map(|e| match &e.payload {
                Some(P::ToolResult(r)) => Some(r.clone()),
                _ => None,
            })
            .unwrap()
    };
    let counted = result(&after[1]);
    assert!(!counted.is_error, "the tool running at SIGTERM finished: {}", counted.llm_summary);
    let deleted = result(&after[2]);
    assert!(!deleted.is_error, "approved after the restart: {}", deleted.llm_summary);
    let text: String = after[0]
        .iter()
        .filter_map(|e| match &e.payload {
            Some(P::TextDelta(d)) => Some(d.delta.as_str()),
            _ => None,
        })
        .collect();
    assert!(text.starts_with("once upon a time"), "the story completed: {} chars", text.len());
}

/// Per-user limits: a user who floods the API is refused with RESOURCE_EXHAUSTED and told when
/// to retry, while another user's calls all succeed; a user cannot hold more streams than the cap,
/// and a closed stream frees its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_over_the_limits_is_told_to_retry_and_another_user_is_not_affected() {
    use aware_e2e::{add_user, authed, reason};
    use tonic_types::StatusExt;
    let server = TestServer::start_with_env(
        &["--auth", "api-key", "--no-samples"],
        &[
            ("AWARE_LIMITS__REQUESTS_PER_SECOND_PER_USER", "20"),
            ("AWARE_LIMITS__REQUEST_BURST_PER_USER", "20"),
            ("AWARE_LIMITS__MAX_STREAMS_PER_USER", "3"),
        ],
    );
    let flooder = add_user(&server.data_dir, "flo", "analyst", &[]);
    let other = add_user(&server.data_dir, "ola", "analyst", &[]);

    // 200 calls at once from one user: the burst passes, the rest are refused with a hint.
    let channel = server.channel().await;
    let calls: Vec<_> = (0..200)
        .map(|_| {
            let (channel, token) = (channel.clone(), flooder.clone());
            tokio::spawn(async move {
                let mut c = pb::datasets_service_client::DatasetsServiceClient::new(channel);
                c.list_datasets(authed(pb::ListDatasetsRequest::default(), &token)).await
            })
        })
        .collect();
    let (mut ok, mut refused) = (0, 0);
    for call in calls {
        match call.await.unwrap() {
            Ok(_) => ok += 1,
            Err(e) => {
                assert_eq!((e.code(), reason(&e).as_str()), (tonic::Code::ResourceExhausted, "RESOURCE_EXHAUSTED"));
                let retry = e.get_details_retry_info().and_then(|r| r.retry_delay).expect("a RetryInfo");
                assert!(retry > std::time::Duration::ZERO && retry <= std::time::Duration::from_secs(1), "{retry:?}");
                assert!(e.message().contains("retry in"), "{}", e.message());
                refused += 1;
            }
        }
    }
    println!("flood of 200: {ok} answered, {refused} refused");
    assert!((20..60).contains(&ok), "about the burst passes: {ok}");
    assert_eq!(ok + refused, 200);
    // The other user, at the same moment, is untouched.
    let mut c = server.datasets().await;
    for _ in 0..15 {
        c.list_datasets(authed(pb::ListDatasetsRequest::default(), &other)).await.expect("another user's call");
    }
    // After the hint's wait the flooder is served again.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    c.list_datasets(authed(pb::ListDatasetsRequest::default(), &flooder)).await.expect("served again after waiting");

    // Streams: three open, the fourth refused, one closed frees a place.
    let open = |token: String| {
        let channel = channel.clone();
        async move {
            let (tx, rx) = tokio::sync::mpsc::channel::<pb::ChatRequest>(1);
            let mut chat = pb::chat_service_client::ChatServiceClient::new(channel);
            let stream = chat.chat(authed(tokio_stream::wrappers::ReceiverStream::new(rx), &token)).await;
            (tx, stream)
        }
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let (tx, stream) = open(other.clone()).await;
        held.push((tx, stream.expect("within the stream cap")));
    }
    let (_tx, fourth) = open(other.clone()).await;
    let e = fourth.expect_err("the fourth stream is refused");
    assert_eq!(e.code(), tonic::Code::ResourceExhausted);
    assert!(e.message().contains("streams open"), "{}", e.message());
    drop(held.pop());
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let (_tx, again) = open(other.clone()).await;
    again.expect("a closed stream frees its place");
    let (_tx, theirs) = open(flooder.clone()).await;
    theirs.expect("the cap is per user");
}

/// `--log-format json`: one JSON object per line, and a line as each span closes — the RPC, the
/// run (with its run_id, user and thread), each model call, tool call and SQL execution — with
/// its busy and idle time, so an operator can follow one run through the logs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_trace_a_run_through_its_rpc_model_calls_tools_and_sql() {
    let script = count_rows_script();
    let mut server = TestServer::start_with_env(&["--log-format", "json"], &script.env());
    let client = server.client(None).await;
    let run_id = client.send_message("traced", "count the rows", "t1").await.unwrap().run_id;
    aware_e2e::events::follow(&client, &run_id, aware_e2e::events::no_confirmation).await;
    assert!(server.stop());

    let lines: Vec<serde_json::Value> = server
        .logs()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let closed = |name: &str| -> Vec<&serde_json::Value> {
        lines.iter().filter(|l| l["fields"]["message"] == "close" && l["span"]["name"] == name).collect()
    };
    let run = closed("run");
    let run = run.iter().find(|l| l["span"]["run_id"] == run_id.as_str()).expect("the run's span closed");
    assert_eq!(run["span"]["thread"].as_str().map(|t| !t.is_empty()), Some(true), "{run}");
    assert_eq!(run["span"]["user"], "usr_local");
    assert!(run["fields"]["time.busy"].is_string(), "{run}");
    assert_eq!(closed("model_call").len(), 2, "two model turns");
    let tool = closed("tool_call");
    assert_eq!(tool.len(), 1);
    assert_eq!(tool[0]["span"]["tool"], "run_sql_query");
    let sql = closed("sql");
    assert_eq!(sql[0]["span"]["parent"], format!("Some(\"{run_id}\")"), "the SQL names its run");
    assert!(
        closed("rpc").iter().any(|l| l["span"]["method"] == "/aware.v1.ChatService/SendMessage"),
        "RPCs are spans too"
    );
    // The RPC's span closes with the RPC, long before the run it started ends.
    let position = |pred: &dyn Fn(&serde_json::Value) -> bool| lines.iter().position(pred).expect("a close line");
    let send_closed =
        position(&|l| l["fields"]["message"] == "close" && l["span"]["method"] == "/aware.v1.ChatService/SendMessage");
    let run_closed = position(&|l| l["fields"]["message"] == "close" && l["span"]["run_id"] == run_id.as_str());
    assert!(send_closed < run_closed, "SendMessage's span closed at line {send_closed}, the run's at {run_closed}");
}

/// `aware-server gc` with zero-day retention deletes the events and spans of runs that ended and
/// the audit log — and leaves alone a run that is still waiting for an approval, which then
/// completes after the restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gc_deletes_what_retention_lets_go_and_never_what_an_unfinished_run_needs() {
    let replies = json!({"replies": [
        {"when": "hello", "turns": [{"chunks": ["Hello."]}]},
        {"when": "delete", "turns": [
            {"tool_calls": [{"name": "delete_dataset", "arguments": {"dataset": "support_tickets"}}]},
            {"chunks": ["Deleted."]}
        ]}
    ]});
    let script = aware_e2e::ScriptFile::new(&replies);
    let env = script.env();
    let mut server = TestServer::start_with_env(&[], &env);
    let client = server.client(None).await;
    let done = client.send_message("gc-a", "hello", "a").await.unwrap().run_id;
    aware_e2e::events::follow(&client, &done, aware_e2e::events::no_confirmation).await;
    let waiting = client.send_message("gc-b", "delete it", "b").await.unwrap().run_id;
    let mut pending = stored(&server, &waiting).await;
    while !pending.iter().any(|e| matches!(e.payload, Some(pb::server_event::Payload::ConfirmationRequired(_)))) {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        pending = stored(&server, &waiting).await;
    }
    assert!(server.stop());

    let out = std::process::Command::new(aware_e2e::server_bin())
        .args(["gc", "--events-days", "0", "--traces-days", "0", "--audit-days", "0", "--data-dir"])
        .arg(&server.data_dir)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.starts_with("Deleted ") && !said.starts_with("Deleted 0 events"), "{said}");

    server.restart(&[], &env);
    assert!(stored(&server, &done).await.is_empty(), "the finished run's events are gone");
    let trace = server.runs().await.get_run_trace(pb::GetRunTraceRequest { run_id: done.clone() }).await.unwrap();
    assert!(trace.into_inner().spans.is_empty(), "and its spans");
    let store = aware_e2e::storage::open(&server.data_dir).await;
    assert!(store.audit_trail(&aware_domain::ids::UserId::local()).await.unwrap().is_empty(), "the audit log too");
    assert_eq!(stored(&server, &waiting).await, pending, "the waiting run's log is untouched");
    let client = server.client(None).await;
    let rest = aware_e2e::events::follow(&client, &waiting, |_| true).await;
    assert!(matches!(rest.last().unwrap().payload, Some(pb::server_event::Payload::RunCompleted(_))));
    assert_eq!(rest.len() as u64, rest.last().unwrap().seq, "the whole log, from seq 1");
}

/// Every span the collector received, with its service name.
fn exported_spans(collector: &FakeLlm) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    for r in collector.requests() {
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/traces"));
        assert_eq!(r.header("content-type"), Some("application/x-protobuf"));
        let export = ExportTraceServiceRequest::decode(r.raw.as_slice()).expect("an OTLP protobuf body");
        for resource in export.resource_spans {
            let service = resource
                .resource
                .iter()
                .flat_map(|r| &r.attributes)
                .find(|a| a.key == "service.name")
                .map(|a| attribute_text(a.value.as_ref()))
                .unwrap_or_default();
            for scope in resource.scope_spans {
                out.extend(scope.spans.into_iter().map(|s| (service.clone(), s)));
            }
        }
    }
    out
}

fn attribute_text(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

fn attribute(span: &Span, key: &str) -> String {
    span.attributes.iter().find(|a| a.key == key).map(|a| attribute_text(a.value.as_ref())).unwrap_or_default()
}

/// With `telemetry.otlp_endpoint` set, spans reach an OTLP/HTTP collector as protobuf: each run is
/// one trace (its model calls, its tool call and that tool's SQL inside it) linked to the RPC that
/// started it; an RPC that carries a W3C `traceparent` joins the caller's trace; SIGTERM sends
/// what is still buffered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_export_sends_each_runs_trace_to_the_collector() {
    let collector = FakeLlm::start(|_, _| Reply::status(200, json!({}))).await;
    let script = count_rows_script();
    let endpoint = collector.url();
    let mut env = script.env().to_vec();
    env.extend([("AWARE_TELEMETRY__OTLP_ENDPOINT", endpoint.as_str()), ("AWARE_TELEMETRY__SERVICE_NAME", "aware-e2e")]);
    let mut server = TestServer::start_with_env(&[], &env);
    let client = server.client(None).await;
    let run_id = client.send_message("exported", "count the rows", "x1").await.unwrap().run_id;
    aware_e2e::events::follow(&client, &run_id, aware_e2e::events::no_confirmation).await;
    // A run started over a Chat stream (half-closed: it ends when the run does).
    let chat_message = pb::ChatRequest {
        client_msg_id: "x2".into(),
        kind: Some(pb::chat_request::Kind::Message(pb::UserMessage {
            thread_id: "exported-chat".into(),
            text: "count the rows again".into(),
            on_busy: 0,
        })),
    };
    let mut chat = server.chat().await.chat(tokio_stream::iter([chat_message])).await.unwrap().into_inner();
    let mut chat_run = String::new();
    while let Some(response) = chat.message().await.unwrap() {
        if let Some(pb::server_event::Payload::RunStarted(_)) = response.event.as_ref().and_then(|e| e.payload.as_ref())
        {
            chat_run = response.event.unwrap().run_id;
        }
    }
    let mut traced = tonic::Request::new(pb::ListDatasetsRequest::default());
    let caller_trace = "0af7651916cd43dd8448eb211c80319c";
    let caller_span = "b7ad6b7169203331";
    traced.metadata_mut().insert("traceparent", format!("00-{caller_trace}-{caller_span}-01").parse().unwrap());
    server.datasets().await.list_datasets(traced).await.unwrap();
    // The batch goes out every 5 s; this test is over sooner, so what arrives was sent at SIGTERM.
    assert!(server.stop());

    let spans = exported_spans(&collector);
    assert!(spans.iter().all(|(service, _)| service == "aware-e2e"), "service.name is the configured one");
    let spans: Vec<Span> = spans.into_iter().map(|(_, s)| s).collect();
    let named = |name: &'static str| spans.iter().filter(move |s| s.name == name);
    let run = named("run").find(|s| attribute(s, "run_id") == run_id).expect("the run's span was exported");
    assert_eq!(attribute(run, "user"), "usr_local");
    assert!(!attribute(run, "thread").is_empty());
    assert!(run.parent_span_id.is_empty(), "a run is its own trace: it outlives the RPC that started it");
    let send = named("/aware.v1.ChatService/SendMessage").next().expect("the SendMessage RPC span");
    assert_eq!(send.kind, SpanKind::Server as i32);
    assert!(
        run.links.iter().any(|l| l.trace_id == send.trace_id && l.span_id == send.span_id),
        "the run links to the RPC that started it: {:?}",
        run.links
    );
    let by_chat = named("run").find(|s| attribute(s, "run_id") == chat_run).expect("the Chat run's span");
    let chat_span = named("/aware.v1.ChatService/Chat").next().expect("the Chat RPC span");
    assert!(
        by_chat.links.iter().any(|l| l.span_id == chat_span.span_id),
        "a run started over Chat links to the Chat call: {:?}",
        by_chat.links
    );
    let in_run = |s: &&Span| s.trace_id == run.trace_id;
    assert_eq!(named("model_call").filter(in_run).count(), 2, "two model turns in the run's trace");
    let tool = named("tool_call").find(in_run).expect("the tool call in the run's trace");
    assert_eq!(attribute(tool, "tool"), "run_sql_query");
    assert_eq!(tool.parent_span_id, run.span_id);
    let sql = named("sql").find(in_run).expect("the tool's SQL in the run's trace");
    let parent_of = |s: &Span| spans.iter().find(|p| p.span_id == s.parent_span_id);
    let mut ancestors = std::iter::successors(parent_of(sql), |s| parent_of(s));
    assert!(ancestors.any(|a| a.span_id == tool.span_id), "the SQL runs inside the tool call");
    assert!(sql.end_time_unix_nano >= sql.start_time_unix_nano && sql.start_time_unix_nano > 0);

    let listed = named("/aware.v1.DatasetsService/ListDatasets").next().expect("the traced RPC");
    assert_eq!(hex::encode(&listed.trace_id), caller_trace, "the RPC joined the caller's trace");
    assert_eq!(hex::encode(&listed.parent_span_id), caller_span);
}

/// A collector that is down costs the spans, nothing else: runs complete, the server stops on
/// time, and the log says why nothing arrived.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collector_that_is_down_loses_spans_but_not_the_service() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let script = count_rows_script();
    let mut env = script.env().to_vec();
    env.push(("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()));
    let mut server = TestServer::start_with_env(&[], &env);
    let client = server.client(None).await;
    let run_id = client.send_message("lost", "count the rows", "d1").await.unwrap().run_id;
    let events = aware_e2e::events::follow(&client, &run_id, aware_e2e::events::no_confirmation).await;
    assert!(
        matches!(events.last().and_then(|e| e.payload.as_ref()), Some(pb::server_event::Payload::RunCompleted(_))),
        "the run completed"
    );
    assert_eq!(stored(&server, &run_id).await.last().map(|e| e.seq), events.last().map(|e| e.seq));
    let started = std::time::Instant::now();
    assert!(server.stop());
    println!("stop with the collector down: {} ms", started.elapsed().as_millis());
    let logs = server.logs();
    assert!(logs.contains("exporting traces over OTLP/HTTP"), "{logs}");
    assert!(logs.contains("ExportError"), "the failed export is logged: {logs}");
}

/// Per-user fairness on the shared worker pools: with one SQL slot per user, a user who floods
/// with slow queries gets one running, one waiting (for a bounded time) and the rest refused at
/// once — RESOURCE_EXHAUSTED with a RetryInfo — while another user's `SELECT 1` is served from
/// the slot the flood cannot take, before the flood's query is over. Uploads likewise: a user's
/// ingestion queue full, their next upload is refused before its bytes are read, and another
/// user uploads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_user_keeps_to_their_share_of_the_workers_and_others_are_served() {
    use aware_e2e::{add_user, authed, reason};
    use tonic_types::StatusExt;
    let server = TestServer::start_with_env(
        &["--auth", "api-key", "--no-samples"],
        &[
            ("AWARE_SANDBOX__WORKERS", "2"),
            ("AWARE_SANDBOX__MAX_QUERIES_PER_USER", "1"),
            ("AWARE_SANDBOX__QUEUE_WAIT_MS", "300"),
            ("AWARE_SANDBOX__TIMEOUT_MS", "4000"),
            ("AWARE_LIMITS__MAX_QUEUED_PER_USER", "1"),
        ],
    );
    let flooder = add_user(&server.data_dir, "flooder", "viewer", &[]);
    let neighbour = add_user(&server.data_dir, "neighbour", "analyst", &[]);
    let sql = |token: &str, text: &str| {
        let (url, token, text) = (server.url(), token.to_owned(), text.to_owned());
        tokio::spawn(async move {
            let mut query = pb::query_service_client::QueryServiceClient::connect(url).await.unwrap();
            query.execute_sql(authed(pb::ExecuteSqlRequest { sql: text, limit: 0, ..Default::default() }, &token)).await
        })
    };
    let slow =
        "SELECT count(*) FROM range(1000000) a(x), range(99) b(y) WHERE sha256(CAST(a.x * b.y AS VARCHAR)) < '0'";
    let running = sql(&flooder, slow);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let extra: Vec<_> = (0..2).map(|_| sql(&flooder, slow)).collect();
    let theirs = sql(&neighbour, "SELECT 1 AS one").await.unwrap().expect("the other user is served");
    assert_eq!(theirs.into_inner().table.unwrap().rows.len(), 1);
    assert!(!running.is_finished(), "served while the flood's own query still runs");
    for call in extra {
        let e = call.await.unwrap().expect_err("over the flooder's share and queue");
        assert_eq!((e.code(), reason(&e).as_str()), (tonic::Code::ResourceExhausted, "RESOURCE_EXHAUSTED"), "{e:?}");
        let retry = e.get_details_retry_info().and_then(|r| r.retry_delay).expect("a RetryInfo");
        assert!(retry > std::time::Duration::ZERO, "{retry:?}");
        assert!(e.message().contains("SQL queries") && e.message().contains("retry in"), "{}", e.message());
    }
    let _ = running.await.unwrap();

    // Ingestion: one slot per user and one waiting; an upload stream holds its place from its
    // first message, so the flooder's third is refused before a byte of it is read.
    let open = |token: &str, name: &str| {
        let (url, token, name) = (server.url(), token.to_owned(), name.to_owned());
        let (tx, rx) = tokio::sync::mpsc::channel::<pb::UploadDatasetRequest>(1);
        let call = tokio::spawn(async move {
            use tokio_stream::StreamExt as _;
            let first = pb::UploadDatasetRequest { filename: name, chunk: "a,b\n".into(), ..Default::default() };
            let stream = tokio_stream::iter([first]).chain(tokio_stream::wrappers::ReceiverStream::new(rx));
            let mut client = pb::datasets_service_client::DatasetsServiceClient::connect(url).await.unwrap();
            client.upload_dataset(authed(stream, &token)).await
        });
        (tx, call)
    };
    let flooder = add_user(&server.data_dir, "uploader", "analyst", &[]);
    let held: Vec<_> = (0..2).map(|i| open(&flooder, &format!("held{i}.csv"))).collect();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let (_tx, third) = open(&flooder, "third.csv");
    let e = third.await.unwrap().expect_err("the flooder's ingestion queue is full");
    assert_eq!(e.code(), tonic::Code::ResourceExhausted, "{e:?}");
    assert!(e.message().contains("ingestions"), "{}", e.message());
    assert!(e.get_details_retry_info().is_some());
    let (tx, call) = open(&neighbour, "neighbour.csv");
    tx.send(pb::UploadDatasetRequest { chunk: "1,2\n".into(), ..Default::default() }).await.unwrap();
    drop(tx);
    let d = call.await.unwrap().expect("the other user's upload").into_inner().dataset.unwrap();
    assert_eq!((d.table_name.as_str(), d.row_count), ("neighbour", 1));
    drop(held);
}

/// `--auth local` asks for the local token when the server listens beyond loopback (anyone who
/// can reach the port would otherwise be the local admin), and when `local_credential =
/// "required"`; the token is made once, in a file only its owner may read.
#[tokio::test]
async fn local_mode_beyond_loopback_asks_for_the_local_token() {
    use aware_e2e::authed;
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let server = TestServer::start_at(&tmp.path().join("data"), "0.0.0.0:0", &["--no-samples"], &[]);
    let token_file = server.data_dir.join("local-token");
    let token = std::fs::read_to_string(&token_file).expect("the token file is made").trim().to_owned();
    assert_eq!(std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777, 0o600);
    let mut client = server.datasets().await;
    let err = client.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::Unauthenticated, "{err:?}");
    let err = client.list_datasets(authed(pb::ListDatasetsRequest::default(), "aw_wrong")).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::Unauthenticated);
    assert!(err.message().contains("local-token"), "says where the token is: {}", err.message());
    client.list_datasets(authed(pb::ListDatasetsRequest::default(), &token)).await.expect("with the token");

    let required = TestServer::start_with_env(&["--no-samples"], &[("AWARE_LOCAL_CREDENTIAL", "required")]);
    let err = required.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::Unauthenticated, "required on loopback too");
    let plain = TestServer::start(&["--no-samples"]);
    plain.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.expect("loopback: no token");
}
