//! Chat runs: admission (`create_chat_run`, a thread's state as admission reads it), reading a
//! run, its status, route and progress, starting and completing it, cancel requests, and the
//! history of a thread's earlier runs that a new one continues.

use super::{chat_run_from_row, corrupt, decode_messages};
use crate::group_commit::{self, EventRow, Write};
use crate::{Placing, Store, db, json, micros};
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::events::{Resolution, RunEvent};
use aware_domain::grounding::Grounding;
use aware_domain::ids::{RunId, ThreadId, UserId};
use aware_domain::ports::model::Message;
use aware_domain::ports::run_log::ChatRuns;
use aware_domain::ports::run_log::{ChatRun, Created, Place, ThreadState};
use aware_domain::run::{RunError, RunOutcome, RunStatus, Usage};
use chrono::Utc;

#[async_trait]
impl ChatRuns for Store {
    async fn create_chat_run(&self, run: &ChatRun, place: Place<'_>, max_unfinished: u32) -> Result<Created> {
        let r = &run.record;
        let cap = i64::from(max_unfinished);
        let max_unfinished = Some(cap);
        let placing = match place {
            Place::Drive(lease) => Placing {
                lease_owner: Some(&lease.replica),
                lease_expires_at: Some(micros(lease.until)),
                queue_rank: 0,
                max_unfinished,
            },
            // An interrupting message goes before every run already waiting (the latest first).
            Place::Queue { first } => {
                let at = micros(r.created_at);
                Placing {
                    lease_owner: None,
                    lease_expires_at: None,
                    queue_rank: if first { -at } else { at },
                    max_unfinished,
                }
            }
        };
        // Twice at most: the run that held the thread when the first insert was refused may have
        // ended before the store could name it.
        for _ in 0..2 {
            let acts_as = crate::ActsAs { role: Some(run.role), key: run.key.as_ref() };
            if self.insert_run_row(r, acts_as, placing).await? == 1 {
                return Ok(Created::New);
            }
            if let Some(key) = r.client_msg_id.as_deref()
                && let Some(existing) = self.run_by_client_msg(&r.owner, key).await?
            {
                return Ok(Created::Existing(existing));
            }
            let state = match &r.thread_id {
                Some(thread) => Some(self.thread_state(thread, &r.owner).await?),
                None => None,
            };
            if let Some(holder) = state.as_ref().and_then(|s| s.holder.clone())
                && matches!(place, Place::Drive(_))
            {
                return Ok(Created::Busy(holder));
            }
            if state.is_some_and(|s| i64::from(s.unfinished_of_owner) >= cap) {
                return Ok(Created::Full);
            }
        }
        Err(corrupt("duplicate run id"))
    }

