//! Knowledge documents: Markdown and plain-text files a user uploads to ask about, next to their
//! tables.
//!
//! A document is a dataset whose table holds its passages (~[`CHUNK_CHARS`] characters,
//! [`OVERLAP_CHARS`] of them shared with the passage before, cut at paragraph, sentence or word
//! ends and never across a heading), so storage, versions, deletion and the hybrid search index
//! are the tables' own. Each passage has a stable id, `<table_name>::NNN`, that answers cite.
//! The assistant reads documents only through `search_knowledge`: the passages it retrieved,
//! capped and marked as quoted material (`runs::model_view::summary::knowledge`). After the run, [`check`] verifies that
//! an answer which used documents cites what was retrieved, and nothing else.

use crate::error::{Error, ErrorCode, Result};
use crate::value::{Column, Table, Value};
use serde::{Deserialize, Serialize};

/// A passage's target length, in characters.
pub const CHUNK_CHARS: usize = 500;
/// Characters a passage shares with the one before it.
pub const OVERLAP_CHARS: usize = 100;
/// The largest document accepted, in bytes of text.
pub const MAX_DOCUMENT_BYTES: u64 = 10 * 1024 * 1024;
/// Passages one `search_knowledge` call retrieves when the caller names no number.
pub const DEFAULT_CHUNKS: u32 = 5;
/// The most passages one call retrieves.
pub const MAX_CHUNKS: u32 = 10;
/// Passages of a retrieved passage's section retrieved with it, at most, on each side.
pub const SECTION_SPAN: u64 = 3;

/// One passage of a document.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// The heading it is under ("" before the first).
    pub heading: String,
    pub text: String,
    /// Where it is in the document, in characters, end exclusive.
    pub start: usize,
    pub end: usize,
}

/// The document's text, checked: UTF-8 (a byte-order mark dropped), with text in it.
pub fn decode(bytes: &[u8]) -> Result<String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorCode::IngestError,
            format!(
                "The document is not UTF-8 text (an invalid byte at offset {}); save it as UTF-8 and upload it again.",
                e.valid_up_to()
            ),
        )
    })?;
    if text.trim().is_empty() {
        return Err(Error::new(ErrorCode::IngestError, "The document has no text."));
    }
    Ok(text.replace("\r\n", "\n"))
}

/// A Markdown heading line's text (`## Refunds` → `Refunds`), outside code fences.
fn heading_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let hashes = t.chars().take_while(|&c| c == '#').count();
    if !(1..=6).contains(&hashes) || line.len() - t.len() > 3 {
        return None;
    }
    let rest = &t[hashes..];
    (rest.starts_with(' ') || rest.starts_with('\t'))
        .then(|| rest.trim().trim_end_matches('#').trim())
        .filter(|h| !h.is_empty())
}

/// The document's title: its first level-1 heading, else its first heading, else `fallback`.
pub fn title(text: &str, markdown: bool, fallback: &str) -> String {
    let mut first = None;
    if markdown {
        for (_, line) in outside_fences(text) {
            if let Some(h) = heading_of(line) {
                if line.trim_start().starts_with("# ") {
                    return h.to_owned();
                }
                first.get_or_insert(h);
            }
        }
    }
    first.map_or_else(|| fallback.to_owned(), str::to_owned)
}

/// The lines of a Markdown text that are not inside a fenced code block (nor a fence), each with
/// the character offset it starts at.
fn outside_fences(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    let mut at = 0;
    text.split_inclusive('\n').filter_map(move |line| {
        let start = at;
        at += line.chars().count();
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            return None;
        }
        (!fenced).then(|| (start, line.trim_end_matches(['\n', '\r'])))
    })
}

/// Splits a document into passages: sections at Markdown headings (a text document is one
/// section), each cut into windows of about [`CHUNK_CHARS`] characters that end at a paragraph,
/// sentence or word end and overlap by [`OVERLAP_CHARS`].
pub fn chunk(text: &str, markdown: bool) -> Vec<Chunk> {
    let chars: Vec<char> = text.chars().collect();
    // (start of the section in characters, its heading)
    let mut sections: Vec<(usize, String)> = vec![(0, String::new())];
    if markdown {
        sections.extend(outside_fences(text).filter_map(|(at, line)| Some((at, heading_of(line)?.to_owned()))));
    }
    let mut chunks = Vec::new();
    for (i, (start, heading)) in sections.iter().enumerate() {
        let end = sections.get(i + 1).map_or(chars.len(), |(s, _)| *s);
        windows(&chars, *start, end, heading, &mut chunks);
    }
    chunks
}

/// Cuts `chars[from..to]` into passages under `heading`.
fn windows(chars: &[char], from: usize, to: usize, heading: &str, out: &mut Vec<Chunk>) {
    let mut start = from;
    while start < to {
        let mut end = (start + CHUNK_CHARS).min(to);
        if end < to {
            end = cut_point(chars, start, end);
        }
        push_trimmed(chars, start, end, heading, out);
        if end >= to {
            break;
        }
        // The next passage starts OVERLAP_CHARS back, at the start of a word.
        let mut next = end.saturating_sub(OVERLAP_CHARS).max(start + 1);
        while next < end && !chars[next - 1].is_whitespace() {
            next += 1;
        }
        start = if next >= end { end } else { next };
    }
}

