//! Garbage collection of the metadata store (`aware-server gc`).

use super::*;

/// What [`Store::collect_garbage`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GcReport {
    pub events: u64,
    pub spans: u64,
    pub audit: u64,
}

impl Store {
    /// Retention: deletes the event logs and the trace spans of runs that ended before
    /// `events_before` / `traces_before`, and audit entries older than `audit_before` (`None`:
    /// keep). Only runs with a terminal status count; one that has not ended is never touched,
    /// whatever its age: its log is how it continues after a restart and how its clients resume.
    pub async fn collect_garbage(
        &self,
        events_before: Option<DateTime<Utc>>,
        traces_before: Option<DateTime<Utc>>,
        audit_before: Option<DateTime<Utc>>,
    ) -> Result<GcReport, StoreError> {
        let mut report = GcReport::default();
        // Only runs with a terminal status count; the list comes from `RunStatus` itself.
        let terminal: Vec<String> =
            RunStatus::ALL.into_iter().filter(|s| s.is_terminal()).map(|s| format!("'{}'", s.as_str())).collect();
        let ended = format!(
            "SELECT id FROM runs WHERE status IN ({}) AND completed_at IS NOT NULL AND completed_at < ?",
            terminal.join(", ")
        );
        for (table, before, count) in
            [("run_events", events_before, &mut report.events), ("run_spans", traces_before, &mut report.spans)]
        {
            if let Some(t) = before {
                // Built only from our table names and `RunStatus` names, never from input.
                *count = self
                    .db
                    .built(format!("DELETE FROM {table} WHERE run_id IN ({ended})"))
                    .bind(micros(t))
                    .execute()
                    .await?;
            }
        }
        if let Some(t) = audit_before {
            report.audit = self.db.query("DELETE FROM audit_log WHERE at < ?").bind(micros(t)).execute().await?;
        }
        Ok(report)
    }
}
