//! A BERT encoder's forward pass (all-MiniLM-L6-v2: 6 layers, 384 dimensions, 12 heads) in plain
//! Rust on `ndarray`, whose matrix products run on `matrixmultiply`'s SIMD kernels. Weights come
//! from the model's `model.safetensors`, shapes from its `config.json`.
//!
//! A batch is not padded: every per-token step (the linear layers, layer norms, GELU) runs once
//! over all the batch's tokens stacked in one matrix, and attention runs over each text's own
//! tokens — so no work goes to padding, and a text's vector does not depend on its batch.

use ndarray::{Array1, Array2, ArrayView2, Axis, Slice};
use serde::Deserialize;
use std::collections::HashMap;

/// The parts of `config.json` the forward pass needs.
#[derive(Clone, Debug, Deserialize)]
pub struct Config {
    hidden_size: usize,
    num_attention_heads: usize,
    num_hidden_layers: usize,
    intermediate_size: usize,
    layer_norm_eps: f64,
    max_position_embeddings: usize,
    hidden_act: String,
    #[serde(default = "absolute")]
    position_embedding_type: String,
}

fn absolute() -> String {
    "absolute".to_owned()
}

struct Linear {
    /// `out × in`, as stored; products use its transpose (a view, no copy).
    weight: Array2<f32>,
    bias: Array1<f32>,
}

impl Linear {
    fn forward(&self, x: &Array2<f32>) -> Array2<f32> {
        let mut y = x.dot(&self.weight.t());
        y += &self.bias;
        y
    }
}

struct LayerNorm {
    gamma: Array1<f32>,
    beta: Array1<f32>,
    eps: f32,
}

impl LayerNorm {
    fn forward(&self, mut x: Array2<f32>) -> Array2<f32> {
        let n = x.ncols() as f32;
        for mut row in x.rows_mut() {
            let mean = row.sum() / n;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
            let scale = 1.0 / (var + self.eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&self.gamma).zip(&self.beta) {
                *v = (*v - mean) * scale * g + b;
            }
        }
        x
    }
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// The encoder with its weights.
pub struct Bert {
    words: Array2<f32>,
    positions: Array2<f32>,
    token_types: Array2<f32>,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    max_positions: usize,
}

/// Tensors of a safetensors file by name (f32 only).
struct Weights(HashMap<String, (Vec<usize>, Vec<f32>)>);

#[derive(Deserialize)]
struct TensorInfo {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

impl Weights {
    /// Parses a safetensors buffer: an 8-byte header length, a JSON header, the raw data.
    fn parse(bytes: &[u8]) -> Result<Self, String> {
        let bad = |what: &str| format!("model.safetensors: {what}");
        let len = bytes.get(..8).ok_or_else(|| bad("too short"))?;
        let len = usize::try_from(u64::from_le_bytes(len.try_into().map_err(|_| bad("too short"))?))
            .map_err(|_| bad("header too long"))?;
        let header = bytes.get(8..8usize.saturating_add(len)).ok_or_else(|| bad("truncated header"))?;
        let data = &bytes[8 + len..];
        let header: HashMap<String, serde_json::Value> =
            serde_json::from_slice(header).map_err(|e| bad(&format!("header: {e}")))?;
        let mut out = HashMap::new();
        for (name, value) in header {
            if name == "__metadata__" {
                continue;
            }
            let info: TensorInfo = serde_json::from_value(value).map_err(|e| bad(&format!("{name}: {e}")))?;
            if info.dtype != "F32" {
                continue; // e.g. position_ids (I64): not a weight
            }
            let [from, to] = info.data_offsets;
            let raw = data.get(from..to).ok_or_else(|| bad(&format!("{name}: data out of range")))?;
            let values: Vec<f32> = raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            if values.len() != info.shape.iter().product::<usize>() {
                return Err(bad(&format!("{name}: shape does not match its data")));
            }
            out.insert(name, (info.shape, values));
        }
        Ok(Self(out))
    }

    fn take(&mut self, name: &str) -> Result<(Vec<usize>, Vec<f32>), String> {
        // Some exports prefix every name with the model type.
        self.0
            .remove(name)
            .or_else(|| self.0.remove(&format!("bert.{name}")))
            .ok_or_else(|| format!("model.safetensors has no {name}"))
    }

    fn matrix(&mut self, name: &str, rows: usize, cols: usize) -> Result<Array2<f32>, String> {
        let (shape, values) = self.take(name)?;
        if shape != [rows, cols] {
            return Err(format!("model.safetensors: {name} is {shape:?}, expected [{rows}, {cols}]"));
        }
        Array2::from_shape_vec((rows, cols), values).map_err(|e| e.to_string())
    }

