//! Runs of the agent: the engine (admission, fan-out, confirmations, cancel, recovery), the
//! per-run driver (the agent loop), the event model, the model and tool ports, the offline
//! planner and the scripted model, and the storage port.

mod driver;
pub mod engine;
pub mod events;
pub mod model;
pub mod planner;
mod prompt;
pub mod router;
pub mod store;
pub mod summary;
pub mod tools;

pub use engine::{Admission, EngineConfig, NewMessage, OnBusy, RunEngine, Services, Subscription};
