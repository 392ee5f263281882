//! Follow-ups in a thread: a message that changes the last question's reading instead of
//! starting over — "and by month?" (another group), "only for laptops" and "what about 2025?"
//! (a condition added, or replacing the one on the same column), "top 10 instead", "sort by
//! total", "and the average?" (another aggregate of the same measure).

use super::shape::{Rank, additive};
use super::words::FUNCTION_WORDS;
use super::{Ask, Cond, GroupOrder, Measure, Reader, Reading, Tally, Unread, agg_word, groupable};
use aware_domain::query_plan::{Aggregate, TimeBucket};

/// What the follow-up itself said, as the reader found it.
pub(super) struct Said {
    pub filters: Vec<Cond>,
    pub limit: Option<u32>,
    pub rank: Option<(Rank, bool, Option<u32>)>,
    pub count: bool,
    pub share: bool,
    pub aggregate: Option<Aggregate>,
    pub group: Option<(usize, Option<TimeBucket>)>,
    pub measure: Option<Measure>,
    /// Columns named with nothing else to do (position, column).
    pub named_columns: Vec<(usize, usize)>,
}

/// Words that only say "change the last answer".
pub(super) const FOLLOWUP_WORDS: &[&str] = &[
    "about", "instead", "only", "same", "but", "ones", "one", "again", "well", "too", "rather", "ok", "okay", "now",
    "also", "if", "we", "look", "looking", "break", "broken", "down", "split", "please", "thanks",
];

