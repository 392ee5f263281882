//! The shape of a question: aggregates, the measure, rankings and top-k, groups.

use super::messages::{measure_name, or_list};
use super::words::*;
use super::{Measure, Reader, Unread, groupable};
use crate::lexicon::{Class, Lexicon, Meaning};
use aware_domain::query_plan::{Aggregate, TimeBucket};

/// What the ranking words point at.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Rank {
    /// How often a value occurs ("most common").
    Frequency,
    /// A measure: implied by an adjective ("expensive" → price) or named (`None`: the one named),
    /// with the aggregate the ranking words imply for groups ("the most revenue" is a total).
    Of(Option<Measure>, Option<Aggregate>),
}

impl Reader<'_> {
    pub(super) fn aggregate_word(&mut self) -> Option<Aggregate> {
        for (words, agg) in [
            (&["average", "avg", "mean"][..], Aggregate::Avg),
            (&["median"][..], Aggregate::Median),
            (&["sum"][..], Aggregate::Sum),
            (&["minimum", "min"][..], Aggregate::Min),
            (&["maximum", "max"][..], Aggregate::Max),
        ] {
            for w in words {
                if self.take_word(w) {
                    return Some(agg);
                }
            }
        }
        // "total price": a sum only when a quantity follows.
        if let Some(i) = (0..self.tokens.len())
            .find(|&i| self.word(i) == "total" && !self.used[i] && self.span_covering(i).is_none())
        {
            let mut next = self.next_content(i + 1);
            // "total net consumption".
            if matches!(self.word(next), "net" | "gross") {
                next = self.next_content(next + 1);
            }
            let next = if self.word(next) == "of" { self.next_content(next + 1) } else { next };
            // "total hospital cost", "total shipment weight": the rows' word before the quantity.
            let next = match self.span_at(next) {
                Some(sp) if matches!(sp.meaning, Meaning::Dataset | Meaning::Entity) => self.next_content(sp.end),
                _ => next,
            };
            if self.column_span(next).is_some_and(|c| self.lex.columns[c].is_numeric()) {
                self.used[i] = true;
                return Some(Aggregate::Sum);
            }
        }
        None
    }

    /// The numeric quantity the question names: a column, or "X per Y" of two numeric columns.
    /// A lone "per Y" (as in "cheapest per square metre") is returned as a measure of Y alone
    /// with `per_only` set, for the ranking to divide its own measure by.
    pub(super) fn measure(&mut self) -> Result<(Option<Measure>, bool), Unread> {
        let lex = self.lex;
        let (mut found, per_only) = self.measures_named();
        found.dedup();
        // "total spend divided by total weight … per kilo of freight": a computed measure and the
        // columns it is computed from are one measure.
        if found.len() > 1
            && let Some(&whole) = found.iter().find(|m| {
                let f = lex.columns[m.column].formula.as_ref();
                found
                    .iter()
                    .all(|o| o == *m || f.is_some_and(|f| f.reads(o.column) && o.per.is_none_or(|p| f.reads(p))))
            })
        {
            return Ok((Some(whole), false));
        }
        // "best selling product in terms of revenue": the measure said after "in terms of".
        if let [a, b] = found.as_slice() {
            let in_terms = |m: &Measure| {
                self.spans.iter().find(|s| s.meaning == Meaning::Column(m.column)).is_some_and(|s| {
                    s.start >= 3 && self.word(s.start - 1) == "of" && self.word(s.start - 2) == "terms"
                })
            };
            match (in_terms(a), in_terms(b)) {
                (true, false) => return Ok((Some(*a), per_only)),
                (false, true) => return Ok((Some(*b), per_only)),
                _ => {}
            }
        }
        // "electricity cost", "shipping cost": a measure's word right before another measure
        // says what the second is of; the second is meant.
        if let [a, b] = found.as_slice()
            && a.per.is_none()
            && b.per.is_none()
            && let (Some(sa), Some(sb)) = (
                self.spans.iter().find(|s| s.meaning == Meaning::Column(a.column)),
                self.spans.iter().find(|s| s.meaning == Meaning::Column(b.column)),
            )
            && sa.end == sb.start
        {
            return Ok((Some(*b), per_only));
        }
        // "how much did Head Office spend on electricity": what was paid for the other.
        if let [a, b] = found.as_slice()
            && (0..self.tokens.len()).any(|i| {
                matches!(
                    self.word(i),
                    "spend" | "spent" | "pay" | "paid" | "cost" | "costs" | "bill" | "bills" | "much"
                )
            })
        {
            let money: Vec<&Measure> =
                [a, b].into_iter().filter(|m| lex.columns[m.column].class == Class::Money).collect();
            if let [m] = money.as_slice() {
                return Ok((Some(**m), per_only));
            }
        }
        match found.as_slice() {
            [] => Ok((None, false)),
            [m] => Ok((Some(*m), per_only)),
            [a, b, ..] => Err(Unread::Ask(format!(
                "Which measure: {} or {}? I can use one at a time.",
                measure_name(lex, a),
                measure_name(lex, b)
            ))),
        }
    }

    /// The numeric quantities the question names, in order, with their words used up, and
    /// whether one was a lone "per Y".
    fn measures_named(&mut self) -> (Vec<Measure>, bool) {
        let lex = self.lex;
        let mut found: Vec<Measure> = Vec::new();
        let mut per_only = false;
        for s in self.spans.clone() {
            let Meaning::Column(c) = s.meaning else { continue };
            if self.used[s.start] || !lex.columns[c].is_numeric() || lex.columns[c].class == Class::Id {
                continue;
            }
            // "price per square metre": per + another numeric column.
            let after = self.next_content(s.end);
            if self.word(after) == "per"
                && let Some(d) =
                    self.column_span(self.next_content(after + 1)).filter(|d| lex.columns[*d].is_numeric() && *d != c)
            {
                let dspan = self.span_covering(self.next_content(after + 1)).cloned();
                self.mark(s.start, s.end);
                self.used[after] = true;
                if let Some(ds) = dspan {
                    self.mark(ds.start, ds.end);
                }
                found.push(Measure { column: c, per: Some(d) });
                continue;
            }
            // "cheapest per square metre": a divisor with the measure left to the ranking.
            if s.start > 0 && self.word(s.start - 1) == "per" && !self.used[s.start - 1] {
                self.mark(s.start - 1, s.end);
                per_only = true;
                found.push(Measure { column: c, per: None });
                continue;
            }
            // "number of bedrooms", "amount of charges": the words before are part of the name.
            if s.start >= 2 && matches!(self.word(s.start - 2), "number" | "amount") && self.word(s.start - 1) == "of" {
                let counted = self.lex.columns[c].class == Class::Count || self.word(s.start - 2) == "amount";
                if counted {
                    self.mark(s.start - 2, s.start);
                }
            }
            self.mark(s.start, s.end);
            // "odometer reading", "fee amount": a noun for the quantity itself.
            if matches!(
                self.word(s.end),
                "reading"
                    | "readings"
                    | "value"
                    | "values"
                    | "figure"
                    | "figures"
                    | "level"
                    | "levels"
                    | "mark"
                    | "marks"
                    | "score"
                    | "scores"
                    | "points"
                    | "result"
                    | "results"
                    | "amount"
                    | "amounts"
                    | "percentage"
                    | "percent"
                    | "pct"
            ) && !self.used.get(s.end).copied().unwrap_or(true)
                && self.span_covering(s.end).is_none()
            {
                self.used[s.end] = true;
            }
            found.push(Measure { column: c, per: None });
        }
        (found, per_only)
    }

    /// Superlatives and top-k: what is ranked, which way, how many.
    pub(super) fn rank(&mut self) -> Result<Option<(Rank, bool, Option<u32>)>, Unread> {
        let lex = self.lex;
        let mut n: Option<u32> = None;
        let mut found: Option<(Rank, bool)> = None;
        for i in 0..self.tokens.len() {
            if self.used[i] || self.span_covering(i).is_some() {
                continue;
            }
            if let Some(ranking) = self.ranking_at(i)? {
                found = Some(ranking);
            }
        }
        // "top 5", "the 3 cheapest", "5 most common": a count next to the ranking.
        if found.is_some() {
            n = self.ranked_count(&mut found);
            // "top" on its own in front of the ranking.
            self.take_word("top");
            // "top 5 apartments by size": "by" names what is ranked.
            for i in 0..self.tokens.len() {
                if self.word(i) != "by" || self.used[i] {
                    continue;
                }
                let mut next = self.next_content(i + 1);
                if matches!(self.word(next), "average" | "avg" | "mean" | "median" | "total") {
                    next = self.next_content(next + 1);
                }
                if self.column_span(next).is_some_and(|c| lex.columns[c].is_numeric()) {
                    self.used[i] = true;
                }
            }
        }
        Ok(found.map(|(r, d)| (r, d, n)))
    }

    /// The ranking the words at token `i` say: what is ranked and which way (descending when
    /// true), with its words used up; none when they say none.
    fn ranking_at(&mut self, i: usize) -> Result<Option<(Rank, bool)>, Unread> {
        let lex = self.lex;
        let w = self.word(i).to_owned();
        // "top 3 destinations by number of shipments", "by count", "top 2 pages by
        // conversions": how many rows each has.
        if w == "by"
            && let Some(found) = self.by_count(i)
        {
            return Ok(Some(found));
        }
        // "most common", "least frequent", "most popular".
        if matches!(w.as_str(), "most" | "least")
            && matches!(self.word(i + 1), "common" | "frequent" | "popular" | "often" | "usual")
        {
            self.mark(i, i + 2);
            return Ok(Some((Rank::Frequency, w == "most")));
        }
        if matches!(w.as_str(), "commonest" | "rarest" | "busiest" | "quietest") {
            self.used[i] = true;
            return Ok(Some((Rank::Frequency, matches!(w.as_str(), "commonest" | "busiest"))));
        }
        // "the most revenue", "the least kWh", "best selling", "top selling": an amount,
        // totalled per group ("the most hospital cost": the data's own name between).
        let next = self.next_content(i + 1);
        let next = match self.span_at(next) {
            Some(sp) if sp.meaning == Meaning::Dataset && matches!(w.as_str(), "most" | "least") => {
                self.next_content(sp.end)
            }
            _ => next,
        };
        if matches!(w.as_str(), "most" | "least" | "fewest" | "best" | "worst" | "top")
            && self.column_span(next).is_some_and(|c| lex.columns[c].is_numeric() && additive(lex, c))
            && (matches!(w.as_str(), "most" | "least" | "fewest") || sold_verb(self.word(next)))
        {
            self.used[i] = true;
            return Ok(Some((Rank::Of(None, Some(Aggregate::Sum)), matches!(w.as_str(), "most" | "best" | "top"))));
        }
        // "which plan has the most customers": most + the rows.
        // (values and flags may come between: "the most urgent tickets".)
        let mut after_most = self.next_content(i + 1);
        while let Some(sp) =
            self.span_at(after_most).filter(|sp| matches!(sp.meaning, Meaning::Value(..) | Meaning::Flag(..)))
        {
            after_most = self.next_content(sp.end);
        }
        let skipped_condition = after_most != self.next_content(i + 1);
        if matches!(w.as_str(), "most" | "fewest" | "least")
            && (self.span_at(after_most).is_some_and(|s| s.meaning == Meaning::Entity)
                // "the most exams": the events a date column records.
                || self.span_at(after_most).is_some_and(|s| matches!(s.meaning, Meaning::Column(c) if lex.columns[c].is_date()))
                || ROW_WORDS.contains(&self.word(after_most))
                // "which month had the most conversions": the rows that converted, counted.
                || (skipped_condition && self.span_at(after_most).is_none()))
        {
            self.used[i] = true;
            return Ok(Some((Rank::Frequency, w == "most")));
        }
        // "most expensive", "least expensive", "cheapest", "biggest".
        let (adjective, desc_word, at) = if matches!(w.as_str(), "most" | "least") {
            (self.word(i + 1).to_owned(), w == "most", i + 1)
        } else {
            (w.clone(), true, i)
        };
        if let Some((class, up)) = adjective_meaning(lex, &adjective) {
            let superlative = is_superlative(&adjective) || at != i;
            if !superlative {
                return Ok(None);
            }
            return self.superlative_rank(i, at, &adjective, desc_word, class, up).map(Some);
        }
        if HIGH_WORDS.contains(&w.as_str()) || LOW_WORDS.contains(&w.as_str()) {
            let mut next = self.next_content(i + 1);
            // "the lowest average tenure": the aggregate word is taken later.
            if matches!(self.word(next), "average" | "avg" | "mean" | "median" | "total") {
                next = self.next_content(next + 1);
            }
            if self.column_span(next).is_some_and(|c| lex.columns[c].is_numeric())
                || (w == "top" && self.tokens.get(next).is_some_and(|t| t.number.is_some()))
            {
                self.used[i] = true;
                return Ok(Some((Rank::Of(None, None), HIGH_WORDS.contains(&w.as_str()))));
            }
        }
        Ok(None)
    }

    /// A ranking by how many rows each has, when "by" at `i` is followed by the rows or a count
    /// ("by number of shipments", "by count"), its words used up.
    fn by_count(&mut self, i: usize) -> Option<(Rank, bool)> {
        let next = self.next_content(i + 1);
        let after_of =
            if self.word(next) == "number" && self.word(next + 1) == "of" { self.next_content(next + 2) } else { next };
        let rows_named = self.span_at(after_of).is_some_and(|s| s.meaning == Meaning::Entity)
            || ROW_WORDS.contains(&self.word(after_of))
            || matches!(self.word(after_of), "count" | "volume" | "frequency");
        let flag = self.span_at(next).is_some_and(|s| matches!(s.meaning, Meaning::Flag(..)));
        if rows_named || flag {
            self.used[i] = true;
            if after_of != next {
                self.mark(next, next + 2);
            }
            if rows_named && !flag {
                self.used[after_of] = true;
            }
            return Some((Rank::Frequency, true));
        }
        None
    }

    /// The ranking a superlative `adjective` at `i..=at` says ("most expensive", "cheapest"): the
    /// column of its `class` (higher first when `up`) or the measure named next to it; refused
    /// when the data has no such column, a question back when it has several.
    fn superlative_rank(
        &mut self,
        i: usize,
        at: usize,
        adjective: &str,
        desc_word: bool,
        class: Class,
        up: bool,
    ) -> Result<(Rank, bool), Unread> {
        let lex = self.lex;
        let (class, up) = (&class, &up);
        // "biggest price": a generic word next to a named measure.
        let next = self.next_content(at + 1);
        if (HIGH_WORDS.contains(&adjective) || LOW_WORDS.contains(&adjective))
            && self.column_span(next).is_some_and(|c| lex.columns[c].is_numeric())
        {
            self.mark(i, at + 1);
            return Ok((Rank::Of(None, None), HIGH_WORDS.contains(&adjective)));
        }
        let mut candidates: Vec<usize> = lex
            .of_class(*class)
            .into_iter()
            .filter(|&c| lex.columns[c].formula.is_none() || *class != Class::Money)
            .collect();
        // "the biggest orders" where nothing has a size: the biggest by value.
        if candidates.is_empty() && *class == Class::Size {
            candidates = sale_values(lex);
        }
        let column = match candidates.as_slice() {
            [c] => *c,
            [] => {
                return Err(Unread::Refuse(format!(
                    "{} has no column that says how {} something is, so I cannot tell what “{}” means here.",
                    lex.dataset.table_name,
                    base_adjective(adjective),
                    self.tokens[i..=at].iter().map(|t| t.raw.as_str()).collect::<Vec<_>>().join(" ")
                )));
            }
            many => {
                // A measure named in the question settles it.
                let named = self.spans.iter().find_map(|s| match s.meaning {
                    Meaning::Column(c) if many.contains(&c) => Some(c),
                    Meaning::Dataset
                    | Meaning::Entity
                    | Meaning::Column(_)
                    | Meaning::Value(..)
                    | Meaning::Flag(..) => None,
                });
                match named {
                    Some(c) => c,
                    None => {
                        let names: Vec<String> = many.iter().map(|c| lex.columns[*c].name.clone()).collect();
                        return Err(Unread::Ask(format!("“{}” by which column: {}?", adjective, or_list(&names))));
                    }
                }
            }
        };
        let desc = if at != i { desc_word == *up } else { *up };
        self.mark(i, at + 1);
        Ok((Rank::Of(Some(Measure { column, per: None }), None), desc))
    }

    /// The number of rows or groups a ranking asks for ("top 5", "the 3 cheapest"), its words
    /// used up; "bottom" turns the ranking's way.
    fn ranked_count(&mut self, found: &mut Option<(Rank, bool)>) -> Option<u32> {
        let lex = self.lex;
        for i in 0..self.tokens.len() {
            let Some(x) = self.tokens[i].number else { continue };
            if self.used[i] || self.tokens[i].currency.is_some() || self.tokens[i].percent {
                continue;
            }
            let before = i.checked_sub(1).map(|p| self.word(p).to_owned()).unwrap_or_default();
            let next_used = self.used.get(i + 1).copied().unwrap_or(false);
            let next_is_rows = self.span_at(i + 1).is_some_and(|sp| sp.meaning == Meaning::Entity)
                || ROW_WORDS.contains(&self.word(i + 1))
                // "the two sites with the highest peak demand".
                || self.span_at(i + 1).is_some_and(|sp| matches!(sp.meaning, Meaning::Column(c) if groupable(lex, c) || lex.columns[c].class == Class::Id));
            if (before == "top" || before == "bottom" || next_used || next_is_rows)
                && (1.0..=1000.0).contains(&x)
                && x.fract() == 0.0
            {
                self.used[i] = true;
                if before == "top" || before == "bottom" {
                    self.used[i - 1] = true;
                    if before == "bottom"
                        && let Some((_, desc)) = found
                    {
                        *desc = !*desc;
                    }
                }
                return Some(x as u32);
            }
        }
        None
    }

    /// Group words: "by X", "per X", "for each X", "across X", "by month".
    pub(super) fn group(&mut self) -> Result<Option<(usize, Option<TimeBucket>)>, Unread> {
        for i in 0..self.tokens.len() {
            if self.used[i] || self.span_covering(i).is_some() {
                continue;
            }
            if let Some(group) = self.group_at(i)? {
                return Ok(Some(group));
            }
        }
        Ok(None)
    }

    /// The grouping the group word at token `i` asks for: a column, with a time bucket for a
    /// date; none when there is no group word there.
    fn group_at(&mut self, i: usize) -> Result<Option<(usize, Option<TimeBucket>)>, Unread> {
        let lex = self.lex;
        let w = self.word(i).to_owned();
        // "price per bedroom", "cost per seat": per after a quantity divides it.
        if w == "per"
            && i > 0
            && self.column_span(i - 1).is_some_and(|c| lex.columns[c].is_numeric())
            && self.column_span(self.next_content(i + 1)).is_some_and(|c| lex.columns[c].is_numeric())
        {
            return Ok(None);
        }
        // "total consumption across all meters": over all of them, one figure.
        if matches!(w.as_str(), "across" | "over" | "for")
            && self.word(i + 1) == "all"
            && self.span_at(i + 2).is_some_and(|sp| match sp.meaning {
                Meaning::Column(c) => groupable(lex, c) || lex.columns[c].class == Class::Id,
                Meaning::Entity | Meaning::Dataset => true,
                Meaning::Value(..) | Meaning::Flag(..) => false,
            })
        {
            self.mark(i, i + 2);
            self.mark_span(i + 2);
            return Ok(None);
        }
        let Some(cue_len) = self.group_cue(i, &w) else { return Ok(None) };
        let mut target = self.next_content(i + cue_len);
        // "by number of bedrooms": the column after "number of".
        let mut lead_in = None;
        if self.word(target) == "number" && self.word(target + 1) == "of" {
            lead_in = Some(target);
            target = self.next_content(target + 2);
        }
        // A time bucket: "by month", "per year", "each week" — unless the word starts a
        // column's name ("by year group").
        let named_column = self.span_covering(target).is_some_and(|s| matches!(s.meaning, Meaning::Column(_)));
        let bucket = match self.word(target) {
            _ if named_column => None,
            "year" | "years" | "yearly" | "annually" | "annual" => Some(TimeBucket::Year),
            "quarter" | "quarters" | "quarterly" => Some(TimeBucket::Quarter),
            "month" | "months" | "monthly" => Some(TimeBucket::Month),
            "week" | "weeks" | "weekly" => Some(TimeBucket::Week),
            "day" | "days" | "daily" => Some(TimeBucket::Day),
            _ => None,
        };
        if let Some(bucket) = bucket {
            let column = self.bucket_column(bucket)?;
            self.mark(i, target + 1);
            if let Some(s) = self.spans.iter().find(|s| s.meaning == Meaning::Column(column)).cloned() {
                self.mark(s.start, s.end);
            }
            return Ok(Some((column, Some(bucket))));
        }
        Ok(self.grouped_by(i, &w, cue_len, target, lead_in))
    }

    /// How many words the group word `w` at token `i` takes ("by": 1, "for each": 2, "monthly":
    /// none), if it is one.
    fn group_cue(&self, i: usize, w: &str) -> Option<usize> {
        let bucket_next = matches!(
            self.word(i + 1),
            "month" | "months" | "quarter" | "quarters" | "week" | "weeks" | "day" | "days" | "year" | "years"
        );
        let cue_len = match w {
            // "monthly consumption", "plot weekly sessions": by that period.
            "monthly" | "weekly" | "daily" | "quarterly" | "yearly" | "annual" | "annually" => 0,
            "by" | "per" | "across" | "each" | "every" => 1,
            // "which month had the most shipments", "what day saw the most exams".
            "which" | "what" if bucket_next => 1,
            "for" | "in" if matches!(self.word(i + 1), "each" | "every") => 2,
            "broken" | "split" | "grouped" | "group" | "break"
                if self.word(i + 1) == "by" || self.word(i + 2) == "by" =>
            {
                if self.word(i + 1) == "by" {
                    2
                } else {
                    3
                }
            }
            _ => return None,
        };
        Some(cue_len)
    }

    /// The date column a time `bucket` groups: the one named, the event's, or the only one;
    /// else refused, or a question back.
    fn bucket_column(&self, bucket: TimeBucket) -> Result<usize, Unread> {
        let lex = self.lex;
        let dates = lex.dates();
        let named = dates.iter().copied().find(|d| self.spans.iter().any(|s| s.meaning == Meaning::Column(*d)));
        let column = match (named.or_else(|| lex.event_date()), dates.as_slice()) {
            (Some(c), _) => c,
            (None, [c]) => *c,
            (None, []) => {
                return Err(Unread::Refuse(format!(
                    "{} has no date column, so I cannot group it by {}.",
                    lex.dataset.table_name,
                    bucket.as_str()
                )));
            }
            (None, many) => {
                let names: Vec<String> = many.iter().map(|c| lex.columns[*c].name.clone()).collect();
                return Err(Unread::Ask(format!("By the {} of which date: {}?", bucket.as_str(), or_list(&names))));
            }
        };
        Ok(column)
    }

    /// The column the words at `target` group by, after the group word `w` at `i` (`cue_len`
    /// words, with "number of" at `lead_in`), with the words used up.
    fn grouped_by(
        &mut self,
        i: usize,
        w: &str,
        cue_len: usize,
        target: usize,
        lead_in: Option<usize>,
    ) -> Option<(usize, Option<TimeBucket>)> {
        let lex = self.lex;
        match self.span_covering(target).map(|s| s.meaning.clone()) {
            // "by product category": the second of two names is the one meant.
            Some(Meaning::Column(_))
                if self.span_covering(target).is_some_and(|s| {
                    self.span_at(s.end).is_some_and(|n| matches!(n.meaning, Meaning::Column(d) if groupable(lex, d)))
                }) =>
            {
                let first = self.span_covering(target).cloned()?;
                let Some(Meaning::Column(d)) = self.span_at(first.end).map(|s| s.meaning.clone()) else { return None };
                self.mark(i, i + cue_len);
                self.mark(first.start, first.end);
                self.mark_span(first.end);
                return Some((d, None));
            }
            // "for each meter", "by customer": an id column groups its rows too.
            // ("by year group": whole numbers grouped when asked to be.)
            Some(Meaning::Column(c))
                if groupable(lex, c)
                    || lex.columns[c].is_date()
                    || lex.columns[c].class == Class::Id
                    || (w != "per"
                        && lex.columns[c].kind == aware_domain::value::ValueKind::Int
                        && lex.columns[c].formula.is_none()) =>
            {
                self.mark(i, i + cue_len);
                if let Some(k) = lead_in {
                    self.mark(k, k + 2);
                }
                self.mark_span(target);
                return Some((c, None));
            }
            Some(Meaning::Flag(c, _)) => {
                // "churn by terrace": the flag's two values are the groups.
                self.mark(i, i + cue_len);
                self.mark_span(target);
                return Some((c, None));
            }
            // "tickets submitted by phone": "by" before a value is just a preposition.
            Some(Meaning::Value(..)) if w == "by" => {
                self.used[i] = true;
            }
            _ => {}
        }
        None
    }
}

