//! Admin over the API: users (create, change role, deactivate, reactivate) and their API keys
//! (create — the token is shown once —, list by prefix, revoke). Admins only; every change is
//! audited. An admin cannot demote or deactivate themselves, so a server never loses its last way
//! in through a slip. A deactivated user's keys are refused on their next call; nothing of theirs
//! is deleted.

use crate::{Error, ErrorCode, Result};
use aware_domain::auth::Standing;
use aware_domain::auth::{Caller, Capability, Role};
use aware_domain::ids::{ApiKeyId, UserId};
use aware_domain::ports::{ApiKey, AuditEntry, AuditLog, User, Users, record_or_log};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// How many characters of a token a key shows (`aw_` and 8 hex digits).
const PREFIX_CHARS: usize = 11;

/// What an update changes; `None` keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UserChange {
    pub role: Option<Role>,
    /// `Some(false)`: deactivate; `Some(true)`: reactivate.
    pub active: Option<bool>,
}

/// A new bearer token: `aw_` and 64 hex characters (256 random bits).
pub fn new_token() -> String {
    format!("aw_{}", hex::encode(rand::random::<[u8; 32]>()))
}

/// What a key shows of its token: its first characters.
pub fn key_prefix(token: &str) -> String {
    token.chars().take(PREFIX_CHARS).collect()
}

/// The at-rest form of a token.
pub fn token_sha256(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A person's name for a new user: 1 to 100 printable characters.
pub fn user_name(raw: &str) -> Result<&str> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
        return Err(Error::validation("name", "a user name of 1 to 100 printable characters is required"));
    }
    Ok(name)
}

/// A new user's name: valid (see [`user_name`]) and nobody's already, in any case — two people
/// called "ana" could not be told apart in a list, an audit entry or a request to the assistant.
pub async fn new_user_name<'a>(users: &dyn Users, raw: &'a str) -> Result<&'a str> {
    let name = user_name(raw)?;
    if let Some(taken) = users.list_users().await?.into_iter().find(|u| u.name.to_lowercase() == name.to_lowercase()) {
        return Err(Error::new(
            ErrorCode::AlreadyExists,
            format!("a user named “{}” exists already ({}); choose another name", taken.name, taken.id),
        )
        .with_field("name"));
    }
    Ok(name)
}

/// Told whenever who may do what changed (a role, a deactivation, a revoked key), so cached
/// credentials are dropped and open streams authenticate again.
pub type AccessChanged = Arc<dyn Fn() + Send + Sync>;

#[derive(Clone)]
pub struct AdminService {
    users: Arc<dyn Users>,
    audit: Arc<dyn AuditLog>,
    access_changed: AccessChanged,
}

impl AdminService {
    pub fn new(users: Arc<dyn Users>, audit: Arc<dyn AuditLog>) -> Self {
        Self { users, audit, access_changed: Arc::new(|| {}) }
    }

    /// Calls `hook` after every change of a role, an activation or a key's revocation.
    pub fn on_access_change(mut self, hook: AccessChanged) -> Self {
        self.access_changed = hook;
        self
    }

    /// How `owner` stands now, as the store has them (never an authentication cache): active with
    /// their role, inactive (deactivated or gone), or active with `key` — the key a run was
    /// started with — revoked or expired. For authorisation at the moment of effect
    /// (`Policy::may_still`); no caller is needed, as the run's owner is not the one asking.
    pub async fn standing(&self, owner: &UserId, key: Option<&ApiKeyId>) -> Result<Standing> {
        let Some(user) = self.users.user(owner).await? else { return Ok(Standing::Inactive) };
        if user.deactivated_at.is_some() {
            return Ok(Standing::Inactive);
        }
        if let Some(key) = key {
            let keys = self.users.api_keys(Some(owner)).await?;
            let now = Utc::now();
            let live = keys
                .iter()
                .find(|k| &k.id == key)
                .is_some_and(|k| k.revoked_at.is_none() && k.expires_at.is_none_or(|at| at > now));
            if !live {
                return Ok(Standing::KeyWithdrawn);
            }
        }
        Ok(Standing::Active(user.role))
    }

