//! Search over the text in datasets (`search_datasets`, `DatasetsService.SearchDatasets`).
//!
//! At ingestion each dataset's prose-like text columns are indexed: a lexical index always
//! (BM25), and dense vectors when an [`Embedder`] is configured. Vectors take longest, so they
//! are built by one background worker after the lexical index is already searchable; the
//! status of each dataset's index is kept here and shown in `GetDataset` and the system status.
//!
//! A query runs lexically and (when vectors exist) by meaning over the caller's datasets; the two
//! ranked lists are fused with reciprocal-rank fusion (RRF), which needs no score calibration
//! between BM25 and cosine similarity. The storage of indexes (tantivy, vector files, HNSW) is
//! behind the [`SearchStore`] port; this module owns the rules.

use aware_domain::auth::{Caller, Capability};
use aware_domain::dataset::{Dataset, DatasetStatus};
use aware_domain::error::{Error, ErrorCode, Result};
use aware_domain::ids::DatasetId;
use aware_domain::knowledge::{self, KnowledgeChunk, KnowledgeResults};
use aware_domain::ports::search_index::{Embedder, IndexMeta, LexicalMatch, SearchStore, TextDoc};
use aware_domain::ports::{Catalog, DatasetEngine, Users};
use aware_domain::search::{
    DEFAULT_LIMIT, IndexState, IndexStatus, MAX_LIMIT, MAX_QUERY_CHARS, PASSAGE_COVERAGE, PASSAGE_SIMILARITY,
    SearchConfig, SearchHit, SearchMode, SearchResults, lead, rrf, text_columns,
};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{Semaphore, mpsc};

/// Candidates taken from each ranker before fusion.
const CANDIDATES: usize = 50;
/// The share of a query's words (weighted by rarity) a lexical hit must hold to count in
/// hybrid fusion: the whole query, give or take a minor word of a long one. Measured on
/// `tests/search-eval` (see the search bench): partial lexical matches in the fusion cost
/// paraphrase queries 0.67 → 0.49 nDCG@10; full matches lift keyword queries 0.78 → 0.83.
const FULL_COVERAGE: f32 = 0.8;
/// Texts embedded per call of the background worker: small enough that a query's own embedding
/// never waits long behind it.
const EMBED_BATCH: usize = 32;

/// The search service. Cheap to clone.
#[derive(Clone)]
pub struct SearchService {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn SearchStore>,
    embedder: Option<Arc<dyn Embedder>>,
    engine: Arc<dyn DatasetEngine>,
    catalog: Arc<dyn Catalog>,
    config: SearchConfig,
    status: Mutex<HashMap<DatasetId, IndexStatus>>,
    /// One lexical build at a time (each holds a writer's memory budget).
    builds: Semaphore,
    /// Datasets whose vectors are to be built, in order, by the one embedding worker.
    embed_queue: mpsc::UnboundedSender<(Dataset, Vec<TextDoc>)>,
}

type Key = (DatasetId, u64);

