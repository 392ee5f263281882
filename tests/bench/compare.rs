//! Side-by-side table of `aware-bench peer` and the peer harness (`load.jsonl` of
//! `../shared/bench/langgraph/run.sh`): for every concurrency level both ran, aware's figures,
//! each LangGraph configuration's, and the ratios aware / LangGraph (one set per aware label, e.g.
//! the peer's one SQL text and `--distinct-sql`).

use serde_json::Value;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub(crate) struct Opts {
    /// JSON lines written by `aware-bench peer --out`.
    #[arg(long)]
    aware: PathBuf,
    /// JSON lines written by the peer harness (`$OUT/load.jsonl`).
    #[arg(long)]
    peer: PathBuf,
}

fn read(path: &PathBuf) -> anyhow::Result<Vec<Value>> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(text.lines().filter(|l| !l.trim().is_empty()).map(serde_json::from_str).collect::<Result<_, _>>()?)
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn ms3(v: &Value) -> String {
    format!("{:.0}/{:.0}/{:.0}", num(&v["p50"]), num(&v["p95"]), num(&v["p99"]))
}

fn ratio(a: f64, b: f64) -> String {
    match a / b {
        r if !(b > 0.0 && r.is_finite()) => "–".to_owned(),
        r if r >= 10.0 => format!("{r:.0}×"),
        r if r >= 1.0 => format!("{r:.2}×"),
        r => format!("{r:.3}×"),
    }
}

pub(crate) fn main(opts: Opts) -> anyhow::Result<()> {
    let aware = read(&opts.aware)?;
    let peer = read(&opts.peer)?;
    println!(
        "| clients | server | runs ok | runs/s | TTFE p50/p95/p99 ms | TTFT p50/p95/p99 ms | TTC p50/p95/p99 ms | events/run | server CPU ms/run | server RSS MiB start→peak |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let row = |label: &str, r: &Value| {
        let rss = &r["server_rss_mb"];
        println!(
            "| {} | {label} | {}/{} | {} | {} | {} | {} | {} | {} | {}→{} |",
            r["concurrency"],
            r["runs_ok"],
            r["runs_ok"].as_u64().unwrap_or(0)
                + r["runs_bad"].as_u64().unwrap_or(0)
                + r["exceptions"].as_u64().unwrap_or(0),
            r["runs_per_s"],
            ms3(&r["ttfe_ms"]),
            ms3(&r["ttft_ms"]),
            ms3(&r["ttc_ms"]),
            r["events_per_run"]
                .as_array()
                .map(|a| a.iter().map(Value::to_string).collect::<Vec<_>>().join(","))
                .unwrap_or_default(),
            r["server_cpu_ms_per_run"],
            rss["start"],
            rss["peak"],
        );
    };
    let mut ratios = Vec::new();
    let mut levels: Vec<&Value> = Vec::new();
    for a in &aware {
        if !levels.contains(&&a["concurrency"]) {
            levels.push(&a["concurrency"]);
        }
    }
    // Per level: every aware run at that level, then each LangGraph configuration once.
    for conc in levels {
        let peers: Vec<&Value> = peer.iter().filter(|p| &p["concurrency"] == conc).collect();
        for a in aware.iter().filter(|a| &a["concurrency"] == conc) {
            let ours = a["label"].as_str().unwrap_or("aware");
            row(ours, a);
            for p in &peers {
                let label = format!("LangGraph {}", p["label"].as_str().unwrap_or("?"));
                ratios.push(format!(
                    "| {conc} | {ours} | {label} | {} | {} | {} | {} | {} |",
                    ratio(num(&a["runs_per_s"]), num(&p["runs_per_s"])),
                    ratio(num(&a["ttfe_ms"]["p50"]), num(&p["ttfe_ms"]["p50"])),
                    ratio(num(&a["ttfe_ms"]["p99"]), num(&p["ttfe_ms"]["p99"])),
                    ratio(num(&a["ttc_ms"]["p99"]), num(&p["ttc_ms"]["p99"])),
                    ratio(num(&a["server_cpu_ms_per_run"]), num(&p["server_cpu_ms_per_run"])),
                ));
            }
        }
        for p in &peers {
            row(&format!("LangGraph {}", p["label"].as_str().unwrap_or("?")), p);
        }
    }
    println!("\nRatios aware / LangGraph (runs/s: higher is better for aware; times and CPU: lower is better)\n");
    println!("| clients | aware | against | runs/s | TTFE p50 | TTFE p99 | TTC p99 | server CPU per run |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in ratios {
        println!("{r}");
    }
    Ok(())
}
