//! Port contracts: one suite of checks per port that every adapter must pass — the SQLite adapter
//! (`aware-store`), the in-memory one (`aware-memory`) and any later one (PostgreSQL) run the same
//! functions from their tests. A contract states what the domain relies on, not how an adapter
//! stores it. Built only with the `contract` feature (for those test suites).
//!
//! - [`run_log`]: the run engine's log — threads and snapshots, chat runs, the event log, the
//!   transcript, tool calls, confirmations, spans;
//! - [`catalog`]: the dataset catalog; [`uploads`]: chunked-upload bookkeeping.

mod catalog;
mod run_log;

pub use catalog::{catalog, uploads};
pub use run_log::run_log;
