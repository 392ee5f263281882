//! Search bench. Prints:
//! - retrieval quality on `tests/search-eval` (249 hand-written support tickets, 42 judged
//!   queries): nDCG@10 of lexical (BM25), vector (all-MiniLM-L6-v2) and hybrid (RRF) search,
//!   overall and by query kind, through `SearchDatasets` on the real server;
//! - indexing 100,000 short texts (upload → searchable by words → vectors ready) and query
//!   latency p50/p99 by mode on that dataset (HNSW above 20,000 vectors).
//!
//! Run: `scripts/bench search [ROWS]` (ROWS defaults to 100000; the model must be installed:
//! `scripts/install-tools`).

use crate::common::percentile;
use aware_e2e::{TestServer, model_dir, upload};
use aware_proto::v1 as pb;
use aware_proto::v1::datasets_service_client::DatasetsServiceClient;
use serde_json::Value;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

/// nDCG@10 with gains 2^rel − 1 and the ideal ordering of every judged ticket.
fn ndcg10(ranked: &[String], judged: &HashMap<String, u32>) -> f64 {
    let gain = |rel: u32| f64::from((1u32 << rel) - 1);
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, id)| gain(*judged.get(id).unwrap_or(&0)) / (i as f64 + 2.0).log2())
        .sum();
    let mut ideal: Vec<u32> = judged.values().copied().collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal.iter().take(10).enumerate().map(|(i, rel)| gain(*rel) / (i as f64 + 2.0).log2()).sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

