//! Text, JSON and CSV renderings of aware's results for the terminal.

use aware_client::v1 as pb;
use pb::value::Kind;
use serde_json::{Value as Json, json};
use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether a character would act on a terminal instead of being shown: C0 controls (ESC starts
/// escape sequences, BEL rings, CR rewrites the line, BS erases), DEL, C1 controls (U+009B is a
/// one-character CSI on some terminals) and the invisible bidi/format characters that reorder
/// what a line appears to say. Newline and tab are layout, not commands.
fn acts_on_terminal(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Text from the data made safe to print: each character that would act on the terminal is
/// shown as its escape (`\u{1b}`), so the user sees it and the terminal does nothing.
pub(crate) fn terminal_safe(s: &str) -> Cow<'_, str> {
    if !s.chars().any(acts_on_terminal) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if acts_on_terminal(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A double as people write it: NaN, ∞ and −∞ for the non-finite ones, at most 4 decimals.
pub(crate) fn double_text(d: f64) -> String {
    if d.is_nan() {
        "NaN".to_owned()
    } else if d.is_infinite() {
        if d > 0.0 { "∞" } else { "−∞" }.to_owned()
    } else {
        let s = format!("{d:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// A figure for reading beside a text bar, as the web app's tables write it: whole and grouped
/// from 1,000, two decimals from 1, three significant digits below; money in its currency when
/// the column's name ends with one (`avg_price_eur` → €625,222).
pub(crate) fn figure_text(d: f64, column: &str) -> String {
    if !d.is_finite() {
        return double_text(d);
    }
    let lower = column.to_ascii_lowercase();
    let currency = [("eur", "€"), ("usd", "$"), ("gbp", "£")]
        .iter()
        .find(|(suffix, _)| lower.trim_end_matches(')').rsplit(['_', '(']).next() == Some(*suffix))
        .map_or("", |(_, sign)| *sign);
    let abs = d.abs();
    let digits = if abs >= 1000.0 || d.fract() == 0.0 {
        0
    } else if abs >= 1.0 {
        2
    } else {
        (2 - abs.log10().floor() as i32).clamp(0, 12) as usize
    };
    let text = format!("{abs:.digits$}");
    let (whole, fraction) = text.split_once('.').map_or((text.as_str(), ""), |(w, f)| (w, f));
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let fraction = fraction.trim_end_matches('0');
    let sign = if d < 0.0 { "−" } else { "" };
    if fraction.is_empty() {
        format!("{sign}{currency}{grouped}")
    } else {
        format!("{sign}{currency}{grouped}.{fraction}")
    }
}

/// A double for JSON, which has no NaN or infinities: those become the strings "NaN",
/// "Infinity" and "-Infinity" (as proto3 JSON spells them) instead of a silent `null`.
fn double_json(d: f64) -> Json {
    if d.is_finite() { json!(d) } else { Json::String(double_csv(d)) }
}

fn double_csv(d: f64) -> String {
    if d.is_nan() {
        "NaN".to_owned()
    } else if d.is_infinite() {
        if d > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        d.to_string()
    }
}

/// Widest a table cell is printed before it is cut with `…`.
const MAX_CELL: usize = 40;

pub(crate) fn value_text(v: &pb::Value) -> String {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => "NULL".to_owned(),
        Some(Kind::BoolValue(b)) => b.to_string(),
        Some(Kind::IntValue(i)) => i.to_string(),
        Some(Kind::DoubleValue(d)) => double_text(*d),
        Some(Kind::DecimalValue(s) | Kind::StringValue(s) | Kind::TextValue(s)) => s.clone(),
        Some(Kind::DateValue(days)) => chrono_date(*days),
        Some(Kind::TimestampValue(t)) => time_text(t.seconds),
        Some(Kind::TimeValue(us)) => {
            let s = us / 1_000_000;
            format!("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
        }
        Some(Kind::BytesValue(b)) => format!("<{} bytes>", b.len()),
    }
}

/// A cell of column `column` in a table: a time bucket (`month`, `quarter`, `year`) that starts
/// its period reads as the period ("January 2024", "Q1 2024"), as the answer says it; anything
/// else as [`value_text`] writes it.
pub(crate) fn cell_text(v: &pb::Value, column: &str) -> String {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let days = match &v.kind {
        Some(Kind::DateValue(days)) => Some(i64::from(*days)),
        Some(Kind::TimestampValue(t)) if t.seconds.rem_euclid(86_400) == 0 && t.nanos == 0 => {
            Some(t.seconds.div_euclid(86_400))
        }
        _ => None,
    };
    // Only the first day of a period starts one.
    let first = days.and_then(|d| i32::try_from(d).ok()).map(civil).filter(|(_, _, day)| *day == 1);
    match (column.to_ascii_lowercase().as_str(), first) {
        ("month", Some((y, m, _))) => format!("{} {y:04}", MONTHS[(m - 1) as usize]),
        ("quarter", Some((y, m, _))) if m % 3 == 1 => format!("Q{} {y:04}", m / 3 + 1),
        ("year", Some((y, 1, _))) => format!("{y:04}"),
        _ => value_text(v),
    }
}

/// A proto enum value's name as a word: its type's prefix cut, lower case, spaces for
/// underscores (`RUN_STATUS_AWAITING_CONFIRMATION` → "awaiting confirmation").
pub(crate) fn enum_word(name: &str, prefix: &str) -> String {
    name.trim_start_matches(prefix).to_lowercase().replace('_', " ")
}

/// A run in a word or two: what it came to once it is over ("answered", "not understood",
/// "denied"), else where it is ("running", "awaiting confirmation").
pub(crate) fn state_text(status: pb::RunStatus, outcome: pb::RunOutcome) -> String {
    if outcome == pb::RunOutcome::Unspecified {
        enum_word(status.as_str_name(), "RUN_STATUS_")
    } else {
        enum_word(outcome.as_str_name(), "RUN_OUTCOME_")
    }
}

/// Seconds since the epoch as `YYYY-MM-DD HH:MM:SS` (UTC).
pub(crate) fn time_text(seconds: i64) -> String {
    let days = i32::try_from(seconds.div_euclid(86_400)).unwrap_or(i32::MAX);
    let s = seconds.rem_euclid(86_400);
    format!("{} {:02}:{:02}:{:02}", chrono_date(days), s / 3600, (s / 60) % 60, s % 60)
}

/// Days since 1970-01-01 as YYYY-MM-DD (civil-from-days, proleptic Gregorian).
fn chrono_date(days: i32) -> String {
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 as (year, month 1–12, day 1–31), proleptic Gregorian.
fn civil(days: i32) -> (i64, i64, i64) {
    let z = i64::from(days) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

pub(crate) fn value_json(v: &pb::Value) -> Json {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => Json::Null,
        Some(Kind::BoolValue(b)) => json!(b),
        Some(Kind::IntValue(i)) => json!(i),
        Some(Kind::DoubleValue(d)) => double_json(*d),
        _ => Json::String(value_text(v)),
    }
}

/// A cell on one line, control characters escaped (before measuring, so columns stay aligned),
/// cut at [`MAX_CELL`].
fn cut(s: &str) -> String {
    let one_line = terminal_safe(&s.replace(['\n', '\r', '\t'], " ")).into_owned();
    if one_line.chars().count() <= MAX_CELL {
        one_line
    } else {
        let mut t: String = one_line.chars().take(MAX_CELL - 1).collect();
        t.push('…');
        t
    }
}

/// Aligned columns with a header rule; numbers right-aligned.
pub(crate) fn grid(header: &[String], rows: &[Vec<String>], numeric: &[bool]) -> String {
    let rows: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(|c| cut(c)).collect()).collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(c.chars().count());
            }
        }
    }
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let w = widths.get(i).copied().unwrap_or(0);
                if numeric.get(i).copied().unwrap_or(false) { format!("{c:>w$}") } else { format!("{c:<w$}") }
            })
            .collect();
        parts.join("  ").trim_end().to_owned()
    };
    let mut out = vec![line(header)];
    out.push(widths.iter().map(|w| "─".repeat(*w)).collect::<Vec<_>>().join("  "));
    out.extend(rows.iter().map(|r| line(r)));
    out.join("\n")
}