/// The best place to end a passage that may run to `limit`: the last paragraph break after
/// its middle, else the last sentence end, else the last space, else `limit`.
fn cut_point(chars: &[char], start: usize, limit: usize) -> usize {
    let floor = start + CHUNK_CHARS * 3 / 5;
    let find = |ok: &dyn Fn(usize) -> bool| (floor..limit).rev().find(|&i| ok(i));
    find(&|i| chars[i] == '\n' && i > 0 && chars[i - 1] == '\n')
        .or_else(|| find(&|i| chars[i].is_whitespace() && i > 0 && matches!(chars[i - 1], '.' | '!' | '?' | ':')))
        .or_else(|| find(&|i| chars[i].is_whitespace()))
        .map_or(limit, |i| i + 1)
}

fn push_trimmed(chars: &[char], mut start: usize, mut end: usize, heading: &str, out: &mut Vec<Chunk>) {
    while start < end && chars[start].is_whitespace() {
        start += 1;
    }
    while end > start && chars[end - 1].is_whitespace() {
        end -= 1;
    }
    if start < end {
        out.push(Chunk { heading: heading.to_owned(), text: chars[start..end].iter().collect(), start, end });
    }
}

/// A passage's id: `<table_name>::NNN` (three digits at least).
pub fn chunk_id(table_name: &str, n: u64) -> String {
    format!("{table_name}::{n:03}")
}

/// The table a document is stored as: one row per passage, in order (row n is passage n).
pub fn table(table_name: &str, title: &str, chunks: &[Chunk]) -> Table {
    let column = |name: &str, sql_type: &str| Column { nullable: false, ..Column::new(name, sql_type) };
    let text = |s: &str| Value::String(s.to_owned());
    Table {
        columns: vec![
            column("chunk_id", "VARCHAR"),
            column("heading", "VARCHAR"),
            column("text", "VARCHAR"),
            column("start_char", "BIGINT"),
            column("end_char", "BIGINT"),
            column("title", "VARCHAR"),
        ],
        rows: chunks
            .iter()
            .enumerate()
            .map(|(n, c)| {
                vec![
                    Value::String(chunk_id(table_name, n as u64)),
                    text(&c.heading),
                    text(&c.text),
                    Value::Int(c.start as i64),
                    Value::Int(c.end as i64),
                    text(title),
                ]
            })
            .collect(),
        truncated: false,
        exec_time_ms: 0,
    }
}

/// The columns of a document's table its search index holds, in this order (the passage's own
/// text first: it is what a hit shows).
pub const INDEXED_COLUMNS: [&str; 3] = ["text", "heading", "title"];

/// A passage a search retrieved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnowledgeChunk {
    pub chunk_id: String,
    pub dataset_id: String,
    pub document_name: String,
    pub title: String,
    pub heading: String,
    pub text: String,
    /// HTML-escaped, with `<mark>…</mark>` around the query's words.
    pub snippet: String,
    pub score: f64,
}

/// What one `search_knowledge` call retrieved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnowledgeResults {
    pub query: String,
    pub chunks: Vec<KnowledgeChunk>,
    pub documents_searched: u32,
    /// What limited the search, in plain words ("" when nothing did).
    pub note: String,
    /// "hybrid" or "lexical".
    pub mode: String,
}

/// The verdict on an answer's citations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CitationStatus {
    /// At least one citation, and every cited id was retrieved.
    Cited,
    /// Passages were retrieved and the answer cites none.
    MissingCitations,
    /// The answer cites an id the run never retrieved.
    InvalidCitation,
    /// Nothing was retrieved and nothing is cited: the answer must say it lacks evidence.
    NoEvidence,
}

impl CitationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cited => "cited",
            Self::MissingCitations => "missing_citations",
            Self::InvalidCitation => "invalid_citation",
            Self::NoEvidence => "no_evidence",
        }
    }

    /// Whether the answer failed verification.
    pub fn failed(self) -> bool {
        matches!(self, Self::MissingCitations | Self::InvalidCitation)
    }
}

/// The citation check of an answer that used documents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitationCheck {
    pub status: CitationStatus,
    /// Chunk ids the answer cites, in order of first mention.
    pub cited: Vec<String>,
    /// Of those, the ones never retrieved.
    pub invalid: Vec<String>,
    /// Every chunk id the run retrieved.
    pub retrieved: Vec<String>,
}

