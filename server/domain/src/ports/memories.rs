//! The memory port: the short facts each user asked aware to keep, or approved.

use crate::error::Result;
use crate::ids::{MemoryId, RunId, UserId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// One remembered fact.
#[derive(Clone, Debug, PartialEq)]
pub struct Memory {
    pub id: MemoryId,
    pub owner: UserId,
    pub text: String,
    /// The run whose post-hook stored it; `None` when a person added it directly.
    pub source_run: Option<RunId>,
    pub created_at: DateTime<Utc>,
    /// When it last went into a model's instructions.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// Where memories are kept. Every read and write names the owner: one user's memories are
/// invisible to every other.
#[async_trait]
pub trait MemoryStore: Send + Sync {
    async fn add_memory(&self, memory: &Memory) -> Result<()>;
    /// The owner's memories, newest first.
    async fn memories(&self, owner: &UserId) -> Result<Vec<Memory>>;
    /// False when the owner has no such memory.
    async fn delete_memory(&self, owner: &UserId, id: &MemoryId) -> Result<bool>;
    /// Marks memories as put in front of a model at `at`.
    async fn touch_memories(&self, owner: &UserId, ids: &[MemoryId], at: DateTime<Utc>) -> Result<()>;
}
