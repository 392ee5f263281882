//! External MCP servers as aware tools (the `ExternalTools` port of aware-core): the
//! configuration (`config.rs`, `[[mcp.servers]]`), the supervised connections over stdio or
//! Streamable HTTP, by the official Rust SDK (`registry.rs`), one server's state and its tools'
//! remembered caution (`slot.rs`), and each server tool as a scoped aware tool whose output is
//! data, not instructions (`tool.rs`); `probe.rs` is the client on its own, for the MCP
//! conformance suite. The policy gate decides who may
//! use which tool where; nothing here does.

mod config;
mod probe;
mod registry;
mod slot;
mod tool;

pub use config::{ScopeConfig, ServerConfig};
pub use probe::probe;
pub use registry::McpRegistry;
