//! Layer 4, the AST allowlist: the [`Checker`] that walks the parsed query — statement and query
//! shape (no locking, SETTINGS, pipes, recursive CTEs or writes; CTE scopes), SELECT clauses, FROM
//! entries (tables, hints, table functions) and expressions (placeholders, functions, padding
//! widths, the expression budget). Table names are checked in `tables.rs`, generators in
//! `generators.rs`.

// `_` arms are the refusals of everything not allowed: see the reason in mod.rs.
#![allow(clippy::wildcard_enum_match_arm)]

use super::functions::{FUNCTIONS, TABLE_FUNCTIONS, outside_world};
use super::literals::{function_args, int_literal_arg};
use super::{Policy, Rejection, Rule};
use sqlparser::ast::{Expr, FunctionArguments, ObjectNamePart, Query, SetExpr, TableFactor, Value, Visitor};
use std::collections::{BTreeSet, HashSet};
use std::ops::ControlFlow;

/// One query scope: the CTE bodies declared by its WITH that are not finished yet, and the CTE
/// names already visible (declared earlier and finished).
pub(super) struct Frame {
    query: *const Query,
    pending: Vec<(*const Query, String)>,
    pub(super) visible: Vec<String>,
}

pub(super) struct Checker<'a> {
    pub(super) tables: &'a HashSet<String>,
    pub(super) policy: &'a Policy,
    pub(super) frames: Vec<Frame>,
    pub(super) used: BTreeSet<String>,
    pub(super) expressions: usize,
    /// The product of the rows of the generators seen so far.
    pub(super) generated: i128,
}

pub(super) type Flow = ControlFlow<Rejection>;

pub(super) fn stop(rule: Rule, message: impl Into<String>) -> Flow {
    ControlFlow::Break(Rejection { rule, message: message.into() })
}

impl Visitor for Checker<'_> {
    type Break = Rejection;

    fn pre_visit_query(&mut self, query: &Query) -> Flow {
        if !query.locks.is_empty()
            || query.for_clause.is_some()
            || query.settings.is_some()
            || query.format_clause.is_some()
            || !query.pipe_operators.is_empty()
        {
            return stop(Rule::ForbiddenClause, "locking, FOR, SETTINGS, FORMAT and pipe clauses are not allowed");
        }
        let mut pending = Vec::new();
        if let Some(with) = &query.with {
            if with.recursive {
                return stop(Rule::RecursiveCte, "WITH RECURSIVE is not allowed");
            }
            for cte in &with.cte_tables {
                pending.push((&*cte.query as *const Query, cte.alias.name.value.to_lowercase()));
            }
        }
        match &*query.body {
            SetExpr::Select(_) | SetExpr::Query(_) | SetExpr::SetOperation { .. } | SetExpr::Values(_) => {}
            SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => {
                return stop(
                    Rule::NotASelect,
                    "queries may only read: INSERT, UPDATE, DELETE and MERGE are not allowed",
                );
            }
            SetExpr::Table(_) => {
                return stop(Rule::ForbiddenClause, "`TABLE name` is not allowed; write SELECT * FROM name");
            }
        }
        self.frames.push(Frame { query, pending, visible: Vec::new() });
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &Query) -> Flow {
        if self.frames.last().is_some_and(|f| std::ptr::eq(f.query, query)) {
            self.frames.pop();
        }
        // A finished CTE body becomes visible to the CTEs after it and to the main body.
        if let Some(frame) = self.frames.last_mut()
            && let Some(i) = frame.pending.iter().position(|(q, _)| std::ptr::eq(*q, query))
        {
            let (_, name) = frame.pending.remove(i);
            frame.visible.push(name);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &sqlparser::ast::Select) -> Flow {
        if select.into.is_some() {
            return stop(Rule::NotASelect, "SELECT … INTO creates a table and is not allowed");
        }
        if !select.lateral_views.is_empty()
            || select.prewhere.is_some()
            || !select.connect_by.is_empty()
            || select.top.is_some()
            || select.value_table_mode.is_some()
            || !select.cluster_by.is_empty()
            || !select.distribute_by.is_empty()
            || !select.sort_by.is_empty()
        {
            return stop(
                Rule::ForbiddenClause,
                "that clause is not supported; use standard SELECT … FROM … WHERE … GROUP BY …",
            );
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> Flow {
        match factor {
            TableFactor::Table { name, args, with_hints, version, partitions, json_path, index_hints, .. } => {
                if !with_hints.is_empty()
                    || version.is_some()
                    || !partitions.is_empty()
                    || json_path.is_some()
                    || !index_hints.is_empty()
                {
                    return stop(
                        Rule::ForbiddenClause,
                        format!("table hints, versions and partitions are not allowed (`{name}`)"),
                    );
                }
                match args {
                    None => self.check_table(name),
                    Some(args) => {
                        let [ObjectNamePart::Identifier(ident)] = name.0.as_slice() else {
                            return stop(Rule::QualifiedName, format!("`{name}`: call functions by their plain name"));
                        };
                        let lower = ident.value.to_lowercase();
                        if !TABLE_FUNCTIONS.contains(&lower.as_str()) {
                            return stop(
                                Rule::ForbiddenTableFunction,
                                format!("`{}` is not allowed: queries may only read your datasets", ident.value),
                            );
                        }
                        self.check_generator(&lower, &args.args)
                    }
                }
            }
            TableFactor::Derived { .. } | TableFactor::NestedJoin { .. } | TableFactor::UNNEST { .. } => {
                ControlFlow::Continue(())
            }
            other => stop(
                Rule::ForbiddenClause,
                format!("`{}` is not allowed in FROM", other.to_string().split_whitespace().next().unwrap_or("that")),
            ),
        }
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> Flow {
        self.expressions += 1;
        if self.expressions > self.policy.max_expressions {
            return stop(
                Rule::TooComplex,
                format!("the query has more than {} expressions", self.policy.max_expressions),
            );
        }
        match expr {
            Expr::Value(v) if matches!(v.value, Value::Placeholder(_)) => {
                stop(Rule::Placeholder, "parameters are not allowed; write the value")
            }
            Expr::Function(f) => {
                let [ObjectNamePart::Identifier(ident)] = f.name.0.as_slice() else {
                    return stop(Rule::QualifiedName, format!("`{}`: call functions by their plain name", f.name));
                };
                let lower = ident.value.to_lowercase();
                if !matches!(f.parameters, FunctionArguments::None) {
                    return stop(Rule::ForbiddenFunction, format!("`{}` with parameters is not allowed", ident.value));
                }
                if outside_world(&lower) {
                    return stop(
                        Rule::ForbiddenFunction,
                        format!("`{}` is not allowed: queries may only read your datasets", ident.value),
                    );
                }
                if !FUNCTIONS.contains(&lower.as_str()) {
                    return stop(
                        Rule::ForbiddenFunction,
                        format!("the function `{}` is not allowed in queries", ident.value),
                    );
                }
                if matches!(lower.as_str(), "lpad" | "rpad") {
                    let width = function_args(&f.args).get(1).and_then(int_literal_arg);
                    if !width.is_some_and(|w| (0..=self.policy.max_pad_width).contains(&w)) {
                        return stop(
                            Rule::PaddingTooLarge,
                            format!("`{lower}` needs a literal width of at most {}", self.policy.max_pad_width),
                        );
                    }
                }
                ControlFlow::Continue(())
            }
            _ => ControlFlow::Continue(()),
        }
    }
}
