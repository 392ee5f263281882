//! Measures the question itself computes: "consumption minus solar", "the gap between coursework
//! and test score", "total freight cost over total distance", "overall, what are we paying per
//! kWh", "the days between the incident and the claim being filed". Each becomes a computed
//! column of the lexicon for that question, named by the question's own words, so the reader
//! reads it like any other and the answer states how it was computed.

use super::derived::Formula;
use super::{Class, ColumnInfo, Entry, Lexicon, Meaning, Source};
use crate::text::tokenize;
use aware_domain::query_plan::Operator;
use aware_domain::value::ValueKind;

/// Adds to `lex` the measures `question` computes from its columns.
pub(super) fn add(lex: &mut Lexicon, question: &str) {
    let words: Vec<String> = tokenize(question).into_iter().map(|t| t.text).collect();
    let spans: Vec<(usize, usize, usize)> = crate::reading::column_spans(lex, &words)
        .into_iter()
        .filter(|(_, _, c)| lex.columns[*c].is_numeric() || lex.columns[*c].is_date())
        .collect();
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let mut found: Vec<(usize, usize, Formula, String)> = Vec::new();
    for pair in spans.windows(2) {
        let ((_, _, a), (_, _, b)) = (pair[0], pair[1]);
        if a == b {
            continue;
        }
        let dates = lex.columns[a].is_date() && lex.columns[b].is_date();
        // "between the incident and the claim being filed", "from ship date to delivery".
        if dates {
            if let Some(entry) = days_between(lex, &words, pair[0], pair[1]) {
                lex.entries.push(entry);
            }
            continue;
        }
        if lex.columns[a].is_date() || lex.columns[b].is_date() {
            continue;
        }
        found.extend(computed_between(&words, pair[0], pair[1]));
    }
    // "overall, what are we paying per kWh": what is paid, over the whole of the other.
    let per: Vec<(usize, usize, usize)> =
        spans.iter().copied().filter(|(s, _, _)| *s > 0 && word(s - 1) == "per").collect();
    // Of columns in the same words ("kWh"), the main one.
    let per = per.iter().copied().find(|(_, _, c)| crate::reading::primary_measure(lex, *c)).or(per.first().copied());
    if words.iter().any(|w| w == "overall")
        && let Some((s, e, b)) = per
        && !found.iter().any(|(fs, fe, f, _)| (*fs < e && s < *fe) || matches!(f, Formula::Totals(..)))
    {
        let money: Vec<usize> = (0..lex.columns.len())
            .filter(|&c| lex.columns[c].class == Class::Money && lex.columns[c].formula.is_none() && c != b)
            .collect();
        if let [a] = money.as_slice() {
            found.push((s - 1, e, totals_of(*a, b), "per".into()));
        }
    }
    for (start, end, formula, said) in found {
        add_computed(lex, &words, start, end, formula, said);
    }
}

/// The entry naming the days between two date columns by the words that join them ("between
/// the incident and the claim being filed"), when the lexicon has that computed column.
fn days_between(
    lex: &Lexicon,
    words: &[String],
    (s1, e1, a): (usize, usize, usize),
    (s2, e2, b): (usize, usize, usize),
) -> Option<Entry> {
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let gap: Vec<&str> = (e1..s2).map(word).collect();
    let before = |k: usize| s1.checked_sub(k).map_or("", word);
    let joined = matches!(gap.as_slice(), ["and", ..] | ["to", ..]) && gap.len() <= 4;
    let lead = (1..=3).map(before).find(|w| matches!(*w, "between" | "from"));
    if joined && lead.is_some() {
        let between = |c: &ColumnInfo| match &c.formula {
            Some(Formula::Op(Operator::DaysBetween, x, y)) => {
                matches!((&**x, &**y), (Formula::Column(p), Formula::Column(q)) if (*p, *q) == (a, b) || (*p, *q) == (b, a))
            }
            _ => false,
        };
        if let Some(d) = lex.columns.iter().position(between) {
            let start = (1..=3).find(|k| matches!(before(*k), "between" | "from")).map_or(s1, |k| s1 - k);
            let ws: Vec<String> = words[start..e2].to_vec();
            return Some(Entry { source: Source::Name, ..Entry::plurals(&ws, Meaning::Column(d), 7) });
        }
    }
    None
}

