//! [`DiskStore`]: the search indexes of every dataset under one folder, one folder a dataset:
//!
//! ```text
//! <root>/<dataset id>/meta.json     what was indexed (aware_domain::ports::search_index::IndexMeta)
//! <root>/<dataset id>/lexical/      the tantivy index
//! <root>/<dataset id>/vectors.part  vectors being written (a cut-off build leaves only this)
//! <root>/<dataset id>/vectors.bin   all vectors, once sealed
//! ```
//!
//! A build writes a fresh folder beside the old one and renames it into place, so a crash never
//! leaves a half-written index that looks whole. Open indexes are cached; vectors above the
//! HNSW threshold get their graph built off the request path.

use crate::lexical::{self, Lexical};
use crate::vectors::{self, Vectors};
use async_trait::async_trait;
use aware_domain::ids::DatasetId;
use aware_domain::ports::search_index::{IndexMeta, LexicalMatch, SearchStore, StoredHit, TextDoc, VectorMeta};
use aware_domain::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// An opened dataset index.
struct Open {
    lexical: Lexical,
    vectors: Option<Arc<Vectors>>,
}

/// A build folder untouched this long was cut off (no build takes nearly as long).
const ABANDONED_BUILD: std::time::Duration = std::time::Duration::from_secs(3_600);

/// Search indexes on disk.
#[derive(Clone)]
pub struct DiskStore {
    root: PathBuf,
    /// Vectors above this count are searched through HNSW; at or below it, exactly.
    hnsw_threshold: usize,
    open: Arc<Mutex<HashMap<DatasetId, Arc<Open>>>>,
}

fn meta_path(dir: &Path) -> PathBuf {
    dir.join("meta.json")
}

fn read_meta(dir: &Path) -> Result<Option<IndexMeta>> {
    match std::fs::read(meta_path(dir)) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(Error::internal),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Writes `meta.json` so that a reader sees the old or the new one, never half of one.
fn write_meta(dir: &Path, meta: &IndexMeta) -> Result<()> {
    let tmp = dir.join("meta.json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(meta).map_err(Error::internal)?)?;
    std::fs::rename(&tmp, meta_path(dir))?;
    Ok(())
}

impl DiskStore {
    pub fn new(root: PathBuf, hnsw_threshold: usize) -> Result<Self> {
        std::fs::create_dir_all(&root)?;
        // Builds cut off by a crash. Only old ones: the data dir may be shared with replicas
        // that are building right now.
        let old = |entry: &std::fs::DirEntry| {
            let modified = entry.metadata().and_then(|m| m.modified()).ok();
            modified.and_then(|m| m.elapsed().ok()).is_none_or(|age| age > ABANDONED_BUILD)
        };
        for entry in std::fs::read_dir(&root)?.flatten() {
            if entry.file_name().to_string_lossy().starts_with(".build-") && old(&entry) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        Ok(Self { root, hnsw_threshold, open: Arc::default() })
    }

    fn dir(&self, dataset: &DatasetId) -> PathBuf {
        self.root.join(dataset.as_str())
    }

    async fn blocking<T: Send + 'static>(&self, f: impl FnOnce(&DiskStore) -> Result<T> + Send + 'static) -> Result<T> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || f(&this)).await.map_err(Error::internal)?
    }

    /// The dataset's open index, opening it (and its vectors) on first use.
    fn opened(&self, dataset: &DatasetId) -> Result<Arc<Open>> {
        if let Some(open) = self.open.lock().expect("open lock").get(dataset) {
            return Ok(open.clone());
        }
        let dir = self.dir(dataset);
        let meta = read_meta(&dir)?.ok_or_else(|| Error::not_found("search index", dataset))?;
        let lexical = Lexical::open(&dir.join("lexical"), &meta.columns)?;
        let vectors = match &meta.vectors {
            Some(_) => Some(self.load_vectors(&dir.join("vectors.bin"))?),
            None => None,
        };
        let open = Arc::new(Open { lexical, vectors });
        self.open.lock().expect("open lock").insert(dataset.clone(), open.clone());
        Ok(open)
    }

    /// Reads vectors; above the threshold, their graph is built on its own thread while exact
    /// search answers meanwhile.
    fn load_vectors(&self, path: &Path) -> Result<Arc<Vectors>> {
        let v = Arc::new(Vectors::read(path)?);
        if v.len() > self.hnsw_threshold {
            let building = v.clone();
            std::thread::spawn(move || building.build_ann());
        }
        Ok(v)
    }
}

