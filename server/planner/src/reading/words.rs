//! The words the reader knows without any dataset: function words, negations, adjectives of
//! quantity, ranking words, months, units of time.

use crate::lexicon::{Class, Lexicon};

/// Words that carry no condition or quantity.
pub(super) const FUNCTION_WORDS: &[&str] = &[
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
    "paying",
    "through",
    "via",
    "made",
    "make",
    "makes",
    "lasted",
    "lasting",
    "taken",
    "sat",
    "held",
    "went",
    "go",
    "goes",
    "gone",
    "going",
    "using",
    "given",
    "gave",
    "single",
    "individual",
    "anyone",
    "anybody",
    "someone",
    "ones",
    "if",
    "flagged",
    "marked",
    "possible",
    "potential",
    "travelled",
    "traveled",
    "covered",
    "anything",
    "everything",
    "recompute",
    "recalculate",
    "compute",
    "calculate",
    "terms",
    "happen",
    "happened",
    // "across all shipments", "everyone", "which carrier moved the most", "stays that led to".
    "across",
    "everyone",
    "everybody",
    "seen",
    "moved",
    "led",
    "works",
    "away",
    // "students that appear in the grades", "F grades handed out", "results dated in June".
    "appear",
    "appears",
    "appeared",
    "handed",
    "dated",
];

/// Words for the business itself ("how much revenue did the site make"), understood as such
/// when no column or value of the data is called so.
pub(super) const SUBJECT_WORDS: &[&str] = &[
    "website",
    "site",
    "shop",
    "store",
    "business",
    "company",
    "firm",
    "organisation",
    "organization",
    "overall",
    "altogether",
    "combined",
];

/// Words for the rows themselves, in any dataset.
pub(super) const ROW_WORDS: &[&str] = &[
    "row", "rows", "record", "records", "entry", "entries", "item", "items", "data", "dataset", "table", "file",
    "results", "numbers", "volume", "volumes",
];

/// Words that say "not".
pub(super) const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "without",
    "non",
    "never",
    "except",
    "excluding",
    "exclude",
    "outside",
    "drop",
    "dropping",
    "remove",
    "removing",
    "ignore",
    "ignoring",
    "purge",
    "purging",
    "omit",
    "omitting",
    // Said of rows in a question ("delete the denied claims, then what's the average …"): the
    // analysis leaves them out; deleting data is a request of its own, with a card.
    "delete",
    "deleting",
    "discard",
    "discarding",
    "wipe",
    "throw",
    "eliminate",
];

/// Words that ask for a chart of the answer (the result carries one when its shape suits).
pub(super) const CHART_WORDS: &[&str] = &[
    "chart",
    "charts",
    "plot",
    "graph",
    "visualise",
    "visualize",
    "draw",
    "bar",
    "line",
    "pie",
    "histogram",
    "diagram",
    "visual",
];

/// Adjectives that point at a kind of quantity: (word, class, higher is "more" of it).
pub(super) const ADJECTIVES: &[(&str, Class, bool)] = &[
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
    ("heavy", Class::Size, true),
    ("heavier", Class::Size, true),
    ("heaviest", Class::Size, true),
    ("light", Class::Size, false),
    ("lighter", Class::Size, false),
    ("lightest", Class::Size, false),
];

/// What an adjective points at in this dataset: a kind of quantity and whether "more" of it is
/// higher. Age words go to an age column when there is one, else to dates ("the oldest vehicle").
pub(super) fn adjective_meaning(lex: &Lexicon, word: &str) -> Option<(Class, bool)> {
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
pub(super) fn is_superlative(word: &str) -> bool {
    (word.ends_with("est") && word != "interest") || matches!(word, "top" | "bottom")
}

/// Generic words for the top or bottom of a measure the question names.
/// ("maximum" and "minimum" are aggregates: "the maximum price" is one number.)
pub(super) const HIGH_WORDS: &[&str] = &["highest", "greatest", "largest", "biggest", "top", "best"];

pub(super) const LOW_WORDS: &[&str] = &["lowest", "smallest", "bottom", "worst"];

pub(super) const MONTHS: &[&str] = &[
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

pub(super) fn month_number(word: &str) -> Option<u32> {
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

/// Words that steer a reading (aggregates, comparisons, groups) rather than name data.
pub(super) fn is_cue(word: &str) -> bool {
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

/// A unit of time as its length in minutes.
pub(super) fn time_unit(word: &str) -> Option<f64> {
    Some(match word {
        "second" | "seconds" | "sec" | "secs" => 1.0 / 60.0,
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
pub(super) fn unit_word(c: &crate::lexicon::ColumnInfo) -> Option<&'static str> {
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

pub(super) fn base_adjective(word: &str) -> String {
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

/// Units a column's name may end with that a question writes after a number ("over 1.5k kWh").
pub(super) const MEASURE_UNITS: &[&str] =
    &["kwh", "kw", "mwh", "kg", "km", "lbs", "miles", "gbp", "usd", "eur", "mins"];

/// Words after a category column's name that only say it is a kind ("insurance type").
pub(super) const KIND_WORDS: &[&str] = &[
    "type",
    "types",
    "kind",
    "kinds",
    "category",
    "categories",
    "band",
    "bands",
    "level",
    "levels",
    "group",
    "groups",
    "tier",
    "tiers",
    "class",
    "classes",
];

/// Verbs that only say a group has its number ("which product generates the most revenue").
pub(super) const HAS_VERBS: &[&str] = &[
    "generates",
    "generated",
    "generate",
    "brings",
    "brought",
    "bring",
    "accounts",
    "accounted",
    "account",
    "drives",
    "drove",
    "produces",
    "produced",
    "earned",
    "earns",
    "received",
    "receives",
    "sees",
    "saw",
    "records",
    "recorded",
    "logs",
    "logged",
    "handles",
    "handled",
    "handle",
    "shows",
    "showed",
    "scored",
    "scores",
    "score",
    "spent",
    "spend",
    "spends",
    "used",
    "uses",
    "use",
    "consumed",
    "consumes",
    "hit",
    "hits",
    "reached",
    "reach",
    "sends",
    "placed",
    "place",
    "places",
    "gets",
    "got",
    "files",
    "bought",
    "buy",
    "buys",
    "leave",
    "leaves",
    "depart",
    "departs",
    "departed",
    "lose",
    "lost",
    "loses",
    "pass",
    "passes",
    "passed",
    "elapse",
    "elapsed",
];
