//! Reading a question against one dataset's vocabulary into a [`Reading`] — what to count,
//! measure, compare or list, under which conditions — or into the reason it cannot be read.
//!
//! The rule that keeps answers honest: every word of the question must be used by the reading
//! or be a function word ("the", "of", "please"). A word left over means part of the request
//! would be dropped, so the reader says which words it did not understand instead of answering
//! the rest as if it were the whole. Ambiguity (a word naming two columns, a value in two
//! columns) is a question back, naming the candidates.

use crate::lexicon::{Class, Form, Lexicon, Meaning, plural, plural_stem};
use crate::text::{Token, stem, tokenize};
use aware_core::query_plan::{Aggregate, FilterOp, TimeBucket};
use chrono::{Datelike, Duration, NaiveDate};
use serde_json::{Value, json};

/// A literal in a condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Text(String),
    Num(f64),
    Bool(bool),
    Date(NaiveDate),
}

impl Lit {
    fn json(&self) -> Value {
        match self {
            Self::Text(s) => json!(s),
            Self::Num(n) if n.fract() == 0.0 && n.abs() < 9e15 => json!(*n as i64),
            Self::Num(n) => json!(n),
            Self::Bool(b) => json!(b),
            Self::Date(d) => json!(d.format("%Y-%m-%d").to_string()),
        }
    }
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
}

/// Words that carry no condition or quantity.
const FUNCTION_WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "from",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "am",
    "do",
    "does",
    "did",
    "done",
    "have",
    "has",
    "had",
    "having",
    "there",
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "how",
    "please",
    "me",
    "my",
    "mine",
    "i",
    "we",
    "our",
    "us",
    "you",
    "your",
    "it",
    "its",
    "they",
    "them",
    "their",
    "this",
    "that",
    "those",
    "these",
    "can",
    "could",
    "would",
    "should",
    "will",
    "shall",
    "might",
    "must",
    "tell",
    "show",
    "give",
    "list",
    "display",
    "get",
    "let",
    "know",
    "want",
    "see",
    "just",
    "also",
    "all",
    "any",
    "some",
    "currently",
    "current",
    "still",
    "right",
    "now",
    "actually",
    "exactly",
    "really",
    "with",
    "and",
    "as",
    "so",
    "then",
    "than",
    "but",
    "both",
    "find",
    "like",
    "whole",
    "entire",
    "out",
    "up",
    // Light verbs that carry no condition ("tickets that came in by phone", "visits that needed
    // a follow up", "how long tickets take").
    "take",
    "takes",
    "took",
    "taking",
    "get",
    "gets",
    "got",
    "need",
    "needs",
    "needed",
    "come",
    "comes",
    "came",
    "based",
    "located",
    "pay",
    "pays",
    "through",
    "via",
    "made",
    "make",
    "makes",
    "lasted",
    "lasting",
];

/// Words for the rows themselves, in any dataset.
const ROW_WORDS: &[&str] =
    &["row", "rows", "record", "records", "entry", "entries", "item", "items", "data", "dataset", "table", "file"];

/// Words that say "not".
const NEGATIONS: &[&str] = &["not", "no", "without", "non", "never", "except", "excluding", "exclude", "outside"];

/// Adjectives that point at a kind of quantity: (word, class, higher is "more" of it).
const ADJECTIVES: &[(&str, Class, bool)] = &[
    ("expensive", Class::Money, true),
    ("pricey", Class::Money, true),
    ("costly", Class::Money, true),
    ("cheap", Class::Money, false),
    ("cheaper", Class::Money, false),
    ("cheapest", Class::Money, false),
    ("inexpensive", Class::Money, false),
    ("affordable", Class::Money, false),
    ("big", Class::Size, true),
    ("bigger", Class::Size, true),
    ("biggest", Class::Size, true),
    ("large", Class::Size, true),
    ("larger", Class::Size, true),
    ("largest", Class::Size, true),
    ("spacious", Class::Size, true),
    ("small", Class::Size, false),
    ("smaller", Class::Size, false),
    ("smallest", Class::Size, false),
    ("tiny", Class::Size, false),
    ("long", Class::Duration, true),
    ("longer", Class::Duration, true),
    ("longest", Class::Duration, true),
    ("slow", Class::Duration, true),
    ("slowest", Class::Duration, true),
    ("short", Class::Duration, false),
    ("shorter", Class::Duration, false),
    ("shortest", Class::Duration, false),
    ("quick", Class::Duration, false),
    ("quickest", Class::Duration, false),
    ("fastest", Class::Duration, false),
];