pub(crate) fn table_text(t: &pb::Table) -> String {
    let header: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
    let numeric: Vec<bool> = t
        .columns
        .iter()
        .map(|c| matches!(c.kind(), pb::ValueKind::Int | pb::ValueKind::Double | pb::ValueKind::Decimal))
        .collect();
    let rows: Vec<Vec<String>> =
        t.rows.iter().map(|r| r.values.iter().zip(&t.columns).map(|(v, c)| cell_text(v, &c.name)).collect()).collect();
    let mut s = grid(&header, &rows, &numeric);
    s.push_str(&format!(
        "\n({} row{}{})",
        t.rows.len(),
        if t.rows.len() == 1 { "" } else { "s" },
        if t.truncated { ", more were cut off" } else { "" }
    ));
    s
}

pub(crate) fn table_json(t: &pb::Table) -> Json {
    Json::Array(
        t.rows
            .iter()
            .map(|r| {
                let obj = t.columns.iter().zip(&r.values).map(|(c, v)| (c.name.clone(), value_json(v))).collect();
                Json::Object(obj)
            })
            .collect(),
    )
}

/// Spreadsheets run a cell that starts with one of these as a formula (`=HYPERLINK(…)`,
/// `+cmd|…`, `@SUM(…)`, a tab or CR before one); some also take the full-width forms.
fn starts_formula(s: &str) -> bool {
    s.starts_with(['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠'])
}

