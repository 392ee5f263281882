//! Conversations that last, from the terminal: threads (list, show as turns, rename, delete, fork
//! at a past message), the assistant's memory of you, feedback on a run's answer, and the session
//! grants that let a tool run without asking for a while.

use crate::render::{enum_word, state_text, time_text};
use crate::{ask_once, note, say};
use aware_client::AwareClient;
use aware_client::v1 as pb;
use clap::{Subcommand, ValueEnum};
use serde_json::{Value as Json, json};

#[derive(Subcommand)]
pub(crate) enum ThreadsCommand {
    /// Your conversations, newest activity first.
    List {
        /// How many to show.
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// Only those whose title or one of whose questions holds this text.
        #[arg(long, default_value = "")]
        search: String,
    },
    /// A conversation as its turns: your message, the results, confirmations, the answer.
    Show { thread_id: String },
    /// Give a conversation a title of your own.
    Rename { thread_id: String, title: String },
    /// Delete a conversation with its runs (asks first unless --yes).
    Delete {
        thread_id: String,
        #[arg(long)]
        yes: bool,
    },
    /// Edit a past message and resend it: a new conversation holding everything before RUN_ID's
    /// message. Prints that message to edit; send it with `aware chat --thread NEW "…"`. The
    /// original conversation is untouched.
    Fork { run_id: String },
}

#[derive(Subcommand)]
pub(crate) enum MemoryCommand {
    /// What the assistant remembers about you.
    List,
    /// Tell the assistant a fact to remember.
    Add { text: String },
    /// Remove a remembered fact by its id.
    Forget { memory_id: String },
}

#[derive(Subcommand)]
pub(crate) enum GrantsCommand {
    /// The tools you allowed to run without asking, until when.
    List,
    /// End a grant now: the tool asks again.
    Revoke { grant_id: String },
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Rating {
    Up,
    Down,
}

fn resolution_word(r: pb::ConfirmationResolution) -> String {
    enum_word(r.as_str_name(), "CONFIRMATION_RESOLUTION_")
}

/// "1 run", "3 runs".
fn runs_text(n: u32) -> String {
    format!("{n} run{}", if n == 1 { "" } else { "s" })
}

fn when(t: Option<prost_types::Timestamp>) -> String {
    t.map_or_else(|| "never".to_owned(), |t| time_text(t.seconds))
}

fn thread_json(t: &pb::Thread) -> Json {
    json!({
        "thread_id": t.thread_id, "title": t.title, "created_at": t.created_at.map(|t| t.seconds),
        "last_activity_at": t.last_activity_at.map(|t| t.seconds), "run_count": t.run_count,
        "last_run_status": enum_word(t.last_run_status().as_str_name(), "RUN_STATUS_"),
        "last_run_outcome": enum_word(t.last_run_outcome().as_str_name(), "RUN_OUTCOME_"),
        "forked_from_thread_id": t.forked_from_thread_id, "forked_from_run_id": t.forked_from_run_id,
    })
}

pub(crate) fn feedback_json(f: Option<&pb::Feedback>) -> Json {
    f.map_or(Json::Null, |f| json!({"rating": rating_word(f.rating()), "reason": f.reason}))
}

fn rating_word(r: pb::FeedbackRating) -> &'static str {
    match r {
        pb::FeedbackRating::Up => "up",
        pb::FeedbackRating::Down => "down",
        pb::FeedbackRating::Unspecified => "none",
    }
}

