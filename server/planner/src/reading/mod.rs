//! Reading a question against one dataset's vocabulary into a [`Reading`] — what to count,
//! measure, compare or list, under which conditions — or into the reason it cannot be read.
//!
//! The rule that keeps answers honest: every word of the question must be used by the reading
//! or be a function word ("the", "of", "please"). A word left over means part of the request
//! would be dropped, so the reader says which words it did not understand instead of answering
//! the rest as if it were the whole. Ambiguity (a word naming two columns, a value in two
//! columns) is a question back, naming the candidates.

mod conditions;
mod messages;
mod plan;
mod shape;
mod words;

pub use messages::{agg_word, or_list};
pub use plan::{alias_for, count_alias, plan_json, ratio_alias, value_alias};

use crate::lexicon::{Class, Form, Lexicon, Meaning, plural_stem};
use crate::text::{Token, stem, tokenize};
use aware_core::query_plan::{Aggregate, FilterOp, TimeBucket};
use aware_core::runs::clarify::ClarificationKind;
use chrono::NaiveDate;
use messages::{describe_ask, describe_meaning, example_columns, not_understood, numeric_columns};
use shape::Rank;
use words::*;

/// A literal in a condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Text(String),
    Num(f64),
    Bool(bool),
    Date(NaiveDate),
}

/// One condition on the rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Cond {
    pub column: usize,
    pub op: FilterOp,
    pub values: Vec<Lit>,
    /// For a date range: how the question named it ("last month", "in 2024").
    pub period: Option<String>,
}

/// A per-row quantity: a numeric column, or one divided by another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    pub column: usize,
    pub per: Option<usize>,
}

/// One number asked of the rows (or of each group).
#[derive(Clone, Debug, PartialEq)]
pub enum Tally {
    /// How many rows.
    Count,
    /// How many different values of a column.
    Distinct(usize),
    Aggregate(Aggregate, Measure),
    /// The share of rows meeting these conditions.
    Share(Vec<Cond>),
}

/// What the question asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Ask {
    Tally(Tally),
    /// The rows themselves, optionally ranked by a measure (descending when true).
    Rows(Option<(Measure, bool)>),
}

/// How groups are ordered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GroupOrder {
    /// By the group key (months in order, names alphabetically).
    Key,
    /// By the asked value, descending when true.
    Value(bool),
}

/// A question read against one dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub ask: Ask,
    pub filters: Vec<Cond>,
    pub group: Option<(usize, Option<TimeBucket>)>,
    pub order: GroupOrder,
    /// Rows or groups to show at most (`top 5`, `the cheapest apartment` → 1).
    pub limit: Option<u32>,
    /// The question asks for the leading group ("which neighbourhood is most expensive?").
    pub leader: bool,
}

/// Why a question could not be read.
#[derive(Clone, Debug, PartialEq)]
pub enum Unread {
    /// Not a question about the data's values at all (no data words): another handler's.
    NotData,
    /// A question back: which of these did you mean?
    Ask(String),
    /// What was not understood, said plainly.
    Refuse(String),
    /// A question back with options from the data: which column the words mean.
    Choose(Box<Choice>),
}

/// A typed question back: the words could mean several columns (`Column`), a value sits in
/// several columns (`Value`), a time phrase could apply to several date columns (`TimeRange`).
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub kind: ClarificationKind,
    pub dataset: String,
    /// The ambiguous words, as a rule would name them.
    pub phrase: String,
    pub question: String,
    pub columns: Vec<String>,
    /// For `Value`: the value.
    pub value: Option<String>,
}

impl Choice {
    /// The question as words, for where it cannot be asked with options.
    pub fn in_words(&self) -> String {
        self.question.clone()
    }
}

/// A matched phrase of the question.
#[derive(Clone, Debug)]
struct Span {
    start: usize,
    end: usize,
    meaning: Meaning,
    strength: u8,
    /// For a value whose words are also its column's name ("clinic" — the value `Clínic` or
    /// the column `Clinic`): the column, for the context to decide.
    column_alt: Option<usize>,
}

