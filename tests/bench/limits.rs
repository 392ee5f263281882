//! Per-user limits under load: user B makes 300 `ListDatasets` calls at 100/s (inside its own
//! allowance), alone and then
//! while user A floods the server from 32 concurrent loops far above A's allowance (the default
//! limits: 200 requests/s, burst 400). Prints B's p50/p99 both times and A's answered/refused
//! counts.
//!
//! Run: `scripts/bench limits`.

use crate::common::percentile;
use aware_e2e::{TestServer, add_user, authed};
use aware_proto::v1 as pb;
use aware_proto::v1::datasets_service_client::DatasetsServiceClient;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

async fn latencies(server: &TestServer, token: &str, n: usize) -> anyhow::Result<Vec<f64>> {
    let mut client = DatasetsServiceClient::new(server.channel().await);
    let mut lat = Vec::with_capacity(n);
    let mut pace = tokio::time::interval(std::time::Duration::from_millis(10));
    for _ in 0..n {
        pace.tick().await;
        let t = Instant::now();
        client.list_datasets(authed(pb::ListDatasetsRequest::default(), token)).await?;
        lat.push(t.elapsed().as_secs_f64() * 1e3);
    }
    lat.sort_by(f64::total_cmp);
    Ok(lat)
}

pub async fn main() -> anyhow::Result<()> {
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
