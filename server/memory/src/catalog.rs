//! The dataset catalog, in memory.

use crate::lock;
use async_trait::async_trait;
use aware_domain::dataset::{Dataset, DatasetStatus, IngestOutcome, table_name_candidate};
use aware_domain::ids::{DatasetId, UserId};
use aware_domain::ports::{Catalog, DatasetUpdate, NewContent, NewDataset};
use aware_domain::{Error, ErrorCode, Result};
use chrono::Utc;
use std::collections::HashMap;
use std::sync::Mutex;

/// The dataset catalog, in memory.
#[derive(Default)]
pub struct MemoryCatalog {
    datasets: Mutex<HashMap<DatasetId, Dataset>>,
    /// Each owner's catalog version, moved on by every change to their datasets.
    versions: Mutex<HashMap<UserId, u64>>,
}

impl MemoryCatalog {
    fn moved(&self, owner: &UserId) {
        *lock(&self.versions).entry(owner.clone()).or_default() += 1;
    }
}

#[async_trait]
impl Catalog for MemoryCatalog {
    async fn insert_processing(&self, new: NewDataset) -> Result<Dataset> {
        let mut all = lock(&self.datasets);
        let taken = |name: &str| all.values().any(|d| d.owner == new.owner && d.table_name == name);
        let Some(table_name) = (1..=1000).map(|n| table_name_candidate(&new.base_table_name, n)).find(|t| !taken(t))
        else {
            return Err(Error::resource_exhausted(format!(
                "too many datasets are named like {}; delete some first",
                new.base_table_name
            )));
        };
        let now = Utc::now();
        let dataset = Dataset {
            id: new.id.clone(),
            owner: new.owner,
            name: new.name,
            table_name,
            format: new.format,
            status: DatasetStatus::Processing,
            row_count: 0,
            columns: Vec::new(),
            size_bytes: new.size_bytes,
            version_hash: new.version_hash,
            error: None,
            created_at: now,
            updated_at: now,
            description: String::new(),
            column_notes: Vec::new(),
            lineage: new.lineage,
            origin: new.origin,
        };
        all.insert(new.id, dataset.clone());
        self.moved(&dataset.owner);
        Ok(dataset)
    }

    async fn get(&self, owner: &UserId, id: &DatasetId) -> Result<Option<Dataset>> {
        Ok(lock(&self.datasets).get(id).filter(|d| &d.owner == owner).cloned())
    }

    async fn list(&self, owner: &UserId, status: Option<DatasetStatus>) -> Result<Vec<Dataset>> {
        let mut mine: Vec<Dataset> = lock(&self.datasets)
            .values()
            .filter(|d| &d.owner == owner && status.is_none_or(|s| d.status == s))
            .cloned()
            .collect();
        mine.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(mine)
    }

    async fn mark_ready(&self, id: &DatasetId, outcome: &IngestOutcome) -> Result<Option<Dataset>> {
        let mut all = lock(&self.datasets);
        Ok(all.get_mut(id).filter(|d| d.status == DatasetStatus::Processing).map(|d| {
            d.status = DatasetStatus::Ready;
            d.row_count = outcome.row_count;
            d.columns.clone_from(&outcome.columns);
            d.error = None;
            d.updated_at = Utc::now();
            self.moved(&d.owner);
            d.clone()
        }))
    }

    async fn mark_error(&self, id: &DatasetId, reason: &str) -> Result<Option<Dataset>> {
        let mut all = lock(&self.datasets);
        Ok(all.get_mut(id).filter(|d| d.status == DatasetStatus::Processing).map(|d| {
            d.status = DatasetStatus::Error;
            d.error = Some(reason.to_owned());
            d.updated_at = Utc::now();
            self.moved(&d.owner);
            d.clone()
        }))
    }

    async fn update(&self, owner: &UserId, id: &DatasetId, update: &DatasetUpdate) -> Result<Option<Dataset>> {
        let mut all = lock(&self.datasets);
        if let Some(wanted) = &update.table_name
            && all.values().any(|d| &d.owner == owner && &d.table_name == wanted && &d.id != id)
        {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("you already have a dataset named {wanted}; choose another name"),
            )
            .with_field("table_name"));
        }
        Ok(all.get_mut(id).filter(|d| &d.owner == owner).map(|d| {
            if let Some(name) = &update.name {
                d.name.clone_from(name);
            }
            if let Some(table_name) = &update.table_name {
                d.table_name.clone_from(table_name);
            }
            if let Some(description) = &update.description {
                d.description.clone_from(description);
            }
            if let Some(notes) = &update.column_notes {
                d.column_notes.clone_from(notes);
            }
            d.updated_at = Utc::now();
            self.moved(&d.owner);
            d.clone()
        }))
    }

    async fn replace_content(&self, owner: &UserId, id: &DatasetId, content: &NewContent) -> Result<Option<Dataset>> {
        let mut all = lock(&self.datasets);
        Ok(all.get_mut(id).filter(|d| &d.owner == owner && d.status == DatasetStatus::Ready).map(|d| {
            d.version_hash.clone_from(&content.version_hash);
            d.size_bytes = content.size_bytes;
            d.row_count = content.outcome.row_count;
            d.columns.clone_from(&content.outcome.columns);
            d.column_notes.clone_from(&content.column_notes);
            d.updated_at = Utc::now();
            self.moved(&d.owner);
            d.clone()
        }))
    }

    async fn delete(&self, owner: &UserId, id: &DatasetId) -> Result<bool> {
        let mut all = lock(&self.datasets);
        if all.get(id).is_some_and(|d| &d.owner == owner) {
            all.remove(id);
            self.moved(owner);
            return Ok(true);
        }
        Ok(false)
    }

    async fn list_processing(&self) -> Result<Vec<Dataset>> {
        Ok(lock(&self.datasets).values().filter(|d| d.status == DatasetStatus::Processing).cloned().collect())
    }

    async fn count(&self, owner: &UserId) -> Result<u64> {
        Ok(lock(&self.datasets).values().filter(|d| &d.owner == owner).count() as u64)
    }

    async fn version(&self, owner: &UserId) -> Result<u64> {
        Ok(lock(&self.versions).get(owner).copied().unwrap_or(0))
    }
}
