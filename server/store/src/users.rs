//! The users port on SQLite: users and API keys (only a token's sha256 is stored).

use super::*;

fn user_from_row(r: &SqliteRow) -> Result<User> {
    let role: String = r.get("role");
    Ok(User {
        id: UserId::parse(r.get("id")).ok_or_else(|| StoreError::Corrupt("user id".into()))?,
        name: r.get("name"),
        role: Role::from_str(&role)?,
        created_at: from_micros(r.get("created_at")),
    })
}

#[async_trait]
impl Users for SqliteStore {
    async fn create_user(&self, name: &str, role: Role) -> Result<User> {
        let user = User { id: UserId::generate(), name: name.to_owned(), role, created_at: Utc::now() };
        sqlx::query("INSERT INTO users (id, name, role, created_at) VALUES (?, ?, ?, ?)")
            .bind(user.id.as_str())
            .bind(name)
            .bind(role.as_str())
            .bind(micros(user.created_at))
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(user)
    }

    async fn ensure_user(&self, principal: &Principal) -> Result<()> {
        sqlx::query("INSERT OR IGNORE INTO users (id, name, role, created_at) VALUES (?, ?, ?, ?)")
            .bind(principal.user_id.as_str())
            .bind(&principal.name)
            .bind(principal.role.as_str())
            .bind(micros(Utc::now()))
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn add_api_key(
        &self,
        user: &UserId,
        token_sha256: &str,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<ApiKeyId> {
        let id = ApiKeyId::generate();
        sqlx::query("INSERT INTO api_keys (id, user_id, token_sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
            .bind(id.as_str())
            .bind(user.as_str())
            .bind(token_sha256)
            .bind(micros(Utc::now()))
            .bind(expires_at.map(micros))
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(id)
    }

    async fn find_api_key(&self, token_sha256: &str) -> Result<Option<ApiKeyGrant>> {
        let row = sqlx::query(
            "SELECT k.id AS key_id, k.expires_at, k.revoked_at, u.id, u.name, u.role, u.created_at
             FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.token_sha256 = ?",
        )
        .bind(token_sha256)
        .fetch_optional(&self.pool)
        .await
        .map_err(db)?;
        let Some(r) = row else { return Ok(None) };
        let user = user_from_row(&r)?;
        Ok(Some(ApiKeyGrant {
            key_id: ApiKeyId::parse(r.get("key_id")).ok_or_else(|| StoreError::Corrupt("key id".into()))?,
            principal: Principal { user_id: user.id, name: user.name, role: user.role },
            expires_at: r.get::<Option<i64>, _>("expires_at").map(from_micros),
            revoked: r.get::<Option<i64>, _>("revoked_at").is_some(),
        }))
    }

    async fn list_users(&self) -> Result<Vec<User>> {
        let rows = sqlx::query("SELECT id, name, role, created_at FROM users ORDER BY created_at")
            .fetch_all(&self.pool)
            .await
            .map_err(db)?;
        rows.iter().map(user_from_row).collect()
    }
}
