//! Accounts: users, roles and API keys (never a token).

use super::*;

pub(super) fn role_out(r: Role) -> pb::UserRole {
    match r {
        Role::Viewer => pb::UserRole::Viewer,
        Role::Analyst => pb::UserRole::Analyst,
        Role::Admin => pb::UserRole::Admin,
    }
}

/// A role a request names; `None` when it names none.
pub(crate) fn role_in(raw: i32) -> Result<Option<Role>> {
    match pb::UserRole::try_from(raw) {
        Ok(pb::UserRole::Unspecified) => Ok(None),
        Ok(pb::UserRole::Viewer) => Ok(Some(Role::Viewer)),
        Ok(pb::UserRole::Analyst) => Ok(Some(Role::Analyst)),
        Ok(pb::UserRole::Admin) => Ok(Some(Role::Admin)),
        Err(_) => Err(Error::validation("role", "role is USER_ROLE_VIEWER, USER_ROLE_ANALYST or USER_ROLE_ADMIN")),
    }
}

/// A user as clients see it (also inside the assistant's account results).
pub(crate) fn user(u: &User) -> pb::User {
    pb::User {
        user_id: u.id.to_string(),
        name: u.name.clone(),
        role: role_out(u.role).into(),
        created_at: Some(timestamp(u.created_at)),
        deactivated_at: u.deactivated_at.map(timestamp),
    }
}

/// A key as clients see it: never the token.
pub(crate) fn api_key(k: &ApiKey) -> pb::ApiKey {
    pb::ApiKey {
        key_id: k.id.to_string(),
        user_id: k.user.to_string(),
        prefix: k.prefix.clone(),
        created_at: Some(timestamp(k.created_at)),
        expires_at: k.expires_at.map(timestamp),
        revoked_at: k.revoked_at.map(timestamp),
    }
}
