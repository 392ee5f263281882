//! SQL sandbox bench. Prints:
//! - validator time per typical query (µs),
//! - `ExecuteSql` p50/p99 for a point query on a warm pool,
//! - a GROUP BY over a 10,000,000-row dataset through `ExecuteSql` versus the same query on the
//!   same DuckDB file in-process with the same thread count (target ratio ≤ 1.2×).
//!
//! Run: `scripts/bench sql [ROWS]`.

use crate::common::percentile;
use aware_e2e::TestServer;
use aware_proto::v1 as pb;
use aware_proto::v1::datasets_service_client::DatasetsServiceClient;
use aware_proto::v1::query_service_client::QueryServiceClient;
use aware_sandbox::validator::{Policy, validate};
use bytes::Bytes;
use std::collections::HashSet;
use std::time::Instant;

pub(crate) async fn main(rows: u64) -> anyhow::Result<()> {
    // 1. Validator.
    let tables: HashSet<String> =
        ["barcelona_apartments", "customer_churn", "support_tickets"].into_iter().map(String::from).collect();
    let typical = [
        "SELECT neighbourhood, avg(price_eur) AS avg_price FROM barcelona_apartments GROUP BY neighbourhood ORDER BY 2 DESC",
        "SELECT count(*) FROM customer_churn WHERE churned AND contract = 'month-to-month'",
        "WITH t AS (SELECT category, count(*) AS c FROM support_tickets GROUP BY 1) SELECT * FROM t WHERE c > 10",
        "SELECT plan, customer_id FROM customer_churn QUALIFY row_number() OVER (PARTITION BY plan ORDER BY tenure_months DESC) <= 3",
    ];
    let policy = Policy::default();
    let n = 20_000;
    let started = Instant::now();
    for i in 0..n {
        validate(typical[i % typical.len()], &tables, &policy).expect("valid");
    }
    println!(
        "validator: {:.1} µs per typical query ({n} validations)",
        started.elapsed().as_secs_f64() * 1e6 / n as f64
    );

    // 2. Point query latency on a warm pool.
    let server = TestServer::start(&[]);
    let channel = server.channel().await;
    let mut query = QueryServiceClient::new(channel.clone()).max_decoding_message_size(64 << 20);
    let point = "SELECT * FROM customer_churn WHERE customer_id = 'C00042'";
    for _ in 0..20 {
        query.execute_sql(pb::ExecuteSqlRequest { sql: point.into(), limit: 0, ..Default::default() }).await?;
    }
    let mut lat = Vec::new();
    for _ in 0..300 {
        let t = Instant::now();
        query.execute_sql(pb::ExecuteSqlRequest { sql: point.into(), limit: 0, ..Default::default() }).await?;
        lat.push(t.elapsed().as_secs_f64() * 1e3);
    }
    lat.sort_by(f64::total_cmp);
    println!(
        "ExecuteSql point query (warm pool, 300 sequential calls): p50 {:.2} ms, p99 {:.2} ms",
        percentile(&lat, 0.5),
        percentile(&lat, 0.99)
    );

    // 3. Group-by over a big dataset.
    let (s, p) = group_by_vs_in_process(&server, rows).await?;
    println!(
        "GROUP BY over {rows} rows: ExecuteSql median {s:.1} ms, in-process DuckDB (2 threads) median {p:.1} ms, ratio {:.2}x (target <= 1.2x)",
        s / p
    );
    Ok(())
}

/// Uploads a generated `rows`-row dataset (as Parquet, through the normal upload path) and times a
/// GROUP BY over it through `ExecuteSql` and on the same DuckDB file in process with the same thread
/// count, interleaved so both see the same machine noise: the two medians, ms.
pub(crate) async fn group_by_vs_in_process(server: &TestServer, rows: u64) -> anyhow::Result<(f64, f64)> {
    let channel = server.channel().await;
    let mut query = QueryServiceClient::new(channel.clone()).max_decoding_message_size(64 << 20);
    let dir = tempfile::tempdir()?;
    let parquet = dir.path().join(format!("events_{rows}.parquet"));
    duckdb::Connection::open_in_memory()?.execute_batch(&format!(
        "COPY (SELECT range AS id, 'cat_' || (range % 50) AS category, (range * 7919 % 100000) / 100.0 AS amount,
                 range % 3 = 0 AS flag FROM range({rows})) TO '{}' (FORMAT parquet)",
        parquet.display()
    ))?;
    let bytes = Bytes::from(std::fs::read(&parquet)?);
    let bytes_len = bytes.len() as u64;
    let name = format!("events_{rows}");
    let msgs: Vec<pb::UploadDatasetRequest> = (0..bytes.len())
        .step_by(1 << 20)
        .map(|at| pb::UploadDatasetRequest {
            filename: if at == 0 { format!("{name}.parquet") } else { String::new() },
            format: String::new(),
            chunk: bytes.slice(at..(at + (1 << 20)).min(bytes.len())),
            size_bytes: if at == 0 { bytes_len } else { 0 },
        })
        .collect();
    let mut datasets = DatasetsServiceClient::new(channel).max_encoding_message_size(16 << 20);
    let d = datasets.upload_dataset(tokio_stream::iter(msgs)).await?.into_inner().dataset.expect("dataset");
    anyhow::ensure!(d.row_count == rows, "{}", d.error);
    let group_by = format!(
        "SELECT category, count(*) AS n, avg(amount) AS avg_amount, sum(CASE WHEN flag THEN 1 ELSE 0 END) AS flagged FROM {name} GROUP BY category ORDER BY category"
    );
    let file = server.data_dir.join("datasets").join("usr_local").join(format!("{}.duckdb", d.id));
    let conn = duckdb::Connection::open_with_flags(
        &file,
        duckdb::Config::default().access_mode(duckdb::AccessMode::ReadOnly)?.threads(2)?,
    )?;
    let in_process_sql = group_by.replace(&format!("FROM {name}"), "FROM data");
    let groups = rows.min(50) as usize;
    let (mut sandboxed, mut direct) = (Vec::new(), Vec::new());
    for _ in 0..if rows >= 100_000_000 { 5 } else { 15 } {
        let t = Instant::now();
        let r = query
            .execute_sql(pb::ExecuteSqlRequest { sql: group_by.clone(), limit: 0, ..Default::default() })
            .await?
            .into_inner();
        sandboxed.push(t.elapsed().as_secs_f64() * 1e3);
        anyhow::ensure!(r.table.expect("table").rows.len() == groups);

        let t = Instant::now();
        let mut stmt = conn.prepare(&in_process_sql)?;
        let mut rs = stmt.query([])?;
        let mut count = 0;
        while rs.next()?.is_some() {
            count += 1;
        }
        direct.push(t.elapsed().as_secs_f64() * 1e3);
        anyhow::ensure!(count == groups);
    }
    sandboxed.sort_by(f64::total_cmp);
    direct.sort_by(f64::total_cmp);
    Ok((percentile(&sandboxed, 0.5), percentile(&direct, 0.5)))
}
