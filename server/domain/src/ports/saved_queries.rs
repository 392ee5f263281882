//! The saved-queries port: each user's verified questions — a question, a name and the SQL a
//! person approved for it.

use crate::error::Result;
use crate::ids::{SavedQueryId, UserId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A verified query.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedQuery {
    pub id: SavedQueryId,
    pub owner: UserId,
    /// Unique per owner, e.g. "average price by neighbourhood".
    pub name: String,
    /// The question it answers, as the person asked it.
    pub question: String,
    /// The validator's canonical SQL.
    pub sql: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Where saved queries are kept; every read and write names the owner.
#[async_trait]
pub trait SavedQueries: Send + Sync {
    /// A name the owner already uses is `ALREADY_EXISTS`.
    async fn insert_saved_query(&self, query: &SavedQuery) -> Result<()>;
    /// The owner's saved queries, by name.
    async fn saved_queries(&self, owner: &UserId) -> Result<Vec<SavedQuery>>;
    /// False when the owner has no such query.
    async fn delete_saved_query(&self, owner: &UserId, id: &SavedQueryId) -> Result<bool>;
    /// Replaces a query's SQL (a table it reads was renamed).
    async fn set_saved_query_sql(&self, owner: &UserId, id: &SavedQueryId, sql: &str) -> Result<()>;
}
