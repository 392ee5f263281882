//! The values of a dataset's categorical columns (a plan, a region, a neighbourhood), read from
//! the data once per dataset version. The offline planner matches a question's words against them
//! ("Gracia" → `neighbourhood = 'Gràcia'`). They are the user's data: they stay in process and
//! never reach a language model's prompt.

use crate::Result;
use async_trait::async_trait;
use aware_domain::dataset::{Dataset, DatasetStatistics, DatasetStatus};
use aware_domain::ids::DatasetId;
use aware_domain::ports::DatasetEngine;
use aware_domain::ports::categories::{Categories, ColumnsOf, MAX_CATEGORIES};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Entries kept before the cache starts over (each is small: at most a few hundred short values
/// per column).
const CACHE_ENTRIES: usize = 512;

/// [`Categories`] read through the dataset engine and remembered per dataset version.
pub struct CategoryCache {
    engine: Arc<dyn DatasetEngine>,
    /// By dataset id and version hash.
    cache: Mutex<HashMap<(DatasetId, String), ColumnsOf>>,
    profiles: Mutex<HashMap<(DatasetId, String), Arc<DatasetStatistics>>>,
}

impl CategoryCache {
    pub fn new(engine: Arc<dyn DatasetEngine>) -> Self {
        Self { engine, cache: Mutex::default(), profiles: Mutex::default() }
    }
}

#[async_trait]
impl Categories for CategoryCache {
    async fn categories(&self, dataset: &Dataset) -> Result<ColumnsOf> {
        if dataset.status != DatasetStatus::Ready {
            return Ok(Arc::default());
        }
        let key = (dataset.id.clone(), dataset.version_hash.clone());
        if let Some(hit) = self.cache.lock().expect("category cache").get(&key) {
            return Ok(hit.clone());
        }
        let read = Arc::new(self.engine.categorical_values(dataset, MAX_CATEGORIES).await?);
        let mut cache = self.cache.lock().expect("category cache");
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(key, read.clone());
        Ok(read)
    }

    async fn profile(&self, dataset: &Dataset) -> Result<Option<Arc<DatasetStatistics>>> {
        if dataset.status != DatasetStatus::Ready {
            return Ok(None);
        }
        let key = (dataset.id.clone(), dataset.version_hash.clone());
        if let Some(hit) = self.profiles.lock().expect("profile cache").get(&key) {
            return Ok(Some(hit.clone()));
        }
        let read = Arc::new(self.engine.statistics(dataset).await?);
        let mut cache = self.profiles.lock().expect("profile cache");
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(key, read.clone());
        Ok(Some(read))
    }
}
