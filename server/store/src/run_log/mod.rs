//! The run engine's storage port (`RunLog`) on SQLite and PostgreSQL: threads, snapshots, the
//! event log, transcripts, tool-call intents/results, confirmations (compare-and-set), session
//! grants and spans.
//!
//! This file holds what the concerns share — the chat-run columns and how a run row, its cancel
//! and a transcript are read — and the one `impl RunLog for Store`, each method handing over to
//! the file of its concern:
//! - `runs.rs`: chat runs — admission, status, route, progress, start and completion, cancels,
//!   a thread's history;
//! - `leases.rs`: the queue and the replicas' leases — promotion, claims, renewal, release;
//! - `events.rs`: the event log and the transcript;
//! - `tool_calls.rs`: tool-call intents and results, and spans;
//! - `confirmations.rs`: confirmations and session grants;
//! - `threads.rs`: threads — creation, listing, titles, forks, deletion, copying a run;
//! - `snapshots.rs`: the client's state snapshots.

use super::db::Row;
use super::run_records::run_from_row;
use super::{Store, StoreError, from_json};
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::auth::Role;
use aware_domain::events::{Resolution, RunEvent};
use aware_domain::grounding::Grounding;
use aware_domain::ids::{ApiKeyId, ConfirmationId, GrantId, RunId, ThreadId, ToolCallId, UserId};
use aware_domain::ports::model::Message;
use aware_domain::ports::run_log::{
    ChatRun, Claim, Confirmation, Created, Lease, Place, QueuedAppend, RunLog, SessionGrant, Snapshot, SpanRecord,
    ThreadCursor, ThreadState, ThreadSummary, TitleIf,
};
use aware_domain::run::ToolCallRow;
use aware_domain::run::{RunError, RunStatus, Usage};
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

fn decode_messages(rows: &[Row]) -> Result<Vec<Message>> {
    rows.iter()
        .map(|r| from_json("message_json", Some(r.get("message_json")))?.ok_or_else(|| corrupt("message")))
        .collect()
}

mod confirmations;
mod events;
mod leases;
mod runs;
mod snapshots;
mod threads;
mod tool_calls;

/// Each method hands over to `Store`'s inherent method of the same name, in its concern's file:
/// inherent methods come before a trait's, so `self.name(…)` here is never this impl's own.
#[async_trait]
impl RunLog for Store {
    async fn ensure_thread(&self, owner: &UserId, thread: &ThreadId) -> Result<bool> {
        self.ensure_thread(owner, thread).await
    }

    async fn save_snapshot(&self, thread: &ThreadId, snapshot: &Snapshot) -> Result<u64> {
        self.save_snapshot(thread, snapshot).await
    }

    async fn snapshot(&self, thread: &ThreadId) -> Result<Option<Snapshot>> {
        self.snapshot(thread).await
    }

    async fn create_chat_run(&self, run: &ChatRun, place: Place<'_>, max_unfinished: u32) -> Result<Created> {
        self.create_chat_run(run, place, max_unfinished).await
    }

    async fn thread_state(&self, thread: &ThreadId, owner: &UserId) -> Result<ThreadState> {
        self.thread_state(thread, owner).await
    }

    async fn queued_runs(&self) -> Result<u32> {
        self.queued_runs().await
    }

    async fn promote_queued(&self, thread: Option<&ThreadId>, lease: &Lease) -> Result<Vec<RunId>> {
        self.promote_queued(thread, lease).await
    }

    async fn claim_runs(&self, lease: &Lease, now: DateTime<Utc>, which: Claim<'_>) -> Result<Vec<ChatRun>> {
        self.claim_runs(lease, now, which).await
    }

    async fn renew_leases(&self, lease: &Lease) -> Result<Vec<(RunId, Option<Resolution>)>> {
        self.renew_leases(lease).await
    }

    async fn release_leases(&self, replica: &str) -> Result<()> {
        self.release_leases(replica).await
    }

    async fn run_by_client_msg(&self, owner: &UserId, client_msg_id: &str) -> Result<Option<RunId>> {
        self.run_by_client_msg(owner, client_msg_id).await
    }

    async fn chat_run(&self, id: &RunId) -> Result<Option<ChatRun>> {
        self.chat_run(id).await
    }

    async fn set_run_status(&self, id: &RunId, status: RunStatus) -> Result<()> {
        self.set_run_status(id, status).await
    }

    async fn set_run_route(&self, id: &RunId, route_json: &str) -> Result<()> {
        self.set_run_route(id, route_json).await
    }

    async fn run_route(&self, id: &RunId) -> Result<Option<String>> {
        self.run_route(id).await
    }

