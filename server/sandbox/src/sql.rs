//! Quoting helpers for SQL this crate generates. User-provided text (column names come from
//! uploaded files) only ever enters SQL through these.

/// `"name"` with embedded quotes doubled.
pub(crate) fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `'text'` with embedded quotes doubled.
pub(crate) fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting_doubles_the_quote_character() {
        assert_eq!(super::ident(r#"a"; DROP TABLE x; --"#), r#""a""; DROP TABLE x; --""#);
        assert_eq!(super::literal("it's"), "'it''s'");
    }
}
