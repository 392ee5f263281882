//! The data side of aware: DuckDB storage of dataset content, ingestion of uploaded files in
//! supervised worker processes, previews and column statistics ([`DuckDbEngine`], the
//! `DatasetEngine` port), and the SQL sandbox ([`SandboxSql`], the `SqlEngine` port): the
//! validator, the worker pool and the worker process; and the file jail ([`files`]) for approved
//! folders. Every worker's CPU priority follows [`priority`]: short work first.
//!
//! Threat model for this crate: uploaded files are hostile (malformed, huge, crafted to crash a
//! parser or exhaust memory). They are parsed only inside a short-lived worker process with a
//! memory limit, resource limits and a deadline, killed and reaped if anything goes wrong, so a
//! bad file can fail its own upload and nothing else. The server process only ever opens DuckDB
//! files that a worker produced and runs SQL that this crate generated, with quoted identifiers;
//! the one thing it reads of an upload itself is a Parquet footer's sizes ([`parquet_meta`], a
//! bounded walk that allocates nothing for what it reads), to refuse a decompression bomb before
//! it takes a worker.

//!
//! Feature `duckdb` (default) builds everything; without it only the parts that do not touch
//! DuckDB remain — the SQL validator, the path rules and the jail — which is what the fuzz targets
//! (`fuzz/`) build, so fuzzing never compiles DuckDB again.

#[cfg(feature = "duckdb")]
mod engine;
pub mod files;
#[cfg(feature = "duckdb")]
pub mod ingest;
pub mod parquet_meta;
#[cfg(feature = "duckdb")]
pub mod pool;
pub mod priority;
pub mod protocol;
pub mod spare;
#[cfg(feature = "duckdb")]
mod sql;
#[cfg(feature = "duckdb")]
mod sql_engine;
#[cfg(feature = "duckdb")]
pub mod sql_worker;
pub mod supervisor;
pub mod validator;
#[cfg(feature = "duckdb")]
mod values;

#[cfg(feature = "duckdb")]
pub use engine::{DuckDbEngine, EngineConfig};
#[cfg(feature = "duckdb")]
pub use sql_engine::{SandboxSql, SqlLimits};
