//! An OpenAI-compatible `/v1/embeddings` client behind aware-core's `Embedder` port (OpenAI,
//! Ollama, vLLM, llama.cpp's server, a metering proxy). Vectors are normalised to unit length
//! here, so every store can use dot products as cosine similarity whatever the server returns.

use async_trait::async_trait;
use aware_domain::ports::search_index::Embedder;
use aware_domain::{Error, ErrorCode, Result};
use serde_json::{Value, json};
use std::time::Duration;

/// Texts per request (servers cap the batch; 64 is within every common limit).
const BATCH: usize = 64;

/// How to reach the embeddings server.
#[derive(Clone, Debug)]
pub struct EmbeddingsConfig {
    /// Up to the version, e.g. `https://api.openai.com/v1` (`/embeddings` is appended).
    pub base_url: String,
    /// Empty when the server needs none.
    pub api_key: String,
    pub model: String,
    pub timeout: Duration,
}

pub struct OpenAiEmbeddings {
    config: EmbeddingsConfig,
    http: reqwest::Client,
}

fn failed(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::ModelError, message)
}

impl OpenAiEmbeddings {
    pub fn new(config: EmbeddingsConfig) -> Result<Self> {
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .user_agent(concat!("aware/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| failed(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self { config, http })
    }

    async fn batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let url = format!("{}/embeddings", self.config.base_url.trim_end_matches('/'));
        let mut req = self.http.post(&url).json(&json!({"model": self.config.model, "input": texts}));
        if !self.config.api_key.is_empty() {
            req = req.bearer_auth(&self.config.api_key);
        }
        let response = req.send().await.map_err(|e| failed(format!("cannot reach {url}: {e}")))?;
        let status = response.status();
        let body: Value =
            response.json().await.map_err(|e| failed(format!("{url} answered {status} with no JSON: {e}")))?;
        if !status.is_success() {
            let message = body.pointer("/error/message").and_then(Value::as_str).unwrap_or("no message");
            return Err(failed(format!("the embeddings server answered {status}: {message}")));
        }
        let data =
            body.get("data").and_then(Value::as_array).ok_or_else(|| failed("the embeddings answer has no data"))?;
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for (position, item) in data.iter().enumerate() {
            let index = item.get("index").and_then(Value::as_u64).map_or(position, |i| i as usize);
            let vector: Vec<f32> = item
                .get("embedding")
                .and_then(Value::as_array)
                .ok_or_else(|| failed("an embedding is not a list of numbers"))?
                .iter()
                .map(|x| x.as_f64().map(|f| f as f32).ok_or_else(|| failed("an embedding holds a non-number")))
                .collect::<Result<_>>()?;
            let slot = out.get_mut(index).ok_or_else(|| failed(format!("embedding index {index} is out of range")))?;
            *slot = Some(normalised(vector)?);
        }
        let dims = out.first().and_then(|v| v.as_ref().map(Vec::len));
        out.into_iter()
            .map(|v| match v {
                Some(v) if Some(v.len()) == dims => Ok(v),
                Some(_) => Err(failed("the embeddings have different lengths")),
                None => Err(failed("the embeddings answer is missing some inputs")),
            })
            .collect()
    }
}

fn normalised(v: Vec<f32>) -> Result<Vec<f32>> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if v.is_empty() || !norm.is_finite() || norm == 0.0 {
        return Err(failed("an embedding is empty, zero or not finite"));
    }
    Ok(v.into_iter().map(|x| x / norm).collect())
}

#[async_trait]
impl Embedder for OpenAiEmbeddings {
    fn model(&self) -> String {
        format!("openai:{}", self.config.model)
    }

    async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            out.extend(self.batch(chunk).await?);
        }
        Ok(out)
    }
}
