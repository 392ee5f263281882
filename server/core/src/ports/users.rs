//! The users port: users and their API keys.

use crate::auth::{Principal, Role};
use crate::error::Result;
use crate::ids::{ApiKeyId, UserId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// A stored user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: UserId,
    pub name: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
}

/// An API key as authentication sees it.
#[derive(Clone, Debug)]
pub struct ApiKeyGrant {
    pub key_id: ApiKeyId,
    pub principal: Principal,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked: bool,
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
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<ApiKeyId>;
    async fn find_api_key(&self, token_sha256: &str) -> Result<Option<ApiKeyGrant>>;
    async fn list_users(&self) -> Result<Vec<User>>;
}
