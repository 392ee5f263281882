//! Runs of the agent: the engine (admission, fan-out, cancel, recovery, and the replicas sharing a
//! store), approvals (`approvals.rs`: confirmations, questions back, grants), the per-run driver
//! (the agent loop), what the model sees (`model_view/`) and the tools it calls (`tools/`). The
//! events, the run log and the language-model port are data and ports of `aware-domain`; the
//! models themselves live elsewhere: the offline planner in `aware-planner`, the network providers
//! and the scripted model in `aware-llm`.

mod admission;
mod approvals;
pub mod client_call;
mod config;
pub mod delivery;
mod driver;
pub mod engine;
mod fleet;
pub mod grounding;
pub mod model_view;
pub mod router;
pub mod services;
mod spawn;
pub mod threads;
mod titles;
pub mod tool_links;
pub mod tools;

pub use admission::{ActiveRunInfo, OnBusy};
pub use client_call::ClientToolCall;
pub use config::EngineConfig;
pub use delivery::{Delivery, Framed, Subscription};
pub use engine::{Admission, Answer, DEFAULT_GRANT, LONGEST_GRANT, NewMessage, RunEngine, RunLogPage, Scope};
pub use services::{Services, SystemInfo};
