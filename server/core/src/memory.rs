//! Memory with consent: the short facts a user asked aware to keep. Nothing is written while a
//! run is thinking: a run's post-hook (`runs/driver/post_hooks.rs`) stores what the user asked
//! for in so many words ("remember that our fiscal year starts in April") and what they approved
//! when the assistant proposed it (the `remember` tool, a STANDARD confirmation), and forgets
//! what they approved forgetting. Tool output and dataset cells never reach this module: the
//! only texts read here are the user's own message and the arguments a person approved.
//! Memories go into a run's instructions as quoted facts, bounded, the most relevant first.

use aware_domain::auth::{Caller, Capability};
use aware_domain::error::{Error, Result};
use aware_domain::ids::{MemoryId, RunId, UserId};
use aware_domain::ports::{AuditEntry, AuditLog, Memory, MemoryStore};
use chrono::Utc;
use std::collections::HashSet;
use std::sync::Arc;

/// Longest fact, in characters.
pub const MAX_MEMORY_CHARS: usize = 500;
/// Most facts one user keeps.
pub const MAX_MEMORIES: usize = 200;
/// At most this many facts, and this many characters of them, go into one run's instructions.
pub const PROMPT_FACTS: usize = 20;
pub const PROMPT_CHARS: usize = 2_000;

/// What a message asks of memory in so many words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Explicit {
    Remember(String),
    Forget(String),
}

/// `s` without `prefix` (ASCII, any case).
fn strip_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &s[prefix.len()..])
}

/// A fact as stored: trimmed, one line of single spaces, without a closing full stop.
pub fn normalize(fact: &str) -> String {
    let one_line = fact.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line.trim_end_matches(['.', '!']).trim().to_owned()
}

/// The memory request a user's message makes, if it makes one in so many words: "remember that
/// …", "please remember: …", "forget that …". A question ("do you remember …?") is none.
pub fn explicit_request(message: &str) -> Option<Explicit> {
    let mut s = message.trim();
    for lead in ["please ", "aware, ", "aware "] {
        if let Some(rest) = strip_ci(s, lead) {
            s = rest.trim_start();
        }
    }
    if s.ends_with('?') {
        return None;
    }
    // "sold means units", "by earn I mean salary_usd": a word taught, kept like a fact (the
    // offline planner reads it from then on; a model is given it).
    if let Some(definition) = definition(s) {
        return Some(Explicit::Remember(definition));
    }
    let (forget, rest) = if let Some(rest) = strip_ci(s, "remember") {
        (false, rest)
    } else if let Some(rest) = strip_ci(s, "forget") {
        (true, rest)
    } else {
        return None;
    };
    // "remember" must be a whole word, followed by what to remember.
    let rest = rest.strip_prefix(':').or_else(|| rest.strip_prefix(' '))?.trim_start();
    // "Remember this query as …" keeps a verified query, not a fact.
    let lower = rest.to_lowercase();
    if ["this query", "that query", "the query", "this sql", "that sql", "the sql"].iter().any(|q| lower.starts_with(q))
    {
        return None;
    }
    let rest = ["that ", "about ", "this: ", "this "]
        .iter()
        .find_map(|lead| strip_ci(rest, lead))
        .unwrap_or(rest)
        .trim_start_matches(':')
        .trim();
    let fact = normalize(rest);
    if fact.chars().count() < 3 || fact.chars().count() > MAX_MEMORY_CHARS {
        return None;
    }
    Some(if forget { Explicit::Forget(fact) } else { Explicit::Remember(fact) })
}

/// A short definition of a word: "sold means units", "revenue = net_usd", "by earn I mean
/// salary". Questions and longer sentences are not definitions.
fn definition(s: &str) -> Option<String> {
    let lower = s.to_lowercase();
    let (phrase, target) = if let Some(rest) = lower.strip_prefix("by ") {
        let (p, t) = rest.split_once(" i mean ")?;
        (p.trim(), t.trim())
    } else {
        let (p, t) = lower.split_once(" means ").or_else(|| lower.split_once(" = "))?;
        (p.trim(), t.trim())
    };
    let count = |x: &str| x.split_whitespace().count();
    let first = phrase.split_whitespace().next().unwrap_or_default();
    let question =
        ["what", "which", "how", "why", "does", "do", "it", "that", "this", "who", "when", "where"].contains(&first);
    (!question && (1..=4).contains(&count(phrase)) && (1..=3).contains(&count(target.trim_end_matches('.'))))
        .then(|| normalize(&format!("{phrase} means {}", target.trim_end_matches('.'))))
}

/// The words of a text that say something (lowercase, three letters or more).
fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3).map(str::to_lowercase).collect()
}

/// How many words `fact` shares with `words`.
fn overlap(fact: &str, with: &HashSet<String>) -> usize {
    words(fact).intersection(with).count()
}

/// The facts users keep, scoped to each caller.
#[derive(Clone)]
pub struct MemoryService {
    store: Arc<dyn MemoryStore>,
    audit: Arc<dyn AuditLog>,
}

impl MemoryService {
    pub fn new(store: Arc<dyn MemoryStore>, audit: Arc<dyn AuditLog>) -> Self {
        Self { store, audit }
    }

    /// The caller's memories, newest first.
    pub async fn list(&self, caller: &Caller) -> Result<Vec<Memory>> {
        caller.principal.require(Capability::DatasetRead)?;
        self.store.memories(&caller.principal.user_id).await
    }

