//! `[[mcp.servers]]`: an external MCP server, how to reach it, and what its tools may do.
//!
//! ```toml
//! [[mcp.servers]]
//! id = "everything"                  # tools are named everything.<tool>
//! command = "node"                   # stdio: a command, args and env …
//! args = ["server-everything/dist/index.js", "stdio"]
//! # url = "http://127.0.0.1:3001/mcp" # … or Streamable HTTP, with headers
//! timeout_ms = 10000                 # per call
//! [mcp.servers.tools]                # tool → scope; a tool mapped to none is denied
//! echo = "demo.read"
//! [[mcp.servers.scopes]]             # who may use a scope where
//! name = "demo.read"
//! modes = ["local"]                  # the deployment modes it is granted in
//! min_role = "viewer"
//! confirm = false                    # ask a person before every call (destructive or
//!                                    # open-world tools are asked about anyway)
//! ```

use aware_core::policy::DeploymentMode;
use aware_core::{Error, Result};
use aware_domain::auth::Role;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn default_timeout_ms() -> u64 {
    10_000
}

fn viewer() -> Role {
    Role::Viewer
}

/// One registered server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Letters, digits, `_` and `-`: the prefix of its tools' names.
    pub id: String,
    /// Stdio: the program to start.
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Streamable HTTP: the endpoint.
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// How long one call may take.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// Each tool's scope (unmapped tools are listed but denied).
    #[serde(default)]
    pub tools: BTreeMap<String, String>,
    #[serde(default)]
    pub scopes: Vec<ScopeConfig>,
}

/// Who may use a scope, where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeConfig {
    pub name: String,
    /// The deployment modes the scope is granted in (none: never).
    #[serde(default)]
    pub modes: Vec<DeploymentMode>,
    #[serde(default = "viewer")]
    pub min_role: Role,
    /// A person approves every call.
    #[serde(default)]
    pub confirm: bool,
}

/// How to reach a server.
#[derive(Clone, Debug, PartialEq)]
pub enum Endpoint<'a> {
    Stdio { command: &'a str, args: &'a [String], env: &'a BTreeMap<String, String> },
    Http { url: &'a str, headers: &'a BTreeMap<String, String> },
}

impl ServerConfig {
    /// Checks the entry: its id, one way to reach it, scopes that exist.
    pub fn check(&self) -> Result<()> {
        let field = |f: &str| format!("mcp.servers[{}].{f}", self.id);
        let id_ok = !self.id.is_empty()
            && self.id.len() <= 40
            && self.id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
        if !id_ok {
            return Err(Error::validation("mcp.servers.id", "a server id is 1 to 40 letters, digits, _ or -"));
        }
        self.endpoint()?;
        if self.timeout_ms == 0 {
            return Err(Error::validation(&field("timeout_ms"), "a call's timeout must be more than 0 ms"));
        }
        for (name, value) in &self.headers {
            let valid = http::HeaderName::try_from(name.as_str()).is_ok()
                && http::HeaderValue::try_from(value.as_str()).is_ok();
            let bearer =
                !name.eq_ignore_ascii_case("authorization") || value.to_ascii_lowercase().starts_with("bearer ");
            if !valid || !bearer {
                return Err(Error::validation(
                    &field("headers"),
                    format!("the header {name:?} is not a valid HTTP header (authorization must be `Bearer <token>`)"),
                ));
            }
        }
        for (tool, scope) in &self.tools {
            if !self.scopes.iter().any(|s| &s.name == scope) {
                return Err(Error::validation(
                    &field("tools"),
                    format!("{tool} maps to the scope {scope:?}, which [[mcp.servers.scopes]] does not define"),
                ));
            }
        }
        Ok(())
    }

    pub fn endpoint(&self) -> Result<Endpoint<'_>> {
        match (&self.command, &self.url) {
            (Some(command), None) => Ok(Endpoint::Stdio { command, args: &self.args, env: &self.env }),
            (None, Some(url)) => Ok(Endpoint::Http { url, headers: &self.headers }),
            (Some(_), Some(_)) | (None, None) => Err(Error::validation(
                "mcp.servers",
                format!("server {} needs exactly one of command (stdio) and url (Streamable HTTP)", self.id),
            )),
        }
    }

    /// The scope granted to `tool`, with who may use it where (`None`: unmapped).
    pub fn scope_of(&self, tool: &str) -> Option<&ScopeConfig> {
        let scope = self.tools.get(tool)?;
        self.scopes.iter().find(|s| &s.name == scope)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(toml_like: serde_json::Value) -> ServerConfig {
        serde_json::from_value(toml_like).expect("parses")
    }

    #[test]
    fn a_server_is_reached_one_way_and_maps_tools_to_defined_scopes() {
        let ok = server(serde_json::json!({
            "id": "everything", "command": "node", "args": ["x.js", "stdio"],
            "tools": {"echo": "demo.read"},
            "scopes": [{"name": "demo.read", "modes": ["local"], "min_role": "viewer"}]
        }));
        ok.check().expect("valid");
        assert_eq!(ok.scope_of("echo").map(|s| s.modes.clone()), Some(vec![DeploymentMode::Local]));
        assert_eq!(ok.scope_of("get-sum"), None, "unmapped");
        let both = ServerConfig { url: Some("http://x/mcp".into()), ..ok.clone() };
        assert!(both.check().is_err());
        let neither = ServerConfig { command: None, ..ok.clone() };
        assert!(neither.check().is_err());
        let bad_id = ServerConfig { id: "a.b".into(), ..ok.clone() };
        assert!(bad_id.check().is_err(), "a dot would make tool names ambiguous");
        let bad_header = ServerConfig { headers: [("x bad".to_owned(), "v".to_owned())].into(), ..ok.clone() };
        assert!(bad_header.check().is_err());
        let basic = ServerConfig { headers: [("authorization".to_owned(), "Basic x".to_owned())].into(), ..ok.clone() };
        assert!(basic.check().is_err(), "only bearer tokens are sent");
        let undefined = ServerConfig { tools: [("echo".to_owned(), "nope".to_owned())].into(), ..ok };
        assert!(undefined.check().unwrap_err().message.contains("nope"));
    }
}
