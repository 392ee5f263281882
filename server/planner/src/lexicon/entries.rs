//! The entries of a new lexicon: what the rows are called, and the words for each column, its
//! values and flags, the dataset itself, and what a person taught — built by `Lexicon::new`.

use super::dictionary::{
    ANTONYMS, DESCRIPTION_FILLER, ENTITY_SYNONYMS, GENERIC, GENERIC_PARTS, IRREGULAR, QUALIFIERS, SYNONYMS, UNIT_WORDS,
};
use super::{Class, ColumnInfo, Entry, Form, Meaning, Source, plural, plural_stem};
use crate::text::{stem, words_of};
use aware_domain::dataset::Dataset;
use aware_domain::value::ValueKind;

/// What the rows are, from the table's words and the first column's: the stems of the words
/// naming them (with their synonyms'), and the plural an answer calls them by.
pub(super) fn rows_named(table_words: &[String], name_words: &[Vec<String>]) -> (Vec<String>, String) {
    let mut entity_words: Vec<String> = Vec::new();
    // The table's last noun, past years and qualifiers (`shipments_2025`,
    // `insurance_claims_fy24`, `grades_spring_term`).
    let noun =
        table_words.iter().rev().find(|w| !w.chars().any(|c| c.is_ascii_digit()) && !QUALIFIERS.contains(&w.as_str()));
    if let Some(last) =
        noun.filter(|w| w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && w.chars().all(char::is_alphabetic))
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
    let entity = match noun {
        Some(w) if entity_words.first() == Some(w) => w.clone(),
        _ => entity_words.first().map_or_else(|| "rows".to_owned(), |w| plural(w)),
    };
    (entity_stems, entity)
}

/// The words of a column's name (of `class`) that name its quantity: no unit, no has_/is_
/// prefix, no id word.
pub(super) fn core_words(words: &[String], class: Class) -> Vec<String> {
    // The words that name the quantity: no unit (a yes/no column keeps them: "readmitted
    // within 30 days"), no has_/is_ prefix.
    let mut core: Vec<String> = words.iter().filter(|w| !UNIT_WORDS.contains(&w.as_str())).cloned().collect();
    if class == Class::Flag && core.len() > 1 && matches!(core[0].as_str(), "has" | "is" | "was" | "can" | "did") {
        core.remove(0);
    }
    if core.is_empty() {
        core = words.to_vec();
    }
    if class == Class::Id {
        core.retain(|w| !matches!(w.as_str(), "id" | "uuid" | "key" | "code"));
    }
    core
}

/// How the column `name` is called in an answer, from its `core` words.
pub(super) fn label_of(name: &str, words: &[String], core: &[String], class: Class) -> String {
    // The label keeps the name's spelling: the words of `core`, as written.
    let shown = crate::text::display_words(name);
    let label_words: Vec<String> =
        words.iter().zip(&shown).filter(|(w, _)| core.contains(w)).map(|(_, d)| d.clone()).collect();
    if class == Class::Flag {
        // A yes/no column is said whole: "readmitted within 30 days".
        let mut whole = shown.clone();
        if whole.len() > 1 && matches!(whole[0].as_str(), "has" | "is" | "was" | "can" | "did") {
            whole.remove(0);
        }
        whole.join(" ")
    } else if label_words.is_empty() {
        name.to_owned()
    } else {
        label_words.join(" ")
    }
}

/// The entries naming column `i` by its name: the whole name, its core words, one word alone
/// and the general words for them; an id column by its core only.
pub(super) fn name_entries(
    i: usize,
    words: &[String],
    core: &[String],
    class: Class,
    meaning: &Meaning,
    used_by: &dyn Fn(&str) -> usize,
    entity_stems: &[String],
) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    // A single word names the column only when no other column and not the rows use it
    // (then it is weaker, and alone it is a question back: "charges" — monthly or total?).
    // "customer age band": "customer" alone is not the band.
    let banded = class == Class::Category
        && core.len() > 1
        && core
            .last()
            .is_some_and(|w| matches!(w.as_str(), "band" | "bands" | "bracket" | "range" | "tier" | "bucket"));
    let single = |w: &String| -> Option<u8> {
        if GENERIC.contains(&w.as_str()) || w.len() <= 2 {
            return None;
        }
        if banded && core.last() != Some(w) {
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
            entries.push(Entry::stems(core, meaning.clone(), 3));
        }
        // "age band" of `CustomerAgeBand`.
        if core.len() > 2 {
            entries.push(Entry::stems(&core[core.len() - 2..], meaning.clone(), 3));
        }
        for w in core {
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
                    entries.push(Entry::linked(&alt, meaning.clone(), 1, Source::Synonym));
                }
            }
        }
    } else if !core.is_empty() && i > 0 {
        // `customer_id` in a tickets table: "customers" counts distinct ids. (The first
        // column's id is the rows' own: its word names the rows.)
        entries.push(Entry::stems(core, meaning.clone(), 2));
    }
    entries
}

