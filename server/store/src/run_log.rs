//! SQLite implementation of the run engine's storage port: threads, snapshots, the event log,
//! transcripts, tool-call intents/results, confirmations (compare-and-set) and spans.

use super::db::Row;
use super::group_commit::{self, EventRow, SpanWrite, ToolCallWrite, Write};
use super::run_records::run_from_row;
use super::{Placing, Store, StoreError, db, from_json, from_micros, json, micros};
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::auth::Role;
use aware_domain::events::{Resolution, ResourceRef, RunEvent, Tier};
use aware_domain::grounding::Grounding;
use aware_domain::ids::{ApiKeyId, ConfirmationId, GrantId, RunId, ThreadId, ToolCallId, UserId};
use aware_domain::ports::model::Message;
use aware_domain::ports::run_log::{
    ChatRun, Claim, Confirmation, Created, Lease, Place, QueuedAppend, RunLog, SessionGrant, Snapshot, SpanRecord,
    ThreadCursor, ThreadState, ThreadSummary, TitleIf,
};
use aware_domain::run::ToolCallRow;
use aware_domain::run::ToolPhase;
use aware_domain::run::{RunError, RunOutcome, RunStatus, Usage};
use chrono::{DateTime, Utc};
use std::str::FromStr;

fn corrupt(what: &str) -> aware_domain::Error {
    StoreError::Corrupt(what.to_owned()).into()
}

/// Every run column plus the engine's.
macro_rules! chat_run_columns {
    () => {
        concat!(
            "id, owner_id, thread_id, kind, status, client_msg_id, question, parent_run_id, ui_state_version, ",
            "model, last_seq, iterations, usage_json, error_json, created_at, completed_at, final_text, role, api_key_id, ",
            "cancel_requested, cancel_reason, feedback_rating, feedback_reason, feedback_at, outcome "
        )
    };
}

macro_rules! select_chat_runs {
    ($rest:literal) => {
        concat!("SELECT ", chat_run_columns!(), "FROM runs ", $rest)
    };
}

/// Whether `e` is a uniqueness violation (another replica won a race for the same row or thread).
fn unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error().is_some_and(|d| d.is_unique_violation())
}

fn chat_run_from_row(r: &Row) -> Result<ChatRun> {
    let role: Option<String> = r.get("role");
    let key: Option<String> = r.get("api_key_id");
    Ok(ChatRun {
        record: run_from_row(r)?,
        role: role.as_deref().map(Role::from_str).transpose()?.unwrap_or(Role::Viewer),
        key: key.map(|k| ApiKeyId::parse(&k).ok_or_else(|| corrupt("api key id"))).transpose()?,
        cancel: cancel_of(r),
    })
}

/// The cancel requested for a run row (`cancel_requested`, `cancel_reason`); a reason this
/// version does not know, or none (older rows), reads as cancelled.
fn cancel_of(r: &Row) -> Option<Resolution> {
    let reason: Option<String> = r.get("cancel_reason");
    (r.get::<i64>("cancel_requested") != 0)
        .then(|| reason.as_deref().and_then(Resolution::parse).unwrap_or(Resolution::Cancelled))
}

fn tool_row(r: &Row) -> Result<ToolCallRow> {
    let status: String = r.get("status");
    Ok(ToolCallRow {
        id: ToolCallId::parse(r.get("id")).ok_or_else(|| corrupt("tool call id"))?,
        run_id: RunId::parse(r.get("run_id")).ok_or_else(|| corrupt("run id"))?,
        iteration: r.get::<i64>("iteration") as u32,
        tool_name: r.get("tool_name"),
        arguments_json: r.get("arguments_json"),
        phase: ToolPhase::parse(&status).ok_or_else(|| corrupt("tool status"))?,
        llm_summary: r.get("llm_summary"),
        result_json: r.get("result_json"),
        duration_ms: r.get::<Option<i64>>("duration_ms").map(|n| n as u64),
    })
}

