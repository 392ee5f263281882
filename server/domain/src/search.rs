//! Search results and the state of a dataset's text index, as the API shows them, and the rules
//! every ranker shares (reciprocal-rank fusion, snippets). The search service is
//! `aware_core::search`; the index storage and the embedder are ports
//! ([`crate::ports::search_index`]).

use crate::error::{Error, Result};
use crate::ids::DatasetId;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Most hits one search returns.
pub const MAX_LIMIT: u32 = 20;
/// Hits when the caller asks for none in particular.
pub const DEFAULT_LIMIT: u32 = 10;
/// The longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 1_000;
/// The share of a query's words (weighted by rarity) a passage must hold to be retrieved by its
/// words (`search_knowledge`): half, so a question's minor words need not all be there, but a
/// passage that shares only a common word with it is not evidence.
pub const PASSAGE_COVERAGE: f32 = 0.5;
/// The cosine similarity (all-MiniLM-L6-v2) a passage must have to the query to be retrieved by
/// meaning alone. Probed on the test handbook's sections: paraphrases of what a section says
/// score 0.44–0.65 against it ("return an item" → Refunds 0.443, "how long does delivery take" →
/// Shipping 0.647), questions it does not cover at most 0.24 ("vacation policy" 0.237, "parental
/// leave" 0.116); 0.35 sits in the gap.
pub const PASSAGE_SIMILARITY: f32 = 0.35;
/// Longest snippet, in characters.
pub const SNIPPET_CHARS: usize = 200;
/// Reciprocal-rank fusion constant (Cormack et al.): a hit at rank r adds 1 / (RRF_K + r).
pub const RRF_K: f64 = 60.0;

/// How one string column reads, for deciding whether it is text worth searching.
#[derive(Clone, Debug, PartialEq)]
pub struct TextColumnProfile {
    pub name: String,
    pub non_null: u64,
    pub avg_chars: f64,
    /// Share of non-null values with a space in them (words, not codes).
    pub with_space: f64,
}

/// The columns worth indexing: strings that read like prose — on average at least 12
/// characters, and words (a space) in at least half the values. Codes, categories, ids and
/// e-mail addresses stay out: they are better found with SQL.
pub fn text_columns(profiles: &[TextColumnProfile]) -> Vec<String> {
    profiles
        .iter()
        .filter(|p| p.non_null > 0 && p.avg_chars >= 12.0 && p.with_space >= 0.5)
        .map(|p| p.name.clone())
        .collect()
}
/// Where a dataset's index is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexState {
    /// Queued or being built; not searchable yet.
    Indexing,
    /// No column reads like text: nothing to search.
    NoText,
    /// Searchable by words; vectors are being built.
    Embedding,
    /// Searchable by words only (no embedding model).
    Lexical,
    /// Searchable by words and by meaning.
    Ready,
    Failed,
}

impl IndexState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Indexing => "indexing",
            Self::NoText => "no_text",
            Self::Embedding => "embedding",
            Self::Lexical => "lexical",
            Self::Ready => "ready",
            Self::Failed => "failed",
        }
    }

    pub fn lexical_ready(self) -> bool {
        matches!(self, Self::Embedding | Self::Lexical | Self::Ready)
    }
}

/// A dataset's index, as `GetDataset` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexStatus {
    pub state: IndexState,
    pub text_columns: Vec<String>,
    pub rows: u64,
    pub vector_rows: u64,
    pub model: String,
    /// "exact" or "hnsw" once vectors are ready.
    pub vector_index: String,
    pub error: Option<String>,
    /// The dataset content this index is of (a refresh indexes the new content again).
    pub version_hash: String,
}

impl IndexStatus {
    pub fn new(state: IndexState, version_hash: &str) -> Self {
        Self {
            state,
            version_hash: version_hash.to_owned(),
            text_columns: Vec::new(),
            rows: 0,
            vector_rows: 0,
            model: String::new(),
            vector_index: String::new(),
            error: None,
        }
    }
}

/// How hits were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    Hybrid,
    Lexical,
    Vector,
}