/// The entries naming column `i` by other words for what it holds: the verb of an amount,
/// people by their age, a flag's opposites, a duration's "time", its unit alone, and a one-word
/// flag with "in", "un" or "non" before it.
pub(super) fn form_entries(
    i: usize,
    kind: ValueKind,
    words: &[String],
    core: &[String],
    class: Class,
    meaning: &Meaning,
    used_by: &dyn Fn(&str) -> usize,
) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    // "total claimed", "how much was approved": the verb of a `<thing> amount` column.
    if class == Class::Money
        && core.len() >= 2
        && core.last().is_some_and(|w| matches!(w.as_str(), "amount" | "value" | "sum" | "total"))
    {
        let first = &core[0];
        let verb = if first.ends_with('e') { format!("{first}d") } else { format!("{first}ed") };
        // Matched as written: "claims" is the rows, "claimed" the amount.
        entries.push(Entry { source: Source::Synonym, ..Entry::plurals(&[verb], meaning.clone(), 3) });
    }
    // "kids under 18", "seniors": people by their age.
    if class == Class::Age {
        for w in [
            "kids",
            "children",
            "child",
            "minors",
            "teenagers",
            "teens",
            "adults",
            "seniors",
            "elderly",
            "patients aged",
        ] {
            let ws: Vec<String> = w.split_whitespace().map(str::to_owned).collect();
            entries.push(Entry::linked(&ws, meaning.clone(), 1, Source::Synonym));
        }
    }
    // "failed" is "passed" not holding.
    if class == Class::Flag
        && let Some((_, opposites)) = ANTONYMS.iter().find(|(k, _)| core.iter().any(|w| w == k))
    {
        for o in opposites.iter() {
            entries.push(Entry::linked(&[(*o).to_owned()], Meaning::Flag(i, false), 3, Source::Synonym));
        }
    }
    if class == Class::Duration {
        // "resolution time", "wait time", "time to settle".
        let mut phrase: Vec<String> = core.iter().filter(|w| *w != "time").cloned().collect();
        let mut before = vec!["time".to_owned()];
        before.extend(phrase.iter().cloned());
        phrase.push("time".to_owned());
        entries.push(Entry::stems(&phrase, meaning.clone(), 2));
        entries.push(Entry::stems(&before, meaning.clone(), 2));
    }
    // A unit of measure alone ("km", "hours") names the one column measured in it
    // (calendar words do not: "per month" is a period).
    for u in words
        .iter()
        .filter(|w| matches!(w.as_str(), "km" | "kg" | "hours" | "hrs" | "minutes" | "mins" | "kwh" | "kw" | "mwh"))
    {
        // (A unit several columns share is a question back, or their main one.)
        if (used_by(u) == 1 || matches!(u.as_str(), "kwh" | "kw" | "mwh")) && kind.is_numeric() {
            entries.push(Entry::stems(std::slice::from_ref(u), meaning.clone(), 1));
            // The unit spelled out: "per kilo", "per kilometre".
            let spelled: &[&str] = match u.as_str() {
                "kg" => &["kilo", "kilos", "kilogram", "kilograms"],
                "km" => &["kilometre", "kilometres", "kilometer", "kilometers"],
                _ => &[],
            };
            for s in spelled {
                entries.push(Entry::linked(&[(*s).to_owned()], meaning.clone(), 1, Source::Synonym));
            }
        }
    }
    if class == Class::Flag
        && let [only] = core
    {
        for prefix in ["in", "un", "non"] {
            entries.push(Entry::stems(&[format!("{prefix}{only}")], Meaning::Flag(i, false), 3));
        }
    }
    entries
}

/// The entries of column `i` when it is a text column of Y/N answers: its name says yes, with
/// "non" or "not" before it no.
pub(super) fn yes_no_entries(i: usize, core: &[String], values: &[String]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    // A text column of Y/N answers is a yes/no column said by its name ("fraud-suspected
    // claims" → FraudSuspected = 'Y').
    let yes = values.iter().find(|v| matches!(v.to_lowercase().as_str(), "y" | "yes" | "true" | "t"));
    let yes_no = values.len() == 2
        && yes.is_some()
        && values.iter().any(|v| matches!(v.to_lowercase().as_str(), "n" | "no" | "false" | "f"));
    if let (true, Some(y)) = (yes_no, yes) {
        entries.push(Entry::stems(core, Meaning::Value(i, y.clone()), 5));
        for w in core.iter().filter(|w| w.len() > 3) {
            entries.push(Entry::stems(std::slice::from_ref(w), Meaning::Value(i, y.clone()), 5));
        }
        if let Some(no) = values.iter().find(|v| *v != y) {
            for prefix in ["non", "not"] {
                let mut ws = vec![prefix.to_owned()];
                ws.extend(core.iter().cloned());
                entries.push(Entry::stems(&ws, Meaning::Value(i, no.clone()), 5));
            }
        }
    }
    entries
}

