//! Layers 1 and 2, on the raw text before any parse: input hygiene (length, control, invisible
//! and non-ASCII whitespace characters) and the token checks where sqlparser and DuckDB disagree
//! (exotic literals, placeholders, nested block comments).

// `_` arms are the refusals of everything not allowed: see the reason in mod.rs.
#![allow(clippy::wildcard_enum_match_arm)]

use super::{Policy, Rejection, Rule, reject};
use sqlparser::dialect::DuckDbDialect;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};

/// Layer 1: characters.
pub(super) fn hygiene(sql: &str, policy: &Policy) -> Result<(), Rejection> {
    if sql.trim().is_empty() {
        return reject(Rule::Empty, "the query is empty");
    }
    if sql.len() > policy.max_len {
        return reject(Rule::TooLong, format!("the query is longer than {} bytes", policy.max_len));
    }
    for c in sql.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            return reject(
                Rule::ControlCharacter,
                format!("the query contains a control character (U+{:04X}); use plain spaces and newlines", c as u32),
            );
        }
        if aware_domain::dataset::is_format_char(c) || matches!(c, '\u{2028}' | '\u{2029}') {
            return reject(
                Rule::InvisibleCharacter,
                format!("the query contains an invisible formatting character (U+{:04X})", c as u32),
            );
        }
        if c.is_whitespace() && !c.is_ascii() {
            return reject(
                Rule::InvisibleCharacter,
                format!("the query contains non-ASCII whitespace (U+{:04X}); use plain spaces", c as u32),
            );
        }
    }
    Ok(())
}

/// Layer 2: tokens where sqlparser and DuckDB are known to disagree.
pub(super) fn tokens(sql: &str) -> Result<(), Rejection> {
    let tokens = Tokenizer::new(&DuckDbDialect {}, sql).tokenize().map_err(|e| Rejection {
        rule: Rule::Syntax,
        message: format!("the query could not be read: {}", e.message),
    })?;
    let mut previous: Option<&Token> = None;
    let mut before_previous: Option<&Token> = None;
    for token in &tokens {
        match token {
            Token::Whitespace(Whitespace::MultiLineComment(body)) if body.contains("/*") => {
                return reject(Rule::NestedComment, "nested block comments are not allowed");
            }
            Token::Placeholder(p) => {
                return reject(Rule::Placeholder, format!("parameters such as `{p}` are not allowed; write the value"));
            }
            Token::DollarQuotedString(_)
            | Token::EscapedStringLiteral(_)
            | Token::NationalStringLiteral(_)
            | Token::HexStringLiteral(_)
            | Token::UnicodeStringLiteral(_)
            | Token::SingleQuotedByteStringLiteral(_)
            | Token::DoubleQuotedByteStringLiteral(_)
            | Token::TripleSingleQuotedByteStringLiteral(_)
            | Token::TripleDoubleQuotedByteStringLiteral(_)
            | Token::SingleQuotedRawStringLiteral(_)
            | Token::DoubleQuotedRawStringLiteral(_)
            | Token::TripleSingleQuotedRawStringLiteral(_)
            | Token::TripleDoubleQuotedRawStringLiteral(_)
            | Token::TripleSingleQuotedString(_)
            | Token::TripleDoubleQuotedString(_)
            | Token::QuoteDelimitedStringLiteral(_)
            | Token::NationalQuoteDelimitedStringLiteral(_) => {
                return reject(Rule::ExoticLiteral, "only plain 'single-quoted' string literals are allowed");
            }
            Token::SingleQuotedString(_) if matches!(previous, Some(Token::Word(_))) => {
                return reject(
                    Rule::ExoticLiteral,
                    "a word glued to a string literal (like E'…' or X'…') is not allowed; put a space between them",
                );
            }
            // U&'…' (unicode-escape strings in PostgreSQL) reads as `U & '…'` to sqlparser.
            Token::SingleQuotedString(_)
                if matches!(previous, Some(Token::Ampersand)) && matches!(before_previous, Some(Token::Word(_))) =>
            {
                return reject(Rule::ExoticLiteral, "unicode-escape strings (U&'…') are not allowed");
            }
            _ => {}
        }
        before_previous = previous;
        previous = Some(token);
    }
    Ok(())
}
