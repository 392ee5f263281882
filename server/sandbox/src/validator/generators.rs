//! Generators of layer 4: the rows `range`/`generate_series` may produce, from whole-number or
//! date-spine literal arguments, alone and multiplied across a query.

// `_` arms are the refusals of everything not allowed: see the reason in mod.rs.
#![allow(clippy::wildcard_enum_match_arm)]

use super::Rule;
use super::allowlist::{Checker, Flow, stop};
use super::literals::{int_literal, int_literal_arg};
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, Value};
use std::ops::ControlFlow;

impl Checker<'_> {
    pub(super) fn check_generator(&mut self, name: &str, args: &[FunctionArg]) -> Flow {
        if name == "unnest" {
            return ControlFlow::Continue(());
        }
        if let Some(rows) = date_spine_rows(args) {
            if rows > self.policy.max_generator_rows {
                return stop(
                    Rule::GeneratorTooLarge,
                    format!(
                        "`{name}` would produce {rows} rows; at most {} are allowed",
                        self.policy.max_generator_rows
                    ),
                );
            }
            return self.count_generated(rows);
        }
        let ints: Option<Vec<i128>> = args.iter().map(int_literal_arg).collect();
        let Some(ints) = ints else {
            return stop(
                Rule::GeneratorTooLarge,
                format!(
                    "`{name}` needs whole-number literal arguments (at most {} rows)",
                    self.policy.max_generator_rows
                ),
            );
        };
        let (start, end, step) = match ints.as_slice() {
            [end] => (0, *end, 1),
            [start, end] => (*start, *end, 1),
            [start, end, step] => (*start, *end, *step),
            _ => return stop(Rule::GeneratorTooLarge, format!("`{name}` takes one to three arguments")),
        };
        if step == 0 {
            return stop(Rule::GeneratorTooLarge, format!("`{name}` needs a non-zero step"));
        }
        let rows = (end - start) / step;
        if rows > self.policy.max_generator_rows {
            return stop(
                Rule::GeneratorTooLarge,
                format!("`{name}` would produce {rows} rows; at most {} are allowed", self.policy.max_generator_rows),
            );
        }
        self.count_generated(rows)
    }

    /// Multiplies a generator's rows into the query's product (an upper bound: generators that are
    /// never joined are counted as if they were).
    fn count_generated(&mut self, rows: i128) -> Flow {
        self.generated = self.generated.saturating_mul(rows.max(1));
        if self.generated > self.policy.max_generator_product {
            return stop(
                Rule::GeneratorProductTooLarge,
                format!(
                    "the query crosses generators that would build about {} rows (at most {}); generate fewer rows or join on a condition",
                    self.generated, self.policy.max_generator_product
                ),
            );
        }
        ControlFlow::Continue(())
    }
}
/// Rows of a date spine `(DATE|TIMESTAMP 'YYYY-MM-DD…', DATE|TIMESTAMP '…', INTERVAL n unit)`
/// with a step of a day or more; `None` when the arguments are not of that shape.
fn date_spine_rows(args: &[FunctionArg]) -> Option<i128> {
    let [start, end, step] = args else { return None };
    let day = |a: &FunctionArg| -> Option<i128> {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::TypedString(t))) = a else { return None };
        day_number(t.value.value.to_string().trim_matches('\''))
    };
    let span = day(end)? - day(start)?;
    let FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Interval(interval))) = step else { return None };
    let count = int_literal(&interval.value).or_else(|| match &*interval.value {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => s.split_whitespace().next()?.parse().ok(),
            _ => None,
        },
        _ => None,
    })?;
    let unit = interval.leading_field.as_ref().map(|f| f.to_string().to_lowercase()).unwrap_or_default();
    let days_per = match unit.as_str() {
        "day" | "days" => 1,
        "week" | "weeks" => 7,
        "month" | "months" => 31,
        "quarter" | "quarters" => 93,
        "year" | "years" => 372,
        _ => return None,
    };
    (count > 0).then(|| span.max(0) / (count * days_per) + 1)
}

/// A date (or timestamp) literal as a day count: `[-]YYYY…-MM-DD`, with a year of any length
/// and sign (DuckDB takes `-100000-01-01`), optionally followed by a time. Monotonic and at least
/// as dense as real days. `None` for anything else — a `BC` suffix, `infinity`, a malformed
/// date — which leaves the generator refused.
pub(super) fn day_number(text: &str) -> Option<i128> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let year_len = unsigned.find('-')?;
    let (year, rest) = unsigned.split_at(year_len);
    let date = rest.get(1..6)?;
    let time = &rest[6..];
    if year.is_empty()
        || year.len() > 9
        || !year.bytes().all(|b| b.is_ascii_digit())
        || !date.bytes().enumerate().all(|(i, b)| if i == 2 { b == b'-' } else { b.is_ascii_digit() })
        || !(time.is_empty() || time.starts_with([' ', 'T']))
        || time.to_ascii_uppercase().contains("BC")
    {
        return None;
    }
    let year: i128 = year.parse().ok()?;
    let (m, d): (i128, i128) = (date[..2].parse().ok()?, date[3..].parse().ok()?);
    Some(if negative { -year } else { year } * 372 + m * 31 + d)
}