/// The chunk ids cited in a text, in order of first mention: every `name::NNN` (a name of
/// letters, digits, `_`, `.` or `-`, then `::`, then digits), bracketed or not.
pub fn citations_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-');
    let mut from = 0;
    while let Some(at) = text[from..].find("::").map(|i| from + i) {
        let name_start = text[..at].char_indices().rev().take_while(|(_, c)| name_char(*c)).last().map(|(i, _)| i);
        let digits: String = text[at + 2..].chars().take_while(char::is_ascii_digit).collect();
        if let Some(start) = name_start
            && !digits.is_empty()
        {
            let name = text[start..at].trim_start_matches(['.', '-']);
            let id = format!("{name}::{digits}");
            if !name.is_empty() && !out.contains(&id) {
                out.push(id);
            }
        }
        from = at + 2;
    }
    out
}

/// Verifies an answer against the chunk ids its run retrieved.
pub fn check(answer: &str, retrieved: &[String]) -> CitationCheck {
    let cited = citations_in(answer);
    let invalid: Vec<String> = cited.iter().filter(|c| !retrieved.contains(c)).cloned().collect();
    let status = match (retrieved.is_empty(), cited.is_empty(), invalid.is_empty()) {
        (_, false, false) => CitationStatus::InvalidCitation,
        (true, true, _) => CitationStatus::NoEvidence,
        (false, true, _) => CitationStatus::MissingCitations,
        (_, false, true) => CitationStatus::Cited,
    };
    CitationCheck { status, cited, invalid, retrieved: retrieved.to_vec() }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const HANDBOOK: &str = "# Acme Handbook\n\nWelcome to Acme.\n\n## Refunds\n\nRefunds are issued within 14 days \
                            of a return. Items must be unused.\n\n```\n# not a heading\n```\n\n## Shipping\n\nWe ship \
                            worldwide.\n";

    #[test]
    fn sections_follow_headings_and_the_title_is_the_first_top_heading() {
        let chunks = chunk(HANDBOOK, true);
        let headings: Vec<&str> = chunks.iter().map(|c| c.heading.as_str()).collect();
        assert_eq!(headings, ["Acme Handbook", "Refunds", "Shipping"], "a fenced `#` line is code, not a heading");
        assert!(chunks[1].text.starts_with("## Refunds") && chunks[1].text.contains("14 days"));
        assert_eq!(title(HANDBOOK, true, "handbook.md"), "Acme Handbook");
        assert_eq!(title("just words", false, "notes.txt"), "notes.txt");
        let chars: Vec<char> = HANDBOOK.chars().collect();
        for c in &chunks {
            assert_eq!(chars[c.start..c.end].iter().collect::<String>(), c.text, "offsets locate the passage");
        }
    }

    #[test]
    fn long_sections_are_windows_of_about_500_characters_that_overlap_and_end_at_words() {
        let sentence = "The quick brown fox jumps over the lazy dog near the river bank. ";
        let text: String = sentence.repeat(40);
        let chunks = chunk(&text, false);
        assert!(chunks.len() >= 5, "{} passages", chunks.len());
        for pair in chunks.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert!(a.text.chars().count() <= CHUNK_CHARS, "{}", a.text.len());
            assert!(a.text.chars().count() >= CHUNK_CHARS * 3 / 5 - 1);
            assert!(b.start < a.end && a.end - b.start <= OVERLAP_CHARS + 1, "overlap {}", a.end - b.start);
            assert!(a.text.ends_with('.'), "a passage ends at a sentence: {:?}", &a.text[a.text.len() - 10..]);
            assert!(b.text.starts_with(|c: char| c.is_alphabetic()), "and starts at a word");
        }
        assert_eq!(chunks.last().unwrap().end, text.trim_end().chars().count(), "nothing is lost at the end");
    }

    #[test]
    fn text_that_is_not_utf8_or_empty_is_refused_in_words() {
        assert_eq!(decode(b"\xEF\xBB\xBFhi\r\nthere").unwrap(), "hi\nthere");
        let e = decode(b"ok \xff\xfe").unwrap_err();
        assert_eq!(e.code, ErrorCode::IngestError);
        assert!(e.message.contains("not UTF-8") && e.message.contains("offset 3"), "{}", e.message);
        assert_eq!(decode(b" \n\t").unwrap_err().message, "The document has no text.");
    }

    #[test]
    fn citations_are_checked_against_what_was_retrieved() {
        let retrieved = vec!["handbook::003".to_owned(), "handbook::004".to_owned()];
        let ok = check("Refunds take 14 days [handbook::003; handbook::004] (see handbook::003).", &retrieved);
        assert_eq!((ok.status, ok.cited.len()), (CitationStatus::Cited, 2));
        let missing = check("Refunds take 14 days.", &retrieved);
        assert_eq!(missing.status, CitationStatus::MissingCitations);
        let invalid = check("Refunds take 14 days [handbook::003][handbook::009].", &retrieved);
        assert_eq!(
            (invalid.status, invalid.invalid.clone()),
            (CitationStatus::InvalidCitation, vec!["handbook::009".into()])
        );
        assert_eq!(check("I lack evidence.", &[]).status, CitationStatus::NoEvidence);
        assert_eq!(check("See [handbook::001].", &[]).status, CitationStatus::InvalidCitation);
        assert_eq!(citations_in("a::b, ::12, x::, std::io, [guide.md::07]"), vec!["guide.md::07".to_owned()]);
    }
}
