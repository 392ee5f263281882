//! Conditions on the rows: comparisons with numbers (units converted), categorical values and
//! flags with "or" lists and negation, and periods of time.

use super::messages::{numeric_columns, or_list};
use super::words::*;
use super::{Choice, Cond, Lit, Reader, Unread};
use crate::lexicon::{Class, Meaning};
use crate::text::stem;
use aware_core::query_plan::FilterOp;
use aware_core::runs::clarify::ClarificationKind;
use chrono::{Datelike, Duration, NaiveDate};

impl Reader<'_> {
    /// "more than 500000", "price over 500k", "at least 3 bedrooms", "3-bedroom", "between 2 and 4".
    pub(super) fn comparisons(&mut self) -> Result<Vec<Cond>, Unread> {
        let lex = self.lex;
        let mut out = Vec::new();
        let n = self.tokens.len();
        let mut i = 0;
        while i < n {
            if self.used[i] {
                i += 1;
                continue;
            }
            // The operator and where its number is.
            let w = self.word(i).to_owned();
            let mut op_len = 0;
            let mut op = None;
            let mut class_hint: Option<Class> = None;
            let two = (w.as_str(), self.word(i + 1));
            match two {
                ("at", "least") | ("no", "less") | ("no", "fewer") => {
                    op = Some(FilterOp::Ge);
                    op_len = if two.0 == "no" { 3 } else { 2 };
                }
                ("at", "most") | ("no", "more") | ("up", "to") => {
                    op = Some(FilterOp::Le);
                    op_len = if two.0 == "no" { 3 } else { 2 };
                }
                ("more", "expensive") | ("pricier", _) | ("costlier", _) => {
                    op = Some(FilterOp::Gt);
                    op_len = if w == "more" { 2 } else { 1 };
                    class_hint = Some(Class::Money);
                }
                ("less", "expensive") => {
                    op = Some(FilterOp::Lt);
                    op_len = 2;
                    class_hint = Some(Class::Money);
                }
                _ => {}
            }
            if op.is_none() {
                let (o, hint) = match w.as_str() {
                    "over" | "above" | "exceeding" | "exceeds" | "exceed" | "gt" => (Some(FilterOp::Gt), None),
                    "more" | "greater" | "higher" | "larger" | "bigger" | "longer" | "older" => {
                        (Some(FilterOp::Gt), ADJECTIVES.iter().find(|(a, _, _)| *a == w).map(|(_, c, _)| *c))
                    }
                    "under" | "below" | "lt" => (Some(FilterOp::Lt), None),
                    "less" | "fewer" | "lower" | "smaller" | "shorter" | "younger" | "cheaper" => {
                        (Some(FilterOp::Lt), ADJECTIVES.iter().find(|(a, _, _)| *a == w).map(|(_, c, _)| *c))
                    }
                    "ge" => (Some(FilterOp::Ge), None),
                    "le" => (Some(FilterOp::Le), None),
                    "eq" | "equals" | "exactly" => (Some(FilterOp::Eq), None),
                    "ne" => (Some(FilterOp::Ne), None),
                    "between" => (Some(FilterOp::Between), None),
                    _ => (None, None),
                };
                op = o;
                class_hint = hint;
                op_len = 1;
                if self.word(i + 1) == "than" || (self.word(i + 1) == "to" && w == "equal") {
                    op_len = 2;
                }
            }
            let Some(op) = op else {
                i += 1;
                continue;
            };
            // The number: right after the operator ("than", "of" and currency words skipped).
            let mut j = i + op_len;
            while j < n && matches!(self.word(j), "than" | "of" | "the" | "a") {
                j += 1;
            }
            let Some(first) = self.tokens.get(j).and_then(|t| t.number) else {
                i += 1;
                continue;
            };
            let currency = self.tokens[j].currency.is_some();
            let percent = self.tokens[j].percent;
            let mut values = vec![Lit::Num(first)];
            let mut end = j + 1;
            if op == FilterOp::Between {
                if self.word(end) == "and" && self.tokens.get(end + 1).and_then(|t| t.number).is_some() {
                    values.push(Lit::Num(self.tokens[end + 1].number.unwrap_or_default()));
                    end += 2;
                } else {
                    i += 1;
                    continue;
                }
            }
            if percent {
                return Err(Unread::Refuse("I cannot compare with percentages yet.".to_owned()));
            }
            // The column: a unit or column right after the number ("more than 2 bathrooms",
            // "over 100 sqm"), else the nearest numeric column before the operator, else the one
            // column of the class the words imply.
            // "more than 30 days": the one numeric column measured in that unit.
            let unit_column = {
                let said = stem(self.word(end));
                let measured: Vec<usize> = (0..lex.columns.len())
                    .filter(|&c| {
                        lex.columns[c].is_numeric() && unit_word(&lex.columns[c]).is_some_and(|u| stem(u) == said)
                    })
                    .collect();
                if let [c] = measured.as_slice() { Some(*c) } else { None }
            };
            let mut after = self.column_span(end).filter(|c| lex.columns[*c].is_numeric()).or(unit_column);
            // "waited more than 2 hours" over a column in minutes: the number is converted.
            let mut scale = 1.0;
            if after.is_none()
                && let Some(said) = time_unit(self.word(end))
            {
                let before = (0..i)
                    .rev()
                    .find_map(|k| self.column_span(k).filter(|c| !self.used[k] && lex.columns[*c].is_numeric()));
                let durations = lex.of_class(Class::Duration);
                let target = before.filter(|c| durations.contains(c)).or(if let [d] = durations.as_slice() {
                    Some(*d)
                } else {
                    None
                });
                // Only exact conversions: minutes, hours, days and weeks; months and years.
                let exact = |a: f64, b: f64| (a < 43_830.0) == (b < 43_830.0);
                if let Some(c) = target
                    && let Some(stored) = unit_word(&lex.columns[c]).and_then(time_unit)
                    && exact(said, stored)
                {
                    scale = said / stored;
                    after = Some(c);
                }
            }
            if scale != 1.0 {
                for v in &mut values {
                    if let Lit::Num(x) = v {
                        *x *= scale;
                    }
                }
            }
            let before = (0..i).rev().find_map(|k| {
                if self.used[k] {
                    return None;
                }
                self.column_span(k).filter(|c| lex.columns[*c].is_numeric() && !self.used[k])
            });
            let by_class = |class: Class| {
                let cs = lex.of_class(class);
                if cs.len() == 1 { Some(cs[0]) } else { None }
            };
            let column = after
                .or(before)
                .or_else(|| class_hint.and_then(by_class))
                .or_else(|| if currency { by_class(Class::Money) } else { None });
            let Some(column) = column else {
                let said: Vec<&str> = self.tokens[i..end].iter().map(|t| t.raw.as_str()).collect();
                return Err(Unread::Ask(format!(
                    "“{}” — of which column? {} has {}.",
                    said.join(" "),
                    lex.dataset.table_name,
                    numeric_columns(lex)
                )));
            };
            if let Some(hint) = class_hint
                && lex.columns[column].class != hint
                && !(w == "more" || w == "less" || w == "fewer" || w == "higher" || w == "lower")
            {
                return Err(Unread::Refuse(format!(
                    "“{}” does not fit {}.",
                    self.tokens[i].raw, lex.columns[column].name
                )));
            }
            self.mark(i, end);
            // "a tenure of at least 24 months": the column may be named before and after.
            if let Some(k) = (0..i).rev().find(|&k| self.column_span(k) == Some(column) && !self.used[k]) {
                self.mark_span(k);
            }
            if after.is_some() {
                self.mark_span(end);
                self.used[end] = true;
            } else {
                // "a tenure of at least 24 months": the column's unit after the number.
                if unit_word(&lex.columns[column]).is_some_and(|u| stem(self.word(end)) == stem(u)) {
                    self.used[end] = true;
                }
            }
            out.push(Cond { column, op, values, period: None });
            i = end;
        }
        // "3 bedrooms", "with 2 bathrooms", "3-bedroom": a number right before a count column.
        for i in 0..n {
            if self.used[i] {
                continue;
            }
            let Some(x) = self.tokens[i].number else { continue };
            if self.tokens[i].currency.is_some() || self.tokens[i].percent {
                continue;
            }
            if let Some(c) =
                self.column_span(i + 1).filter(|c| matches!(lex.columns[*c].class, Class::Count | Class::Number))
                && self.span_at(i + 1).is_some()
            {
                self.used[i] = true;
                self.mark_span(i + 1);
                out.push(Cond { column: c, op: FilterOp::Eq, values: vec![Lit::Num(x)], period: None });
            }
        }
        Ok(out)
    }

    /// Conditions from categorical values and flags: "in Gràcia or Eixample", "without a
    /// terrace", "not closed".
    pub(super) fn value_conditions(&mut self) -> Result<Vec<Cond>, Unread> {
        let mut out: Vec<Cond> = Vec::new();
        let spans = self.spans.clone();
        let mut k = 0;
        while k < spans.len() {
            let s = &spans[k];
            if self.used[s.start] {
                k += 1;
                continue;
            }
            match &s.meaning {
                Meaning::Value(c, v) => {
                    let c = *c;
                    let negated = self.negated_before(s.start);
                    let mut values = vec![Lit::Text(v.clone())];
                    self.mark(s.start, s.end);
                    // "Gràcia or Eixample", "Gràcia, Eixample and Les Corts".
                    let mut last_end = s.end;
                    let mut m = k + 1;
                    while m < spans.len() {
                        let next = &spans[m];
                        let gap: Vec<&str> = (last_end..next.start).map(|x| self.word(x)).collect();
                        let joins = !gap.is_empty()
                            && gap.iter().all(|g| matches!(*g, "or" | "and" | "in" | "the" | "either" | "nor"))
                            || gap.is_empty();
                        match &next.meaning {
                            Meaning::Value(c2, v2) if *c2 == c && joins => {
                                values.push(Lit::Text(v2.clone()));
                                self.mark(last_end, next.end);
                                last_end = next.end;
                                m += 1;
                            }
                            _ => break,
                        }
                    }
                    k = m;
                    let op = match (values.len(), negated) {
                        (1, false) => FilterOp::Eq,
                        (1, true) => FilterOp::Ne,
                        (_, false) => FilterOp::In,
                        (_, true) => FilterOp::NotIn,
                    };
                    if let Some(existing) =
                        out.iter_mut().find(|x| x.column == c && x.op == FilterOp::Eq && op == FilterOp::Eq)
                    {
                        // Two values of one column joined by "and": a row has one value, so
                        // either is meant.
                        existing.op = FilterOp::In;
                        existing.values.extend(values);
                    } else {
                        out.push(Cond { column: c, op, values, period: None });
                    }
                    continue;
                }
                Meaning::Flag(c, holds) => {
                    let c = *c;
                    let holds = *holds;
                    let negated = self.negated_before(s.start) || self.negated_after(s.end);
                    self.mark(s.start, s.end);
                    out.push(Cond {
                        column: c,
                        op: FilterOp::Eq,
                        values: vec![Lit::Bool(holds != negated)],
                        period: None,
                    });
                }
                _ => {}
            }
            k += 1;
        }
        // "or" that joined nothing would be dropped: refuse rather than read it as "and".
        if let Some(i) = (0..self.tokens.len()).find(|&i| self.word(i) == "or" && !self.used[i]) {
            return Err(Unread::Refuse(format!(
                "I can combine “or” only between values of one column (e.g. “in Gràcia or Eixample”); I could not apply the “or” in “{}”.",
                self.tokens[i.saturating_sub(2)..(i + 3).min(self.tokens.len())]
                    .iter()
                    .map(|t| t.raw.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            )));
        }
        Ok(out)
    }

    /// A negation word shortly before `i`, with only function words between ("not in",
    /// "without a", "other than"); it is used up.
    pub(super) fn negated_before(&mut self, i: usize) -> bool {
        let mut k = i;
        while k > 0 && i - k < 3 {
            k -= 1;
            if self.used[k] || self.span_covering(k).is_some() {
                return false;
            }
            let w = self.word(k);
            if NEGATIONS.contains(&w) {
                self.used[k] = true;
                return true;
            }
            if w == "than" && k > 0 && self.word(k - 1) == "other" && !self.used[k - 1] {
                self.mark(k - 1, k + 1);
                return true;
            }
            if !FUNCTION_WORDS.contains(&w) {
                return false;
            }
        }
        false
    }

    /// "churned: no", "terrace = false".
    pub(super) fn negated_after(&mut self, end: usize) -> bool {
        let mut k = end;
        if self.word(k) == "eq" {
            k += 1;
        }
        match self.word(k) {
            "false" | "no" | "0" if !self.used.get(k).copied().unwrap_or(true) => {
                self.mark(end, k + 1);
                true
            }
            "true" | "yes" | "1" if !self.used.get(k).copied().unwrap_or(true) => {
                self.mark(end, k + 1);
                false
            }
            _ => false,
        }
    }

    /// Time words: "last month", "this year", "in 2024", "in March 2025", "since 2024",
    /// "before 2025", "in the last 30 days", "yesterday", "today".
    pub(super) fn time_condition(&mut self) -> Result<Option<Cond>, Unread> {
        let lex = self.lex;
        let n = self.tokens.len();
        let today = self.today;
        let mut found: Option<(usize, usize, NaiveDate, NaiveDate, String, FilterOp)> = None;
        let month_start = |y: i32, m: u32| NaiveDate::from_ymd_opt(y, m, 1);
        let next_month = |y: i32, m: u32| if m == 12 { month_start(y + 1, 1) } else { month_start(y, m + 1) };
        for i in 0..n {
            // A value or name ("Del Mar", "March Street") is not a date.
            if self.used[i] || self.span_covering(i).is_some() {
                continue;
            }
            let w = self.word(i);
            let w1 = self.word(i + 1);
            let range = match (w, w1) {
                ("last" | "previous" | "past", "month") => {
                    let first = month_start(today.year(), today.month())
                        .and_then(|d| d.checked_sub_months(chrono::Months::new(1)));
                    first.and_then(|f| {
                        Some((
                            i,
                            i + 2,
                            f,
                            next_month(f.year(), f.month())?,
                            format!("last month ({})", f.format("%B %Y")),
                        ))
                    })
                }
                ("this" | "current", "month") => month_start(today.year(), today.month())
                    .map(|f| (i, i + 2, f, today + Duration::days(1), format!("this month ({})", f.format("%B %Y")))),
                ("last" | "previous" | "past", "year") => {
                    let y = today.year() - 1;
                    month_start(y, 1)
                        .zip(month_start(y + 1, 1))
                        .map(|(a, b)| (i, i + 2, a, b, format!("last year ({y})")))
                }
                ("this" | "current", "year") => month_start(today.year(), 1)
                    .map(|a| (i, i + 2, a, today + Duration::days(1), format!("this year ({})", today.year()))),
                ("last" | "previous" | "past", "week") => {
                    let monday = today - Duration::days(i64::from(today.weekday().num_days_from_monday()));
                    let start = monday - Duration::days(7);
                    Some((
                        i,
                        i + 2,
                        start,
                        monday,
                        format!(
                            "last week ({} to {})",
                            start.format("%Y-%m-%d"),
                            (monday - Duration::days(1)).format("%Y-%m-%d")
                        ),
                    ))
                }
                ("this" | "current", "week") => {
                    let monday = today - Duration::days(i64::from(today.weekday().num_days_from_monday()));
                    Some((i, i + 2, monday, today + Duration::days(1), "this week".to_owned()))
                }
                ("yesterday", _) => {
                    let y = today - Duration::days(1);
                    Some((i, i + 1, y, today, format!("yesterday ({})", y.format("%Y-%m-%d"))))
                }
                ("today", _) => {
                    Some((i, i + 1, today, today + Duration::days(1), format!("today ({})", today.format("%Y-%m-%d"))))
                }
                ("last" | "past", _) if self.tokens.get(i + 1).and_then(|t| t.number).is_some() => {
                    let k = self.tokens[i + 1].number.unwrap_or_default();
                    let unit = self.word(i + 2);
                    let days = match unit {
                        "day" | "days" => Some(k),
                        "week" | "weeks" => Some(k * 7.0),
                        "month" | "months" => None,
                        "year" | "years" => None,
                        _ => {
                            continue;
                        }
                    };
                    let start = match days {
                        Some(d) if d.fract() == 0.0 && d > 0.0 && d < 100_000.0 => {
                            Some(today - Duration::days(d as i64 - 1))
                        }
                        Some(_) => None,
                        None if k.fract() == 0.0 && k > 0.0 && k < 1200.0 => {
                            let months = if unit.starts_with("year") { k as u32 * 12 } else { k as u32 };
                            today.checked_sub_months(chrono::Months::new(months)).map(|d| d + Duration::days(1))
                        }
                        None => None,
                    };
                    start.map(|s| {
                        (
                            i,
                            i + 3,
                            s,
                            today + Duration::days(1),
                            format!(
                                "in the last {} {} ({} to {})",
                                k,
                                unit,
                                s.format("%Y-%m-%d"),
                                today.format("%Y-%m-%d")
                            ),
                        )
                    })
                }
                _ => None,
            };
            if let Some((a, b, from, to, label)) = range {
                let start = if a > 0 && matches!(self.word(a - 1), "in" | "during" | "over" | "for" | "from") {
                    a - 1
                } else {
                    a
                };
                found = Some((start, b, from, to, label, FilterOp::Between));
                break;
            }
            // A year, maybe with a month before it: "in 2024", "March 2025", "since 2024".
            if let Some(y) = self.tokens[i].number.filter(|y| y.fract() == 0.0 && (1900.0..=2100.0).contains(y))
                && self.tokens[i].currency.is_none()
                && !self.used[i]
            {
                let y = y as i32;
                let month = i.checked_sub(1).and_then(|p| month_number(self.word(p)));
                let from_at = if month.is_some() { i - 1 } else { i };
                let (from, to, label) = match month {
                    Some(m) => {
                        let Some(f) = month_start(y, m) else { continue };
                        let Some(t) = next_month(y, m) else { continue };
                        (f, t, f.format("%B %Y").to_string())
                    }
                    None => {
                        let (Some(f), Some(t)) = (month_start(y, 1), month_start(y + 1, 1)) else { continue };
                        (f, t, y.to_string())
                    }
                };
                let lead = from_at.checked_sub(1).map(|p| self.word(p).to_owned()).unwrap_or_default();
                let (op, start, label) = match lead.as_str() {
                    "since" | "from" => (FilterOp::Ge, from_at - 1, format!("since {label}")),
                    "after" => (FilterOp::Gt, from_at - 1, format!("after {label}")),
                    "before" | "until" | "till" => (FilterOp::Lt, from_at - 1, format!("before {label}")),
                    "in" | "during" | "for" | "of" => (FilterOp::Between, from_at - 1, format!("in {label}")),
                    _ => (FilterOp::Between, from_at, format!("in {label}")),
                };
                // A bare number may be a count ("2024 rows"?): only years next to time words or
                // alone with a date column count as years.
                found = Some((start, i + 1, from, to, label, op));
                break;
            }
            // A month without a year is ambiguous ("may" and "march" only after a time word).
            let time_word_before =
                i > 0 && matches!(self.word(i - 1), "in" | "since" | "during" | "from" | "before" | "after");
            if month_number(w).is_some()
                && (!matches!(w, "may" | "march") || time_word_before)
                && self.tokens.get(i + 1).and_then(|t| t.number).is_none()
            {
                return Err(Unread::Ask(format!("{} of which year?", self.tokens[i].raw)));
            }
        }
        let Some((start, end, from, to, label, op)) = found else { return Ok(None) };
        // The date column: the one named, else the only one.
        let dates = lex.dates();
        let named = dates
            .iter()
            .copied()
            .find(|d| self.spans.iter().any(|s| s.meaning == Meaning::Column(*d) && !self.used[s.start]));
        let ruled = lex.rule_for(&["date".to_owned()]).filter(|c| dates.contains(c));
        let column = match (named.or(ruled), dates.as_slice()) {
            (Some(c), _) => c,
            (None, [c]) => *c,
            (None, []) => {
                return Err(Unread::Refuse(format!(
                    "{} has no date column, so I cannot restrict it to {}. Ask without the time period for an answer over all of its rows.",
                    lex.dataset.table_name, label
                )));
            }
            (None, many) => {
                let names: Vec<String> = many.iter().map(|c| lex.columns[*c].name.clone()).collect();
                return Err(Unread::Choose(Box::new(Choice {
                    kind: ClarificationKind::TimeRange,
                    dataset: lex.dataset.table_name.clone(),
                    phrase: "date".to_owned(),
                    question: format!("{label} — by which date: {}?", or_list(&names)),
                    columns: names,
                    value: None,
                })));
            }
        };
        self.mark(start, end);
        if let Some(s) =
            self.spans.iter().find(|s| s.meaning == Meaning::Column(column) && !self.used[s.start]).cloned()
        {
            self.mark(s.start, s.end);
        }
        let values = match op {
            FilterOp::Between => vec![Lit::Date(from), Lit::Date(to)],
            FilterOp::Lt | FilterOp::Ge => vec![Lit::Date(from)],
            _ => vec![Lit::Date(to)],
        };
        let op = match op {
            FilterOp::Gt => FilterOp::Ge,
            other => other,
        };
        Ok(Some(Cond { column, op, values, period: Some(label) }))
    }
}
