//! The users port on SQLite: users and API keys (only a token's sha256 is stored).

use super::*;

fn user_from_row(r: &Row) -> Result<User> {
    let role: String = r.get("role");
    Ok(User {
        id: UserId::parse(r.get("id")).ok_or_else(|| StoreError::Corrupt("user id".into()))?,
        name: r.get("name"),
        role: Role::from_str(&role)?,
        created_at: from_micros(r.get("created_at")),
        deactivated_at: r.get::<Option<i64>>("deactivated_at").map(from_micros),
    })
}

fn key_from_row(r: &Row) -> Result<ApiKey> {
    let corrupt = |what: &str| StoreError::Corrupt(format!("api key {what}"));
    Ok(ApiKey {
        id: ApiKeyId::parse(r.get("id")).ok_or_else(|| corrupt("id"))?,
        user: UserId::parse(r.get("user_id")).ok_or_else(|| corrupt("user"))?,
        prefix: r.get("prefix"),
        created_at: from_micros(r.get("created_at")),
        expires_at: r.get::<Option<i64>>("expires_at").map(from_micros),
        revoked_at: r.get::<Option<i64>>("revoked_at").map(from_micros),
    })
}

#[async_trait]
impl Users for Store {
    async fn create_user(&self, name: &str, role: Role) -> Result<User> {
        let user =
            User { id: UserId::generate(), name: name.to_owned(), role, created_at: Utc::now(), deactivated_at: None };
        self.db
            .query("INSERT INTO users (id, name, role, created_at) VALUES (?, ?, ?, ?)")
            .bind(user.id.as_str())
            .bind(name)
            .bind(role.as_str())
            .bind(micros(user.created_at))
            .execute()
            .await
            .map_err(db)?;
        Ok(user)
    }

    async fn ensure_user(&self, principal: &Principal) -> Result<()> {
        self.db
            .query("INSERT INTO users (id, name, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
            .bind(principal.user_id.as_str())
            .bind(&principal.name)
            .bind(principal.role.as_str())
            .bind(micros(Utc::now()))
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn add_api_key(
        &self,
        user: &UserId,
        token_sha256: &str,
        prefix: &str,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<ApiKey> {
        let row = self.db.query(
            "INSERT INTO api_keys (id, user_id, token_sha256, prefix, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
             RETURNING id, user_id, prefix, created_at, expires_at, revoked_at",
        )
        .bind(ApiKeyId::generate().as_str())
        .bind(user.as_str())
        .bind(token_sha256)
        .bind(prefix)
        .bind(micros(Utc::now()))
        .bind(expires_at.map(micros))
        .fetch_one()
        .await
        .map_err(db)?;
        key_from_row(&row)
    }

    async fn find_api_key(&self, token_sha256: &str) -> Result<Option<ApiKeyGrant>> {
        let row = self.db.query(
            "SELECT k.id AS key_id, k.expires_at, k.revoked_at, u.id, u.name, u.role, u.created_at, u.deactivated_at
             FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.token_sha256 = ?",
        )
        .bind(token_sha256)
        .fetch_optional()
        .await
        .map_err(db)?;
        let Some(r) = row else { return Ok(None) };
        let user = user_from_row(&r)?;
        let key_id = ApiKeyId::parse(r.get("key_id")).ok_or_else(|| StoreError::Corrupt("key id".into()))?;
        Ok(Some(ApiKeyGrant {
            deactivated: user.deactivated_at.is_some(),
            principal: Principal { user_id: user.id, name: user.name, role: user.role, key: Some(key_id.clone()) },
            key_id,
            expires_at: r.get::<Option<i64>>("expires_at").map(from_micros),
            revoked: r.get::<Option<i64>>("revoked_at").is_some(),
        }))
    }

    async fn list_users(&self) -> Result<Vec<User>> {
        let rows = self
            .db
            .query("SELECT id, name, role, created_at, deactivated_at FROM users ORDER BY created_at, id")
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(user_from_row).collect()
    }

    async fn user(&self, id: &UserId) -> Result<Option<User>> {
        self.db
            .query("SELECT id, name, role, created_at, deactivated_at FROM users WHERE id = ?")
            .bind(id.as_str())
            .fetch_optional_map(user_from_row)
            .await
    }

    async fn set_role(&self, id: &UserId, role: Role) -> Result<bool> {
        let done = self
            .db
            .query("UPDATE users SET role = ? WHERE id = ?")
            .bind(role.as_str())
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(done > 0)
    }

    async fn set_deactivated(&self, id: &UserId, at: Option<DateTime<Utc>>) -> Result<bool> {
        let done = self
            .db
            .query("UPDATE users SET deactivated_at = ? WHERE id = ?")
            .bind(at.map(micros))
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(done > 0)
    }

    async fn api_keys(&self, user: Option<&UserId>) -> Result<Vec<ApiKey>> {
        let rows = self
            .db
            .query(
                "SELECT id, user_id, prefix, created_at, expires_at, revoked_at FROM api_keys
             WHERE ?1 IS NULL OR user_id = ?1 ORDER BY created_at, id",
            )
            .bind(user.map(UserId::as_str))
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(key_from_row).collect()
    }

    async fn revoke_api_key(&self, id: &ApiKeyId, at: DateTime<Utc>) -> Result<Option<ApiKey>> {
        self.db
            .query(
                "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?
             RETURNING id, user_id, prefix, created_at, expires_at, revoked_at",
            )
            .bind(micros(at))
            .bind(id.as_str())
            .fetch_optional_map(key_from_row)
            .await
    }
}