/// The entries naming each of column `i`'s values: its words, other forms of a verb, its words
/// run together, and with the column's name before or after.
pub(super) fn value_entries(i: usize, words: &[String], core: &[String], values: &[String]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for v in values {
        let vw = words_of(v);
        if vw.is_empty() {
            continue;
        }
        let value = Meaning::Value(i, v.clone());
        entries.push(Entry::plurals(&vw, value.clone(), 4));
        // "denies", "delaying" for `denied`, `delayed`; "loses" for `lost`.
        if vw.len() == 1 && (vw[0].ends_with("ed") || IRREGULAR.iter().any(|(p, _)| *p == vw[0])) {
            entries.push(Entry::linked(&vw, value.clone(), 3, Source::Synonym));
            if let Some((_, forms)) = IRREGULAR.iter().find(|(p, _)| *p == vw[0]) {
                for f in forms.iter() {
                    entries.push(Entry::linked(&[(*f).to_owned()], value.clone(), 3, Source::Synonym));
                }
            }
        }
        // "EuroHaul" typed as one word: "eurohaul".
        if vw.len() > 1 && !v.contains(char::is_whitespace) {
            entries.push(Entry::plurals(&[vw.concat()], value.clone(), 4));
        }
        // "premium plan", "plan premium", "high priority".
        for cw in [core, words] {
            let mut before = Entry::plurals(&vw, value.clone(), 5);
            before.words.extend(cw.iter().map(|w| (stem(w), Form::Stem)));
            let mut after = Entry::stems(cw, value.clone(), 5);
            after.words.extend(vw.iter().map(|w| (plural_stem(w), Form::Plural)));
            entries.push(before);
            entries.push(after);
        }
    }
    entries
}

/// Adds to `entries` the parts of values that name one value only.
pub(super) fn add_value_parts(columns: &[ColumnInfo], entries: &mut Vec<Entry>) {
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
                source: Source::Name,
            });
        }
    }
}

/// The entries naming the dataset: its table's name and its file's, whole and word by word.
pub(super) fn dataset_entries(dataset: &Dataset, table_words: &[String]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    // The dataset's own name.
    let stem_words = words_of(dataset.name.rsplit_once('.').map_or(dataset.name.as_str(), |(s, _)| s));
    for ws in [table_words, &stem_words] {
        if !ws.is_empty() {
            entries.push(Entry::plurals(ws, Meaning::Dataset, 3));
        }
        // (A year in a name, `shipments_2025`, is no name: "sessions in April 2025".)
        for w in ws
            .iter()
            .filter(|w| w.len() > 2 && !GENERIC.contains(&w.as_str()) && !w.chars().all(|c| c.is_ascii_digit()))
        {
            entries.push(Entry::plurals(std::slice::from_ref(w), Meaning::Dataset, 0));
            // `web_sessions` is the website's.
            if w == "web" {
                for alt in ["website", "webshop", "online"] {
                    entries.push(Entry::plurals(&[alt.to_owned()], Meaning::Dataset, 0));
                }
            }
        }
    }
    entries
}

/// The entries naming the values of a sex or gender column by the words for people.
pub(super) fn sex_entries(columns: &[ColumnInfo]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    // "women", "men": the values of a sex or gender column.
    for (i, c) in columns.iter().enumerate() {
        if !words_of(&c.name).iter().any(|w| matches!(w.as_str(), "sex" | "gender")) {
            continue;
        }
        for v in &c.values {
            let said: &[&str] = match crate::text::fold(v).as_str() {
                "f" | "female" | "woman" | "w" => &["women", "woman", "female", "females", "girls", "ladies"],
                "m" | "male" | "man" => &["men", "man", "male", "males", "boys", "gentlemen"],
                _ => continue,
            };
            for w in said {
                entries.push(Entry::linked(&[(*w).to_owned()], Meaning::Value(i, v.clone()), 4, Source::Synonym));
            }
        }
    }
    entries
}

/// The entries the columns' descriptions teach.
pub(super) fn taught_entries(
    dataset: &Dataset,
    columns: &[ColumnInfo],
    name_words: &[Vec<String>],
    entity_stems: &[String],
) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    // What each column's description says it is ("sales revenue of the order"): its words
    // name the column, as the person taught.
    for note in &dataset.column_notes {
        let Some(i) = columns.iter().position(|c| c.name == note.column) else { continue };
        let meaning = if columns[i].class == Class::Flag { Meaning::Flag(i, true) } else { Meaning::Column(i) };
        let content: Vec<String> = words_of(&note.description)
            .into_iter()
            .filter(|w| w.len() > 2 && !DESCRIPTION_FILLER.contains(&w.as_str()) && !entity_stems.contains(&stem(w)))
            .collect();
        if (1..=4).contains(&content.len()) {
            entries.push(Entry::linked(&content, meaning.clone(), 3, Source::Taught));
        }
        for w in &content {
            // A word of another column's name stays that column's.
            if !name_words.iter().enumerate().any(|(k, ws)| k != i && ws.contains(w)) {
                entries.push(Entry::linked(std::slice::from_ref(w), meaning.clone(), 2, Source::Taught));
            }
        }
    }
    entries
}