/// What an adjective points at in this dataset: a kind of quantity and whether "more" of it is
/// higher. Age words go to an age column when there is one, else to dates ("the oldest vehicle").
fn adjective_meaning(lex: &Lexicon, word: &str) -> Option<(Class, bool)> {
    if let Some((_, class, up)) = ADJECTIVES.iter().find(|(a, _, _)| *a == word) {
        return Some((*class, *up));
    }
    let has_age = !lex.of_class(Class::Age).is_empty();
    match word {
        "oldest" | "eldest" | "older" | "old" if has_age => Some((Class::Age, true)),
        "youngest" | "younger" | "young" => Some((Class::Age, false)),
        "oldest" | "earliest" | "older" | "old" | "first" => Some((Class::Date, false)),
        "newest" | "latest" | "recent" | "newer" | "new" => Some((Class::Date, true)),
        _ => None,
    }
}

/// Superlative forms among [`ADJECTIVES`] and the generic ones.
fn is_superlative(word: &str) -> bool {
    (word.ends_with("est") && word != "interest") || matches!(word, "top" | "bottom")
}

/// Generic words for the top or bottom of a measure the question names.
/// ("maximum" and "minimum" are aggregates: "the maximum price" is one number.)
const HIGH_WORDS: &[&str] = &["highest", "greatest", "largest", "biggest", "top"];
const LOW_WORDS: &[&str] = &["lowest", "smallest", "bottom"];

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