impl Reader<'_> {
    pub(super) fn follow_up(&mut self, prev: Reading, said: Said) -> Result<Reading, Unread> {
        let lex = self.lex;
        for w in FOLLOWUP_WORDS {
            while self.take_word(w) {}
        }
        let sort = self.sort_words();
        let mut group = said.group;
        let mut named = said.named_columns.clone();
        // "and channel?": a column on its own is the new grouping.
        if group.is_none()
            && said.measure.is_none()
            && let Some(pos) = named.iter().position(|(_, c)| groupable(lex, *c))
        {
            let (at, c) = named.remove(pos);
            self.mark_span(at);
            group = Some((c, None));
        }
        if said.share {
            return self.share_of_last(&prev, &said);
        }
        let ask = self.follow_up_ask(&prev, &said)?;
        // A condition on a column the last question constrained replaces it ("what about 2025?").
        let mut filters: Vec<Cond> =
            prev.filters.iter().filter(|f| !said.filters.iter().any(|n| n.column == f.column)).cloned().collect();
        filters.extend(said.filters.iter().cloned());
        let group = group.or(prev.group);
        let (order, leader) = self.follow_up_order(&prev, &said, sort);
        let limit = said.limit.or(prev.limit);
        let label = group.and_then(|(g, _)| super::name_of(lex, g));
        Ok(Reading { ask, filters, group, order, limit, leader, links: self.links(), label, trend: prev.trend })
    }

    /// The way the follow-up asks to sort ("sort by total", "lowest first"; descending when true),
    /// its words used up.
    fn sort_words(&mut self) -> Option<bool> {
        // "sort by total", "order it by count", "ranked by value", "lowest first".
        let mut sort: Option<bool> = None;
        for i in 0..self.tokens.len() {
            if !self.used[i] && matches!(self.word(i), "sort" | "sorted" | "order" | "ordered" | "rank" | "ranked") {
                self.used[i] = true;
                sort = Some(true);
                let mut k = i + 1;
                while k < self.tokens.len() && FUNCTION_WORDS.contains(&self.word(k)) && self.word(k) != "by" {
                    k += 1;
                }
                if self.word(k) == "by" && !self.used[k] {
                    self.used[k] = true;
                    let target = k + 1;
                    if matches!(
                        self.word(target),
                        "total" | "value" | "count" | "amount" | "size" | "number" | "it" | "that" | "result"
                    ) && !self.used.get(target).copied().unwrap_or(true)
                    {
                        self.used[target] = true;
                    }
                }
            }
        }
        for (words, desc) in [
            (&["ascending"][..], false),
            (&["asc"][..], false),
            (&["descending"][..], true),
            (&["desc"][..], true),
            (&["lowest", "first"][..], false),
            (&["smallest", "first"][..], false),
            (&["highest", "first"][..], true),
            (&["largest", "first"][..], true),
            (&["biggest", "first"][..], true),
        ] {
            if self.take_phrase(words) {
                sort = Some(desc);
            }
        }
        sort
    }

    /// The last count's rows as a share of the rows the follow-up names.
    fn share_of_last(&self, prev: &Reading, said: &Said) -> Result<Reading, Unread> {
        // "what share of all California claims is that?": the last count's rows as a share
        // of the rows this message names (of all rows when it names none).
        let part: Vec<Cond> = prev
            .filters
            .iter()
            .filter(|f| !said.filters.iter().any(|n| n.column == f.column && n.values == f.values))
            .cloned()
            .collect();
        if part.is_empty() || prev.group.is_some() || prev.ask != Ask::Tally(Tally::Count) {
            return Err(Unread::Refuse(
                "I can turn a count into a share of the rows you name, but not this answer: ask the whole \
                 question."
                    .to_owned(),
            ));
        }
        Ok(Reading {
            ask: Ask::Tally(Tally::Share(part)),
            filters: said.filters.clone(),
            group: None,
            order: GroupOrder::Key,
            limit: None,
            leader: false,
            links: self.links(),
            label: None,
            trend: None,
        })
    }

    /// What the follow-up asks: a count, another aggregate or measure, the rows by the ranking's
    /// measure, or what the last question asked.
    fn follow_up_ask(&self, prev: &Reading, said: &Said) -> Result<Ask, Unread> {
        let lex = self.lex;
        // The measure the last answer was about.
        let prev_measure = match &prev.ask {
            Ask::Tally(Tally::Aggregate(_, m) | Tally::PerRow(m)) | Ask::Rows(Some((m, _))) => Some(*m),
            Ask::Tally(_) | Ask::Rows(_) => None,
        };
        let ask = if said.count && said.measure.is_none() {
            Ask::Tally(Tally::Count)
        } else if let Some(agg) = said.aggregate {
            let Some(m) = said.measure.or(prev_measure) else {
                return Err(Unread::Ask(format!("The {} of which column?", agg_word(agg))));
            };
            Ask::Tally(Tally::Aggregate(agg, m))
        } else if let Some(m) = said.measure {
            match &prev.ask {
                Ask::Tally(Tally::Aggregate(agg, _)) => Ask::Tally(Tally::Aggregate(*agg, m)),
                Ask::Rows(Some((_, desc))) => Ask::Rows(Some((m, *desc))),
                Ask::Tally(_) | Ask::Rows(_) => Ask::Tally(Tally::Aggregate(
                    if additive(lex, m.column) { Aggregate::Sum } else { Aggregate::Avg },
                    m,
                )),
            }
        } else {
            match (&said.rank, &prev.ask) {
                // "the cheapest instead": the rows ranked by the ranking's own measure.
                (Some((Rank::Of(Some(m), _), desc, _)), Ask::Rows(_)) => Ask::Rows(Some((*m, *desc))),
                _ => prev.ask.clone(),
            }
        };
        Ok(ask)
    }

    /// How the follow-up orders the groups, and whether it asks for the leading one.
    fn follow_up_order(&mut self, prev: &Reading, said: &Said, sort: Option<bool>) -> (GroupOrder, bool) {
        let mut order = prev.order;
        let mut leader = prev.leader;
        // "which month was the highest?", "which country is lowest?": the groups ranked.
        let mut ranked = None;
        for (w, desc) in [
            ("highest", true),
            ("most", true),
            ("top", true),
            ("biggest", true),
            ("largest", true),
            ("best", true),
            ("lowest", false),
            ("least", false),
            ("fewest", false),
            ("smallest", false),
            ("worst", false),
        ] {
            if prev.group.is_some() && self.take_word(w) {
                ranked = Some(desc);
            }
        }
        if let Some(desc) = ranked {
            order = GroupOrder::Value(desc);
            leader = true;
        }
        if let Some((_, desc, _)) = &said.rank {
            order = GroupOrder::Value(*desc);
            // "which of those is cheapest?": the leading group.
            leader |= prev.group.is_some() && said.limit.is_none();
        }
        if let Some(desc) = sort {
            order = GroupOrder::Value(desc);
        }
        if said.limit.is_some() {
            leader = false;
            if order == GroupOrder::Key {
                order = GroupOrder::Value(true);
            }
        }
        // A grouping by a new column starts from the groups' order again.
        if said.group.is_some() && sort.is_none() && said.rank.is_none() && said.limit.is_none() && ranked.is_none() {
            order = GroupOrder::Key;
            leader = false;
        }
        (order, leader)
    }
}
