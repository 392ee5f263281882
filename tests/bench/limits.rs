//! Per-user limits under load, in two parts (default limits throughout; two cores shared by the
//! server, its workers and this load generator).
//!
//! 1. Request rate: user B makes 300 `ListDatasets` calls at 100/s, alone and then while user A
//!    floods the server from 32 concurrent loops far above A's allowance (200 requests/s, burst
//!    400). Prints B's p50/p99 both times and A's answered/refused counts.
//! 2. Shared workers: user B's `SELECT 1`, an 8-byte CSV upload and a `ListDirectory`, 60 rounds
//!    alone and then while user A floods all three pools — 6 loops of slow SQL (until the query
//!    timeout), 2 loops uploading a 30 MB CSV and 1 loop uploading a Parquet decompression bomb,
//!    8 loops listing a folder. Prints B's p50/p99 per operation both times and, per pool, how
//!    many of A's requests were answered and how many were refused with RESOURCE_EXHAUSTED.
//!
//! Run: `scripts/bench limits`.

use crate::common::percentile;
use aware_e2e::{TestServer, add_user, authed};
use aware_proto::v1 as pb;
use aware_proto::v1::datasets_service_client::DatasetsServiceClient;
use aware_proto::v1::files_service_client::FilesServiceClient;
use aware_proto::v1::query_service_client::QueryServiceClient;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tonic::transport::Channel;

async fn latencies(server: &TestServer, token: &str, n: usize) -> anyhow::Result<Vec<f64>> {
    let mut client = DatasetsServiceClient::new(server.channel().await);
    let mut lat = Vec::with_capacity(n);
    let mut pace = tokio::time::interval(Duration::from_millis(10));
    for _ in 0..n {
        pace.tick().await;
        let t = Instant::now();
        client.list_datasets(authed(pb::ListDatasetsRequest::default(), token)).await?;
        lat.push(t.elapsed().as_secs_f64() * 1e3);
    }
    lat.sort_by(f64::total_cmp);
    Ok(lat)
}

pub(crate) async fn main() -> anyhow::Result<()> {
    request_rate().await?;
    shared_workers().await
}

async fn request_rate() -> anyhow::Result<()> {
    let server = TestServer::start(&["--auth", "api-key"]);
    let a = add_user(&server.data_dir, "flooder", "analyst", &[]);
    let b = add_user(&server.data_dir, "neighbour", "analyst", &[]);
    latencies(&server, &b, 50).await?; // warm up
    let alone = latencies(&server, &b, 300).await?;

    let stop = Arc::new(AtomicBool::new(false));
    let (answered, refused) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut flood = Vec::new();
    for _ in 0..32 {
        let mut client = DatasetsServiceClient::new(server.channel().await);
        let (a, stop, answered, refused) = (a.clone(), stop.clone(), answered.clone(), refused.clone());
        flood.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                match client.list_datasets(authed(pb::ListDatasetsRequest::default(), &a)).await {
                    Ok(_) => answered.fetch_add(1, Ordering::Relaxed),
                    Err(_) => refused.fetch_add(1, Ordering::Relaxed),
                };
            }
        }));
    }
    let started = Instant::now();
    let flooded = latencies(&server, &b, 300).await?;
    let secs = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for f in flood {
        f.await?;
    }
    let (ok, no) = (answered.load(Ordering::Relaxed), refused.load(Ordering::Relaxed));
    println!("1. request rate");
    println!(
        "user B, 300 ListDatasets at 100/s alone: p50 {:.2} ms, p99 {:.2} ms",
        percentile(&alone, 0.5),
        percentile(&alone, 0.99)
    );
    println!(
        "user B, the same while user A floods from 32 loops: p50 {:.2} ms, p99 {:.2} ms",
        percentile(&flooded, 0.5),
        percentile(&flooded, 0.99)
    );
    println!(
        "user A in those {secs:.1} s: {ok} answered ({:.0}/s), {no} refused with RESOURCE_EXHAUSTED ({:.0}/s)",
        ok as f64 / secs,
        no as f64 / secs
    );
    Ok(())
}

