//! Reading a question whole: its shape (what to count, measure, rank or list), its conditions,
//! groups and periods, and the words left over — each said back rather than dropped.

use super::matching::is_people;
use super::messages::{agg_word, describe_ask, example_columns, not_understood, numeric_columns};
use super::shape::Rank;
use super::words::*;
use super::{
    Ask, Cond, GroupOrder, Measure, ROW_LIMIT, Reader, Reading, Tally, Unread, followup, groupable, m_plain, name_of,
    repeated_key, shape, split_share,
};
use crate::lexicon::{Class, Meaning};
use crate::text::stem;
use aware_domain::query_plan::Aggregate;

impl Reader<'_> {
    /// The whole question read into a [`Reading`], or the reason it cannot be.
    // Over 700 lines, on purpose for now: the phases (shape, conditions, groups, rank, the words
    // left over) run in one order and revise a dozen shared locals (`ask`, `filters`, `group`,
    // `order`, `limit`, `trend` …) as later words change what earlier ones meant. Splitting it
    // means making those one value the phases pass along; until then each phase is a helper
    // method (`conditions.rs`, `time.rs`, `shape.rs`, `followup.rs`) and this is their order.
    pub(super) fn interpret(&mut self) -> Result<Reading, Unread> {
        let lex = self.lex;
        // "what columns does the churn data have?" is about the schema, not the values.
        if (0..self.tokens.len()).any(|i| matches!(self.word(i), "columns" | "schema" | "fields" | "structure")) {
            return Err(Unread::NotData);
        }
        let mut filters: Vec<Cond> = Vec::new();
        let mut limit: Option<u32> = None;
        // "the most total weight": a ranking of totals says "total" only for emphasis.
        for i in 1..self.tokens.len() {
            if self.word(i) == "total"
                && matches!(
                    self.word(i - 1),
                    "most" | "highest" | "largest" | "biggest" | "greatest" | "lowest" | "least"
                )
                && self.span_covering(i).is_none()
            {
                self.used[i] = true;
            }
        }
        // "what carriers do we use", "which browsers are seen": the values themselves.
        self.take_phrase(&["do", "we", "use"]);
        // "shipments that ended up delayed".
        self.take_phrase(&["ended", "up"]);
        self.take_phrase(&["end", "up"]);
        // "i.e. consumption minus solar".
        for i in 0..self.tokens.len() {
            if self.word(i) == "e" && i > 0 && self.word(i - 1) == "i" {
                self.used[i] = true;
            }
        }

        // "insurance type", "age band", "policy kinds": a word after a category column's name
        // that only says it is a kind of thing.
        for k in 0..self.spans.len() {
            let sp = &self.spans[k];
            let end = sp.end;
            if matches!(sp.meaning, Meaning::Column(c) if lex.columns[c].class == Class::Category)
                && KIND_WORDS.contains(&self.word(end))
                && self.span_covering(end).is_none()
            {
                self.spans[k].end = end + 1;
            }
        }

        // "worth more than $2,025 after discount": the revenue computed net of discounts.
        if lex.columns.iter().any(|c| c.name == "revenue" && c.formula.is_some()) {
            for p in [
                &["after", "discount"][..],
                &["after", "discounts"],
                &["net", "of", "discount"],
                &["net", "of", "discounts"],
            ] {
                self.take_phrase(p);
            }
        }
        // "the number of exam results and the average test score": two answers at once.
        for i in 1..self.tokens.len() {
            if self.word(i - 1) == "and"
                && matches!(
                    self.word(i),
                    "average"
                        | "avg"
                        | "mean"
                        | "median"
                        | "total"
                        | "sum"
                        | "number"
                        | "count"
                        | "maximum"
                        | "minimum"
                )
                && (0..i - 1).any(|k| {
                    matches!(
                        self.word(k),
                        "number" | "count" | "average" | "total" | "sum" | "mean" | "median" | "many"
                    )
                })
            {
                return Err(Unread::Refuse(
                    "That asks for two figures at once; I can answer one at a time — ask for each on its own."
                        .to_owned(),
                ));
            }
        }
        // Time first: "last month", "in 2024", "since March 2025".
        // "did sales drop in June (compared to May)?", "which months saw consumption drop?".
        let trend = self.trend_word();
        let mut trend_group = None;
        if let Some(cond) = self.time_condition()? {
            match trend {
                Some(_) => {
                    let (cond, bucket) = self.trend_periods(cond);
                    trend_group = Some((cond.column, Some(bucket)));
                    filters.push(cond);
                }
                None => filters.push(cond),
            }
        }

        // Ranking words and top-k.
        let rank = self.rank()?;
        if let Some((_, _, n)) = &rank {
            limit = *n;
        }

        // Comparisons with numbers: "price over 500k", "more than 2 bathrooms", "3-bedroom".
        filters.extend(self.comparisons()?);

        // Values and flags, with "or" lists and negation.
        filters.extend(self.value_conditions()?);

        // "customers on the premium plan": the column word names the value's column.
        for sp in self.spans.clone() {
            if let Meaning::Column(c) = sp.meaning
                && !self.used[sp.start]
                && lex.columns[c].class == Class::Category
                && filters.iter().any(|f| f.column == c && f.period.is_none())
            {
                self.mark(sp.start, sp.end);
            }
        }

        // "discount percentage": the unit of a column measured in percent, not a share.
        for sp in self.spans.clone() {
            if let Meaning::Column(c) = sp.meaning
                && (lex.columns[c].unit == Some(crate::lexicon::Unit::Percent)
                    || lex.columns[c].name.to_lowercase().contains("pct"))
                && matches!(self.word(sp.end), "percentage" | "percent" | "pct" | "rate")
                && !self.used.get(sp.end).copied().unwrap_or(true)
            {
                self.used[sp.end] = true;
            }
        }
        // "weekly readings", "average weekly consumption": how often rows are made, not a group
        // ("monthly consumption" alone is by month).
        for i in 0..self.tokens.len() {
            let next = self.span_at(i + 1).map(|s| s.meaning.clone());
            // ("how many weekly bills": the rows, counted.)
            let averaged =
                i > 0 && matches!(self.word(i - 1), "average" | "avg" | "mean" | "typical" | "median" | "many");
            if !self.used[i]
                && matches!(self.word(i), "weekly" | "daily" | "monthly" | "yearly" | "annual" | "hourly")
                && self.span_covering(i).is_none()
                && (matches!(next, Some(Meaning::Entity))
                    || (averaged && matches!(next, Some(Meaning::Column(c)) if lex.columns[c].is_numeric())))
            {
                self.used[i] = true;
            }
        }
        // "how long do paid claims take to settle", "how many days pass between …": a
        // duration's average.
        let how_long = self.take_phrase(&["how", "long"])
            || (!lex.of_class(Class::Duration).is_empty()
                && ["days", "hours", "minutes", "weeks"].iter().any(|u| self.take_phrase(&["how", "many", u])));
        if how_long {
            // "how long does a session last (in seconds)": the verb, and the duration's own unit.
            for i in 0..self.tokens.len() {
                if matches!(self.word(i), "last" | "lasts")
                    && !self.used[i]
                    && time_unit(self.word(i + 1)).is_none()
                    && !matches!(self.word(i + 1), "month" | "week" | "year" | "quarter" | "day")
                    && self.tokens.get(i + 1).is_none_or(|t| t.number.is_none())
                {
                    self.used[i] = true;
                }
            }
            if let [d] = lex.of_class(Class::Duration).as_slice()
                && let Some(u) = unit_word(&lex.columns[*d])
            {
                for i in 0..self.tokens.len() {
                    if self.word(i) == "in" && !self.used[i] && stem(self.word(i + 1)) == stem(u) {
                        self.mark(i, i + 2);
                    }
                }
            }
        }

        // "how many units were sold", "how many pages were viewed": a quantity the rows hold,
        // totalled — not the rows counted.
        let quantity = (1..self.tokens.len()).find(|&i| {
            self.word(i - 1) == "how"
                && self.word(i) == "many"
                && !self.used[i]
                && matches!(self.span_at(i + 1).map(|s| &s.meaning), Some(Meaning::Column(c))
                    if lex.columns[*c].is_numeric()
                        && lex.columns[*c].kind == aware_domain::value::ValueKind::Int
                        && lex.columns[*c].class != Class::Id
                        && shape::additive(lex, *c))
        });
        if let Some(i) = quantity {
            self.mark(i - 1, i + 1);
        }
        // Aggregates, counts, shares and groups.
        let count =
            self.take_phrase(&["how", "many"]) || self.take_phrase(&["number", "of"]) || self.take_word("count");
        let how_much = self.take_phrase(&["how", "much"]);
        let share =
            ["rate", "percentage", "percent", "share", "proportion", "fraction"].iter().any(|w| self.take_word(w));
        let aggregate = self.aggregate_word().or(quantity.map(|_| Aggregate::Sum));
        let group = match trend_group {
            Some(g) => Some(g),
            None => self.group()?,
        };
        if trend.is_some() && lex.dates().is_empty() {
            return Err(Unread::Refuse(format!(
                "{} has no dates, so I cannot tell how it changed over time.",
                lex.dataset.table_name
            )));
        }
        if trend.is_some() && group.is_none_or(|(_, bucket)| bucket.is_none()) {
            return Err(Unread::Ask(
                "Compared with which period? Name it, e.g. “did sales drop in June compared to May?”".to_owned(),
            ));
        }
        let compare = self.take_word("compare") || self.take_word("versus") || self.take_word("vs");
        let (measure, per_only) = self.measure()?;
        // "how many different plans": the count of distinct values says that already.
        for w in ["distinct", "different", "unique"] {
            // "unique visitors" of sessions: another word for the rows is not an identity to count
            // apart — nothing says which sessions are one visitor's.
            if let Some(i) = self.find_phrase(&[w])
                && let Some(sp) = self.span_at(self.next_content(i + 1))
                && sp.meaning == Meaning::Entity
                && is_people(self.word(sp.start))
                && !is_people(&crate::text::singular(&lex.entity))
                // (`student_id` tells students apart.)
                && !lex.columns.iter().any(|c| {
                    c.class == Class::Id
                        && crate::text::words_of(&c.name).iter().any(|w| stem(w) == stem(self.word(sp.start)))
                })
            {
                let said: Vec<String> = self.tokens[sp.start..sp.end].iter().map(|t| t.raw.clone()).collect();
                return Err(Unread::Refuse(format!(
                    "{} has no column that tells one of the {} from another, so I cannot count {w} {}; each of its rows is one {}.",
                    lex.dataset.table_name,
                    said.join(" "),
                    said.join(" "),
                    crate::text::singular(&lex.entity)
                )));
            }
            self.take_word(w);
        }

        // Words for the rows and the dataset are understood as they are.
        let mut entity_at = None;
        for s in self.spans.clone() {
            if matches!(s.meaning, Meaning::Entity | Meaning::Dataset) {
                if s.meaning == Meaning::Entity && entity_at.is_none() {
                    entity_at = Some(s.start);
                }
                self.mark(s.start, s.end);
            }
        }
        for i in 0..self.tokens.len() {
            if ROW_WORDS.contains(&self.word(i)) {
                self.used[i] = true;
                entity_at = entity_at.or(Some(i));
            }
        }
        // "tickets submitted through the web form": a date column's verb with no period is
        // the event itself, not a condition.
        for sp in self.spans.clone() {
            if let Meaning::Column(c) = sp.meaning
                && !self.used[sp.start]
                && lex.columns[c].is_date()
                && sp.end - sp.start == 1
                && self.word(sp.start).ends_with("ed")
            {
                self.mark(sp.start, sp.end);
            }
        }
        // "total"/"overall"/"in total" next to a count or a total is only emphasis.
        for w in ["total", "overall", "altogether", "combined", "together"] {
            if count || share || how_much || aggregate == Some(Aggregate::Sum) {
                self.take_word(w);
            }
        }
        // "median pages viewed per session": per one of the rows is what a row holds; "revenue
        // per session" is the total over the sessions.
        let mut per_row = false;
        if measure.is_some() {
            for i in 0..self.tokens.len() {
                if !self.used[i]
                    && matches!(self.word(i), "per" | "each" | "every")
                    && (self.span_at(i + 1).is_some_and(|s| s.meaning == Meaning::Entity)
                        || (self.word(i + 1) == "single"
                            && self.span_at(i + 2).is_some_and(|s| s.meaning == Meaning::Entity)))
                {
                    self.used[i] = true;
                    self.mark_span(i + 1);
                    per_row |= self.word(i) == "per";
                    if self.word(i + 1) == "single" {
                        self.used[i + 1] = true;
                        self.mark_span(i + 2);
                    }
                }
            }
        }
        // "how many shipments were sent", "the shipping distance": a date column's words with
        // no period are the event itself.
        for sp in self.spans.clone() {
            if let Meaning::Column(c) = sp.meaning
                && !self.used[sp.start]
                && lex.columns[c].is_date()
                && lex.columns[c].formula.is_none()
            {
                self.mark(sp.start, sp.end);
            }
        }

        // "which product generates the most revenue", "accounts for the most": verbs that only
        // say a group has its number.
        if rank.is_some() || aggregate.is_some() || group.is_some() || measure.is_some() || count {
            for i in 0..self.tokens.len() {
                if !self.used[i] && self.span_covering(i).is_none() && HAS_VERBS.contains(&self.word(i)) {
                    self.used[i] = true;
                    if self.word(i + 1) == "for" || self.word(i + 1) == "in" {
                        self.used[i + 1] = true;
                    }
                }
            }
        }
        // A column named on its own, with nothing to do: a group ("which plan …"), the values
        // asked for ("what plans are there"), or not understood.
        let mut named_columns: Vec<(usize, usize)> = Vec::new();
        for s in self.spans.clone() {
            if let Meaning::Column(c) = s.meaning
                && !self.used[s.start]
            {
                named_columns.push((s.start, c));
            }
        }

        // "average delivery time in days", "the longest stay in days": the measure's own unit.
        let ranked_by = match &rank {
            Some((Rank::Of(Some(m), _), _, _)) => Some(*m),
            _ => None,
        };
        if let Some(m) = measure.or(ranked_by) {
            // "order value (usd)", "in euros": the currency the amount is in already.
            if let Some(crate::lexicon::Unit::Currency(sym)) = lex.columns[m.column].unit {
                let said: &[&str] = match sym {
                    '$' => &["usd", "dollars", "dollar"],
                    '€' => &["eur", "euros", "euro"],
                    '£' => &["gbp", "pounds", "pound", "sterling"],
                    _ => &[],
                };
                for w in said {
                    while self.take_word(w) {}
                }
            }
            let unit = unit_word(&lex.columns[m.column]);
            for i in 0..self.tokens.len().saturating_sub(1) {
                if !self.used[i]
                    && self.word(i) == "in"
                    && !self.used[i + 1]
                    && unit.is_some_and(|u| stem(u) == stem(self.word(i + 1)))
                {
                    self.mark(i, i + 2);
                }
            }
            // "net consumption (consumption minus solar)".
            if matches!(
                &lex.columns[m.column].formula,
                Some(crate::lexicon::Formula::Op(aware_domain::query_plan::Operator::Sub, ..))
            ) {
                self.take_word("net");
                // "net grid consumption": what was drawn from the grid.
                self.take_word("grid");
            }
        }
        // "for the year", "over the whole year": all of the data's one year.
        for p in [
            &["for", "the", "year"][..],
            &["over", "the", "year"],
            &["for", "the", "whole", "year"],
            &["over", "the", "whole", "year"],
            &["across", "the", "year"],
        ] {
            self.take_phrase(p);
        }
        if group.is_some() {
            self.take_phrase(&["break", "down"]);
            self.take_phrase(&["broken", "down"]);
            self.take_word("breakdown");
            self.take_word("distribution");
        }
        // "how much revenue did the site make": the business itself; "chart revenue by month":
        // the chart comes with the table.
        for w in SUBJECT_WORDS.iter().chain(CHART_WORDS) {
            while self.take_word(w) {}
        }
        let leftovers = |r: &Self| -> Vec<String> {
            (0..r.tokens.len())
                .filter(|&i| !r.used[i] && !FUNCTION_WORDS.contains(&r.word(i)) && r.tokens[i].text != "s")
                .map(|i| r.tokens[i].raw.clone())
                .collect()
        };

        if let Some(prev) = self.prev.take() {
            let said = followup::Said { filters, limit, rank, count, share, aggregate, group, measure, named_columns };
            let r = self.follow_up(prev, said)?;
            let left = leftovers(self);
            if !left.is_empty() {
                return Err(Unread::Refuse(not_understood(lex, &left, &r.ask)));
            }
            return Ok(r);
        }

        // Decide what is asked.
        let mut group = group;
        let mut order = GroupOrder::Key;
        let mut leader = false;
        let ask: Ask;

        // "compare churn by plan", "terrace by neighbourhood": a yes/no column across groups
        // reads as its share in each group, not a count that grows with the group's size.
        let flags: Vec<usize> =
            (0..filters.len()).filter(|&i| lex.columns[filters[i].column].class == Class::Flag).collect();
        // ("churned customers by region" names the rows: a count of them.)
        let flag_share = !share
            && !count
            && aggregate.is_none()
            && measure.is_none()
            && rank.is_none()
            && (group.is_some() || compare)
            && (entity_at.is_none() || compare)
            && flags.len() == 1
            // "conversions by source" counts them; "conversion by source" compares the rate.
            && !self.flag_said_as_plural(filters[flags[0]].column);
        if share || flag_share {
            // The share's condition: flags and values said next to the share word ("churn
            // rate") or after the rows ("of apartments that have a terrace").
            let (predicate, base) = if flag_share {
                let flag = filters.remove(flags[0]);
                (vec![flag], filters.clone())
            } else {
                split_share(&filters, self)
            };
            if predicate.is_empty() {
                return Err(Unread::Ask(format!(
                    "A share of which {}? Say the condition, e.g. “the share of {} with …”.",
                    lex.entity, lex.entity
                )));
            }
            filters = base;
            // "which plan has the highest churn rate": the share per plan, the top one first.
            let highest = ["highest", "most", "biggest", "largest", "top"].iter().any(|w| self.take_word(w));
            let lowest = !highest && ["lowest", "least", "smallest", "fewest"].iter().any(|w| self.take_word(w));
            if group.is_none()
                && let Some(pos) = named_columns.iter().position(|(_, c)| groupable(lex, *c))
            {
                let (at, c) = named_columns.remove(pos);
                group = Some((c, None));
                self.mark_span(at);
            }
            if group.is_some() {
                order = GroupOrder::Value(!lowest);
                leader = highest || lowest;
            }
            ask = Ask::Tally(Tally::Share(predicate));
        } else if count
            && !self.counts_rows()
            && let Some(pos) = named_columns
                .iter()
                .position(|(_, c)| groupable(lex, *c) || lex.columns[*c].class == Class::Id)
                .filter(|_| group.is_none() && rank.is_none())
        {
            // "how many neighbourhoods are there", "how many customers opened tickets":
            // different values of a column.
            let (at, c) = named_columns.remove(pos);
            self.mark_span(at);
            ask = Ask::Tally(Tally::Distinct(c));
        } else if let Some((kind, desc, _)) = rank.clone() {
            match kind {
                Rank::Frequency => {
                    // "most common categories", "which plan has the most customers".
                    if group.is_none() {
                        let pick = named_columns.iter().position(|(_, c)| groupable(lex, *c));
                        let Some(pos) = pick else {
                            return Err(Unread::Ask(format!(
                                "Most common what? Name a column of {}, e.g. {}.",
                                lex.dataset.table_name,
                                example_columns(lex)
                            )));
                        };
                        let (at, c) = named_columns.remove(pos);
                        self.mark_span(at);
                        group = Some((c, None));
                    }
                    order = GroupOrder::Value(desc);
                    leader = limit.is_none();
                    ask = Ask::Tally(Tally::Count);
                }
                Rank::Of(class_measure, agg_hint) => {
                    // "cheapest per square metre": the ranking's measure divided by the one named.
                    let measure = match (per_only, measure, class_measure) {
                        (true, Some(divisor), Some(base)) if divisor.column != base.column => {
                            Some(Measure { column: base.column, per: Some(divisor.column) })
                        }
                        (true, Some(_), _) => {
                            return Err(Unread::Refuse("I could not tell what to divide by what.".to_owned()));
                        }
                        _ => measure,
                    };
                    let m = match measure.or(class_measure) {
                        Some(m) => m,
                        None => {
                            return Err(Unread::Refuse(format!(
                                "I could not tell which column of {} to rank by. Its numeric columns are {}.",
                                lex.dataset.table_name,
                                numeric_columns(lex)
                            )));
                        }
                    };
                    if group.is_none()
                        && let Some(pos) = named_columns.iter().position(|(_, c)| groupable(lex, *c))
                    {
                        // "which neighbourhood is most expensive": groups ranked by the average.
                        let (at, c) = named_columns.remove(pos);
                        self.mark_span(at);
                        group = Some((c, None));
                    } else if group.is_none()
                        && let Some(pos) = named_columns.iter().position(|(_, c)| lex.columns[*c].class == Class::Id)
                    {
                        // "top 3 customers by revenue": each customer's rows together.
                        let (at, c) = named_columns.remove(pos);
                        self.mark_span(at);
                        group = Some((c, None));
                    } else if group.is_none()
                        && entity_at.is_some()
                        && let Some(c) = repeated_key(lex)
                    {
                        // "the 5 students with the best test scores" where a student has a row
                        // per subject: each student's rows together.
                        group = Some((c, None));
                    }
                    if group.is_some() {
                        // "top 3 products by revenue" ranks totals; "which carrier has the
                        // highest freight cost" ranks averages.
                        // Periods are compared by their totals: "which month had the highest
                        // consumption".
                        // Amounts are compared by their totals ("which site has the biggest
                        // electricity bill", "top 3 products by revenue"); prices, scores and
                        // durations by their averages.
                        let peak = crate::text::words_of(&lex.columns[m.column].name)
                            .iter()
                            .any(|w| matches!(w.as_str(), "peak" | "max" | "maximum" | "record"));
                        let agg =
                            aggregate.or(agg_hint).unwrap_or(if m.per.is_none() && shape::additive(lex, m.column) {
                                Aggregate::Sum
                            } else if peak {
                                // "the highest peak demand" is the highest peak, not an average one.
                                if desc { Aggregate::Max } else { Aggregate::Min }
                            } else {
                                Aggregate::Avg
                            });
                        order = GroupOrder::Value(desc);
                        leader = limit.is_none();
                        ask = Ask::Tally(Tally::Aggregate(agg, m));
                    } else if entity_at.is_some()
                        || measure.is_none()
                        || limit.is_some()
                        // "who got the highest test score": the person's row.
                        || (0..self.tokens.len()).any(|i| self.word(i) == "who")
                    {
                        // "the 5 cheapest apartments", "the most expensive apartment".
                        let plural_entity = entity_at.is_some_and(|i| {
                            let w = self.word(i);
                            w.ends_with('s') && w != "this"
                        });
                        if limit.is_none() {
                            limit = Some(if plural_entity { 10 } else { 1 });
                        }
                        ask = Ask::Rows(Some((m, desc)));
                    } else {
                        // "what is the highest price": one number.
                        ask = Ask::Tally(Tally::Aggregate(if desc { Aggregate::Max } else { Aggregate::Min }, m));
                    }
                }
            }
        } else if let Some(agg) = aggregate {
            // "how long do deliveries take on average": the one duration the data has.
            let measure = measure.or_else(|| match lex.of_class(Class::Duration).as_slice() {
                [d] if how_long => Some(Measure { column: *d, per: None }),
                _ => None,
            });
            let Some(m) = measure else {
                return Err(Unread::Ask(format!(
                    "The {} of which column? {} has {}.",
                    agg_word(agg),
                    lex.dataset.table_name,
                    numeric_columns(lex)
                )));
            };
            ask = Ask::Tally(if agg == Aggregate::Avg && per_row && m.per.is_none() {
                Tally::PerRow(m)
            } else {
                Tally::Aggregate(agg, m)
            });
        } else if count && let Some(key) = repeated_key(lex).filter(|_| entity_at.is_some_and(|at| self.names_key(at)))
        {
            // "how many students failed" where a student has a row per subject: the students.
            ask = Ask::Tally(Tally::Distinct(key));
        } else if count {
            ask = Ask::Tally(Tally::Count);
        } else if how_long
            && let Some(m) = measure.filter(|m| lex.columns[m.column].class == Class::Duration).or_else(|| {
                // "how long do deliveries take": the one duration the data has.
                match lex.of_class(Class::Duration).as_slice() {
                    [d] if measure.is_none() => Some(Measure { column: *d, per: None }),
                    _ => None,
                }
            })
        {
            ask = Ask::Tally(Tally::Aggregate(aggregate.unwrap_or(Aggregate::Avg), m));
        } else if how_much {
            // "how much revenue did we make" is a total; "how much is a laptop" an average price.
            let Some(m) =
                measure.filter(|m| lex.columns[m.column].class == Class::Money || shape::additive(lex, m.column))
            else {
                return Err(Unread::Refuse("I could not tell what “how much” refers to.".to_owned()));
            };
            let agg = if m.per.is_none() && shape::additive(lex, m.column) { Aggregate::Sum } else { Aggregate::Avg };
            ask = Ask::Tally(Tally::Aggregate(agg, m));
        } else if let Some(m) = measure.filter(|_| per_row && m_plain(measure) && rank.is_none()) {
            ask = Ask::Tally(Tally::PerRow(m));
        } else if let Some(m) = measure.filter(|_| !per_only) {
            // "price by neighbourhood", "price per square metre in Eixample": the average,
            // which the answer says; "revenue by region", "units sold in Q3": the total.
            let agg = if m.per.is_none() && shape::additive(lex, m.column) { Aggregate::Sum } else { Aggregate::Avg };
            ask = Ask::Tally(Tally::Aggregate(agg, m));
        } else if group.is_some() {
            ask = Ask::Tally(Tally::Count);
        } else if let Some(pos) = named_columns
            .iter()
            .position(|(_, c)| groupable(lex, *c))
            .filter(|_| filters.is_empty() && measure.is_none())
        {
            // "what plans are there?", "which categories do tickets have?"
            let (at, c) = named_columns.remove(pos);
            self.mark_span(at);
            group = Some((c, None));
            order = GroupOrder::Value(true);
            ask = Ask::Tally(Tally::Count);
        } else if !filters.is_empty() && !self.asks_for_rows() {
            // "sessions longer than 20 minutes", "claims that took more than 60 days to settle":
            // how many there are (a list when the words ask for one).
            ask = Ask::Tally(Tally::Count);
        } else if !filters.is_empty() {
            // "which apartments have a terrace and cost less than 400000?"
            ask = Ask::Rows(None);
            if limit.is_none() {
                limit = Some(ROW_LIMIT);
            }
        } else if let Some(w) = (0..self.tokens.len())
            .map(|i| self.word(i))
            .find(|w| matches!(*w, "best" | "worst" | "top" | "highest" | "lowest" | "greatest"))
        {
            // "show me the best one": best by a measure the question does not name.
            let mut said = w.to_owned();
            said[..1].make_ascii_uppercase();
            return Err(Unread::Ask(format!(
                "{said} by what? Name the column to rank by, e.g. {}.",
                numeric_columns(lex)
            )));
        } else {
            return Err(Unread::NotData);
        }
        // "average age of Medicare patients": an id column's word left over names the rows.
        named_columns.retain(|(at, c)| {
            let id = lex.columns[*c].class == Class::Id;
            if id {
                let at = *at;
                if let Some(sp) = self.span_covering(at).cloned() {
                    self.mark(sp.start, sp.end);
                }
            }
            !id
        });
        if let (Ask::Rows(_), Some((at, _))) = (&ask, named_columns.first()) {
            // "show the price of apartments in Gràcia": the rows carry every column.
            let at = *at;
            self.mark_span(at);
            named_columns.remove(0);
        }
        if let Some(m) = measure
            && !matches!(ask, Ask::Tally(Tally::Aggregate(..) | Tally::PerRow(_)) | Ask::Rows(Some(_)))
            // "how many different products do we sell": a verb for a measure, when nothing is
            // measured, only says what the rows are about.
            && !self.measure_said_as_verb(m.column)
        {
            let name = &lex.columns[m.column].label;
            return Err(Unread::Refuse(format!(
                "I understood {} but not what to do with “{name}” here.",
                describe_ask(lex, &ask)
            )));
        }
        if let Some((c, bucket)) = group
            && bucket.is_none()
            && lex.columns[c].is_date()
        {
            return Err(Unread::Ask(format!(
                "Group {} by which period: day, week, month, quarter or year?",
                lex.columns[c].label
            )));
        }
        // "the longest shipment? give the id", "oldest patient's stay id": the rows listed show
        // their id and name anyway.
        if matches!(ask, Ask::Rows(_)) {
            let has_id = lex.columns.iter().any(|c| c.class == Class::Id);
            let has_name = lex.columns.iter().any(|c| crate::text::words_of(&c.name).iter().any(|w| w == "name"));
            for (w, shown) in
                [("id", has_id), ("ids", has_id), ("identifier", has_id), ("name", has_name), ("names", has_name)]
            {
                while shown && self.take_word(w) {}
            }
        }
        // "the readmission rate for Cardiology, as a percentage": how a share is said anyway.
        if matches!(ask, Ask::Tally(Tally::Share(_))) || flag_share {
            for p in [&["as", "a", "percentage"][..], &["as", "a", "percent"], &["in", "percent"]] {
                self.take_phrase(p);
            }
        }
        let left = leftovers(self);
        if !left.is_empty() {
            return Err(Unread::Refuse(not_understood(lex, &left, &ask)));
        }
        let label = group.and_then(|(g, _)| name_of(lex, g));
        Ok(Reading { ask, filters, group, order, limit, leader, links: self.links(), label, trend })
    }
}