    /// Stores a fact for the caller (the same text again is the memory already kept). Returns it,
    /// and whether it is new.
    pub async fn add(&self, caller: &Caller, text: &str, source_run: Option<&RunId>) -> Result<(Memory, bool)> {
        caller.principal.require(Capability::DatasetRead)?;
        let text = normalize(text);
        if text.is_empty() {
            return Err(Error::validation("text", "a memory needs some text"));
        }
        if text.chars().count() > MAX_MEMORY_CHARS {
            return Err(Error::validation("text", format!("a memory is at most {MAX_MEMORY_CHARS} characters")));
        }
        let owner = &caller.principal.user_id;
        let kept = self.store.memories(owner).await?;
        if let Some(same) = kept.iter().find(|m| m.text.to_lowercase() == text.to_lowercase()) {
            return Ok((same.clone(), false));
        }
        if kept.len() >= MAX_MEMORIES {
            return Err(Error::resource_exhausted(format!(
                "at most {MAX_MEMORIES} memories are kept per user; forget one first"
            )));
        }
        let memory = Memory {
            id: MemoryId::generate(),
            owner: owner.clone(),
            text,
            source_run: source_run.cloned(),
            created_at: Utc::now(),
            last_used_at: None,
        };
        self.store.add_memory(&memory).await?;
        self.audit(caller, "memory.add", &memory).await;
        Ok((memory, true))
    }

    /// Forgets one of the caller's memories (NOT_FOUND when they have no such memory).
    pub async fn delete(&self, caller: &Caller, id: &MemoryId) -> Result<Memory> {
        caller.principal.require(Capability::DatasetRead)?;
        let owner = &caller.principal.user_id;
        let not_found = || Error::not_found("memory", id).with_field("memory_id");
        let memory = self.store.memories(owner).await?.into_iter().find(|m| &m.id == id).ok_or_else(not_found)?;
        if !self.store.delete_memory(owner, id).await? {
            return Err(not_found());
        }
        self.audit(caller, "memory.delete", &memory).await;
        Ok(memory)
    }

    /// The owner's memory that `words` most likely means (for "forget that …"): the one sharing
    /// the most words with it, if any does.
    pub async fn find(&self, owner: &UserId, text: &str) -> Result<Option<Memory>> {
        let wanted = words(text);
        let kept = self.store.memories(owner).await?;
        let normalized = normalize(text).to_lowercase();
        if let Some(same) = kept.iter().find(|m| m.text.to_lowercase() == normalized) {
            return Ok(Some(same.clone()));
        }
        Ok(kept
            .into_iter()
            .map(|m| (overlap(&m.text, &wanted), m))
            .filter(|(n, _)| *n > 0)
            .max_by_key(|(n, _)| *n)
            .map(|(_, m)| m))
    }

    /// The facts for a run's instructions: the owner's memories sharing the most words with the
    /// request first, then the newest, within [`PROMPT_FACTS`] and [`PROMPT_CHARS`]. Marks them used.
    pub async fn for_prompt(&self, owner: &UserId, request: &str) -> Result<Vec<String>> {
        let wanted = words(request);
        let mut kept: Vec<(usize, Memory)> =
            self.store.memories(owner).await?.into_iter().map(|m| (overlap(&m.text, &wanted), m)).collect();
        // Newest first already; a stable sort keeps that order among equals.
        kept.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
        let mut chosen = Vec::new();
        let mut chars = 0;
        for (_, m) in kept {
            let n = m.text.chars().count();
            if chosen.len() == PROMPT_FACTS || chars + n > PROMPT_CHARS {
                break;
            }
            chars += n;
            chosen.push(m);
        }
        if !chosen.is_empty() {
            let ids: Vec<MemoryId> = chosen.iter().map(|m| m.id.clone()).collect();
            self.store.touch_memories(owner, &ids, Utc::now()).await?;
        }
        Ok(chosen.into_iter().map(|m| m.text).collect())
    }

    /// Audited without the fact itself: a memory is its owner's alone, and admins read the
    /// audit log.
    async fn audit(&self, caller: &Caller, action: &str, memory: &Memory) {
        let entry = AuditEntry::by(caller, action, "memory", memory.id.to_string()).details(serde_json::json!({
            "chars": memory.text.chars().count(),
            "source_run_id": memory.source_run.as_ref().map(RunId::as_str),
        }));
        aware_domain::ports::record_or_log(self.audit.as_ref(), entry).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_request_in_so_many_words_is_one() {
        let remember = |s: &str| Some(Explicit::Remember(s.to_owned()));
        assert_eq!(
            explicit_request("remember that our fiscal year starts in April"),
            remember("our fiscal year starts in April")
        );
        assert_eq!(explicit_request("Please remember: revenue is in EUR."), remember("revenue is in EUR"));
        assert_eq!(explicit_request("  REMEMBER   the  target is 5%  "), remember("the target is 5%"));
        // A word taught in so many words is kept too.
        assert_eq!(explicit_request("sold means units"), remember("sold means units"));
        assert_eq!(explicit_request("By earn I mean salary_usd."), remember("earn means salary_usd"));
        assert_eq!(
            explicit_request("forget that our fiscal year starts in April"),
            Some(Explicit::Forget("our fiscal year starts in April".to_owned()))
        );
        for none in [
            "do you remember what I asked?",
            "remember?",
            "rememberthat x y z",
            "what should I remember about sales",
            "remember",
            "remember it",
            "show the sales that I should remember",
            "what revenue means for the business",
            "sold means the number of units we shipped to customers in the north",
        ] {
            assert_eq!(explicit_request(none), None, "{none}");
        }
    }
}
