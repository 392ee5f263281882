//! Layer 3: the parse with sqlparser's DuckDB dialect, which must give exactly one `SELECT` /
//! `WITH … SELECT` (also the entry of [`super::rename_table`] and [`super::tables_named`]).

// `_` arms are the refusals of everything not allowed: see the reason in mod.rs.
#![allow(clippy::wildcard_enum_match_arm)]

use super::{Rejection, Rule, reject};
use sqlparser::ast::{Query, SetExpr, Statement};
use sqlparser::dialect::DuckDbDialect;
use sqlparser::parser::Parser;

/// Layer 3: exactly one SELECT.
pub(super) fn parse_one_select(sql: &str) -> Result<Box<Query>, Rejection> {
    let statements = Parser::new(&DuckDbDialect {})
        .with_recursion_limit(40)
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| Rejection { rule: Rule::Syntax, message: format!("the query could not be parsed: {e}") })?;
    let mut statements = statements.into_iter();
    let (Some(first), None) = (statements.next(), statements.next()) else {
        return reject(Rule::MultipleStatements, "send exactly one SELECT query (no `;`-separated statements)");
    };
    match first {
        Statement::Query(q) => {
            if matches!(*q.body, SetExpr::Values(_)) {
                return reject(Rule::NotASelect, "a bare VALUES list is not a query over your datasets");
            }
            Ok(q)
        }
        other => reject(Rule::NotASelect, format!("only SELECT queries are allowed, not {}", statement_kind(&other))),
    }
}

fn statement_kind(s: &Statement) -> String {
    let text = s.to_string();
    let word: String = text.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
    format!("`{}`", word.to_uppercase())
}
