//! Number provenance: every number in a run's answer matched, deterministically, to where it came
//! from — a cell of a tool result, an aggregate of a result's column (count, sum, mean, min, max,
//! a row's share of the total), a number in a summary the model was given, or the question
//! itself — or marked `ungrounded`. Tolerates what writing a number does to it: rounding to the
//! digits shown, thousands separators, `k`/`M`/`million` scales, percentages of fractions, signs
//! dropped in words ("fell by 5%"). It understands digits only: numbers in words ("three") and
//! numbers inside identifiers (`q1`, `price_2024`), code spans, list markers and ordinals ("3rd")
//! are not claims it checks. An answer with ungrounded numbers is flagged, never failed.
use aware_domain::events::RichResult;
use aware_domain::grounding::{Grounding, NumberClaim, NumberSource};
use aware_domain::value::{Table, Value};
use serde_json::Value as Json;

/// A tool result of the run, as the log holds it.
pub struct Evidence<'a> {
    pub seq: u64,
    pub tool_call_id: &'a str,
    pub tool_name: &'a str,
    /// The text the model was given.
    pub summary: &'a str,
    pub rich: Option<&'a RichResult>,
}

/// Matches every number of `answer` to `evidence` (in order of preference: cells and fields of
/// results, then the summaries the model was given, then aggregates, then the question and the
/// run's date, `today`, which the model is told and relative periods are computed from).
pub fn ground(answer: &str, question: &str, today: chrono::NaiveDate, evidence: &[Evidence<'_>]) -> Grounding {
    let claims = numbers_in(answer);
    if claims.is_empty() {
        return Grounding::default();
    }
    let mut candidates = Vec::new();
    for e in evidence {
        let source = |location: String, value: String| NumberSource {
            seq: e.seq,
            tool_call_id: e.tool_call_id.to_owned(),
            tool_name: e.tool_name.to_owned(),
            location,
            value,
        };
        if let Some(rich) = e.rich {
            rich_candidates(rich, &mut |priority, value, location, stored| {
                candidates.push(Candidate { priority, value, source: source(location, stored) });
            });
        }
        for n in numbers_in(e.summary) {
            let source = source("the summary the model was given".to_owned(), n.text.clone());
            candidates.push(Candidate { priority: 1, value: n.value, source });
        }
    }
    for n in numbers_in(question) {
        let source = NumberSource {
            seq: 0,
            tool_call_id: String::new(),
            tool_name: String::new(),
            location: "the question".to_owned(),
            value: n.text.clone(),
        };
        candidates.push(Candidate { priority: 3, value: n.value, source });
    }
    {
        use chrono::Datelike;
        let text = today.format("%Y-%m-%d").to_string();
        for part in [today.year(), today.month() as i32, today.day() as i32] {
            let source = NumberSource {
                seq: 0,
                tool_call_id: String::new(),
                tool_name: String::new(),
                location: "today's date".to_owned(),
                value: text.clone(),
            };
            candidates.push(Candidate { priority: 3, value: f64::from(part), source });
        }
    }
    candidates.sort_by_key(|c| c.priority);
    let numbers = claims
        .into_iter()
        .map(|claim| {
            let source = candidates.iter().find(|c| claim.matches(c.value)).map(|c| c.source.clone());
            NumberClaim { text: claim.text, value: claim.value, start: claim.start, end: claim.end, source }
        })
        .collect();
    Grounding { numbers, citations: None }
}

struct Candidate {
    /// 0: a cell or field; 1: a summary; 2: an aggregate; 3: the question.
    priority: u8,
    value: f64,
    source: NumberSource,
}

/// A number as written: its value, the digits after its point, its scale and whether it is a
/// percentage.
#[derive(Clone, Debug, PartialEq)]
struct Written {
    text: String,
    value: f64,
    decimals: i32,
    scale: f64,
    percent: bool,
    start: u32,
    end: u32,
}

impl Written {
    /// Whether `x` reads as this number at the precision it is written with.
    fn matches(&self, x: f64) -> bool {
        if !x.is_finite() {
            return false;
        }
        let tolerance = 0.5 * 10f64.powi(-self.decimals) * self.scale * (1.0 + 1e-9) + 1e-9 * self.value.abs();
        let near = |y: f64| (y - self.value).abs() <= tolerance || (y.abs() - self.value.abs()).abs() <= tolerance;
        near(x) || (self.percent && near(x * 100.0))
    }
}

/// The candidates of one rich result: `push(priority, value, location, stored text)`.
fn rich_candidates(rich: &RichResult, push: &mut dyn FnMut(u8, f64, String, String)) {
    match rich {
        RichResult::Table { table, executed_sql } => {
            table_candidates(table, push);
            for n in numbers_in(executed_sql) {
                push(1, n.value, "the SQL that ran".to_owned(), n.text);
            }
        }
        RichResult::Statistics { statistics } => {
            if let Ok(json) = serde_json::to_value(statistics) {
                json_candidates(&json, "statistics", push);
            }
            if statistics.row_count > 0 {
                let rows = statistics.row_count as f64;
                for c in &statistics.columns {
                    let share = c.null_count as f64 / rows;
                    push(2, share, format!("share of rows where {} is missing", c.name), share.to_string());
                }
            }
        }
        RichResult::DatasetDetail { dataset, sample } => {
            if let Some(sample) = sample {
                table_candidates(sample, push);
            }
            if let Ok(json) = serde_json::to_value(dataset) {
                json_candidates(&json, "dataset", push);
            }
        }
        // A number an answer quotes from a document is grounded in the passage that says it.
        RichResult::Knowledge { results } => {
            for chunk in &results.chunks {
                for n in numbers_in(&chunk.text) {
                    push(0, n.value, format!("passage {}", chunk.chunk_id), n.text);
                }
            }
        }
        other @ (RichResult::DatasetList { .. }
        | RichResult::DeletedDataset { .. }
        | RichResult::SystemStatus { .. }
        | RichResult::DirectoryListing { .. }
        | RichResult::ImportReport { .. }
        | RichResult::SearchHits { .. }
        | RichResult::Run { .. }
        | RichResult::DatasetChanged { .. }
        | RichResult::SavedQuery { .. }
        | RichResult::Account { .. }
        | RichResult::External { .. }) => {
            if let Ok(json) = serde_json::to_value(other) {
                json_candidates(&json, "", push);
            }
        }
    }
}

fn table_candidates(table: &Table, push: &mut dyn FnMut(u8, f64, String, String)) {
    push(2, table.rows.len() as f64, "the number of rows".to_owned(), table.rows.len().to_string());
    for (c, column) in table.columns.iter().enumerate() {
        let mut numbers = Vec::new();
        for (r, row) in table.rows.iter().enumerate() {
            let Some(cell) = row.get(c) else { continue };
            let at = || format!("row {}, {}", r + 1, column.name);
            match cell {
                Value::Int(i) => {
                    numbers.push(*i as f64);
                    push(0, *i as f64, at(), i.to_string());
                }
                Value::Double(d) => {
                    numbers.push(*d);
                    push(0, *d, at(), d.to_string());
                }
                Value::Decimal(s) => {
                    if let Ok(x) = s.parse::<f64>() {
                        numbers.push(x);
                        push(0, x, at(), s.clone());
                    }
                }
                Value::Date(_) | Value::Timestamp(_) => {
                    if let Some(date) = date_of(cell) {
                        use chrono::Datelike;
                        let text = date.format("%Y-%m-%d").to_string();
                        for part in [date.year(), date.month() as i32, date.day() as i32] {
                            push(0, f64::from(part), at(), text.clone());
                        }
                    }
                }
                Value::String(s) | Value::Text(s) => {
                    for n in numbers_in(s) {
                        push(0, n.value, at(), s.clone());
                    }
                }
                Value::Null | Value::Bool(_) | Value::Time(_) | Value::Bytes(_) => {}
            }
        }
        aggregate_candidates(&column.name, &numbers, push);
    }
    // A share times a count in the same row: the rows it stands for ("29.4% … (147 of 500)").
    for (r, row) in table.rows.iter().enumerate() {
        let numbers: Vec<(usize, f64)> =
            row.iter().enumerate().filter_map(|(c, v)| number(v).map(|x| (c, x))).collect();
        for &(s, share) in numbers.iter().filter(|(_, x)| (0.0..=1.0).contains(x)) {
            for &(n, count) in numbers.iter().filter(|(c, x)| *c != s && x.fract() == 0.0 && *x > 1.0) {
                let of = |c: usize| table.columns.get(c).map_or("?", |col| col.name.as_str());
                let x = (share * count).round();
                push(2, x, format!("row {}: {} × {}", r + 1, of(s), of(n)), x.to_string());
            }
        }
    }
}

/// A cell as a number the model may be told, or an answer matched against: finite only.
fn number(v: &Value) -> Option<f64> {
    v.number().filter(|x| x.is_finite())
}

fn aggregate_candidates(column: &str, numbers: &[f64], push: &mut dyn FnMut(u8, f64, String, String)) {
    let finite: Vec<f64> = numbers.iter().copied().filter(|x| x.is_finite()).collect();
    if finite.len() < 2 {
        return;
    }
    let sum: f64 = finite.iter().sum();
    let mean = sum / finite.len() as f64;
    let min = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let max = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for (what, x) in [("sum", sum), ("mean", mean), ("min", min), ("max", max), ("count", finite.len() as f64)] {
        push(2, x, format!("{what} of {column}"), x.to_string());
    }
    if min >= 0.0 && sum > 0.0 {
        for (i, x) in finite.iter().enumerate() {
            push(2, x / sum, format!("row {}'s share of the {column} total", i + 1), (x / sum).to_string());
        }
    }
}

/// Every number in a JSON value (numbers, numbers inside strings, the lengths of lists).
fn json_candidates(json: &Json, path: &str, push: &mut dyn FnMut(u8, f64, String, String)) {
    let here = |key: &str| if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") };
    match json {
        Json::Number(n) => {
            if let Some(x) = n.as_f64() {
                push(0, x, path.to_owned(), n.to_string());
            }
        }
        Json::String(s) => {
            for n in numbers_in(s) {
                push(0, n.value, path.to_owned(), s.clone());
            }
        }
        Json::Array(items) => {
            push(
                2,
                items.len() as f64,
                format!("the number of {}", if path.is_empty() { "items" } else { path }),
                items.len().to_string(),
            );
            for (i, item) in items.iter().enumerate() {
                json_candidates(item, &format!("{path}[{}]", i + 1), push);
            }
        }
        Json::Object(map) => {
            for (k, v) in map {
                json_candidates(v, &here(k), push);
            }
        }
        Json::Null | Json::Bool(_) => {}
    }
}

fn date_of(v: &Value) -> Option<chrono::NaiveDate> {
    match v {
        Value::Date(days) => aware_domain::value::day(*days),
        Value::Timestamp(us) => chrono::DateTime::from_timestamp_micros(*us).map(|t| t.date_naive()),
        Value::Null
        | Value::Bool(_)
        | Value::Int(_)
        | Value::Double(_)
        | Value::Decimal(_)
        | Value::String(_)
        | Value::Time(_)
        | Value::Bytes(_)
        | Value::Text(_) => None,
    }
}

/// The numbers written in `text`, outside code (fenced blocks and `inline` spans), list
/// markers, identifiers and ordinals.
fn numbers_in(text: &str) -> Vec<Written> {
    let chars: Vec<char> = text.chars().collect();
    let code = code_spans(&chars);
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !c.is_ascii_digit() || code[i] {
            i += 1;
            continue;
        }
        let before = i.checked_sub(1).map(|j| chars[j]);
        // Part of a word or identifier (`q1`, `price_2`, `v1.2`, `#3`): not a claim.
        if before.is_some_and(|b| b.is_alphanumeric() || matches!(b, '_' | '#' | '.' | '/' | ':')) {
            i = skip_word(&chars, i);
            continue;
        }
        let start = if matches!(before, Some('-' | '−')) && i.checked_sub(2).is_none_or(|j| !chars[j].is_alphanumeric())
        {
            i - 1
        } else {
            i
        };
        let mut end = i;
        let mut digits = String::new();
        while end < chars.len() {
            let ch = chars[end];
            if ch.is_ascii_digit() {
                digits.push(ch);
                end += 1;
            } else if ch == ','
                && end + 3 < chars.len() + 1
                && chars.get(end + 1..end + 4).is_some_and(|g| g.iter().all(char::is_ascii_digit))
                && chars.get(end + 4).is_none_or(|n| !n.is_ascii_digit())
            {
                end += 1;
            } else {
                break;
            }
        }
        // A date or a time (`2024-03-01`, `12:30`): its parts, each a number of the evidence.
        if matches!(chars.get(end), Some('-' | ':')) && chars.get(end + 1).is_some_and(char::is_ascii_digit) {
            i = skip_word(&chars, end);
            let mut j = start;
            while j < i {
                let run = chars[j..i].iter().take_while(|c| c.is_ascii_digit()).count();
                if run == 0 {
                    j += 1;
                    continue;
                }
                let part: String = chars[j..j + run].iter().collect();
                if let Ok(value) = part.parse::<f64>() {
                    let (from, to) = (j as u32, (j + run) as u32);
                    out.push(Written {
                        text: part,
                        value,
                        decimals: 0,
                        scale: 1.0,
                        percent: false,
                        start: from,
                        end: to,
                    });
                }
                j += run;
            }
            continue;
        }
        let mut decimals = 0;
        if chars.get(end) == Some(&'.') && chars.get(end + 1).is_some_and(char::is_ascii_digit) {
            digits.push('.');
            end += 1;
            while end < chars.len() && chars[end].is_ascii_digit() {
                digits.push(chars[end]);
                decimals += 1;
                end += 1;
            }
        }
        // A list marker: a number alone at the start of a line, followed by `.` or `)` and a space.
        let line_start = chars[..start].iter().rev().take_while(|&&ch| ch != '\n').all(|ch| ch.is_whitespace());
        if line_start
            && decimals == 0
            && matches!(chars.get(end), Some('.' | ')'))
            && chars.get(end + 1).is_some_and(|ch| ch.is_whitespace())
        {
            i = end + 1;
            continue;
        }
        let (scale, percent, after) = suffix(&chars, end);
        let word_after = chars.get(after).is_some_and(|ch| ch.is_alphanumeric() || *ch == '_');
        if scale == 1.0 && !percent && word_after {
            // An ordinal (`3rd`) or an identifier (`2fa`): skip the whole word.
            i = skip_word(&chars, end);
            continue;
        }
        let Ok(magnitude) = digits.parse::<f64>() else {
            i = end;
            continue;
        };
        let negative = start < i;
        let value = if negative { -magnitude } else { magnitude } * scale;
        out.push(Written {
            text: chars[start..after].iter().collect(),
            value,
            decimals,
            scale,
            percent,
            start: start as u32,
            end: after as u32,
        });
        i = after.max(end).max(i + 1);
    }
    out
}