    /// A user by id or (case-insensitively) by name; a name two users share is ambiguous.
    pub async fn find_user(&self, caller: &Caller, id_or_name: &str) -> Result<User> {
        Self::admin(caller)?;
        let wanted = id_or_name.trim();
        let users = self.users.list_users().await?;
        if let Some(user) = users.iter().find(|u| u.id.as_str() == wanted) {
            return Ok(user.clone());
        }
        let named: Vec<&User> = users.iter().filter(|u| u.name.eq_ignore_ascii_case(wanted)).collect();
        match named.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(Error::not_found("user", format!("{wanted:?}")).with_field("user")),
            _ => Err(Error::validation(
                "user",
                format!("{} users are named {wanted:?}; give the user's id", named.len()),
            )),
        }
    }

    /// A key by id or by the first characters of its token (`aw_1a2b3c4d`, as people see it);
    /// a prefix that more than one live key shares is ambiguous.
    pub async fn find_key(&self, caller: &Caller, id_or_prefix: &str) -> Result<ApiKey> {
        Self::admin(caller)?;
        let wanted = id_or_prefix.trim().trim_end_matches(['…', '.']);
        if wanted.is_empty() {
            return Err(Error::validation("key", "name the key: its id (key_…) or its prefix (aw_…)"));
        }
        let keys = self.users.api_keys(None).await?;
        if let Some(key) = keys.iter().find(|k| k.id.as_str() == wanted) {
            return Ok(key.clone());
        }
        let matching: Vec<&ApiKey> = keys
            .iter()
            .filter(|k| k.revoked_at.is_none() && k.prefix.starts_with(wanted) && wanted.len() >= 6)
            .collect();
        match matching.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(Error::not_found("API key", format!("{wanted:?}")).with_field("key")),
            _ => Err(Error::validation(
                "key",
                format!("{} keys start with {wanted:?}; give the key's id", matching.len()),
            )),
        }
    }

    fn admin(caller: &Caller) -> Result<()> {
        if caller.principal.role.allows(Capability::SystemAdmin) {
            Ok(())
        } else {
            Err(Error::new(ErrorCode::PermissionDenied, "only an admin manages users and API keys"))
        }
    }

    async fn record(&self, caller: &Caller, action: &str, kind: &str, id: &str, details: serde_json::Value) {
        let entry = AuditEntry::by(caller, action, kind, id).details(details);
        record_or_log(self.audit.as_ref(), entry).await;
    }

    async fn existing(&self, raw: &str) -> Result<User> {
        let id = UserId::parse_field(raw, "user_id")?;
        self.users.user(&id).await?.ok_or_else(|| Error::not_found("user", &id).with_field("user_id"))
    }

    pub async fn list_users(&self, caller: &Caller) -> Result<Vec<User>> {
        Self::admin(caller)?;
        self.users.list_users().await
    }

    pub async fn create_user(&self, caller: &Caller, name: &str, role: Role) -> Result<User> {
        Self::admin(caller)?;
        let user = self.users.create_user(new_user_name(self.users.as_ref(), name).await?, role).await?;
        let details = serde_json::json!({"name": user.name, "role": role.as_str()});
        self.record(caller, "user.create", "user", user.id.as_str(), details).await;
        Ok(user)
    }

    pub async fn update_user(&self, caller: &Caller, user_id: &str, change: UserChange) -> Result<User> {
        Self::admin(caller)?;
        let user = self.existing(user_id).await?;
        if user.id == caller.principal.user_id
            && (change.role.is_some_and(|r| r != user.role) || change.active == Some(false))
        {
            return Err(Error::new(
                ErrorCode::PermissionDenied,
                "you cannot demote or deactivate yourself; another admin can",
            ));
        }
        if let Some(role) = change.role.filter(|r| *r != user.role) {
            self.users.set_role(&user.id, role).await?;
            let details = serde_json::json!({"from": user.role.as_str(), "to": role.as_str()});
            self.record(caller, "user.role", "user", user.id.as_str(), details).await;
        }
        match change.active {
            Some(false) if user.deactivated_at.is_none() => {
                self.users.set_deactivated(&user.id, Some(Utc::now())).await?;
                self.record(caller, "user.deactivate", "user", user.id.as_str(), serde_json::json!({})).await;
            }
            Some(true) if user.deactivated_at.is_some() => {
                self.users.set_deactivated(&user.id, None).await?;
                self.record(caller, "user.reactivate", "user", user.id.as_str(), serde_json::json!({})).await;
            }
            Some(_) | None => {}
        }
        (self.access_changed)();
        self.users.user(&user.id).await?.ok_or_else(|| Error::not_found("user", &user.id))
    }

    /// Mints a key for a user. Returns it with its token, which is shown once to the human and
    /// never stored (only its hash and first characters are).
    pub async fn create_api_key(
        &self,
        caller: &Caller,
        user_id: &str,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<(ApiKey, String)> {
        Self::admin(caller)?;
        let user = self.existing(user_id).await?;
        if expires_at.is_some_and(|t| t <= Utc::now()) {
            return Err(Error::validation("expires_at", "a key must expire in the future"));
        }
        let token = new_token();
        let prefix = key_prefix(&token);
        let key = self.users.add_api_key(&user.id, &token_sha256(&token), &prefix, expires_at).await?;
        let details = serde_json::json!({"user_id": user.id.as_str(), "prefix": prefix});
        self.record(caller, "api_key.create", "api_key", key.id.as_str(), details).await;
        Ok((key, token))
    }

    pub async fn api_keys(&self, caller: &Caller, user_id: &str) -> Result<Vec<ApiKey>> {
        Self::admin(caller)?;
        match user_id.trim() {
            "" => self.users.api_keys(None).await,
            raw => {
                let user = self.existing(raw).await?;
                self.users.api_keys(Some(&user.id)).await
            }
        }
    }

    pub async fn revoke_api_key(&self, caller: &Caller, key_id: &str) -> Result<ApiKey> {
        Self::admin(caller)?;
        let id = ApiKeyId::parse_field(key_id, "key_id")?;
        let key = self
            .users
            .revoke_api_key(&id, Utc::now())
            .await?
            .ok_or_else(|| Error::not_found("API key", &id).with_field("key_id"))?;
        let details = serde_json::json!({"user_id": key.user.as_str(), "prefix": key.prefix});
        self.record(caller, "api_key.revoke", "api_key", key.id.as_str(), details).await;
        (self.access_changed)();
        Ok(key)
    }
}
