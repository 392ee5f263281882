//! What a question's words match in a dataset's lexicon — spans, coverage, the phrases left
//! unread — and what kind of message it is (a follow-up, a period named).

use super::words::*;
use super::{Span, followup, shape};
use crate::lexicon::{Form, Lexicon, Meaning, Source, plural_stem};
use crate::text::{stem, tokenize};

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
pub(super) fn is_people(word: &str) -> bool {
    const PEOPLE: &[&str] =
        &["visitor", "user", "customer", "client", "person", "people", "patient", "student", "buyer"];
    PEOPLE.contains(&stem(word).as_str())
}

/// Whether the question names a month, quarter or half, whose year may come from the data.
pub fn names_a_period(question: &str) -> bool {
    tokenize(question).iter().any(|t| {
        super::words::month_number(&t.text).is_some()
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

pub(super) fn flush(run: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
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
pub(super) type Best = (usize, u8, Vec<(Meaning, Source)>);

/// Leftmost-longest matching of the vocabulary's phrases over the question's words. Function
/// words and cue words only count inside longer phrases.
pub(super) fn match_spans(lex: &Lexicon, words: &[String]) -> Vec<Span> {
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
