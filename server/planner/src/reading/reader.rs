//! The reader's state over one question: its tokens, the spans they match, the words used so
//! far, and the small questions `interpret` asks of them.

use super::matching::match_spans;
use super::messages::{describe_meaning, or_list};
use super::words::*;
use super::{Choice, Reader, Span, Unread, repeated_key, shape};
use crate::lexicon::{Class, Lexicon, Meaning, Source, plural_stem};
use crate::text::{Token, stem};
use aware_domain::events::ClarificationKind;
use chrono::NaiveDate;

impl<'a> Reader<'a> {
    pub(super) fn new(lex: &'a Lexicon, tokens: Vec<Token>, today: NaiveDate) -> Result<Self, Unread> {
        let words: Vec<String> = tokens.iter().map(|t| t.text.clone()).collect();
        let mut spans = match_spans(lex, &words);
        add_letter_values(lex, &tokens, &mut spans);
        spans.sort_by_key(|s| s.start);
        prefer_amounts(&words, &mut spans);
        prefer_columns(&words, &mut spans);
        // A phrase naming two things equally is a question back — unless a rule the person
        // gave settles it.
        let mut starts: Vec<usize> = spans.iter().map(|s| s.start).collect();
        starts.dedup();
        let mut settled: Vec<(usize, Meaning)> = Vec::new();
        for start in starts {
            if let Some(meaning) = settle(lex, &tokens, &words, &spans, start)? {
                settled.push((start, meaning));
            }
        }
        spans.retain(|s| settled.iter().all(|(start, m)| s.start != *start || s.meaning == *m));
        let mut kept = one_meaning_per_place(spans);
        ids_naming_rows(lex, &words, &mut kept);
        let used = vec![false; tokens.len()];
        Ok(Self { lex, tokens, words, used, spans: kept, today, prev: None })
    }

    pub(super) fn word(&self, i: usize) -> &str {
        self.words.get(i).map_or("", String::as_str)
    }

    pub(super) fn span_at(&self, i: usize) -> Option<&Span> {
        self.spans.iter().find(|s| s.start == i)
    }

    pub(super) fn span_covering(&self, i: usize) -> Option<&Span> {
        self.spans.iter().find(|s| s.start <= i && i < s.end)
    }

    pub(super) fn mark(&mut self, from: usize, to: usize) {
        for u in &mut self.used[from..to.min(self.tokens.len())] {
            *u = true;
        }
    }

    pub(super) fn mark_span(&mut self, i: usize) {
        if let Some(s) = self.span_covering(i).cloned() {
            self.mark(s.start, s.end);
        }
    }