/// A tool call's row as the writer stores it (`at`: when its intent or its result is written).
fn tool_call_write(row: &ToolCallRow) -> ToolCallWrite {
    ToolCallWrite {
        id: row.id.as_str().to_owned(),
        run_id: row.run_id.as_str().to_owned(),
        iteration: i64::from(row.iteration),
        tool_name: row.tool_name.clone(),
        arguments_json: row.arguments_json.clone(),
        status: row.phase.as_str(),
        at: micros(Utc::now()),
        llm_summary: row.llm_summary.clone(),
        result_json: row.result_json.clone(),
        duration_ms: row.duration_ms.map(|n| n as i64),
    }
}

fn confirmation_row(r: &Row) -> Result<Confirmation> {
    let tier: String = r.get("tier");
    let status: String = r.get("status");
    Ok(Confirmation {
        id: ConfirmationId::parse(r.get("id")).ok_or_else(|| corrupt("confirmation id"))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| corrupt("owner id"))?,
        run_id: RunId::parse(r.get("run_id")).ok_or_else(|| corrupt("run id"))?,
        tool_call_id: ToolCallId::parse(r.get("tool_call_id")).ok_or_else(|| corrupt("tool call id"))?,
        tool_name: r.get("tool_name"),
        resource: ResourceRef {
            kind: r.get("resource_type"),
            id: r.get("resource_id"),
            display_name: r.get("resource_name"),
        },
        args_sha256: r.get("args_sha256"),
        tier: Tier::parse(&tier).ok_or_else(|| corrupt("tier"))?,
        status: Resolution::parse(&status).ok_or_else(|| corrupt("confirmation status"))?,
        created_at: from_micros(r.get("created_at")),
        expires_at: from_micros(r.get("expires_at")),
        description: r.get("description"),
        edited_args: r.get("edited_args_json"),
        grant_id: r.get::<Option<String>>("grant_id").as_deref().and_then(GrantId::parse),
        bound_version: r.get("bound_version"),
    })
}

fn grant_row(r: &Row) -> Result<SessionGrant> {
    Ok(SessionGrant {
        id: GrantId::parse(r.get("id")).ok_or_else(|| corrupt("grant id"))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| corrupt("owner id"))?,
        tool_name: r.get("tool_name"),
        resource_class: r.get("resource_class"),
        confirmation_id: ConfirmationId::parse(r.get("confirmation_id")).ok_or_else(|| corrupt("confirmation id"))?,
        created_at: from_micros(r.get("created_at")),
        expires_at: from_micros(r.get("expires_at")),
    })
}

fn thread_row(r: &Row) -> Result<ThreadSummary> {
    let status: Option<String> = r.get("last_status");
    let outcome: Option<String> = r.get("last_outcome");
    let from_thread: Option<String> = r.get("forked_from_thread");
    let from_run: Option<String> = r.get("forked_from_run");
    let created_at = from_micros(r.get("created_at"));
    Ok(ThreadSummary {
        id: ThreadId::parse(r.get("id")).ok_or_else(|| corrupt("thread id"))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| corrupt("owner id"))?,
        title: r.get("title"),
        created_at,
        last_activity_at: r.get::<Option<i64>>("last_at").map_or(created_at, from_micros),
        run_count: r.get::<i64>("run_count") as u32,
        last_run_status: status
            .as_deref()
            .map(|s| RunStatus::parse(s).ok_or_else(|| corrupt("run status")))
            .transpose()?,
        last_run_outcome: outcome
            .as_deref()
            .map(|s| RunOutcome::parse(s).ok_or_else(|| corrupt("run outcome")))
            .transpose()?,
        forked_from: match (
            from_thread.as_deref().and_then(ThreadId::parse),
            from_run.as_deref().and_then(RunId::parse),
        ) {
            (Some(t), Some(r)) => Some((t, r)),
            _ => None,
        },
    })
}

