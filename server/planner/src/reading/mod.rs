//! Reading a question against one dataset's vocabulary into a [`Reading`] — what to count,
//! measure, compare or list, under which conditions — or into the reason it cannot be read.
//!
//! The rule that keeps answers honest: every word of the question must be used by the reading
//! or be a function word ("the", "of", "please"). A word left over means part of the request
//! would be dropped, so the reader says which words it did not understand instead of answering
//! the rest as if it were the whole. Ambiguity (a word naming two columns, a value in two
//! columns) is a question back, naming the candidates.

mod conditions;
mod followup;
mod messages;
mod periods;
mod plan;
mod shape;
mod words;

#[cfg(test)]
mod tests;

pub use messages::{agg_word, or_list};
pub use plan::{alias_for, count_alias, plan_json, ratio_alias, value_alias};

use crate::lexicon::{Class, Form, Lexicon, Meaning, Source, plural_stem};
use crate::text::{Token, stem, tokenize};
use aware_domain::events::ClarificationKind;
use aware_domain::query_plan::{Aggregate, FilterOp, TimeBucket};
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
    /// A measure per row, over every row ("revenue per session": the total over the number of
    /// sessions, a session without revenue counting as none).
    PerRow(Measure),
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
    /// The words read through a link rather than by name — (the words as said, what they were
    /// read as) — for the answer to state.
    pub links: Vec<(String, String)>,
    /// A name shown beside each group of an id column ("Lucas Kowalski" for `ST0078`).
    pub label: Option<usize>,
    /// "did sales drop in June?": the periods compared, and which way the person asked about.
    pub trend: Option<Trend>,
}

/// The way a trend question asks about ("did it drop", "did it grow", "did it change").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trend {
    Down,
    Up,
    Change,
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
    /// For a value whose words also name a numeric column ("approved": the status `Approved` or
    /// `ApprovedAmount`): the column, meant after "total", "average", "how much".
    measure_alt: Option<usize>,
    source: Source,
}

/// The reader's working state over one question.
struct Reader<'a> {
    lex: &'a Lexicon,
    tokens: Vec<Token>,
    words: Vec<String>,
    used: Vec<bool>,
    spans: Vec<Span>,
    today: NaiveDate,
    /// For a follow-up in a thread: the reading it changes.
    prev: Option<Reading>,
}

/// Reads `question` against `lex`. `today` anchors "last month".
pub fn read(question: &str, lex: &Lexicon, today: NaiveDate) -> Result<Reading, Unread> {
    let tokens = tokenize(question);
    let mut r = Reader::new(lex, tokens, today)?;
    r.interpret()
}

/// Reads a follow-up ("and by month?", "only for laptops", "what about 2025?", "top 10
/// instead") as a change to `prev`, the reading of the thread's last question over `lex`.
pub fn read_followup(question: &str, lex: &Lexicon, today: NaiveDate, prev: &Reading) -> Result<Reading, Unread> {
    let tokens = tokenize(question);
    let mut r = Reader::new(lex, tokens, today)?;
    r.prev = Some(prev.clone());
    r.interpret()
}

/// Whether a message reads as a follow-up to the last answer rather than a question of its
/// own: it starts like one ("and …", "what about …", "only …", "now …") or leans on it
/// ("instead", "same", "those", "ones").
pub fn sounds_like_followup(question: &str) -> bool {
    let words: Vec<String> = tokenize(question).into_iter().map(|t| t.text).collect();
    let first = words.first().map_or("", String::as_str);
    let second = words.get(1).map_or("", String::as_str);
    matches!(
        first,
        "and"
            | "now"
            | "only"
            | "just"
            | "same"
            | "but"
            | "also"
            | "instead"
            | "then"
            | "ok"
            | "okay"
            | "sort"
            | "order"
            | "so"
    ) || (matches!(first, "what" | "how") && matches!(second, "about" | "if"))
        // "by state?", "for Plant B", "in 2024?": a short phrase that only narrows or groups.
        || (words.len() <= 5
            && matches!(first, "by" | "per" | "for" | "in" | "with" | "without" | "excluding" | "except" | "during"))
        || words.iter().any(|w| matches!(w.as_str(), "instead" | "same" | "ones" | "those" | "them"))
        // "what share of all claims is that?", "what share is that of …", "their total": the
        // last answer.
        || (words.windows(2).any(|p| {
            matches!((p[0].as_str(), p[1].as_str()), ("is" | "was" | "of" | "does" | "represents" | "represent", "that"))
        }) && (words.last().is_some_and(|w| w == "that")
            || words.iter().any(|w| matches!(w.as_str(), "share" | "percentage" | "percent" | "proportion" | "fraction"))))
        // (Short questions only: "customers by their plan" is a question of its own.)
        || (words.len() <= 7 && words.iter().any(|w| matches!(w.as_str(), "their" | "these")))
}

