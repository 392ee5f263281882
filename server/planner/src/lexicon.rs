//! The vocabulary of one dataset: what its table name, columns, categorical values and flags are
//! called in questions. Built from the schema and the data's own values, with a small general
//! dictionary of how people name common measures ("cost" for `price_eur`, "square metre" for
//! `sqm`) — never from knowledge of particular datasets.

mod arithmetic;
mod columns;
mod derived;
mod dictionary;
mod entries;

pub use derived::Formula;
pub use dictionary::{entity_synonyms, plural, plural_stem};

use dictionary::QUALIFIERS;

use columns::{class_of, unit_of};
use entries::{
    add_value_parts, core_words, dataset_entries, form_entries, label_of, name_entries, rows_named, sex_entries,
    taught_entries, value_entries, yes_no_entries,
};

use crate::text::{stem, words_of};
use aware_domain::dataset::Dataset;
use aware_domain::ports::categories::CategoricalColumn;
use aware_domain::value::ValueKind;

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
    /// For a date column: its first and last date in the data, when known.
    pub span: Option<(chrono::NaiveDate, chrono::NaiveDate)>,
    /// For a numeric column: its smallest and largest value, when known (a rate stored as a
    /// fraction reads "80%" as 0.8).
    pub range: Option<(f64, f64)>,
    /// For a measure the data does not store: how it is computed from the columns.
    pub formula: Option<Formula>,
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
    pub source: Source,
}

/// Why a phrase means what it means: the data's own names, or a link an answer must state
/// ("I read “sold” as units") so a wrong one is seen and corrected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The column's, value's or dataset's own words.
    Name,
    /// A general word for it ("cost" for a price, "sold" for units).
    Synonym,
    /// The person said so (a memory, a column's description).
    Taught,
    /// Close in meaning (embeddings), and clearly closer than anything else.
    Meaning,
}

impl Entry {
    fn stems(words: &[String], meaning: Meaning, strength: u8) -> Self {
        Self { words: words.iter().map(|w| (stem(w), Form::Stem)).collect(), meaning, strength, source: Source::Name }
    }

    fn plurals(words: &[String], meaning: Meaning, strength: u8) -> Self {
        Self {
            words: words.iter().map(|w| (plural_stem(w), Form::Plural)).collect(),
            meaning,
            strength,
            source: Source::Name,
        }
    }

    pub(crate) fn linked(words: &[String], meaning: Meaning, strength: u8, source: Source) -> Self {
        Self { source, ..Self::stems(words, meaning, strength) }
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
        let (entity_stems, entity) = rows_named(&table_words, &name_words);

        for (i, c) in dataset.columns.iter().enumerate() {
            let words = &name_words[i];
            let values = categories.iter().find(|k| k.column == c.name).map(|k| k.values.clone()).unwrap_or_default();
            let class = class_of(words, c.kind, !values.is_empty());
            let unit = unit_of(words).filter(|_| c.kind.is_numeric());
            let core = core_words(words, class);
            let label = label_of(&c.name, words, &core, class);
            let meaning = if class == Class::Flag { Meaning::Flag(i, true) } else { Meaning::Column(i) };
            entries.extend(name_entries(i, words, &core, class, &meaning, &used_by, &entity_stems));
            entries.extend(form_entries(i, c.kind, words, &core, class, &meaning, &used_by));
            entries.extend(yes_no_entries(i, &core, &values));
            entries.extend(value_entries(i, words, &core, &values));
            columns.push(ColumnInfo {
                name: c.name.clone(),
                kind: c.kind,
                class,
                unit,
                label,
                values,
                span: None,
                range: None,
                formula: None,
            });
        }

        add_value_parts(&columns, &mut entries);
        entries.extend(dataset_entries(dataset, &table_words));
        for s in &entity_stems {
            entries.push(Entry {
                words: vec![(s.clone(), Form::Stem)],
                meaning: Meaning::Entity,
                strength: 2,
                source: Source::Name,
            });
        }
        entries.extend(sex_entries(&columns));
        entries.extend(taught_entries(dataset, &columns, &name_words, &entity_stems));
        let mut lex = Self { dataset: dataset.clone(), columns, entries, entity, rules: Vec::new() };
        derived::add(&mut lex);
        lex.add_rules(&aware_core::runs::tools::ask::rules_in(&dataset.description));
        lex
    }