impl SearchMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hybrid => "hybrid",
            Self::Lexical => "lexical",
            Self::Vector => "vector",
        }
    }

    /// `""` means hybrid (the default).
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "hybrid" => Ok(Self::Hybrid),
            "lexical" => Ok(Self::Lexical),
            "vector" => Ok(Self::Vector),
            other => Err(Error::validation("mode", format!("mode {other:?} is not hybrid, lexical or vector"))),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    pub dataset_id: DatasetId,
    pub dataset_name: String,
    pub table_name: String,
    pub row_id: u64,
    pub column: String,
    pub text: String,
    pub snippet: String,
    /// RRF score in hybrid mode, BM25 in lexical mode, cosine similarity in vector mode.
    pub score: f64,
    /// 1-based rank in each ranker's list; 0 when that ranker did not find the row.
    pub lexical_rank: u32,
    pub vector_rank: u32,
    /// Further rows among the candidates with exactly this text, folded into this hit.
    pub same_text_rows: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchResults {
    pub query: String,
    /// How these hits were found (hybrid falls back to lexical when no vectors exist).
    pub mode: SearchMode,
    pub hits: Vec<SearchHit>,
    pub datasets_searched: u32,
    /// What limited the search, in plain words ("" when nothing did).
    pub note: String,
}

/// Search settings.
#[derive(Clone, Debug)]
pub struct SearchConfig {
    /// Most rows of one dataset that get vectors (the rest stay lexical).
    pub max_vector_rows: u64,
    /// Most rows of one dataset indexed at all.
    pub max_rows: u64,
}

/// Text made safe to show as HTML (snippets).
pub fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The start of a text, as a snippet with nothing marked.
pub fn lead(text: &str) -> String {
    let cut: String = text.chars().take(SNIPPET_CHARS).collect();
    if cut.len() < text.len() { format!("{}…", escape_html(&cut)) } else { escape_html(&cut) }
}

/// Reciprocal-rank fusion of ranked lists of keys: each key scores Σ 1/(RRF_K + rank) over the
/// lists it is in (ranks 1-based). Ties go to the key with the better best rank, then the
/// smaller key, so the order is deterministic.
pub fn rrf<K: Clone + Ord + std::hash::Hash>(lists: &[&[K]]) -> Vec<(K, f64)> {
    let mut scores: HashMap<K, (f64, usize)> = HashMap::new();
    for list in lists {
        for (i, key) in list.iter().enumerate() {
            let entry = scores.entry(key.clone()).or_insert((0.0, usize::MAX));
            entry.0 += 1.0 / (RRF_K + (i + 1) as f64);
            entry.1 = entry.1.min(i + 1);
        }
    }
    let mut fused: Vec<(K, f64, usize)> = scores.into_iter().map(|(k, (s, best))| (k, s, best)).collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)));
    fused.into_iter().map(|(k, s, _)| (k, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement_and_breaks_ties_by_best_rank() {
        let lexical = ["a", "b", "c", "d"];
        let vector = ["c", "e", "a"];
        let fused = rrf(&[&lexical[..], &vector[..]]);
        let order: Vec<&str> = fused.iter().map(|(k, _)| *k).collect();
        // a: 1/61 + 1/63; c: 1/63 + 1/61 — equal; a wins on its best rank (1 vs 1) then key.
        assert_eq!(order, ["a", "c", "b", "e", "d"]);
        assert!((fused[0].1 - (1.0 / 61.0 + 1.0 / 63.0)).abs() < 1e-12);
        assert!((fused[2].1 - 1.0 / 62.0).abs() < 1e-12);
    }

    #[test]
    fn only_prose_columns_are_text() {
        let p = |name: &str, avg_chars: f64, with_space: f64| TextColumnProfile {
            name: name.into(),
            non_null: 10,
            avg_chars,
            with_space,
        };
        let cols = text_columns(&[
            p("subject", 38.0, 1.0),
            p("body", 180.0, 1.0),
            p("status", 6.0, 0.0),
            p("email", 21.0, 0.0),
            p("plan", 5.0, 0.0),
            p("city", 14.0, 0.6),
        ]);
        assert_eq!(cols, ["subject", "body", "city"]);
    }
}
