//! Table references of layer 4: a relation in FROM must be one of the caller's tables or a CTE in
//! scope, named plainly (no schema prefix, no quoted file or URL).

use super::Rule;
use super::allowlist::{Checker, Flow, stop};
use sqlparser::ast::{ObjectName, ObjectNamePart};
use std::ops::ControlFlow;

impl Checker<'_> {
    fn cte_visible(&self, name: &str) -> bool {
        self.frames.iter().any(|f| f.visible.iter().any(|v| v == name))
    }

    pub(super) fn check_table(&mut self, name: &ObjectName) -> Flow {
        let [ObjectNamePart::Identifier(ident)] = name.0.as_slice() else {
            return stop(
                Rule::QualifiedName,
                format!("`{name}`: refer to tables by their plain name (no schema or database prefix)"),
            );
        };
        if matches!(ident.quote_style, Some(q) if q != '"') {
            return stop(
                Rule::QuotedTable,
                format!("`{ident}` is not allowed: queries may only read your datasets, not files or URLs"),
            );
        }
        let lower = ident.value.to_lowercase();
        if self.cte_visible(&lower) {
            return ControlFlow::Continue(());
        }
        if self.tables.contains(&lower) {
            self.used.insert(lower);
            return ControlFlow::Continue(());
        }
        if lower.contains('/') || lower.contains('.') || lower.contains(':') {
            return stop(
                Rule::QuotedTable,
                format!("`{}` is not allowed: queries may only read your datasets, not files or URLs", ident.value),
            );
        }
        let mut known: Vec<&String> = self.tables.iter().collect();
        known.sort();
        let list = if known.is_empty() {
            "you have no datasets yet".to_owned()
        } else {
            format!("your datasets are {}", known.iter().take(12).map(|t| t.as_str()).collect::<Vec<_>>().join(", "))
        };
        stop(Rule::UnknownTable, format!("unknown table `{}`: {list}", ident.value))
    }
}
