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
mod interpret;
mod matching;
mod messages;
mod periods;
mod plan;
mod reader;
mod shape;
mod time;
mod words;

#[cfg(test)]
mod tests;

pub use matching::{column_spans, coverage, names_a_period, primary_measure, sounds_like_followup, unread_phrases};
pub use messages::{agg_word, or_list};
pub use plan::{alias_for, count_alias, plan_json, ratio_alias, value_alias};

use crate::lexicon::{Class, Lexicon, Meaning, Source};
use crate::text::{Token, tokenize};
use aware_domain::events::ClarificationKind;
use aware_domain::query_plan::{Aggregate, FilterOp, TimeBucket};
use chrono::NaiveDate;

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
