//! One dataset's lexical index: tantivy with BM25 over all its text columns, English stemming
//! and stop words. Queries are never parsed as tantivy syntax: the words are run through the same
//! analyzer and OR-ed, so `:`, quotes, brackets or `AND` in a query are just text.

use aware_domain::ports::search_index::{LexicalMatch, StoredHit, TextDoc};
use aware_domain::search::{SNIPPET_CHARS, escape_html, lead};
use aware_domain::{Error, Result};
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{FAST, Field, INDEXED, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument, Term};

const ANALYZER: &str = "aware_en";
/// Most distinct words of a query that count.
const MAX_QUERY_TERMS: usize = 64;
/// Longest text returned with a hit, in characters.
const HIT_TEXT_CHARS: usize = 2_000;
/// Memory for the one indexing thread (tantivy needs at least 15 MB per thread).
const WRITER_BYTES: usize = 50_000_000;

fn err(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("lexical index: {e}"))
}

fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::new(Language::English).expect("tantivy ships English stop words"))
        .filter(Stemmer::new(Language::English))
        .build()
}

struct Fields {
    /// Every text column, indexed for search (not stored).
    text: Field,
    row: Field,
    /// A hash of the row's whole text, to collapse rows that say exactly the same.
    fingerprint: Field,
    /// Each column's value, stored for hits and snippets.
    columns: Vec<Field>,
}

fn schema(columns: usize) -> (Schema, Fields) {
    let mut b = Schema::builder();
    let indexing =
        TextFieldIndexing::default().set_tokenizer(ANALYZER).set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let text = b.add_text_field("text", TextOptions::default().set_indexing_options(indexing));
    let row = b.add_u64_field("row", INDEXED | STORED | FAST);
    let fingerprint = b.add_u64_field("fingerprint", STORED);
    let columns = (0..columns).map(|i| b.add_text_field(&format!("c{i}"), STORED)).collect();
    (b.build(), Fields { text, row, fingerprint, columns })
}