#[async_trait]
impl SearchStore for DiskStore {
    async fn build(&self, meta: &IndexMeta, docs: Vec<TextDoc>) -> Result<()> {
        let meta = meta.clone();
        self.blocking(move |store| {
            let dir = store.dir(&meta.dataset_id);
            let tmp = store.root.join(format!(".build-{}", uuid::Uuid::now_v7().simple()));
            std::fs::create_dir_all(tmp.join("lexical"))?;
            let built = lexical::build(&tmp.join("lexical"), meta.columns.len(), &docs)
                .and_then(|()| write_meta(&tmp, &IndexMeta { vectors: None, ..meta.clone() }));
            if let Err(e) = built {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(e);
            }
            store.open.lock().expect("open lock").remove(&meta.dataset_id);
            if dir.exists() {
                std::fs::remove_dir_all(&dir)?;
            }
            std::fs::rename(&tmp, &dir)?;
            Ok(())
        })
        .await
    }

    async fn clear_vectors(&self, dataset: &DatasetId) -> Result<()> {
        let dataset = dataset.clone();
        self.blocking(move |store| {
            let dir = store.dir(&dataset);
            for file in ["vectors.part", "vectors.bin"] {
                match std::fs::remove_file(dir.join(file)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
                    _ => {}
                }
            }
            let mut meta = read_meta(&dir)?.ok_or_else(|| Error::not_found("search index", &dataset))?;
            if meta.vectors.take().is_some() {
                write_meta(&dir, &meta)?;
            }
            store.open.lock().expect("open lock").remove(&dataset);
            Ok(())
        })
        .await
    }

    async fn add_vectors(&self, dataset: &DatasetId, rows: Vec<u64>, vectors: Vec<Vec<f32>>) -> Result<()> {
        let dataset = dataset.clone();
        self.blocking(move |store| vectors::append(&store.dir(&dataset).join("vectors.part"), &rows, &vectors)).await
    }

    async fn seal_vectors(&self, dataset: &DatasetId, model: &str) -> Result<VectorMeta> {
        let (dataset, model) = (dataset.clone(), model.to_owned());
        self.blocking(move |store| {
            let dir = store.dir(&dataset);
            let part = dir.join("vectors.part");
            if !part.exists() {
                // Nothing had text to embed: an empty, valid file.
                vectors::append(&part, &[], &[])?;
            }
            let v = Vectors::read(&part)?;
            let index = if v.len() > store.hnsw_threshold { "hnsw" } else { "exact" };
            if index == "hnsw" {
                v.build_ann();
            }
            std::fs::rename(&part, dir.join("vectors.bin"))?;
            let mut meta = read_meta(&dir)?.ok_or_else(|| Error::not_found("search index", &dataset))?;
            let sealed = VectorMeta { model, dims: v.dims(), rows: v.len() as u64, index: index.to_owned() };
            meta.vectors = Some(sealed.clone());
            write_meta(&dir, &meta)?;
            let lexical = Lexical::open(&dir.join("lexical"), &meta.columns)?;
            let open = Arc::new(Open { lexical, vectors: Some(Arc::new(v)) });
            store.open.lock().expect("open lock").insert(dataset, open);
            Ok(sealed)
        })
        .await
    }