/// A thread with its chat runs counted: `SELECT … FROM threads t LEFT JOIN runs r … <rest>`.
macro_rules! select_threads {
    ($rest:literal) => {
        concat!(
            "SELECT t.id, t.owner_id, t.title, t.created_at, t.forked_from_thread, t.forked_from_run, ",
            "count(r.id) AS run_count, max(r.created_at) AS last_at, ",
            "(SELECT r2.status FROM runs r2 WHERE r2.thread_id = t.id AND r2.kind = 'chat' ORDER BY r2.id DESC LIMIT 1) ",
            "AS last_status, ",
            "(SELECT r3.outcome FROM runs r3 WHERE r3.thread_id = t.id AND r3.kind = 'chat' ORDER BY r3.id DESC LIMIT 1) ",
            "AS last_outcome ",
            "FROM threads t LEFT JOIN runs r ON r.thread_id = t.id AND r.kind = 'chat' ",
            $rest
        )
    };
}

fn decode_messages(rows: &[Row]) -> Result<Vec<Message>> {
    rows.iter()
        .map(|r| from_json("message_json", Some(r.get("message_json")))?.ok_or_else(|| corrupt("message")))
        .collect()
}

macro_rules! select_confirmations {
    ($rest:literal) => {
        concat!(
            "SELECT id, owner_id, run_id, tool_call_id, tool_name, resource_type, resource_id, resource_name, ",
            "args_sha256, tier, status, created_at, expires_at, description, edited_args_json, grant_id, ",
            "bound_version ",
            "FROM confirmations ",
            $rest
        )
    };
}

