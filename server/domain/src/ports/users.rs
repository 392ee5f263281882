//! The users port: users and their API keys.

use crate::auth::{Principal, Role};
use crate::error::Result;
use crate::ids::{ApiKeyId, UserId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A stored user.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    pub id: UserId,
    pub name: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
    /// Set while the user is deactivated: their keys are refused; nothing of theirs is deleted.
    pub deactivated_at: Option<DateTime<Utc>>,
}

/// An API key as people see it: never the token, only its first characters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub user: UserId,
    /// The token's first characters (`aw_1a2b3c4d`), to tell keys apart.
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// An API key as authentication sees it.
#[derive(Clone, Debug)]
pub struct ApiKeyGrant {
    pub key_id: ApiKeyId,
    pub principal: Principal,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked: bool,
    /// The key's user is deactivated.
    pub deactivated: bool,
}

/// Users and their API keys. Tokens are never stored, only their sha256.
#[async_trait]
pub trait Users: Send + Sync {
    async fn create_user(&self, name: &str, role: Role) -> Result<User>;
    /// Creates the user with this exact id if it does not exist yet (the local user).
    async fn ensure_user(&self, principal: &Principal) -> Result<()>;
    async fn add_api_key(
        &self,
        user: &UserId,
        token_sha256: &str,
        prefix: &str,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<ApiKey>;
    async fn find_api_key(&self, token_sha256: &str) -> Result<Option<ApiKeyGrant>>;
    /// Every user, oldest first.
    async fn list_users(&self) -> Result<Vec<User>>;
    async fn user(&self, id: &UserId) -> Result<Option<User>>;
    /// Sets a user's role; false when there is no such user.
    async fn set_role(&self, id: &UserId, role: Role) -> Result<bool>;
    /// Deactivates a user (`Some(when)`) or reactivates one (`None`); false when there is no such user.
    async fn set_deactivated(&self, id: &UserId, at: Option<DateTime<Utc>>) -> Result<bool>;
    /// The keys of `user` (every user's: `None`), oldest first.
    async fn api_keys(&self, user: Option<&UserId>) -> Result<Vec<ApiKey>>;
    /// Revokes a key at `at` (a revoked key stays revoked as it was); `None` when there is no such key.
    async fn revoke_api_key(&self, id: &ApiKeyId, at: DateTime<Utc>) -> Result<Option<ApiKey>>;
}
