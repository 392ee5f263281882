//! The audit log port on SQLite: append only.

use super::*;

#[async_trait]
impl AuditLog for SqliteStore {
    async fn record(&self, e: AuditEntry) -> Result<()> {
        sqlx::query(
            "INSERT INTO audit_log (at, user_id, source, action, resource_type, resource_id, outcome, details_json)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(micros(Utc::now()))
        .bind(e.user_id.as_str())
        .bind(e.source.as_str())
        .bind(&e.action)
        .bind(&e.resource_type)
        .bind(&e.resource_id)
        .bind(&e.outcome)
        .bind(e.details.to_string())
        .execute(&self.pool)
        .await
        .map_err(db)?;
        Ok(())
    }
}
