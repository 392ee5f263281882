//! The run engine's storage port (`RunLog`) on SQLite and PostgreSQL: threads, snapshots, the
//! event log, transcripts, tool-call intents/results, confirmations (compare-and-set), session
//! grants and spans.
//!
//! The port is one trait per concern (`aware_domain::ports::run_log`), and each file here
//! implements one of them; this file holds what they share — the chat-run columns and how a run
//! row, its cancel and a transcript are read:
//! - `runs.rs` (`ChatRuns`): chat runs — admission, status, route, progress, start and completion, cancels,
//!   a thread's history;
//! - `leases.rs` (`RunLeases`): the queue and the replicas' leases — promotion, claims, renewal, release;
//! - `events.rs` (`RunEvents`): the event log and the transcript;
//! - `tool_calls.rs` (`ToolCalls`): tool-call intents and results, and spans;
//! - `confirmations.rs` (`Confirmations`): confirmations and session grants;
//! - `threads.rs` (`Threads`): threads — creation, listing, titles, forks, deletion, copying a run;
//! - `snapshots.rs` (`Snapshots`): the client's state snapshots.

use super::db::Row;
use super::run_records::run_from_row;
use super::{StoreError, from_json};
use aware_domain::Result;
use aware_domain::auth::Role;
use aware_domain::events::Resolution;
use aware_domain::ids::ApiKeyId;
use aware_domain::ports::model::Message;
use aware_domain::ports::run_log::ChatRun;
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
