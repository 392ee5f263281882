//! Typed identifiers. Every id is a prefix plus a time-ordered UUID (v7) in simple hex form, so ids
//! sort by creation time and say what they name when they show up in a log.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a request is told when its `what` id is missing or is not one (`raw` as sent, cut to 40
/// characters): "a confirmation id is required", or "\"cf 12\" is not a confirmation id (one
/// looks like cf_…)".
pub fn bad_id(raw: &str, what: &str, prefix: &str) -> String {
    let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    let raw = raw.trim();
    if raw.is_empty() {
        return format!("{article} {what} id is required");
    }
    let shown: String = raw.chars().take(40).collect();
    let cut = if shown.len() < raw.len() { "…" } else { "" };
    format!("{shown:?}{cut} is not {article} {what} id (one looks like {prefix}…)")
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub const PREFIX: &'static str = $prefix;

            /// A fresh, time-ordered id.
            pub fn generate() -> Self {
                Self(format!("{}{}", $prefix, uuid::Uuid::now_v7().simple()))
            }

            /// Wraps an id that came from storage or the network. Ids are opaque: anything that
            /// does not exist simply answers NOT_FOUND, so no format check is needed here beyond
            /// refusing empty and absurdly long values.
            pub fn parse(raw: &str) -> Option<Self> {
                let raw = raw.trim();
                (!raw.is_empty() && raw.len() <= 128 && raw.chars().all(|c| c.is_ascii_graphic()))
                    .then(|| Self(raw.to_owned()))
            }

            /// The id a request's `field` holds, or a validation error saying it is missing or
            /// is not one.
            pub fn parse_field(raw: &str, field: &str) -> crate::Result<Self> {
                Self::parse(raw).ok_or_else(|| crate::Error::validation(field, bad_id(raw, $what, $prefix)))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// A user (a person or a service account).
    UserId,
    "usr_",
    "user"
);
id_type!(
    /// A dataset.
    DatasetId,
    "ds_",
    "dataset"
);
id_type!(
    /// A browser (chunked) upload in progress.
    UploadId,
    "up_",
    "upload"
);
id_type!(
    /// An API key (not the secret token itself).
    ApiKeyId,
    "key_",
    "key"
);

id_type!(
    /// A saved (verified) query: a question and the SQL a person approved for it.
    SavedQueryId,
    "sq_",
    "saved query"
);

id_type!(
    /// A conversation.
    ThreadId,
    "th_",
    "thread"
);
id_type!(
    /// A run: one user message processed by the agent, or one QueryService call.
    RunId,
    "run_",
    "run"
);

impl RunId {
    /// The run a Chat stream message names (a resume, a cancel): one parser with every id
    /// (`parse_field`), answered in-band like a run that does not exist — UNKNOWN_RUN, one of the
    /// stream's rejection codes — with what is wrong with it. Unary RPCs take run ids like any id:
    /// VALIDATION_ERROR naming `run_id`.
    pub fn in_stream(raw: &str) -> crate::Result<Self> {
        Self::parse_field(raw, "run_id").map_err(|e| crate::Error::new(crate::ErrorCode::UnknownRun, e.message))
    }
}
id_type!(
    /// A confirmation a person must answer.
    ConfirmationId,
    "cf_",
    "confirmation"
);
id_type!(
    /// A tool call within a run (also its idempotency key).
    ToolCallId,
    "call_",
    "tool call"
);

id_type!(
    /// A fact in a user's memory.
    MemoryId,
    "mem_",
    "memory"
);
id_type!(
    /// A session grant ("allow for 5 minutes").
    GrantId,
    "gr_",
    "grant"
);

/// Longest thread id a client may choose.
pub const MAX_THREAD_NAME: usize = 64;

impl ThreadId {
    /// The thread a client calls `name` among `owner`'s threads. Thread ids are chosen by clients
    /// and belong to one user: two users' `main` are two threads. Inside the server a thread is
    /// keyed by its owner and its name (`usr_…/main`); clients only ever see the name.
    pub fn for_user(owner: &UserId, name: &str) -> Option<Self> {
        let name = name.trim();
        (!name.is_empty() && name.len() <= MAX_THREAD_NAME && name.chars().all(|c| c.is_ascii_graphic()))
            .then(|| Self(format!("{owner}/{name}")))
    }

    /// A new thread of `owner`, with a generated name.
    pub fn generate_for(owner: &UserId) -> Self {
        Self(format!("{owner}/{}", Self::generate()))
    }

    /// The id the client knows the thread by (without its owner).
    pub fn name(&self) -> &str {
        match self.0.split_once('/') {
            Some((owner, name)) if owner.starts_with(UserId::PREFIX) => name,
            _ => &self.0,
        }
    }
}

impl UserId {
    /// The implicit single user of `--auth local`.
    pub fn local() -> Self {
        Self("usr_local".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_malformed_id_is_told_apart() {
        let missing = ConfirmationId::parse_field("  ", "confirmation_id").unwrap_err();
        assert_eq!(missing.message, "a confirmation id is required");
        let malformed = ConfirmationId::parse_field("cf 12", "confirmation_id").unwrap_err();
        assert_eq!(malformed.message, "\"cf 12\" is not a confirmation id (one looks like cf_…)");
        assert_eq!(malformed.field.as_deref(), Some("confirmation_id"));
        assert!(UploadId::parse_field("", "upload_id").unwrap_err().message.starts_with("an upload id"));
        let long = UserId::parse_field(&"é".repeat(300), "user_id").unwrap_err().message;
        assert!(long.contains("…\" is not a user id") || long.contains("\"… is not"), "{long}");
    }

    #[test]
    fn ids_are_prefixed_unique_and_time_ordered() {
        let a = DatasetId::generate();
        let b = DatasetId::generate();
        assert!(a.as_str().starts_with("ds_"));
        assert_ne!(a, b);
        assert!(a < b, "v7 ids sort by creation time: {a} !< {b}");
    }

    #[test]
    fn parse_refuses_empty_long_and_odd_input() {
        assert!(DatasetId::parse("").is_none());
        assert!(DatasetId::parse("   ").is_none());
        assert!(DatasetId::parse(&"x".repeat(129)).is_none());
        assert!(DatasetId::parse("ds_1 2").is_none());
        assert!(DatasetId::parse("ds_\u{202e}x").is_none());
        assert_eq!(DatasetId::parse(" ds_abc ").map(|d| d.to_string()), Some("ds_abc".into()));
    }

    #[test]
    fn thread_ids_belong_to_their_owner_and_clients_see_only_the_name() {
        let (ana, bo) = (UserId::parse("usr_ana").unwrap(), UserId::parse("usr_bo").unwrap());
        let a = ThreadId::for_user(&ana, "main").unwrap();
        let b = ThreadId::for_user(&bo, "main").unwrap();
        assert_ne!(a, b, "two users' `main` are two threads");
        assert_eq!((a.name(), b.name()), ("main", "main"));
        assert_eq!(ThreadId::for_user(&ana, "a/b").unwrap().name(), "a/b");
        assert!(ThreadId::for_user(&ana, "").is_none());
        assert!(ThreadId::for_user(&ana, &"x".repeat(65)).is_none());
        assert!(ThreadId::for_user(&ana, "a b").is_none());
        let generated = ThreadId::generate_for(&ana);
        assert!(generated.name().starts_with(ThreadId::PREFIX) && generated.as_str().starts_with("usr_ana/"));
        assert_eq!(ThreadId::parse("th_old").unwrap().name(), "th_old", "an id without an owner is its own name");
    }
}