/// The reader's working state over one question.
struct Reader<'a> {
    lex: &'a Lexicon,
    tokens: Vec<Token>,
    words: Vec<String>,
    used: Vec<bool>,
    spans: Vec<Span>,
    today: NaiveDate,
}

/// Reads `question` against `lex`. `today` anchors "last month".
pub fn read(question: &str, lex: &Lexicon, today: NaiveDate) -> Result<Reading, Unread> {
    let tokens = tokenize(question);
    let mut r = Reader::new(lex, tokens, today)?;
    r.interpret()
}

/// How many of the question's words `lex` accounts for, and whether the question names the
/// dataset itself by its full name (to choose between datasets).
pub fn coverage(question: &str, lex: &Lexicon) -> (usize, bool) {
    let words: Vec<String> = tokenize(question).into_iter().map(|t| t.text).collect();
    let spans = match_spans(lex, &words);
    let named = spans.iter().any(|s| s.meaning == Meaning::Dataset && s.strength == 3);
    let covered = spans.iter().map(|s| s.end - s.start).sum();
    (covered, named)
}

/// Leftmost-longest matching of the vocabulary's phrases over the question's words. Function
/// words and cue words only count inside longer phrases.
fn match_spans(lex: &Lexicon, words: &[String]) -> Vec<Span> {
    let stems: Vec<String> = words.iter().map(|w| stem(w)).collect();
    let plurals: Vec<String> = words.iter().map(|w| plural_stem(w)).collect();
    let meets = |e: &crate::lexicon::Entry, i: usize| {
        i + e.words.len() <= words.len()
            && e.words.iter().enumerate().all(|(k, (w, form))| match form {
                Form::Stem => stems[i + k] == *w,
                Form::Plural => plurals[i + k] == *w || words[i + k] == *w,
            })
    };
    let mut spans = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut best: Option<(usize, u8, Vec<Meaning>)> = None;
        let mut columns_here: Vec<(usize, usize)> = Vec::new();
        for e in &lex.entries {
            let n = e.words.len();
            if !meets(e, i) {
                continue;
            }
            if n == 1 && (FUNCTION_WORDS.contains(&words[i].as_str()) || is_cue(&words[i])) {
                continue;
            }
            if let Meaning::Column(c) = e.meaning {
                columns_here.push((n, c));
            }
            match &mut best {
                Some((len, strength, meanings)) if *len == n && *strength == e.strength => {
                    if !meanings.contains(&e.meaning) {
                        meanings.push(e.meaning.clone());
                    }
                }
                Some((len, strength, _)) if (n, e.strength) <= (*len, *strength) => {}
                _ => best = Some((n, e.strength, vec![e.meaning.clone()])),
            }
        }
        match best {
            Some((n, strength, meanings)) => {
                for m in meanings.iter() {
                    let column_alt = match m {
                        Meaning::Value(c, _) => {
                            columns_here.iter().find(|(len, k)| *len == n && k == c).map(|(_, k)| *k)
                        }
                        _ => None,
                    };
                    spans.push(Span { start: i, end: i + n, meaning: m.clone(), strength, column_alt });
                }
                i += n;
            }
            None => i += 1,
        }
    }
    spans
}