    async fn lexical(&self, dataset: &DatasetId, query: &str, k: usize) -> Result<Vec<LexicalMatch>> {
        let (dataset, query) = (dataset.clone(), query.to_owned());
        self.blocking(move |store| store.opened(&dataset)?.lexical.search(&query, k)).await
    }

    async fn nearest(&self, dataset: &DatasetId, vector: &[f32], k: usize) -> Result<Vec<(u64, f32)>> {
        let (dataset, vector) = (dataset.clone(), vector.to_vec());
        self.blocking(move |store| match &store.opened(&dataset)?.vectors {
            Some(v) => v.nearest(&vector, k),
            None => Ok(Vec::new()),
        })
        .await
    }

    async fn hits(&self, dataset: &DatasetId, query: &str, rows: &[u64]) -> Result<Vec<StoredHit>> {
        let (dataset, query, rows) = (dataset.clone(), query.to_owned(), rows.to_vec());
        self.blocking(move |store| store.opened(&dataset)?.lexical.hits(&query, &rows)).await
    }

    async fn load(&self, dataset: &DatasetId) -> Result<Option<IndexMeta>> {
        let dataset = dataset.clone();
        self.blocking(move |store| {
            // What is stored now replaces what this process had open (another replica may have
            // rebuilt it in the shared data dir).
            store.open.lock().expect("open lock").remove(&dataset);
            let dir = store.dir(&dataset);
            let Some(mut meta) = read_meta(&dir)? else { return Ok(None) };
            if meta.vectors.is_some() && !dir.join("vectors.bin").exists() {
                meta.vectors = None;
            }
            Ok(Some(meta))
        })
        .await
    }

    async fn remove(&self, dataset: &DatasetId) -> Result<()> {
        let dataset = dataset.clone();
        self.blocking(move |store| {
            store.open.lock().expect("open lock").remove(&dataset);
            match std::fs::remove_dir_all(store.dir(&dataset)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
                _ => Ok(()),
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn an_index_survives_reopening_and_vectors_seal_into_it() {
        let dir = tempfile::tempdir().unwrap();
        let id = DatasetId::generate();
        let meta = IndexMeta {
            dataset_id: id.clone(),
            version_hash: "h1".into(),
            columns: vec!["body".into()],
            rows: 2,
            vectors: None,
        };
        let docs = vec![
            TextDoc { row_id: 0, fields: vec!["password reset mail never arrives".into()] },
            TextDoc { row_id: 1, fields: vec!["charged twice this month".into()] },
        ];
        let store = DiskStore::new(dir.path().to_owned(), 10).unwrap();
        store.build(&meta, docs).await.unwrap();
        assert_eq!(store.lexical(&id, "password", 5).await.unwrap()[0].row_id, 0);
        assert!(store.nearest(&id, &[1.0, 0.0], 5).await.unwrap().is_empty(), "no vectors yet");
        store.add_vectors(&id, vec![0], vec![vec![1.0, 0.0]]).await.unwrap();
        store.add_vectors(&id, vec![1], vec![vec![0.0, 1.0]]).await.unwrap();
        let sealed = store.seal_vectors(&id, "m").await.unwrap();
        assert_eq!((sealed.rows, sealed.dims, sealed.index.as_str()), (2, 2, "exact"));

        let reopened = DiskStore::new(dir.path().to_owned(), 10).unwrap();
        let loaded = reopened.load(&id).await.unwrap().unwrap();
        assert_eq!(loaded.vectors.unwrap().model, "m");
        assert_eq!(reopened.nearest(&id, &[0.0, 1.0], 1).await.unwrap(), [(1, 1.0)]);
        let hits = reopened.hits(&id, "twice", &[1]).await.unwrap();
        assert_eq!(hits[0].snippet, "charged <mark>twice</mark> this month");
        reopened.remove(&id).await.unwrap();
        assert!(reopened.load(&id).await.unwrap().is_none());
    }
}
