//! The catalog port on SQLite: datasets, table names unique per owner (`UNIQUE (owner_id,
//! table_name)`, retried with `_2`, `_3`, …), status changes only from `processing`.

use super::*;

pub(crate) fn parse_format(s: &str) -> Result<DatasetFormat> {
    DatasetFormat::ALL
        .into_iter()
        .find(|f| f.as_str() == s)
        .ok_or_else(|| StoreError::Corrupt(format!("dataset format {s:?}")).into())
}

fn dataset_from_row(r: &Row) -> Result<Dataset> {
    let status: String = r.get("status");
    let columns: Vec<Column> =
        serde_json::from_str(r.get("columns_json")).map_err(|e| StoreError::Corrupt(format!("columns_json: {e}")))?;
    Ok(Dataset {
        id: DatasetId::parse(r.get("id")).ok_or_else(|| StoreError::Corrupt("dataset id".into()))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| StoreError::Corrupt("owner id".into()))?,
        name: r.get("name"),
        table_name: r.get("table_name"),
        format: parse_format(r.get("format"))?,
        status: DatasetStatus::parse(&status).ok_or_else(|| StoreError::Corrupt(format!("status {status:?}")))?,
        row_count: r.get::<i64>("row_count") as u64,
        columns,
        size_bytes: r.get::<i64>("size_bytes") as u64,
        version_hash: r.get("version_hash"),
        error: r.get("error"),
        created_at: from_micros(r.get("created_at")),
        updated_at: from_micros(r.get("updated_at")),
        description: r.get("description"),
        column_notes: serde_json::from_str(r.get("column_notes_json"))
            .map_err(|e| StoreError::Corrupt(format!("column_notes_json: {e}")))?,
        lineage: r
            .get::<Option<&str>>("lineage_json")
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| StoreError::Corrupt(format!("lineage_json: {e}")))?,
        origin: r
            .get::<Option<&str>>("origin_json")
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| StoreError::Corrupt(format!("origin_json: {e}")))?,
    })
}

/// `SELECT <every dataset column> FROM datasets <rest>`, as a static string (sqlx only takes
/// audited, static SQL).
macro_rules! select_datasets {
    ($rest:literal) => {
        concat!(
            "SELECT id, owner_id, name, table_name, format, status, row_count, columns_json, size_bytes, ",
            "version_hash, error, created_at, updated_at, description, column_notes_json, lineage_json, origin_json ",
            "FROM datasets ",
            $rest
        )
    };
}

impl Store {
    async fn dataset_by_id(&self, id: &DatasetId) -> Result<Option<Dataset>> {
        self.db.query(select_datasets!("WHERE id = ?")).bind(id.as_str()).fetch_optional_map(dataset_from_row).await
    }
}

