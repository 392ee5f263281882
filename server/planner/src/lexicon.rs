//! The vocabulary of one dataset: what its table name, columns, categorical values and flags are
//! called in questions. Built from the schema and the data's own values, with a small general
//! dictionary of how people name common measures ("cost" for `price_eur`, "square metre" for
//! `sqm`) — never from knowledge of particular datasets.

use crate::text::{stem, words_of};
use aware_core::categories::CategoricalColumn;
use aware_core::dataset::Dataset;
use aware_core::value::ValueKind;

/// What kind of quantity a column holds, which decides the adjectives that refer to it and
/// how its numbers are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Money,
    Size,
    Duration,
    Age,
    Rating,
    /// Small whole numbers of things (bedrooms, calls).
    Count,
    Number,
    Date,
    Flag,
    Category,
    Id,
    Text,
}

/// The unit numbers of a column are written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Currency(char),
    SquareMetres,
    Percent,
    Word(&'static str),
}

/// A column as the planner sees it.
#[derive(Clone, Debug)]
pub struct ColumnInfo {
    pub name: String,
    pub kind: ValueKind,
    pub class: Class,
    pub unit: Option<Unit>,
    /// How the column is called in an answer: "price", "monthly charges", "size".
    pub label: String,
    /// The column's distinct values when it is categorical.
    pub values: Vec<String>,
}

impl ColumnInfo {
    pub fn is_numeric(&self) -> bool {
        self.kind.is_numeric()
    }

    pub fn is_date(&self) -> bool {
        matches!(self.kind, ValueKind::Date | ValueKind::Timestamp)
    }
}

/// What a phrase of a question refers to.
#[derive(Clone, Debug, PartialEq)]
pub enum Meaning {
    /// A word of the dataset's own name.
    Dataset,
    /// The things the rows are ("apartments", "listings", "customers").
    Entity,
    Column(usize),
    /// A value of a categorical column (index into `columns`, the value as stored).
    Value(usize, String),
    /// A yes/no column said to hold ("with a terrace", "churned") or not ("inactive").
    Flag(usize, bool),
}

/// How a word of a phrase meets a word of the question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// By stem: "churned" meets "churn", "listed" meets "listing".
    Stem,
    /// Only a plural folded: a value or the dataset's own name. "opened" must not meet the
    /// status value `open`, nor "customers churned" the table `customer_churn`.
    Plural,
}

/// A phrase and what it means. `strength` breaks ties between phrases of the same length: a
/// value beats a column name, a full column name beats one word of it.
#[derive(Clone, Debug)]
pub struct Entry {
    pub words: Vec<(String, Form)>,
    pub meaning: Meaning,
    pub strength: u8,
}

impl Entry {
    fn stems(words: &[String], meaning: Meaning, strength: u8) -> Self {
        Self { words: words.iter().map(|w| (stem(w), Form::Stem)).collect(), meaning, strength }
    }

    fn plurals(words: &[String], meaning: Meaning, strength: u8) -> Self {
        Self { words: words.iter().map(|w| (plural_stem(w), Form::Plural)).collect(), meaning, strength }
    }
}

/// One dataset's vocabulary.
#[derive(Clone, Debug)]
pub struct Lexicon {
    pub dataset: Dataset,
    pub columns: Vec<ColumnInfo>,
    pub entries: Vec<Entry>,
    /// What a row is, in the plural ("apartments"), for answers; "rows" when unknown.
    pub entity: String,
    /// What words mean when they could mean several columns, as a person said once (the
    /// dataset's description keeps such rules; a clarification in this run adds one): the
    /// phrase's word stems and the column. Earlier rules win.
    pub rules: Vec<(Vec<String>, usize)>,
}

/// A word with only a plural ending removed ("categories" → "category", "buses" → "bus",
/// "vans" → "van").
pub fn plural_stem(word: &str) -> String {
    if word.len() <= 3 {
        return word.to_owned();
    }
    if let Some(base) = word.strip_suffix("ies") {
        return format!("{base}y");
    }
    for suffix in ["sses", "xes", "ches", "shes", "uses"] {
        if let Some(base) = word.strip_suffix(suffix) {
            return format!("{base}{}", &suffix[..suffix.len() - 2]);
        }
    }
    match word.strip_suffix('s') {
        Some(base) if !base.ends_with('s') && !base.ends_with('u') && !base.ends_with('i') => base.to_owned(),
        _ => word.to_owned(),
    }
}

