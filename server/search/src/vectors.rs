//! One dataset's vectors: unit-length embeddings with their row ids, searched exactly (a dot
//! product per row) or, above a size threshold, through an HNSW graph (hnsw_rs) whose
//! candidates are then rescored exactly — so both paths return true cosine similarities.
//!
//! File format (`vectors.bin`, little-endian): `AWV1`, the dimension as u32, then one record per
//! row: the row id as u64 and `dims` f32 values.

use aware_domain::{Error, Result};
use hnsw_rs::prelude::{Distance, Hnsw};
use std::io::Write;
use std::path::Path;
use std::sync::RwLock;

const MAGIC: &[u8; 4] = b"AWV1";
/// HNSW graph degree and construction effort: recall above 0.95 at k ≤ 50 on sentence embeddings.
const HNSW_M: usize = 16;
const HNSW_EF_CONSTRUCTION: usize = 100;

fn err(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("vector index: {e}"))
}

/// 1 − dot product, for unit vectors (cosine distance), clamped: rounding can make a vector's
/// dot with itself exceed 1, which hnsw_rs's own dot distance refuses.
struct CosineUnit;

impl Distance<f32> for CosineUnit {
    fn eval(&self, a: &[f32], b: &[f32]) -> f32 {
        (1.0 - dot(a, b)).clamp(0.0, 2.0)
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Appends records to a vectors file, writing its header first if the file is new.
pub(crate) fn append(path: &Path, rows: &[u64], vectors: &[Vec<f32>]) -> Result<()> {
    let dims = vectors.first().map_or(0, Vec::len);
    if vectors.iter().any(|v| v.len() != dims) || rows.len() != vectors.len() {
        return Err(err("vectors of different lengths"));
    }
    let new = !path.exists();
    let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    let mut out = std::io::BufWriter::new(file);
    if new {
        out.write_all(MAGIC)?;
        out.write_all(&(dims as u32).to_le_bytes())?;
    }
    for (row, v) in rows.iter().zip(vectors) {
        out.write_all(&row.to_le_bytes())?;
        for x in v {
            out.write_all(&x.to_le_bytes())?;
        }
    }
    out.flush()?;
    Ok(())
}

/// A dataset's vectors in memory.
pub struct Vectors {
    dims: usize,
    rows: Vec<u64>,
    data: Vec<f32>,
    ann: RwLock<Option<Hnsw<'static, f32, CosineUnit>>>,
}

impl Vectors {
    /// Reads a vectors file.
    pub fn read(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path)?;
        if bytes.len() < 8 || &bytes[..4] != MAGIC {
            return Err(err("not a vectors file"));
        }
        let dims = u32::from_le_bytes(bytes[4..8].try_into().map_err(err)?) as usize;
        let record = 8 + 4 * dims;
        if dims == 0 || (bytes.len() - 8) % record != 0 {
            return Err(err("truncated vectors file"));
        }
        let n = (bytes.len() - 8) / record;
        let mut rows = Vec::with_capacity(n);
        let mut data = Vec::with_capacity(n * dims);
        for r in bytes[8..].chunks_exact(record) {
            rows.push(u64::from_le_bytes(r[..8].try_into().map_err(err)?));
            data.extend(r[8..].chunks_exact(4).map(|f| f32::from_le_bytes([f[0], f[1], f[2], f[3]])));
        }
        Ok(Self { dims, rows, data, ann: RwLock::new(None) })
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn vector(&self, i: usize) -> &[f32] {
        &self.data[i * self.dims..(i + 1) * self.dims]
    }

    /// Builds the HNSW graph (seconds to a minute for 10⁵ vectors); searches use it from then on.
    pub fn build_ann(&self) {
        let hnsw = Hnsw::new(HNSW_M, self.len().max(1), 16, HNSW_EF_CONSTRUCTION, CosineUnit);
        let points: Vec<(&[f32], usize)> = (0..self.len()).map(|i| (self.vector(i), i)).collect();
        hnsw.parallel_insert_slice(&points);
        *self.ann.write().expect("ann lock") = Some(hnsw);
    }

    pub fn has_ann(&self) -> bool {
        self.ann.read().expect("ann lock").is_some()
    }

    /// The `k` rows nearest to `query` (unit length), with their cosine similarity, best first.
    pub fn nearest(&self, query: &[f32], k: usize) -> Result<Vec<(u64, f32)>> {
        if query.len() != self.dims {
            return Err(err(format!("a query of {} dimensions against vectors of {}", query.len(), self.dims)));
        }
        let candidates: Vec<usize> = match self.ann.read().expect("ann lock").as_ref() {
            // Ask the graph for more than k and rescore exactly.
            Some(hnsw) => hnsw.search(query, (4 * k).max(k + 16), (8 * k).max(128)).iter().map(|n| n.d_id).collect(),
            None => (0..self.len()).collect(),
        };
        let mut scored: Vec<(usize, f32)> = candidates.into_iter().map(|i| (i, dot(query, self.vector(i)))).collect();
        let k = k.min(scored.len());
        if k == 0 {
            return Ok(Vec::new());
        }
        scored.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
        scored.truncate(k);
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(scored.into_iter().map(|(i, s)| (self.rows[i], s)).collect())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A deterministic unit vector.
    fn unit(seed: u64, dims: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let v: Vec<f32> = (0..dims)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2000) as f32 / 1000.0 - 1.0
            })
            .collect();
        let n = dot(&v, &v).sqrt();
        v.into_iter().map(|a| a / n).collect()
    }

    #[test]
    fn exact_and_hnsw_agree_on_the_nearest_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        let dims = 32;
        let all: Vec<Vec<f32>> = (0..3000).map(|i| unit(i, dims)).collect();
        for chunk in (0..3000u64).collect::<Vec<_>>().chunks(700) {
            let vs: Vec<Vec<f32>> = chunk.iter().map(|&i| all[i as usize].clone()).collect();
            let rows: Vec<u64> = chunk.iter().map(|i| i + 100).collect();
            append(&path, &rows, &vs).unwrap();
        }
        let v = Vectors::read(&path).unwrap();
        assert_eq!((v.len(), v.dims()), (3000, dims));
        let query = unit(42, dims);
        let exact = v.nearest(&query, 10).unwrap();
        assert_eq!(exact[0].0, 142, "a vector is its own nearest neighbour");
        assert!((exact[0].1 - 1.0).abs() < 1e-5);
        v.build_ann();
        let approx = v.nearest(&query, 10).unwrap();
        let found = approx.iter().filter(|a| exact.contains(a)).count();
        assert!(found >= 9, "HNSW recall@10 {found}/10");
        assert!(v.nearest(&unit(1, 8), 3).is_err(), "wrong dimension");
        std::fs::write(&path, b"AWV1\x20\x00\x00\x00abc").unwrap();
        assert!(Vectors::read(&path).is_err(), "truncated file");
    }
}
