//! What the model sees — every text of the server's own that reaches a model, in one place:
//! - `markers.rs`: the markers around untrusted text (the data section, passages, external
//!   content) and the one escape that keeps anything inside from closing them;
//! - `prompt.rs`: the system prompt (instructions, then the app's state as an escaped data
//!   section) and the router's prompt;
//! - `outcomes.rs`: what a tool call's result says when the tool did not simply run (denied,
//!   expired, cancelled, refused by the policy gate, invalid, outcome unknown after a restart);
//! - `summary.rs`: the model's track of two-track results (counts, names, ranges — never a text
//!   cell of the user's data): lists, details, previews, profiles, query answers, searches, runs
//!   and the server's status, and the passages a knowledge search retrieved, capped and quoted;
//! - `changes.rs`: what the model is told after a change it asked for ran (users, roles, keys,
//!   datasets, verified queries, memories), with how to undo it.
//!
//! The tools' own descriptions and input schemas are their cards: they stay with each tool
//! (`runs/tools/`), beside the arguments they describe, and are offered through the policy gate.
//! Models that run in process (the offline planner) recognise these texts by the constants here,
//! never by copies.

pub mod changes;
pub mod markers;
pub mod outcomes;
pub mod prompt;
pub mod summary;
