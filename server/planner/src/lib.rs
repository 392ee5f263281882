//! The offline planner: aware's answer when no language model is configured, and the part of
//! aware that must never be confidently wrong.
//!
//! Map of the crate:
//! - [`text`]: words as they are compared (case, accents, spellings, numbers, stems).
//! - [`lexicon`]: one dataset's vocabulary — its columns and their classes and units, the
//!   values of its categorical columns, its yes/no flags, what its rows are called.
//! - [`reading`]: a question read against a lexicon into a [`reading::Reading`] (a typed plan
//!   for `execute_query_plan`), or a question back, or a plain statement of what was not
//!   understood. Every word must be used or be a function word.
//! - [`answer`] and [`format`]: the sentence a person reads, from the reading and the result
//!   table, numbers formatted with their units.
//! - [`offline`]: the `LanguageModel` that ties them to the run engine and maps the other
//!   requests (list, preview, profile, search, delete, folders, status) to their tools;
//!   `edits`: the change requests (rename, describe, save a result or a verified query, users
//!   and keys) read into the write tools' calls; `knowledge`: questions about the user's
//!   documents, answered by quoting the passages retrieved, with their chunk ids;
//!   `tools_talk`: requests that name a tool; `turns`: the turns all of them write, each with its
//!   stance (answered, asked back, not understood, failed, refused), and which dataset a text
//!   names; `suggest`: the questions offered about a dataset and after an answer.
//!
//! Depends only on `aware-core`; it sees the user's data values (to match "Gràcia"), so it runs
//! in process and nothing it reads is sent anywhere.

pub mod answer;
mod edits;
pub mod format;
mod knowledge;
pub mod lexicon;
pub mod meaning;
pub mod offline;
pub mod reading;
mod suggest;
pub mod text;
mod tools_talk;
mod turns;

pub use offline::OfflinePlanner;
