//! `[storage]` and `[retention]`: where the metadata is kept, and how long finished things stay.

use serde::{Deserialize, Serialize};

/// How long finished things are kept (`aware-server gc` deletes the rest; unset keeps forever).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Retention {
    /// Days the event log of a run that ended is kept (runs that have not ended keep theirs).
    pub events_days: Option<u32>,
    /// Days the trace spans of a run that ended are kept.
    pub traces_days: Option<u32>,
    /// Days audit entries are kept.
    pub audit_days: Option<u32>,
}

/// Where the metadata is kept: users and keys, the dataset catalog, threads, runs and their event
/// logs, confirmations, the audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Storage {
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE`: PostgreSQL, which several replicas can
    /// share (each with the same data dir on a shared volume, for the dataset files). Unset:
    /// SQLite in `<data_dir>/aware.db`.
    pub url: Option<String>,
    /// How long a replica's lease on the runs it drives lasts unless renewed (it renews every
    /// third of it): how soon another replica continues the runs of one that stopped.
    pub lease_ms: u64,
}

impl Default for Storage {
    fn default() -> Self {
        Self { url: None, lease_ms: 15_000 }
    }
}

impl Storage {
    /// The URL with its password replaced by `***`, for messages and logs.
    pub fn redacted_url(&self) -> Option<String> {
        let url = self.url.as_deref()?;
        let Some((scheme, rest)) = url.split_once("://") else { return Some(url.to_owned()) };
        let Some((credentials, host)) = rest.rsplit_once('@') else { return Some(url.to_owned()) };
        Some(match credentials.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
            None => url.to_owned(),
        })
    }
}