/// A text field for CSV: a would-be formula gets a leading `'` (shown, never run), then RFC 4180
/// quoting.
pub(crate) fn csv_text(raw: &str) -> String {
    let neutral = if starts_formula(raw) { format!("'{raw}") } else { raw.to_owned() };
    if neutral.len() != raw.len() || neutral.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", neutral.replace('"', "\"\""))
    } else {
        neutral
    }
}

/// A cell for CSV: numbers exact (NaN, Infinity, -Infinity spelled out), text neutralised.
fn csv_cell(v: &pb::Value) -> String {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => String::new(),
        Some(Kind::BoolValue(b)) => b.to_string(),
        Some(Kind::IntValue(i)) => i.to_string(),
        Some(Kind::DoubleValue(d)) => double_csv(*d),
        Some(Kind::DecimalValue(s)) => s.clone(),
        Some(Kind::StringValue(s) | Kind::TextValue(s)) => csv_text(s),
        Some(_) => csv_text(&value_text(v)),
    }
}

/// A table as CSV: a header line, then one line per row (CRLF, as RFC 4180 has it).
pub(crate) fn table_csv(t: &pb::Table) -> String {
    let mut out = t.columns.iter().map(|c| csv_text(&c.name)).collect::<Vec<_>>().join(",");
    out.push_str("\r\n");
    for r in &t.rows {
        out.push_str(&r.values.iter().map(csv_cell).collect::<Vec<_>>().join(","));
        out.push_str("\r\n");
    }
    out
}

pub(crate) fn bytes_text(n: u64) -> String {
    // As the server writes sizes on cards and in answers (1 KB = 1,024 bytes).
    const UNITS: [&str; 4] = ["B", "KB", "MB", "GB"];
    let mut x = n as f64;
    let mut u = 0;
    while x >= 1024.0 && u < UNITS.len() - 1 {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{n} B") } else { format!("{x:.1} {}", UNITS[u]) }
}

fn status_text(d: &pb::Dataset) -> &'static str {
    match d.status() {
        pb::DatasetStatus::Ready => "ready",
        pb::DatasetStatus::Processing => "processing",
        pb::DatasetStatus::Error => "failed",
        pb::DatasetStatus::Unspecified => "?",
    }
}

pub(crate) fn datasets_text(ds: &[pb::Dataset]) -> String {
    if ds.is_empty() {
        return "No datasets yet: `aware datasets upload FILE` adds one.".to_owned();
    }
    let header = ["table", "file", "status", "rows", "columns", "size"].map(str::to_owned);
    let rows: Vec<Vec<String>> = ds
        .iter()
        .map(|d| {
            vec![
                d.table_name.clone(),
                d.name.clone(),
                status_text(d).to_owned(),
                d.row_count.to_string(),
                d.column_count.to_string(),
                bytes_text(d.size_bytes),
            ]
        })
        .collect();
    let mut text = grid(&header, &rows, &[false, false, false, true, true, true]);
    // Why a file failed does not fit a column: one line each under the table.
    for d in ds.iter().filter(|d| d.status() == pb::DatasetStatus::Error) {
        text.push_str(&format!(
            "\n✗ {}: {}",
            d.name,
            if d.error.is_empty() { "no reason was recorded" } else { &d.error }
        ));
    }
    text
}