const UNIT_WORDS: &[&str] = &[
    "eur", "euro", "euros", "usd", "gbp", "dollars", "pct", "percent", "km", "kg", "hours", "hrs", "minutes", "mins",
    "days", "months", "years", "secs", "seconds",
];

/// Words too general to name a column on their own.
const GENERIC: &[&str] = &[
    "id", "name", "value", "values", "count", "number", "num", "date", "at", "on", "of", "the", "and", "is", "has",
    "total", "code", "data", "info", "flag", "type", "time",
];

/// Words that never name a value on their own, even when one contains them.
const GENERIC_PARTS: &[&str] = &[
    "data", "file", "files", "table", "rows", "records", "items", "list", "info", "type", "other", "none", "total",
    "day", "days", "week", "weeks", "month", "months", "year", "years", "quarter", "time", "hour", "hours",
];

/// How people name common measures: (a word of a column name, other words for it).
const SYNONYMS: &[(&str, &[&str])] = &[
    ("price", &["cost", "costs", "costing", "priced", "pricing", "asking price"]),
    ("sqm", &["square meter", "square meters", "sq m", "m2", "size", "area", "surface", "floor area"]),
    ("m2", &["square meter", "square meters", "sqm", "size", "area", "surface"]),
    ("area", &["size", "surface"]),
    ("bedrooms", &["beds", "bedroom"]),
    ("bathrooms", &["baths", "bathroom"]),
    ("neighborhood", &["district", "barrio", "neighborhoods"]),
    ("category", &["categories", "topic", "topics"]),
    ("status", &["state"]),
    ("priority", &["urgency"]),
    ("created", &["opened", "submitted", "filed", "raised", "logged", "creation"]),
    ("customer", &["client", "clients"]),
    ("tenure", &["tenure length"]),
    ("charges", &["charge", "bill", "bills"]),
    ("resolution", &["resolve", "resolved", "resolving"]),
    ("listed", &["listing date", "published"]),
    ("salary", &["pay", "wage", "wages"]),
    ("revenue", &["sales", "income"]),
    ("quantity", &["qty", "units"]),
    ("rating", &["score", "stars"]),
    ("duration", &["length"]),
    ("contract", &["contract type"]),
    ("channel", &["source"]),
];

/// Entity words people use for the things in a dataset, by a word of its name.
const ENTITY_SYNONYMS: &[(&str, &[&str])] = &[
    ("apartment", &["flat", "home", "property", "unit", "listing"]),
    ("ticket", &["request", "case", "issue"]),
    ("customer", &["client", "subscriber", "account"]),
    ("employee", &["staff", "worker", "person", "people"]),
    ("vehicle", &["car", "van", "truck"]),
    ("order", &["purchase", "sale"]),
];

/// Words in a column name that mark its class.
fn class_of(words: &[String], kind: ValueKind, categorical: bool) -> Class {
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let last_is_id = words.last().is_some_and(|w| w == "id" || w == "uuid" || w == "key" || w == "code");
    match kind {
        ValueKind::Bool => Class::Flag,
        ValueKind::Date | ValueKind::Timestamp => Class::Date,
        _ if last_is_id => Class::Id,
        k if k.is_numeric() => {
            if has(&[
                "price", "cost", "amount", "charge", "charges", "fee", "fees", "revenue", "income", "salary", "spend",
                "sales", "payment", "paid", "eur", "usd", "gbp", "euro", "dollars", "wage", "budget", "rent",
            ]) {
                Class::Money
            } else if has(&["sqm", "m2", "area", "size", "surface", "sqft"]) {
                Class::Size
            } else if has(&["age"]) {
                Class::Age
            } else if has(&["rating", "score", "stars", "grade"]) {
                Class::Rating
            } else if has(&[
                "hours", "hrs", "minutes", "mins", "days", "months", "years", "seconds", "secs", "duration", "tenure",
                "wait", "time", "length",
            ]) {
                Class::Duration
            } else if matches!(kind, ValueKind::Int)
                && words.last().is_some_and(|w| w.ends_with('s') || w.starts_with("num"))
            {
                Class::Count
            } else {
                Class::Number
            }
        }
        ValueKind::String if categorical => Class::Category,
        _ => Class::Text,
    }
}

