//! The memory port on SQLite: each user's remembered facts.

use super::*;
use aware_domain::ids::MemoryId;
use aware_domain::ports::{Memory, MemoryStore};

fn memory_row(r: &Row) -> Result<Memory> {
    let corrupt = |what: &str| -> Error { StoreError::Corrupt(what.to_owned()).into() };
    Ok(Memory {
        id: MemoryId::parse(r.get("id")).ok_or_else(|| corrupt("memory id"))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| corrupt("owner id"))?,
        text: r.get("text"),
        source_run: r.get::<Option<String>>("source_run_id").as_deref().and_then(RunId::parse),
        created_at: from_micros(r.get("created_at")),
        last_used_at: r.get::<Option<i64>>("last_used_at").map(from_micros),
    })
}

#[async_trait]
impl MemoryStore for Store {
    async fn add_memory(&self, m: &Memory) -> Result<()> {
        self.db.query(
            "INSERT INTO memories (id, owner_id, text, source_run_id, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(m.id.as_str())
        .bind(m.owner.as_str())
        .bind(&m.text)
        .bind(m.source_run.as_ref().map(RunId::as_str))
        .bind(micros(m.created_at))
        .bind(m.last_used_at.map(micros))
        .execute()
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn memories(&self, owner: &UserId) -> Result<Vec<Memory>> {
        let rows = self
            .db
            .query(
                "SELECT id, owner_id, text, source_run_id, created_at, last_used_at FROM memories
             WHERE owner_id = ? ORDER BY created_at DESC, id DESC",
            )
            .bind(owner.as_str())
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(memory_row).collect()
    }

    async fn delete_memory(&self, owner: &UserId, id: &MemoryId) -> Result<bool> {
        let gone = self
            .db
            .query("DELETE FROM memories WHERE id = ? AND owner_id = ?")
            .bind(id.as_str())
            .bind(owner.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(gone == 1)
    }

    async fn touch_memories(&self, owner: &UserId, ids: &[MemoryId], at: DateTime<Utc>) -> Result<()> {
        let mut tx = self.db.begin().await.map_err(db)?;
        for id in ids {
            tx.query("UPDATE memories SET last_used_at = ? WHERE id = ? AND owner_id = ?")
                .bind(micros(at))
                .bind(id.as_str())
                .bind(owner.as_str())
                .execute()
                .await
                .map_err(db)?;
        }
        tx.commit().await.map_err(db)?;
        Ok(())
    }
}
