//! Linking by meaning: a word the lexicon does not know ("income", "grades") is compared, with
//! the in-process sentence embeddings, to what each column of the dataset is called (and its
//! description). It is linked only when one column is clearly closer than every other — a
//! margin, not a bare threshold — and the answer then says how it was read ("I read “income” as
//! revenue"), so a wrong link is seen at once; when two columns are about as close, the person
//! is asked which one. Below the threshold nothing is linked and the word is reported as not
//! understood, as before.

use crate::lexicon::{Entry, Lexicon, Meaning, Source};
use crate::reading::{self, Unread};
use aware_domain::ids::DatasetId;
use aware_domain::ports::search_index::Embedder;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How close (cosine) a phrase must be to a column to be read as it.
const LINK: f32 = 0.62;
/// How much closer than the next column it must be; closer than that is a question back.
const MARGIN: f32 = 0.1;
/// Datasets whose column vectors are kept before the cache starts over.
const KEPT: usize = 256;

/// The columns' names as vectors: (column index, vector).
type Targets = Arc<Vec<(usize, Vec<f32>)>>;

/// Links by meaning through an embedder, remembering each dataset version's column vectors.
pub struct Meanings {
    embedder: Arc<dyn Embedder>,
    targets: Mutex<HashMap<(DatasetId, String), Targets>>,
}

impl Meanings {
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        Self { embedder, targets: Mutex::default() }
    }

    /// What each column of `lex` is called, embedded once per dataset version.
    async fn targets(&self, lex: &Lexicon) -> Option<Targets> {
        let key = (lex.dataset.id.clone(), lex.dataset.version_hash.clone());
        if let Some(hit) = self.targets.lock().expect("meaning cache").get(&key) {
            return Some(hit.clone());
        }
        let mut columns = Vec::new();
        let mut texts = Vec::new();
        for (c, info) in lex.columns.iter().enumerate() {
            if info.class == crate::lexicon::Class::Id {
                continue;
            }
            columns.push(c);
            texts.push(info.label.clone());
            if let Some(note) = lex.dataset.column_notes.iter().find(|n| n.column == info.name)
                && !note.description.trim().is_empty()
            {
                columns.push(c);
                texts.push(note.description.clone());
            }
        }
        let vectors = self.embedder.embed(texts).await.ok()?;
        let found: Targets = Arc::new(columns.into_iter().zip(vectors).collect());
        let mut cache = self.targets.lock().expect("meaning cache");
        if cache.len() >= KEPT {
            cache.clear();
        }
        cache.insert(key, found.clone());
        Some(found)
    }

    /// Adds to `lex` the links by meaning of `question`'s unread phrases; a phrase about as close
    /// to two columns is a question back.
    pub async fn link(&self, question: &str, lex: &mut Lexicon) -> Result<(), Unread> {
        let phrases = reading::unread_phrases(question, lex);
        if phrases.is_empty() {
            return Ok(());
        }
        let Some(targets) = self.targets(lex).await else { return Ok(()) };
        let texts: Vec<String> = phrases.iter().map(|p| p.join(" ")).collect();
        let Ok(vectors) = self.embedder.embed(texts.clone()).await else { return Ok(()) };
        for ((phrase, said), v) in phrases.iter().zip(&texts).zip(&vectors) {
            // Each column's best score.
            let mut best: HashMap<usize, f32> = HashMap::new();
            for (c, t) in targets.iter() {
                let score: f32 = t.iter().zip(v).map(|(a, b)| a * b).sum();
                let e = best.entry(*c).or_insert(f32::MIN);
                *e = e.max(score);
            }
            let mut ranked: Vec<(usize, f32)> = best.into_iter().collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let Some(&(first, s1)) = ranked.first() else { continue };
            if s1 < LINK {
                continue;
            }
            let s2 = ranked.get(1).map_or(f32::MIN, |r| r.1);
            if s1 - s2 < MARGIN {
                let other = lex.columns[ranked[1].0].name.clone();
                return Err(Unread::Ask(format!(
                    "By “{said}” do you mean {} or {other}? Say the column's name and I will use it.",
                    lex.columns[first].name
                )));
            }
            let meaning = if lex.columns[first].class == crate::lexicon::Class::Flag {
                Meaning::Flag(first, true)
            } else {
                Meaning::Column(first)
            };
            lex.entries.push(Entry::linked(phrase, meaning, 2, Source::Meaning));
        }
        Ok(())
    }
}
