//! The SQL validator: pure, no I/O. Untrusted SQL (from a model, or from a service) passes five
//! string/token/AST layers, and only its **canonical re-serialisation** is ever executed:
//!
//! 1. input hygiene — length, control characters, invisible format/bidi characters, non-ASCII
//!    whitespace (DuckDB and sqlparser disagree on these);
//! 2. token checks — exotic literals (dollar-quoted, `E'…'`, `X'…'`, …), placeholders and nested
//!    block comments, where the two tokenizers are known to differ;
//! 3. parse with sqlparser's DuckDB dialect — exactly one `SELECT` / `WITH … SELECT`;
//! 4. an AST **allowlist** — relations only the caller's tables or in-scope CTEs (no recursive
//!    CTEs, no quoted or qualified names), table functions only `unnest`/`range`/`generate_series`
//!    with small literal bounds, scalar and aggregate functions only from [`FUNCTIONS`], padding
//!    widths bounded, no clauses outside plain analytics;
//! 5. canonicalisation — `Display` of the AST, re-parsed and required to be a fixed point.
//!
//! Each rejection names its [`Rule`] and says in plain words what is not allowed. The worker
//! then cross-checks the canonical text with DuckDB's own parser and binder before running it.
//!
//! Where each layer lives: `lexical.rs` (layers 1 and 2), `parse.rs` (layer 3), `allowlist.rs`
//! (the walk of layer 4 over statements, clauses, FROM and expressions) with `tables.rs` (table
//! names and CTE scopes), `generators.rs` (the bounds of `range`/`generate_series`), `literals.rs`
//! and `functions.rs` (the allowed and the outside-world functions); canonicalisation (layer 5)
//! and the public API are here.

// sqlparser's AST has hundreds of kinds of statements, expressions and tokens, and gains more
// with each release: this module lists what it allows, and its `_` arms are the refusals of
// everything else — a kind a release adds is refused until someone allows it here.
#![allow(clippy::wildcard_enum_match_arm)]

mod allowlist;
mod functions;
mod generators;
mod lexical;
mod literals;
mod parse;
mod tables;
#[cfg(test)]
mod tests;

pub use functions::{FUNCTIONS, TABLE_FUNCTIONS};

use allowlist::Checker;
use lexical::{hygiene, tokens};
use parse::parse_one_select;
use sqlparser::ast::{Expr, ObjectName, ObjectNamePart, Visit};
use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::ops::ControlFlow;

/// Limits of the validator.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Longest accepted query, in bytes.
    pub max_len: usize,
    /// Largest number of rows `range`/`generate_series` may produce.
    pub max_generator_rows: i128,
    /// Largest product of the rows of every generator in a query: generators crossed with one
    /// another build that many rows (DuckDB's own plan estimates a date spine as one row, so its
    /// product-join check cannot see this).
    pub max_generator_product: i128,
    /// Largest `lpad`/`rpad` width.
    pub max_pad_width: i128,
    /// Most expression nodes in one query (guards against 3,000-term ORs and the like).
    pub max_expressions: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            max_len: 16 * 1024,
            max_generator_rows: 1_000_000,
            max_generator_product: 100_000_000,
            max_pad_width: 1000,
            max_expressions: 5000,
        }
    }
}

/// Which rule refused a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Empty,
    TooLong,
    ControlCharacter,
    InvisibleCharacter,
    ExoticLiteral,
    NestedComment,
    Placeholder,
    Syntax,
    MultipleStatements,
    NotASelect,
    ForbiddenClause,
    RecursiveCte,
    UnknownTable,
    QualifiedName,
    QuotedTable,
    ForbiddenTableFunction,
    ForbiddenFunction,
    GeneratorTooLarge,
    /// Generators whose rows multiply past the bound: a resource limit more than a policy one.
    GeneratorProductTooLarge,
    PaddingTooLarge,
    TooComplex,
    NotCanonical,
}