impl<'a> Reader<'a> {
    fn new(lex: &'a Lexicon, tokens: Vec<Token>, today: NaiveDate) -> Result<Self, Unread> {
        let words: Vec<String> = tokens.iter().map(|t| t.text.clone()).collect();
        let mut spans = match_spans(lex, &words);
        // "by clinic", "which clinic", "how many clinics": the column, not its value `Clínic`.
        for s in &mut spans {
            if let Some(c) = s.column_alt {
                let before = s.start.checked_sub(1).map_or("", |p| words[p].as_str());
                let after = words.get(s.end).map_or("", String::as_str);
                let plural_word = s.end - s.start == 1 && plural_stem(&words[s.start]) != words[s.start];
                if plural_word
                    || matches!(
                        before,
                        "by" | "per"
                            | "each"
                            | "every"
                            | "across"
                            | "which"
                            | "what"
                            | "different"
                            | "distinct"
                            | "unique"
                            | "many"
                    )
                    || matches!(after, "has" | "have" | "had" | "is" | "are" | "was" | "were")
                {
                    s.meaning = Meaning::Column(c);
                    s.column_alt = None;
                }
            }
        }
        // A phrase naming two things equally is a question back — unless a rule the person
        // gave settles it.
        let mut starts: Vec<usize> = spans.iter().map(|s| s.start).collect();
        starts.dedup();
        let mut settled: Vec<(usize, Meaning)> = Vec::new();
        for start in starts {
            let here: Vec<&Span> = spans.iter().filter(|s| s.start == start).collect();
            if here.len() > 1 {
                let said: Vec<&str> = tokens[here[0].start..here[0].end].iter().map(|t| t.raw.as_str()).collect();
                let options: Vec<String> = here.iter().map(|s| describe_meaning(lex, &s.meaning)).collect();
                // The dataset's own name and one of its columns: the column is meant.
                let non_dataset: Vec<&&Span> =
                    here.iter().filter(|s| !matches!(s.meaning, Meaning::Dataset | Meaning::Entity)).collect();
                if non_dataset.len() <= 1 {
                    continue;
                }
                let column_of = |m: &Meaning| match m {
                    Meaning::Column(c) | Meaning::Value(c, _) => Some(*c),
                    Meaning::Flag(..) | Meaning::Dataset | Meaning::Entity => None,
                };
                if let Some(ruled) = lex.rule_for(&words[here[0].start..here[0].end])
                    && let Some(keep) = non_dataset.iter().find(|s| column_of(&s.meaning) == Some(ruled))
                {
                    settled.push((start, keep.meaning.clone()));
                    continue;
                }
                let question = format!("“{}” could mean {}. Which one do you mean?", said.join(" "), or_list(&options));
                let columns: Vec<usize> = non_dataset.iter().filter_map(|s| column_of(&s.meaning)).collect();
                let all_columns = non_dataset.iter().all(|s| matches!(s.meaning, Meaning::Column(_)));
                let value = match non_dataset[0].meaning {
                    Meaning::Value(_, ref v) if non_dataset.iter().all(|s| matches!(s.meaning, Meaning::Value(..))) => {
                        Some(v.clone())
                    }
                    _ => None,
                };
                let mut distinct = columns.clone();
                distinct.sort_unstable();
                distinct.dedup();
                if distinct.len() == columns.len() && (all_columns || value.is_some()) {
                    return Err(Unread::Choose(Box::new(Choice {
                        kind: if value.is_some() { ClarificationKind::Value } else { ClarificationKind::Column },
                        dataset: lex.dataset.table_name.clone(),
                        phrase: said.join(" ").to_lowercase(),
                        question,
                        columns: columns.iter().map(|&c| lex.columns[c].name.clone()).collect(),
                        value,
                    })));
                }
                return Err(Unread::Ask(question));
            }
        }
        spans.retain(|s| settled.iter().all(|(start, m)| s.start != *start || s.meaning == *m));
        // Keep one meaning per place: a column or value over the rows' name or a part of the
        // dataset's name — but the dataset's whole name is the dataset ("show me the notes" in a
        // table `notes` with a column `note`).
        let mut kept: Vec<Span> = Vec::new();
        for s in spans {
            match kept.iter_mut().find(|k| k.start == s.start) {
                Some(k) if k.meaning == Meaning::Dataset && k.strength == 3 => {}
                Some(k) if s.meaning == Meaning::Dataset && s.strength == 3 => *k = s,
                Some(k)
                    if matches!(k.meaning, Meaning::Dataset | Meaning::Entity)
                        && !matches!(s.meaning, Meaning::Dataset | Meaning::Entity) =>
                {
                    *k = s
                }
                Some(k) if k.meaning == Meaning::Dataset && s.meaning == Meaning::Entity => *k = s,
                Some(_) => {}
                None => kept.push(s),
            }
        }
        let used = vec![false; tokens.len()];
        Ok(Self { lex, tokens, words, used, spans: kept, today })
    }

