//! Time as conditions: a period named in the question ("last month", "in March 2025", "since
//! 2024") on a date column, and trends ("did sales fall") read as the periods they compare.

use super::messages::or_list;
use super::periods::Period;
use super::words::*;
use super::{Choice, Cond, Lit, Reader, Unread};
use crate::lexicon::Meaning;
use crate::text::stem;
use aware_domain::events::ClarificationKind;
use aware_domain::query_plan::FilterOp;
use chrono::{Datelike, Duration, NaiveDate};

impl Reader<'_> {
    /// A word asking which way something went ("drop", "fell", "grew", "change"), used up.
    pub(super) fn trend_word(&mut self) -> Option<super::Trend> {
        use super::Trend;
        // "how many stays fell in December": a count of what happened then, not a trend.
        let counting = (0..self.tokens.len()).any(|i| {
            (self.word(i) == "how" && self.word(i + 1) == "many") || matches!(self.word(i), "count" | "number")
        });
        let compared = (0..self.tokens.len()).any(|i| matches!(self.word(i), "compared" | "versus" | "vs" | "than"));
        if counting && !compared {
            return None;
        }
        for i in 0..self.tokens.len() {
            if self.used[i] || self.span_covering(i).is_some() {
                continue;
            }
            // "if we drop the estimated readings": leaving rows out, not a trend.
            if matches!(self.word(i), "drop" | "remove")
                && matches!(self.word(i + 1), "the" | "all" | "any" | "those" | "these" | "every")
            {
                continue;
            }
            let t = match self.word(i) {
                "drop" | "dropped" | "fall" | "fell" | "decline" | "declined" | "decrease" | "decreased" | "shrink"
                | "shrank" => Trend::Down,
                "rise" | "rose" | "increase" | "increased" | "grow" | "grew" | "climb" | "climbed" => Trend::Up,
                "change" | "changed" => Trend::Change,
                "go" | "went" if matches!(self.word(i + 1), "up" | "down") => {
                    self.used[i + 1] = true;
                    if self.word(i + 1) == "up" { Trend::Up } else { Trend::Down }
                }
                _ => continue,
            };
            self.used[i] = true;
            for k in 0..self.tokens.len() {
                let w = self.word(k);
                // "compared to the month before", "versus the previous quarter".
                let bucket = matches!(w, "month" | "quarter" | "year" | "week" | "day");
                let relative = bucket
                    && (matches!(self.word(k + 1), "before" | "prior")
                        || k.checked_sub(1)
                            .is_some_and(|p| matches!(self.word(p), "previous" | "prior" | "preceding")));
                if !self.used[k]
                    && (relative
                        || matches!(
                            w,
                            "compared"
                                | "compare"
                                | "versus"
                                | "vs"
                                | "against"
                                | "previous"
                                | "prior"
                                | "preceding"
                                | "before"
                        ))
                {
                    self.used[k] = true;
                }
            }
            return Some(t);
        }
        None
    }

    /// A trend's periods: the one named, with the one it is compared to (named after it, else the
    /// one just before), as one range grouped by the period's unit.
    pub(super) fn trend_periods(&mut self, cond: Cond) -> (Cond, aware_domain::query_plan::TimeBucket) {
        use aware_domain::query_plan::TimeBucket;
        let (Some(Lit::Date(from)), Some(Lit::Date(to))) = (cond.values.first().cloned(), cond.values.get(1).cloned())
        else {
            return (cond, TimeBucket::Month);
        };
        let months = (to.year() - from.year()) * 12 + to.month() as i32 - from.month() as i32;
        let bucket = match months {
            12 => TimeBucket::Year,
            3 => TimeBucket::Quarter,
            _ => TimeBucket::Month,
        };
        // The other period: a month, quarter or year said after the first.
        let mut other = None;
        for i in 0..self.tokens.len() {
            if self.used[i] {
                continue;
            }
            if let Ok(Some(p)) = self.period_at(i) {
                other = Some((p.start, p.end, p.from, p.to));
                break;
            }
            if let Some(y) = self.tokens[i].number.filter(|y| y.fract() == 0.0 && (1900.0..=2100.0).contains(y)) {
                let y = y as i32;
                if let (Some(a), Some(b)) = (NaiveDate::from_ymd_opt(y, 1, 1), NaiveDate::from_ymd_opt(y + 1, 1, 1)) {
                    other = Some((i, i + 1, a, b));
                    break;
                }
            }
        }
        let (lo, hi) = match other {
            Some((s, e, a, b)) => {
                self.mark(s, e);
                (from.min(a), to.max(b))
            }
            None => {
                let span = chrono::Months::new(months.max(1) as u32);
                (from.checked_sub_months(span).unwrap_or(from), to)
            }
        };
        let last = hi - Duration::days(1);
        let label = match bucket {
            TimeBucket::Year => format!("from {} to {}", lo.year(), last.year()),
            TimeBucket::Quarter | TimeBucket::Month | TimeBucket::Week | TimeBucket::Day => {
                format!("from {} to {}", lo.format("%B %Y"), last.format("%B %Y"))
            }
        };
        let cond =
            Cond { values: vec![Lit::Date(lo), Lit::Date(hi)], op: FilterOp::Between, period: Some(label), ..cond };
        (cond, bucket)
    }

    /// Time words: "last month", "this year", "in 2024", "in March 2025", "since 2024",
    /// "before 2025", "in the last 30 days", "yesterday", "today".
    pub(super) fn time_condition(&mut self) -> Result<Option<Cond>, Unread> {
        let Some(period) = self.time_period()? else { return Ok(None) };
        // The date column: the one named, else the only one.
        let column = self.date_column(&period.label)?;
        self.mark(period.start, period.end);
        // "exams sat in May", "claims filed in Q1": the date column's words are the period's.
        for s in self.spans.clone().into_iter().filter(|s| s.meaning == Meaning::Column(column)) {
            self.mark(s.start, s.end);
        }
        // A period the data never reaches is said so, not answered as nothing.
        self.within_data(column, &period)?;
        let Period { from, to, label, op, .. } = period;
        let values = match op {
            FilterOp::Between => vec![Lit::Date(from), Lit::Date(to)],
            FilterOp::Lt | FilterOp::Ge => vec![Lit::Date(from)],
            FilterOp::Eq
            | FilterOp::Ne
            | FilterOp::Le
            | FilterOp::Gt
            | FilterOp::In
            | FilterOp::NotIn
            | FilterOp::Contains
            | FilterOp::IsNull
            | FilterOp::IsNotNull => vec![Lit::Date(to)],
        };
        let op = match op {
            FilterOp::Gt => FilterOp::Ge,
            other @ (FilterOp::Eq
            | FilterOp::Ne
            | FilterOp::Lt
            | FilterOp::Le
            | FilterOp::Ge
            | FilterOp::In
            | FilterOp::NotIn
            | FilterOp::Contains
            | FilterOp::IsNull
            | FilterOp::IsNotNull
            | FilterOp::Between) => other,
        };
        Ok(Some(Cond { column, op, values, period: Some(label) }))
    }

    /// The first period of time the question names (the words it takes, its dates, how to say
    /// it), if any.
    fn time_period(&mut self) -> Result<Option<Period>, Unread> {
        let n = self.tokens.len();
        for i in 0..n {
            // A value or name ("Del Mar", "March Street") is not a date.
            if self.used[i] || self.span_covering(i).is_some() {
                continue;
            }
            let Some(range) = self.relative_period(i) else { continue };
            if let Some(Period { start: a, end: b, from, to, label, .. }) = range {
                let start = if a > 0 && matches!(self.word(a - 1), "in" | "during" | "over" | "for" | "from") {
                    a - 1
                } else {
                    a
                };
                return Ok(Some(Period { start, end: b, from, to, label, op: FilterOp::Between }));
            }
            // Quarters, halves, months and ranges of months ("2024 Q3": from the year on).
            let period = match self.period_at(i)? {
                Some(p) => Some(p),
                None if self.tokens[i].number.is_some() => self.period_at(i + 1)?.filter(|p| p.start <= i),
                None => None,
            };
            if let Some(p) = period {
                // The same period said twice ("over the summer, June to August") is one.
                let mut k = p.end;
                while k < n {
                    match self.period_at(k) {
                        Ok(Some(again)) if (again.from, again.to, again.op) == (p.from, p.to, p.op) => {
                            self.mark(again.start.max(p.end), again.end);
                            k = again.end;
                        }
                        _ => k += 1,
                    }
                }
                return Ok(Some(p));
            }
            if let Some(period) = self.year_period(i) {
                return Ok(Some(period));
            }
        }
        Ok(None)
    }

    /// A period said relative to today at token `i` ("last month", "this week", "yesterday", "in
    /// the last 30 days"), if any; none at all when "last" and a number count something else.
    fn relative_period(&self, i: usize) -> Option<Option<Period>> {
        let today = self.today;
        let w = self.word(i);
        let w1 = self.word(i + 1);
        let range = match (w, w1) {
            ("last" | "previous" | "past", "month") => {
                let first =
                    month_start(today.year(), today.month()).and_then(|d| d.checked_sub_months(chrono::Months::new(1)));
                first.and_then(|f| {
                    Some((i, i + 2, f, next_month(f.year(), f.month())?, format!("last month ({})", f.format("%B %Y"))))
                })
            }
            ("this" | "current", "month") => month_start(today.year(), today.month())
                .map(|f| (i, i + 2, f, today + Duration::days(1), format!("this month ({})", f.format("%B %Y")))),
            ("last" | "previous" | "past", "year") => {
                let y = today.year() - 1;
                month_start(y, 1).zip(month_start(y + 1, 1)).map(|(a, b)| (i, i + 2, a, b, format!("last year ({y})")))
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
                        return None;
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
        Some(range.map(|(start, end, from, to, label)| Period { start, end, from, to, label, op: FilterOp::Between }))
    }

    /// A year at token `i`, maybe with a month before it and a word leading it ("since 2024"),
    /// as a period; none for a number compared with or counting something.
    fn year_period(&self, i: usize) -> Option<Period> {
        let lex = self.lex;
        // A year, maybe with a month before it: "in 2024", "March 2025", "since 2024" — but
        // not a number compared with ("more than 2000 visitors") or counting something
        // ("2000 kWh"): one token, one reading.
        let compared = i.checked_sub(1).is_some_and(|p| {
            !(self.word(p) == "over" && self.over_a_year(p))
                && matches!(
                    self.word(p),
                    "than"
                        | "over"
                        | "under"
                        | "above"
                        | "below"
                        | "least"
                        | "most"
                        | "exceeding"
                        | "exceeds"
                        | "exceed"
                        | "gt"
                        | "lt"
                        | "ge"
                        | "le"
                        | "eq"
                        | "ne"
                        | "between"
                        | "around"
                        | "approximately"
                        | "exactly"
                        | "equals"
                        | "top"
                        | "first"
                        | "past"
                )
        });
        let counts_something = self.span_at(i + 1).is_some_and(|sp| match sp.meaning {
            Meaning::Column(c) => lex.columns[c].is_numeric(),
            Meaning::Entity => true,
            Meaning::Dataset | Meaning::Value(..) | Meaning::Flag(..) => false,
        }) || time_unit(self.word(i + 1)).is_some()
            || lex.columns.iter().any(|c| unit_word(c).is_some_and(|u| stem(u) == stem(self.word(i + 1))));
        if let Some(y) = self.tokens[i].number.filter(|y| y.fract() == 0.0 && (1900.0..=2100.0).contains(y))
            && self.tokens[i].currency.is_none()
            && !self.used[i]
            && !compared
            && !counts_something
        {
            let y = y as i32;
            let month = i.checked_sub(1).and_then(|p| month_number(self.word(p)));
            let from_at = if month.is_some() { i - 1 } else { i };
            let (from, to, label) = match month {
                Some(m) => {
                    let f = month_start(y, m)?;
                    let t = next_month(y, m)?;
                    (f, t, f.format("%B %Y").to_string())
                }
                None => {
                    let (Some(f), Some(t)) = (month_start(y, 1), month_start(y + 1, 1)) else { return None };
                    (f, t, y.to_string())
                }
            };
            let lead = from_at.checked_sub(1).map(|p| self.word(p).to_owned()).unwrap_or_default();
            let (op, start, label) = match lead.as_str() {
                "since" | "from" => (FilterOp::Ge, from_at - 1, format!("since {label}")),
                "after" => (FilterOp::Gt, from_at - 1, format!("after {label}")),
                "before" | "until" | "till" => (FilterOp::Lt, from_at - 1, format!("before {label}")),
                "in" | "during" | "for" | "of" | "over" | "throughout" | "across" => {
                    (FilterOp::Between, from_at - 1, format!("in {label}"))
                }
                _ => (FilterOp::Between, from_at, format!("in {label}")),
            };
            // A bare number may be a count ("2024 rows"?): only years next to time words or
            // alone with a date column count as years.
            return Some(Period { start, end: i + 1, from, to, label, op });
        }
        None
    }

    /// The date column a period is on: the one named, a rule's, the event's, or the only one;
    /// else refused, or a question back.
    fn date_column(&self, label: &str) -> Result<usize, Unread> {
        let lex = self.lex;
        let dates = lex.dates();
        let named = dates
            .iter()
            .copied()
            .find(|d| self.spans.iter().any(|s| s.meaning == Meaning::Column(*d) && !self.used[s.start]));
        let ruled = lex.rule_for(&["date".to_owned()]).filter(|c| dates.contains(c));
        let column = match (named.or(ruled).or_else(|| lex.event_date()), dates.as_slice()) {
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
        Ok(column)
    }

    /// Whether the data reaches `period`: refused when every date of `column` is outside it.
    fn within_data(&self, column: usize, period: &Period) -> Result<(), Unread> {
        let lex = self.lex;
        let (start, end, from, to, op) = (period.start, period.end, period.from, period.to, period.op);
        if let Some((first, last)) = lex.columns[column].span {
            let outside = match op {
                FilterOp::Between => to <= first || from > last,
                FilterOp::Lt => from <= first,
                FilterOp::Eq
                | FilterOp::Ne
                | FilterOp::Le
                | FilterOp::Gt
                | FilterOp::Ge
                | FilterOp::In
                | FilterOp::NotIn
                | FilterOp::Contains
                | FilterOp::IsNull
                | FilterOp::IsNotNull => from > last,
            };
            if outside {
                // In the person's own words: the data's dates are not a result they were shown.
                let said: Vec<&str> = self.tokens[start..end].iter().map(|t| t.raw.as_str()).collect();
                return Err(Unread::Refuse(format!(
                    "None of {}'s {} falls in “{}”: its {} values are all outside that period, so there is nothing to \
                     answer from.",
                    lex.dataset.table_name,
                    lex.entity,
                    said.join(" "),
                    lex.columns[column].name
                )));
            }
        }
        Ok(())
    }
}

/// The first day of month `m` of year `y`.
fn month_start(y: i32, m: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, 1)
}

/// The first day of the month after month `m` of year `y`.
fn next_month(y: i32, m: u32) -> Option<NaiveDate> {
    if m == 12 { month_start(y + 1, 1) } else { month_start(y, m + 1) }
}
