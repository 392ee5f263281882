//! Users' memories, in memory.

use crate::lock;
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::ids::{MemoryId, UserId};
use aware_domain::ports::{Memory, MemoryStore};
use chrono::{DateTime, Utc};
use std::sync::Mutex;

/// Users' memories, in memory.
#[derive(Default)]
pub struct MemoryMemories {
    /// Oldest first.
    all: Mutex<Vec<Memory>>,
}

#[async_trait]
impl MemoryStore for MemoryMemories {
    async fn add_memory(&self, memory: &Memory) -> Result<()> {
        lock(&self.all).push(memory.clone());
        Ok(())
    }

    async fn memories(&self, owner: &UserId) -> Result<Vec<Memory>> {
        Ok(lock(&self.all).iter().rev().filter(|m| &m.owner == owner).cloned().collect())
    }

    async fn delete_memory(&self, owner: &UserId, id: &MemoryId) -> Result<bool> {
        let mut all = lock(&self.all);
        let before = all.len();
        all.retain(|m| !(&m.id == id && &m.owner == owner));
        Ok(all.len() < before)
    }

    async fn touch_memories(&self, owner: &UserId, ids: &[MemoryId], at: DateTime<Utc>) -> Result<()> {
        for m in lock(&self.all).iter_mut().filter(|m| &m.owner == owner && ids.contains(&m.id)) {
            m.last_used_at = Some(at);
        }
        Ok(())
    }
}