/// The measures the words between two numeric columns compute ("consumption minus solar", "total
/// cost over total distance"): the words each takes, its formula, and how it is said.
fn computed_between(
    words: &[String],
    (s1, e1, a): (usize, usize, usize),
    (s2, e2, b): (usize, usize, usize),
) -> Vec<(usize, usize, Formula, String)> {
    let mut found: Vec<(usize, usize, Formula, String)> = Vec::new();
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let gap: Vec<&str> = (e1..s2).map(word).collect();
    let before = |k: usize| s1.checked_sub(k).map_or("", word);
    let totals = gap.contains(&"total") || words.iter().any(|w| w == "overall");
    let op = match gap
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "the" | "total" | "a" | "our" | "for" | "year" | "in" | "of" | "whole"))
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["minus"] | ["less"] | ["after", "subtracting"] | ["net"] | ["after", "deducting"] => Some(Operator::Sub),
        ["plus"] => Some(Operator::Add),
        ["times"] | ["multiplied", "by"] | ["x"] => Some(Operator::Mul),
        ["divided", "by"] | ["over"] if totals => {
            found.push((if before(1) == "total" { s1 - 1 } else { s1 }, e2, totals_of(a, b), "divided by".into()));
            None
        }
        ["divided", "by"] | ["over"] => Some(Operator::Div),
        // "divide total cost by total distance".
        ["by"] if (1..=2).any(|k| matches!(before(k), "divide" | "dividing")) => {
            let k = if matches!(before(1), "divide" | "dividing") { 1 } else { 2 };
            let f = if totals || before(1) == "total" {
                totals_of(a, b)
            } else {
                Formula::op(Operator::Div, Formula::Column(a), Formula::Column(b))
            };
            found.push((s1 - k, e2, f, "divided by".into()));
            None
        }
        // "consumption once solar generation is subtracted".
        [w] if matches!(*w, "once" | "after" | "with" | "when") => {
            let mut k = e2;
            if matches!(word(k), "is" | "are" | "been" | "gets" | "get") {
                k += 1;
            }
            if matches!(word(k), "subtracted" | "deducted" | "removed" | "netted") {
                found.push((
                    s1,
                    k + 1,
                    Formula::op(Operator::Sub, Formula::Column(a), Formula::Column(b)),
                    "minus".into(),
                ));
            }
            None
        }
        ["and"] if matches!(before(1), "between") && matches!(before(2), "gap" | "difference") => {
            found.push((
                s1 - 3,
                e2,
                Formula::op(Operator::Sub, Formula::Column(a), Formula::Column(b)),
                "minus".into(),
            ));
            None
        }
        _ => None,
    };
    if let Some(op) = op {
        let name = match op {
            Operator::Sub => "minus",
            Operator::Add => "plus",
            Operator::Mul => "times",
            Operator::Div | Operator::DaysBetween => "divided by",
        };
        found.push((s1, e2, Formula::op(op, Formula::Column(a), Formula::Column(b)), name.into()));
    }
    found
}

/// Adds to `lex` the computed column `formula`, said as `said` between its columns' names, and
/// the entry naming it by the question's words `start..end`.
fn add_computed(lex: &mut Lexicon, words: &[String], start: usize, end: usize, formula: Formula, said: String) {
    let (a, b) = match &formula {
        Formula::Op(_, x, y) | Formula::Totals(x, y) => (x.first_column(), y.first_column()),
        Formula::Column(_) | Formula::Number(_) => return,
    };
    let (Some(a), Some(b)) = (a, b) else { return };
    let first = &lex.columns[a];
    let label = format!("{} {said} {}", first.label, lex.columns[b].label);
    let name: String = label.chars().map(|c| if c.is_alphanumeric() { c } else { '_' }).collect();
    let ratio = matches!(formula, Formula::Totals(..) | Formula::Op(Operator::Div, ..));
    let info = ColumnInfo {
        name,
        kind: ValueKind::Double,
        class: if ratio { Class::Number } else { first.class },
        unit: if ratio { None } else { first.unit },
        label,
        values: Vec::new(),
        span: None,
        range: None,
        formula: Some(formula),
    };
    let at = lex.columns.len();
    lex.columns.push(info);
    let ws: Vec<String> = words[start..end].to_vec();
    lex.entries.push(Entry { source: Source::Name, ..Entry::plurals(&ws, Meaning::Column(at), 7) });
}

fn totals_of(a: usize, b: usize) -> Formula {
    Formula::Totals(Box::new(Formula::Column(a)), Box::new(Formula::Column(b)))
}