/// A's answered and refused requests on one pool.
#[derive(Default)]
struct Tally {
    answered: AtomicUsize,
    refused: AtomicUsize,
    other: AtomicUsize,
}

impl Tally {
    fn count<T>(&self, outcome: &Result<T, tonic::Status>) {
        let counter = match outcome {
            Ok(_) => &self.answered,
            Err(e) if e.code() == tonic::Code::ResourceExhausted => &self.refused,
            // A slow query that reached its timeout was served its share, then stopped.
            Err(_) => &self.other,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn line(&self, pool: &str, secs: f64) -> String {
        let (ok, no, other) = (
            self.answered.load(Ordering::Relaxed),
            self.refused.load(Ordering::Relaxed),
            self.other.load(Ordering::Relaxed),
        );
        format!(
            "user A, {pool}: {ok} answered, {other} ended otherwise (timeouts), {no} refused with RESOURCE_EXHAUSTED ({:.0}/s)",
            no as f64 / secs
        )
    }
}

fn upload_request(filename: &str, bytes: &[u8]) -> Vec<pb::UploadDatasetRequest> {
    bytes
        .chunks(1 << 20)
        .enumerate()
        .map(|(i, c)| pb::UploadDatasetRequest {
            filename: if i == 0 { filename.to_owned() } else { String::new() },
            size_bytes: if i == 0 { bytes.len() as u64 } else { 0 },
            chunk: c.to_vec().into(),
            ..Default::default()
        })
        .collect()
}

/// B's three operations, `rounds` times each, interleaved: sorted latencies (ms) per operation.
async fn neighbour_rounds(channel: &Channel, token: &str, rounds: usize) -> anyhow::Result<[Vec<f64>; 3]> {
    let mut query = QueryServiceClient::new(channel.clone());
    let mut datasets = DatasetsServiceClient::new(channel.clone());
    let mut files = FilesServiceClient::new(channel.clone());
    let mut out: [Vec<f64>; 3] = Default::default();
    for _ in 0..rounds {
        let t = Instant::now();
        query
            .execute_sql(authed(
                pb::ExecuteSqlRequest { sql: "SELECT 1 AS one".into(), limit: 0, ..Default::default() },
                token,
            ))
            .await?;
        out[0].push(t.elapsed().as_secs_f64() * 1e3);

        let t = Instant::now();
        let request = tokio_stream::iter(upload_request("tiny.csv", b"a,b\n1,2\n"));
        let dataset = datasets.upload_dataset(authed(request, token)).await?.into_inner().dataset.unwrap_or_default();
        out[1].push(t.elapsed().as_secs_f64() * 1e3);
        anyhow::ensure!(dataset.status == pb::DatasetStatus::Ready as i32, "B's upload: {}", dataset.error);
        datasets.delete_dataset(authed(pb::DeleteDatasetRequest { dataset_id: dataset.id }, token)).await?;

        let t = Instant::now();
        let list = pb::ListDirectoryRequest { root: "shared".into(), path: String::new(), pattern: "*.csv".into() };
        files.list_directory(authed(list, token)).await?;
        out[2].push(t.elapsed().as_secs_f64() * 1e3);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for v in &mut out {
        v.sort_by(f64::total_cmp);
    }
    Ok(out)
}

/// A Parquet file of one 4 MiB string repeated on 2,000 rows (gigabytes decoded, kilobytes on disk).
fn parquet_bomb() -> anyhow::Result<Vec<u8>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bomb.parquet");
    duckdb::Connection::open_in_memory()?.execute_batch(&format!(
        "COPY (SELECT s FROM (SELECT repeat('a', 4 * 1024 * 1024) AS s) CROSS JOIN range(2000)) TO '{}' \
         (FORMAT parquet, COMPRESSION zstd)",
        path.display()
    ))?;
    Ok(std::fs::read(path)?)
}

async fn shared_workers() -> anyhow::Result<()> {
    let folder = tempfile::tempdir()?;
    for i in 0..200 {
        std::fs::write(folder.path().join(format!("file{i:03}.csv")), "a\n1\n")?;
    }
    // The rate limit would refuse most of A's flood at the door (part 1); here the pools are
    // what is measured, so it is off.
    let server = TestServer::start_with_env(
        &["--auth", "api-key", "--files-root", &format!("shared={}", folder.path().display())],
        &[("AWARE_LIMITS__REQUESTS_PER_SECOND_PER_USER", "0")],
    );
    // File tools are for admins (approved folders are the host's): both users are.
    let a = add_user(&server.data_dir, "flooder", "admin", &[]);
    let b = add_user(&server.data_dir, "neighbour", "admin", &[]);
    let channel = server.channel().await;
    neighbour_rounds(&channel, &b, 5).await?; // warm up
    let alone = neighbour_rounds(&channel, &b, 60).await?;

    let big: Vec<u8> = {
        let mut csv = b"id,city,amount,note\n".to_vec();
        for i in 0..600_000u32 {
            csv.extend(format!("{i},city{},{}.{:02},some words about row {i}\n", i % 97, i % 10_000, i % 100).bytes());
        }
        csv
    };
    let bomb = parquet_bomb()?;
    let stop = Arc::new(AtomicBool::new(false));
    let (sql, ingest, files) = (Arc::new(Tally::default()), Arc::new(Tally::default()), Arc::new(Tally::default()));
    let mut flood = Vec::new();
    let slow =
        "SELECT count(*) FROM range(1000000) a(x), range(99) b(y) WHERE sha256(CAST(a.x * b.y AS VARCHAR)) < '0'";
    for _ in 0..6 {
        let (mut q, a, stop, tally) = (QueryServiceClient::new(channel.clone()), a.clone(), stop.clone(), sql.clone());
        flood.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let outcome = q
                    .execute_sql(authed(pb::ExecuteSqlRequest { sql: slow.into(), limit: 0, ..Default::default() }, &a))
                    .await;
                tally.count(&outcome);
                if outcome.is_err() {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }));
    }
    for (name, bytes) in [("big.csv", big.clone()), ("big.csv", big), ("bomb.parquet", bomb)] {
        let (mut d, a, stop, tally) =
            (DatasetsServiceClient::new(channel.clone()), a.clone(), stop.clone(), ingest.clone());
        flood.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let outcome = d.upload_dataset(authed(tokio_stream::iter(upload_request(name, &bytes)), &a)).await;
                tally.count(&outcome);
                match outcome {
                    Ok(r) => {
                        let id = r.into_inner().dataset.unwrap_or_default().id;
                        let _ = d.delete_dataset(authed(pb::DeleteDatasetRequest { dataset_id: id }, &a)).await;
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
                }
            }
        }));
    }
    for _ in 0..8 {
        let (mut f, a, stop, tally) =
            (FilesServiceClient::new(channel.clone()), a.clone(), stop.clone(), files.clone());
        flood.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let list =
                    pb::ListDirectoryRequest { root: "shared".into(), path: String::new(), pattern: String::new() };
                let outcome = f.list_directory(authed(list, &a)).await;
                tally.count(&outcome);
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(3)).await; // the flood fills the pools
    let started = Instant::now();
    let flooded = neighbour_rounds(&channel, &b, 60).await?;
    let secs = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for f in flood {
        f.await?;
    }
    println!("2. shared workers (B: 60 rounds of each operation)");
    for (i, what) in ["SELECT 1 (ExecuteSql)", "8-byte CSV upload (UploadDataset)", "ListDirectory"].iter().enumerate()
    {
        println!(
            "user B, {what}: alone p50 {:.1} ms, p99 {:.1} ms; while A floods p50 {:.1} ms, p99 {:.1} ms",
            percentile(&alone[i], 0.5),
            percentile(&alone[i], 0.99),
            percentile(&flooded[i], 0.5),
            percentile(&flooded[i], 0.99)
        );
    }
    println!("{}", sql.line("SQL, 6 loops of slow queries", secs));
    println!("{}", ingest.line("ingestion, 2 loops of a 30 MB CSV and 1 of a Parquet bomb", secs));
    println!("{}", files.line("files, 8 loops of ListDirectory", secs));
    Ok(())
}