    fn word(&self, i: usize) -> &str {
        self.words.get(i).map_or("", String::as_str)
    }

    fn span_at(&self, i: usize) -> Option<&Span> {
        self.spans.iter().find(|s| s.start == i)
    }

    fn span_covering(&self, i: usize) -> Option<&Span> {
        self.spans.iter().find(|s| s.start <= i && i < s.end)
    }

    fn mark(&mut self, from: usize, to: usize) {
        for u in &mut self.used[from..to.min(self.tokens.len())] {
            *u = true;
        }
    }

    fn mark_span(&mut self, i: usize) {
        if let Some(s) = self.span_covering(i).cloned() {
            self.mark(s.start, s.end);
        }
    }

    /// The next position after `i` that is not a function word.
    fn next_content(&self, mut i: usize) -> usize {
        while i < self.tokens.len()
            && FUNCTION_WORDS.contains(&self.word(i))
            && self.span_covering(i).is_none()
            && !matches!(self.word(i), "than")
        {
            i += 1;
        }
        i
    }

    /// The phrase `words` (folded) at `i`.
    fn phrase_at(&self, i: usize, words: &[&str]) -> bool {
        words.iter().enumerate().all(|(k, w)| self.word(i + k) == *w)
    }

    fn find_phrase(&self, words: &[&str]) -> Option<usize> {
        (0..self.tokens.len()).find(|&i| self.phrase_at(i, words) && !self.used[i])
    }

    fn column_span(&self, i: usize) -> Option<usize> {
        match self.span_covering(i)?.meaning {
            Meaning::Column(c) => Some(c),
            _ => None,
        }
    }