#[async_trait]
impl RunLog for Store {
    async fn ensure_thread(&self, owner: &UserId, thread: &ThreadId) -> Result<bool> {
        let now = micros(Utc::now());
        self.db
            .query(
                "INSERT INTO threads (id, owner_id, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            )
            .bind(thread.as_str())
            .bind(owner.as_str())
            .bind(now)
            .bind(now)
            .execute()
            .await
            .map_err(db)?;
        let stored: Option<String> = self
            .db
            .query("SELECT owner_id FROM threads WHERE id = ?")
            .bind(thread.as_str())
            .fetch_optional_scalar()
            .await
            .map_err(db)?;
        Ok(stored.as_deref() == Some(owner.as_str()))
    }

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
            let acts_as = super::ActsAs { role: Some(run.role), key: run.key.as_ref() };
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
        let row = self
            .db
            .query(select_chat_runs!("WHERE id = ? AND kind IN ('chat', 'tool')"))
            .bind(id.as_str())
            .fetch_optional()
            .await
            .map_err(db)?;
        row.as_ref().map(chat_run_from_row).transpose()
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

    async fn record_tool_intent(&self, row: &ToolCallRow) -> Result<()> {
        self.writes.write(Write::ToolIntent(tool_call_write(row))).await
    }

    async fn record_tool_result(&self, row: &ToolCallRow) -> Result<()> {
        self.writes.write(Write::ToolResult(tool_call_write(row))).await
    }

    async fn tool_calls(&self, run: &RunId) -> Result<Vec<ToolCallRow>> {
        let rows = self
            .db
            .query(
                "SELECT id, run_id, iteration, tool_name, arguments_json, status, llm_summary, result_json, duration_ms
             FROM tool_calls WHERE run_id = ? ORDER BY coalesce(intent_at, completed_at)",
            )
            .bind(run.as_str())
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(tool_row).collect()
    }

    async fn create_confirmation(&self, c: &Confirmation) -> Result<()> {
        self.db
            .query(
                "INSERT INTO confirmations (id, owner_id, run_id, tool_call_id, tool_name, resource_type, resource_id,
                                        resource_name, args_sha256, tier, status, created_at, expires_at,
                                        description, edited_args_json, grant_id, bound_version)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(c.id.as_str())
            .bind(c.owner.as_str())
            .bind(c.run_id.as_str())
            .bind(c.tool_call_id.as_str())
            .bind(&c.tool_name)
            .bind(&c.resource.kind)
            .bind(&c.resource.id)
            .bind(&c.resource.display_name)
            .bind(&c.args_sha256)
            .bind(c.tier.as_str())
            .bind(c.status.as_str())
            .bind(micros(c.created_at))
            .bind(micros(c.expires_at))
            .bind(&c.description)
            .bind(c.edited_args.as_deref())
            .bind(c.grant_id.as_ref().map(GrantId::as_str))
            .bind(c.bound_version.as_deref())
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn confirmation(&self, id: &ConfirmationId) -> Result<Option<Confirmation>> {
        let row = self
            .db
            .query(select_confirmations!("WHERE id = ?"))
            .bind(id.as_str())
            .fetch_optional()
            .await
            .map_err(db)?;
        row.as_ref().map(confirmation_row).transpose()
    }

    async fn confirmation_for_call(&self, call: &ToolCallId) -> Result<Option<Confirmation>> {
        let row = self
            .db
            .query(select_confirmations!("WHERE tool_call_id = ?"))
            .bind(call.as_str())
            .fetch_optional()
            .await
            .map_err(db)?;
        row.as_ref().map(confirmation_row).transpose()
    }

    async fn pending_confirmations(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<Confirmation>> {
        let rows = self
            .db
            .query(select_confirmations!(
                "WHERE owner_id = ? AND status = 'pending' AND expires_at > ? ORDER BY created_at, id"
            ))
            .bind(owner.as_str())
            .bind(micros(now))
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(confirmation_row).collect()
    }

    async fn resolve_confirmation(
        &self,
        id: &ConfirmationId,
        to: Resolution,
        by: Option<&UserId>,
        edited_args: Option<&str>,
    ) -> Result<bool> {
        let changed = self
            .db
            .query(
                "UPDATE confirmations SET status = ?, resolved_at = ?, resolved_by = ?, edited_args_json = ?
             WHERE id = ? AND status = 'pending'",
            )
            .bind(to.as_str())
            .bind(micros(Utc::now()))
            .bind(by.map(UserId::as_str))
            .bind(edited_args)
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(changed == 1)
    }

    async fn create_grant(&self, g: &SessionGrant) -> Result<()> {
        self.db.query(
            "INSERT INTO session_grants (id, owner_id, tool_name, resource_class, confirmation_id, created_at, expires_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(g.id.as_str())
        .bind(g.owner.as_str())
        .bind(&g.tool_name)
        .bind(&g.resource_class)
        .bind(g.confirmation_id.as_str())
        .bind(micros(g.created_at))
        .bind(micros(g.expires_at))
        .execute()
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn live_grant(
        &self,
        owner: &UserId,
        tool: &str,
        class: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<SessionGrant>> {
        let row = self.db.query(
            "SELECT id, owner_id, tool_name, resource_class, confirmation_id, created_at, expires_at FROM session_grants
             WHERE owner_id = ? AND tool_name = ? AND resource_class = ? AND expires_at > ? AND revoked_at IS NULL
             ORDER BY expires_at DESC LIMIT 1",
        )
        .bind(owner.as_str())
        .bind(tool)
        .bind(class)
        .bind(micros(now))
        .fetch_optional()
        .await
        .map_err(db)?;
        row.as_ref().map(grant_row).transpose()
    }

    async fn live_grants(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<SessionGrant>> {
        let rows = self.db.query(
            "SELECT id, owner_id, tool_name, resource_class, confirmation_id, created_at, expires_at FROM session_grants
             WHERE owner_id = ? AND expires_at > ? AND revoked_at IS NULL ORDER BY expires_at, id",
        )
        .bind(owner.as_str())
        .bind(micros(now))
        .fetch_all()
        .await
        .map_err(db)?;
        rows.iter().map(grant_row).collect()
    }

    async fn revoke_grant(&self, owner: &UserId, id: &GrantId, now: DateTime<Utc>) -> Result<bool> {
        let changed = self
            .db
            .query(
                "UPDATE session_grants SET revoked_at = ?1
             WHERE id = ?2 AND owner_id = ?3 AND revoked_at IS NULL AND expires_at > ?1",
            )
            .bind(micros(now))
            .bind(id.as_str())
            .bind(owner.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(changed == 1)
    }

    async fn thread_summary(&self, thread: &ThreadId) -> Result<Option<ThreadSummary>> {
        let row = self
            .db
            .query(select_threads!("WHERE t.id = ? GROUP BY t.id"))
            .bind(thread.as_str())
            .fetch_optional()
            .await
            .map_err(db)?;
        row.as_ref().map(thread_row).transpose()
    }

    async fn threads(
        &self,
        owner: &UserId,
        matching: Option<&str>,
        after: Option<&ThreadCursor>,
        limit: u32,
    ) -> Result<Vec<ThreadSummary>> {
        // `lower()` folds ASCII letters on SQLite and every letter on PostgreSQL.
        let pattern = matching.map(|m| format!("%{}%", crate::db::like_escaped(&m.to_lowercase())));
        let rows = self
            .db
            .query(select_threads!(
                "WHERE t.owner_id = ?1
               AND (?5 IS NULL OR lower(coalesce(t.title, '')) LIKE ?5 ESCAPE '\\'
                    OR EXISTS (SELECT 1 FROM runs q WHERE q.thread_id = t.id AND q.kind = 'chat'
                               AND lower(q.question) LIKE ?5 ESCAPE '\\'))
             GROUP BY t.id HAVING count(r.id) > 0
               AND (?2 IS NULL OR max(r.created_at) < ?2 OR (max(r.created_at) = ?2 AND t.id < ?3))
             ORDER BY last_at DESC, t.id DESC LIMIT ?4"
            ))
            .bind(owner.as_str())
            .bind(after.map(|c| micros(c.last_activity_at)))
            .bind(after.map(|c| c.thread.as_str()))
            .bind(i64::from(limit))
            .bind(pattern)
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(thread_row).collect()
    }

    async fn set_thread_title(&self, thread: &ThreadId, title: &str, when: TitleIf<'_>) -> Result<bool> {
        let (when, current) = match when {
            TitleIf::Untitled => ("untitled", None),
            TitleIf::Still(current) => ("still", Some(current)),
            TitleIf::Any => ("any", None),
        };
        let done = self
            .db
            .query(
                "UPDATE threads SET title = ?1, updated_at = ?2 WHERE id = ?3 AND (?4 = 'any' \
             OR (?4 = 'untitled' AND title IS NULL) OR (?4 = 'still' AND title = ?5))",
            )
            .bind(title)
            .bind(micros(Utc::now()))
            .bind(thread.as_str())
            .bind(when)
            .bind(current)
            .execute()
            .await
            .map_err(db)?;
        Ok(done > 0)
    }

    async fn set_thread_fork(&self, thread: &ThreadId, from_thread: &ThreadId, from_run: &RunId) -> Result<()> {
        self.db
            .query("UPDATE threads SET forked_from_thread = ?, forked_from_run = ? WHERE id = ?")
            .bind(from_thread.as_str())
            .bind(from_run.as_str())
            .bind(thread.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn thread_runs(&self, thread: &ThreadId, limit: u32) -> Result<Vec<ChatRun>> {
        let rows = self
            .db
            .query(select_chat_runs!("WHERE thread_id = ? AND kind = 'chat' ORDER BY id DESC LIMIT ?"))
            .bind(thread.as_str())
            .bind(i64::from(limit))
            .fetch_all()
            .await
            .map_err(db)?;
        let mut runs = rows.iter().map(chat_run_from_row).collect::<Result<Vec<_>>>()?;
        runs.reverse();
        Ok(runs)
    }

    async fn delete_thread(&self, thread: &ThreadId) -> Result<u32> {
        let mut tx = self.db.begin().await.map_err(db)?;
        let runs: i64 = tx
            .query("SELECT count(*) FROM runs WHERE thread_id = ? AND kind = 'chat'")
            .bind(thread.as_str())
            .fetch_scalar()
            .await
            .map_err(db)?;
        // The queries its runs' tools started have no thread of their own.
        tx.query(
            "DELETE FROM runs WHERE parent_run_id IN (SELECT id FROM runs WHERE thread_id = ?) AND thread_id IS NULL",
        )
        .bind(thread.as_str())
        .execute()
        .await
        .map_err(db)?;
        // Everything else goes by cascade: runs, their events, transcripts, tool calls,
        // confirmations, capsules and spans, and the thread's snapshot.
        tx.query("DELETE FROM threads WHERE id = ?").bind(thread.as_str()).execute().await.map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(runs as u32)
    }

    async fn copy_run(&self, from: &RunId, to: &RunId, thread: &ThreadId) -> Result<()> {
        let postgres = self.db.is_postgres();
        let mut tx = self.db.begin().await.map_err(db)?;
        let copied = tx
            .query(
                "INSERT INTO runs (id, owner_id, thread_id, kind, status, client_msg_id, question, parent_run_id,
                               ui_state_version, model, last_seq, iterations, usage_json, error_json, created_at,
                               started_at, completed_at, role, api_key_id, cancel_requested, final_text, route_json,
                               outcome)
             SELECT ?1, owner_id, ?2, kind, status, NULL, question, NULL, ui_state_version, model, last_seq,
                    iterations, usage_json, error_json, created_at, started_at, completed_at, role, api_key_id, 0,
                    final_text, route_json, outcome
             FROM runs WHERE id = ?3",
            )
            .bind(to.as_str())
            .bind(thread.as_str())
            .bind(from.as_str())
            .execute()
            .await
            .map_err(db)?;
        if copied != 1 {
            return Err(corrupt("the run to copy"));
        }
        tx.query("INSERT INTO run_messages (run_id, idx, message_json) SELECT ?, idx, message_json FROM run_messages WHERE run_id = ?")
            .bind(to.as_str())
            .bind(from.as_str())
            .execute()
            .await
            .map_err(db)?;
        // Each event names its run and thread: the copies name the new ones.
        tx.query(if postgres {
            "INSERT INTO run_events (run_id, seq, created_at, payload)
             SELECT ?1, seq, created_at, convert_to(jsonb_set(jsonb_set(convert_from(payload, 'UTF8')::jsonb,
                        '{run_id}', to_jsonb(?1::text)), '{thread_id}', to_jsonb(?2::text))::text, 'UTF8')
             FROM run_events WHERE run_id = ?3"
        } else {
            "INSERT INTO run_events (run_id, seq, created_at, payload)
             SELECT ?1, seq, created_at, CAST(json_set(CAST(payload AS TEXT), '$.run_id', ?1, '$.thread_id', ?2) AS BLOB)
             FROM run_events WHERE run_id = ?3"
        })
        .bind(to.as_str())
        .bind(thread.as_str())
        .bind(from.as_str())
        .execute()
        .await
        .map_err(db)?;
        tx.query(
            "INSERT INTO run_capsules (run_id, datasets_json, query_mode, plan_json, compiled_sql, result_summary,
                                       error_json, exec_time_ms, verified_query_json)
             SELECT ?, datasets_json, query_mode, plan_json, compiled_sql, result_summary, error_json, exec_time_ms,
                    verified_query_json
             FROM run_capsules WHERE run_id = ?",
        )
        .bind(to.as_str())
        .bind(from.as_str())
        .execute()
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn insert_span(&self, run: &RunId, span: &SpanRecord) -> Result<()> {
        let span = SpanWrite {
            run_id: run.as_str().to_owned(),
            span_id: span.span_id.clone(),
            parent_span_id: span.parent_span_id.clone(),
            kind: span.kind.clone(),
            name: span.name.clone(),
            start_us: micros(span.start),
            end_us: micros(span.end),
            attributes_json: json(&span.attributes)?,
        };
        self.writes.write(Write::Span(span)).await
    }

    async fn spans(&self, run: &RunId) -> Result<Vec<SpanRecord>> {
        let rows = self
            .db
            .query(
                "SELECT span_id, parent_span_id, kind, name, start_us, end_us, attributes_json
             FROM run_spans WHERE run_id = ? ORDER BY start_us, span_id",
            )
            .bind(run.as_str())
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| {
                Ok(SpanRecord {
                    span_id: r.get("span_id"),
                    parent_span_id: r.get("parent_span_id"),
                    kind: r.get("kind"),
                    name: r.get("name"),
                    start: from_micros(r.get("start_us")),
                    end: from_micros(r.get::<Option<i64>>("end_us").unwrap_or_else(|| r.get("start_us"))),
                    attributes: from_json("attributes_json", Some(r.get("attributes_json")))?.unwrap_or_default(),
                })
            })
            .collect()
    }
}
