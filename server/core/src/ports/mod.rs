//! Ports: the traits through which the domain reaches storage and engines, one file per concern.
//! `aware-store` implements the storage ports with SQLite, `aware-memory` in memory (both pass
//! `crate::contract`), and a PostgreSQL twin can join them without touching the domain;
//! `aware-sandbox` implements [`DatasetEngine`] and [`SqlEngine`].
//!
//! Here: [`Catalog`] (`catalog.rs`), [`Users`] (`users.rs`), [`AuditLog`] (`audit.rs`),
//! [`Uploads`] (`uploads.rs`), [`DatasetEngine`] (`dataset_engine.rs`), [`RunStore`] — the run
//! records (`run_records.rs`), [`SqlEngine`] (`sql.rs`), [`ExternalTools`] — external MCP
//! servers' tools (`external_tools.rs`), [`MemoryStore`] — what users asked aware to
//! remember (`memories.rs`), [`SavedQueries`] — verified questions and their SQL
//! (`saved_queries.rs`), [`QuestionSuggester`] — questions to offer about a dataset
//! (`suggestions.rs`). The ports of the run engine sit beside
//! it: the run log (`runs/store.rs`), the language model (`runs/model.rs`), the tools
//! (`runs/tools.rs`); and the search index and embedder (`search.rs`), approved folders
//! (`files.rs`), categorical values (`categories.rs`) beside the services that use them.

mod audit;
mod catalog;
mod dataset_engine;
mod external_tools;
mod memories;
mod run_records;
mod saved_queries;
mod sql;
mod suggestions;
mod uploads;
mod users;

pub use audit::{AuditEntry, AuditFilter, AuditLog, StoredAuditEntry, record_or_log};
pub use catalog::{Catalog, DatasetUpdate, NewContent, NewDataset};
pub use dataset_engine::DatasetEngine;
pub use external_tools::{ExternalServer, ExternalTools, NoExternalTools, ServerState};
pub use memories::{Memory, MemoryStore};
pub use run_records::RunStore;
pub use saved_queries::{SavedQueries, SavedQuery};
pub use sql::{HeavyQuery, ScanEstimate, SqlEngine, SqlOutcome};
pub use suggestions::QuestionSuggester;
pub use uploads::{UploadSession, Uploads};
pub use users::{ApiKey, ApiKeyGrant, User, Users};
