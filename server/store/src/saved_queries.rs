//! The saved-queries port on SQLite: verified queries, names unique per owner (case-insensitive).

use super::*;
use aware_domain::ids::SavedQueryId;
use aware_domain::ports::{SavedQueries, SavedQuery};

fn saved_query_row(r: &Row) -> Result<SavedQuery> {
    let corrupt = |what: &str| -> Error { StoreError::Corrupt(what.to_owned()).into() };
    Ok(SavedQuery {
        id: SavedQueryId::parse(r.get("id")).ok_or_else(|| corrupt("saved query id"))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| corrupt("owner id"))?,
        name: r.get("name"),
        question: r.get("question"),
        sql: r.get("sql"),
        created_at: from_micros(r.get("created_at")),
        updated_at: from_micros(r.get("updated_at")),
    })
}

#[async_trait]
impl SavedQueries for Store {
    async fn insert_saved_query(&self, q: &SavedQuery) -> Result<()> {
        let done = self
            .db
            .query(
                "INSERT INTO saved_queries (id, owner_id, name, question, sql, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(q.id.as_str())
            .bind(q.owner.as_str())
            .bind(&q.name)
            .bind(&q.question)
            .bind(&q.sql)
            .bind(micros(q.created_at))
            .bind(micros(q.updated_at))
            .execute()
            .await;
        match done {
            Ok(_) => Ok(()),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                Err(Error::new(ErrorCode::AlreadyExists, format!("you already have a saved query named {:?}", q.name))
                    .with_field("name"))
            }
            Err(e) => Err(db(e)),
        }
    }

    async fn saved_queries(&self, owner: &UserId) -> Result<Vec<SavedQuery>> {
        let rows = self
            .db
            .query(
                "SELECT id, owner_id, name, question, sql, created_at, updated_at FROM saved_queries
             WHERE owner_id = ? ORDER BY lower(name), id",
            )
            .bind(owner.as_str())
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(saved_query_row).collect()
    }

    async fn delete_saved_query(&self, owner: &UserId, id: &SavedQueryId) -> Result<bool> {
        let gone = self
            .db
            .query("DELETE FROM saved_queries WHERE id = ? AND owner_id = ?")
            .bind(id.as_str())
            .bind(owner.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(gone == 1)
    }

    async fn set_saved_query_sql(&self, owner: &UserId, id: &SavedQueryId, sql: &str) -> Result<()> {
        self.db
            .query("UPDATE saved_queries SET sql = ?, updated_at = ? WHERE id = ? AND owner_id = ?")
            .bind(sql)
            .bind(micros(Utc::now()))
            .bind(id.as_str())
            .bind(owner.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }
}
