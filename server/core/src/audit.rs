//! Reading the audit log: an admin reads every entry, anyone else their own — the filter a
//! request asks for is checked against that before the log is read.

use crate::history::page_size_in;
use crate::{Error, ErrorCode, Result};
use aware_domain::auth::{Caller, Capability, Source};
use aware_domain::ids::UserId;
use aware_domain::ports::{AuditFilter, AuditLog, StoredAuditEntry};
use chrono::{DateTime, Utc};

/// What a reading asks for, as it came in.
#[derive(Clone, Debug, Default)]
pub struct AuditQuery {
    pub user_id: String,
    pub source: String,
    pub action: String,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub page_size: u32,
    pub page_token: String,
}

/// A page of entries; `next` is the token of the following page.
pub struct AuditPage {
    pub entries: Vec<StoredAuditEntry>,
    pub next: Option<String>,
}

/// The entries `query` asks for that `caller` may read, newest first.
pub async fn list_entries(log: &dyn AuditLog, caller: &Caller, query: AuditQuery) -> Result<AuditPage> {
    let size = page_size_in(query.page_size)?;
    let me = &caller.principal.user_id;
    let admin = caller.principal.role.allows(Capability::SystemAdmin);
    let user = match query.user_id.trim() {
        "" if admin => None,
        "" => Some(me.clone()),
        raw => {
            let user = UserId::parse(raw).ok_or_else(|| Error::validation("user_id", "malformed user id"))?;
            if !admin && user != *me {
                return Err(Error::new(ErrorCode::PermissionDenied, "only an admin reads other users' audit entries"));
            }
            Some(user)
        }
    };
    let source =
        match query.source.trim() {
            "" => None,
            raw => Some(Source::parse(raw).ok_or_else(|| {
                Error::validation("source", "source is one of web, cli, api, ai_assistant, mcp, system")
            })?),
        };
    let action = Some(query.action.trim().to_owned()).filter(|a| !a.is_empty());
    if let (Some(since), Some(until)) = (query.since, query.until)
        && since >= until
    {
        return Err(Error::validation("until", "until must be after since"));
    }
    let before = match query.page_token.trim() {
        "" => None,
        raw => {
            Some(raw.parse::<u64>().map_err(|_| Error::validation("page_token", "not a page token of this listing"))?)
        }
    };
    let filter = AuditFilter { user, source, action, since: query.since, until: query.until };
    let mut entries = log.entries(&filter, before, size + 1).await?;
    let next = (entries.len() > size as usize).then(|| {
        entries.truncate(size as usize);
        entries.last().map(|e| e.id.to_string()).unwrap_or_default()
    });
    Ok(AuditPage { entries, next })
}