fn month_number(word: &str) -> Option<u32> {
    let full = MONTHS.iter().position(|m| *m == word);
    let short = match word {
        "jan" => Some(0),
        "feb" => Some(1),
        "mar" => Some(2),
        "apr" => Some(3),
        "jun" => Some(5),
        "jul" => Some(6),
        "aug" => Some(7),
        "sep" | "sept" => Some(8),
        "oct" => Some(9),
        "nov" => Some(10),
        "dec" => Some(11),
        _ => None,
    };
    full.or(short).map(|i| i as u32 + 1)
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

/// Words that steer a reading (aggregates, comparisons, groups) rather than name data.
fn is_cue(word: &str) -> bool {
    matches!(
        word,
        "how"
            | "many"
            | "much"
            | "number"
            | "count"
            | "average"
            | "avg"
            | "mean"
            | "median"
            | "sum"
            | "total"
            | "minimum"
            | "min"
            | "maximum"
            | "max"
            | "rate"
            | "percentage"
            | "percent"
            | "share"
            | "proportion"
            | "fraction"
            | "by"
            | "per"
            | "each"
            | "every"
            | "across"
            | "most"
            | "least"
            | "more"
            | "less"
            | "fewer"
            | "over"
            | "under"
            | "above"
            | "below"
            | "between"
            | "top"
            | "common"
            | "last"
            | "this"
            | "since"
            | "before"
            | "after"
            | "or"
            | "not"
            | "no"
            | "without"
    ) || ADJECTIVES.iter().any(|(w, _, _)| *w == word)
        || HIGH_WORDS.contains(&word)
        || LOW_WORDS.contains(&word)
        || month_number(word).is_some()
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
        // A phrase naming two things equally is a question back.
        let mut starts: Vec<usize> = spans.iter().map(|s| s.start).collect();
        starts.dedup();
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
                return Err(Unread::Ask(format!(
                    "“{}” could mean {}. Which one do you mean?",
                    said.join(" "),
                    or_list(&options)
                )));
            }
        }
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

    fn aggregate_word(&mut self) -> Option<Aggregate> {
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
            let next = self.next_content(i + 1);
            let next = if self.word(next) == "of" { self.next_content(next + 1) } else { next };
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
    fn measure(&mut self) -> Result<(Option<Measure>, bool), Unread> {
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
                "reading" | "readings" | "value" | "values" | "figure" | "figures" | "level" | "levels"
            ) && !self.used.get(s.end).copied().unwrap_or(true)
            {
                self.used[s.end] = true;
            }
            found.push(Measure { column: c, per: None });
        }
        found.dedup();
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

    /// Superlatives and top-k: what is ranked, which way, how many.
    fn rank(&mut self) -> Result<Option<(Rank, bool, Option<u32>)>, Unread> {
        let lex = self.lex;
        let mut n: Option<u32> = None;
        let mut found: Option<(Rank, bool)> = None;
        for i in 0..self.tokens.len() {
            if self.used[i] || self.span_covering(i).is_some() {
                continue;
            }
            let w = self.word(i).to_owned();
            // "most common", "least frequent", "most popular".
            if matches!(w.as_str(), "most" | "least")
                && matches!(self.word(i + 1), "common" | "frequent" | "popular" | "often" | "usual")
            {
                found = Some((Rank::Frequency, w == "most"));
                self.mark(i, i + 2);
                continue;
            }
            if matches!(w.as_str(), "commonest" | "rarest") {
                found = Some((Rank::Frequency, w == "commonest"));
                self.used[i] = true;
                continue;
            }
            // "which plan has the most customers": most + the rows.
            // (values and flags may come between: "the most urgent tickets".)
            let mut after_most = self.next_content(i + 1);
            while let Some(sp) =
                self.span_at(after_most).filter(|sp| matches!(sp.meaning, Meaning::Value(..) | Meaning::Flag(..)))
            {
                after_most = self.next_content(sp.end);
            }
            if matches!(w.as_str(), "most" | "fewest" | "least")
                && (self.span_at(after_most).is_some_and(|s| s.meaning == Meaning::Entity)
                    || ROW_WORDS.contains(&self.word(after_most)))
            {
                found = Some((Rank::Frequency, w == "most"));
                self.used[i] = true;
                continue;
            }
            // "most expensive", "least expensive", "cheapest", "biggest".
            let (adjective, desc_word, at) = if matches!(w.as_str(), "most" | "least") {
                (self.word(i + 1).to_owned(), w == "most", i + 1)
            } else {
                (w.clone(), true, i)
            };
            if let Some((class, up)) = adjective_meaning(lex, &adjective) {
                let (class, up) = (&class, &up);
                let superlative = is_superlative(&adjective) || at != i;
                if !superlative {
                    continue;
                }
                // "biggest price": a generic word next to a named measure.
                let next = self.next_content(at + 1);
                if (HIGH_WORDS.contains(&adjective.as_str()) || LOW_WORDS.contains(&adjective.as_str()))
                    && self.column_span(next).is_some_and(|c| lex.columns[c].is_numeric())
                {
                    found = Some((Rank::Of(None), HIGH_WORDS.contains(&adjective.as_str())));
                    self.mark(i, at + 1);
                    continue;
                }
                let candidates = lex.of_class(*class);
                let column = match candidates.as_slice() {
                    [c] => *c,
                    [] => {
                        return Err(Unread::Refuse(format!(
                            "{} has no column that says how {} something is, so I cannot tell what “{}” means here.",
                            lex.dataset.table_name,
                            base_adjective(&adjective),
                            self.tokens[i..=at].iter().map(|t| t.raw.as_str()).collect::<Vec<_>>().join(" ")
                        )));
                    }
                    many => {
                        // A measure named in the question settles it.
                        let named = self.spans.iter().find_map(|s| match s.meaning {
                            Meaning::Column(c) if many.contains(&c) => Some(c),
                            _ => None,
                        });
                        match named {
                            Some(c) => c,
                            None => {
                                let names: Vec<String> = many.iter().map(|c| lex.columns[*c].name.clone()).collect();
                                return Err(Unread::Ask(format!(
                                    "“{}” by which column: {}?",
                                    adjective,
                                    or_list(&names)
                                )));
                            }
                        }
                    }
                };
                let desc = if at != i { desc_word == *up } else { *up };
                found = Some((Rank::Of(Some(Measure { column, per: None })), desc));
                self.mark(i, at + 1);
                continue;
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
                    found = Some((Rank::Of(None), HIGH_WORDS.contains(&w.as_str())));
                    self.used[i] = true;
                }
            }
        }
        // "top 5", "the 3 cheapest", "5 most common": a count next to the ranking.
        if found.is_some() {
            for i in 0..self.tokens.len() {
                let Some(x) = self.tokens[i].number else { continue };
                if self.used[i] || self.tokens[i].currency.is_some() || self.tokens[i].percent {
                    continue;
                }
                let before = i.checked_sub(1).map(|p| self.word(p).to_owned()).unwrap_or_default();
                let next_used = self.used.get(i + 1).copied().unwrap_or(false);
                let next_is_rows = self.span_at(i + 1).is_some_and(|sp| sp.meaning == Meaning::Entity)
                    || ROW_WORDS.contains(&self.word(i + 1));
                if (before == "top" || before == "bottom" || next_used || next_is_rows)
                    && (1.0..=1000.0).contains(&x)
                    && x.fract() == 0.0
                {
                    n = Some(x as u32);
                    self.used[i] = true;
                    if before == "top" || before == "bottom" {
                        self.used[i - 1] = true;
                        if before == "bottom"
                            && let Some((_, desc)) = &mut found
                        {
                            *desc = !*desc;
                        }
                    }
                    break;
                }
            }
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

    /// Group words: "by X", "per X", "for each X", "across X", "by month".
    fn group(&mut self) -> Result<Option<(usize, Option<TimeBucket>)>, Unread> {
        let lex = self.lex;
        for i in 0..self.tokens.len() {
            if self.used[i] || self.span_covering(i).is_some() {
                continue;
            }
            let w = self.word(i).to_owned();
            // "price per bedroom", "cost per seat": per after a quantity divides it.
            if w == "per"
                && i > 0
                && self.column_span(i - 1).is_some_and(|c| lex.columns[c].is_numeric())
                && self.column_span(self.next_content(i + 1)).is_some_and(|c| lex.columns[c].is_numeric())
            {
                continue;
            }
            let cue_len = match w.as_str() {
                "by" | "per" | "across" | "each" | "every" => 1,
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
                _ => continue,
            };
            let mut target = self.next_content(i + cue_len);
            // "by number of bedrooms": the column after "number of".
            let mut lead_in = None;
            if self.word(target) == "number" && self.word(target + 1) == "of" {
                lead_in = Some(target);
                target = self.next_content(target + 2);
            }
            // A time bucket: "by month", "per year", "each week".
            let bucket = match self.word(target) {
                "year" | "years" | "yearly" | "annually" => Some(TimeBucket::Year),
                "quarter" | "quarters" | "quarterly" => Some(TimeBucket::Quarter),
                "month" | "months" | "monthly" => Some(TimeBucket::Month),
                "week" | "weeks" | "weekly" => Some(TimeBucket::Week),
                "day" | "days" | "daily" => Some(TimeBucket::Day),
                _ => None,
            };
            if let Some(bucket) = bucket {
                let dates = lex.dates();
                let named = dates.iter().copied().find(|d| self.spans.iter().any(|s| s.meaning == Meaning::Column(*d)));
                let column = match (named, dates.as_slice()) {
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
                        return Err(Unread::Ask(format!(
                            "By the {} of which date: {}?",
                            bucket.as_str(),
                            or_list(&names)
                        )));
                    }
                };
                self.mark(i, target + 1);
                if let Some(s) = self.spans.iter().find(|s| s.meaning == Meaning::Column(column)).cloned() {
                    self.mark(s.start, s.end);
                }
                return Ok(Some((column, Some(bucket))));
            }
            match self.span_covering(target).map(|s| s.meaning.clone()) {
                Some(Meaning::Column(c)) if groupable(lex, c) || lex.columns[c].is_date() => {
                    self.mark(i, i + cue_len);
                    if let Some(k) = lead_in {
                        self.mark(k, k + 2);
                    }
                    self.mark_span(target);
                    return Ok(Some((c, None)));
                }
                Some(Meaning::Flag(c, _)) => {
                    // "churn by terrace": the flag's two values are the groups.
                    self.mark(i, i + cue_len);
                    self.mark_span(target);
                    return Ok(Some((c, None)));
                }
                // "tickets submitted by phone": "by" before a value is just a preposition.
                Some(Meaning::Value(..)) if w == "by" => {
                    self.used[i] = true;
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// "more than 500000", "price over 500k", "at least 3 bedrooms", "3-bedroom", "between 2 and 4".
    fn comparisons(&mut self) -> Result<Vec<Cond>, Unread> {
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
    fn value_conditions(&mut self) -> Result<Vec<Cond>, Unread> {
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
    fn negated_before(&mut self, i: usize) -> bool {
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
    fn negated_after(&mut self, end: usize) -> bool {
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
    fn time_condition(&mut self) -> Result<Option<Cond>, Unread> {
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
        let column = match (named, dates.as_slice()) {
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
                return Err(Unread::Ask(format!("{label} — by which date: {}?", or_list(&names))));
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

/// What the ranking words point at.
#[derive(Clone, Debug, PartialEq)]
enum Rank {
    /// How often a value occurs ("most common").
    Frequency,
    /// A measure: implied by an adjective ("expensive" → price) or named (`None`: the one named).
    Of(Option<Measure>),
}

/// A unit of time as its length in minutes.
fn time_unit(word: &str) -> Option<f64> {
    Some(match word {
        "minute" | "minutes" | "min" | "mins" => 1.0,
        "hour" | "hours" | "hr" | "hrs" => 60.0,
        "day" | "days" => 1440.0,
        "week" | "weeks" => 10_080.0,
        "month" | "months" => 43_830.0,
        "year" | "years" => 525_960.0,
        _ => return None,
    })
}

/// The word a column's unit is written with in a question ("months", "km", "sqm").
fn unit_word(c: &crate::lexicon::ColumnInfo) -> Option<&'static str> {
    use crate::lexicon::Unit;
    match c.unit? {
        Unit::Word(w) => Some(w),
        Unit::SquareMetres => Some("sqm"),
        Unit::Currency('€') => Some("euros"),
        Unit::Currency('$') => Some("dollars"),
        Unit::Currency(_) => Some("pounds"),
        Unit::Percent => Some("percent"),
    }
}

/// Rows listed at most when a question asks for the rows themselves.
pub const ROW_LIMIT: u32 = 100;

/// Whether a column makes sensible groups (few values, or a flag).
fn groupable(lex: &Lexicon, c: usize) -> bool {
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

fn base_adjective(word: &str) -> String {
    match word {
        "cheapest" | "cheaper" => "cheap".into(),
        "biggest" | "bigger" => "big".into(),
        "largest" | "larger" => "large".into(),
        "smallest" | "smaller" => "small".into(),
        "longest" | "longer" => "long".into(),
        "shortest" | "shorter" => "short".into(),
        "quickest" | "fastest" => "quick".into(),
        "slowest" => "slow".into(),
        other => other.to_owned(),
    }
}

pub fn agg_word(agg: Aggregate) -> &'static str {
    match agg {
        Aggregate::Avg => "average",
        Aggregate::Median => "median",
        Aggregate::Sum => "total",
        Aggregate::Min => "lowest",
        Aggregate::Max => "highest",
        Aggregate::Count => "count",
        Aggregate::CountDistinct => "number of different values",
        Aggregate::Share => "share",
    }
}

fn measure_name(lex: &Lexicon, m: &Measure) -> String {
    match m.per {
        Some(p) => format!("{} per {}", lex.columns[m.column].label, lex.columns[p].label),
        None => lex.columns[m.column].label.clone(),
    }
}

fn numeric_columns(lex: &Lexicon) -> String {
    let names: Vec<&str> =
        lex.columns.iter().filter(|c| c.is_numeric() && c.class != Class::Id).map(|c| c.name.as_str()).collect();
    if names.is_empty() { "no numeric columns".to_owned() } else { names.join(", ") }
}

fn example_columns(lex: &Lexicon) -> String {
    let names: Vec<&str> = lex
        .columns
        .iter()
        .filter(|c| matches!(c.class, Class::Category | Class::Flag))
        .map(|c| c.name.as_str())
        .take(4)
        .collect();
    names.join(", ")
}

pub(crate) fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn describe_meaning(lex: &Lexicon, m: &Meaning) -> String {
    match m {
        Meaning::Dataset => format!("the dataset {}", lex.dataset.table_name),
        Meaning::Entity => format!("the {}", lex.entity),
        Meaning::Column(c) | Meaning::Flag(c, _) => format!("the column {}", lex.columns[*c].name),
        Meaning::Value(c, v) => format!("{} “{v}”", lex.columns[*c].name),
    }
}

fn describe_ask(lex: &Lexicon, ask: &Ask) -> String {
    match ask {
        Ask::Tally(Tally::Count) => format!("a count of {}", lex.entity),
        Ask::Tally(Tally::Distinct(c)) => format!("how many different {} there are", plural(&lex.columns[*c].label)),
        Ask::Tally(Tally::Aggregate(a, m)) => format!("the {} {}", agg_word(*a), lex.columns[m.column].label),
        Ask::Tally(Tally::Share(_)) => "a share".to_owned(),
        Ask::Rows(_) => format!("a list of {}", lex.entity),
    }
}

fn not_understood(lex: &Lexicon, left: &[String], ask: &Ask) -> String {
    let quoted: Vec<String> = left.iter().map(|w| format!("“{w}”")).collect();
    let columns: Vec<&str> = lex.columns.iter().map(|c| c.name.as_str()).take(20).collect();
    format!(
        "I understood that you want {} from {}, but not {} — so I have not answered rather than leave {} out. \
         Its columns are {}.",
        describe_ask(lex, ask),
        lex.dataset.table_name,
        or_list(&quoted).replace(" or ", " and "),
        if left.len() == 1 { "it" } else { "them" },
        columns.join(", ")
    )
}

/// The reading as a QueryPlan (the arguments of `execute_query_plan`).
pub fn plan_json(lex: &Lexicon, r: &Reading) -> Value {
    let col = |c: usize| lex.columns[c].name.clone();
    let cond_json = |c: &Cond| -> Vec<Value> {
        let op = serde_json::to_value(c.op).unwrap_or_default();
        match (c.op, c.values.as_slice()) {
            // A date range is [from, to): two conditions, so a timestamp late on the last day counts.
            (FilterOp::Between, [Lit::Date(from), Lit::Date(to)]) => vec![
                json!({"column": col(c.column), "op": "ge", "value": Lit::Date(*from).json()}),
                json!({"column": col(c.column), "op": "lt", "value": Lit::Date(*to).json()}),
            ],
            (FilterOp::In | FilterOp::NotIn | FilterOp::Between, vs) => {
                vec![json!({"column": col(c.column), "op": op, "values": vs.iter().map(Lit::json).collect::<Vec<_>>()})]
            }
            (_, [v, ..]) => vec![json!({"column": col(c.column), "op": op, "value": v.json()})],
            (_, []) => vec![json!({"column": col(c.column), "op": op})],
        }
    };
    let measure_item = |m: &Measure, agg: Option<Aggregate>, alias: &str| {
        let mut item = json!({"column": col(m.column), "alias": alias});
        if let Some(per) = m.per {
            item["per"] = json!(col(per));
        }
        if let Some(a) = agg {
            item["aggregate"] = json!(a.as_str());
        }
        item
    };
    let mut plan = json!({"dataset": lex.dataset.table_name});
    let filters: Vec<Value> = r.filters.iter().flat_map(&cond_json).collect();
    if !filters.is_empty() {
        plan["filters"] = json!(filters);
    }
    if let Some(n) = r.limit {
        plan["limit"] = json!(n);
    }
    let tally = match &r.ask {
        Ask::Rows(order) => {
            if let Some((m, desc)) = order {
                match m.per {
                    // Rows ranked by a ratio carry it as an output after every column.
                    Some(_) => {
                        let alias = ratio_alias(lex, m);
                        let mut select: Vec<Value> = lex.columns.iter().map(|c| json!({"column": c.name})).collect();
                        select.push(measure_item(m, None, &alias));
                        plan["select"] = json!(select);
                        plan["order_by"] = json!([{"column": alias, "descending": desc}]);
                    }
                    None => plan["order_by"] = json!([{"column": col(m.column), "descending": desc}]),
                }
            }
            return plan;
        }
        Ask::Tally(t) => t,
    };
    let mut select: Vec<Value> = Vec::new();
    let key = r.group.map(|(g, bucket)| match bucket {
        Some(b) => {
            select.push(json!({"column": col(g), "bucket": b.as_str(), "alias": b.as_str()}));
            b.as_str().to_owned()
        }
        None => {
            select.push(json!({"column": col(g)}));
            col(g)
        }
    });
    let value_alias = value_alias(lex, tally);
    match tally {
        Tally::Count => select.push(json!({"aggregate": "count", "alias": value_alias})),
        Tally::Distinct(c) => {
            select.push(json!({"column": col(*c), "aggregate": "count_distinct", "alias": value_alias}));
        }
        Tally::Aggregate(agg, m) => select.push(measure_item(m, Some(*agg), &value_alias)),
        Tally::Share(pred) => {
            let condition: Vec<Value> = pred.iter().flat_map(&cond_json).collect();
            select.push(json!({"aggregate": "share", "condition": condition, "alias": value_alias}));
            select.push(json!({"aggregate": "count", "alias": count_alias(lex)}));
        }
    }
    plan["select"] = json!(select);
    if let Some((g, _)) = r.group {
        plan["group_by"] = json!([col(g)]);
        let key = key.unwrap_or_default();
        plan["order_by"] = match r.order {
            GroupOrder::Key => json!([{"column": key}]),
            GroupOrder::Value(desc) => json!([{"column": value_alias, "descending": desc}, {"column": key}]),
        };
    }
    plan
}

/// The output column that holds a tally's value.
pub fn value_alias(lex: &Lexicon, tally: &Tally) -> String {
    match tally {
        Tally::Count => count_alias(lex),
        Tally::Distinct(c) => clean_alias(&format!("distinct_{}", lex.columns[*c].name)),
        Tally::Aggregate(agg, m) => alias_for(lex, *agg, m),
        Tally::Share(_) => "share".to_owned(),
    }
}

/// The output name of a row count: the rows' plural ("apartments").
pub fn count_alias(lex: &Lexicon) -> String {
    clean_alias(&lex.entity)
}

pub fn ratio_alias(lex: &Lexicon, m: &Measure) -> String {
    let per = m.per.map_or_else(String::new, |p| format!("_per_{}", lex.columns[p].name));
    clean_alias(&format!("{}{per}", lex.columns[m.column].name))
}

fn clean_alias(s: &str) -> String {
    s.chars().map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' }).take(64).collect()
}

/// The output name of an aggregate: `avg_price_eur`, `median_price_eur_per_sqm`.
pub fn alias_for(lex: &Lexicon, agg: Aggregate, m: &Measure) -> String {
    clean_alias(&format!("{}_{}", agg.as_str(), ratio_alias(lex, m)))
}
