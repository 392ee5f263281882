//! The uploads port on SQLite: chunked-upload sessions.

use super::catalog::parse_format;
use super::*;

fn upload_from_row(r: &Row) -> Result<UploadSession> {
    Ok(UploadSession {
        id: UploadId::parse(r.get("id")).ok_or_else(|| StoreError::Corrupt("upload id".into()))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| StoreError::Corrupt("owner id".into()))?,
        filename: r.get("filename"),
        format: r.get::<Option<String>>("format").as_deref().map(parse_format).transpose()?,
        expected_bytes: r.get::<Option<i64>>("expected_bytes").map(|n| n as u64),
        received_bytes: r.get::<i64>("received_bytes") as u64,
        created_at: from_micros(r.get("created_at")),
    })
}

#[async_trait]
impl Uploads for Store {
    async fn create_session(&self, s: &UploadSession) -> Result<()> {
        self.db
            .query(
                "INSERT INTO uploads (id, owner_id, filename, format, expected_bytes, received_bytes, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(s.id.as_str())
            .bind(s.owner.as_str())
            .bind(&s.filename)
            .bind(s.format.map(DatasetFormat::as_str))
            .bind(s.expected_bytes.map(|n| n as i64))
            .bind(s.received_bytes as i64)
            .bind(micros(s.created_at))
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn session(&self, owner: &UserId, id: &UploadId) -> Result<Option<UploadSession>> {
        self.db
            .query(
                "SELECT id, owner_id, filename, format, expected_bytes, received_bytes, created_at
             FROM uploads WHERE id = ? AND owner_id = ?",
            )
            .bind(id.as_str())
            .bind(owner.as_str())
            .fetch_optional_map(upload_from_row)
            .await
    }

    async fn set_received(&self, id: &UploadId, received_bytes: u64) -> Result<()> {
        self.db
            .query("UPDATE uploads SET received_bytes = ? WHERE id = ?")
            .bind(received_bytes as i64)
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn remove_session(&self, id: &UploadId) -> Result<()> {
        self.db.query("DELETE FROM uploads WHERE id = ?").bind(id.as_str()).execute().await.map_err(db)?;
        Ok(())
    }

    async fn count_open(&self, owner: &UserId) -> Result<u64> {
        let n: i64 = self
            .db
            .query("SELECT count(*) FROM uploads WHERE owner_id = ?")
            .bind(owner.as_str())
            .fetch_scalar()
            .await
            .map_err(db)?;
        Ok(n as u64)
    }

    async fn take_expired(&self, cutoff: DateTime<Utc>) -> Result<Vec<UploadId>> {
        let ids: Vec<String> = self
            .db
            .query("DELETE FROM uploads WHERE created_at < ? RETURNING id")
            .bind(micros(cutoff))
            .fetch_all_scalars()
            .await
            .map_err(db)?;
        Ok(ids.iter().filter_map(|id| UploadId::parse(id)).collect())
    }
}