    /// The next position after `i` that is not a function word.
    pub(super) fn next_content(&self, mut i: usize) -> usize {
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
    pub(super) fn phrase_at(&self, i: usize, words: &[&str]) -> bool {
        words.iter().enumerate().all(|(k, w)| self.word(i + k) == *w)
    }

    pub(super) fn find_phrase(&self, words: &[&str]) -> Option<usize> {
        (0..self.tokens.len()).find(|&i| self.phrase_at(i, words) && !self.used[i])
    }

    pub(super) fn column_span(&self, i: usize) -> Option<usize> {
        match self.span_covering(i)?.meaning {
            Meaning::Column(c) => Some(c),
            Meaning::Dataset | Meaning::Entity | Meaning::Value(..) | Meaning::Flag(..) => None,
        }
    }

    /// Whether the words right after "how many" are the rows ("how many exam results do we have
    /// for Ms Patel's classes"), which are then counted whatever else is named.
    pub(super) fn counts_rows(&self) -> bool {
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
    pub(super) fn measure_said_as_verb(&self, column: usize) -> bool {
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
    pub(super) fn flag_said_as_plural(&self, column: usize) -> bool {
        self.spans.iter().any(|s| {
            matches!(s.meaning, Meaning::Flag(c, _) if c == column)
                && s.end - s.start == 1
                && self.word(s.start).ends_with('s')
                && !crate::text::words_of(&self.lex.columns[column].name).iter().any(|w| w == self.word(s.start))
        })
    }

    /// Whether the rows' word at `at` names the repeating key ("students" in a table of a row
    /// per student per subject) rather than the rows ("grades", "results").
    pub(super) fn names_key(&self, at: usize) -> bool {
        let Some(key) = repeated_key(self.lex) else { return false };
        let key_words = crate::text::words_of(&self.lex.columns[key].name);
        let said = stem(self.word(at));
        key_words.iter().any(|w| w != "id" && stem(w) == said)
            || crate::lexicon::entity_synonyms(key_words.first().map_or("", String::as_str))
                .iter()
                .any(|w| stem(w) == said)
    }

    /// Whether the question asks for the rows themselves ("show", "list", "which").
    pub(super) fn asks_for_rows(&self) -> bool {
        (0..self.tokens.len()).any(|i| {
            matches!(
                self.word(i),
                "show" | "list" | "display" | "which" | "who" | "what" | "give" | "find" | "see" | "rows" | "records"
            )
        })
    }

    /// The phrases the reading used through a link, as said, with what they were read as.
    pub(super) fn links(&self) -> Vec<(String, String)> {
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

    pub(super) fn take_word(&mut self, word: &str) -> bool {
        match (0..self.tokens.len()).find(|&i| self.word(i) == word && !self.used[i] && self.span_covering(i).is_none())
        {
            Some(i) => {
                self.used[i] = true;
                true
            }
            None => false,
        }
    }

    pub(super) fn take_phrase(&mut self, words: &[&str]) -> bool {
        match self.find_phrase(words) {
            Some(i) => {
                self.mark(i, i + words.len());
                true
            }
            None => false,
        }
    }
}

/// Adds to `spans` the single capital letters that are values of the data.
fn add_letter_values(lex: &Lexicon, tokens: &[Token], spans: &mut Vec<Span>) {
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
}

/// Reads a value whose words also name a numeric column as the column after an amount word.
fn prefer_amounts(words: &[String], spans: &mut [Span]) {
    // "total approved", "average claimed", "how much have we approved": the amount, not the
    // status `Approved`.
    let asks_amount = words.windows(2).any(|w| w[0] == "how" && w[1] == "much");
    for s in spans.iter_mut() {
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
}

/// Reads a value whose words are also its column's name as the column after a grouping word.
fn prefer_columns(words: &[String], spans: &mut [Span]) {
    // "by clinic", "which clinic", "how many clinics": the column, not its value `Clínic`.
    for s in spans.iter_mut() {
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
}

/// The meaning the phrase at `start` keeps when it names several things, if one is settled;
/// none when it names one; else a question back.
fn settle(
    lex: &Lexicon,
    tokens: &[Token],
    words: &[String],
    spans: &[Span],
    start: usize,
) -> Result<Option<Meaning>, Unread> {
    let here: Vec<&Span> = spans.iter().filter(|s| s.start == start).collect();
    if here.len() <= 1 {
        return Ok(None);
    }
    let said: Vec<&str> = tokens[here[0].start..here[0].end].iter().map(|t| t.raw.as_str()).collect();
    let options: Vec<String> = here.iter().map(|s| describe_meaning(lex, &s.meaning)).collect();
    // The dataset's own name and one of its columns: the column is meant.
    let non_dataset: Vec<&&Span> =
        here.iter().filter(|s| !matches!(s.meaning, Meaning::Dataset | Meaning::Entity)).collect();
    if non_dataset.len() <= 1 {
        return Ok(None);
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
            return Ok(Some(date.meaning.clone()));
        }
    }
    if let Some(ruled) = lex.rule_for(&words[here[0].start..here[0].end])
        && let Some(keep) = non_dataset.iter().find(|s| column_of(&s.meaning) == Some(ruled))
    {
        return Ok(Some(keep.meaning.clone()));
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
        && non_dataset.iter().all(|s| matches!(s.meaning, Meaning::Column(c) if lex.columns[c].is_numeric()))
    {
        return Ok(Some(keep.meaning.clone()));
    }
    // "the total amount claimed": one of the columns is named again elsewhere.
    let elsewhere: Vec<&&Span> = non_dataset
        .iter()
        .copied()
        .filter(|s| {
            spans.iter().any(|o| {
                o.start != start && column_of(&o.meaning).is_some() && column_of(&o.meaning) == column_of(&s.meaning)
            })
        })
        .collect();
    if let [keep] = elsewhere.as_slice() {
        return Ok(Some(keep.meaning.clone()));
    }
    Err(question_back(lex, &said, &options, &non_dataset))
}

/// The question back for words (`said`) that could mean any of `options`: a choice of columns
/// or values when each is a different column, else in words.
fn question_back(lex: &Lexicon, said: &[&str], options: &[String], non_dataset: &[&&Span]) -> Unread {
    let question = format!("“{}” could mean {}. Which one do you mean?", said.join(" "), or_list(options));
    let columns: Vec<usize> = non_dataset.iter().filter_map(|s| column_of(&s.meaning)).collect();
    let all_columns = non_dataset.iter().all(|s| matches!(s.meaning, Meaning::Column(_)));
    let value = match non_dataset[0].meaning {
        Meaning::Value(_, ref v) if non_dataset.iter().all(|s| matches!(s.meaning, Meaning::Value(..))) => {
            Some(v.clone())
        }
        Meaning::Dataset | Meaning::Entity | Meaning::Column(_) | Meaning::Value(..) | Meaning::Flag(..) => None,
    };
    let mut distinct = columns.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() == columns.len() && (all_columns || value.is_some()) {
        return Unread::Choose(Box::new(Choice {
            kind: if value.is_some() { ClarificationKind::Value } else { ClarificationKind::Column },
            dataset: lex.dataset.table_name.clone(),
            phrase: said.join(" ").to_lowercase(),
            question,
            columns: columns.iter().map(|&c| lex.columns[c].name.clone()).collect(),
            value,
        }));
    }
    Unread::Ask(question)
}

/// The column a meaning is of, if any.
fn column_of(m: &Meaning) -> Option<usize> {
    match m {
        Meaning::Column(c) | Meaning::Value(c, _) => Some(*c),
        Meaning::Flag(..) | Meaning::Dataset | Meaning::Entity => None,
    }
}

/// The spans, one meaning kept per place.
fn one_meaning_per_place(spans: Vec<Span>) -> Vec<Span> {
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
    kept
}

/// Reads an id column's word right before the rows' word as the rows.
fn ids_naming_rows(lex: &Lexicon, words: &[String], kept: &mut [Span]) {
    // "meter readings", "customer orders": an id column's word right before the rows' word
    // names the rows, not the ids.
    for k in 0..kept.len() {
        let next_is_rows = kept.iter().any(|n| n.start == kept[k].end && n.meaning == Meaning::Entity)
            || words.get(kept[k].end).is_some_and(|w| ROW_WORDS.contains(&w.as_str()));
        if next_is_rows && matches!(kept[k].meaning, Meaning::Column(c) if lex.columns[c].class == Class::Id) {
            kept[k].meaning = Meaning::Entity;
        }
    }
}
