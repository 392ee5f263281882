//! Where text indexes live (`aware-search` implements [`SearchStore`] with tantivy and vector
//! files) and the sentence-embedding model ([`Embedder`], local or remote).

use crate::Result;
use crate::ids::DatasetId;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// One row's text: the values of the dataset's text columns, in column order (`""` for null).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextDoc {
    /// 0-based row number in the dataset.
    pub row_id: u64,
    pub fields: Vec<String>,
}

impl TextDoc {
    /// The text embedded for this row: its non-empty fields, one per line.
    pub fn embedding_text(&self) -> String {
        self.fields.iter().filter(|f| !f.trim().is_empty()).map(String::as_str).collect::<Vec<_>>().join("\n")
    }
}

/// What is stored for a dataset's index (written by the store with the lexical index).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    pub dataset_id: DatasetId,
    /// The dataset content the index was built from.
    pub version_hash: String,
    pub columns: Vec<String>,
    pub rows: u64,
    /// Present once every row's vector is stored.
    pub vectors: Option<VectorMeta>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VectorMeta {
    pub model: String,
    pub dims: usize,
    pub rows: u64,
    /// "exact" or "hnsw".
    pub index: String,
}

/// A row the lexical index found for a query.
#[derive(Clone, Debug, PartialEq)]
pub struct LexicalMatch {
    pub row_id: u64,
    /// BM25.
    pub score: f32,
    /// How much of the query the row holds, 0 to 1: the share of the query's words it
    /// contains, each weighted by its rarity (idf). Decides whether it counts in fusion.
    pub coverage: f32,
}

/// A row a store found, with its text and a snippet that marks the query's words.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredHit {
    pub row_id: u64,
    /// Equal for rows whose text is exactly the same (they are shown as one hit).
    pub fingerprint: u64,
    /// Which text column the snippet comes from.
    pub column: String,
    pub text: String,
    /// The best fragment with `<mark>…</mark>` around matching words (HTML-escaped otherwise).
    pub snippet: String,
    /// Every indexed column's value, in the index's column order (`""` for null).
    pub fields: Vec<String>,
}

/// Where indexes live: lexical (BM25) and vector indexes per dataset, kept across restarts.
#[async_trait]
pub trait SearchStore: Send + Sync {
    /// Replaces the dataset's index with a lexical index of `docs`; vectors start empty.
    async fn build(&self, meta: &IndexMeta, docs: Vec<TextDoc>) -> Result<()>;
    /// Drops the dataset's vectors, sealed or partial (before they are built again).
    async fn clear_vectors(&self, dataset: &DatasetId) -> Result<()>;
    /// Appends vectors (one per row in `rows`, `dims` floats each, unit length).
    async fn add_vectors(&self, dataset: &DatasetId, rows: Vec<u64>, vectors: Vec<Vec<f32>>) -> Result<()>;
    /// Marks the vectors complete (made by `model`) and builds their search index.
    async fn seal_vectors(&self, dataset: &DatasetId, model: &str) -> Result<VectorMeta>;
    /// The dataset's best rows for `query` by BM25, best first.
    async fn lexical(&self, dataset: &DatasetId, query: &str, k: usize) -> Result<Vec<LexicalMatch>>;
    /// The dataset's nearest rows to `vector` by cosine similarity: (row, similarity), best first.
    async fn nearest(&self, dataset: &DatasetId, vector: &[f32], k: usize) -> Result<Vec<(u64, f32)>>;
    /// Text and snippets of `rows`, in that order.
    async fn hits(&self, dataset: &DatasetId, query: &str, rows: &[u64]) -> Result<Vec<StoredHit>>;
    /// What is stored for the dataset (by an earlier process, or another replica), if anything;
    /// an index this process had open is read afresh on next use.
    async fn load(&self, dataset: &DatasetId) -> Result<Option<IndexMeta>>;
    async fn remove(&self, dataset: &DatasetId) -> Result<()>;
}

/// A sentence-embedding model.
#[async_trait]
pub trait Embedder: Send + Sync {
    /// The model's name, recorded with the vectors it made.
    fn model(&self) -> String;
    /// One unit-length vector per text, in order.
    async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>>;
}