/// Whether `word` names people: "unique visitors" of rows that are not people (sessions, orders)
/// cannot be counted apart without a column that identifies them.
fn is_people(word: &str) -> bool {
    const PEOPLE: &[&str] =
        &["visitor", "user", "customer", "client", "person", "people", "patient", "student", "buyer"];
    PEOPLE.contains(&stem(word).as_str())
}

/// Whether the question names a month, quarter or half, whose year may come from the data.
pub fn names_a_period(question: &str) -> bool {
    tokenize(question).iter().any(|t| {
        words::month_number(&t.text).is_some()
            || matches!(
                t.text.as_str(),
                "q1" | "q2"
                    | "q3"
                    | "q4"
                    | "h1"
                    | "h2"
                    | "quarter"
                    | "half"
                    | "summer"
                    | "spring"
                    | "autumn"
                    | "fall"
                    | "year"
            )
            || t.number.is_some_and(|y| y.fract() == 0.0 && (1900.0..=2100.0).contains(&y))
            || t.percent
    })
}

/// Whether a column is the main quantity of its rows (consumption beside solar generation).
pub fn primary_measure(lex: &Lexicon, c: usize) -> bool {
    shape::primary_measure(lex, c)
}

/// The columns the words name, leftmost-longest: (start, end, column).
pub fn column_spans(lex: &Lexicon, words: &[String]) -> Vec<(usize, usize, usize)> {
    match_spans(lex, words)
        .into_iter()
        .filter_map(|s| match s.meaning {
            Meaning::Column(c) => Some((s.start, s.end, c)),
            Meaning::Dataset | Meaning::Entity | Meaning::Value(..) | Meaning::Flag(..) => None,
        })
        .collect()
}

/// The question's phrases no word of `lex` names and the reader has no use for — content words
/// that would be left over — as runs of at most two words, for linking by meaning.
pub fn unread_phrases(question: &str, lex: &Lexicon) -> Vec<Vec<String>> {
    let words: Vec<String> = tokenize(question).into_iter().map(|t| t.text).collect();
    let spans = match_spans(lex, &words);
    let covered = |i: usize| spans.iter().any(|s| s.start <= i && i < s.end);
    let plain = |w: &str| {
        w.len() >= 3
            && w.chars().all(char::is_alphabetic)
            && !FUNCTION_WORDS.contains(&w)
            && !ROW_WORDS.contains(&w)
            && !NEGATIONS.contains(&w)
            && !is_cue(w)
            && !followup::FOLLOWUP_WORDS.contains(&w)
            && time_unit(w).is_none()
            && adjective_meaning(lex, w).is_none()
            && !matches!(w, "chart" | "plot" | "graph" | "visualise" | "visualize" | "why" | "when" | "where")
    };
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut run: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !covered(i) && plain(w) {
            run.push(w.clone());
            continue;
        }
        flush(&mut run, &mut out);
    }
    flush(&mut run, &mut out);
    out
}

fn flush(run: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match run.len() {
        0 => {}
        1 | 2 => out.push(std::mem::take(run)),
        _ => out.extend(run.drain(..).map(|w| vec![w])),
    }
}