/// FNV-1a over the row's fields (with a separator), stable across builds and Rust versions.
fn fingerprint(fields: &[String]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in fields {
        for b in f.bytes().chain([0x1f]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Writes the index of `docs` into the empty folder `dir`.
pub(crate) fn build(dir: &Path, columns: usize, docs: &[TextDoc]) -> Result<()> {
    let (schema, fields) = schema(columns);
    let index = Index::create_in_dir(dir, schema).map_err(err)?;
    index.tokenizers().register(ANALYZER, analyzer());
    let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, WRITER_BYTES).map_err(err)?;
    for d in docs {
        let mut doc = TantivyDocument::default();
        doc.add_u64(fields.row, d.row_id);
        doc.add_u64(fields.fingerprint, fingerprint(&d.fields));
        for (field, value) in fields.columns.iter().zip(&d.fields) {
            if !value.is_empty() {
                doc.add_text(fields.text, value);
                doc.add_text(*field, value);
            }
        }
        writer.add_document(doc).map_err(err)?;
    }
    writer.commit().map_err(err)?;
    writer.wait_merging_threads().map_err(err)?;
    Ok(())
}

/// An open lexical index.
pub(crate) struct Lexical {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    column_names: Vec<String>,
}

impl Lexical {
    pub(crate) fn open(dir: &Path, column_names: &[String]) -> Result<Self> {
        let index = Index::open_in_dir(dir).map_err(err)?;
        index.tokenizers().register(ANALYZER, analyzer());
        let (_, fields) = schema(column_names.len());
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(err)?;
        Ok(Self { index, reader, fields, column_names: column_names.to_vec() })
    }

    /// The query's words as the index analyses them, OR-ed (BM25 ranks rows by how many and
    /// how rare), with the words. `None` when no word remains (only stop words or punctuation).
    fn query(&self, text: &str) -> Result<Option<(BooleanQuery, Vec<Term>)>> {
        let mut analyzer = self.index.tokenizer_for_field(self.fields.text).map_err(err)?;
        let mut stream = analyzer.token_stream(text);
        let mut words = BTreeSet::new();
        while stream.advance() {
            if words.len() < MAX_QUERY_TERMS {
                words.insert(stream.token().text.clone());
            }
        }
        if words.is_empty() {
            return Ok(None);
        }
        let terms: Vec<Term> = words.iter().map(|w| Term::from_field_text(self.fields.text, w)).collect();
        let clauses: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| {
                (Occur::Should, Box::new(TermQuery::new(t.clone(), IndexRecordOption::WithFreqs)) as Box<dyn Query>)
            })
            .collect();
        Ok(Some((BooleanQuery::new(clauses), terms)))
    }

    /// The best `k` rows for `text`: BM25 score, and how much of the query the row covers — the
    /// share of the query's words it holds, each weighted by its rarity (idf). A row holding one
    /// common word of a long question covers little of it; a row with the one error code asked
    /// for covers all of it.
    pub(crate) fn search(&self, text: &str, k: usize) -> Result<Vec<LexicalMatch>> {
        let Some((query, terms)) = self.query(text)? else { return Ok(Vec::new()) };
        let searcher = self.reader.searcher();
        let n = searcher.num_docs() as f32;
        let mut idf = Vec::with_capacity(terms.len());
        for t in &terms {
            let df = searcher.doc_freq(t).map_err(err)? as f32;
            idf.push((t.value().as_str().unwrap_or_default().to_owned(), (1.0 + (n - df + 0.5) / (df + 0.5)).ln()));
        }
        let reach: f32 = idf.iter().map(|(_, w)| w).sum();
        let mut analyzer = self.index.tokenizer_for_field(self.fields.text).map_err(err)?;
        let top = searcher.search(&query, &TopDocs::with_limit(k.max(1)).order_by_score()).map_err(err)?;
        top.into_iter()
            .map(|(score, address)| {
                let doc: TantivyDocument = searcher.doc(address).map_err(err)?;
                let row = doc.get_first(self.fields.row).and_then(|v| v.as_u64()).ok_or_else(|| err("row missing"))?;
                let mut held = BTreeSet::new();
                for field in &self.fields.columns {
                    if let Some(value) = doc.get_first(*field).and_then(|v| v.as_str()) {
                        let mut stream = analyzer.token_stream(value);
                        while stream.advance() {
                            held.insert(stream.token().text.clone());
                        }
                    }
                }
                let covered: f32 = idf.iter().filter(|(w, _)| held.contains(w)).map(|(_, x)| x).sum();
                let coverage = if reach > 0.0 { covered / reach } else { 0.0 };
                Ok(LexicalMatch { row_id: row, score, coverage })
            })
            .collect()
    }

    /// Each row's text and a snippet marking `text`'s words (the column where most of them
    /// appear; the first non-empty column when none does, as for rows found by meaning).
    pub(crate) fn hits(&self, text: &str, rows: &[u64]) -> Result<Vec<StoredHit>> {
        let searcher = self.reader.searcher();
        let generator = match self.query(text)? {
            Some((q, _)) => {
                let mut g = SnippetGenerator::create(&searcher, &q, self.fields.text).map_err(err)?;
                g.set_max_num_chars(SNIPPET_CHARS);
                Some(g)
            }
            None => None,
        };
        let mut out = Vec::with_capacity(rows.len());
        for &row in rows {
            let lookup = TermQuery::new(Term::from_field_u64(self.fields.row, row), IndexRecordOption::Basic);
            let found = searcher.search(&lookup, &TopDocs::with_limit(1).order_by_score()).map_err(err)?;
            let Some((_, address)) = found.into_iter().next() else { continue };
            let doc: TantivyDocument = searcher.doc(address).map_err(err)?;
            let values: Vec<(usize, String)> = self
                .fields
                .columns
                .iter()
                .enumerate()
                .filter_map(|(i, f)| doc.get_first(*f).and_then(|v| v.as_str()).map(|s| (i, s.to_owned())))
                .collect();
            let mut best: Option<(usize, usize, String)> = None; // (marks, column, snippet)
            if let Some(g) = &generator {
                for (i, value) in &values {
                    let snippet = g.snippet(value);
                    let marks = snippet.highlighted().len();
                    if marks > 0 && best.as_ref().is_none_or(|(m, ..)| marks > *m) {
                        best = Some((marks, *i, mark(snippet.fragment(), snippet.highlighted())));
                    }
                }
            }
            let (column, snippet) = match best {
                Some((_, i, s)) => (i, s),
                None => match values.first() {
                    Some((i, v)) => (*i, lead(v)),
                    None => continue,
                },
            };
            let text = values.iter().find(|(i, _)| *i == column).map(|(_, v)| v.as_str()).unwrap_or_default();
            out.push(StoredHit {
                row_id: row,
                fingerprint: doc.get_first(self.fields.fingerprint).and_then(|v| v.as_u64()).unwrap_or(row),
                column: self.column_names.get(column).cloned().unwrap_or_default(),
                text: text.chars().take(HIT_TEXT_CHARS).collect(),
                snippet,
                fields: self
                    .fields
                    .columns
                    .iter()
                    .map(|f| doc.get_first(*f).and_then(|v| v.as_str()).unwrap_or_default())
                    .map(|v| v.chars().take(HIT_TEXT_CHARS).collect())
                    .collect(),
            });
        }
        Ok(out)
    }
}

/// `fragment` HTML-escaped, with `<mark>…</mark>` around the highlighted byte ranges.
fn mark(fragment: &str, highlighted: &[Range<usize>]) -> String {
    let mut ranges: Vec<Range<usize>> = highlighted.to_vec();
    ranges.sort_by_key(|r| r.start);
    let mut out = String::new();
    let mut at = 0;
    for r in ranges {
        let (start, end) = (r.start.max(at), r.end.min(fragment.len()));
        if start >= end || !fragment.is_char_boundary(start) || !fragment.is_char_boundary(end) {
            continue;
        }
        out.push_str(&escape_html(&fragment[at..start]));
        out.push_str("<mark>");
        out.push_str(&escape_html(&fragment[start..end]));
        out.push_str("</mark>");
        at = end;
    }
    out.push_str(&escape_html(&fragment[at..]));
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn docs() -> Vec<TextDoc> {
        let d = |row_id, subject: &str, body: &str| TextDoc { row_id, fields: vec![subject.into(), body.into()] };
        vec![
            d(0, "Cannot log in", "Login fails with error E-4012 after the update"),
            d(1, "Refund please", "I was charged twice for my subscription"),
            d(2, "Footer typo", "The word 'privacy' is misspelled on the login page"),
            d(3, "", "Logging in works again <b>thanks</b>"),
        ]
    }

    #[test]
    fn bm25_ranks_stems_and_marks_snippets_without_query_syntax() {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 2, &docs()).unwrap();
        let lex = Lexical::open(dir.path(), &["subject".into(), "body".into()]).unwrap();
        let found = lex.search("logins failing", 10).unwrap();
        assert_eq!(found[0].row_id, 0, "stemming: logins/failing match login/fails ({found:?})");
        assert!(found[0].coverage > 0.9, "both words: {found:?}");
        let partial = lex.search("failing refund requests", 10).unwrap();
        assert!(partial.iter().all(|m| m.coverage < 0.7), "one word of three: {partial:?}");
        assert!(lex.search("E-4012", 10).unwrap().iter().any(|m| m.row_id == 0));
        for hostile in ["title:(\"unbalanced", "AND OR NOT", "*", "[a TO", "\\", "the of and"] {
            lex.search(hostile, 10).unwrap();
        }
        let hits = lex.hits("charged twice", &[1, 3]).unwrap();
        assert_eq!(hits[0].column, "body");
        assert_eq!(hits[0].snippet, "I was <mark>charged</mark> <mark>twice</mark> for my subscription");
        assert_eq!(
            hits[1].snippet, "Logging in works again &lt;b&gt;thanks&lt;/b&gt;",
            "unmatched rows lead with their text, escaped"
        );
    }
}