    async fn set_run_progress(&self, id: &RunId, iterations: u32, usage: &Usage) -> Result<()> {
        self.set_run_progress(id, iterations, usage).await
    }

    async fn start_run(&self, first: &RunEvent, ui_state_version: u64) -> Result<()> {
        self.start_run(first, ui_state_version).await
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
        self.complete_chat_run(last, status, error, usage, final_text, grounding).await
    }

    async fn request_cancel(&self, id: &RunId, why: Resolution) -> Result<()> {
        self.request_cancel(id, why).await
    }

    async fn thread_history(&self, thread: &ThreadId, before: &RunId, runs: u32) -> Result<Vec<Message>> {
        self.thread_history(thread, before, runs).await
    }

    async fn append_event(&self, event: &RunEvent) -> Result<()> {
        self.append_event(event).await
    }

    fn queue_event(&self, event: &RunEvent) -> QueuedAppend {
        self.queue_event(event)
    }

    async fn events(&self, run: &RunId, after_seq: u64, limit: u32) -> Result<Vec<RunEvent>> {
        self.events(run, after_seq, limit).await
    }

    async fn last_seq(&self, run: &RunId) -> Result<u64> {
        self.last_seq(run).await
    }

    async fn append_message(&self, run: &RunId, idx: u32, message: &Message) -> Result<()> {
        self.append_message(run, idx, message).await
    }

    async fn messages(&self, run: &RunId) -> Result<Vec<Message>> {
        self.messages(run).await
    }

    async fn record_tool_intent(&self, row: &ToolCallRow) -> Result<()> {
        self.record_tool_intent(row).await
    }

    async fn record_tool_result(&self, row: &ToolCallRow) -> Result<()> {
        self.record_tool_result(row).await
    }

    async fn tool_calls(&self, run: &RunId) -> Result<Vec<ToolCallRow>> {
        self.tool_calls(run).await
    }

    async fn create_confirmation(&self, c: &Confirmation) -> Result<()> {
        self.create_confirmation(c).await
    }

    async fn confirmation(&self, id: &ConfirmationId) -> Result<Option<Confirmation>> {
        self.confirmation(id).await
    }

    async fn confirmation_for_call(&self, call: &ToolCallId) -> Result<Option<Confirmation>> {
        self.confirmation_for_call(call).await
    }

    async fn pending_confirmations(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<Confirmation>> {
        self.pending_confirmations(owner, now).await
    }

    async fn resolve_confirmation(
        &self,
        id: &ConfirmationId,
        to: Resolution,
        by: Option<&UserId>,
        edited_args: Option<&str>,
    ) -> Result<bool> {
        self.resolve_confirmation(id, to, by, edited_args).await
    }

    async fn create_grant(&self, g: &SessionGrant) -> Result<()> {
        self.create_grant(g).await
    }

    async fn live_grant(
        &self,
        owner: &UserId,
        tool: &str,
        class: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<SessionGrant>> {
        self.live_grant(owner, tool, class, now).await
    }

    async fn live_grants(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<SessionGrant>> {
        self.live_grants(owner, now).await
    }

    async fn revoke_grant(&self, owner: &UserId, id: &GrantId, now: DateTime<Utc>) -> Result<bool> {
        self.revoke_grant(owner, id, now).await
    }

    async fn thread_summary(&self, thread: &ThreadId) -> Result<Option<ThreadSummary>> {
        self.thread_summary(thread).await
    }

    async fn threads(
        &self,
        owner: &UserId,
        matching: Option<&str>,
        after: Option<&ThreadCursor>,
        limit: u32,
    ) -> Result<Vec<ThreadSummary>> {
        self.threads(owner, matching, after, limit).await
    }

    async fn set_thread_title(&self, thread: &ThreadId, title: &str, when: TitleIf<'_>) -> Result<bool> {
        self.set_thread_title(thread, title, when).await
    }

    async fn set_thread_fork(&self, thread: &ThreadId, from_thread: &ThreadId, from_run: &RunId) -> Result<()> {
        self.set_thread_fork(thread, from_thread, from_run).await
    }

    async fn thread_runs(&self, thread: &ThreadId, limit: u32) -> Result<Vec<ChatRun>> {
        self.thread_runs(thread, limit).await
    }

    async fn delete_thread(&self, thread: &ThreadId) -> Result<u32> {
        self.delete_thread(thread).await
    }

    async fn copy_run(&self, from: &RunId, to: &RunId, thread: &ThreadId) -> Result<()> {
        self.copy_run(from, to, thread).await
    }

    async fn insert_span(&self, run: &RunId, span: &SpanRecord) -> Result<()> {
        self.insert_span(run, span).await
    }

    async fn spans(&self, run: &RunId) -> Result<Vec<SpanRecord>> {
        self.spans(run).await
    }
}