impl SearchService {
    /// Starts the service and its embedding worker (when there is an embedder).
    pub fn new(
        store: Arc<dyn SearchStore>,
        embedder: Option<Arc<dyn Embedder>>,
        engine: Arc<dyn DatasetEngine>,
        catalog: Arc<dyn Catalog>,
        config: SearchConfig,
    ) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let inner = Arc::new(Inner {
            store,
            embedder,
            engine,
            catalog,
            config,
            status: Mutex::new(HashMap::new()),
            builds: Semaphore::new(1),
            embed_queue: tx,
        });
        if inner.embedder.is_some() {
            tokio::spawn(embed_worker(Arc::downgrade(&inner), rx));
        }
        Self { inner }
    }

    /// The embedder, when vectors are on.
    pub fn embedder(&self) -> Option<Arc<dyn Embedder>> {
        self.inner.embedder.clone()
    }

    /// The embedding model's name, when vectors are on.
    pub fn model(&self) -> Option<String> {
        self.inner.embedder.as_ref().map(|e| e.model())
    }

    /// After a start: every ready dataset's index is loaded from disk when it matches the
    /// dataset's content, or rebuilt in the background.
    pub async fn resume(&self, users: &dyn Users) -> Result<()> {
        for user in users.list_users().await? {
            for d in self.inner.catalog.list(&user.id, Some(DatasetStatus::Ready)).await? {
                match self.inner.store.load(&d.id).await {
                    Ok(Some(meta)) if meta.version_hash == d.version_hash => self.restore(d, meta),
                    Ok(_) => self.index(d),
                    Err(e) => {
                        tracing::warn!(dataset = %d.id, error = %e, "search index unreadable; rebuilding");
                        self.index(d);
                    }
                }
            }
        }
        Ok(())
    }

    fn restore(&self, d: Dataset, meta: IndexMeta) {
        let status = self.stored_status(&d, &meta);
        let needs_vectors = status.state == IndexState::Embedding;
        self.set(&d.id, status);
        if needs_vectors {
            // Vectors were cut off (or made by another model): make them again from the data.
            let this = self.clone();
            tokio::spawn(async move {
                match this.read_docs(&d, &meta.columns).await {
                    Ok(docs) => {
                        let _ = this.inner.embed_queue.send((d, docs));
                    }
                    Err(e) => this.fail(&d.id, &e),
                }
            });
        }
    }

    /// The status of `d`'s index as stored (`meta`, of `d`'s content); `Embedding` when this
    /// process's model has no complete vectors in it.
    fn stored_status(&self, d: &Dataset, meta: &IndexMeta) -> IndexStatus {
        let model = self.model();
        let vectors_current = meta.vectors.as_ref().filter(|v| Some(&v.model) == model.as_ref());
        let mut status = IndexStatus::new(
            match (&model, vectors_current) {
                (_, _) if meta.columns.is_empty() => IndexState::NoText,
                (None, _) => IndexState::Lexical,
                (Some(_), Some(_)) => IndexState::Ready,
                (Some(_), None) => IndexState::Embedding,
            },
            &d.version_hash,
        );
        status.text_columns = meta.columns.clone();
        status.rows = meta.rows;
        if let Some(v) = vectors_current {
            status.vector_rows = v.rows;
            status.model = v.model.clone();
            status.vector_index = v.index.clone();
        }
        status
    }

    /// The index of `d` that another replica built in the shared data dir (a dataset ingested or
    /// refreshed there after this one started), taken as stored when it is of `d`'s content.
    /// Vectors still being made there are left to that replica: until they are sealed, this one
    /// searches the words. `None`: no index of this content is stored yet.
    async fn adopt(&self, d: &Dataset) -> Option<IndexStatus> {
        let meta = self.inner.store.load(&d.id).await.ok()??;
        if meta.version_hash != d.version_hash {
            return None;
        }
        let mut status = self.stored_status(d, &meta);
        if status.state == IndexState::Embedding {
            status.state = IndexState::Lexical;
        }
        self.set(&d.id, status.clone());
        Some(status)
    }

    /// A dataset became ready: index it in the background.
    pub fn index(&self, dataset: Dataset) {
        self.set(&dataset.id, IndexStatus::new(IndexState::Indexing, &dataset.version_hash));
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this.build(&dataset).await {
                tracing::warn!(dataset = %dataset.id, error = %e, internal = ?e.internal, "search indexing failed");
                this.fail(&dataset.id, &e);
            }
        });
    }

    /// A dataset was deleted: its index goes too (and its vectors stop being built).
    pub async fn forget(&self, dataset: &DatasetId) {
        self.inner.status.lock().expect("status lock").remove(dataset);
        if let Err(e) = self.inner.store.remove(dataset).await {
            tracing::warn!(dataset = %dataset, error = %e, "search index could not be removed");
        }
    }

    /// The index status of a dataset (`None` for one that is not ready, or unknown).
    pub fn status(&self, dataset: &DatasetId) -> Option<IndexStatus> {
        self.inner.status.lock().expect("status lock").get(dataset).cloned()
    }

    /// Counts of datasets by index state, for the system status.
    pub fn summary(&self) -> Vec<(IndexState, usize)> {
        let status = self.inner.status.lock().expect("status lock");
        let mut counts: Vec<(IndexState, usize)> = Vec::new();
        for s in status.values() {
            match counts.iter_mut().find(|(state, _)| *state == s.state) {
                Some((_, n)) => *n += 1,
                None => counts.push((s.state, 1)),
            }
        }
        counts.sort_by_key(|(s, _)| s.as_str());
        counts
    }

    fn set(&self, id: &DatasetId, status: IndexStatus) {
        self.inner.status.lock().expect("status lock").insert(id.clone(), status);
    }

    /// Changes a dataset's status if it is still known (not deleted meanwhile).
    fn update(&self, id: &DatasetId, f: impl FnOnce(&mut IndexStatus)) -> bool {
        match self.inner.status.lock().expect("status lock").get_mut(id) {
            Some(s) => {
                f(s);
                true
            }
            None => false,
        }
    }

    /// Whether `d`'s content is still what its index is of: `None` once the dataset is gone,
    /// `Some(false)` when a refresh replaced it.
    fn is_current(&self, d: &Dataset) -> Option<bool> {
        self.status(&d.id).map(|s| s.version_hash == d.version_hash)
    }

    fn fail(&self, id: &DatasetId, e: &Error) {
        let message =
            if e.code == ErrorCode::Internal { "the index could not be built".to_owned() } else { e.message.clone() };
        self.update(id, |s| {
            s.state = IndexState::Failed;
            s.error = Some(message);
        });
    }

    async fn read_docs(&self, d: &Dataset, columns: &[String]) -> Result<Vec<TextDoc>> {
        self.inner.engine.text_rows(d, columns, self.inner.config.max_rows).await
    }

    async fn build(&self, d: &Dataset) -> Result<()> {
        let _slot = self.inner.builds.acquire().await.map_err(Error::internal)?;
        // A document's passages are indexed by their fixed columns, whatever they read like.
        let columns = if d.format.is_document() {
            knowledge::INDEXED_COLUMNS.map(str::to_owned).to_vec()
        } else {
            text_columns(&self.inner.engine.text_profile(d).await?)
        };
        let docs = if columns.is_empty() { Vec::new() } else { self.read_docs(d, &columns).await? };
        let meta = IndexMeta {
            dataset_id: d.id.clone(),
            version_hash: d.version_hash.clone(),
            columns: columns.clone(),
            rows: docs.len() as u64,
            vectors: None,
        };
        self.inner.store.build(&meta, docs.clone()).await?;
        let state = match (&self.inner.embedder, columns.is_empty()) {
            (_, true) => IndexState::NoText,
            (None, false) => IndexState::Lexical,
            (Some(_), false) => IndexState::Embedding,
        };
        let known = self.update(&d.id, |s| {
            if s.version_hash != d.version_hash {
                return; // a refresh is indexing newer content: its build says how it went
            }
            s.state = state;
            s.text_columns = columns;
            s.rows = meta.rows;
        });
        if !known {
            // Deleted while it was being indexed.
            self.inner.store.remove(&d.id).await?;
        } else if state == IndexState::Embedding && self.is_current(d) == Some(true) {
            let _ = self.inner.embed_queue.send((d.clone(), docs));
        }
        Ok(())
    }

    /// Searches the text of the caller's tables (or the one `dataset` names: id, table name or
    /// file name). Documents are not rows to list: their passages are retrieved with
    /// [`Self::knowledge`].
    pub async fn search(
        &self,
        caller: &Caller,
        query: &str,
        dataset: Option<&str>,
        limit: u32,
        mode: SearchMode,
    ) -> Result<SearchResults> {
        let (query, limit) = checked(caller, query, limit, DEFAULT_LIMIT, MAX_LIMIT)?;
        let mut datasets = self.inner.catalog.list(&caller.principal.user_id, Some(DatasetStatus::Ready)).await?;
        if let Some(wanted) = dataset.map(str::trim).filter(|w| !w.is_empty()) {
            datasets.retain(|d| {
                d.id.as_str() == wanted
                    || d.table_name.eq_ignore_ascii_case(wanted)
                    || d.name.eq_ignore_ascii_case(wanted)
            });
            if datasets.is_empty() {
                return Err(Error::not_found("dataset", wanted).with_field("dataset_id"));
            }
            if datasets.iter().all(|d| d.format.is_document()) {
                return Err(Error::validation(
                    "dataset_id",
                    format!("{wanted} is a document: its passages are searched with search_knowledge"),
                ));
            }
        }
        datasets.retain(|d| !d.format.is_document());
        let mut notes = Vec::new();
        let found = self.find(query, datasets, mode, &mut notes).await?;
        // Rows that say exactly the same (templated tickets, repeated log lines) fold into one
        // hit, so a page shows different texts.
        let mut folded: Vec<(u64, SearchHit)> = Vec::with_capacity(limit as usize);
        for f in found.hits {
            if let Some((_, first)) =
                folded.iter_mut().find(|(fp, h)| *fp == f.fingerprint && h.dataset_id == f.hit.dataset_id)
            {
                first.same_text_rows += 1;
            } else if folded.len() < limit as usize {
                folded.push((f.fingerprint, f.hit));
            }
        }
        Ok(SearchResults {
            query: query.to_owned(),
            mode: found.mode,
            hits: folded.into_iter().map(|(_, h)| h).collect(),
            datasets_searched: found.searched,
            note: notes.join("; "),
        })
    }

    /// Retrieves the passages of the caller's documents that hold the query's words (at least
    /// [`PASSAGE_COVERAGE`] of them by rarity) or are close to it in meaning (cosine similarity
    /// [`PASSAGE_SIMILARITY`] or more), best first. Nothing relevant retrieves nothing: the
    /// documents do not cover the question, and the assistant must say so.
    pub async fn knowledge(&self, caller: &Caller, query: &str, limit: u32) -> Result<KnowledgeResults> {
        let (query, limit) = checked(caller, query, limit, knowledge::DEFAULT_CHUNKS, knowledge::MAX_CHUNKS)?;
        let mut documents = self.inner.catalog.list(&caller.principal.user_id, Some(DatasetStatus::Ready)).await?;
        documents.retain(|d| d.format.is_document());
        let mut notes = Vec::new();
        let found = self.find(query, documents, SearchMode::Hybrid, &mut notes).await?;
        let chunk_of = |hit: &SearchHit, fields: &[String], snippet: String| {
            let field = |i: usize| fields.get(i).cloned().unwrap_or_default();
            KnowledgeChunk {
                chunk_id: knowledge::chunk_id(&hit.table_name, hit.row_id),
                dataset_id: hit.dataset_id.to_string(),
                title: field(2),
                heading: field(1),
                snippet,
                document_name: hit.dataset_name.clone(),
                text: field(0),
                score: hit.score,
            }
        };
        let mut chunks: Vec<KnowledgeChunk> = Vec::new();
        for f in found.hits.into_iter().filter(|f| f.relevant).take(limit as usize) {
            let text = f.fields.first().cloned().unwrap_or_default();
            // The passage's own words, even when its heading held more of the query's.
            let snippet =
                if f.hit.column == knowledge::INDEXED_COLUMNS[0] { f.hit.snippet.clone() } else { lead(&text) };
            let hit = chunk_of(&f.hit, &f.fields, snippet);
            if chunks.iter().any(|c| c.chunk_id == hit.chunk_id) {
                continue;
            }
            // The rest of its section: a rule is often a sentence or two before or after the
            // passage that matched, and an answer quotes the section, not half of it.
            let section = self.section(&f.hit, &hit.heading).await?;
            let at = chunks.len();
            chunks.push(hit);
            for (row, fields) in section {
                let neighbour = SearchHit { row_id: row, score: f.hit.score, ..f.hit.clone() };
                let c = chunk_of(&neighbour, &fields, lead(fields.first().map_or("", String::as_str)));
                if !chunks.iter().any(|k| k.chunk_id == c.chunk_id) {
                    chunks.insert(if row < f.hit.row_id { at } else { chunks.len() }, c);
                }
            }
        }
        Ok(KnowledgeResults {
            query: query.to_owned(),
            chunks,
            documents_searched: found.searched,
            note: notes.join("; "),
            mode: found.mode.as_str().to_owned(),
        })
    }

    /// The passages around `hit` under the same heading (at most [`knowledge::SECTION_SPAN`]
    /// each way, stopping at the first of another heading), nearest first: (row, fields).
    async fn section(&self, hit: &SearchHit, heading: &str) -> Result<Vec<(u64, Vec<String>)>> {
        let span = knowledge::SECTION_SPAN;
        let rows: Vec<u64> =
            (hit.row_id.saturating_sub(span)..=hit.row_id + span).filter(|r| *r != hit.row_id).collect();
        let stored = self.inner.store.hits(&hit.dataset_id, heading, &rows).await?;
        let same =
            |r: u64| stored.iter().find(|s| s.row_id == r && s.fields.get(1).map(String::as_str) == Some(heading));
        let mut out = Vec::new();
        for way in [-1i64, 1] {
            for k in 1..=span as i64 {
                let Some(r) = u64::try_from(hit.row_id as i64 + way * k).ok() else { break };
                match same(r) {
                    Some(s) => out.push((r, s.fields.clone())),
                    None => break,
                }
            }
        }
        Ok(out)
    }

    /// The datasets whose index can be searched now, with their index's status; a note for
    /// each that cannot (changed since indexed here, still indexing, failed).
    async fn searchable(&self, datasets: Vec<Dataset>, notes: &mut Vec<String>) -> Vec<(Dataset, IndexStatus)> {
        let mut searchable = Vec::new();
        for d in datasets {
            let mut status = self.status(&d.id);
            // Built elsewhere (another replica), or words only here while vectors are made there.
            let elsewhere = status.as_ref().is_none_or(|s| {
                s.version_hash != d.version_hash || (s.state == IndexState::Lexical && self.model().is_some())
            });
            if elsewhere && let Some(adopted) = self.adopt(&d).await {
                status = Some(adopted);
            }
            match status {
                // An index of other content (the dataset was refreshed since, possibly by another
                // replica) is never searched: its rows are not the dataset's.
                Some(s) if s.version_hash != d.version_hash => {
                    notes.push(format!("{} changed since it was indexed here; it is not searched yet", d.table_name));
                }
                Some(s) if s.state.lexical_ready() => searchable.push((d, s)),
                Some(s) if s.state == IndexState::NoText => {}
                Some(s) if s.state == IndexState::Failed => {
                    notes.push(format!("{} could not be indexed ({})", d.table_name, s.error.unwrap_or_default()));
                }
                _ => notes.push(format!("{} is still being indexed", d.table_name)),
            }
        }
        searchable
    }

    /// A note for each reason a search by meaning covers less than asked: no embedding model, or
    /// a dataset whose vectors are still being built.
    fn note_missing_vectors(&self, searchable: &[(Dataset, IndexStatus)], notes: &mut Vec<String>) {
        match &self.inner.embedder {
            None => notes.push("no embedding model is configured, so the search matched words only".to_owned()),
            Some(_) => {
                for (d, s) in searchable {
                    if s.state == IndexState::Embedding {
                        notes.push(format!(
                            "{}: vectors are still being built ({} of {} rows), so only its words were searched",
                            d.table_name, s.vector_rows, s.rows
                        ));
                    }
                }
            }
        }
    }

    /// Ranks the rows of `datasets` for `query`: lexically and (when vectors exist) by meaning,
    /// fused; every candidate, best first, with its stored text.
    async fn find(
        &self,
        query: &str,
        datasets: Vec<Dataset>,
        mode: SearchMode,
        notes: &mut Vec<String>,
    ) -> Result<Found> {
        let searchable = self.searchable(datasets, notes).await;
        let with_vectors: Vec<&Dataset> =
            searchable.iter().filter(|(_, s)| s.state == IndexState::Ready).map(|(d, _)| d).collect();
        let use_vectors = mode != SearchMode::Lexical && !with_vectors.is_empty();
        let use_lexical = mode != SearchMode::Vector;
        if mode != SearchMode::Lexical {
            self.note_missing_vectors(&searchable, notes);
        }
        if mode == SearchMode::Vector && !use_vectors {
            return Err(Error::new(
                ErrorCode::NotReady,
                "no dataset has vectors to search by meaning yet; try mode lexical or hybrid",
            ));
        }

        // Each ranker's candidates over all datasets, merged into one ranking per ranker.
        let mut lexical: Vec<(Key, LexicalMatch)> = Vec::new();
        if use_lexical {
            for (d, _) in &searchable {
                for m in self.inner.store.lexical(&d.id, query, CANDIDATES).await? {
                    lexical.push(((d.id.clone(), m.row_id), m));
                }
            }
            lexical.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then_with(|| a.0.cmp(&b.0)));
            lexical.truncate(CANDIDATES);
        }
        let mut nearest: Vec<(Key, f32)> = Vec::new();
        let mut use_vectors = use_vectors;
        if use_vectors && let Some(embedder) = &self.inner.embedder {
            match embedder.embed(vec![query.to_owned()]).await.map(|mut v| v.pop()) {
                Ok(Some(vector)) => {
                    for d in &with_vectors {
                        for (row, sim) in self.inner.store.nearest(&d.id, &vector, CANDIDATES).await? {
                            nearest.push(((d.id.clone(), row), sim));
                        }
                    }
                    nearest.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                    nearest.truncate(CANDIDATES);
                }
                // The embedder is down (e.g. a remote server): words still answer, and say so.
                Ok(None) | Err(_) if mode == SearchMode::Hybrid => {
                    notes.push("the query could not be embedded, so only words were searched".to_owned());
                    use_vectors = false;
                }
                Ok(None) => return Err(Error::internal("the embedder returned no vector")),
                Err(e) => return Err(e),
            }
        }
        let lexical_keys: Vec<Key> = lexical.iter().map(|(k, _)| k.clone()).collect();
        let vector_keys: Vec<Key> = nearest.iter().map(|(k, _)| k.clone()).collect();
        // In fusion, a lexical hit counts only when it holds the whole query (FULL_COVERAGE of
        // its words by rarity): for "can't get into my account" a row that only says "account"
        // is noise next to the rows found by meaning, while for "E-4012" or "dark mode" the rows
        // with every word are exactly what was asked for — often what meaning alone misses.
        let whole: Vec<Key> =
            lexical.iter().filter(|(_, m)| m.coverage >= FULL_COVERAGE).map(|(k, _)| k.clone()).collect();
        let (used, ranked): (SearchMode, Vec<(Key, f64)>) = match (use_lexical, use_vectors) {
            (true, true) => (SearchMode::Hybrid, rrf(&[&whole, &vector_keys])),
            (true, false) => {
                (SearchMode::Lexical, lexical.iter().map(|(k, m)| (k.clone(), f64::from(m.score))).collect())
            }
            (false, _) => (SearchMode::Vector, nearest.iter().map(|(k, s)| (k.clone(), f64::from(*s))).collect()),
        };
        let rank_in = |keys: &[Key], key: &Key| keys.iter().position(|k| k == key).map_or(0, |i| i as u32 + 1);
        let relevant = |key: &Key| {
            lexical.iter().any(|(k, m)| k == key && m.coverage >= PASSAGE_COVERAGE)
                || nearest.iter().any(|(k, sim)| k == key && *sim >= PASSAGE_SIMILARITY)
        };

        // Every candidate is read, not just a page: callers fold rows that say the same.
        let mut hits = Vec::with_capacity(ranked.len());
        for (d, _) in &searchable {
            let rows: Vec<u64> = ranked.iter().filter(|((id, _), _)| *id == d.id).map(|((_, row), _)| *row).collect();
            if rows.is_empty() {
                continue;
            }
            for stored in self.inner.store.hits(&d.id, query, &rows).await? {
                let key = (d.id.clone(), stored.row_id);
                let score = ranked.iter().find(|(k, _)| *k == key).map_or(0.0, |(_, s)| *s);
                hits.push(FoundHit {
                    fingerprint: stored.fingerprint,
                    relevant: relevant(&key),
                    fields: stored.fields,
                    hit: SearchHit {
                        dataset_id: d.id.clone(),
                        dataset_name: d.name.clone(),
                        table_name: d.table_name.clone(),
                        row_id: stored.row_id,
                        column: stored.column,
                        text: stored.text,
                        snippet: stored.snippet,
                        score,
                        lexical_rank: rank_in(&lexical_keys, &key),
                        vector_rank: rank_in(&vector_keys, &key),
                        same_text_rows: 0,
                    },
                });
            }
        }
        let order = |h: &SearchHit| ranked.iter().position(|((id, row), _)| *id == h.dataset_id && *row == h.row_id);
        hits.sort_by_key(|f| order(&f.hit));
        Ok(Found { mode: used, hits, searched: searchable.len() as u32 })
    }
}

