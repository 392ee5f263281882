//! The SQL sandbox end to end: the attack corpus and the legitimate queries of
//! `tests/corpus/sql.jsonl` through the public `ExecuteSql` RPC (answers checked against an
//! in-process DuckDB oracle over the same files), QueryPlans, run capsules, and the OS limits of
//! the worker shown with test probes that bypass the validator on purpose.

#![allow(clippy::unwrap_used)] // test helpers: a panic is the failure report
#![allow(clippy::wildcard_enum_match_arm)] // a test names the kind it expects: any other kind fails it, or is skipped

use aware_e2e::{TestServer, add_user, authed, bad_field, reason};
use aware_proto::v1 as pb;
use aware_proto::v1::datasets_service_client::DatasetsServiceClient;
use aware_proto::v1::query_service_client::QueryServiceClient;
use aware_proto::v1::runs_service_client::RunsServiceClient;
use aware_sandbox::pool::{Executed, PoolConfig, SqlPool};
use aware_sandbox::protocol::{Probe, QueryRequest, Response, ResultTable, TableFile};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use tonic::Code;

const SECRET: &str = "TOPSECRET-4242";

#[derive(serde::Deserialize)]
struct Case {
    id: String,
    expect: String,
    #[serde(default)]
    code: String,
    category: String,
    sql: String,
    #[serde(default)]
    ordered: bool,
}

fn corpus() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/sql.jsonl");
    std::fs::read_to_string(path)
        .expect("corpus")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("corpus line"))
        .collect()
}

async fn upload(
    client: &mut DatasetsServiceClient<tonic::transport::Channel>,
    token: &str,
    name: &str,
    content: &str,
) -> pb::Dataset {
    let msg = pb::UploadDatasetRequest {
        filename: name.into(),
        format: String::new(),
        chunk: Bytes::from(content.to_owned()),
        size_bytes: content.len() as u64,
    };
    let d = client
        .upload_dataset(authed(tokio_stream::iter([msg]), token))
        .await
        .expect("upload")
        .into_inner()
        .dataset
        .unwrap();
    assert_eq!(d.status, pb::DatasetStatus::Ready as i32, "{}", d.error);
    d
}

/// One cell, normalised so the server's typed cells and DuckDB's values compare as text.
fn norm_f64(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{:.6e}", x) }
}

fn norm_pb(v: &pb::Value) -> String {
    use pb::value::Kind;
    match v.kind.as_ref() {
        None | Some(Kind::NullValue(_)) => "NULL".into(),
        Some(Kind::BoolValue(b)) => b.to_string(),
        Some(Kind::IntValue(n)) => n.to_string(),
        Some(Kind::DoubleValue(x)) => norm_f64(*x),
        Some(Kind::DecimalValue(s)) => s.parse::<f64>().map(norm_f64).unwrap_or_else(|_| s.clone()),
        Some(Kind::StringValue(s) | Kind::TextValue(s)) => s.clone(),
        Some(Kind::DateValue(d)) => format!("date:{d}"),
        Some(Kind::TimestampValue(t)) => format!("ts:{}", t.seconds * 1_000_000 + i64::from(t.nanos) / 1000),
        Some(Kind::TimeValue(t)) => format!("time:{t}"),
        Some(Kind::BytesValue(b)) => format!("bytes:{}", b.len()),
    }
}

fn norm_duck(v: duckdb::types::Value) -> String {
    use duckdb::types::Value as D;
    match v {
        D::Null => "NULL".into(),
        D::Boolean(b) => b.to_string(),
        D::TinyInt(n) => n.to_string(),
        D::SmallInt(n) => n.to_string(),
        D::Int(n) => n.to_string(),
        D::BigInt(n) => n.to_string(),
        D::UTinyInt(n) => n.to_string(),
        D::USmallInt(n) => n.to_string(),
        D::UInt(n) => n.to_string(),
        D::UBigInt(n) => n.to_string(),
        D::HugeInt(n) => norm_f64(n as f64),
        D::Float(x) => norm_f64(x.into()),
        D::Double(x) => norm_f64(x),
        D::Decimal(d) => d.to_string().parse::<f64>().map(norm_f64).unwrap_or_default(),
        D::Text(s) | D::Enum(s) => s,
        D::Date32(d) => format!("date:{d}"),
        D::Timestamp(u, n) => format!("ts:{}", u.to_micros(n)),
        D::Time64(u, n) => format!("time:{}", u.to_micros(n)),
        D::Blob(b) => format!("bytes:{}", b.len()),
        other => format!("{other:?}"),
    }
}

fn oracle() -> duckdb::Connection {
    let conn = duckdb::Connection::open_in_memory().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for s in aware_core::samples::sample_files() {
        let path = dir.path().join(s.filename);
        std::fs::write(&path, &s.content).unwrap();
        let table = s.filename.trim_end_matches(".csv");
        conn.execute_batch(&format!("CREATE TABLE {table} AS SELECT * FROM read_csv('{}')", path.display())).unwrap();
    }
    conn
}

fn oracle_rows(conn: &duckdb::Connection, sql: &str) -> Vec<Vec<String>> {
    let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("oracle cannot run {sql}: {e}"));
    let mut rows = stmt.query([]).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        let n = row.as_ref().column_count();
        out.push((0..n).map(|i| norm_duck(row.get::<_, duckdb::types::Value>(i).unwrap())).collect());
    }
    out
}