async fn wait_ready(client: &mut DatasetsServiceClient<Channel>, id: &str) -> anyhow::Result<(Duration, Duration)> {
    let started = Instant::now();
    let mut words_at = None;
    loop {
        let d = client
            .get_dataset(pb::GetDatasetRequest { dataset_id: id.into(), sample_rows: Some(0) })
            .await?
            .into_inner()
            .dataset
            .unwrap_or_default();
        let state = d.search_index.as_ref().map(|s| s.state()).unwrap_or_default();
        if words_at.is_none() && matches!(state, pb::SearchIndexState::Embedding | pb::SearchIndexState::Ready) {
            words_at = Some(started.elapsed());
        }
        match state {
            pb::SearchIndexState::Ready => return Ok((words_at.unwrap_or_default(), started.elapsed())),
            pb::SearchIndexState::Failed => anyhow::bail!("indexing failed: {:?}", d.search_index),
            pb::SearchIndexState::Unspecified
            | pb::SearchIndexState::Indexing
            | pb::SearchIndexState::NoText
            | pb::SearchIndexState::Embedding
            | pb::SearchIndexState::Lexical => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

async fn search(
    client: &mut DatasetsServiceClient<Channel>,
    dataset: &str,
    query: &str,
    mode: &str,
) -> anyhow::Result<Vec<pb::SearchHit>> {
    let req =
        pb::SearchDatasetsRequest { query: query.into(), dataset_id: dataset.into(), limit: 10, mode: mode.into() };
    Ok(client.search_datasets(req).await?.into_inner().hits)
}

/// 100,000 short texts like support tickets: a subject template with varied objects and
/// details, so both words and meaning have something to find.
fn short_texts(rows: usize) -> String {
    let problems = [
        "cannot sign in to",
        "was charged twice for",
        "keeps crashing when opening",
        "is very slow loading",
        "export fails for",
        "lost data after syncing",
        "never received the email about",
        "wants a refund for",
        "reports a wrong timezone in",
        "asks how to delete",
    ];
    let things = [
        "the dashboard",
        "my invoice",
        "the mobile app",
        "the weekly report",
        "our team workspace",
        "the calendar",
        "a shared folder",
        "the billing page",
        "the API key",
        "my account",
        "the CSV export",
        "the settings page",
    ];
    let details = [
        "since yesterday",
        "on Android",
        "on an iPhone",
        "in Safari",
        "after the update",
        "every morning",
        "for the whole team",
        "with error E-4012",
        "twice this week",
        "when offline",
    ];
    let mut out = String::from("id,text\n");
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for i in 0..rows {
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let line = format!(
            "Customer {} {} {} {}",
            i % 9973,
            problems[next(problems.len())],
            things[next(things.len())],
            details[next(details.len())]
        );
        out.push_str(&format!("{i},{line}\n"));
    }
    out
}

pub(crate) async fn main(rows: usize) -> anyhow::Result<()> {
    let model = model_dir();
    let server = TestServer::start_with_env(&["--no-samples"], &[("AWARE_SEARCH__MODEL_DIR", &model)]);
    let mut client = DatasetsServiceClient::new(server.channel().await).max_decoding_message_size(64 << 20);

    // 1. Retrieval quality.
    let eval = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("search-eval");
    let tickets = upload(&server, "tickets.csv", std::fs::read(eval.join("tickets.csv"))?).await?;
    let (_, ready) = wait_ready(&mut client, &tickets.id).await?;
    println!("eval set: {} tickets indexed (words + vectors) in {:.1} s", tickets.row_count, ready.as_secs_f64());
    // Ticket ids are 1..N in file order, and a hit's row id is its 0-based position.
    let ticket_id = |row: u64| (row + 1).to_string();
    let queries: Vec<Value> = std::fs::read_to_string(eval.join("queries.jsonl"))?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let modes = ["lexical", "vector", "hybrid"];
    let mut scores: HashMap<(&str, String), Vec<f64>> = HashMap::new();
    for q in &queries {
        let judged: HashMap<String, u32> = q["relevant"]
            .as_object()
            .map(|o| o.iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0) as u32)).collect())
            .unwrap_or_default();
        let kind = q["kind"].as_str().unwrap_or("?").to_owned();
        for mode in modes {
            let hits = search(&mut client, &tickets.id, q["query"].as_str().unwrap_or_default(), mode).await?;
            let ranked: Vec<String> = hits.iter().map(|h| ticket_id(h.row_id)).collect();
            let s = ndcg10(&ranked, &judged);
            scores.entry((mode, kind.clone())).or_default().push(s);
            scores.entry((mode, "all".into())).or_default().push(s);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    println!("\nnDCG@10 ({} queries)   lexical   vector   hybrid", queries.len());
    for kind in ["keyword", "paraphrase", "mixed", "all"] {
        let n = scores.get(&("hybrid", kind.to_owned())).map_or(0, Vec::len);
        let cells: Vec<String> = modes
            .iter()
            .map(|m| format!("{:>7.3}", mean(scores.get(&(*m, kind.to_owned())).map_or(&[][..], |v| v))))
            .collect();
        println!("{:<22} {}", format!("{kind} (n={n})"), cells.join("  "));
    }

    // 2. Indexing many short texts, then query latency.
    let csv = short_texts(rows);
    let started = Instant::now();
    let big = upload(&server, "short_texts.csv", csv.into_bytes()).await?;
    let ingested = started.elapsed();
    let (words, vectors) = wait_ready(&mut client, &big.id).await?;
    let index = client
        .get_dataset(pb::GetDatasetRequest { dataset_id: big.id.clone(), sample_rows: Some(0) })
        .await?
        .into_inner()
        .dataset
        .and_then(|d| d.search_index)
        .unwrap_or_default();
    println!(
        "\nindexing {rows} short texts: upload+ingest {:.1} s; searchable by words {:.1} s later; vectors ready {:.1} s later ({:.0} texts/s, {} index)",
        ingested.as_secs_f64(),
        words.as_secs_f64(),
        vectors.as_secs_f64(),
        rows as f64 / vectors.as_secs_f64(),
        index.vector_index
    );
    let queries = [
        "cannot log in on my phone",
        "double charge on invoice",
        "app crashes at start",
        "slow weekly report",
        "E-4012",
        "timezone wrong in calendar",
        "delete my account",
        "export to CSV broken",
    ];
    println!("query latency over {rows} rows (200 queries each, warm):");
    for mode in modes {
        for q in &queries {
            search(&mut client, &big.id, q, mode).await?;
        }
        let mut lat = Vec::new();
        for i in 0..200 {
            let t = Instant::now();
            search(&mut client, &big.id, queries[i % queries.len()], mode).await?;
            lat.push(t.elapsed().as_secs_f64() * 1e3);
        }
        lat.sort_by(f64::total_cmp);
        println!("  {mode:<8} p50 {:.1} ms  p99 {:.1} ms", percentile(&lat, 0.5), percentile(&lat, 0.99));
    }
    Ok(())
}