/// Every candidate of one search, ranked.
struct Found {
    mode: SearchMode,
    hits: Vec<FoundHit>,
    /// Datasets whose index was searched.
    searched: u32,
}

struct FoundHit {
    hit: SearchHit,
    fingerprint: u64,
    fields: Vec<String>,
    /// Holds enough of the query's words, or is close enough in meaning, to be a passage worth
    /// quoting (see [`SearchService::knowledge`]).
    relevant: bool,
}

/// A query and a page size, checked: the caller may read datasets, the query has words and is
/// not too long, the limit is `default` when 0 and at most `max`.
fn checked<'q>(caller: &Caller, query: &'q str, limit: u32, default: u32, max: u32) -> Result<(&'q str, u32)> {
    caller.principal.require(Capability::DatasetRead)?;
    let query = query.trim();
    if query.is_empty() {
        return Err(Error::validation("query", "give words to search for"));
    }
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(Error::validation("query", format!("the query is longer than {MAX_QUERY_CHARS} characters")));
    }
    match limit {
        0 => Ok((query, default)),
        l if l <= max => Ok((query, l)),
        _ => Err(Error::validation("limit", format!("limit must be 1 to {max}"))),
    }
}

/// The one background worker that builds vectors, a dataset at a time, a small batch at a time;
/// it stops working on a dataset as soon as that dataset is deleted, and ends with the service.
async fn embed_worker(inner: std::sync::Weak<Inner>, mut queue: mpsc::UnboundedReceiver<(Dataset, Vec<TextDoc>)>) {
    while let Some((dataset, docs)) = queue.recv().await {
        let Some(inner) = inner.upgrade() else { return };
        let Some(embedder) = inner.embedder.clone() else { return };
        let this = SearchService { inner };
        let docs: Vec<TextDoc> = docs.into_iter().take(this.inner.config.max_vector_rows as usize).collect();
        let outcome: Result<Embedded> = async {
            this.inner.store.clear_vectors(&dataset.id).await?;
            for batch in docs.chunks(EMBED_BATCH) {
                if let Some(stop) = Embedded::stop(this.is_current(&dataset)) {
                    return Ok(stop);
                }
                let vectors = embedder.embed(batch.iter().map(TextDoc::embedding_text).collect()).await?;
                let rows: Vec<u64> = batch.iter().map(|d| d.row_id).collect();
                this.inner.store.add_vectors(&dataset.id, rows, vectors).await?;
                this.update(&dataset.id, |s| s.vector_rows += batch.len() as u64);
            }
            if let Some(stop) = Embedded::stop(this.is_current(&dataset)) {
                return Ok(stop);
            }
            let sealed = this.inner.store.seal_vectors(&dataset.id, &embedder.model()).await?;
            this.update(&dataset.id, |s| {
                s.state = IndexState::Ready;
                s.model = sealed.model;
                s.vector_index = sealed.index;
                s.vector_rows = sealed.rows;
            });
            Ok(Embedded::Ready)
        }
        .await;
        match outcome {
            Ok(Embedded::Ready) => tracing::info!(dataset = %dataset.id, rows = docs.len(), "vectors ready"),
            // Its index was rebuilt for newer content, whose vectors are queued behind.
            Ok(Embedded::Superseded) => {}
            // Deleted meanwhile, or while a batch was being written: whatever was written goes.
            Ok(Embedded::Deleted) | Err(_) if this.status(&dataset.id).is_none() => {
                let _ = this.inner.store.remove(&dataset.id).await;
            }
            Ok(Embedded::Deleted) => {}
            Err(_) if this.is_current(&dataset) == Some(false) => {}
            Err(e) => {
                tracing::warn!(dataset = %dataset.id, error = %e, internal = ?e.internal, "vectors could not be built");
                this.fail(&dataset.id, &e);
            }
        }
    }
}

/// How building a dataset's vectors ended.
enum Embedded {
    Ready,
    /// The dataset was deleted.
    Deleted,
    /// A refresh replaced the content the vectors were for.
    Superseded,
}

impl Embedded {
    /// Why to stop, given whether the content is still current.
    fn stop(current: Option<bool>) -> Option<Self> {
        match current {
            None => Some(Self::Deleted),
            Some(false) => Some(Self::Superseded),
            Some(true) => None,
        }
    }
}