/// Whether a column's values add up to something meaningful over rows ("total revenue", "units
/// sold", "kWh used") rather than describe each row (a price, a score, an age).
pub(super) fn additive(lex: &Lexicon, c: usize) -> bool {
    let col = &lex.columns[c];
    match &col.formula {
        // A difference or sum of amounts is an amount ("consumption minus solar").
        Some(crate::lexicon::Formula::Op(
            aware_domain::query_plan::Operator::Add | aware_domain::query_plan::Operator::Sub,
            a,
            b,
        )) => {
            return [a, b].iter().all(|f| match &***f {
                crate::lexicon::Formula::Column(x) => additive(lex, *x),
                crate::lexicon::Formula::Number(_)
                | crate::lexicon::Formula::Op(..)
                | crate::lexicon::Formula::Totals(..) => false,
            });
        }
        Some(_) => return col.class == Class::Money,
        None => {}
    }
    let words = crate::text::words_of(&col.name);
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(&["price", "rate", "per", "avg", "average", "mean", "score", "age", "rating", "pct", "percent", "ratio"]) {
        return false;
    }
    has(&[
        "units",
        "qty",
        "quantity",
        "volume",
        "revenue",
        "sales",
        "amount",
        "total",
        "spend",
        "spent",
        "cost",
        "costs",
        "consumption",
        "kwh",
        "usage",
        "generated",
        "solar",
        "value",
        "paid",
        "income",
        "turnover",
        "weight",
        "distance",
        "km",
        "pages",
        "pageviews",
        "views",
        "visits",
        "visitors",
        "calls",
        "charges",
    ]) || col.class == Class::Count
}

