//! Upload bench: a 1,000,000-row CSV (about 60 MB) uploaded through `UploadDataset` on a real
//! server, against DuckDB's own `read_csv` of the same file in-process. Prints both times and the
//! ratio (target: aware ≤ 2× DuckDB), and checks row count, column types and version hash.
//!
//! Run: `scripts/bench upload [ROWS]`.

use aware_e2e::TestServer;
use aware_proto::v1 as pb;
use bytes::Bytes;
use sha2::Digest;
use std::fmt::Write as _;
use std::time::Instant;

fn generate_csv(rows: usize) -> Vec<u8> {
    let categories = ["books", "garden", "kitchen", "toys", "electronics", "sports", "music"];
    let cities = ["Barcelona", "Girona", "Tarragona", "Lleida", "Reus", "Sabadell", "Terrassa"];
    let mut out = String::with_capacity(rows * 64);
    out.push_str("order_id,city,category,quantity,unit_price,discount,ordered_on,express\n");
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for i in 0..rows {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let _ = writeln!(
            out,
            "{i},{},{},{},{}.{:02},{},2024-{:02}-{:02},{}",
            cities[(x % 7) as usize],
            categories[((x >> 8) % 7) as usize],
            1 + (x >> 16) % 20,
            1 + (x >> 24) % 500,
            (x >> 32) % 100,
            ((x >> 40) % 30) as f64 / 100.0,
            1 + (x >> 44) % 12,
            1 + (x >> 48) % 28,
            (x >> 56).is_multiple_of(3)
        );
    }
    out.into_bytes()
}

fn duckdb_baseline(path: &std::path::Path, threads: u32) -> (f64, i64) {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("baseline.duckdb");
    let conn = duckdb::Connection::open(&db).expect("duckdb");
    conn.execute_batch(&format!("SET threads = {threads}")).expect("threads");
    let started = Instant::now();
    conn.execute_batch(&format!("CREATE TABLE data AS SELECT * FROM read_csv('{}')", path.display()))
        .expect("read_csv");
    conn.execute_batch("CHECKPOINT").expect("checkpoint");
    let secs = started.elapsed().as_secs_f64();
    let n: i64 = conn.query_row("SELECT count(*) FROM data", [], |r| r.get(0)).expect("count");
    (secs, n)
}

pub(crate) async fn main(rows: usize) -> anyhow::Result<()> {
    let csv = generate_csv(rows);
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("orders.csv");
    std::fs::write(&path, &csv)?;
    println!("file: {rows} rows, {:.1} MB", csv.len() as f64 / 1e6);

    // The ingestion worker uses 2 DuckDB threads by default; give the baseline the same.
    let mut duck = Vec::new();
    for _ in 0..3 {
        duck.push(duckdb_baseline(&path, 2));
    }
    let duck_best = duck.iter().map(|d| d.0).fold(f64::INFINITY, f64::min);
    assert_eq!(duck[0].1 as usize, rows);

    let server = TestServer::start(&["--no-samples"]);
    let mut client = server.datasets().await.max_encoding_message_size(16 << 20);
    let expected_hash = hex::encode(sha2::Sha256::digest(&csv));
    let mut aware = Vec::new();
    for round in 0..3 {
        let bytes_len = csv.len() as u64;
        let msgs: Vec<pb::UploadDatasetRequest> = csv
            .chunks(1 << 20)
            .enumerate()
            .map(|(i, c)| pb::UploadDatasetRequest {
                filename: if i == 0 { format!("orders_{round}.csv") } else { String::new() },
                format: String::new(),
                chunk: Bytes::copy_from_slice(c),
                size_bytes: if i == 0 { bytes_len } else { 0 },
            })
            .collect();
        let started = Instant::now();
        let d = client.upload_dataset(tokio_stream::iter(msgs)).await?.into_inner().dataset.expect("dataset");
        aware.push(started.elapsed().as_secs_f64());
        assert_eq!(d.status, pb::DatasetStatus::Ready as i32, "{}", d.error);
        assert_eq!(d.row_count as usize, rows);
        assert_eq!(d.version_hash, expected_hash);
        let types: Vec<&str> = d.columns.iter().map(|c| c.r#type.as_str()).collect();
        assert_eq!(types, ["BIGINT", "VARCHAR", "VARCHAR", "BIGINT", "DOUBLE", "DOUBLE", "DATE", "BOOLEAN"]);
    }
    let aware_best = aware.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "duckdb read_csv in-process (CREATE TABLE AS, 2 threads, best of 3): {:.3} s   runs: {:?}",
        duck_best,
        duck.iter().map(|d| format!("{:.3}", d.0)).collect::<Vec<_>>()
    );
    println!(
        "aware UploadDataset end to end (1 MiB chunks, best of 3):          {:.3} s   runs: {:?}",
        aware_best,
        aware.iter().map(|s| format!("{s:.3}")).collect::<Vec<_>>()
    );
    println!("ratio aware / duckdb: {:.2}x (target <= 2.0x)", aware_best / duck_best);
    println!("row count, column types and version hash: verified");
    Ok(())
}
