//! `[search]`: search over the text in datasets, and where its vectors come from.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Where search vectors come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EmbeddingsKind {
    /// all-MiniLM-L6-v2 in-process, from `search.model_dir`; lexical only when it is not there.
    Local,
    /// An OpenAI-compatible `/v1/embeddings` server (`search.embeddings_url`).
    Openai,
    /// No vectors: search matches words only.
    Off,
}

/// Search over the text in datasets.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Search {
    pub embeddings: EmbeddingsKind,
    /// The local model's folder (`config.json`, `tokenizer.json`, `model.safetensors`); default
    /// `<data_dir>/models/all-minilm-l6-v2`. Given explicitly, it must exist.
    pub model_dir: Option<PathBuf>,
    /// `embeddings = "openai"`: the server up to the version, e.g. `http://localhost:11434/v1`
    /// (`/embeddings` is appended).
    pub embeddings_url: Option<String>,
    /// `embeddings = "openai"`: the model id, e.g. `text-embedding-3-small`.
    pub embeddings_model: Option<String>,
    /// `embeddings = "openai"`: the key, when the server needs one (default `$OPENAI_API_KEY`).
    pub embeddings_api_key: Option<String>,
    /// Datasets with more vectors than this are searched through an HNSW graph; smaller ones
    /// exactly.
    pub hnsw_threshold: usize,
    /// Most rows of one dataset indexed for words.
    pub max_rows: u64,
    /// Most rows of one dataset given vectors (the rest are found by words only).
    pub max_vector_rows: u64,
}

impl Default for Search {
    fn default() -> Self {
        Self {
            embeddings: EmbeddingsKind::Local,
            model_dir: None,
            embeddings_url: None,
            embeddings_model: None,
            embeddings_api_key: None,
            hnsw_threshold: 20_000,
            max_rows: 2_000_000,
            max_vector_rows: 200_000,
        }
    }
}

/// Never prints the key.
impl std::fmt::Debug for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Search")
            .field("embeddings", &self.embeddings)
            .field("model_dir", &self.model_dir)
            .field("embeddings_url", &self.embeddings_url)
            .field("embeddings_model", &self.embeddings_model)
            .field("embeddings_api_key", &self.embeddings_api_key.as_ref().map(|_| "<set>"))
            .field("hnsw_threshold", &self.hnsw_threshold)
            .field("max_rows", &self.max_rows)
            .field("max_vector_rows", &self.max_vector_rows)
            .finish()
    }
}