    async fn thread_state(&self, thread: &ThreadId, owner: &UserId) -> Result<ThreadState> {
        let row = self
            .db
            .query(concat!(
                "SELECT (SELECT id FROM runs WHERE thread_id = ? AND ",
                holding!(),
                " LIMIT 1) AS holder,
                        (SELECT id FROM runs WHERE thread_id = ? AND kind IN ('chat', 'tool') AND status = 'queued'
                           AND cancel_requested = 0 LIMIT 1) AS waiting,
                        (SELECT count(*) FROM runs WHERE owner_id = ? AND ",
                unfinished!(),
                ") AS unfinished"
            ))
            .bind(thread.as_str())
            .bind(thread.as_str())
            .bind(owner.as_str())
            .fetch_one()
            .await
            .map_err(db)?;
        Ok(ThreadState {
            holder: row.get::<Option<String>>("holder").as_deref().and_then(RunId::parse),
            waiting: row.get::<Option<String>>("waiting").is_some(),
            unfinished_of_owner: u32::try_from(row.get::<i64>("unfinished")).unwrap_or(u32::MAX),
        })
    }

    async fn run_by_client_msg(&self, owner: &UserId, client_msg_id: &str) -> Result<Option<RunId>> {
        let id: Option<String> = self
            .db
            .query("SELECT id FROM runs WHERE owner_id = ? AND client_msg_id = ?")
            .bind(owner.as_str())
            .bind(client_msg_id)
            .fetch_optional_scalar()
            .await
            .map_err(db)?;
        Ok(id.as_deref().and_then(RunId::parse))
    }

    async fn chat_run(&self, id: &RunId) -> Result<Option<ChatRun>> {
        self.db
            .query(select_chat_runs!("WHERE id = ? AND kind IN ('chat', 'tool')"))
            .bind(id.as_str())
            .fetch_optional_map(chat_run_from_row)
            .await
    }

    async fn set_run_status(&self, id: &RunId, status: RunStatus) -> Result<()> {
        self.db
            .query(
                "UPDATE runs SET status = ?, started_at = coalesce(started_at, ?)
             WHERE id = ? AND status IN ('queued', 'running', 'awaiting_confirmation')",
            )
            .bind(status.as_str())
            .bind(micros(Utc::now()))
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn set_run_route(&self, id: &RunId, route_json: &str) -> Result<()> {
        self.db
            .query("UPDATE runs SET route_json = ? WHERE id = ?")
            .bind(route_json)
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn run_route(&self, id: &RunId) -> Result<Option<String>> {
        let route: Option<Option<String>> = self
            .db
            .query("SELECT route_json FROM runs WHERE id = ?")
            .bind(id.as_str())
            .fetch_optional_scalar()
            .await
            .map_err(db)?;
        Ok(route.flatten())
    }

    async fn set_run_progress(&self, id: &RunId, iterations: u32, usage: &Usage) -> Result<()> {
        let run_id = id.as_str().to_owned();
        self.writes.write(Write::Progress { run_id, iterations: i64::from(iterations), usage_json: json(usage)? }).await
    }

    async fn start_run(&self, first: &RunEvent, ui_state_version: u64) -> Result<()> {
        self.writes
            .write(Write::Started {
                first: EventRow::of(first)?,
                ui_state_version: ui_state_version as i64,
                at: micros(Utc::now()),
            })
            .await
    }

    async fn complete_chat_run(
        &self,
        last: &RunEvent,
        status: RunStatus,
        error: Option<&RunError>,
        usage: &Usage,
        final_text: &str,
        grounding: Option<&Grounding>,
    ) -> Result<()> {
        let completion = group_commit::Completion {
            last: EventRow::of(last)?,
            status: status.as_str(),
            outcome: last.outcome().map(RunOutcome::as_str),
            error_json: error.map(json).transpose()?,
            usage_json: json(usage)?,
            final_text: final_text.to_owned(),
            grounding_json: grounding.map(json).transpose()?,
            completed_at: micros(Utc::now()),
            day: last.time.format("%Y-%m-%d").to_string(),
            input_tokens: usage.input_tokens as i64,
            output_tokens: usage.output_tokens as i64,
        };
        self.writes.write(Write::Completion(Box::new(completion))).await
    }

    async fn request_cancel(&self, id: &RunId, why: Resolution) -> Result<()> {
        self.db
            .query(
                "UPDATE runs SET cancel_reason = CASE WHEN cancel_requested = 1 THEN cancel_reason ELSE ? END,
                    cancel_requested = 1
                 WHERE id = ?",
            )
            .bind(why.as_str())
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn thread_history(&self, thread: &ThreadId, before: &RunId, runs: u32) -> Result<Vec<Message>> {
        let rows = self
            .db
            .query(
                "SELECT m.message_json FROM run_messages m
             JOIN (SELECT id FROM runs WHERE thread_id = ? AND id < ? AND kind = 'chat'
                     AND status NOT IN ('queued', 'running', 'awaiting_confirmation')
                   ORDER BY id DESC LIMIT ?) r ON r.id = m.run_id
             ORDER BY m.run_id, m.idx",
            )
            .bind(thread.as_str())
            .bind(before.as_str())
            .bind(i64::from(runs))
            .fetch_all()
            .await
            .map_err(db)?;
        decode_messages(&rows)
    }
}
