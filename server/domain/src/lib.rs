//! aware's domain: what the other crates talk about, and the ports they talk through. No rules of
//! the business live here (those are `aware-core`'s services and run engine); every adapter
//! (`aware-store`, `aware-memory`, `aware-sandbox`, `aware-search`, `aware-llm`) depends on this
//! crate alone. A store's ports are written once here and checked on every adapter by the
//! contract suites.
//!
//! Map:
//! - identifiers and values: `ids.rs`, `value.rs`, `text.rs` (words), `error.rs` (the error
//!   taxonomy), `auth.rs` (callers, roles, capabilities, deployment modes);
//! - data: `dataset.rs` (datasets, their versions and statistics), `query_plan/` (a structured
//!   question; `compile.rs` its checks and compilation to SQL), `chart.rs`, `files.rs` (listings
//!   and import reports), `search.rs` (search results and index states), `knowledge.rs`
//!   (documents as passages, and citation checks);
//! - runs as data: `run.rs` (a run's record, capsule and tool calls), `events.rs` (the event
//!   log's events, and a question back), `grounding.rs` (the numbers an answer claims and their
//!   sources);
//! - ports, one file per concern, with their contracts written on them: `ports/` — storage
//!   (`catalog`, `users`, `audit`, `uploads`, `run_records`, `run_log`, `memories`, `health`,
//!   `saved_queries`), engines (`dataset_engine`, `sql`, `files` — the file jail,
//!   `search_index` — indexes and embedders, `categories`), the language model (`model`), the
//!   fleet of servers (`fleet`) and question suggestions (`suggestions`);
//! - the port contract suites every adapter runs: `contract/` (feature `contract`);
//! - `fair.rs`: fair slots, shared by the services and the sandbox's worker pools.
//!
//! This crate must not depend on tonic, prost, sqlx or duckdb, nor on any workspace crate
//! (`deny.toml`).

pub mod auth;
pub mod chart;
#[cfg(feature = "contract")]
pub mod contract;
pub mod dataset;
pub mod error;
pub mod events;
pub mod fair;
pub mod files;
pub mod grounding;
pub mod ids;
pub mod knowledge;
pub mod ports;
pub mod query_plan;
pub mod run;
pub mod search;
pub mod text;
pub mod value;

pub use error::{Error, ErrorCode, Result};
