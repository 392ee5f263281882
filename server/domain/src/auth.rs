//! Who is calling and what they may do.

use crate::error::{Error, Result};
use crate::ids::{ApiKeyId, UserId};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A user's role. Roles are ordered: each one may do everything the one before it may.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Reads datasets and runs read-only queries.
    Viewer,
    /// Also uploads and deletes their own datasets.
    Analyst,
    /// Also sees system internals and the approved folders of the host.
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Viewer => "viewer",
            Self::Analyst => "analyst",
            Self::Admin => "admin",
        }
    }

    pub fn allows(self, capability: Capability) -> bool {
        self >= capability.minimum_role()
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "viewer" => Ok(Self::Viewer),
            "analyst" => Ok(Self::Analyst),
            "admin" => Ok(Self::Admin),
            other => {
                Err(Error::validation("role", format!("unknown role {other:?}; expected viewer, analyst or admin")))
            }
        }
    }
}

/// Something a caller may be allowed to do. Tools and RPCs each require one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Capability {
    DatasetRead,
    Query,
    DatasetWrite,
    DatasetDelete,
    FileRead,
    FileImport,
    SystemAdmin,
}

impl Capability {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::DatasetRead => "dataset_read",
            Self::Query => "query",
            Self::DatasetWrite => "dataset_write",
            Self::DatasetDelete => "dataset_delete",
            Self::FileRead => "file_read",
            Self::FileImport => "file_import",
            Self::SystemAdmin => "system_admin",
        }
    }

    /// Approved folders are folders of the server's host, shared by every user of a server:
    /// reading them is for admins (in `--auth local` the one user is one).
    fn minimum_role(self) -> Role {
        match self {
            Self::DatasetRead | Self::Query => Role::Viewer,
            Self::DatasetWrite | Self::DatasetDelete => Role::Analyst,
            Self::FileRead | Self::FileImport | Self::SystemAdmin => Role::Admin,
        }
    }
}

/// Who caused an action, for the audit log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Api,
    Web,
    Cli,
    AiAssistant,
    /// An MCP client calling a tool directly (`/mcp`, `aware mcp`).
    Mcp,
    /// The server itself (e.g. seeding sample datasets into a new data dir).
    System,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Api => "api",
            Self::Web => "web",
            Self::Cli => "cli",
            Self::AiAssistant => "ai_assistant",
            Self::Mcp => "mcp",
            Self::System => "system",
        }
    }

    /// A source by its name (`ai_assistant`).
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Api, Self::Web, Self::Cli, Self::AiAssistant, Self::Mcp, Self::System]
            .into_iter()
            .find(|x| x.as_str() == s)
    }

    /// Whether a message through this source holds a person's own words as they typed them:
    /// aware's web app, its CLI and direct API calls. An MCP client's message may have been
    /// written by its host model (a prompt injection included), so it is not.
    pub fn is_first_party(self) -> bool {
        match self {
            Self::Api | Self::Web | Self::Cli => true,
            Self::AiAssistant | Self::Mcp | Self::System => false,
        }
    }

    /// The source a client may declare for itself (`x-aware-source`). Only the assistant acts as
    /// `ai_assistant`; a client claiming it is recorded as `api`.
    pub fn from_client_header(value: Option<&str>) -> Self {
        match value.map(|v| v.trim().to_ascii_lowercase()) {
            Some(v) if v == "web" => Self::Web,
            Some(v) if v == "cli" => Self::Cli,
            _ => Self::Api,
        }
    }
}

/// An authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub user_id: UserId,
    pub name: String,
    pub role: Role,
    /// The API key it authenticated with (`None` in local mode): what a run it starts acts by,
    /// so revoking the key takes away the run's power too.
    pub key: Option<ApiKeyId>,
}

impl Principal {
    /// The implicit user of `--auth local`: one person on their own machine, an admin.
    pub fn local() -> Self {
        Self { user_id: UserId::local(), name: "local".to_owned(), role: Role::Admin, key: None }
    }

    /// Fails with PERMISSION_DENIED unless the role allows `capability`.
    pub fn require(&self, capability: Capability) -> Result<()> {
        if self.role.allows(capability) {
            Ok(())
        } else {
            Err(Error::permission_denied(format!(
                "the {} role may not do this (needs {})",
                self.role,
                capability.as_str()
            )))
        }
    }
}

/// A caller and where the request came from.
#[derive(Clone, Debug)]
pub struct Caller {
    pub principal: Principal,
    pub source: Source,
}

/// A run's owner as the store has them now (not as an authentication cache remembers them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Active with this role, and the key the run was started with (if any) still good.
    Active(Role),
    /// Deactivated, or no longer there.
    Inactive,
    /// Active, but the run's key is revoked or expired.
    KeyWithdrawn,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewers_read_but_cannot_write_or_delete() {
        let viewer = Principal { role: Role::Viewer, ..Principal::local() };
        assert!(viewer.require(Capability::DatasetRead).is_ok());
        assert!(viewer.require(Capability::Query).is_ok());
        let denied = viewer.require(Capability::DatasetDelete).unwrap_err();
        assert_eq!(denied.code, crate::ErrorCode::PermissionDenied);
        assert!(denied.message.contains("viewer"), "{}", denied.message);
        assert!(viewer.require(Capability::DatasetWrite).is_err());
        assert!(Role::Analyst.allows(Capability::DatasetDelete));
        assert!(!Role::Analyst.allows(Capability::SystemAdmin));
        assert!(Role::Admin.allows(Capability::SystemAdmin));
        assert!(!Role::Analyst.allows(Capability::FileRead) && !Role::Analyst.allows(Capability::FileImport));
        assert!(Role::Admin.allows(Capability::FileImport));
    }

    #[test]
    fn clients_cannot_claim_to_be_the_assistant() {
        assert_eq!(Source::from_client_header(Some("ai_assistant")), Source::Api);
        assert_eq!(Source::from_client_header(Some(" Web ")), Source::Web);
        assert_eq!(Source::from_client_header(Some("cli")), Source::Cli);
        assert_eq!(Source::from_client_header(None), Source::Api);
    }

    #[test]
    fn roles_parse_case_insensitively_and_reject_unknowns() {
        assert_eq!("ANALYST".parse::<Role>().unwrap(), Role::Analyst);
        assert_eq!("superuser".parse::<Role>().unwrap_err().field.as_deref(), Some("role"));
    }
}

/// Where aware runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeploymentMode {
    /// On the user's machine: file tools may reach approved local folders.
    #[default]
    Local,
    /// As a shared service: no file tools at all.
    Connected,
}

impl DeploymentMode {
    pub const ALL: [Self; 2] = [Self::Local, Self::Connected];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Local => "local",
            Self::Connected => "connected",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// Whether a capability exists in this mode at all. Approved folders are folders of the
    /// server's host: a shared service has none.
    pub fn permits(self, capability: Capability) -> bool {
        match capability {
            Capability::FileRead | Capability::FileImport => self == Self::Local,
            Capability::DatasetRead
            | Capability::Query
            | Capability::DatasetWrite
            | Capability::DatasetDelete
            | Capability::SystemAdmin => true,
        }
    }
}

impl fmt::Display for DeploymentMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
