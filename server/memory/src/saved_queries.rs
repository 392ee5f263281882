//! Verified (saved) queries, in memory.

use crate::lock;
use async_trait::async_trait;
use aware_domain::ids::{SavedQueryId, UserId};
use aware_domain::ports::{SavedQueries, SavedQuery};
use aware_domain::{Error, ErrorCode, Result};
use chrono::Utc;
use std::sync::Mutex;

/// Verified queries, in memory.
#[derive(Default)]
pub struct MemorySavedQueries {
    all: Mutex<Vec<SavedQuery>>,
}

#[async_trait]
impl SavedQueries for MemorySavedQueries {
    async fn insert_saved_query(&self, query: &SavedQuery) -> Result<()> {
        let mut all = lock(&self.all);
        if all.iter().any(|q| q.owner == query.owner && q.name.to_lowercase() == query.name.to_lowercase()) {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("you already have a saved query named {:?}", query.name),
            )
            .with_field("name"));
        }
        all.push(query.clone());
        Ok(())
    }

    async fn saved_queries(&self, owner: &UserId) -> Result<Vec<SavedQuery>> {
        let mut mine: Vec<SavedQuery> = lock(&self.all).iter().filter(|q| &q.owner == owner).cloned().collect();
        mine.sort_by(|a, b| (a.name.to_lowercase(), &a.id).cmp(&(b.name.to_lowercase(), &b.id)));
        Ok(mine)
    }

    async fn delete_saved_query(&self, owner: &UserId, id: &SavedQueryId) -> Result<bool> {
        let mut all = lock(&self.all);
        let before = all.len();
        all.retain(|q| !(&q.id == id && &q.owner == owner));
        Ok(all.len() < before)
    }

    async fn set_saved_query_sql(&self, owner: &UserId, id: &SavedQueryId, sql: &str) -> Result<()> {
        for q in lock(&self.all).iter_mut().filter(|q| &q.id == id && &q.owner == owner) {
            q.sql = sql.to_owned();
            q.updated_at = Utc::now();
        }
        Ok(())
    }
}
