//! What the reader says when it asks back or refuses, in plain words.

use super::{Ask, Measure, Tally};
use crate::lexicon::{Class, Lexicon, Meaning, plural};
use aware_domain::query_plan::Aggregate;

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

pub(super) fn measure_name(lex: &Lexicon, m: &Measure) -> String {
    match m.per {
        Some(p) => format!("{} per {}", lex.columns[m.column].label, lex.columns[p].label),
        None => lex.columns[m.column].label.clone(),
    }
}

pub(super) fn numeric_columns(lex: &Lexicon) -> String {
    let names: Vec<&str> = lex
        .columns
        .iter()
        .filter(|c| c.is_numeric() && c.class != Class::Id && c.formula.is_none())
        .map(|c| c.name.as_str())
        .collect();
    if names.is_empty() { "no numeric columns".to_owned() } else { names.join(", ") }
}

pub(super) fn example_columns(lex: &Lexicon) -> String {
    let names: Vec<&str> = lex
        .columns
        .iter()
        .filter(|c| matches!(c.class, Class::Category | Class::Flag))
        .map(|c| c.name.as_str())
        .take(4)
        .collect();
    names.join(", ")
}

pub fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

pub(super) fn describe_meaning(lex: &Lexicon, m: &Meaning) -> String {
    match m {
        Meaning::Dataset => format!("the dataset {}", lex.dataset.table_name),
        Meaning::Entity => format!("the {}", lex.entity),
        Meaning::Column(c) | Meaning::Flag(c, _) => format!("the column {}", lex.columns[*c].name),
        Meaning::Value(c, v) => format!("{} “{v}”", lex.columns[*c].name),
    }
}

pub(super) fn describe_ask(lex: &Lexicon, ask: &Ask) -> String {
    match ask {
        Ask::Tally(Tally::Count) => format!("a count of {}", lex.entity),
        Ask::Tally(Tally::Distinct(c)) => format!("how many different {} there are", plural(&lex.columns[*c].label)),
        Ask::Tally(Tally::Aggregate(a, m)) => format!("the {} {}", agg_word(*a), lex.columns[m.column].label),
        Ask::Tally(Tally::PerRow(m)) => {
            format!("the {} per {}", lex.columns[m.column].label, crate::text::singular(&lex.entity))
        }
        Ask::Tally(Tally::Share(_)) => "a share".to_owned(),
        Ask::Rows(_) => format!("a list of {}", lex.entity),
    }
}

pub(super) fn not_understood(lex: &Lexicon, left: &[String], ask: &Ask) -> String {
    let quoted: Vec<String> = left.iter().map(|w| format!("“{w}”")).collect();
    let columns: Vec<String> = lex.stored().map(|c| format!("`{}`", lex.columns[c].name)).take(20).collect();
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
