//! The queue and the replicas' leases: how many runs wait, promoting a thread's first queued
//! run, claiming runs whose lease expired, renewing and releasing a replica's leases.

use super::{cancel_of, chat_run_from_row};
use crate::{Store, db, micros};
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::events::Resolution;
use aware_domain::ids::{RunId, ThreadId};
use aware_domain::ports::run_log::RunLeases;
use aware_domain::ports::run_log::{ChatRun, Claim, Lease};
use chrono::{DateTime, Utc};

/// Whether `e` is a uniqueness violation (another replica won a race for the same row or thread).
fn unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error().is_some_and(|d| d.is_unique_violation())
}

#[async_trait]
impl RunLeases for Store {
    async fn queued_runs(&self) -> Result<u32> {
        let n: i64 = self
            .db
            .query("SELECT count(*) FROM runs WHERE kind IN ('chat', 'tool') AND status = 'queued' AND cancel_requested = 0")
            .fetch_scalar()
            .await
            .map_err(db)?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    async fn promote_queued(&self, thread: Option<&ThreadId>, lease: &Lease) -> Result<Vec<RunId>> {
        let thread = thread.map(ThreadId::as_str);
        // Nearly always nothing waits: a read says so without taking the write lock.
        let waiting: Option<String> = self
            .db
            .query(
                "SELECT id FROM runs WHERE kind IN ('chat', 'tool') AND status = 'queued' AND cancel_requested = 0
                   AND (? IS NULL OR thread_id = ?) LIMIT 1",
            )
            .bind(thread)
            .bind(thread)
            .fetch_optional_scalar()
            .await
            .map_err(db)?;
        if waiting.is_none() {
            return Ok(Vec::new());
        }
        let promoted = self
            .db
            .query(concat!(
                "UPDATE runs SET status = 'running', lease_owner = ?, lease_expires_at = ?
                 WHERE status = 'queued' AND id IN (
                   SELECT q.id FROM runs q
                   WHERE q.kind IN ('chat', 'tool') AND q.status = 'queued' AND q.cancel_requested = 0
                     AND (? IS NULL OR q.thread_id = ?)
                     AND NOT EXISTS (SELECT 1 FROM runs a WHERE a.thread_id = q.thread_id AND a.",
                holding!(),
                ")
                     AND NOT EXISTS (SELECT 1 FROM runs e
                       WHERE e.thread_id = q.thread_id AND e.kind IN ('chat', 'tool') AND e.status = 'queued'
                         AND e.cancel_requested = 0
                         AND (e.queue_rank < q.queue_rank OR (e.queue_rank = q.queue_rank AND e.id < q.id))))
                 RETURNING id"
            ))
            .bind(&lease.replica)
            .bind(micros(lease.until))
            .bind(thread)
            .bind(thread)
            .fetch_all_scalars::<String>()
            .await;
        match promoted {
            Ok(ids) => Ok(ids.iter().filter_map(|id| RunId::parse(id)).collect()),
            // Another replica started a run of the thread meanwhile: the queue waits for it.
            Err(e) if unique_violation(&e) => Ok(Vec::new()),
            Err(e) => Err(db(e)),
        }
    }

    async fn claim_runs(&self, lease: &Lease, now: DateTime<Utc>, which: Claim<'_>) -> Result<Vec<ChatRun>> {
        let (every, id) = match which {
            Claim::Expired => (0_i64, None),
            Claim::Every => (1, None),
            Claim::Run(id) => (0, Some(id.as_str())),
        };
        let rows = self
            .db
            .query(concat!(
                "UPDATE runs SET lease_owner = ?, lease_expires_at = ?
                 WHERE kind IN ('chat', 'tool')
                   AND (status IN ('running', 'awaiting_confirmation') OR (status = 'queued' AND cancel_requested = 1))
                   AND (? = 1 OR lease_expires_at IS NULL OR lease_expires_at < ?)
                   AND (? IS NULL OR id = ?)
                 RETURNING ",
                chat_run_columns!()
            ))
            .bind(&lease.replica)
            .bind(micros(lease.until))
            .bind(every)
            .bind(micros(now))
            .bind(id)
            .bind(id)
            .fetch_all()
            .await
            .map_err(db)?;
        let mut runs = rows.iter().map(chat_run_from_row).collect::<Result<Vec<_>>>()?;
        runs.sort_by(|a, b| a.record.id.cmp(&b.record.id));
        Ok(runs)
    }

    async fn renew_leases(&self, lease: &Lease) -> Result<Vec<(RunId, Option<Resolution>)>> {
        let rows = self
            .db
            .query(concat!(
                "UPDATE runs SET lease_expires_at = ? WHERE lease_owner = ? AND ",
                unfinished!(),
                " RETURNING id, cancel_requested, cancel_reason"
            ))
            .bind(micros(lease.until))
            .bind(&lease.replica)
            .fetch_all()
            .await
            .map_err(db)?;
        Ok(rows.iter().filter_map(|r| Some((RunId::parse(r.get::<String>("id").as_str())?, cancel_of(r)))).collect())
    }

    async fn release_leases(&self, replica: &str) -> Result<()> {
        self.db
            .query(concat!(
                "UPDATE runs SET lease_owner = NULL, lease_expires_at = 0 WHERE lease_owner = ? AND ",
                unfinished!()
            ))
            .bind(replica)
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }
}
