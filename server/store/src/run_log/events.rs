//! A run's event log (appended through the group-commit writer, read by seq) and its
//! transcript (the messages the model saw).

use super::decode_messages;
use crate::group_commit::{EventRow, Write};
use crate::{Store, StoreError, db, json};
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::events::RunEvent;
use aware_domain::ids::RunId;
use aware_domain::ports::model::Message;
use aware_domain::ports::run_log::QueuedAppend;
use aware_domain::ports::run_log::RunEvents;

#[async_trait]
impl RunEvents for Store {
    async fn append_event(&self, event: &RunEvent) -> Result<()> {
        self.writes.write(Write::Event(EventRow::of(event)?)).await
    }

    fn queue_event(&self, event: &RunEvent) -> QueuedAppend {
        match EventRow::of(event) {
            Ok(row) => self.writes.queue(Write::Event(row)),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }

    async fn events(&self, run: &RunId, after_seq: u64, limit: u32) -> Result<Vec<RunEvent>> {
        let rows = self
            .db
            .query("SELECT payload FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?")
            .bind(run.as_str())
            // Seqs are far below 2^63; a cursor above that is past every event, never negative.
            .bind(i64::try_from(after_seq).unwrap_or(i64::MAX))
            .bind(i64::from(limit))
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| {
                serde_json::from_slice(r.get::<&[u8]>("payload"))
                    .map_err(|e| StoreError::Corrupt(format!("event: {e}")).into())
            })
            .collect()
    }

    async fn last_seq(&self, run: &RunId) -> Result<u64> {
        let n: Option<i64> = self
            .db
            .query("SELECT max(seq) FROM run_events WHERE run_id = ?")
            .bind(run.as_str())
            .fetch_scalar()
            .await
            .map_err(db)?;
        Ok(n.unwrap_or(0) as u64)
    }

    async fn append_message(&self, run: &RunId, idx: u32, message: &Message) -> Result<()> {
        let run_id = run.as_str().to_owned();
        self.writes.write(Write::Message { run_id, idx: i64::from(idx), json: json(message)? }).await
    }

    async fn messages(&self, run: &RunId) -> Result<Vec<Message>> {
        let rows = self
            .db
            .query("SELECT message_json FROM run_messages WHERE run_id = ? ORDER BY idx")
            .bind(run.as_str())
            .fetch_all()
            .await
            .map_err(db)?;
        decode_messages(&rows)
    }
}
