//! Users and their API keys, in memory.

use crate::lock;
use async_trait::async_trait;
use aware_domain::auth::{Principal, Role};
use aware_domain::ids::ApiKeyId;
use aware_domain::ids::UserId;
use aware_domain::ports::{ApiKey, ApiKeyGrant, User, Users};
use aware_domain::{Error, Result};
use chrono::{DateTime, Utc};
use std::sync::Mutex;

/// Users and their API keys, in memory.
#[derive(Default)]
pub struct MemoryUsers {
    state: Mutex<UsersState>,
}

#[derive(Default)]
struct UsersState {
    /// In creation order.
    users: Vec<User>,
    /// In creation order, each with its token's hash.
    keys: Vec<(String, ApiKey)>,
}

impl UsersState {
    fn user_mut(&mut self, id: &UserId) -> Option<&mut User> {
        self.users.iter_mut().find(|u| &u.id == id)
    }
}

#[async_trait]
impl Users for MemoryUsers {
    async fn create_user(&self, name: &str, role: Role) -> Result<User> {
        let user =
            User { id: UserId::generate(), name: name.to_owned(), role, created_at: Utc::now(), deactivated_at: None };
        lock(&self.state).users.push(user.clone());
        Ok(user)
    }

    async fn ensure_user(&self, principal: &Principal) -> Result<()> {
        let mut s = lock(&self.state);
        if !s.users.iter().any(|u| u.id == principal.user_id) {
            let user = User {
                id: principal.user_id.clone(),
                name: principal.name.clone(),
                role: principal.role,
                created_at: Utc::now(),
                deactivated_at: None,
            };
            s.users.push(user);
        }
        Ok(())
    }

    async fn add_api_key(
        &self,
        user: &UserId,
        token_sha256: &str,
        prefix: &str,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<ApiKey> {
        let mut s = lock(&self.state);
        if !s.users.iter().any(|u| &u.id == user) {
            return Err(Error::not_found("user", user));
        }
        if s.keys.iter().any(|(hash, _)| hash == token_sha256) {
            return Err(Error::internal("an API key with this token exists already"));
        }
        let key = ApiKey {
            id: ApiKeyId::generate(),
            user: user.clone(),
            prefix: prefix.to_owned(),
            created_at: Utc::now(),
            expires_at,
            revoked_at: None,
        };
        s.keys.push((token_sha256.to_owned(), key.clone()));
        Ok(key)
    }

    async fn find_api_key(&self, token_sha256: &str) -> Result<Option<ApiKeyGrant>> {
        let s = lock(&self.state);
        let Some((_, key)) = s.keys.iter().find(|(hash, _)| hash == token_sha256) else { return Ok(None) };
        let Some(user) = s.users.iter().find(|u| u.id == key.user) else { return Ok(None) };
        Ok(Some(ApiKeyGrant {
            key_id: key.id.clone(),
            principal: Principal {
                user_id: user.id.clone(),
                name: user.name.clone(),
                role: user.role,
                key: Some(key.id.clone()),
            },
            expires_at: key.expires_at,
            revoked: key.revoked_at.is_some(),
            deactivated: user.deactivated_at.is_some(),
        }))
    }

    async fn list_users(&self) -> Result<Vec<User>> {
        Ok(lock(&self.state).users.clone())
    }

    async fn user(&self, id: &UserId) -> Result<Option<User>> {
        Ok(lock(&self.state).users.iter().find(|u| &u.id == id).cloned())
    }

    async fn set_role(&self, id: &UserId, role: Role) -> Result<bool> {
        Ok(lock(&self.state).user_mut(id).map(|u| u.role = role).is_some())
    }

    async fn set_deactivated(&self, id: &UserId, at: Option<DateTime<Utc>>) -> Result<bool> {
        Ok(lock(&self.state).user_mut(id).map(|u| u.deactivated_at = at).is_some())
    }

    async fn api_keys(&self, user: Option<&UserId>) -> Result<Vec<ApiKey>> {
        let s = lock(&self.state);
        Ok(s.keys.iter().map(|(_, k)| k).filter(|k| user.is_none_or(|u| &k.user == u)).cloned().collect())
    }

    async fn revoke_api_key(&self, id: &ApiKeyId, at: DateTime<Utc>) -> Result<Option<ApiKey>> {
        let mut s = lock(&self.state);
        let Some((_, key)) = s.keys.iter_mut().find(|(_, k)| &k.id == id) else { return Ok(None) };
        key.revoked_at.get_or_insert(at);
        Ok(Some(key.clone()))
    }
}