pub(crate) async fn threads(client: &AwareClient, command: ThreadsCommand, json: bool) -> anyhow::Result<()> {
    let mut threads = client.threads();
    match command {
        ThreadsCommand::List { limit, search } => {
            let mut all = Vec::new();
            let mut page_token = String::new();
            while all.len() < limit as usize {
                let want = (limit as usize - all.len()).min(100) as u32;
                let page = threads
                    .list_threads(pb::ListThreadsRequest { page_size: want, page_token, query: search.clone() })
                    .await?
                    .into_inner();
                all.extend(page.threads);
                if page.next_page_token.is_empty() {
                    break;
                }
                page_token = page.next_page_token;
            }
            all.truncate(limit as usize);
            if json {
                say!("{}", Json::Array(all.iter().map(thread_json).collect()));
            } else if all.is_empty() {
                say!("No conversations yet: `aware chat` starts one.");
            } else {
                for t in &all {
                    let forked = if t.forked_from_thread_id.is_empty() {
                        String::new()
                    } else {
                        format!(" · edited from {}", t.forked_from_thread_id)
                    };
                    say!(
                        "{}  {}  ({}, last {} · {}){forked}",
                        t.thread_id,
                        t.title,
                        runs_text(t.run_count),
                        when(t.last_activity_at),
                        state_text(t.last_run_status(), t.last_run_outcome())
                    );
                }
            }
        }
        ThreadsCommand::Show { thread_id } => {
            let got = threads.get_thread(pb::GetThreadRequest { thread_id }).await?.into_inner();
            let thread = got.thread.unwrap_or_default();
            if json {
                let turns: Vec<Json> = got.turns.iter().map(turn_json).collect();
                say!("{}", json!({"thread": thread_json(&thread), "turns": turns}));
                return Ok(());
            }
            say!("{}  {}", thread.thread_id, thread.title);
            if !thread.forked_from_thread_id.is_empty() {
                say!("(edited from {}, before run {})", thread.forked_from_thread_id, thread.forked_from_run_id);
            }
            for turn in &got.turns {
                print_turn(turn);
            }
        }
        ThreadsCommand::Rename { thread_id, title } => {
            let renamed = threads.rename_thread(pb::RenameThreadRequest { thread_id, title }).await?.into_inner();
            let t = renamed.thread.unwrap_or_default();
            if json {
                say!("{}", thread_json(&t));
            } else {
                say!("Renamed {} to “{}”.", t.thread_id, t.title);
            }
        }
        ThreadsCommand::Delete { thread_id, yes } => {
            let got = threads.get_thread(pb::GetThreadRequest { thread_id: thread_id.clone() }).await?.into_inner();
            let t = got.thread.unwrap_or_default();
            let what = format!(
                "Delete the conversation “{}” ({}, with their results and logs)? This cannot be undone.",
                t.title,
                runs_text(t.run_count)
            );
            if !yes && !ask_once(&what, "--yes").await? {
                anyhow::bail!("not deleted");
            }
            let deleted = threads.delete_thread(pb::DeleteThreadRequest { thread_id }).await?.into_inner();
            if json {
                say!("{}", json!({"deleted": t.thread_id, "runs_deleted": deleted.runs_deleted}));
            } else {
                say!("Deleted “{}” ({}).", t.title, runs_text(deleted.runs_deleted));
            }
        }
        ThreadsCommand::Fork { run_id } => {
            let forked = threads.fork_thread(pb::ForkThreadRequest { run_id }).await?.into_inner();
            let t = forked.thread.unwrap_or_default();
            if json {
                say!("{}", json!({"thread": thread_json(&t), "user_text": forked.user_text}));
            } else {
                say!(
                    "New conversation {} “{}” with the {} turns before that message.",
                    t.thread_id,
                    t.title,
                    t.run_count
                );
                say!("The message was:\n  {}", forked.user_text);
                note!("Send your edit with: aware chat --thread {} \"…\"", t.thread_id);
            }
        }
    }
    Ok(())
}

fn turn_json(turn: &pb::Turn) -> Json {
    json!({
        "run_id": turn.run_id, "status": enum_word(turn.status().as_str_name(), "RUN_STATUS_"),
        "outcome": enum_word(turn.outcome().as_str_name(), "RUN_OUTCOME_"), "created_at": turn.created_at.map(|t| t.seconds),
        "user_text": turn.user_text, "assistant_text": turn.assistant_text,
        "results": turn.results.iter().map(|r| json!({
            "seq": r.seq, "tool": r.tool_name, "is_error": r.is_error, "summary": r.summary, "has_rich": r.has_rich,
        })).collect::<Vec<_>>(),
        "confirmations": turn.confirmations.iter().map(|c| json!({
            "confirmation_id": c.confirmation_id, "tool": c.tool_name, "description": c.description,
            "resolution": resolution_word(c.resolution()), "grant_id": c.grant_id,
            "edited_arguments_json": c.edited_arguments_json,
        })).collect::<Vec<_>>(),
        "feedback": feedback_json(turn.feedback.as_ref()),
        "memories_saved": turn.memories_saved,
    })
}

fn print_turn(turn: &pb::Turn) {
    let rated = turn.feedback.as_ref().map(|f| format!(" · {}", feedback_text(f))).unwrap_or_default();
    say!("\n── {} · {} ({}){rated}", when(turn.created_at), turn.run_id, state_text(turn.status(), turn.outcome()));
    say!("you>   {}", turn.user_text);
    for r in &turn.results {
        let mark = if r.is_error { '✗' } else { '✓' };
        say!("       {mark} {}: {}", r.tool_name, r.summary.lines().next().unwrap_or_default());
    }
    for c in &turn.confirmations {
        let mut how = resolution_word(c.resolution());
        if !c.grant_id.is_empty() {
            how.push_str(&format!(" (session grant {})", c.grant_id));
        }
        if !c.edited_arguments_json.is_empty() {
            how.push_str(&format!(" with edits {}", c.edited_arguments_json));
        }
        say!("       ? {} → {how}", c.description);
    }
    for m in &turn.memories_saved {
        say!("       ★ remembered: {m}");
    }
    if !turn.assistant_text.is_empty() {
        say!("aware> {}", turn.assistant_text);
    }
}