fn unit_of(words: &[String]) -> Option<Unit> {
    words.iter().rev().find_map(|w| {
        Some(match w.as_str() {
            "eur" | "euro" | "euros" => Unit::Currency('€'),
            "usd" | "dollars" => Unit::Currency('$'),
            "gbp" => Unit::Currency('£'),
            "pct" | "percent" => Unit::Percent,
            "sqm" | "m2" => Unit::SquareMetres,
            "km" => Unit::Word("km"),
            "kg" => Unit::Word("kg"),
            "hours" | "hrs" => Unit::Word("hours"),
            "minutes" | "mins" => Unit::Word("minutes"),
            "days" => Unit::Word("days"),
            "months" => Unit::Word("months"),
            "years" => Unit::Word("years"),
            _ => return None,
        })
    })
}

impl Lexicon {
    /// The vocabulary of `dataset`, whose categorical columns are `categories`.
    pub fn new(dataset: &Dataset, categories: &[CategoricalColumn]) -> Self {
        let mut columns = Vec::new();
        let mut entries: Vec<Entry> = Vec::new();
        let name_words: Vec<Vec<String>> = dataset.columns.iter().map(|c| words_of(&c.name)).collect();
        // How many columns use each word: a word of one column only names it on its own.
        let used_by = |w: &str| name_words.iter().filter(|ws| ws.iter().any(|x| x == w)).count();

        // What the rows are: the last word of the table's name when it is a plural noun
        // ("barcelona_apartments"; "customer_churn" is about customers, not churns), and the
        // first column `<thing>_id` (`listing_id`, `customer_id`).
        let table_words = words_of(&dataset.table_name);
        let mut entity_words: Vec<String> = Vec::new();
        if let Some(last) = table_words
            .last()
            .filter(|w| w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && w.chars().all(char::is_alphabetic))
        {
            entity_words.push(last.clone());
        }
        if let Some(first) = name_words.first()
            && first.len() == 2
            && first[1] == "id"
        {
            entity_words.push(first[0].clone());
        }
        let mut entity_stems: Vec<String> = entity_words.iter().map(|w| stem(w)).collect();
        for w in entity_words.clone() {
            if let Some((_, alternatives)) = ENTITY_SYNONYMS.iter().find(|(k, _)| stem(k) == stem(&w)) {
                entity_stems.extend(alternatives.iter().map(|a| stem(a)));
            }
        }
        entity_stems.sort();
        entity_stems.dedup();

        for (i, c) in dataset.columns.iter().enumerate() {
            let words = &name_words[i];
            let values = categories.iter().find(|k| k.column == c.name).map(|k| k.values.clone()).unwrap_or_default();
            let class = class_of(words, c.kind, !values.is_empty());
            let unit = unit_of(words).filter(|_| c.kind.is_numeric());
            // The words that name the quantity: no unit, no has_/is_ prefix.
            let mut core: Vec<String> = words.iter().filter(|w| !UNIT_WORDS.contains(&w.as_str())).cloned().collect();
            if class == Class::Flag
                && core.len() > 1
                && matches!(core[0].as_str(), "has" | "is" | "was" | "can" | "did")
            {
                core.remove(0);
            }
            if core.is_empty() {
                core = words.clone();
            }
            if class == Class::Id {
                core.retain(|w| !matches!(w.as_str(), "id" | "uuid" | "key" | "code"));
            }
            // The label keeps the name's spelling: the words of `core`, as written.
            let shown = crate::text::display_words(&c.name);
            let label_words: Vec<String> =
                words.iter().zip(&shown).filter(|(w, _)| core.contains(w)).map(|(_, d)| d.clone()).collect();
            let label = if label_words.is_empty() { c.name.clone() } else { label_words.join(" ") };
            let meaning = if class == Class::Flag { Meaning::Flag(i, true) } else { Meaning::Column(i) };
            // A single word names the column only when no other column and not the rows use it
            // (then it is weaker, and alone it is a question back: "charges" — monthly or total?).
            let single = |w: &String| -> Option<u8> {
                if GENERIC.contains(&w.as_str()) || w.len() <= 2 {
                    return None;
                }
                if entity_stems.contains(&stem(w)) && words.len() > 1 {
                    return None;
                }
                Some(if used_by(w) == 1 { 2 } else { 1 })
            };
            if class != Class::Id {
                entries.push(Entry::stems(words, meaning.clone(), 3));
                if core.len() > 1 {
                    entries.push(Entry::stems(&core, meaning.clone(), 3));
                }
                for w in &core {
                    if let Some(strength) = single(w) {
                        entries.push(Entry::stems(std::slice::from_ref(w), meaning.clone(), strength));
                    }
                }
                for w in words {
                    if let Some((_, alternatives)) = SYNONYMS.iter().find(|(k, _)| *k == w)
                        && used_by(w) == 1
                    {
                        for alt in alternatives.iter() {
                            let alt: Vec<String> = alt.split_whitespace().map(str::to_owned).collect();
                            entries.push(Entry::stems(&alt, meaning.clone(), 1));
                        }
                    }
                }
            } else if !core.is_empty() && i > 0 {
                // `customer_id` in a tickets table: "customers" counts distinct ids. (The first
                // column's id is the rows' own: its word names the rows.)
                entries.push(Entry::stems(&core, meaning.clone(), 2));
            }
            if class == Class::Duration {
                // "resolution time", "wait time".
                let mut phrase: Vec<String> = core.iter().filter(|w| *w != "time").cloned().collect();
                phrase.push("time".to_owned());
                entries.push(Entry::stems(&phrase, meaning.clone(), 2));
            }
            // A unit of measure alone ("km", "hours") names the one column measured in it
            // (calendar words do not: "per month" is a period).
            for u in words.iter().filter(|w| matches!(w.as_str(), "km" | "kg" | "hours" | "hrs" | "minutes" | "mins")) {
                if used_by(u) == 1 && c.kind.is_numeric() {
                    entries.push(Entry::stems(std::slice::from_ref(u), meaning.clone(), 1));
                }
            }
            if class == Class::Flag
                && let [only] = core.as_slice()
            {
                for prefix in ["in", "un", "non"] {
                    entries.push(Entry::stems(&[format!("{prefix}{only}")], Meaning::Flag(i, false), 3));
                }
            }
            for v in &values {
                let vw = words_of(v);
                if vw.is_empty() {
                    continue;
                }
                let value = Meaning::Value(i, v.clone());
                entries.push(Entry::plurals(&vw, value.clone(), 4));
                // "premium plan", "plan premium", "high priority".
                for cw in [&core, words] {
                    let mut before = Entry::plurals(&vw, value.clone(), 5);
                    before.words.extend(cw.iter().map(|w| (stem(w), Form::Stem)));
                    let mut after = Entry::stems(cw, value.clone(), 5);
                    after.words.extend(vw.iter().map(|w| (plural_stem(w), Form::Plural)));
                    entries.push(before);
                    entries.push(after);
                }
            }
            columns.push(ColumnInfo { name: c.name.clone(), kind: c.kind, class, unit, label, values });
        }

        // Parts of short multi-word names that name one value only ("gervasi" → Sarrià-Sant
        // Gervasi, "hebron" → Vall d'Hebron) — not words of longer texts ("personal" in a subject
        // line) nor words that mean the data itself ("data" in `data_export`).
        let mut parts: Vec<(String, usize, String)> = Vec::new();
        for (i, c) in columns.iter().enumerate().filter(|(_, c)| c.values.len() <= 50) {
            for v in &c.values {
                let vw = words_of(v);
                if (2..=3).contains(&vw.len()) {
                    for w in vw.iter().filter(|w| {
                        w.len() >= 4 && !w.chars().all(|ch| ch.is_ascii_digit()) && !GENERIC_PARTS.contains(&w.as_str())
                    }) {
                        parts.push((plural_stem(w), i, v.clone()));
                    }
                }
            }
        }
        for (w, i, v) in &parts {
            let named_elsewhere = parts.iter().any(|(x, _, y)| x == w && y != v)
                || entries.iter().any(|e| e.words.len() == 1 && (e.words[0].0 == *w || e.words[0].0 == stem(w)));
            if !named_elsewhere {
                entries.push(Entry {
                    words: vec![(w.clone(), Form::Plural)],
                    meaning: Meaning::Value(*i, v.clone()),
                    strength: 1,
                });
            }
        }

        // The dataset's own name.
        let stem_words = words_of(dataset.name.rsplit_once('.').map_or(dataset.name.as_str(), |(s, _)| s));
        for ws in [&table_words, &stem_words] {
            if !ws.is_empty() {
                entries.push(Entry::plurals(ws, Meaning::Dataset, 3));
            }
            for w in ws.iter().filter(|w| w.len() > 2 && !GENERIC.contains(&w.as_str())) {
                entries.push(Entry::plurals(std::slice::from_ref(w), Meaning::Dataset, 0));
            }
        }
        for s in &entity_stems {
            entries.push(Entry { words: vec![(s.clone(), Form::Stem)], meaning: Meaning::Entity, strength: 2 });
        }
        let entity = match table_words.last() {
            Some(w) if entity_words.first() == Some(w) => w.clone(),
            _ => entity_words.first().map_or_else(|| "rows".to_owned(), |w| plural(w)),
        };
        let mut lex = Self { dataset: dataset.clone(), columns, entries, entity, rules: Vec::new() };
        lex.add_rules(&aware_core::runs::clarify::rules_in(&dataset.description));
        lex
    }

