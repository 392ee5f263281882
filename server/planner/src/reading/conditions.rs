//! Conditions on the rows: comparisons with numbers (units converted), categorical values and
//! flags with "or" lists and negation. Periods of time are `time.rs`.

use super::messages::numeric_columns;
use super::words::*;
use super::{Cond, Lit, Reader, Unread, shape};
use crate::lexicon::{Class, Meaning};
use crate::text::stem;
use aware_domain::query_plan::FilterOp;
use chrono::Datelike;

/// A comparison's operator: how it compares, how many words it takes, and the class of column
/// its words imply ("more expensive": money).
struct Operator {
    op: FilterOp,
    len: usize,
    class_hint: Option<Class>,
}

/// The number a comparison compares with: where it was said, its values (two for "between"),
/// where its words end, and whether it was said as money or as a percentage.
struct Compared {
    at: usize,
    values: Vec<Lit>,
    end: usize,
    currency: bool,
    percent: bool,
}

impl Reader<'_> {
    /// "more than 500000", "price over 500k", "at least 3 bedrooms", "3-bedroom", "between 2 and 4".
    pub(super) fn comparisons(&mut self) -> Result<Vec<Cond>, Unread> {
        let mut out: Vec<Cond> = Vec::new();
        let n = self.tokens.len();
        let bounds = self.bounds_after_numbers();
        let mut i = 0;
        while i < n {
            if self.used[i] && !bounds.iter().any(|(at, _)| *at == i) {
                i += 1;
                continue;
            }
            match self.comparison_at(i, &bounds, out.last().map(|c| c.column))? {
                Some((cond, end)) => {
                    out.push(cond);
                    i = end;
                }
                None => i += 1,
            }
        }
        out.extend(self.numbers_before_columns());
        out.extend(self.numbers_after_columns());
        out.extend(self.none_of_quantities());
        Ok(out)
    }

    /// The bounds said after their number ("65 or older", "40 units or more"): where each
    /// number is and its operator; the bound's words are used up.
    fn bounds_after_numbers(&mut self) -> Vec<(usize, FilterOp)> {
        let n = self.tokens.len();
        // "aged 65 or older", "40 units or more", "5 and above": the bound after the number.
        let mut bounds: Vec<(usize, FilterOp)> = Vec::new();
        for i in 0..n {
            if self.tokens[i].number.is_none() || self.used[i] {
                continue;
            }
            let unit_at = |k: usize| self.span_at(k).is_some() || time_unit(self.word(k)).is_some();
            let j = if matches!(self.word(i + 1), "or" | "and") {
                i + 1
            } else if unit_at(i + 1) && matches!(self.word(i + 2), "or" | "and") {
                i + 2
            } else {
                continue;
            };
            let op = match self.word(j + 1) {
                "older" | "more" | "over" | "above" | "higher" | "greater" | "later" | "longer" | "bigger" => {
                    FilterOp::Ge
                }
                "younger" | "less" | "fewer" | "under" | "below" | "lower" | "earlier" | "shorter" | "smaller" => {
                    FilterOp::Le
                }
                _ => continue,
            };
            self.used[j] = true;
            self.used[j + 1] = true;
            bounds.push((i, op));
        }
        bounds
    }

    /// The comparison whose operator is at `i` (or whose number is, for a bound said after it):
    /// the condition and where its words end, with its words used up; none when no comparison
    /// starts there. `previous` is the column of the comparison read before it.
    fn comparison_at(
        &mut self,
        i: usize,
        bounds: &[(usize, FilterOp)],
        previous: Option<usize>,
    ) -> Result<Option<(Cond, usize)>, Unread> {
        let lex = self.lex;
        // The operator and where its number is.
        let w = self.word(i).to_owned();
        let Some(operator) = self.operator_at(i, bounds) else {
            return Ok(None);
        };
        // "monthly consumption over 2024": a year the data covers, said last, is a period.
        if w == "over" && self.over_a_year(i) {
            return Ok(None);
        }
        let Some(Compared { at: j, mut values, end, currency, percent }) = self.compared_number(i, &operator) else {
            return Ok(None);
        };

        // The column: a unit or column right after the number ("more than 2 bathrooms",
        // "over 100 sqm"), else the nearest numeric column before the operator, else the one
        // column of the class the words imply.
        // "more than 30 days": the one numeric column measured in that unit.
        let unit_column = self.unit_column(end);
        let mut after = self.column_span(end).filter(|c| lex.columns[*c].is_numeric()).or(unit_column);
        // "waited more than 2 hours" over a column in minutes: the number is converted.
        let mut scale = 1.0;
        if after.is_none()
            && let Some((c, converted)) = self.duration_conversion(i, end)
        {
            scale = converted;
            after = Some(c);
        }
        if scale != 1.0 {
            for v in &mut values {
                if let Lit::Num(x) = v {
                    *x *= scale;
                }
            }
        }
        let column = self.compared_column(i, end, after, previous, operator.class_hint, currency)?;
        // "below 80%": a percentage of a rate stored as a fraction (0 to 1) is a hundredth.
        if percent {
            values = self.percent_values(column, j, values)?;
        }
        if let Some(hint) = operator.class_hint
            && lex.columns[column].class != hint
            && !(w == "more" || w == "less" || w == "fewer" || w == "higher" || w == "lower")
        {
            return Err(Unread::Refuse(format!("“{}” does not fit {}.", self.tokens[i].raw, lex.columns[column].name)));
        }
        self.mark_comparison(i, end, column, after.is_some());
        let op = self.op_of_rows_left(i, operator.op)?;
        let end = self.per_period_end(column, end);
        Ok(Some((Cond { column, op, values, period: None }, end)))
    }

    /// The comparison operator at `i`: a bound said after its number, or the words ("at
    /// least", "more expensive", "over", "between"), with how many words it takes and the class
    /// of column its words imply.
    fn operator_at(&self, i: usize, bounds: &[(usize, FilterOp)]) -> Option<Operator> {
        let w = self.word(i).to_owned();
        let mut op_len = 0;
        let mut op = bounds.iter().find(|(at, _)| *at == i).map(|(_, op)| *op);
        let mut class_hint: Option<Class> = None;
        let two = (w.as_str(), self.word(i + 1));
        match two {
            _ if op.is_some() => {}
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
                "more" | "greater" | "higher" | "larger" | "bigger" | "longer" | "older" | "heavier" | "further"
                | "farther" | "costlier" | "pricier" => {
                    (Some(FilterOp::Gt), ADJECTIVES.iter().find(|(a, _, _)| *a == w).map(|(_, c, _)| *c))
                }
                "under" | "below" | "lt" => (Some(FilterOp::Lt), None),
                "less" | "fewer" | "lower" | "smaller" | "shorter" | "younger" | "cheaper" | "lighter" | "nearer"
                | "closer" => (Some(FilterOp::Lt), ADJECTIVES.iter().find(|(a, _, _)| *a == w).map(|(_, c, _)| *c)),
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
        op.map(|op| Operator { op, len: op_len, class_hint })
    }

    /// The number the operator at `i` compares with (two for "between"), its unit words and
    /// where they end; none when no number follows.
    fn compared_number(&self, i: usize, operator: &Operator) -> Option<Compared> {
        let n = self.tokens.len();
        // The number: right after the operator ("than", "of" and currency words skipped).
        let mut j = i + operator.len;
        while j < n && matches!(self.word(j), "than" | "of" | "the" | "a") {
            j += 1;
        }
        let first = self.tokens.get(j).and_then(|t| t.number)?;
        let currency = self.tokens[j].currency.is_some()
            || (self.word(i.saturating_sub(1)) == "worth" && i > 0)
            || matches!(self.word(j + 1), "dollars" | "euros" | "pounds");
        let percent = self.tokens[j].percent;
        let mut values = vec![Lit::Num(first)];
        let mut end = j + 1;
        // "20 or more units": the unit after the bound.
        if operator.len == 0 && self.used[end.min(n - 1)] && matches!(self.word(end), "or" | "and") {
            end += 2;
        }
        if operator.op == FilterOp::Between {
            if self.word(end) == "and" && self.tokens.get(end + 1).and_then(|t| t.number).is_some() {
                values.push(Lit::Num(self.tokens[end + 1].number.unwrap_or_default()));
                end += 2;
            } else {
                return None;
            }
        }
        Some(Compared { at: j, values, end, currency, percent })
    }

    /// The one numeric column measured in the unit said at `end` ("more than 30 days").
    fn unit_column(&self, end: usize) -> Option<usize> {
        let lex = self.lex;
        let said = stem(self.word(end));
        let measured: Vec<usize> = (0..lex.columns.len())
            .filter(|&c| {
                lex.columns[c].is_numeric()
                    && lex.columns[c].formula.is_none()
                    && (unit_word(&lex.columns[c]).is_some_and(|u| stem(u) == said)
                        || (MEASURE_UNITS.contains(&said.as_str())
                            && crate::text::words_of(&lex.columns[c].name).contains(&said)))
            })
            .collect();
        match measured.as_slice() {
            [c] => Some(*c),
            // "over 1.5k kWh" with consumption and solar in kWh: what is used, not made.
            many => {
                let primary: Vec<usize> = many.iter().copied().filter(|&c| shape::primary_measure(lex, c)).collect();
                if let [c] = primary.as_slice() { Some(*c) } else { None }
            }
        }
    }

    /// For a time unit said at `end`, the duration column compared (named before `i`, or the
    /// only one) and the factor that converts the number into its unit, when it is exact.
    fn duration_conversion(&self, i: usize, end: usize) -> Option<(usize, f64)> {
        let lex = self.lex;
        let said = time_unit(self.word(end))?;
        let before =
            (0..i).rev().find_map(|k| self.column_span(k).filter(|c| !self.used[k] && lex.columns[*c].is_numeric()));
        let durations = lex.of_class(Class::Duration);
        let target =
            before.filter(|c| durations.contains(c)).or(if let [d] = durations.as_slice() { Some(*d) } else { None });
        // Only exact conversions: minutes, hours, days and weeks; months and years.
        let exact = |a: f64, b: f64| (a < 43_830.0) == (b < 43_830.0);
        if let Some(c) = target
            && let Some(stored) = unit_word(&lex.columns[c]).and_then(time_unit)
            && exact(said, stored)
        {
            return Some((c, said / stored));
        }
        None
    }

    /// The column compared by the operator at `i` when no column follows the number: the
    /// nearest numeric column before it, the previous comparison's, the one of the class the
    /// words imply, or what a row is worth; else a question back.
    fn compared_column(
        &self,
        i: usize,
        end: usize,
        after: Option<usize>,
        previous: Option<usize>,
        class_hint: Option<Class>,
        currency: bool,
    ) -> Result<usize, Unread> {
        let lex = self.lex;
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
        // "at least 50 but under 60": the second bound is on the first one's column.
        let joined = previous.filter(|_| i > 0 && matches!(self.word(i - 1), "but" | "and" | "yet"));
        // "claims over 2000", "orders worth more than $2,025": what one of the rows is worth.
        let entity_before = (0..i)
            .rev()
            .find(|&k| {
                !FUNCTION_WORDS.contains(&self.word(k))
                    && !matches!(self.word(k), "worth" | "valued" | "came" | "totalling" | "totaling")
            })
            .is_some_and(|k| self.span_covering(k).is_some_and(|s| s.meaning == Meaning::Entity));
        let worth = (currency || entity_before)
            .then(|| shape::sale_values(lex))
            .and_then(|v| if let [c] = v.as_slice() { Some(*c) } else { None });
        let column = after
            .or(before)
            .or(joined)
            .or_else(|| class_hint.and_then(by_class))
            .or(worth)
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
        Ok(column)
    }

    /// The percentages `values` (said at `at`) in `column`'s own terms: hundredths when it holds
    /// fractions; refused when it cannot be told whether it holds fractions or percentages.
    fn percent_values(&self, column: usize, at: usize, mut values: Vec<Lit>) -> Result<Vec<Lit>, Unread> {
        let lex = self.lex;
        let fraction = lex.columns[column].range.is_some_and(|(lo, hi)| lo >= 0.0 && hi <= 1.0);
        let in_percent = lex.columns[column].unit == Some(crate::lexicon::Unit::Percent)
            || lex.columns[column].range.is_some_and(|(_, hi)| hi > 1.0);
        if fraction {
            for v in &mut values {
                if let Lit::Num(x) = v {
                    *x /= 100.0;
                }
            }
        } else if !in_percent {
            return Err(Unread::Refuse(format!(
                "I cannot tell whether {} holds fractions or percentages, so I cannot compare it with {}.",
                lex.columns[column].name, self.tokens[at].raw
            )));
        }
        Ok(values)
    }

    /// Uses up the words of the comparison from `i` to `end` on `column`: the operator and
    /// number, "worth" before them, the column's name and its unit.
    fn mark_comparison(&mut self, i: usize, end: usize, column: usize, column_after: bool) {
        let lex = self.lex;
        self.mark(i, end);
        // "orders worth more than …": what a row is worth.
        if i > 0
            && matches!(self.word(i - 1), "worth" | "valued" | "totalling" | "totaling" | "costing")
            && !self.used[i - 1]
        {
            self.used[i - 1] = true;
        }
        // "a tenure of at least 24 months", "a peak demand of at least 100 kW": the column may
        // be named before (in several words) and after.
        for k in (0..i).rev() {
            if self.column_span(k) == Some(column) && !self.used[k] {
                self.mark_span(k);
            }
        }
        if column_after {
            self.mark_span(end);
            self.used[end] = true;
        } else {
            // "a tenure of at least 24 months": the column's unit after the number.
            if unit_word(&lex.columns[column]).is_some_and(|u| stem(self.word(end)) == stem(u)) {
                self.used[end] = true;
            }
        }
    }

    /// The operator that keeps the rows asked for: `op`, or its opposite when the comparison at
    /// `i` says which rows to leave out.
    fn op_of_rows_left(&mut self, i: usize, op: FilterOp) -> Result<FilterOp, Unread> {
        // "remove the outliers (anything over €800)", "excluding orders over 500": the rows
        // left are the others.
        let op = match self.removed_before(i) {
            false => op,
            true => match op {
                FilterOp::Gt => FilterOp::Le,
                FilterOp::Ge => FilterOp::Lt,
                FilterOp::Lt => FilterOp::Ge,
                FilterOp::Le => FilterOp::Gt,
                FilterOp::Eq => FilterOp::Ne,
                FilterOp::Ne => FilterOp::Eq,
                FilterOp::In
                | FilterOp::NotIn
                | FilterOp::Contains
                | FilterOp::IsNull
                | FilterOp::IsNotNull
                | FilterOp::Between => {
                    return Err(Unread::Refuse(
                        "I can leave out rows above or below a number, but not rows between two.".to_owned(),
                    ));
                }
            },
        };
        Ok(op)
    }

    /// Where a comparison ending at `end` ends once the used words after it and the period of
    /// `column`'s own ("a month" of a monthly cost) are taken; those words are used up.
    fn per_period_end(&mut self, column: usize, mut end: usize) -> usize {
        let lex = self.lex;
        let n = self.tokens.len();
        // "more than 2000 dollars a month" of a monthly cost: the column's own period.
        let per_period = crate::text::words_of(&lex.columns[column].name).iter().find_map(|w| match w.as_str() {
            "monthly" => Some("month"),
            "weekly" => Some("week"),
            "daily" => Some("day"),
            "yearly" | "annual" => Some("year"),
            _ => None,
        });
        while end < n && self.used[end] {
            end += 1;
        }
        if let Some(p) = per_period
            && matches!(self.word(end), "a" | "per" | "each" | "every")
            && self.word(end + 1) == p
        {
            self.mark(end, end + 2);
            end += 2;
        }
        end
    }

    /// Conditions from a number right before a count column ("3 bedrooms", "3-bedroom") or a
    /// percentage before a column in percent ("a 20% discount").
    fn numbers_before_columns(&mut self) -> Vec<Cond> {
        let lex = self.lex;
        let n = self.tokens.len();
        let mut out: Vec<Cond> = Vec::new();
        // "3 bedrooms", "with 2 bathrooms", "3-bedroom": a number right before a count column.
        for i in 0..n {
            if self.used[i] {
                continue;
            }
            let Some(x) = self.tokens[i].number else { continue };
            let percent_column = |c: usize| {
                lex.columns[c].unit == Some(crate::lexicon::Unit::Percent) || lex.columns[c].label.contains("pct")
            };
            if self.tokens[i].currency.is_some() {
                continue;
            }
            // "a 20% discount": a percentage before a column measured in percent.
            if let Some(c) = self.column_span(i + 1).filter(|c| self.tokens[i].percent && percent_column(*c))
                && self.span_at(i + 1).is_some()
            {
                self.used[i] = true;
                self.mark_span(i + 1);
                out.push(Cond { column: c, op: FilterOp::Eq, values: vec![Lit::Num(x)], period: None });
                continue;
            }
            if self.tokens[i].percent {
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
        out
    }

    /// Conditions from a whole number right after a column of small whole numbers ("year 11").
    fn numbers_after_columns(&mut self) -> Vec<Cond> {
        let lex = self.lex;
        let n = self.tokens.len();
        let mut out: Vec<Cond> = Vec::new();
        // "year 11", "grade 9": a number right after a column of small whole numbers.
        for i in 1..n {
            let Some(x) = self.tokens[i].number.filter(|x| x.fract() == 0.0) else { continue };
            if self.used[i] || self.tokens[i].currency.is_some() || self.tokens[i].percent {
                continue;
            }
            if let Some(sp) = self.span_covering(i - 1).cloned()
                && sp.end == i
                && let Meaning::Column(c) = sp.meaning
                && lex.columns[c].kind == aware_domain::value::ValueKind::Int
                && matches!(lex.columns[c].class, Class::Count | Class::Number)
                && !self.used[sp.start]
            {
                self.used[i] = true;
                self.mark(sp.start, sp.end);
                out.push(Cond { column: c, op: FilterOp::Eq, values: vec![Lit::Num(x)], period: None });
            }
        }
        out
    }

    /// Conditions of none of a quantity ("no solar at all", "zero discount").
    fn none_of_quantities(&mut self) -> Vec<Cond> {
        let lex = self.lex;
        let n = self.tokens.len();
        let mut out: Vec<Cond> = Vec::new();
        // "no solar at all", "zero discount": none of a quantity.
        for i in 0..n {
            if self.used[i] || !matches!(self.word(i), "no" | "zero" | "nil") {
                continue;
            }
            if let Some(c) = self.column_span(i + 1).filter(|c| lex.columns[*c].is_numeric())
                && self.span_at(i + 1).is_some()
            {
                self.used[i] = true;
                self.mark_span(i + 1);
                out.push(Cond { column: c, op: FilterOp::Eq, values: vec![Lit::Num(0.0)], period: None });
            }
        }
        out
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
                            Meaning::Dataset
                            | Meaning::Entity
                            | Meaning::Column(_)
                            | Meaning::Value(..)
                            | Meaning::Flag(..) => break,
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
                Meaning::Dataset | Meaning::Entity | Meaning::Column(_) => {}
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

    /// Whether the "over" at `i` leads a year the data's dates cover, with nothing after it
    /// that it could count ("consumption over 2024", not "over 2024 kWh" or "over 2024 visitors").
    pub(super) fn over_a_year(&self, i: usize) -> bool {
        let Some(y) = self.tokens.get(i + 1).filter(|t| t.currency.is_none() && !t.percent).and_then(|t| t.number)
        else {
            return false;
        };
        let covered = y.fract() == 0.0
            && self
                .lex
                .columns
                .iter()
                .any(|c| c.span.is_some_and(|(a, b)| (f64::from(a.year())..=f64::from(b.year())).contains(&y)));
        let next = self.word(i + 2);
        covered
            && (next.is_empty() || FUNCTION_WORDS.contains(&next))
            && self.span_at(i + 2).is_none()
            && time_unit(next).is_none()
    }

    /// Whether a word that leaves rows out ("remove", "drop", "excluding") comes shortly before
    /// `i` with only the rows' words between ("remove the students with attendance under …",
    /// "drop the outliers (anything over …"); those words are used up.
    pub(super) fn removed_before(&mut self, i: usize) -> bool {
        let mut k = i;
        let mut between = Vec::new();
        while k > 0 && i - k < 7 {
            k -= 1;
            let w = self.word(k);
            if NEGATIONS.contains(&w) && !matches!(w, "not" | "no" | "non" | "never") && !self.used[k] {
                self.used[k] = true;
                for b in between {
                    self.used[b] = true;
                }
                return true;
            }
            // The rows' words, or the compared column's own ("remove the students with attendance
            // under 70%").
            let rows = self.span_covering(k).is_some_and(|s| {
                matches!(s.meaning, Meaning::Entity | Meaning::Dataset)
                    || matches!(s.meaning, Meaning::Column(c) if self.lex.columns[c].is_numeric() || self.lex.columns[c].class == crate::lexicon::Class::Id)
            });
            if !(rows
                || FUNCTION_WORDS.contains(&w)
                || ROW_WORDS.contains(&w)
                || matches!(w, "outlier" | "outliers" | "anything" | "any" | "ones"))
            {
                return false;
            }
            if !self.used[k] {
                between.push(k);
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
}