pub(crate) async fn memory(client: &AwareClient, command: MemoryCommand, json: bool) -> anyhow::Result<()> {
    let mut memory = client.memory();
    match command {
        MemoryCommand::List => {
            let all = memory.list_memories(pb::ListMemoriesRequest {}).await?.into_inner().memories;
            if json {
                say!("{}", Json::Array(all.iter().map(memory_json).collect()));
            } else if all.is_empty() {
                say!("Nothing remembered. Say “remember that …” in a chat, or `aware memory add \"…\"`.");
            } else {
                for m in &all {
                    let from = if m.source_run_id.is_empty() {
                        "added by you".to_owned()
                    } else {
                        format!("from run {}", m.source_run_id)
                    };
                    say!(
                        "{}  {}  ({from}, {}; last used {})",
                        m.memory_id,
                        m.text,
                        when(m.created_at),
                        when(m.last_used_at)
                    );
                }
            }
        }
        MemoryCommand::Add { text } => {
            let m = memory.add_memory(pb::AddMemoryRequest { text }).await?.into_inner().memory.unwrap_or_default();
            if json {
                say!("{}", memory_json(&m));
            } else {
                say!("Remembered ({}): {}", m.memory_id, m.text);
            }
        }
        MemoryCommand::Forget { memory_id } => {
            memory.delete_memory(pb::DeleteMemoryRequest { memory_id: memory_id.clone() }).await?;
            if json {
                say!("{}", json!({"forgotten": memory_id}));
            } else {
                say!("Forgot {memory_id}.");
            }
        }
    }
    Ok(())
}

fn memory_json(m: &pb::Memory) -> Json {
    json!({
        "memory_id": m.memory_id, "text": m.text, "source_run_id": m.source_run_id,
        "created_at": m.created_at.map(|t| t.seconds), "last_used_at": m.last_used_at.map(|t| t.seconds),
    })
}

pub(crate) async fn feedback(
    client: &AwareClient,
    run_id: &str,
    rating: Rating,
    reason: &str,
    json: bool,
) -> anyhow::Result<()> {
    let f = client.feedback(run_id, matches!(rating, Rating::Up), reason).await?;
    if json {
        say!("{}", json!({"run_id": run_id, "feedback": feedback_json(Some(&f))}));
    } else {
        say!("Recorded for {run_id}: {}", feedback_text(&f));
    }
    Ok(())
}

/// A rating as a person reads it: "👍: clear and right".
pub(crate) fn feedback_text(f: &pb::Feedback) -> String {
    let thumb = match f.rating() {
        pb::FeedbackRating::Up => "👍",
        pb::FeedbackRating::Down => "👎",
        pb::FeedbackRating::Unspecified => "?",
    };
    if f.reason.is_empty() { thumb.to_owned() } else { format!("{thumb}: {}", f.reason) }
}

pub(crate) async fn grants(client: &AwareClient, command: GrantsCommand, json: bool) -> anyhow::Result<()> {
    let mut chat = client.chat();
    match command {
        GrantsCommand::List => {
            let all = chat.list_grants(pb::ListGrantsRequest {}).await?.into_inner().grants;
            if json {
                let items: Vec<Json> = all
                    .iter()
                    .map(|g| {
                        json!({"grant_id": g.grant_id, "tool": g.tool_name, "resource_class": g.resource_class,
                               "confirmation_id": g.confirmation_id, "created_at": g.created_at.map(|t| t.seconds),
                               "expires_at": g.expires_at.map(|t| t.seconds)})
                    })
                    .collect();
                say!("{}", Json::Array(items));
            } else if all.is_empty() {
                say!("Every confirmation asks: no session grants.");
            } else {
                for g in &all {
                    say!(
                        "{}  {} on {} without asking, until {}",
                        g.grant_id,
                        g.tool_name,
                        g.resource_class,
                        when(g.expires_at)
                    );
                }
            }
        }
        GrantsCommand::Revoke { grant_id } => {
            chat.revoke_grant(pb::RevokeGrantRequest { grant_id: grant_id.clone() }).await?;
            if json {
                say!("{}", json!({"revoked": grant_id}));
            } else {
                say!("Revoked {grant_id}: that tool asks again.");
            }
        }
    }
    Ok(())
}
