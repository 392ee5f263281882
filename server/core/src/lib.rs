//! aware's services and run engine: the business rules, over the ports of `aware-domain` (which
//! holds the data types and the port traits every adapter implements).
//!
//! Map:
//! - runs of the agent: `runs/` — `engine.rs` (entry points), `admission.rs`, `approvals.rs`,
//!   `delivery.rs` (resume), `driver/` (the agent loop), `grounding.rs` (an answer's numbers
//!   checked), `model_view/` (what the model sees), `tools/` (the tool port, the registry, one
//!   file per family), `router.rs`, `threads.rs`, `services.rs` (what tools act through);
//! - the policy gate: `policy.rs`;
//! - services: `datasets.rs` (+ `staging.rs`, `samples.rs`, `kept_catalogs.rs`), `query.rs`,
//!   `search.rs`, `files.rs`, `history.rs`, `categories.rs`, `curation.rs`, `memory.rs`,
//!   `audit.rs` (reading the audit log), `admin.rs` (users and keys over the API).
//!
//! This crate must not depend on tonic, prost, sqlx or duckdb, nor on any adapter (`deny.toml`):
//! the gRPC layer converts its types at the boundary, and concrete storage/engines live in the
//! adapter crates.

pub mod admin;
pub mod audit;
pub mod categories;
pub mod curation;
pub mod datasets;
pub mod files;
pub mod history;
mod kept_catalogs;
pub mod memory;
pub mod policy;
pub mod query;
pub mod runs;
pub mod samples;
pub mod search;
pub mod staging;

pub use aware_domain::{Error, ErrorCode, Result};
