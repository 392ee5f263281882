//! What the model sees — every text of the server's own that reaches a model, in one place:
//! - `markers.rs`: the markers around untrusted text (the data section, passages, external
//!   content) and the one escape that keeps anything inside from closing them;
//! - `prompt.rs`: the system prompt (instructions, then the app's state as an escaped data
//!   section) and the router's prompt;
//! - `outcomes.rs`: what a tool call's result says when the tool did not simply run (denied,
//!   expired, cancelled, refused by the policy gate, invalid, outcome unknown after a restart);
//! - `summary.rs`: the model's track of two-track results (counts, names, ranges — never a text
//!   cell of the user's data), and the passages a knowledge search retrieved, capped and quoted.
//!
//! The tools' own descriptions and input schemas are their metadata and stay with each tool
//! (`runs/tools/`), as the text a tool's result is built from stays in the tool; both are
//! offered through the policy gate. Models that run in process (the offline planner) recognise
//! these texts by the constants here, never by copies.

pub mod markers;
pub mod outcomes;
pub mod prompt;
pub mod summary;