pub(crate) fn dataset_json(d: &pb::Dataset) -> Json {
    json!({
        "id": d.id, "name": d.name, "table_name": d.table_name, "status": status_text(d),
        "rows": d.row_count, "columns": d.column_count, "size_bytes": d.size_bytes,
        "version_hash": d.version_hash, "error": d.error,
        "format": enum_word(d.format().as_str_name(), "DATASET_FORMAT_"),
        "schema": d.columns.iter().map(|c| json!({"name": c.name, "type": c.r#type})).collect::<Vec<_>>(),
        "description": d.description,
        "column_notes": d.column_notes.iter().map(|n| json!({"column": n.column, "description": n.description, "unit": n.unit})).collect::<Vec<_>>(),
        "lineage": d.lineage.as_ref().map(|l| json!({
            "sql": l.sql, "run_id": l.run_id,
            "sources": l.sources.iter().map(|s| json!({"dataset_id": s.dataset_id, "table_name": s.table_name, "version_hash": s.version_hash})).collect::<Vec<_>>(),
        })),
        "origin": d.origin.as_ref().map(|o| format!("{}:{}", o.root, o.path)),
    })
}

pub(crate) fn statistics_text(s: &pb::DatasetStatistics) -> String {
    let header = ["column", "type", "missing", "distinct", "min", "max", "mean"].map(str::to_owned);
    let rows: Vec<Vec<String>> = s
        .columns
        .iter()
        .map(|c| {
            vec![
                c.name.clone(),
                c.r#type.clone(),
                c.null_count.to_string(),
                c.distinct_count.to_string(),
                c.min.as_ref().map(value_text).unwrap_or_default(),
                c.max.as_ref().map(value_text).unwrap_or_default(),
                c.mean.map(|m| if m.is_finite() { format!("{m:.2}") } else { double_text(m) }).unwrap_or_default(),
            ]
        })
        .collect();
    format!("{} rows\n{}", s.row_count, grid(&header, &rows, &[false, false, true, true, false, false, true]))
}

pub(crate) fn statistics_json(s: &pb::DatasetStatistics) -> Json {
    json!({
        "table_name": s.table_name, "rows": s.row_count,
        "columns": s.columns.iter().map(|c| json!({
            "name": c.name, "type": c.r#type, "missing": c.null_count, "distinct": c.distinct_count,
            "min": c.min.as_ref().map(value_json), "max": c.max.as_ref().map(value_json), "mean": c.mean.map(double_json),
        })).collect::<Vec<_>>(),
    })
}

pub(crate) fn search_json(h: &pb::SearchHits) -> serde_json::Value {
    json!({
        "mode": h.mode,
        "note": h.note,
        "datasets_searched": h.datasets_searched,
        "hits": h.hits.iter().map(|hit| json!({
            "dataset_id": hit.dataset_id, "table_name": hit.table_name, "row_id": hit.row_id,
            "column": hit.column, "text": hit.text, "snippet": hit.snippet, "score": hit.score,
            "lexical_rank": hit.lexical_rank, "vector_rank": hit.vector_rank, "same_text_rows": hit.same_text_rows,
        })).collect::<Vec<_>>(),
    })
}

/// A search snippet for a terminal: the marked words in «», entities decoded.
pub(crate) fn snippet_text(snippet: &str) -> String {
    snippet
        .replace("<mark>", "«")
        .replace("</mark>", "»")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// A tool's rich result as the terminal shows it (nothing for results the text already says).
pub(crate) fn rich_text(r: &pb::tool_result::Rich) -> Option<String> {
    use pb::tool_result::Rich;
    match r {
        Rich::Table(t) => Some(table_text(t)),
        Rich::DatasetList(l) => Some(datasets_text(&l.datasets)),
        Rich::DatasetDetail(d) => {
            let ds = d.dataset.as_ref()?;
            let schema: Vec<String> = ds.columns.iter().map(|c| format!("{} {}", c.name, c.r#type)).collect();
            let mut s = format!("{} — {} rows; columns: {}", ds.table_name, ds.row_count, schema.join(", "));
            if let Some(sample) = &d.sample {
                s.push('\n');
                s.push_str(&table_text(sample));
            }
            Some(s)
        }
        Rich::Statistics(st) => Some(statistics_text(st)),
        Rich::DeletedDataset(d) => Some(format!("Deleted {} ({} rows).", d.table_name, d.row_count)),
        Rich::DirectoryListing(l) => {
            let header = ["name", "kind", "size", "imports as"].map(str::to_owned);
            let rows: Vec<Vec<String>> = l
                .entries
                .iter()
                .map(|e| {
                    let kind = match e.kind() {
                        pb::EntryKind::File => "file",
                        pb::EntryKind::Directory => "folder",
                        pb::EntryKind::Unspecified | pb::EntryKind::Other => "other",
                    };
                    let format = match e.importable_format() {
                        pb::DatasetFormat::Unspecified => String::new(),
                        f @ (pb::DatasetFormat::Csv
                        | pb::DatasetFormat::Tsv
                        | pb::DatasetFormat::Parquet
                        | pb::DatasetFormat::Json
                        | pb::DatasetFormat::Ndjson
                        | pb::DatasetFormat::Derived
                        | pb::DatasetFormat::Markdown
                        | pb::DatasetFormat::Text) => enum_word(f.as_str_name(), "DATASET_FORMAT_"),
                    };
                    vec![e.path.clone(), kind.to_owned(), bytes_text(e.size_bytes), format]
                })
                .collect();
            let more = if l.truncated { "\n(more entries than shown)" } else { "" };
            Some(format!("{}{more}", grid(&header, &rows, &[false, false, true, false])))
        }
        Rich::ImportReport(r) => Some(
            r.files
                .iter()
                .map(|f| match (&f.dataset, &f.error) {
                    (Some(d), _) => format!("✓ {} → table {} ({} rows)", f.path, d.table_name, d.row_count),
                    (None, Some(e)) => format!("✗ {}: {}", f.path, e.message),
                    (None, None) => format!("? {}", f.path),
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Rich::SearchHits(h) => {
            let mut lines: Vec<String> = h
                .hits
                .iter()
                .enumerate()
                .map(|(i, hit)| {
                    let same = match hit.same_text_rows {
                        0 => String::new(),
                        n => format!(" (+{n} rows with the same text)"),
                    };
                    format!(
                        "{:>2}. {} row {} ({}): {}{same}",
                        i + 1,
                        hit.table_name,
                        hit.row_id,
                        hit.column,
                        snippet_text(&hit.snippet)
                    )
                })
                .collect();
            lines.push(format!("{} hit(s) by {} search", h.hits.len(), h.mode));
            if !h.note.is_empty() {
                lines.push(format!("note: {}", h.note));
            }
            Some(lines.join("\n"))
        }
        Rich::Knowledge(k) => {
            let mut lines: Vec<String> = k
                .chunks
                .iter()
                .map(|c| format!("[{}] {}: {}", c.chunk_id, passage_place(c), snippet_text(&c.snippet)))
                .collect();
            lines.push(match k.chunks.len() {
                0 => format!("no passage of {} document(s) matches", k.documents_searched),
                n => format!("{n} passage(s) from {} document(s) by {} search", k.documents_searched, k.mode),
            });
            if !k.note.is_empty() {
                lines.push(format!("note: {}", k.note));
            }
            Some(lines.join("\n"))
        }
        Rich::SystemStatus(st) => Some(format!(
            "aware {} · mode {} · model {} · storage {} · {} datasets ({}) · {} active runs",
            st.version,
            st.mode,
            st.model_provider,
            st.storage,
            st.dataset_count,
            bytes_text(st.dataset_bytes),
            st.active_runs
        )),
        Rich::QueryPlan(_)
        | Rich::Run(_)
        | Rich::External(_)
        | Rich::DatasetChange(_)
        | Rich::SavedQueryChange(_)
        | Rich::AccountChange(_) => None,
    }
}

/// Where a passage is: its document's title, and the heading it is under.
fn passage_place(c: &pb::KnowledgeChunk) -> String {
    let title = terminal_safe(&c.title);
    if c.heading.is_empty() || c.heading == c.title {
        title.into_owned()
    } else {
        format!("{title} › {}", terminal_safe(&c.heading))
    }
}

/// An answer's sources after it: the cited passages (with their place), or why the answer is
/// not backed by the documents.
pub(crate) fn sources_text(check: &pb::CitationCheck, passages: &[pb::KnowledgeChunk]) -> String {
    let ids = |v: &[String]| v.iter().map(|i| terminal_safe(i).into_owned()).collect::<Vec<_>>().join(", ");
    match check.status() {
        pb::CitationStatus::Cited => {
            let mut out = "Sources:".to_owned();
            for id in &check.cited {
                let place = passages.iter().find(|p| p.chunk_id == *id).map(passage_place).unwrap_or_default();
                out.push_str(&format!("\n  [{}] {place}", terminal_safe(id)));
            }
            out
        }
        pb::CitationStatus::MissingCitations => format!(
            "⚠ This answer cites none of the {} passage(s) it retrieved: it is not backed by your documents.",
            check.retrieved.len()
        ),
        pb::CitationStatus::InvalidCitation => {
            format!("⚠ This answer cites {}, which the run never retrieved.", ids(&check.invalid))
        }
        pb::CitationStatus::NoEvidence | pb::CitationStatus::Unspecified => {
            "No sources were used for this answer.".to_owned()
        }
    }
}

/// One event as `kind: detail` (for `aware runs events`).
pub(crate) fn event_line(e: &pb::ServerEvent) -> (String, String) {
    use pb::server_event::Payload as P;
    let (kind, detail) = match &e.payload {
        Some(P::RunStarted(s)) => ("run_started", s.user_text.clone()),
        Some(P::TextStarted(_)) => ("text_started", String::new()),
        Some(P::TextDelta(d)) => ("text_delta", d.delta.clone()),
        Some(P::TextEnded(_)) => ("text_ended", String::new()),
        Some(P::ToolCallStarted(c)) => ("tool_call_started", format!("{} {}", c.tool_name, c.arguments_json)),
        Some(P::ToolStatus(s)) => ("tool_status", format!("{:?}", s.phase())),
        Some(P::ToolResult(r)) => ("tool_result", format!("{}: {}", r.tool_name, r.llm_summary)),
        Some(P::ToolDenied(d)) => ("tool_denied", format!("{}: {}", d.tool_name, d.reason)),
        Some(P::ConfirmationRequired(c)) => ("confirmation_required", c.description.clone()),
        Some(P::ConfirmationResolved(r)) => ("confirmation_resolved", format!("{:?}", r.resolution())),
        Some(P::ClarificationRequired(c)) => ("clarification_required", c.question.clone()),
        Some(P::ClarificationResolved(r)) => {
            ("clarification_resolved", format!("{:?} {}", r.resolution(), r.choice).trim_end().to_owned())
        }
        Some(P::RunCompleted(c)) => ("run_completed", format!("{:?}", c.status())),
        Some(P::RoutingDecided(r)) => ("routing_decided", format!("{} ({:.2})", r.intent, r.confidence)),
        Some(P::RetrievalCompleted(r)) => ("retrieval_completed", r.chunk_ids.join(", ")),
        Some(P::Grounding(g)) => (
            "grounding",
            format!(
                "{} number(s), {} ungrounded{}",
                g.numbers.len(),
                g.ungrounded,
                g.citations.as_ref().map(|c| format!("; citations {:?}", c.status())).unwrap_or_default()
            ),
        ),
        Some(other) => return ("other".to_owned(), format!("{other:?}")),
        None => ("empty", String::new()),
    };
    (kind.to_owned(), detail)
}

/// A chart the server chose for a table, as text: bars for a category × measure, a sparkline per
/// measure over time; a scatter is named only (a terminal draws it badly). `None` when the chart
/// names columns the table does not have.
pub(crate) fn chart_text(chart: &pb::Chart, t: &pb::Table) -> Option<String> {
    let col = |name: &str| t.columns.iter().position(|c| c.name == name);
    let number = |row: &pb::Row, i: usize| -> Option<f64> {
        use pb::value::Kind;
        match row.values.get(i)?.kind.as_ref()? {
            Kind::IntValue(n) => Some(*n as f64),
            Kind::DoubleValue(x) if x.is_finite() => Some(*x),
            Kind::DecimalValue(s) => s.parse().ok(),
            Kind::NullValue(_)
            | Kind::BoolValue(_)
            | Kind::DoubleValue(_)
            | Kind::StringValue(_)
            | Kind::DateValue(_)
            | Kind::TimestampValue(_)
            | Kind::TimeValue(_)
            | Kind::BytesValue(_)
            | Kind::TextValue(_) => None,
        }
    };
    let x = col(&chart.x)?;
    match chart.kind() {
        pb::ChartKind::Bar => {
            let y = col(chart.y.first()?)?;
            let mut bars: Vec<(String, f64)> = t
                .rows
                .iter()
                .filter_map(|r| Some((terminal_safe(&value_text(r.values.get(x)?)).into_owned(), number(r, y)?)))
                .collect();
            bars.sort_by(|a, b| b.1.total_cmp(&a.1));
            let widest = bars.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0).min(30);
            let top = bars.iter().map(|(_, v)| v.abs()).fold(0.0_f64, f64::max);
            let mut out = format!("{} by {}\n", chart.y[0], chart.x);
            for (label, v) in bars {
                let width = if top > 0.0 { (v.abs() / top * 40.0).round() as usize } else { 0 };
                let label: String = label.chars().take(30).collect();
                let bar = "█".repeat(width.max(usize::from(v != 0.0)));
                out.push_str(&format!("{label:<widest$} {bar} {}\n", figure_text(v, &chart.y[0])));
            }
            Some(out.trim_end().to_owned())
        }
        pb::ChartKind::Line => {
            const TICKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
            let mut out = Vec::new();
            for measure in &chart.y {
                let y = col(measure)?;
                let points: Vec<f64> = t.rows.iter().filter_map(|r| number(r, y)).collect();
                let (lo, hi) =
                    points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
                let line: String = points
                    .iter()
                    .map(|v| if hi > lo { TICKS[((v - lo) / (hi - lo) * 7.0).round() as usize] } else { TICKS[3] })
                    .collect();
                out.push(format!(
                    "{measure} over {}: {line}  ({} to {})",
                    chart.x,
                    figure_text(lo, measure),
                    figure_text(hi, measure)
                ));
            }
            Some(out.join("\n"))
        }
        pb::ChartKind::Scatter => {
            Some(format!("(a scatter of {} against {}: {} points)", chart.y.first()?, chart.x, t.rows.len()))
        }
        pb::ChartKind::Unspecified => None,
    }
}

/// A rerun's comparison with the recorded result, in words and rows.
pub(crate) fn rerun_text(r: &pb::QueryRerun) -> String {
    let mut out = format!("query run {}: {}\n", r.run_id, r.sql);
    if r.result_sha256 == r.recorded_sha256 {
        out.push_str(&format!(
            "unchanged: the same result ({} rows, hash {})",
            r.unchanged_rows,
            &r.result_sha256[..r.result_sha256.len().min(12)]
        ));
        return out;
    }
    for d in &r.changed_datasets {
        let now = if d.version_hash.is_empty() {
            "deleted".to_owned()
        } else {
            format!("now {}", &d.version_hash[..d.version_hash.len().min(12)])
        };
        out.push_str(&format!("changed: {} ({now})\n", d.table_name));
    }
    if !r.recorded_rows_kept {
        out.push_str("changed: the result's hash differs (the recorded rows were too many to keep, so no row diff)");
        return out;
    }
    out.push_str(&format!(
        "{} added, {} removed, {} unchanged\n",
        r.added_rows.len(),
        r.removed_rows.len(),
        r.unchanged_rows
    ));
    let row = |row: &pb::Row| {
        row.values.iter().map(|v| terminal_safe(&value_text(v)).into_owned()).collect::<Vec<_>>().join(" | ")
    };
    for a in &r.added_rows {
        out.push_str(&format!("+ {}\n", row(a)));
    }
    for d in &r.removed_rows {
        out.push_str(&format!("- {}\n", row(d)));
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_chart_writes_its_numbers_as_a_person_would() {
        let v = |k: pb::value::Kind| pb::Value { kind: Some(k) };
        let table = pb::Table {
            columns: vec![
                pb::Column { name: "plan".into(), ..Default::default() },
                pb::Column { name: "avg".into(), ..Default::default() },
            ],
            rows: vec![
                pb::Row {
                    values: vec![
                        v(pb::value::Kind::StringValue("basic".into())),
                        v(pb::value::Kind::DoubleValue(428.755_625_000_000_07)),
                    ],
                },
                pb::Row {
                    values: vec![
                        v(pb::value::Kind::StringValue("premium".into())),
                        v(pb::value::Kind::DoubleValue(0.1 + 0.2)),
                    ],
                },
            ],
            ..Default::default()
        };
        let chart = pb::Chart {
            kind: pb::ChartKind::Bar.into(),
            x: "plan".into(),
            y: vec!["avg".into()],
            ..Default::default()
        };
        let text = chart_text(&chart, &table).unwrap();
        assert!(text.contains(" 428.76\n") && text.ends_with(" 0.3"), "{text}");
        assert_eq!(figure_text(625_222.222_2, "avg_price_eur"), "€625,222", "money in its currency, whole from 1,000");
        assert_eq!(figure_text(12.5, "avg(price_usd)"), "$12.5");
        assert_eq!(figure_text(0.012_34, "rate"), "0.0123", "three significant digits below 1");
        assert_eq!(figure_text(-1_500.0, "delta"), "−1,500");
        let jan = pb::Value {
            kind: Some(pb::value::Kind::TimestampValue(prost_types::Timestamp { seconds: 1_704_067_200, nanos: 0 })),
        };
        assert_eq!(cell_text(&jan, "month"), "January 2024", "a month bucket reads as the answer says it");
        assert_eq!(cell_text(&jan, "quarter"), "Q1 2024", "as the answer writes it");
        assert_eq!(cell_text(&jan, "listed_on"), "2024-01-01 00:00:00", "any other column as stored");
        assert!(!text.contains("00000"), "no float noise: {text}");
    }

    #[test]
    fn dates_and_grids_read_like_a_person_would_write_them() {
        assert_eq!(chrono_date(0), "1970-01-01");
        assert_eq!(chrono_date(19_723), "2024-01-01");
        assert_eq!(chrono_date(-1), "1969-12-31");
        let g = grid(
            &["a".into(), "n".into()],
            &[vec!["x".into(), "5".into()], vec!["yy".into(), "10".into()]],
            &[false, true],
        );
        assert_eq!(g, "a    n\n──  ──\nx    5\nyy  10");
    }

    fn table(cells: Vec<pb::Value>) -> pb::Table {
        pb::Table {
            columns: (0..cells.len()).map(|i| pb::Column { name: format!("c{i}"), ..Default::default() }).collect(),
            rows: vec![pb::Row { values: cells }],
            ..Default::default()
        }
    }

    fn v(kind: Kind) -> pb::Value {
        pb::Value { kind: Some(kind) }
    }

    #[test]
    fn control_characters_from_the_data_are_shown_not_obeyed() {
        let hostile = "red\x1b[31m alert\x07\rOK\u{9b}2J \u{202e}gnp.exe";
        let safe = terminal_safe(hostile);
        assert_eq!(safe, "red\\u{1b}[31m alert\\u{7}\\u{d}OK\\u{9b}2J \\u{202e}gnp.exe");
        assert!(!safe.chars().any(|c| c.is_control()), "{safe}");
        assert_eq!(terminal_safe("two\nlines\tand a tab"), "two\nlines\tand a tab", "layout stays");
        // In a table the escape is measured, so the columns stay aligned.
        let text = table_text(&table(vec![v(Kind::StringValue("\x1b[2Jx".into())), v(Kind::IntValue(1))]));
        assert!(text.contains("\\u{1b}[2Jx") && !text.contains('\x1b'), "{text}");
    }

    #[test]
    fn non_finite_doubles_read_as_nan_and_infinity_everywhere() {
        let cells = vec![
            v(Kind::DoubleValue(f64::NAN)),
            v(Kind::DoubleValue(f64::INFINITY)),
            v(Kind::DoubleValue(f64::NEG_INFINITY)),
            v(Kind::DoubleValue(2.5)),
        ];
        let t = table(cells.clone());
        let text = table_text(&t);
        let row = text.lines().nth(2).unwrap();
        assert_eq!(row.split_whitespace().collect::<Vec<_>>(), ["NaN", "∞", "−∞", "2.5"], "{text}");
        assert_eq!(table_json(&t), json!([{"c0": "NaN", "c1": "Infinity", "c2": "-Infinity", "c3": 2.5}]));
        assert_eq!(table_csv(&t), "c0,c1,c2,c3\r\nNaN,Infinity,-Infinity,2.5\r\n");
    }

    #[test]
    fn csv_neutralises_formulas_in_text_but_not_in_numbers() {
        let cells = vec![
            v(Kind::StringValue("=HYPERLINK(\"http://x\",\"y\")".into())),
            v(Kind::StringValue("+cmd|' /C calc'!A0".into())),
            v(Kind::StringValue("-2+3".into())),
            v(Kind::StringValue("@SUM(A1)".into())),
            v(Kind::StringValue("\tx".into())),
            v(Kind::StringValue("\r=1".into())),
            v(Kind::StringValue("plain, with comma".into())),
            v(Kind::IntValue(-5)),
            v(Kind::DecimalValue("-1.25".into())),
        ];
        let csv = table_csv(&table(cells));
        let row = csv.split("\r\n").nth(1).unwrap();
        assert_eq!(
            row,
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",\"'+cmd|' /C calc'!A0\",\"'-2+3\",\"'@SUM(A1)\",\"'\tx\",\"'\r=1\",\"plain, with comma\",-5,-1.25"
        );
        assert_eq!(csv_text("=cmd"), "\"'=cmd\"", "headers too");
    }
}