#[tokio::test]
async fn the_corpus_is_refused_or_contained_and_analytics_are_answered_correctly() {
    let server = TestServer::start(&["--auth", "api-key", "--no-samples"]);
    let alice = add_user(&server.data_dir, "alice", "analyst", &[]);
    let mallory = add_user(&server.data_dir, "mallory", "analyst", &[]);
    let channel = server.channel().await;
    let mut datasets = DatasetsServiceClient::new(channel.clone());
    for s in aware_core::samples::sample_files() {
        upload(&mut datasets, &alice, s.filename, &s.content).await;
    }
    upload(&mut datasets, &mallory, "other_secrets.csv", &format!("id,secret\n1,{SECRET}\n2,{SECRET}-2\n")).await;

    let mut query = QueryServiceClient::new(channel.clone()).max_decoding_message_size(64 << 20);
    let oracle = oracle();
    let cases = corpus();
    let (rejects, allows): (Vec<&Case>, Vec<&Case>) = cases.iter().partition(|c| c.expect == "reject");
    assert!(rejects.len() >= 150 && allows.len() >= 40, "{} hostile, {} legitimate", rejects.len(), allows.len());

    let mut failures = Vec::new();
    for case in &cases {
        let req = pb::ExecuteSqlRequest { sql: case.sql.clone(), limit: 0, ..Default::default() };
        let result = query.execute_sql(authed(req, &alice)).await;
        match (case.expect.as_str(), result) {
            ("reject", Ok(resp)) => {
                failures.push(format!("{} [{}] ran: {:?}", case.id, case.category, resp.into_inner().executed_sql))
            }
            ("reject", Err(status)) => {
                if reason(&status) != case.code {
                    failures.push(format!(
                        "{} [{}]: expected {}, got {} ({})",
                        case.id,
                        case.category,
                        case.code,
                        reason(&status),
                        status.message()
                    ));
                }
                if status.message().contains(SECRET) || status.message().contains("/data/") {
                    failures.push(format!("{}: the error leaks: {}", case.id, status.message()));
                }
            }
            (_, Err(status)) => failures.push(format!(
                "{} [{}] refused: {} {}",
                case.id,
                case.category,
                reason(&status),
                status.message()
            )),
            (_, Ok(resp)) => {
                let table = resp.into_inner().table.unwrap();
                let mut got: Vec<Vec<String>> =
                    table.rows.iter().map(|r| r.values.iter().map(norm_pb).collect()).collect();
                let mut want = oracle_rows(&oracle, &case.sql);
                if !case.ordered {
                    got.sort();
                    want.sort();
                }
                if got != want {
                    failures.push(format!(
                        "{} [{}] wrong answer:\n  got  {:?}\n  want {:?}",
                        case.id,
                        case.category,
                        &got[..got.len().min(3)],
                        &want[..want.len().min(3)]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} corpus failures:\n{}", failures.len(), failures.join("\n"));

    // Mallory's own query works, and Alice's tables are invisible to her the same way.
    let mine = query
        .execute_sql(authed(
            pb::ExecuteSqlRequest { sql: "SELECT count(*) FROM other_secrets".into(), limit: 0, ..Default::default() },
            &mallory,
        ))
        .await
        .unwrap();
    assert_eq!(norm_pb(&mine.into_inner().table.unwrap().rows[0].values[0]), "2");
    let err = query
        .execute_sql(authed(
            pb::ExecuteSqlRequest { sql: "SELECT * FROM customer_churn".into(), limit: 0, ..Default::default() },
            &mallory,
        ))
        .await
        .unwrap_err();
    assert_eq!(reason(&err), "SQL_POLICY_VIOLATION");
    assert!(err.message().contains("other_secrets") && !err.message().contains("customer_churn,"), "{}", err.message());
}

#[tokio::test]
async fn query_plans_compile_run_and_leave_capsules() {
    let server = TestServer::start(&[]);
    let channel = server.channel().await;
    let mut query = QueryServiceClient::new(channel.clone());
    let mut runs = RunsServiceClient::new(channel.clone());
    let datasets = DatasetsServiceClient::new(channel.clone())
        .list_datasets(pb::ListDatasetsRequest::default())
        .await
        .unwrap()
        .into_inner()
        .datasets;
    let apartments = datasets.iter().find(|d| d.table_name == "barcelona_apartments").unwrap();

    let plan = pb::QueryPlan {
        dataset: "barcelona_apartments".into(),
        select: vec![
            pb::SelectItem { column: "neighbourhood".into(), ..Default::default() },
            pb::SelectItem {
                column: "price_eur".into(),
                aggregate: pb::Aggregate::Avg.into(),
                alias: "avg_price".into(),
                ..Default::default()
            },
        ],
        filters: vec![pb::Filter {
            column: "bedrooms".into(),
            op: pb::FilterOp::Ge.into(),
            value: Some(pb::Value { kind: Some(pb::value::Kind::IntValue(2)) }),
            ..Default::default()
        }],
        group_by: vec!["neighbourhood".into()],
        order_by: vec![pb::OrderBy { column: "avg_price".into(), descending: true }],
        limit: 0,
    };
    let answer = query
        .execute_query_plan(pb::ExecuteQueryPlanRequest { plan: Some(plan.clone()), limit: 0, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert!(answer.compiled_sql.contains("GROUP BY \"neighbourhood\""), "{}", answer.compiled_sql);
    let got: Vec<Vec<String>> =
        answer.table.as_ref().unwrap().rows.iter().map(|r| r.values.iter().map(norm_pb).collect()).collect();
    let want = oracle_rows(
        &oracle(),
        "SELECT neighbourhood, avg(price_eur) FROM barcelona_apartments WHERE bedrooms >= 2 GROUP BY 1 ORDER BY 2 DESC",
    );
    assert_eq!(got, want);
    let columns: Vec<&str> = answer.table.as_ref().unwrap().columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(columns, ["neighbourhood", "avg_price"]);

    let capsule =
        runs.get_run(pb::GetRunRequest { run_id: answer.run_id.clone() }).await.unwrap().into_inner().run.unwrap();
    assert_eq!(capsule.status, pb::RunStatus::Succeeded as i32);
    assert_eq!(capsule.kind, pb::RunKind::QueryPlan as i32);
    assert_eq!(capsule.query_mode, pb::QueryMode::Plan as i32);
    assert!(capsule.plan_json.contains("neighbourhood"));
    assert_eq!(capsule.datasets.len(), 1);
    assert_eq!(
        (capsule.datasets[0].dataset_id.as_str(), capsule.datasets[0].version_hash.as_str()),
        (apartments.id.as_str(), apartments.version_hash.as_str())
    );
    assert!(capsule.result_summary.starts_with("8 rows"), "{}", capsule.result_summary);

    // A computed value: the median price per square metre of each neighbourhood's apartments
    // over 80 sqm whose price less €1,000 is still over €300,000, and a formula over aggregates.
    let column = |name: &str| pb::Expression { column: name.into(), ..Default::default() };
    let op = |o: pb::Operator, a: pb::Expression, b: pb::Expression| pb::Expression {
        op: o.into(),
        args: vec![a, b],
        ..Default::default()
    };
    let computed = pb::QueryPlan {
        dataset: "barcelona_apartments".into(),
        select: vec![
            pb::SelectItem { column: "neighbourhood".into(), ..Default::default() },
            pb::SelectItem {
                expr: Some(op(pb::Operator::Div, column("price_eur"), column("sqm"))),
                aggregate: pb::Aggregate::Median.into(),
                alias: "eur_m2".into(),
                ..Default::default()
            },
            pb::SelectItem {
                expr: Some(op(
                    pb::Operator::Div,
                    pb::Expression {
                        aggregate: pb::Aggregate::Sum.into(),
                        args: vec![column("price_eur")],
                        ..Default::default()
                    },
                    pb::Expression { aggregate: pb::Aggregate::Count.into(), ..Default::default() },
                )),
                alias: "mean_price".into(),
                ..Default::default()
            },
        ],
        filters: vec![
            pb::Filter {
                column: "sqm".into(),
                op: pb::FilterOp::Gt.into(),
                value: Some(pb::Value { kind: Some(pb::value::Kind::IntValue(80)) }),
                ..Default::default()
            },
            pb::Filter {
                expr: Some(op(
                    pb::Operator::Sub,
                    column("price_eur"),
                    pb::Expression { number: Some(1000.0), ..Default::default() },
                )),
                op: pb::FilterOp::Gt.into(),
                value: Some(pb::Value { kind: Some(pb::value::Kind::IntValue(300_000)) }),
                ..Default::default()
            },
        ],
        group_by: vec!["neighbourhood".into()],
        order_by: vec![pb::OrderBy { column: "neighbourhood".into(), descending: false }],
        limit: 0,
    };
    let answer = query
        .execute_query_plan(pb::ExecuteQueryPlanRequest {
            plan: Some(computed.clone()),
            limit: 0,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let got: Vec<Vec<String>> =
        answer.table.as_ref().unwrap().rows.iter().map(|r| r.values.iter().map(norm_pb).collect()).collect();
    let want = oracle_rows(
        &oracle(),
        "SELECT neighbourhood, median(price_eur / sqm), sum(price_eur) / count(*) FROM barcelona_apartments \
         WHERE sqm > 80 AND price_eur - 1000 > 300000 GROUP BY 1 ORDER BY 1",
    );
    assert_eq!(got, want);
    // Arithmetic on text is refused with the field that holds it.
    let mut bad = computed;
    bad.select[1].expr = Some(op(pb::Operator::Mul, column("neighbourhood"), column("sqm")));
    let err = query
        .execute_query_plan(pb::ExecuteQueryPlanRequest { plan: Some(bad), limit: 0, ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!((err.code(), bad_field(&err).as_str()), (Code::InvalidArgument, "plan.select[1].expr.args"));

    let mut bad = plan.clone();
    bad.select[1].column = "price".into();
    let err = query
        .execute_query_plan(pb::ExecuteQueryPlanRequest { plan: Some(bad), limit: 0, ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!((err.code(), bad_field(&err).as_str()), (Code::InvalidArgument, "plan.select[1].column"));
    assert!(err.message().contains("price_eur"), "the error lists the real columns: {}", err.message());
    let mut bad = plan.clone();
    bad.filters[0].op = 0;
    let err = query
        .execute_query_plan(pb::ExecuteQueryPlanRequest { plan: Some(bad), limit: 0, ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&err), "plan.filters[0].op");
    let mut bad = plan;
    bad.dataset = "nope".into();
    let err = query
        .execute_query_plan(pb::ExecuteQueryPlanRequest { plan: Some(bad), limit: 0, ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);

    let refused = query
        .execute_sql(pb::ExecuteSqlRequest {
            sql: "SELECT * FROM read_csv('/etc/passwd')".into(),
            limit: 0,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.message(), "`read_csv` is not allowed: queries may only read your datasets");
    let listed = runs
        .list_runs(pb::ListRunsRequest {
            thread_id: String::new(),
            page_size: 1,
            page_token: String::new(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.runs.len(), 1);
    let failed = &listed.runs[0];
    assert_eq!(
        (failed.kind, failed.status),
        (pb::RunKind::Sql as i32, pb::RunStatus::Failed as i32),
        "a refused query is recorded too"
    );
    let page2 = runs
        .list_runs(pb::ListRunsRequest {
            thread_id: String::new(),
            page_size: 1,
            page_token: listed.next_page_token,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page2.runs[0].run_id, answer.run_id);

    let truncated = query
        .execute_sql(pb::ExecuteSqlRequest {
            sql: "SELECT * FROM customer_churn".into(),
            limit: 7,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let t = truncated.table.unwrap();
    assert_eq!((t.rows.len(), t.truncated), (7, true));
    let err = query
        .execute_sql(pb::ExecuteSqlRequest {
            sql: "SELECT nope FROM customer_churn".into(),
            limit: 0,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "VALIDATION_ERROR"));
    assert!(err.message().contains("nope"), "{}", err.message());
}

#[tokio::test]
async fn slow_queries_time_out_and_the_pool_keeps_serving() {
    let server = TestServer::start_with_env(&[], &[("AWARE_SANDBOX__TIMEOUT_MS", "400")]);
    let mut query = QueryServiceClient::new(server.channel().await);
    let slow = "SELECT sum(a.x * b.y) FROM range(1000000) a(x), range(99) b(y) WHERE (a.x + b.y) % 7 = 3";
    let err = query
        .execute_sql(pb::ExecuteSqlRequest { sql: slow.into(), limit: 0, ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::DeadlineExceeded, "RUNNER_TIMEOUT"), "{}", err.message());
    for _ in 0..3 {
        let ok = query
            .execute_sql(pb::ExecuteSqlRequest {
                sql: "SELECT count(*) FROM customer_churn".into(),
                limit: 0,
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(norm_pb(&ok.into_inner().table.unwrap().rows[0].values[0]), "500");
    }
}

/// A query DuckDB's plan says reads more rows than `sandbox.confirm_scan_rows` is not run until
/// the caller agrees: FAILED_PRECONDITION, COST_CONFIRMATION_REQUIRED, with the estimate (rows
/// from every scan, bytes at the datasets' stored row size) in ErrorInfo metadata and the
/// message; `run_heavy` runs it. A smaller table, a plain LIMIT and query plans follow the same
/// rule; the refused call is recorded as a failed run that says why.
#[tokio::test]
async fn a_query_over_the_cost_limit_runs_only_with_run_heavy() {
    use tonic_types::StatusExt;
    let server = TestServer::start_with_env(&[], &[("AWARE_SANDBOX__CONFIRM_SCAN_ROWS", "300")]);
    let mut query = QueryServiceClient::new(server.channel().await);
    let sql = |s: &str, run_heavy: bool| pb::ExecuteSqlRequest { sql: s.into(), limit: 0, run_heavy };
    let churn = "SELECT plan, avg(monthly_charges) FROM customer_churn GROUP BY plan";

    let err = query.execute_sql(sql(churn, false)).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::FailedPrecondition, "COST_CONFIRMATION_REQUIRED"));
    let info = err.get_error_details().error_info().cloned().unwrap();
    assert_eq!(info.metadata["estimated_rows"], "500", "the table's 500 rows, one scan");
    let bytes: u64 = info.metadata["estimated_bytes"].parse().unwrap();
    assert!(bytes > 500, "{bytes} bytes for 500 rows");
    assert!(err.message().contains("about 500 rows") && err.message().contains("300 rows"), "{}", err.message());
    assert!(err.message().contains("run_heavy"), "it says how to run it: {}", err.message());

    let ran = query.execute_sql(sql(churn, true)).await.unwrap().into_inner();
    assert!(ran.table.unwrap().rows.len() >= 2, "run_heavy runs it");
    let small = query.execute_sql(sql("SELECT avg(price_eur) FROM barcelona_apartments", false)).await;
    assert!(small.is_ok(), "240 rows are under the limit: {small:?}");
    let first = query.execute_sql(sql("SELECT * FROM customer_churn LIMIT 3", false)).await.unwrap().into_inner();
    assert_eq!(first.table.unwrap().rows.len(), 3, "a plain LIMIT reads a few rows only");
    let twice = "SELECT count(*) FROM barcelona_apartments a JOIN barcelona_apartments b ON a.price_eur = b.price_eur";
    let err = query.execute_sql(sql(twice, false)).await.unwrap_err();
    assert_eq!(reason(&err), "COST_CONFIRMATION_REQUIRED", "a table read twice counts twice: {}", err.message());

    let plan = pb::QueryPlan {
        dataset: "customer_churn".into(),
        select: vec![
            pb::SelectItem { column: "plan".into(), ..Default::default() },
            pb::SelectItem {
                column: "monthly_charges".into(),
                aggregate: pb::Aggregate::Avg as i32,
                ..Default::default()
            },
        ],
        group_by: vec!["plan".into()],
        ..Default::default()
    };
    let request = |run_heavy| pb::ExecuteQueryPlanRequest { plan: Some(plan.clone()), limit: 0, run_heavy };
    let err = query.execute_query_plan(request(false)).await.unwrap_err();
    assert_eq!(reason(&err), "COST_CONFIRMATION_REQUIRED", "{}", err.message());
    let averaged = query.execute_query_plan(request(true)).await.unwrap().into_inner();
    assert!(averaged.table.unwrap().rows.len() >= 2, "run_heavy runs the plan");
    // DuckDB answers a bare count from the table's statistics: it reads nothing, so it runs.
    let count = query.execute_sql(sql("SELECT count(*) FROM customer_churn", false)).await.unwrap().into_inner();
    assert_eq!(norm_pb(&count.table.unwrap().rows[0].values[0]), "500");

    // Saving a result, or a verified query, runs the query too: the same rule.
    let mut datasets = pb::datasets_service_client::DatasetsServiceClient::new(server.channel().await);
    let save = |run_heavy| pb::MaterializeQueryRequest {
        table_name: "churn_copy".into(),
        query: Some(pb::materialize_query_request::Query::Sql("SELECT * FROM customer_churn".into())),
        run_heavy,
    };
    let err = datasets.materialize_query(save(false)).await.unwrap_err();
    assert_eq!(reason(&err), "COST_CONFIRMATION_REQUIRED", "{}", err.message());
    let copy = datasets.materialize_query(save(true)).await.unwrap().into_inner().dataset.unwrap();
    assert_eq!(copy.row_count, 500);
    let keep = |run_heavy| pb::SaveQueryRequest {
        name: "charges by plan".into(),
        question: String::new(),
        query: Some(pb::save_query_request::Query::Sql(churn.into())),
        run_heavy,
    };
    let err = datasets.save_query(keep(false)).await.unwrap_err();
    assert_eq!(reason(&err), "COST_CONFIRMATION_REQUIRED", "{}", err.message());
    datasets.save_query(keep(true)).await.unwrap();

    let mut runs = pb::runs_service_client::RunsServiceClient::new(server.channel().await);
    let listed =
        runs.list_runs(pb::ListRunsRequest { page_size: 100, ..Default::default() }).await.unwrap().into_inner();
    let refused = listed.runs.iter().filter(|r| {
        r.status == pb::RunStatus::Failed as i32
            && r.error.as_ref().is_some_and(|e| e.code == pb::ErrorCode::CostConfirmationRequired as i32)
    });
    assert_eq!(refused.count(), 5, "each refused query is a failed run saying why");
}

fn probe_pool() -> SqlPool {
    pool_of(2)
}

/// A pool of `size` workers, all of which one user may use.
fn pool_of(size: usize) -> SqlPool {
    SqlPool::start(PoolConfig {
        worker_exe: aware_e2e::server_bin(),
        size,
        per_user: size,
        queued_per_user: 8,
        max_wait: Duration::from_secs(30),
        warm: 0,
        memory_mb: 256,
        threads: 2,
        kill_grace: Duration::from_secs(2),
        max_queries_per_worker: 100,
        test_hooks: true,
        priority: aware_sandbox::priority::WorkerPriority::new(Duration::from_millis(250)),
    })
}

fn probed(r: Response) -> (bool, String) {
    match r {
        Response::Probed { ok, detail } => (ok, detail),
        other => panic!("not a probe answer: {other:?}"),
    }
}

/// The table a query answered with (it was not refused for its cost).
fn ran(executed: Executed) -> ResultTable {
    match executed {
        Executed::Table(table) => table,
        Executed::NotRun { per_table } => panic!("not run: its plan reads {per_table:?} rows"),
    }
}

/// What a query's plan reads from its one table, as the worker answers when it does not run it.
fn not_run(executed: Executed) -> u64 {
    match executed {
        Executed::Table(table) => panic!("it ran: {table:?}"),
        Executed::NotRun { per_table } => {
            assert_eq!(per_table.len(), 1, "one figure per table of the request");
            per_table[0]
        }
    }
}

/// The worker reads the rows a query's plan scans before running it: over the request's limit it
/// answers with the estimate instead of rows; each scan of a table counts its rows (a filter still
/// reads them all, a self-join twice); a plain LIMIT reads almost nothing and runs.
#[tokio::test]
async fn a_query_that_reads_more_than_the_limit_is_estimated_not_run() {
    let pool = pool_of(1);
    let dir = tempfile::tempdir().unwrap();
    let user_dir = dir.path().join("usr_test");
    std::fs::create_dir_all(&user_dir).unwrap();
    let table = TableFile {
        name: "numbers".into(),
        path: numbers_file(&user_dir, "ds_1.duckdb", 1000),
        version: "v1".into(),
        rows: 1000,
    };
    let query = |sql: &str, ask_above: Option<u64>| QueryRequest {
        user_dir: user_dir.clone(),
        tables: vec![table.clone()],
        sql: sql.into(),
        max_rows: 10,
        max_bytes: 1 << 20,
        timeout_ms: 10_000,
        ask_above,
        estimate_only: false,
    };
    let total = "SELECT sum(x) FROM numbers";
    assert_eq!(not_run(pool.execute("usr_test", query(total, Some(999))).await.unwrap()), 1000);
    // The verdict remembered from the first time still carries the estimate.
    assert_eq!(not_run(pool.execute("usr_test", query(total, Some(999))).await.unwrap()), 1000);
    let sum = ran(pool.execute("usr_test", query(total, Some(1000))).await.unwrap());
    assert_eq!(sum.rows[0][0], aware_domain::value::Value::Decimal("499500".into()), "at the limit it runs");
    let sum = ran(pool.execute("usr_test", query(total, None)).await.unwrap());
    assert_eq!(sum.rows[0][0], aware_domain::value::Value::Decimal("499500".into()), "no limit: it runs");

    let filtered = "SELECT x FROM numbers WHERE x = 5";
    assert_eq!(not_run(pool.execute("usr_test", query(filtered, Some(999))).await.unwrap()), 1000);
    let joined = "SELECT count(*) FROM numbers a JOIN numbers b ON a.x = b.x";
    assert_eq!(not_run(pool.execute("usr_test", query(joined, Some(1500))).await.unwrap()), 2000);
    let first_rows = ran(pool.execute("usr_test", query("SELECT x FROM numbers LIMIT 5", Some(1))).await.unwrap());
    assert_eq!(first_rows.rows.len(), 5);
    // A LIMIT over anything that must see every row first still reads them all: a grouping (as
    // every compiled plan has), a filter, a join.
    for sql in [
        "SELECT x % 7 AS g, count(*) FROM numbers GROUP BY g LIMIT 5",
        "SELECT x FROM numbers WHERE x % 7 = 3 LIMIT 5",
        "SELECT x, x * 2 AS y FROM (SELECT x FROM numbers WHERE x > 10) LIMIT 5",
    ] {
        assert_eq!(not_run(pool.execute("usr_test", query(sql, Some(999))).await.unwrap()), 1000, "{sql}");
    }
    let join_limit = "SELECT a.x FROM numbers a JOIN numbers b ON a.x = b.x LIMIT 5";
    assert_eq!(not_run(pool.execute("usr_test", query(join_limit, Some(999))).await.unwrap()), 2000);

    let estimate = QueryRequest { estimate_only: true, ..query(joined, None) };
    assert_eq!(not_run(pool.execute("usr_test", estimate).await.unwrap()), 2000, "an estimate never runs");
}

/// A dataset file in `user_dir` as ingestion writes them (one table `data`), column `x` = 0..rows.
fn numbers_file(user_dir: &Path, file: &str, rows: u32) -> std::path::PathBuf {
    let path = user_dir.join(file);
    let conn = duckdb::Connection::open(&path).unwrap();
    conn.execute_batch(&format!("CREATE TABLE data AS SELECT range AS x FROM range({rows})")).unwrap();
    path
}

#[tokio::test]
async fn os_limits_hold_even_when_the_validator_is_bypassed() {
    let pool = probe_pool();
    let dir = tempfile::tempdir().unwrap();
    let user_dir = dir.path().join("usr_test");
    std::fs::create_dir_all(&user_dir).unwrap();
    let table = numbers_file(&user_dir, "ds_1.duckdb", 1000);
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "do not read me").unwrap();

    let (ok, detail) =
        probed(pool.probe(Probe::ReadFile { user_dir: user_dir.clone(), path: outside.clone() }).await.unwrap());
    assert!(!ok, "a file outside the user's folder is unreadable: {detail}");
    let (ok, detail) =
        probed(pool.probe(Probe::ReadFile { user_dir: user_dir.clone(), path: "/etc/passwd".into() }).await.unwrap());
    assert!(!ok, "/etc/passwd is unreadable: {detail}");
    let (ok, _) =
        probed(pool.probe(Probe::ReadFile { user_dir: user_dir.clone(), path: table.clone() }).await.unwrap());
    assert!(ok, "the user's own files stay readable");

    let sql = format!("SELECT * FROM read_text('{}')", outside.display());
    let (ok, detail) = probed(pool.probe(Probe::RawSql { user_dir: user_dir.clone(), sql }).await.unwrap());
    assert!(!ok, "DuckDB with external access on still cannot read outside: {detail}");

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (ok, detail) = probed(pool.probe(Probe::Connect { user_dir: user_dir.clone(), addr }).await.unwrap());
    assert!(!ok, "no network from the worker: {detail}");

    let bomb = "SELECT list_sum(range(400000000))".to_owned();
    let (ok, detail) = probed(pool.probe(Probe::RawSql { user_dir: user_dir.clone(), sql: bomb }).await.unwrap());
    assert!(!ok, "a memory bomb fails inside the worker: {detail}");

    // A query the watchdog cannot stop is ended by the kernel's CPU limit (deadline 1 s on one
    // thread: about 4 s of CPU) instead of spinning forever.
    let (ok, detail) =
        probed(pool.probe(Probe::CpuSpin { user_dir: user_dir.clone(), timeout_ms: 1000 }).await.unwrap());
    assert!(!ok && detail.contains("worker died"), "the kernel stops a runaway worker: {detail}");

    // The pool still serves real queries after all of that.
    let request = QueryRequest {
        user_dir: user_dir.clone(),
        tables: vec![TableFile { name: "numbers".into(), path: table, version: "v1".into(), rows: 1000 }],
        sql: "SELECT sum(x) FROM numbers".into(),
        max_rows: 10,
        max_bytes: 1 << 20,
        timeout_ms: 5000,
        ask_above: None,
        estimate_only: false,
    };
    let result = ran(pool.execute("usr_test", request.clone()).await.unwrap());
    assert_eq!(result.rows[0][0], aware_domain::value::Value::Decimal("499500".into()));
    let other = QueryRequest { user_dir: dir.path().join("usr_other"), ..request };
    std::fs::create_dir_all(&other.user_dir).unwrap();
    let stats = pool.stats();
    assert!(stats.alive <= 2, "{stats:?}");
    let answer = pool.execute("usr_other", other).await;
    assert!(answer.is_err(), "another user's worker cannot open the first user's file");
}

/// A worker remembers which SQL passed its DuckDB cross-checks, but only for the tables it was
/// checked against: the same text over the same table name, now a bigger file, is judged again.
#[tokio::test]
async fn a_remembered_verdict_holds_only_for_the_tables_it_was_reached_with() {
    let pool = probe_pool();
    let dir = tempfile::tempdir().unwrap();
    let user_dir = dir.path().join("usr_test");
    std::fs::create_dir_all(&user_dir).unwrap();
    let table = |file: &str, rows: u32| TableFile {
        name: "numbers".into(),
        path: numbers_file(&user_dir, file, rows),
        version: format!("{rows} rows"),
        rows: u64::from(rows),
    };
    let (small, big) = (table("ds_small.duckdb", 100), table("ds_big.duckdb", 1000));
    let request = |t: &TableFile| QueryRequest {
        user_dir: user_dir.clone(),
        tables: vec![t.clone()],
        sql: "SELECT count(*) FROM numbers a, numbers b, numbers c".into(),
        max_rows: 10,
        max_bytes: 1 << 20,
        timeout_ms: 10_000,
        ask_above: None,
        estimate_only: false,
    };
    for _ in 0..2 {
        let answer = ran(pool.execute("usr_test", request(&small)).await.unwrap());
        assert_eq!(answer.rows[0][0], aware_domain::value::Value::Int(1_000_000), "asked twice, answered twice");
    }
    let err = pool.execute("usr_test", request(&big)).await.unwrap_err();
    assert_eq!(err.code, aware_core::ErrorCode::RunnerResourceExceeded, "{}", err.message);
    assert!(err.message.contains("join condition"), "{}", err.message);
    let answer = ran(pool.execute("usr_test", request(&small)).await.unwrap());
    assert_eq!(answer.rows[0][0], aware_domain::value::Value::Int(1_000_000));
}

/// A refreshed dataset is the same file with new content moved into place: the worker that kept
/// the old file attached for its next query attaches it again, so the answer is the new one.
#[tokio::test]
async fn a_session_sees_a_refreshed_file_by_its_new_version() {
    let pool = pool_of(1); // one worker: the second query meets the session of the first
    let dir = tempfile::tempdir().unwrap();
    let user_dir = dir.path().join("usr_test");
    std::fs::create_dir_all(&user_dir).unwrap();
    let path = numbers_file(&user_dir, "ds_1.duckdb", 100);
    let count = |version: &str| QueryRequest {
        user_dir: user_dir.clone(),
        tables: vec![TableFile { name: "numbers".into(), path: path.clone(), version: version.into(), rows: 100 }],
        sql: "SELECT count(*) FROM numbers".into(),
        max_rows: 10,
        max_bytes: 1 << 20,
        timeout_ms: 10_000,
        ask_above: None,
        estimate_only: false,
    };
    let answer = ran(pool.execute("usr_test", count("v1")).await.unwrap());
    assert_eq!(answer.rows[0][0], aware_domain::value::Value::Int(100));
    let fresh = numbers_file(&user_dir, "ds_1.tmp.duckdb", 250);
    std::fs::rename(&fresh, &path).unwrap();
    let answer = ran(pool.execute("usr_test", count("v2")).await.unwrap());
    assert_eq!(answer.rows[0][0], aware_domain::value::Value::Int(250), "the new content, not the attached old file");
}

#[test]
fn the_corpus_has_every_required_category() {
    let cases = corpus();
    let mut by: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &cases {
        *by.entry(c.category.as_str()).or_default() += 1;
    }
    for cat in [
        "file_read",
        "network",
        "extension",
        "admin",
        "metadata",
        "cross_user",
        "parser_differential",
        "resource_exhaustion",
        "non_select",
        "replacement_scan",
        "aggregate",
        "window",
        "cte",
        "join",
        "qualify",
        "date",
    ] {
        assert!(by.get(cat).copied().unwrap_or(0) >= 1, "category {cat} missing: {by:?}");
    }
}

/// A Parquet file of doubles with NaN and ±infinity in it, written by DuckDB.
fn non_finite_parquet() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("readings.parquet");
    let conn = duckdb::Connection::open_in_memory().unwrap();
    conn.execute_batch(&format!(
        "COPY (SELECT * FROM (VALUES (1, 'nan'::DOUBLE), (2, 'inf'::DOUBLE), (3, '-inf'::DOUBLE), (4, 1.5::DOUBLE)) \
         AS t(id, reading)) TO '{}' (FORMAT parquet)",
        path.display()
    ))
    .unwrap();
    std::fs::read(path).unwrap()
}

fn double(v: &pb::Value) -> f64 {
    match v.kind {
        Some(pb::value::Kind::DoubleValue(x)) => x,
        ref other => panic!("not a double: {other:?}"),
    }
}

/// Non-finite doubles are values like any other: `SELECT 1/0` answers (whatever DuckDB makes of
/// it: infinity or NULL) instead of killing its worker, a dataset holding NaN and ±infinity is
/// queried and profiled with those values intact, and the worker keeps serving.
#[tokio::test]
async fn nan_and_infinity_are_answered_not_fatal() {
    let server = TestServer::start(&["--no-samples"]);
    let mut datasets = server.datasets().await;
    let msg = pb::UploadDatasetRequest {
        filename: "readings.parquet".into(),
        chunk: Bytes::from(non_finite_parquet()),
        ..Default::default()
    };
    let d = datasets.upload_dataset(tokio_stream::iter([msg])).await.unwrap().into_inner().dataset.unwrap();
    assert_eq!(d.status, pb::DatasetStatus::Ready as i32, "{}", d.error);
    let mut query = QueryServiceClient::new(server.channel().await);
    let sql = |s: &str| pb::ExecuteSqlRequest { sql: s.into(), limit: 0, ..Default::default() };

    for expr in ["1/0", "-1/0", "0/0", "1.0/0", "'nan'::DOUBLE", "'-inf'::DOUBLE + 1"] {
        let answer = query.execute_sql(sql(&format!("SELECT {expr} AS x"))).await;
        let table = answer.unwrap_or_else(|e| panic!("{expr}: {e:?}")).into_inner().table.unwrap();
        let cell = &table.rows[0].values[0];
        match cell.kind {
            Some(pb::value::Kind::DoubleValue(_)) | Some(pb::value::Kind::NullValue(_)) | None => {}
            ref other => panic!("{expr}: {other:?}"),
        }
    }
    let inf = query.execute_sql(sql("SELECT 'inf'::DOUBLE AS x")).await.unwrap().into_inner().table.unwrap();
    assert_eq!(double(&inf.rows[0].values[0]), f64::INFINITY);

    let table = query
        .execute_sql(sql("SELECT id, reading FROM readings ORDER BY id"))
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let readings: Vec<f64> = table.rows.iter().map(|r| double(&r.values[1])).collect();
    assert!(readings[0].is_nan(), "{readings:?}");
    assert_eq!(readings[1..], [f64::INFINITY, f64::NEG_INFINITY, 1.5]);
    let stats = datasets
        .get_dataset_statistics(pb::GetDatasetStatisticsRequest { dataset_id: d.id.clone() })
        .await
        .unwrap()
        .into_inner()
        .statistics
        .unwrap();
    let reading = stats.columns.iter().find(|c| c.name == "reading").unwrap();
    assert!(reading.mean.is_some_and(f64::is_nan), "NaN poisons the mean, and says so: {reading:?}");
    let again = query.execute_sql(sql("SELECT count(*) FROM readings")).await.unwrap().into_inner();
    assert_eq!(norm_pb(&again.table.unwrap().rows[0].values[0]), "4", "the worker still serves");
}

/// Date spines are counted in real days whatever the year looks like (six digits, negative), and
/// two spines crossed are counted as their product: each is refused before it runs.
#[tokio::test]
async fn date_spines_with_huge_or_negative_years_and_crossed_spines_are_refused() {
    let server = TestServer::start(&["--no-samples"]);
    let mut query = QueryServiceClient::new(server.channel().await);
    let refused = |e: &tonic::Status| (e.code(), reason(e));
    for spine in [
        "SELECT count(*) FROM generate_series(DATE '-100000-01-01', DATE '2000-01-01', INTERVAL 1 DAY)",
        "SELECT count(*) FROM range(TIMESTAMP '2000-01-01', TIMESTAMP '102000-01-01', INTERVAL 1 DAY)",
    ] {
        let e = query
            .execute_sql(pb::ExecuteSqlRequest { sql: spine.into(), limit: 0, ..Default::default() })
            .await
            .unwrap_err();
        assert_eq!(refused(&e), (Code::InvalidArgument, "SQL_POLICY_VIOLATION".into()), "{spine}: {e:?}");
        assert!(e.message().contains("rows; at most 1000000"), "{}", e.message());
    }
    let crossed = "SELECT count(*) FROM generate_series(DATE '1800-01-01', DATE '2100-01-01', INTERVAL 1 DAY) a, \
                   generate_series(DATE '1800-01-01', DATE '2100-01-01', INTERVAL 1 DAY) b";
    let e = query
        .execute_sql(pb::ExecuteSqlRequest { sql: crossed.into(), limit: 0, ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(refused(&e), (Code::ResourceExhausted, "RUNNER_RESOURCE_EXCEEDED".into()), "{e:?}");
    let small =
        "SELECT count(*) FROM generate_series(DATE '2024-01-01', DATE '2024-01-31', INTERVAL 1 DAY) a, range(3) b";
    let ok = query
        .execute_sql(pb::ExecuteSqlRequest { sql: small.into(), limit: 0, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(norm_pb(&ok.table.unwrap().rows[0].values[0]), "93");
}
