//! The audit log port on SQLite: append only, read newest first.

use super::*;
use aware_domain::auth::Source;
use aware_domain::ports::{AuditFilter, StoredAuditEntry};

#[async_trait]
impl AuditLog for Store {
    async fn record(&self, e: AuditEntry) -> Result<()> {
        self.db
            .query(
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
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn entries(&self, filter: &AuditFilter, before: Option<u64>, limit: u32) -> Result<Vec<StoredAuditEntry>> {
        let (exact, prefix) = match filter.action.as_deref() {
            Some(a) if a.ends_with('.') => (None, Some(format!("{}%", crate::db::like_escaped(a)))),
            Some(a) => (Some(a.to_owned()), None),
            None => (None, None),
        };
        let rows = self.db.query(
            "SELECT id, at, user_id, source, action, resource_type, resource_id, outcome, details_json FROM audit_log
             WHERE (?1 IS NULL OR id < ?1) AND (?2 IS NULL OR user_id = ?2) AND (?3 IS NULL OR source = ?3)
               AND (?4 IS NULL OR action = ?4) AND (?5 IS NULL OR action LIKE ?5 ESCAPE '\\')
               AND (?6 IS NULL OR at >= ?6) AND (?7 IS NULL OR at < ?7)
             ORDER BY id DESC LIMIT ?8",
        )
        .bind(before.map(|b| i64::try_from(b).unwrap_or(i64::MAX)))
        .bind(filter.user.as_ref().map(|u| u.as_str().to_owned()))
        .bind(filter.source.map(Source::as_str))
        .bind(exact)
        .bind(prefix)
        .bind(filter.since.map(micros))
        .bind(filter.until.map(micros))
        .bind(i64::from(limit))
        .fetch_all()
        .await
        .map_err(db)?;
        rows.iter()
            .map(|r| {
                let corrupt = |what: &str| StoreError::Corrupt(format!("audit entry {what}"));
                let source: String = r.get("source");
                let details: String = r.get("details_json");
                Ok(StoredAuditEntry {
                    id: u64::try_from(r.get::<i64>("id")).map_err(|_| corrupt("id"))?,
                    at: from_micros(r.get("at")),
                    entry: AuditEntry {
                        user_id: UserId::parse(r.get("user_id")).ok_or_else(|| corrupt("user"))?,
                        source: Source::parse(&source).ok_or_else(|| corrupt("source"))?,
                        action: r.get("action"),
                        resource_type: r.get("resource_type"),
                        resource_id: r.get("resource_id"),
                        outcome: r.get("outcome"),
                        details: serde_json::from_str(&details).unwrap_or(serde_json::Value::String(details)),
                    },
                })
            })
            .collect()
    }
}
