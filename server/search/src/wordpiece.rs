//! The BERT uncased WordPiece tokenizer that all-MiniLM-L6-v2's `tokenizer.json` describes:
//! clean the text (drop control characters, every kind of whitespace becomes a space), put spaces
//! around CJK ideographs, strip accents (NFD, then no nonspacing marks), lowercase; split on
//! whitespace and around punctuation; then each word greedily into the longest pieces found in the
//! vocabulary (`##` marks a piece that continues a word), a word with no such split being `[UNK]`;
//! `[CLS]` before and `[SEP]` after. A `tokenizer.json` describing anything else is refused when
//! the model loads, rather than tokenized differently from how the model was trained.
//!
//! One deliberate difference from the Hugging Face library: special-token text inside the input
//! (`[SEP]` typed in a cell) is ordinary text here, never a control token.

use serde::Deserialize;
use std::collections::HashMap;
use unicode_categories::UnicodeCategories;
use unicode_normalization::UnicodeNormalization;

/// The tokenizer: a vocabulary and the ids of its special tokens.
pub struct WordPiece {
    vocab: HashMap<String, u32>,
    unk: u32,
    cls: u32,
    sep: u32,
    max_word_chars: usize,
}

#[derive(Deserialize)]
struct File {
    normalizer: Typed<Normalizer>,
    pre_tokenizer: Typed<()>,
    model: Model,
}

#[derive(Deserialize)]
struct Typed<T> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(flatten)]
    rest: T,
}

#[derive(Deserialize)]
struct Normalizer {
    #[serde(default = "yes")]
    clean_text: bool,
    #[serde(default = "yes")]
    handle_chinese_chars: bool,
    strip_accents: Option<bool>,
    #[serde(default = "yes")]
    lowercase: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
struct Model {
    #[serde(rename = "type")]
    kind: String,
    vocab: HashMap<String, u32>,
    unk_token: String,
    continuing_subword_prefix: String,
    max_input_chars_per_word: usize,
}

impl WordPiece {
    /// Reads a `tokenizer.json`; refuses one this tokenizer would not reproduce.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let file: File = serde_json::from_str(text).map_err(|e| format!("tokenizer.json: {e}"))?;
        let n = &file.normalizer.rest;
        let supported = file.normalizer.kind == "BertNormalizer"
            && n.clean_text
            && n.handle_chinese_chars
            && n.lowercase
            && n.strip_accents.unwrap_or(true)
            && file.pre_tokenizer.kind == "BertPreTokenizer"
            && file.model.kind == "WordPiece"
            && file.model.continuing_subword_prefix == "##";
        if !supported {
            return Err("tokenizer.json is not a BERT uncased WordPiece tokenizer".to_owned());
        }
        let id = |token: &str| {
            file.model.vocab.get(token).copied().ok_or_else(|| format!("tokenizer.json has no {token} token"))
        };
        Ok(Self {
            unk: id(&file.model.unk_token)?,
            cls: id("[CLS]")?,
            sep: id("[SEP]")?,
            max_word_chars: file.model.max_input_chars_per_word,
            vocab: file.model.vocab,
        })
    }

    /// The ids of `text`: `[CLS]`, at most `max_tokens - 2` pieces (the rest is cut), `[SEP]`.
    pub fn encode(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        let budget = max_tokens.saturating_sub(2);
        let mut ids = vec![self.cls];
        let normalized = normalize(text);
        for word in words(&normalized) {
            if ids.len() > budget {
                break;
            }
            self.pieces(word, &mut ids);
        }
        ids.truncate(budget + 1);
        ids.push(self.sep);
        ids
    }

    /// Appends the pieces of one word, or `[UNK]`.
    fn pieces(&self, word: &str, ids: &mut Vec<u32>) {
        if word.chars().count() > self.max_word_chars {
            ids.push(self.unk);
            return;
        }
        let before = ids.len();
        let mut start = 0;
        let mut piece = String::new();
        while start < word.len() {
            let mut end = word.len();
            let found = loop {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(&piece) {
                    break Some(id);
                }
                // One character shorter; none left means no piece starts here.
                match word[start..end].char_indices().last() {
                    Some((i, _)) if i > 0 => end = start + i,
                    _ => break None,
                }
            };
            let Some(id) = found else {
                ids.truncate(before);
                ids.push(self.unk);
                return;
            };
            ids.push(id);
            start = end;
        }
    }
}

/// Cleaning, CJK spacing, accent stripping and lowercasing, in that order.
fn normalize(text: &str) -> String {
    let mut spaced = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            spaced.push(' ');
        } else if is_cjk(c) {
            spaced.extend([' ', c, ' ']);
        } else {
            spaced.push(c);
        }
    }
    spaced.nfd().filter(|c| !c.is_mark_nonspacing()).flat_map(char::to_lowercase).collect()
}

/// Words and single punctuation characters, in order.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(is_whitespace).filter(|w| !w.is_empty()).flat_map(|w| {
        let mut parts = Vec::new();
        let mut from = 0;
        for (i, c) in w.char_indices() {
            if is_punctuation(c) {
                if from < i {
                    parts.push(&w[from..i]);
                }
                parts.push(&w[i..i + c.len_utf8()]);
                from = i + c.len_utf8();
            }
        }
        if from < w.len() {
            parts.push(&w[from..]);
        }
        parts
    })
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

/// The CJK Unified Ideographs blocks (not Hangul, Hiragana or Katakana, which BERT splits as words).
fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokenizer() -> WordPiece {
        let vocab: HashMap<String, u32> =
            ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "cafe", ",", "!", "hello", "中", "x"]
                .iter()
                .enumerate()
                .map(|(i, t)| ((*t).to_owned(), i as u32))
                .collect();
        WordPiece { vocab, unk: 1, cls: 2, sep: 3, max_word_chars: 10 }
    }

    #[test]
    fn splits_normalises_and_finds_the_longest_pieces() {
        let t = tokenizer();
        // "Unaffable" → un ##aff ##able; accents and case go; punctuation stands alone; a CJK
        // ideograph is its own word; an unknown word and an over-long one are [UNK].
        assert_eq!(t.encode("Unaffable, CAFÉ!", 64), [2, 4, 5, 6, 8, 7, 9, 3]);
        assert_eq!(t.encode("hello中x\u{200b}\tzzz xxxxxxxxxxx", 64), [2, 10, 11, 12, 1, 1, 3]);
        // Cut to the budget, [SEP] kept.
        assert_eq!(t.encode("hello hello hello hello", 4), [2, 10, 10, 3]);
        assert_eq!(t.encode("", 8), [2, 3]);
    }

    #[test]
    fn refuses_a_tokenizer_it_would_not_reproduce() {
        let cased = r###"{"normalizer":{"type":"BertNormalizer","lowercase":false,"strip_accents":null},
            "pre_tokenizer":{"type":"BertPreTokenizer"},
            "model":{"type":"WordPiece","vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2},"unk_token":"[UNK]",
            "continuing_subword_prefix":"##","max_input_chars_per_word":100}}"###;
        assert!(WordPiece::from_json(cased).is_err());
        let uncased = cased.replace(r#""lowercase":false"#, r#""lowercase":true"#);
        assert!(WordPiece::from_json(&uncased).is_ok());
    }
}