    fn vector(&mut self, name: &str, len: usize) -> Result<Array1<f32>, String> {
        let (shape, values) = self.take(name)?;
        if shape != [len] {
            return Err(format!("model.safetensors: {name} is {shape:?}, expected [{len}]"));
        }
        Ok(Array1::from_vec(values))
    }

    fn linear(&mut self, name: &str, inputs: usize, outputs: usize) -> Result<Linear, String> {
        Ok(Linear {
            weight: self.matrix(&format!("{name}.weight"), outputs, inputs)?,
            bias: self.vector(&format!("{name}.bias"), outputs)?,
        })
    }

    fn norm(&mut self, name: &str, len: usize, eps: f32) -> Result<LayerNorm, String> {
        Ok(LayerNorm {
            gamma: self.vector(&format!("{name}.weight"), len)?,
            beta: self.vector(&format!("{name}.bias"), len)?,
            eps,
        })
    }
}

impl Bert {
    /// The encoder of `config` with the weights in `safetensors` (the file's bytes).
    pub fn load(config: &Config, safetensors: &[u8]) -> Result<Self, String> {
        if config.hidden_act != "gelu" || config.position_embedding_type != "absolute" {
            return Err(format!(
                "config.json: {} activation with {} positions is not supported (gelu, absolute)",
                config.hidden_act, config.position_embedding_type
            ));
        }
        let (h, inter) = (config.hidden_size, config.intermediate_size);
        if config.num_attention_heads == 0 || h % config.num_attention_heads != 0 {
            return Err("config.json: hidden_size is not a multiple of num_attention_heads".to_owned());
        }
        let eps = config.layer_norm_eps as f32;
        let mut w = Weights::parse(safetensors)?;
        let (words_shape, words) = w.take("embeddings.word_embeddings.weight")?;
        if words_shape.len() != 2 || words_shape[1] != h {
            return Err(format!("model.safetensors: word embeddings are {words_shape:?}"));
        }
        let words = Array2::from_shape_vec((words_shape[0], h), words).map_err(|e| e.to_string())?;
        let positions = w.matrix("embeddings.position_embeddings.weight", config.max_position_embeddings, h)?;
        let (types_shape, types) = w.take("embeddings.token_type_embeddings.weight")?;
        let token_types = Array2::from_shape_vec((types_shape.first().copied().unwrap_or(0), h), types)
            .map_err(|e| format!("model.safetensors: token type embeddings: {e}"))?;
        let embedding_norm = w.norm("embeddings.LayerNorm", h, eps)?;
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let p = format!("encoder.layer.{i}");
                Ok(Layer {
                    query: w.linear(&format!("{p}.attention.self.query"), h, h)?,
                    key: w.linear(&format!("{p}.attention.self.key"), h, h)?,
                    value: w.linear(&format!("{p}.attention.self.value"), h, h)?,
                    attention_out: w.linear(&format!("{p}.attention.output.dense"), h, h)?,
                    attention_norm: w.norm(&format!("{p}.attention.output.LayerNorm"), h, eps)?,
                    intermediate: w.linear(&format!("{p}.intermediate.dense"), h, inter)?,
                    output: w.linear(&format!("{p}.output.dense"), inter, h)?,
                    output_norm: w.norm(&format!("{p}.output.LayerNorm"), h, eps)?,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Self {
            words,
            positions,
            token_types,
            embedding_norm,
            layers,
            heads: config.num_attention_heads,
            max_positions: config.max_position_embeddings,
        })
    }

    /// The most tokens one text may have.
    pub fn max_positions(&self) -> usize {
        self.max_positions
    }

    /// One vector per text (its token ids): the mean of its last hidden states, unit length.
    pub fn embed(&self, texts: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, String> {
        let hidden = self.words.ncols();
        let total: usize = texts.iter().map(Vec::len).sum();
        let mut x = Array2::<f32>::zeros((total, hidden));
        let mut row = 0;
        for ids in texts {
            if ids.is_empty() || ids.len() > self.max_positions {
                return Err(format!("a text of {} tokens (1 to {} allowed)", ids.len(), self.max_positions));
            }
            for (position, &id) in ids.iter().enumerate() {
                let id = usize::try_from(id).unwrap_or(usize::MAX);
                if id >= self.words.nrows() {
                    return Err(format!("token id {id} is outside the vocabulary"));
                }
                let word = self.words.row(id);
                let mut out = x.row_mut(row);
                out.assign(&word);
                out += &self.positions.row(position);
                out += &self.token_types.row(0);
                row += 1;
            }
        }
        let mut x = self.embedding_norm.forward(x);
        let lengths: Vec<usize> = texts.iter().map(Vec::len).collect();
        for layer in &self.layers {
            x = self.layer(layer, x, &lengths);
        }
        let mut out = Vec::with_capacity(texts.len());
        let mut from = 0;
        for len in lengths {
            let rows = x.slice_axis(Axis(0), Slice::from(from..from + len));
            let mean = rows.mean_axis(Axis(0)).unwrap_or_else(|| Array1::zeros(hidden));
            let norm = mean.dot(&mean).sqrt().max(1e-12);
            out.push(mean.iter().map(|v| v / norm).collect());
            from += len;
        }
        Ok(out)
    }

    fn layer(&self, layer: &Layer, x: Array2<f32>, lengths: &[usize]) -> Array2<f32> {
        let (q, k, v) = (layer.query.forward(&x), layer.key.forward(&x), layer.value.forward(&x));
        let head = x.ncols() / self.heads;
        let scale = 1.0 / (head as f32).sqrt();
        let mut context = Array2::<f32>::zeros(x.raw_dim());
        let mut from = 0;
        for &len in lengths {
            let rows = Slice::from(from..from + len);
            for h in 0..self.heads {
                let cols = Slice::from(h * head..(h + 1) * head);
                let mut scores = block(q.view(), rows, cols).dot(&block(k.view(), rows, cols).t());
                scores *= scale;
                softmax_rows(&mut scores);
                let out = scores.dot(&block(v.view(), rows, cols));
                context.view_mut().slice_axis_move(Axis(0), rows).slice_axis_move(Axis(1), cols).assign(&out);
            }
            from += len;
        }
        let mut attended = layer.attention_out.forward(&context);
        attended += &x;
        let attended = layer.attention_norm.forward(attended);
        let mut inner = layer.intermediate.forward(&attended);
        inner.mapv_inplace(gelu);
        let mut out = layer.output.forward(&inner);
        out += &attended;
        layer.output_norm.forward(out)
    }
}

/// The rows and columns of `m` in those ranges.
fn block(m: ArrayView2<'_, f32>, rows: Slice, cols: Slice) -> ArrayView2<'_, f32> {
    m.slice_axis_move(Axis(0), rows).slice_axis_move(Axis(1), cols)
}

fn softmax_rows(m: &mut Array2<f32>) {
    for mut row in m.rows_mut() {
        let max = row.fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        row.mapv_inplace(|v| (v - max).exp());
        let sum = row.sum();
        row /= sum;
    }
}

/// GELU with the error function (BERT's `gelu`, not the tanh approximation).
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x / std::f32::consts::SQRT_2))
}

/// The error function by Abramowitz and Stegun's formula 7.1.26 (absolute error 1.5·10⁻⁷, under
/// 5·10⁻⁷ in f32 arithmetic): one `exp` and a polynomial, where `libm::erff` took a sixth of an
/// embedding's CPU time.
fn erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [0.254_829_6, -0.284_496_74, 1.421_413_7, -1.453_152, 1.061_405_4];
    let z = x.abs();
    let t = 1.0 / (1.0 + P * z);
    let poly = t * (A[0] + t * (A[1] + t * (A[2] + t * (A[3] + t * A[4]))));
    (1.0 - poly * (-z * z).exp()).copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_norm_softmax_and_gelu_are_the_textbook_ones() {
        let norm =
            LayerNorm { gamma: Array1::from_vec(vec![1.0, 2.0]), beta: Array1::from_vec(vec![0.0, 1.0]), eps: 0.0 };
        let out = norm.forward(Array2::from_shape_vec((1, 2), vec![1.0, 3.0]).unwrap_or_default());
        assert_eq!(out.row(0).to_vec(), [-1.0, 3.0]);
        let mut m = Array2::from_shape_vec((1, 3), vec![0.0, 0.0, f32::ln(2.0)]).unwrap_or_default();
        softmax_rows(&mut m);
        assert!((m[[0, 2]] - 0.5).abs() < 1e-6 && (m[[0, 0]] - 0.25).abs() < 1e-6);
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6 && gelu(-10.0).abs() < 1e-6);
    }

    #[test]
    fn erf_matches_the_exact_function() {
        let worst = (-6000..=6000)
            .map(|i| i as f32 / 1000.0)
            .map(|x| (erf(x) - libm::erf(f64::from(x)) as f32).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 5e-7, "largest error {worst}");
        assert!(erf(0.0).abs() < 1e-7);
        assert_eq!(erf(-2.0), -erf(2.0));
    }

    #[test]
    fn a_malformed_weights_file_is_refused() {
        assert!(Weights::parse(b"").is_err());
        assert!(Weights::parse(&[255, 255, 255, 255, 255, 255, 255, 127]).is_err());
        let mut file = br#"{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}"#.to_vec();
        let mut bytes = (file.len() as u64).to_le_bytes().to_vec();
        bytes.append(&mut file);
        bytes.extend(1.0f32.to_le_bytes());
        assert!(Weights::parse(&bytes).err().is_some_and(|e| e.contains("shape")));
    }
}