impl Rule {
    /// A stable name for logs and error details.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Empty => "empty",
            Self::TooLong => "too_long",
            Self::ControlCharacter => "control_character",
            Self::InvisibleCharacter => "invisible_character",
            Self::ExoticLiteral => "exotic_literal",
            Self::NestedComment => "nested_comment",
            Self::Placeholder => "placeholder",
            Self::Syntax => "syntax",
            Self::MultipleStatements => "multiple_statements",
            Self::NotASelect => "not_a_select",
            Self::ForbiddenClause => "forbidden_clause",
            Self::RecursiveCte => "recursive_cte",
            Self::UnknownTable => "unknown_table",
            Self::QualifiedName => "qualified_name",
            Self::QuotedTable => "quoted_table",
            Self::ForbiddenTableFunction => "forbidden_table_function",
            Self::ForbiddenFunction => "forbidden_function",
            Self::GeneratorTooLarge => "generator_too_large",
            Self::GeneratorProductTooLarge => "generator_product_too_large",
            Self::PaddingTooLarge => "padding_too_large",
            Self::TooComplex => "too_complex",
            Self::NotCanonical => "not_canonical",
        }
    }
}

/// A refused query: the rule and a message a person understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub rule: Rule,
    pub message: String,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub(super) fn reject<T>(rule: Rule, message: impl Into<String>) -> Result<T, Rejection> {
    Err(Rejection { rule, message: message.into() })
}

/// A query that passed every layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidatedSql {
    /// The only text that may be executed.
    pub canonical: String,
    /// The caller's tables the query reads (lower-case).
    pub tables: BTreeSet<String>,
}

/// Validates `sql` against the caller's `tables` (their SQL table names).
pub fn validate(sql: &str, tables: &HashSet<String>, policy: &Policy) -> Result<ValidatedSql, Rejection> {
    hygiene(sql, policy)?;
    tokens(sql)?;
    let query = parse_one_select(sql)?;
    let lowered: HashSet<String> = tables.iter().map(|t| t.to_lowercase()).collect();
    let mut checker =
        Checker { tables: &lowered, policy, frames: Vec::new(), used: BTreeSet::new(), expressions: 0, generated: 1 };
    if let ControlFlow::Break(r) = query.visit(&mut checker) {
        return Err(r);
    }
    let canonical = query.to_string();
    match parse_one_select(&canonical) {
        Ok(again) if again.to_string() == canonical => {}
        _ => return reject(Rule::NotCanonical, "the query could not be brought into a canonical form; simplify it"),
    }
    Ok(ValidatedSql { canonical, tables: checker.used })
}

/// `sql` with every reference to table `from` naming `to` instead (a saved query follows its
/// dataset's rename). Refused like any query when it does not parse as one SELECT.
pub fn rename_table(sql: &str, from: &str, to: &str) -> Result<String, Rejection> {
    use sqlparser::ast::{Ident, visit_expressions_mut, visit_relations_mut};
    let mut query = parse_one_select(sql)?;
    let is_from = |ident: &Ident| ident.value.eq_ignore_ascii_case(from);
    let _ = visit_relations_mut(&mut query, |name: &mut ObjectName| {
        if let [ObjectNamePart::Identifier(ident)] = name.0.as_mut_slice()
            && is_from(ident)
        {
            *ident = Ident::new(to);
        }
        ControlFlow::<()>::Continue(())
    });
    let _ = visit_expressions_mut(&mut query, |expr: &mut Expr| {
        if let Expr::CompoundIdentifier(parts) = expr
            && parts.len() >= 2
            && is_from(&parts[0])
        {
            parts[0] = Ident::new(to);
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(query.to_string())
}

/// The single-part table names `sql` reads (lower-case, sorted, each once; a CTE's name counts).
/// Refused like any query when it does not parse as one SELECT.
pub fn tables_named(sql: &str) -> Result<Vec<String>, Rejection> {
    use sqlparser::ast::visit_relations;
    let query = parse_one_select(sql)?;
    let mut names = std::collections::BTreeSet::new();
    let _ = visit_relations(&query, |name: &ObjectName| {
        if let [ObjectNamePart::Identifier(ident)] = name.0.as_slice() {
            names.insert(ident.value.to_lowercase());
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(names.into_iter().collect())
}