    /// The measures `question` computes from the columns ("consumption minus solar", "total
    /// cost over total days"), as computed columns for that question.
    pub fn add_arithmetic(&mut self, question: &str) {
        arithmetic::add(self, question);
    }

    /// What the person taught about words, from their memories ("revenue means amount_usd",
    /// "by earn I mean salary_usd", "sales = amount"): the words then name that column, above
    /// anything the lexicon guessed. Memories about other columns or datasets change nothing.
    pub fn add_memories(&mut self, memories: &[String]) {
        for m in memories {
            let Some((phrase, target)) = taught(m) else { continue };
            let target_words = words_of(&target);
            let Some(c) = (0..self.columns.len()).find(|&c| {
                self.columns[c].name.eq_ignore_ascii_case(target.trim())
                    || words_of(&self.columns[c].name) == target_words
                    || crate::text::fold(&self.columns[c].label) == crate::text::fold(target.trim())
            }) else {
                continue;
            };
            let ws: Vec<String> = crate::text::tokenize(&phrase).into_iter().map(|t| t.text).collect();
            if ws.is_empty() || ws.len() > 4 {
                continue;
            }
            let meaning =
                if self.columns[c].class == Class::Flag { Meaning::Flag(c, true) } else { Meaning::Column(c) };
            self.entries.push(Entry::linked(&ws, meaning, 6, Source::Taught));
        }
    }

    /// Takes each date column's first and last date from the data's profile.
    pub fn add_spans(&mut self, statistics: &aware_domain::dataset::DatasetStatistics) {
        use aware_domain::value::Value;
        let date = |v: &Value| match v {
            Value::Date(d) => aware_domain::value::day(*d),
            Value::Timestamp(us) => chrono::DateTime::from_timestamp_micros(*us).map(|t| t.date_naive()),
            Value::String(s) => chrono::NaiveDate::parse_from_str(s.get(..10).unwrap_or_default(), "%Y-%m-%d").ok(),
            Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Double(_)
            | Value::Decimal(_)
            | Value::Time(_)
            | Value::Bytes(_)
            | Value::Text(_) => None,
        };
        for c in self.columns.iter_mut().filter(|c| c.is_date()) {
            if let Some(s) = statistics.columns.iter().find(|s| s.name == c.name)
                && let (Some(a), Some(b)) = (date(&s.min), date(&s.max))
            {
                c.span = Some((a, b));
            }
        }
        for c in self.columns.iter_mut().filter(|c| c.is_numeric() && c.formula.is_none()) {
            if let Some(s) = statistics.columns.iter().find(|s| s.name == c.name)
                && let (Some(a), Some(b)) = (s.min.number(), s.max.number())
            {
                c.range = Some((a, b));
            }
        }
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

    /// Whether the table's name ends with a qualifier after what its rows are (`sales_q1`,
    /// `shipments_2025`): an answer then names the table, which may have siblings.
    pub fn qualified_name(&self) -> bool {
        words_of(&self.dataset.table_name)
            .last()
            .is_some_and(|w| w.chars().any(|c| c.is_ascii_digit()) || QUALIFIERS.contains(&w.as_str()))
    }

    /// The stored columns (not the computed ones), by index.
    pub fn stored(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.columns.len()).filter(|&c| self.columns[c].formula.is_none())
    }

    /// The columns of `class`.
    pub fn of_class(&self, class: Class) -> Vec<usize> {
        self.columns.iter().enumerate().filter(|(_, c)| c.class == class).map(|(i, _)| i).collect()
    }

