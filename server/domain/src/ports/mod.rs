//! Ports: the traits through which the services and the run engine reach storage, engines and
//! models, one file per concern. `aware-store` implements the storage ports with SQLite and
//! PostgreSQL, `aware-memory` in memory (all pass `crate::contract`); `aware-sandbox` implements
//! [`DatasetEngine`], [`SqlEngine`] and [`FileAccess`]; `aware-search` [`SearchStore`] and
//! [`Embedder`]; `aware-llm` and `aware-planner` [`LanguageModel`].
//!
//! Storage: [`Catalog`] (`catalog.rs`), [`Users`] (`users.rs`), [`AuditLog`] (`audit.rs`),
//! [`Uploads`] (`uploads.rs`), [`RunStore`] — the run records (`run_records.rs`), [`RunLog`] —
//! the run engine's log, one trait per concern: chat runs, leases, events and transcripts, tool
//! calls and spans, confirmations and grants, threads, snapshots (`run_log.rs`), [`MemoryStore`]
//! — what users asked aware to remember (`memories.rs`), [`SavedQueries`] — verified questions
//! and their SQL (`saved_queries.rs`), [`Health`] — whether the store answers now (`health.rs`).
//! Engines: [`DatasetEngine`] (`dataset_engine.rs`),
//! [`SqlEngine`] (`sql.rs`), [`FileAccess`] — the file jail (`files.rs`), [`SearchStore`] and
//! [`Embedder`] (`search_index.rs`), [`Categories`] — a dataset's categorical values
//! (`categories.rs`). The run engine's: [`LanguageModel`] (`model.rs`), [`Fleet`] — the servers
//! sharing one store (`fleet.rs`), [`QuestionSuggester`] (`suggestions.rs`). The tools a model
//! calls are a port of `aware-core` (`runs/tools/`), since a tool is handed the services.

mod audit;
mod catalog;
pub mod categories;
mod dataset_engine;
pub mod files;
pub mod fleet;
mod health;
mod memories;
pub mod model;
pub mod run_log;
mod run_records;
mod saved_queries;
pub mod search_index;
mod sql;
mod suggestions;
mod uploads;
mod users;

pub use audit::{AuditEntry, AuditFilter, AuditLog, StoredAuditEntry, record_or_log};
pub use catalog::{Catalog, DatasetUpdate, NewContent, NewDataset};
pub use categories::{CategoricalColumn, Categories, ColumnsOf};
pub use dataset_engine::DatasetEngine;
pub use files::FileAccess;
pub use fleet::Fleet;
pub use health::Health;
pub use memories::{Memory, MemoryStore};
pub use model::LanguageModel;
pub use run_log::RunLog;
pub use run_records::RunStore;
pub use saved_queries::{SavedQueries, SavedQuery};
pub use search_index::{Embedder, SearchStore};
pub use sql::{HeavyQuery, ScanEstimate, SqlEngine, SqlOutcome};
pub use suggestions::QuestionSuggester;
pub use uploads::{UploadSession, Uploads};
pub use users::{ApiKey, ApiKeyGrant, User, Users};
