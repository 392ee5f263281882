//! aware's domain layer: identifiers, the data model, the error taxonomy, the ports (traits) that
//! storage and the engines implement, and the services that hold the business rules.
//!
//! Map:
//! - runs of the agent: `runs/` — `engine.rs` (entry points), `admission.rs`, `delivery.rs`
//!   (resume), `driver/` (the agent loop), `model_view/` (what the model sees), `tools/`,
//!   `router.rs`, `events.rs`, `model.rs` and `store.rs` (the language-model and run-log ports);
//! - the policy gate: `policy.rs`;
//! - ports: `ports/` (one file each) and their contracts: `contract/` (feature `contract`);
//! - services: `datasets.rs` (+ `dataset.rs`, `staging.rs`, `samples.rs`), `query.rs` (+
//!   `query_plan.rs`), `search.rs`, `files.rs`, `history.rs`, `categories.rs`, `memory.rs`,
//!   `audit.rs` (reading the audit log), `admin.rs` (users and keys over the API);
//! - shared: `ids.rs`, `auth.rs`, `error.rs`, `value.rs`, `run.rs`, `fair.rs` (fair slots), `text.rs`
//!   (words).
//!
//! This crate must not depend on tonic, prost, sqlx or duckdb (`deny.toml`): the gRPC layer
//! converts its types at the boundary, and concrete storage/engines live in the adapter crates.

// A new variant of an event, error or intent must be handled wherever one is matched: no `_` arm
// hides it (e.g. from the replay de-duplication of a restarted run).
#![warn(clippy::wildcard_enum_match_arm)]

pub mod admin;
pub mod audit;
pub mod auth;
pub mod categories;
pub mod chart;
#[cfg(feature = "contract")]
pub mod contract;
pub mod curation;
pub mod dataset;
pub mod datasets;
pub mod error;
pub mod fair;
pub mod files;
pub mod history;
pub mod ids;
mod kept_catalogs;
pub mod knowledge;
pub mod memory;
pub mod policy;
pub mod ports;
pub mod query;
pub mod query_plan;
pub mod run;
pub mod runs;
pub mod samples;
pub mod search;
pub mod staging;
pub mod text;
pub mod value;

pub use error::{Error, ErrorCode, Result};
