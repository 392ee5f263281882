//! The aware server as a library: [`server::run`] serves gRPC, grpc-web, health and reflection on
//! one listener until a shutdown future resolves. `main.rs` only parses arguments, sets up logging
//! and waits for Ctrl-C/SIGTERM, so tests can run the same code on port 0.
//!
//! Map: `server.rs` (`build_state` wires every adapter once; `run` serves), `grpc/` (one handler
//! per service: `chat/`, `datasets.rs`, `query.rs`, `runs.rs`, `files.rs`, `threads.rs`,
//! `memory.rs`, `admin.rs`, `audit.rs`; `mod.rs` the shared state), `convert/` (proto ⇄
//! domain by concern, ids parsed at the boundary), `status.rs` (the one error → status mapping), `auth.rs`,
//! `limits.rs`, `guard.rs` (Origin/Host checks), `mcp/` (aware as an MCP server at `/mcp`),
//! `web.rs`, `metrics.rs`, `telemetry.rs`, `config/` (one file per section).

pub mod auth;
pub mod config;
pub mod convert;
pub mod grpc;
pub mod guard;
pub mod limits;
pub mod mcp;
pub mod metrics;
pub mod server;
pub mod status;
pub mod telemetry;
pub mod web;
