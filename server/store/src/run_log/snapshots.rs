//! The client's state snapshot of a thread: stored unless a newer one is, and read back.

use crate::{Store, db, from_json, json, micros};
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::ids::ThreadId;
use aware_domain::ports::run_log::Snapshot;
use aware_domain::ports::run_log::Snapshots;
use chrono::Utc;

#[async_trait]
impl Snapshots for Store {
    async fn save_snapshot(&self, thread: &ThreadId, snapshot: &Snapshot) -> Result<u64> {
        self.db.query(
            "INSERT INTO state_snapshots (thread_id, ui_state_version, snapshot_json, updated_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (thread_id) DO UPDATE SET ui_state_version = excluded.ui_state_version,
                 snapshot_json = excluded.snapshot_json, updated_at = excluded.updated_at
             WHERE excluded.ui_state_version >= state_snapshots.ui_state_version",
        )
        .bind(thread.as_str())
        .bind(snapshot.ui_state_version as i64)
        .bind(json(snapshot)?)
        .bind(micros(Utc::now()))
        .execute()
        .await
        .map_err(db)?;
        let v: i64 = self
            .db
            .query("SELECT ui_state_version FROM state_snapshots WHERE thread_id = ?")
            .bind(thread.as_str())
            .fetch_scalar()
            .await
            .map_err(db)?;
        Ok(v as u64)
    }

    async fn snapshot(&self, thread: &ThreadId) -> Result<Option<Snapshot>> {
        let raw: Option<String> = self
            .db
            .query("SELECT snapshot_json FROM state_snapshots WHERE thread_id = ?")
            .bind(thread.as_str())
            .fetch_optional_scalar()
            .await
            .map_err(db)?;
        from_json("snapshot_json", raw)
    }
}
