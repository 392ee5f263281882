//! The audit log port: who did what, from where, with what outcome — append only.

use crate::auth::{Caller, Source};
use crate::error::Result;
use crate::ids::UserId;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// One audited action.
#[derive(Clone, Debug)]
pub struct AuditEntry {
    pub user_id: UserId,
    pub source: Source,
    /// e.g. `dataset.upload`, `dataset.delete`.
    pub action: String,
    pub resource_type: String,
    pub resource_id: String,
    /// `succeeded`, `failed`, `denied`.
    pub outcome: String,
    pub details: serde_json::Value,
}

impl AuditEntry {
    /// What `caller` did to one resource, from where they did it: `succeeded`, no details yet.
    pub fn by(caller: &Caller, action: &str, resource_type: &str, resource_id: impl Into<String>) -> Self {
        Self {
            user_id: caller.principal.user_id.clone(),
            source: caller.source,
            action: action.to_owned(),
            resource_type: resource_type.to_owned(),
            resource_id: resource_id.into(),
            outcome: "succeeded".to_owned(),
            details: serde_json::Value::Null,
        }
    }

    pub fn outcome(self, outcome: &str) -> Self {
        Self { outcome: outcome.to_owned(), ..self }
    }

    pub fn details(self, details: serde_json::Value) -> Self {
        Self { details, ..self }
    }
}

/// An entry as stored: its place in the log and when it was written.
#[derive(Clone, Debug)]
pub struct StoredAuditEntry {
    /// Increases with every entry.
    pub id: u64,
    pub at: DateTime<Utc>,
    pub entry: AuditEntry,
}

/// Which entries a reading wants; every field narrows it.
#[derive(Clone, Debug, Default)]
pub struct AuditFilter {
    pub user: Option<UserId>,
    pub source: Option<Source>,
    /// An action, or a prefix when it ends with a dot (`dataset.`).
    pub action: Option<String>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
}

/// The append-only audit log.
#[async_trait]
pub trait AuditLog: Send + Sync {
    async fn record(&self, entry: AuditEntry) -> Result<()>;
    /// The entries `filter` keeps with an id below `before` (all: `None`), newest first, at most
    /// `limit`.
    async fn entries(&self, filter: &AuditFilter, before: Option<u64>, limit: u32) -> Result<Vec<StoredAuditEntry>>;
}

/// Records `entry` where a failed write must not fail the action it audits (the action already
/// happened): the failure is logged as an error, with the action it was about.
pub async fn record_or_log(log: &dyn AuditLog, entry: AuditEntry) {
    let action = entry.action.clone();
    if let Err(e) = log.record(entry).await {
        tracing::error!(error = %e, internal = ?e.internal, action, "audit entry could not be written");
    }
}
