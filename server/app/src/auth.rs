//! Request authentication: `--auth local` (the implicit local admin) or `--auth api-key`
//! (`authorization: Bearer <token>`, looked up by sha256). Grants are cached for a short time so a
//! busy client does not hit the database on every call; a key revoked (or a user deactivated)
//! through this server stops working on the next call ([`Authenticator::forget_cached`]), one
//! changed elsewhere within [`CACHE_TTL`]. Local mode can ask for a credential too — the local token, kept in the data dir
//! ([`local_token`]) — which it does by default when the server listens beyond loopback, where
//! anyone who reaches the port would otherwise be the local admin.

use aware_core::admin::{key_prefix, new_token, new_user_name, token_sha256};
use aware_core::{Error, Result};
use aware_domain::auth::{Caller, Principal, Role, Source};
use aware_domain::ports::Users;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tonic::metadata::MetadataMap;

use crate::config::AuthMode;

/// How long a looked-up key is trusted before it is looked up again.
pub const CACHE_TTL: Duration = Duration::from_secs(30);
/// The header clients use to say where a request comes from (web, cli; default api).
pub const SOURCE_HEADER: &str = "x-aware-source";

#[derive(Clone)]
struct Cached {
    principal: Principal,
    expires_at: Option<DateTime<Utc>>,
    fetched: Instant,
}

/// The local token's file in the data dir.
pub const LOCAL_TOKEN_FILE: &str = "local-token";

/// The local token of the data dir: read from `<data_dir>/local-token`, or made (256 random bits,
/// a file only this user may read) when there is none.
pub fn local_token(data_dir: &Path) -> std::io::Result<String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = data_dir.join(LOCAL_TOKEN_FILE);
    match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
        Ok(mut file) => {
            let token = new_token();
            file.write_all(format!("{token}\n").as_bytes())?;
            file.sync_all()?;
            Ok(token)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let token = std::fs::read_to_string(&path)?.trim().to_owned();
            if token.len() < 32 {
                return Err(std::io::Error::other(format!(
                    "{} holds no usable token (32+ characters); delete it to have a new one made",
                    path.display()
                )));
            }
            Ok(token)
        }
        Err(e) => Err(e),
    }
}

/// Authenticates requests.
#[derive(Clone)]
pub struct Authenticator {
    mode: AuthMode,
    users: Arc<dyn Users>,
    cache: Arc<Mutex<HashMap<String, Cached>>>,
    /// Bumped whenever access may have changed (a key revoked, a user changed): open streams
    /// authenticate again and end if their caller no longer may.
    changes: Arc<tokio::sync::watch::Sender<u64>>,
    /// Local mode with a credential: the sha256 of the local token.
    local_token_sha256: Option<String>,
}

impl Authenticator {
    /// `local_token`: in local mode, the token every request must carry (none: no credential).
    pub fn new(mode: AuthMode, users: Arc<dyn Users>, local_token: Option<&str>) -> Self {
        Self {
            mode,
            users,
            cache: Default::default(),
            changes: Arc::new(tokio::sync::watch::Sender::new(0)),
            local_token_sha256: local_token.map(token_sha256),
        }
    }

    /// The caller of a request, or UNAUTHENTICATED.
    pub async fn caller(&self, metadata: &MetadataMap) -> Result<Caller> {
        let source = Source::from_client_header(metadata.get(SOURCE_HEADER).and_then(|v| v.to_str().ok()));
        let principal = match (self.mode, &self.local_token_sha256) {
            (AuthMode::Local, None) => Principal::local(),
            (AuthMode::Local, Some(expected)) => {
                if token_sha256(bearer(metadata)?) != *expected {
                    return Err(Error::unauthenticated(format!(
                        "wrong token: this server asks for the local token (in its data dir, file {LOCAL_TOKEN_FILE})"
                    )));
                }
                Principal::local()
            }
            (AuthMode::ApiKey, _) => self.api_key_principal(metadata).await?,
        };
        Ok(Caller { principal, source })
    }

    /// Forgets every looked-up key: the next call of each is looked up again (after a key is
    /// revoked or a user changed).
    pub fn forget_cached(&self) {
        self.cache.lock().expect("auth cache poisoned").clear();
        self.changes.send_modify(|n| *n += 1);
    }

    /// Tells when access may have changed: an open stream then calls [`Self::caller`] again.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    async fn api_key_principal(&self, metadata: &MetadataMap) -> Result<Principal> {
        let hash = token_sha256(bearer(metadata)?);
        let cached = {
            let cache = self.cache.lock().expect("auth cache poisoned");
            cache.get(&hash).filter(|c| c.fetched.elapsed() < CACHE_TTL).cloned()
        };
        let entry = match cached {
            Some(c) => c,
            None => {
                let grant = self
                    .users
                    .find_api_key(&hash)
                    .await?
                    .filter(|g| !g.revoked)
                    .ok_or_else(|| Error::unauthenticated("unknown or revoked API key"))?;
                if grant.deactivated {
                    return Err(Error::unauthenticated("this account is deactivated; ask an admin"));
                }
                let entry =
                    Cached { principal: grant.principal, expires_at: grant.expires_at, fetched: Instant::now() };
                let mut cache = self.cache.lock().expect("auth cache poisoned");
                cache.retain(|_, c| c.fetched.elapsed() < CACHE_TTL);
                cache.insert(hash, entry.clone());
                entry
            }
        };
        if let Some(expired) = entry.expires_at.filter(|t| *t <= Utc::now()) {
            return Err(Error::unauthenticated(format!(
                "the API key expired at {}; ask for a new one",
                expired.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            )));
        }
        Ok(entry.principal)
    }
}

/// The token of `authorization: Bearer <token>`, or UNAUTHENTICATED.
fn bearer(metadata: &MetadataMap) -> Result<&str> {
    let header = metadata
        .get("authorization")
        .ok_or_else(|| Error::unauthenticated("missing credentials: send `authorization: Bearer <token>`"))?;
    header
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Error::unauthenticated("the authorization header must be `Bearer <token>`"))
}

/// Creates a user and their first API key; returns the user and the token (shown once).
pub async fn add_user(
    users: &dyn Users,
    name: &str,
    role: Role,
    expires_at: Option<DateTime<Utc>>,
) -> Result<(aware_domain::ports::User, String)> {
    let user = users.create_user(new_user_name(users, name).await?, role).await?;
    let token = new_token();
    users.add_api_key(&user.id, &token_sha256(&token), &key_prefix(&token), expires_at).await?;
    Ok((user, token))
}