#[async_trait]
impl Catalog for Store {
    async fn insert_processing(&self, new: NewDataset) -> Result<Dataset> {
        let now = micros(Utc::now());
        let lineage = new.lineage.as_ref().map(serde_json::to_string).transpose().map_err(Error::internal)?;
        let origin = new.origin.as_ref().map(serde_json::to_string).transpose().map_err(Error::internal)?;
        for n in 1..=1000 {
            let table_name = aware_domain::dataset::table_name_candidate(&new.base_table_name, n);
            let inserted = self
                .db
                .query(
                    "INSERT INTO datasets (id, owner_id, name, table_name, format, status, size_bytes,
                                       version_hash, created_at, updated_at, lineage_json, origin_json)
                 VALUES (?, ?, ?, ?, ?, 'processing', ?, ?, ?, ?, ?, ?)",
                )
                .bind(new.id.as_str())
                .bind(new.owner.as_str())
                .bind(&new.name)
                .bind(&table_name)
                .bind(new.format.as_str())
                .bind(new.size_bytes as i64)
                .bind(&new.version_hash)
                .bind(now)
                .bind(now)
                .bind(lineage.as_deref())
                .bind(origin.as_deref())
                .execute()
                .await;
            match inserted {
                Ok(_) => {
                    return self
                        .dataset_by_id(&new.id)
                        .await?
                        .ok_or_else(|| Error::internal("dataset vanished right after insert"));
                }
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => continue,
                Err(e) => return Err(db(e)),
            }
        }
        Err(Error::resource_exhausted(format!(
            "too many datasets are named like {}; delete some first",
            new.base_table_name
        )))
    }

    async fn get(&self, owner: &UserId, id: &DatasetId) -> Result<Option<Dataset>> {
        self.db
            .query(select_datasets!("WHERE id = ? AND owner_id = ?"))
            .bind(id.as_str())
            .bind(owner.as_str())
            .fetch_optional_map(dataset_from_row)
            .await
    }

    async fn list(&self, owner: &UserId, status: Option<DatasetStatus>) -> Result<Vec<Dataset>> {
        let rows = self
            .db
            .query(select_datasets!(
                "WHERE owner_id = ?1 AND (?2 IS NULL OR status = ?2) ORDER BY created_at DESC, id DESC"
            ))
            .bind(owner.as_str())
            .bind(status.map(DatasetStatus::as_str))
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(dataset_from_row).collect()
    }

    async fn mark_ready(&self, id: &DatasetId, outcome: &IngestOutcome) -> Result<Option<Dataset>> {
        let columns = serde_json::to_string(&outcome.columns).map_err(Error::internal)?;
        let done = self
            .db
            .query(
                "UPDATE datasets SET status = 'ready', row_count = ?, columns_json = ?, error = NULL, updated_at = ?
             WHERE id = ? AND status = 'processing'",
            )
            .bind(outcome.row_count as i64)
            .bind(columns)
            .bind(micros(Utc::now()))
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        if done == 0 {
            return Ok(None);
        }
        self.dataset_by_id(id).await
    }

    async fn mark_error(&self, id: &DatasetId, reason: &str) -> Result<Option<Dataset>> {
        let done = self.db.query(
            "UPDATE datasets SET status = 'error', error = ?, updated_at = ? WHERE id = ? AND status = 'processing'",
        )
        .bind(reason)
        .bind(micros(Utc::now()))
        .bind(id.as_str())
        .execute()
        .await
        .map_err(db)?;
        if done == 0 {
            return Ok(None);
        }
        self.dataset_by_id(id).await
    }

    async fn update(&self, owner: &UserId, id: &DatasetId, update: &DatasetUpdate) -> Result<Option<Dataset>> {
        let notes = update.column_notes.as_ref().map(serde_json::to_string).transpose().map_err(Error::internal)?;
        let done = self
            .db
            .query(
                "UPDATE datasets SET name = coalesce(?1, name), table_name = coalesce(?2, table_name),
                 description = coalesce(?3, description), column_notes_json = coalesce(?4, column_notes_json),
                 updated_at = ?5
             WHERE id = ?6 AND owner_id = ?7",
            )
            .bind(update.name.as_deref())
            .bind(update.table_name.as_deref())
            .bind(update.description.as_deref())
            .bind(notes)
            .bind(micros(Utc::now()))
            .bind(id.as_str())
            .bind(owner.as_str())
            .execute()
            .await;
        match done {
            Ok(0) => Ok(None),
            Ok(_) => self.dataset_by_id(id).await,
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Err(Error::new(
                ErrorCode::AlreadyExists,
                format!(
                    "you already have a dataset named {}; choose another name",
                    update.table_name.as_deref().unwrap_or_default()
                ),
            )
            .with_field("table_name")),
            Err(e) => Err(db(e)),
        }
    }

    async fn replace_content(&self, owner: &UserId, id: &DatasetId, content: &NewContent) -> Result<Option<Dataset>> {
        let columns = serde_json::to_string(&content.outcome.columns).map_err(Error::internal)?;
        let notes = serde_json::to_string(&content.column_notes).map_err(Error::internal)?;
        let done = self
            .db
            .query(
                "UPDATE datasets SET version_hash = ?, size_bytes = ?, row_count = ?, columns_json = ?,
                 column_notes_json = ?, updated_at = ?
             WHERE id = ? AND owner_id = ? AND status = 'ready'",
            )
            .bind(&content.version_hash)
            .bind(content.size_bytes as i64)
            .bind(content.outcome.row_count as i64)
            .bind(columns)
            .bind(notes)
            .bind(micros(Utc::now()))
            .bind(id.as_str())
            .bind(owner.as_str())
            .execute()
            .await
            .map_err(db)?;
        if done == 0 {
            return Ok(None);
        }
        self.dataset_by_id(id).await
    }

    async fn delete(&self, owner: &UserId, id: &DatasetId) -> Result<bool> {
        let done = self
            .db
            .query("DELETE FROM datasets WHERE id = ? AND owner_id = ?")
            .bind(id.as_str())
            .bind(owner.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(done > 0)
    }

    async fn list_processing(&self) -> Result<Vec<Dataset>> {
        let rows = self.db.query(select_datasets!("WHERE status = 'processing'")).fetch_all().await.map_err(db)?;
        rows.iter().map(dataset_from_row).collect()
    }

    async fn count(&self, owner: &UserId) -> Result<u64> {
        let n: i64 = self
            .db
            .query("SELECT count(*) FROM datasets WHERE owner_id = ?")
            .bind(owner.as_str())
            .fetch_scalar()
            .await
            .map_err(db)?;
        Ok(n as u64)
    }

    async fn version(&self, owner: &UserId) -> Result<u64> {
        // Moved on by triggers on `datasets` (migration 0012 / postgres 0003).
        let n: Option<i64> = self
            .db
            .query("SELECT version FROM catalog_versions WHERE owner_id = ?")
            .bind(owner.as_str())
            .fetch_optional_scalar()
            .await
            .map_err(db)?;
        Ok(n.map_or(0, |n| n as u64))
    }
}
