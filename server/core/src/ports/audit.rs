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