/// How many of the question's words `lex` accounts for, and whether the question names the
/// dataset itself by its full name (to choose between datasets).
pub fn coverage(question: &str, lex: &Lexicon) -> (usize, bool) {
    let words: Vec<String> = tokenize(question).into_iter().map(|t| t.text).collect();
    let spans = match_spans(lex, &words);
    let named = spans.iter().any(|s| s.meaning == Meaning::Dataset && s.strength == 3);
    // Words covered, then (to break a tie) the words that name the rows themselves: "the
    // biggest orders by revenue" is about the orders table, not sessions with an order value.
    // Then the words that are a column's whole name rather than another word for it:
    // "which carriers do we use" is about `carrier`, not consumption ("use").
    let covered: usize = spans.iter().map(|s| s.end - s.start).sum();
    let rows: usize = spans.iter().filter(|s| matches!(s.meaning, Meaning::Entity | Meaning::Dataset)).count();
    let own: usize = spans
        .iter()
        .filter(|s| {
            s.source == Source::Name
                && matches!(s.meaning, Meaning::Column(c) if crate::text::words_of(&lex.columns[c].name).len() == s.end - s.start)
        })
        .count();
    (covered * 64 + rows.min(7) * 8 + own.min(7), named)
}

/// The best phrase found at a place: its length, strength and meanings with their sources.
type Best = (usize, u8, Vec<(Meaning, Source)>);

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
        // (length, strength, what it means and why).
        let mut best: Option<Best> = None;
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
                    match meanings.iter_mut().find(|(m, _)| *m == e.meaning) {
                        // Its own name beats a general word for the same thing.
                        Some((_, source)) if e.source == Source::Name => *source = Source::Name,
                        Some(_) => {}
                        None => meanings.push((e.meaning.clone(), e.source)),
                    }
                }
                Some((len, strength, _)) if (n, e.strength) <= (*len, *strength) => {}
                _ => best = Some((n, e.strength, vec![(e.meaning.clone(), e.source)])),
            }
        }
        match best {
            Some((n, strength, meanings)) => {
                for (m, source) in meanings.iter() {
                    let (column_alt, measure_alt) = match m {
                        Meaning::Value(c, _) => (
                            columns_here.iter().find(|(len, k)| *len == n && k == c).map(|(_, k)| *k),
                            columns_here
                                .iter()
                                .find(|(len, k)| *len == n && k != c && lex.columns[*k].is_numeric())
                                .map(|(_, k)| *k),
                        ),
                        Meaning::Dataset | Meaning::Entity | Meaning::Column(_) | Meaning::Flag(..) => (None, None),
                    };
                    spans.push(Span {
                        start: i,
                        end: i + n,
                        meaning: m.clone(),
                        strength,
                        column_alt,
                        measure_alt,
                        source: *source,
                    });
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
        // "A grades", "grade B": a single capital letter that is a value of the data is that
        // value, not the article "a".
        for (i, t) in tokens.iter().enumerate() {
            let letter = t.raw.len() == 1 && t.raw.chars().all(|c| c.is_ascii_uppercase());
            if !letter || i == 0 || spans.iter().any(|s| s.start <= i && i < s.end) {
                continue;
            }
            let found = lex
                .columns
                .iter()
                .enumerate()
                .find_map(|(c, info)| info.values.iter().find(|v| **v == t.raw).map(|v| (c, v.clone())));
            if let Some((c, v)) = found {
                spans.push(Span {
                    start: i,
                    end: i + 1,
                    meaning: Meaning::Value(c, v),
                    strength: 4,
                    column_alt: None,
                    measure_alt: None,
                    source: Source::Name,
                });
            }
        }
        spans.sort_by_key(|s| s.start);
        // "total approved", "average claimed", "how much have we approved": the amount, not the
        // status `Approved`.
        let asks_amount = words.windows(2).any(|w| w[0] == "how" && w[1] == "much");
        for s in &mut spans {
            if let Some(c) = s.measure_alt {
                let before = s.start.checked_sub(1).map_or("", |p| words[p].as_str());
                if asks_amount
                    || matches!(
                        before,
                        "total"
                            | "sum"
                            | "average"
                            | "avg"
                            | "mean"
                            | "median"
                            | "much"
                            | "highest"
                            | "lowest"
                            | "maximum"
                            | "minimum"
                            | "max"
                            | "min"
                    )
                {
                    s.meaning = Meaning::Column(c);
                    s.column_alt = None;
                }
            }
        }
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
                // "women admitted to Maternity": a verb of the event is its date column, not the
                // other columns its noun names (`Admission Type`).
                let word = words[here[0].start].as_str();
                if here[0].end - here[0].start == 1 && word.ends_with("ed") {
                    let dates: Vec<&&Span> = non_dataset
                        .iter()
                        .copied()
                        .filter(|s| matches!(s.meaning, Meaning::Column(c) if lex.columns[c].is_date() && lex.columns[c].formula.is_none()))
                        .collect();
                    if let [date] = dates.as_slice() {
                        settled.push((start, date.meaning.clone()));
                        continue;
                    }
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
                // "total kWh per site": of columns in the same unit, the one the rows are about
                // (consumption, not solar generation).
                let primary: Vec<&&Span> = non_dataset
                    .iter()
                    .copied()
                    .filter(|s| matches!(s.meaning, Meaning::Column(c) if lex.columns[c].is_numeric() && shape::primary_measure(lex, c)))
                    .collect();
                if let [keep] = primary.as_slice()
                    && said.len() == 1
                    && MEASURE_UNITS.contains(&words[start].as_str())
                    && non_dataset
                        .iter()
                        .all(|s| matches!(s.meaning, Meaning::Column(c) if lex.columns[c].is_numeric()))
                {
                    settled.push((start, keep.meaning.clone()));
                    continue;
                }
                // "the total amount claimed": one of the columns is named again elsewhere.
                let elsewhere: Vec<&&Span> = non_dataset
                    .iter()
                    .copied()
                    .filter(|s| {
                        spans.iter().any(|o| {
                            o.start != start
                                && column_of(&o.meaning).is_some()
                                && column_of(&o.meaning) == column_of(&s.meaning)
                        })
                    })
                    .collect();
                if let [keep] = elsewhere.as_slice() {
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
                    Meaning::Dataset
                    | Meaning::Entity
                    | Meaning::Column(_)
                    | Meaning::Value(..)
                    | Meaning::Flag(..) => None,
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
        // "meter readings", "customer orders": an id column's word right before the rows' word
        // names the rows, not the ids.
        for k in 0..kept.len() {
            let next_is_rows = kept.iter().any(|n| n.start == kept[k].end && n.meaning == Meaning::Entity)
                || words.get(kept[k].end).is_some_and(|w| ROW_WORDS.contains(&w.as_str()));
            if next_is_rows && matches!(kept[k].meaning, Meaning::Column(c) if lex.columns[c].class == Class::Id) {
                kept[k].meaning = Meaning::Entity;
            }
        }
        let used = vec![false; tokens.len()];
        Ok(Self { lex, tokens, words, used, spans: kept, today, prev: None })
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
            && (FUNCTION_WORDS.contains(&self.word(i)) || (self.used[i] && self.word(i) == "total"))
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
            Meaning::Dataset | Meaning::Entity | Meaning::Value(..) | Meaning::Flag(..) => None,
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

    /// Whether the words right after "how many" are the rows ("how many exam results do we have
    /// for Ms Patel's classes"), which are then counted whatever else is named.
    fn counts_rows(&self) -> bool {
        let Some(at) = (0..self.tokens.len()).find(|&i| self.word(i) == "many" && i > 0 && self.word(i - 1) == "how")
        else {
            return false;
        };
        let mut k = at + 1;
        while k < self.tokens.len() {
            if ROW_WORDS.contains(&self.word(k)) || self.span_at(k).is_some_and(|s| s.meaning == Meaning::Entity) {
                return true;
            }
            // Adjectives and values may come between: "how many exam results".
            match self.span_covering(k) {
                Some(s) if matches!(s.meaning, Meaning::Value(..) | Meaning::Flag(..)) => k = s.end,
                Some(s) if matches!(s.meaning, Meaning::Column(c) if self.lex.columns[c].is_date()) => k = s.end,
                Some(_) => return false,
                None if k == at + 1 || FUNCTION_WORDS.contains(&self.word(k)) => k += 1,
                None => return false,
            }
        }
        false
    }

    /// Whether a measure was named only by a verb for it ("sell", "used").
    fn measure_said_as_verb(&self, column: usize) -> bool {
        self.spans.iter().filter(|s| s.meaning == Meaning::Column(column)).all(|s| {
            s.source == Source::Synonym
                && s.end - s.start == 1
                && matches!(
                    self.word(s.start),
                    "sell" | "sells" | "sold" | "use" | "used" | "uses" | "spend" | "spent" | "earn" | "earned"
                )
        }) || self.spans.iter().any(|s| {
            // "electricity tariffs": a measure's word naming what a category is of.
            s.meaning == Meaning::Column(column)
                && self.span_at(s.end).is_some_and(
                    |n| matches!(n.meaning, Meaning::Column(c) if self.lex.columns[c].class == Class::Category),
                )
        })
    }

    /// Whether the flag on `column` was said as a plural noun ("conversions", "readmissions").
    fn flag_said_as_plural(&self, column: usize) -> bool {
        self.spans.iter().any(|s| {
            matches!(s.meaning, Meaning::Flag(c, _) if c == column)
                && s.end - s.start == 1
                && self.word(s.start).ends_with('s')
                && !crate::text::words_of(&self.lex.columns[column].name).iter().any(|w| w == self.word(s.start))
        })
    }

    /// Whether the rows' word at `at` names the repeating key ("students" in a table of a row
    /// per student per subject) rather than the rows ("grades", "results").
    fn names_key(&self, at: usize) -> bool {
        let Some(key) = repeated_key(self.lex) else { return false };
        let key_words = crate::text::words_of(&self.lex.columns[key].name);
        let said = stem(self.word(at));
        key_words.iter().any(|w| w != "id" && stem(w) == said)
            || crate::lexicon::entity_synonyms(key_words.first().map_or("", String::as_str))
                .iter()
                .any(|w| stem(w) == said)
    }

    /// Whether the question asks for the rows themselves ("show", "list", "which").
    fn asks_for_rows(&self) -> bool {
        (0..self.tokens.len()).any(|i| {
            matches!(
                self.word(i),
                "show" | "list" | "display" | "which" | "who" | "what" | "give" | "find" | "see" | "rows" | "records"
            )
        })
    }

    /// The phrases the reading used through a link, as said, with what they were read as.
    fn links(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for s in self.spans.iter().filter(|s| s.source != Source::Name && self.used[s.start]) {
            let said: Vec<&str> = self.tokens[s.start..s.end].iter().map(|t| t.raw.as_str()).collect();
            let target = match &s.meaning {
                Meaning::Column(c) | Meaning::Flag(c, _) => self.lex.columns[*c].name.clone(),
                Meaning::Value(c, v) => format!("{} “{v}”", self.lex.columns[*c].name),
                Meaning::Dataset | Meaning::Entity => continue,
            };
            let link = (said.join(" "), target);
            if !out.contains(&link) {
                out.push(link);
            }
        }
        out
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

/// The column that names the things an id column identifies (`student_name` beside
/// `student_id`), when there is one.
pub(crate) fn name_of(lex: &Lexicon, key: usize) -> Option<usize> {
    if lex.columns[key].class != Class::Id {
        return None;
    }
    let thing: Vec<String> = crate::text::words_of(&lex.columns[key].name).into_iter().filter(|w| w != "id").collect();
    let names: Vec<usize> = (0..lex.columns.len())
        .filter(|&c| {
            let ws = crate::text::words_of(&lex.columns[c].name);
            lex.columns[c].kind == aware_domain::value::ValueKind::String
                && ws.last().is_some_and(|w| w == "name")
                && ws[..ws.len() - 1].iter().all(|w| thing.contains(w))
        })
        .collect();
    if let [one] = names.as_slice() { Some(*one) } else { None }
}

/// A measure that is one column or computed value, not a ratio of two.
fn m_plain(m: Option<Measure>) -> bool {
    m.is_some_and(|m| m.per.is_none())
}

/// The rows' own id column when it repeats (a student with a row per subject): known from its
/// values, when the data has few enough to read.
fn repeated_key(lex: &Lexicon) -> Option<usize> {
    let first = lex.columns.first()?;
    (first.class == Class::Id && !first.values.is_empty() && (first.values.len() as u64) < lex.dataset.row_count)
        .then_some(0)
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
                Meaning::Dataset | Meaning::Entity => false,
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