    /// Adds rules (phrase → column name); those naming no column of this dataset are ignored.
    pub fn add_rules(&mut self, rules: &[(String, String)]) {
        for (phrase, column) in rules {
            let Some(c) = self.columns.iter().position(|k| k.name.eq_ignore_ascii_case(column)) else { continue };
            let stems: Vec<String> = crate::text::tokenize(phrase).iter().map(|t| stem(&t.text)).collect();
            if !stems.is_empty() {
                self.rules.push((stems, c));
            }
        }
    }

    /// The column a rule says `words` mean.
    pub fn rule_for(&self, words: &[String]) -> Option<usize> {
        let stems: Vec<String> = words.iter().map(|w| stem(w)).collect();
        self.rules.iter().find(|(p, _)| *p == stems).map(|(_, c)| *c)
    }

    /// The columns of `class`.
    pub fn of_class(&self, class: Class) -> Vec<usize> {
        self.columns.iter().enumerate().filter(|(_, c)| c.class == class).map(|(i, _)| i).collect()
    }

    /// Date and timestamp columns.
    pub fn dates(&self) -> Vec<usize> {
        self.columns.iter().enumerate().filter(|(_, c)| c.is_date()).map(|(i, _)| i).collect()
    }
}

/// "apartment" → "apartments", "category" → "categories".
pub fn plural(word: &str) -> String {
    if word.ends_with('s') {
        word.to_owned()
    } else if let Some(base) = word.strip_suffix('y').filter(|b| !b.ends_with(['a', 'e', 'i', 'o', 'u'])) {
        format!("{base}ies")
    } else if word.ends_with("ch") || word.ends_with("sh") || word.ends_with('x') {
        format!("{word}es")
    } else {
        format!("{word}s")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use aware_core::dataset::{DatasetFormat, DatasetStatus};
    use aware_core::ids::{DatasetId, UserId};
    use aware_core::value::Column;

    pub(crate) fn dataset(table: &str, columns: &[(&str, &str)]) -> Dataset {
        Dataset {
            id: DatasetId::generate(),
            owner: UserId::local(),
            name: format!("{table}.csv"),
            table_name: table.to_owned(),
            format: DatasetFormat::Csv,
            status: DatasetStatus::Ready,
            row_count: 100,
            columns: columns.iter().map(|(n, t)| Column::new(*n, *t)).collect(),
            size_bytes: 1,
            version_hash: String::new(),
            error: None,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
            description: String::new(),
            column_notes: Vec::new(),
            lineage: None,
            origin: None,
        }
    }

    #[test]
    fn columns_get_classes_units_and_labels_from_their_names() {
        let d = dataset(
            "barcelona_apartments",
            &[
                ("listing_id", "BIGINT"),
                ("neighbourhood", "VARCHAR"),
                ("bedrooms", "BIGINT"),
                ("sqm", "BIGINT"),
                ("price_eur", "BIGINT"),
                ("has_terrace", "BOOLEAN"),
                ("listed_on", "DATE"),
            ],
        );
        let cats = [CategoricalColumn { column: "neighbourhood".into(), values: vec!["Gràcia".into()] }];
        let lex = Lexicon::new(&d, &cats);
        let c = |name: &str| lex.columns.iter().find(|c| c.name == name).unwrap().clone();
        assert_eq!(
            (c("price_eur").class, c("price_eur").unit, c("price_eur").label.as_str()),
            (Class::Money, Some(Unit::Currency('€')), "price")
        );
        assert_eq!((c("sqm").class, c("sqm").unit), (Class::Size, Some(Unit::SquareMetres)));
        assert_eq!(c("bedrooms").class, Class::Count);
        assert_eq!((c("has_terrace").class, c("has_terrace").label.as_str()), (Class::Flag, "terrace"));
        assert_eq!(c("neighbourhood").class, Class::Category);
        assert_eq!(c("listing_id").class, Class::Id);
        assert_eq!(lex.entity, "apartments");
        assert!(
            lex.entries.iter().any(|e| e.words == [(stem("listings"), Form::Stem)] && e.meaning == Meaning::Entity)
        );
        assert!(
            lex.entries
                .iter()
                .any(|e| e.words == [("gracia".to_owned(), Form::Plural)] && matches!(e.meaning, Meaning::Value(1, _)))
        );
    }
}