/// The scale and percent sign after a number at `end`, and where its token ends.
fn suffix(chars: &[char], end: usize) -> (f64, bool, usize) {
    let rest: String = chars[end..chars.len().min(end + 10)].iter().collect();
    let boundary = |n: usize| chars.get(end + n).is_none_or(|c| !c.is_alphanumeric());
    if rest.starts_with('%') {
        return (1.0, true, end + 1);
    }
    if rest.starts_with(" %") {
        return (1.0, true, end + 2);
    }
    for (word, scale) in [
        (" thousand", 1e3),
        (" million", 1e6),
        (" billion", 1e9),
        ("bn", 1e9),
        ("k", 1e3),
        ("K", 1e3),
        ("M", 1e6),
        ("B", 1e9),
    ] {
        let n = word.chars().count();
        if rest.starts_with(word) && boundary(n) {
            return (scale, false, end + n);
        }
    }
    (1.0, false, end)
}

fn skip_word(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '-' | ':' | '.' | ',')) {
        if matches!(chars[i], '.' | ',') && !chars.get(i + 1).is_some_and(|c| c.is_alphanumeric()) {
            break;
        }
        i += 1;
    }
    i
}

/// Which characters are inside code: fenced blocks (```) and inline spans (`…`).
fn code_spans(chars: &[char]) -> Vec<bool> {
    let mut inside = vec![false; chars.len()];
    let mut i = 0;
    let mut open: Option<(usize, usize)> = None; // (start, fence length)
    while i < chars.len() {
        if chars[i] == '`' {
            let run = chars[i..].iter().take_while(|&&c| c == '`').count();
            match open {
                Some((start, len)) if len == run => {
                    inside[start..i + run].iter_mut().for_each(|x| *x = true);
                    open = None;
                }
                None => open = Some((i, run)),
                Some(_) => {}
            }
            i += run;
        } else {
            i += 1;
        }
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;
    use aware_domain::value::{Column, ValueKind};

    fn day() -> chrono::NaiveDate {
        chrono::NaiveDate::from_ymd_opt(2026, 11, 24).unwrap()
    }

    fn written(text: &str) -> Vec<(String, f64)> {
        numbers_in(text).into_iter().map(|n| (n.text, n.value)).collect()
    }

    fn table(columns: &[&str], rows: Vec<Vec<Value>>) -> RichResult {
        let columns = columns
            .iter()
            .map(|name| Column {
                name: (*name).to_owned(),
                sql_type: "DOUBLE".into(),
                kind: ValueKind::Double,
                nullable: true,
            })
            .collect();
        RichResult::Table {
            table: Table { columns, rows, truncated: false, exec_time_ms: 3 },
            executed_sql: "SELECT neighbourhood, avg(price) FROM apartments GROUP BY 1 LIMIT 10".into(),
        }
    }

    #[test]
    fn numbers_are_read_as_people_write_them() {
        assert_eq!(
            written("Sales rose 12.5% to €1,234,567 (about 1.2M), down -3 from 2.5k; 7 million in all."),
            [
                ("12.5%".to_owned(), 12.5),
                ("1,234,567".to_owned(), 1_234_567.0),
                ("1.2M".to_owned(), 1_200_000.0),
                ("-3".to_owned(), -3.0),
                ("2.5k".to_owned(), 2500.0),
                ("7 million".to_owned(), 7_000_000.0),
            ]
        );
        // Not claims: identifiers, code, list markers, ordinals, versions.
        assert!(written("1. The q1 column `price_2024` and ```\nLIMIT 10\n``` came 3rd in v1.2").is_empty());
        // A date's parts are numbers, each checked.
        assert_eq!(written("on 2024-03-01"), [("2024".into(), 2024.0), ("03".into(), 3.0), ("01".into(), 1.0)]);
        assert_eq!(
            written("1,23 and 12,3456"),
            [("1".into(), 1.0), ("23".into(), 23.0), ("12".into(), 12.0), ("3456".into(), 3456.0)]
        );
    }

    #[test]
    fn each_number_is_traced_to_its_cell_or_flagged() {
        let rich = table(
            &["neighbourhood", "avg_price"],
            vec![
                vec![Value::String("Gràcia".into()), Value::Double(1234.5678)],
                vec![Value::String("Sants".into()), Value::Double(987.25)],
            ],
        );
        let evidence = [Evidence {
            seq: 7,
            tool_call_id: "tc_1",
            tool_name: "run_sql_query",
            summary: "2 rows.",
            rich: Some(&rich),
        }];
        let g = ground(
            "Gràcia averages €1,234.57 and Sants €987.3 — 20.4% apart; together 2,221.8 over 2 areas, top 10. \
             Eixample averages €1,500.",
            "average price by neighbourhood, top 10",
            day(),
            &evidence,
        );
        let found: Vec<(&str, Option<&str>)> =
            g.numbers.iter().map(|n| (n.text.as_str(), n.source.as_ref().map(|s| s.location.as_str()))).collect();
        assert_eq!(
            found,
            [
                ("1,234.57", Some("row 1, avg_price")),
                ("987.3", Some("row 2, avg_price")),
                ("20.4%", None),
                ("2,221.8", Some("sum of avg_price")),
                ("2", Some("the summary the model was given")),
                ("10", Some("the SQL that ran")),
                ("1,500", None),
            ]
        );
        assert_eq!(g.ungrounded(), 2, "an invented number, and a difference no result holds");
        let first = &g.numbers[0];
        assert_eq!((first.start, first.end), (17, 25), "character offsets, not bytes (à is two bytes)");
        assert_eq!(first.source.as_ref().map(|s| (s.seq, s.value.as_str())), Some((7, "1234.5678")));
    }

    #[test]
    fn a_share_of_a_count_grounds_the_rows_it_stands_for() {
        let rich = table(&["share", "n"], vec![vec![Value::Double(0.294), Value::Int(500)]]);
        let evidence = [Evidence { seq: 4, tool_call_id: "t", tool_name: "q", summary: "", rich: Some(&rich) }];
        let g = ground("29.4% churned (147 of 500); 148 would be wrong", "", day(), &evidence);
        let places: Vec<Option<&str>> =
            g.numbers.iter().map(|n| n.source.as_ref().map(|s| s.location.as_str())).collect();
        assert_eq!(places, [Some("row 1, share"), Some("row 1: share × n"), Some("row 1, n"), None]);
    }

    #[test]
    fn percentages_rounding_and_scale_are_tolerated_but_not_more() {
        let rich = table(&["plan", "churn_rate"], vec![vec![Value::String("basic".into()), Value::Double(0.3472)]]);
        let evidence = [Evidence { seq: 3, tool_call_id: "t", tool_name: "q", summary: "", rich: Some(&rich) }];
        let grounded = |answer: &str| ground(answer, "", day(), &evidence).ungrounded() == 0;
        assert!(grounded("basic churns at 34.7%"));
        assert!(grounded("basic churns at 35%"));
        assert!(grounded("a rate of 0.35"));
        assert!(!grounded("basic churns at 34.9%"), "rounded wrong");
        assert!(!grounded("basic churns at 36%"));
        assert!(grounded("there is 1 plan"), "the number of rows");
        assert!(grounded("as of 2026-11-24"), "the run's date");
        assert!(!grounded("as of 2026-11-23"));
    }

    #[test]
    fn json_results_and_the_question_ground_their_numbers() {
        let rich = RichResult::External {
            server_id: "s".into(),
            tool: "t".into(),
            result: serde_json::json!({"items": [{"n": 41}, {"n": 1}], "note": "up 3 points"}),
        };
        let evidence = [Evidence { seq: 9, tool_call_id: "t", tool_name: "x", summary: "", rich: Some(&rich) }];
        let g = ground("41 of 2 items, up 3, within the 5 you asked for", "at most 5 please", day(), &evidence);
        let places: Vec<Option<String>> =
            g.numbers.iter().map(|n| n.source.as_ref().map(|s| s.location.clone())).collect();
        assert_eq!(
            places,
            [
                Some("result.items[1].n".to_owned()),
                Some("the number of result.items".to_owned()),
                Some("result.note".to_owned()),
                Some("the question".to_owned())
            ]
        );
    }
}
