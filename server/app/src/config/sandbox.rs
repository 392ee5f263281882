//! `[ingest]` and `[sandbox]`: the worker processes that ingest datasets and run SQL queries.

use serde::{Deserialize, Serialize};

/// Ingestion workers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ingest {
    /// DuckDB memory limit per ingestion worker, in MiB.
    pub memory_mb: u64,
    /// DuckDB threads per ingestion worker.
    pub threads: u32,
    /// Seconds before an ingestion worker is killed.
    pub timeout_secs: u64,
    /// Ingestions running at once.
    pub concurrency: usize,
    /// Of those, how many one user may run at once (with `auth = "api-key"`).
    pub max_per_user: usize,
    /// Seconds an upload waits for an ingestion slot before it is refused.
    pub queue_wait_secs: u64,
}

impl Default for Ingest {
    fn default() -> Self {
        Self { memory_mb: 1024, threads: 2, timeout_secs: 600, concurrency: 2, max_per_user: 1, queue_wait_secs: 300 }
    }
}

/// The SQL sandbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Sandbox {
    /// Queries running at once (each in its own worker process).
    pub workers: usize,
    /// Worker processes kept started and waiting.
    pub warm_workers: usize,
    /// Milliseconds before a query is interrupted (and its worker killed shortly after).
    pub timeout_ms: u64,
    /// DuckDB memory limit per query, in MiB (the worker's address space is capped too).
    pub memory_mb: u64,
    /// DuckDB threads per query.
    pub threads: u32,
    /// Most rows a query returns.
    pub max_rows: u32,
    /// Most bytes of cell data a query returns, in MiB.
    pub max_result_mb: u64,
    /// Queries one user may run at once (with `auth = "api-key"`).
    pub max_queries_per_user: usize,
    /// Milliseconds a query waits for a worker before it is refused.
    pub queue_wait_ms: u64,
    /// A query whose plan reads more rows than this runs only once someone agrees: in chat a
    /// person approves it, over the API the request sets `run_heavy` (0: never asks).
    pub confirm_scan_rows: u64,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self {
            workers: 4,
            warm_workers: 2,
            timeout_ms: 5_000,
            memory_mb: 256,
            threads: 2,
            max_rows: 10_000,
            max_result_mb: 32,
            max_queries_per_user: 2,
            queue_wait_ms: 10_000,
            confirm_scan_rows: 50_000_000,
        }
    }
}