    fn interpret(&mut self) -> Result<Reading, Unread> {
        let lex = self.lex;
        // "what columns does the churn data have?" is about the schema, not the values.
        if (0..self.tokens.len()).any(|i| matches!(self.word(i), "columns" | "schema" | "fields" | "structure")) {
            return Err(Unread::NotData);
        }
        let mut filters: Vec<Cond> = Vec::new();
        let mut limit: Option<u32> = None;

        // Time first: "last month", "in 2024", "since March 2025".
        if let Some(cond) = self.time_condition()? {
            filters.push(cond);
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

        // Aggregates, counts, shares and groups.
        let count =
            self.take_phrase(&["how", "many"]) || self.take_phrase(&["number", "of"]) || self.take_word("count");
        let how_much = self.take_phrase(&["how", "much"]);
        let share =
            ["rate", "percentage", "percent", "share", "proportion", "fraction"].iter().any(|w| self.take_word(w));
        let aggregate = self.aggregate_word();
        let group = self.group()?;
        let compare = self.take_word("compare") || self.take_word("versus") || self.take_word("vs");
        let (measure, per_only) = self.measure()?;
        // "how many different plans": the count of distinct values says that already.
        for w in ["distinct", "different", "unique"] {
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
        // "total"/"overall"/"in total" next to a count is only emphasis.
        for w in ["total", "overall", "altogether", "combined", "together"] {
            if count || share {
                self.take_word(w);
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

        let leftovers = |r: &Self| -> Vec<String> {
            (0..r.tokens.len())
                .filter(|&i| !r.used[i] && !FUNCTION_WORDS.contains(&r.word(i)) && r.tokens[i].text != "s")
                .map(|i| r.tokens[i].raw.clone())
                .collect()
        };

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
            && flags.len() == 1;
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
                Rank::Of(class_measure) => {
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
                    }
                    if group.is_some() {
                        let agg = aggregate.unwrap_or(Aggregate::Avg);
                        order = GroupOrder::Value(desc);
                        leader = limit.is_none();
                        ask = Ask::Tally(Tally::Aggregate(agg, m));
                    } else if entity_at.is_some() || measure.is_none() || limit.is_some() {
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
            let Some(m) = measure else {
                return Err(Unread::Ask(format!(
                    "The {} of which column? {} has {}.",
                    agg_word(agg),
                    lex.dataset.table_name,
                    numeric_columns(lex)
                )));
            };
            ask = Ask::Tally(Tally::Aggregate(agg, m));
        } else if count {
            ask = Ask::Tally(Tally::Count);
        } else if how_much {
            let Some(m) = measure.filter(|m| lex.columns[m.column].class == Class::Money) else {
                return Err(Unread::Refuse("I could not tell what “how much” refers to.".to_owned()));
            };
            ask = Ask::Tally(Tally::Aggregate(Aggregate::Avg, m));
        } else if let Some(m) = measure.filter(|_| !per_only) {
            // "price by neighbourhood", "price per square metre in Eixample": the average,
            // which the answer says.
            ask = Ask::Tally(Tally::Aggregate(Aggregate::Avg, m));
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
        } else if !filters.is_empty() {
            // "which apartments have a terrace and cost less than 400000?"
            ask = Ask::Rows(None);
            if limit.is_none() {
                limit = Some(ROW_LIMIT);
            }
        } else {
            return Err(Unread::NotData);
        }
        if let (Ask::Rows(_), Some((at, _))) = (&ask, named_columns.first()) {
            // "show the price of apartments in Gràcia": the rows carry every column.
            let at = *at;
            self.mark_span(at);
            named_columns.remove(0);
        }
        if let Some(m) = measure
            && !matches!(ask, Ask::Tally(Tally::Aggregate(..)) | Ask::Rows(Some(_)))
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
        let left = leftovers(self);
        if !left.is_empty() {
            return Err(Unread::Refuse(not_understood(lex, &left, &ask)));
        }
        Ok(Reading { ask, filters, group, order, limit, leader })
    }

    fn take_word(&mut self, word: &str) -> bool {
        match (0..self.tokens.len()).find(|&i| self.word(i) == word && !self.used[i] && self.span_covering(i).is_none())
        {
            Some(i) => {
                self.used[i] = true;
                true
            }
            None => false,
        }
    }

    fn take_phrase(&mut self, words: &[&str]) -> bool {
        match self.find_phrase(words) {
            Some(i) => {
                self.mark(i, i + words.len());
                true
            }
            None => false,
        }
    }
}

/// Rows listed at most when a question asks for the rows themselves.
pub const ROW_LIMIT: u32 = 100;

/// Whether a column makes sensible groups (few values, or a flag).
pub(super) fn groupable(lex: &Lexicon, c: usize) -> bool {
    matches!(lex.columns[c].class, Class::Category | Class::Flag)
        || (lex.columns[c].class == Class::Count && !lex.columns[c].values.is_empty())
        || (matches!(lex.columns[c].class, Class::Count) && lex.dataset.row_count > 0)
}

/// Of the conditions, the share's predicate (said next to the share word, or after the rows)
/// and the rest (which narrow the rows the share is taken of).
fn split_share(filters: &[Cond], r: &Reader<'_>) -> (Vec<Cond>, Vec<Cond>) {
    if filters.len() <= 1 {
        return (filters.to_vec(), Vec::new());
    }
    // The share word's position, and where each condition was said.
    let share_at = (0..r.tokens.len())
        .find(|&i| matches!(r.word(i), "rate" | "percentage" | "percent" | "share" | "proportion" | "fraction"));
    let position = |c: &Cond| {
        r.spans
            .iter()
            .find(|s| match &s.meaning {
                Meaning::Value(col, _) | Meaning::Flag(col, _) | Meaning::Column(col) => *col == c.column,
                _ => false,
            })
            .map_or(usize::MAX, |s| s.start)
    };
    let Some(at) = share_at else { return (filters.to_vec(), Vec::new()) };
    // "churn rate …": the condition right before "rate" is the predicate.
    if r.word(at) == "rate" {
        let (pred, base): (Vec<Cond>, Vec<Cond>) =
            filters.iter().cloned().partition(|c| position(c) < at && position(c) + 3 >= at);
        if !pred.is_empty() {
            return (pred, base);
        }
    }
    // "what share of apartments in Gràcia have a terrace": the last condition said is the
    // predicate, the earlier ones narrow the rows.
    let last = filters.iter().map(position).max().unwrap_or(0);
    filters.iter().cloned().partition(|c| position(c) == last)
}