/// Whether a column is the main quantity of what its rows record (consumption beside solar
/// generation, a total beside a part): the default among columns in the same unit.
pub(super) fn primary_measure(lex: &Lexicon, c: usize) -> bool {
    crate::text::words_of(&lex.columns[c].name).iter().any(|w| {
        matches!(w.as_str(), "consumption" | "usage" | "used" | "total" | "amount" | "value" | "quantity" | "volume")
    })
}

/// The words a sale is counted with: "selling", "sold", "sellers".
fn sold_verb(word: &str) -> bool {
    matches!(word, "selling" | "sold" | "sell" | "seller" | "sellers" | "sells")
}

/// The money columns that say how big a sale is: a computed revenue, else stored totals.
pub(super) fn sale_values(lex: &Lexicon) -> Vec<usize> {
    let money: Vec<usize> = lex.of_class(Class::Money).into_iter().filter(|&c| additive(lex, c)).collect();
    // "the biggest claims": the amount of a claim (`ClaimAmount`, not `ApprovedAmount`).
    let thing = crate::text::stem(&crate::text::singular(&lex.entity));
    let named: Vec<usize> = money
        .iter()
        .copied()
        .filter(|&c| crate::text::words_of(&lex.columns[c].name).iter().any(|w| crate::text::stem(w) == thing))
        .collect();
    if let [one] = named.as_slice() {
        return vec![*one];
    }
    let computed: Vec<usize> = money.iter().copied().filter(|&c| lex.columns[c].formula.is_some()).collect();
    if computed.is_empty() { money } else { computed.into_iter().take(1).collect() }
}
