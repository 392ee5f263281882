//! The audit log port: who did what, from where, with what outcome — append only.

use crate::auth::Source;
use crate::error::Result;
use crate::ids::UserId;
use async_trait::async_trait;

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

/// The append-only audit log.
#[async_trait]
pub trait AuditLog: Send + Sync {
    async fn record(&self, entry: AuditEntry) -> Result<()>;
}

/// Records `entry` where a failed write must not fail the action it audits (the action already
/// happened): the failure is logged as an error, with the action it was about.
pub async fn record_or_log(log: &dyn AuditLog, entry: AuditEntry) {
    let action = entry.action.clone();
    if let Err(e) = log.record(entry).await {
        tracing::error!(error = %e, internal = ?e.internal, action, "audit entry could not be written");
    }
}
