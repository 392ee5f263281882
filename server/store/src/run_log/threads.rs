//! Threads: creating one for its owner, a thread's summary and the owner's list (search and
//! paging), titles, forks, a thread's runs, deleting a thread and copying a run into another
//! (a fork).

use super::{chat_run_from_row, corrupt};
use crate::db::Row;
use crate::{Store, db, from_micros, micros};
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::ids::{RunId, ThreadId, UserId};
use aware_domain::ports::run_log::Threads;
use aware_domain::ports::run_log::{ChatRun, ThreadCursor, ThreadSummary, TitleIf};
use aware_domain::run::{RunOutcome, RunStatus};
use chrono::Utc;

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

#[async_trait]
impl Threads for Store {
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

    async fn thread_summary(&self, thread: &ThreadId) -> Result<Option<ThreadSummary>> {
        self.db
            .query(select_threads!("WHERE t.id = ? GROUP BY t.id"))
            .bind(thread.as_str())
            .fetch_optional_map(thread_row)
            .await
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
}
