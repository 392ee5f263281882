//! In-memory adapters of aware-core's storage ports. They hold what the SQLite adapter holds, in
//! maps behind one lock each, and keep the same contracts (`aware_domain::contract`, checked by this
//! crate's tests): the second implementation that keeps a contract honest, and a store for tests
//! that need no disk. Nothing here survives the process, so the server never uses them.
//!
//! One file per port: `users.rs`, `catalog.rs`, `uploads.rs`, `runs.rs` (the run records and the
//! state they share with) `run_log.rs`, `memories.rs`, `saved_queries.rs`.
//!
//! Depends on `aware-core` only (`deny.toml`).

mod catalog;
mod memories;
mod run_log;
mod runs;
mod saved_queries;
mod uploads;
mod users;

pub use catalog::MemoryCatalog;
pub use memories::MemoryMemories;
pub use runs::MemoryRuns;
pub use saved_queries::MemorySavedQueries;
pub use uploads::MemoryUploads;
pub use users::MemoryUsers;

use std::sync::{Mutex, MutexGuard};

/// A poisoned lock still guards maps that are each consistent: every change here is one insert,
/// update or removal.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
