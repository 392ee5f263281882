//! Port contracts: one suite of checks per port that every adapter must pass — the SQLite adapter
//! (`aware-store`), the in-memory one (`aware-memory`) and any later one (PostgreSQL) run the same
//! functions from their tests. A contract states what the domain relies on, not how an adapter
//! stores it. Built only with the `contract` feature (for those test suites).
//!
//! - [`run_log`]: the run engine's log — threads and snapshots, chat runs, the event log, the
//!   transcript, tool calls, confirmations, spans;
//! - [`run_records`]: runs and their capsules, shared with the run log;
//! - [`catalog`]: the dataset catalog; [`uploads`]: chunked-upload bookkeeping;
//! - [`users`]: users and API keys;
//! - [`conversations`]: threads listed, renamed, forked and deleted, session grants, edited
//!   approvals, feedback; [`memories`]: each user's remembered facts; [`saved_queries`]: each
//!   user's verified queries;
//! - [`snapshots`]: the form the engine's snapshot tests write a run's events in.
//!
//! The audit log's port only appends; what it keeps is checked through the SQLite adapter's own
//! reader (`aware-store`'s tests).

mod catalog;
mod conversations;
mod run_log;
mod run_records;
pub mod snapshots;
mod users;

pub use catalog::{catalog, catalog_versions, uploads};
pub use conversations::{conversations, memories, saved_queries};
pub use run_log::run_log;
pub use run_records::run_records;
pub use users::users;

use crate::ids::UserId;

/// The two users every contract assumes exist (the adapter's test creates them).
fn ana() -> UserId {
    UserId::parse("ana").expect("a user id")
}

fn bo() -> UserId {
    UserId::parse("bo").expect("a user id")
}
