//! `aware-bench`: the benchmarks. Each starts the real `aware-server` binary on loopback (a fresh
//! data dir, the scripted model where a model is needed), drives it over real gRPC, prints its
//! figures and stops it. Nothing here asserts a time. Usually run through `scripts/bench` and
//! `scripts/bench-vs-peer`; the figures and what they mean are in BENCHMARKS.md.

mod common;
mod compare;
mod limits;
mod mcp;
mod peer;
mod runs;
mod scaling;
mod search;
mod sql;
mod upload;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "aware-bench", about = "aware's benchmarks (figures, never assertions); see BENCHMARKS.md")]
struct Cli {
    #[command(subcommand)]
    bench: Bench,
}

#[derive(Subcommand)]
enum Bench {
    /// The LangGraph peer scenario (one SQL tool call, 20 streamed chunks) at 1/8/32/64 clients.
    Peer(peer::Opts),
    /// Side-by-side table of `peer` output and the peer harness's load.jsonl.
    Compare(compare::Opts),
    /// Per-user limits: one user floods, another user's latency with and without the flood.
    Limits,
    /// MCP sessions: the server's RSS while viewer keys loop `initialize` on `/mcp`, and after.
    Mcp(mcp::Opts),
    /// Run engine: events/s through one stream, message → RunStarted under 1/64/1000 streams,
    /// RSS of 10,000 idle streams, replay of a 10,000-event run.
    Runs(runs::Opts),
    /// How cost grows: datasets per user, runs on a thread, dataset rows, idle streams.
    Scaling(scaling::Opts),
    /// SQL sandbox: validator µs, ExecuteSql point query, GROUP BY over ROWS rows vs in-process DuckDB.
    Sql {
        #[arg(default_value_t = 10_000_000)]
        rows: u64,
    },
    /// Search: nDCG@10 on tests/search-eval, indexing ROWS short texts, query latency.
    Search {
        #[arg(default_value_t = 100_000)]
        rows: usize,
    },
    /// Upload: a ROWS-row CSV through UploadDataset vs DuckDB's read_csv.
    Upload {
        #[arg(default_value_t = 1_000_000)]
        rows: usize,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    match Cli::parse().bench {
        Bench::Peer(opts) => peer::main(opts).await,
        Bench::Compare(opts) => compare::main(opts),
        Bench::Limits => limits::main().await,
        Bench::Mcp(opts) => mcp::main(opts).await,
        Bench::Runs(opts) => runs::main(opts).await,
        Bench::Scaling(opts) => scaling::main(opts).await,
        Bench::Sql { rows } => sql::main(rows).await,
        Bench::Search { rows } => search::main(rows).await,
        Bench::Upload { rows } => upload::main(rows).await,
    }
}