    /// Of several date columns, the one a period with no date named goes by: the one whose
    /// name says it starts what the rows record (`ship_date` beside `delivery_date`,
    /// `Admission Date` beside `Discharge Date`), when exactly one does.
    pub fn event_date(&self) -> Option<usize> {
        let dates = self.dates();
        if let [only] = dates.as_slice() {
            return Some(*only);
        }
        let has = |c: usize, list: &[&str]| words_of(&self.columns[c].name).iter().any(|w| list.contains(&w.as_str()));
        let starts: Vec<usize> =
            dates.iter().copied().filter(|&c| has(c, derived::STARTS) && !has(c, derived::ENDS)).collect();
        // Only when every other date plainly ends what it started (delivery, discharge).
        match starts.as_slice() {
            [one] if dates.iter().all(|&c| c == *one || (has(c, derived::ENDS) && !has(c, derived::STARTS))) => {
                Some(*one)
            }
            _ => None,
        }
    }

    /// Date and timestamp columns.
    pub fn dates(&self) -> Vec<usize> {
        self.columns.iter().enumerate().filter(|(_, c)| c.is_date()).map(|(i, _)| i).collect()
    }
}

/// A memory that defines a word: "revenue means amount_usd", "by earn I mean salary", "when I say
/// sales I mean amount", "sales = amount", "revenue refers to amount_usd" → (the word, what it means).
fn taught(memory: &str) -> Option<(String, String)> {
    let m = memory.trim().trim_end_matches(['.', '!']);
    let lower = m.to_lowercase();
    for sep in [" means ", " refers to ", " is short for ", " stands for ", " = "] {
        if let Some(at) = lower.find(sep) {
            let phrase = m[..at].trim().trim_matches(['"', '\'', '“', '”', '‘', '’']);
            let phrase = phrase
                .strip_prefix("by ")
                .or_else(|| phrase.strip_prefix("when I say "))
                .or_else(|| phrase.strip_prefix("when i say "))
                .unwrap_or(phrase);
            let target = m[at + sep.len()..].trim().trim_matches(['"', '\'', '“', '”', '‘', '’']);
            let target = target.strip_prefix("the column ").unwrap_or(target);
            return (!phrase.is_empty() && !target.is_empty()).then(|| (phrase.to_owned(), target.to_owned()));
        }
    }
    for lead in ["by ", "when i say "] {
        if let Some(rest) = lower.strip_prefix(lead)
            && let Some(at) = rest.find(" i mean ")
        {
            let start = lead.len();
            return Some((m[start..start + at].trim().to_owned(), m[start + at + 8..].trim().to_owned()));
        }
    }
    None
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use aware_domain::dataset::{DatasetFormat, DatasetStatus};
    use aware_domain::ids::{DatasetId, UserId};
    use aware_domain::value::Column;

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
    fn a_memory_that_defines_a_word_names_its_column() {
        assert_eq!(taught("revenue means amount_usd"), Some(("revenue".into(), "amount_usd".into())));
        assert_eq!(taught("By earn I mean salary_usd."), Some(("earn".into(), "salary_usd".into())));
        assert_eq!(taught("when I say sales I mean amount"), Some(("sales".into(), "amount".into())));
        assert_eq!(taught("our fiscal year starts in April"), None);
        let d = dataset("orders", &[("order_id", "VARCHAR"), ("amount_usd", "DOUBLE"), ("fee_usd", "DOUBLE")]);
        let mut lex = Lexicon::new(&d, &[]);
        lex.add_memories(&["revenue means amount_usd".to_owned(), "tips means the column nope".to_owned()]);
        let revenue: Vec<&Entry> = lex
            .entries
            .iter()
            .filter(|e| e.words == [(stem("revenue"), Form::Stem)] && e.source == Source::Taught)
            .collect();
        assert!(matches!(revenue.as_slice(), [e] if e.meaning == Meaning::Column(1) && e.source == Source::Taught));
        assert!(
            !lex.entries.iter().any(|e| e.words == [(stem("tips"), Form::Stem)]),
            "a memory about no column adds nothing"
        );
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
