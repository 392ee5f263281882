//! The dataset model: what a user uploaded, how it is named in SQL, and what we know about it.

use crate::error::{Error, Result};
use crate::ids::{DatasetId, UserId};
use crate::value::{Column, Value, ValueKind};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasetStatus {
    Processing,
    Ready,
    Error,
}

impl DatasetStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Processing => "processing",
            Self::Ready => "ready",
            Self::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "processing" => Some(Self::Processing),
            "ready" => Some(Self::Ready),
            "error" => Some(Self::Error),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasetFormat {
    Csv,
    Tsv,
    Parquet,
    /// A JSON array of objects.
    Json,
    /// One JSON object per line.
    Ndjson,
    /// Saved from a query's result (see [`Dataset::lineage`]); never a file's format.
    Derived,
    /// A Markdown document: a knowledge document, stored as its passages
    /// ([`crate::knowledge`]).
    Markdown,
    /// A plain-text document, stored as its passages.
    Text,
}

impl DatasetFormat {
    pub const ALL: [Self; 8] =
        [Self::Csv, Self::Tsv, Self::Parquet, Self::Json, Self::Ndjson, Self::Derived, Self::Markdown, Self::Text];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Csv => "csv",
            Self::Tsv => "tsv",
            Self::Parquet => "parquet",
            Self::Json => "json",
            Self::Ndjson => "ndjson",
            Self::Derived => "derived",
            Self::Markdown => "markdown",
            Self::Text => "text",
        }
    }

    /// A knowledge document (Markdown or text), read through `search_knowledge`, not as rows.
    pub fn is_document(self) -> bool {
        matches!(self, Self::Markdown | Self::Text)
    }

    /// Parses what a client may send: `csv`, `CSV`, `.csv`, `DATASET_FORMAT_CSV`, `jsonl`, ….
    /// Empty means "sniff it".
    pub fn parse_client(raw: &str) -> Result<Option<Self>> {
        let s = raw.trim().trim_start_matches('.').to_ascii_lowercase();
        let s = s.strip_prefix("dataset_format_").unwrap_or(&s);
        Ok(Some(match s {
            "" | "unspecified" => return Ok(None),
            "csv" | "text/csv" => Self::Csv,
            "tsv" | "tab" | "text/tab-separated-values" => Self::Tsv,
            "parquet" | "pq" => Self::Parquet,
            "json" | "application/json" => Self::Json,
            "ndjson" | "jsonl" | "jsonlines" | "application/x-ndjson" => Self::Ndjson,
            "markdown" | "md" | "text/markdown" => Self::Markdown,
            "text" | "txt" | "text/plain" => Self::Text,
            _ => {
                return Err(Error::validation(
                    "format",
                    format!("unsupported format {raw:?}; expected csv, tsv, parquet, json, ndjson, markdown or text"),
                ));
            }
        }))
    }

    /// The format a filename's extension suggests.
    pub fn from_filename(filename: &str) -> Option<Self> {
        let ext = filename.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "csv" => Some(Self::Csv),
            "tsv" | "tab" => Some(Self::Tsv),
            "parquet" | "pq" => Some(Self::Parquet),
            "json" => Some(Self::Json),
            "ndjson" | "jsonl" => Some(Self::Ndjson),
            "md" | "markdown" => Some(Self::Markdown),
            "txt" | "text" => Some(Self::Text),
            _ => None,
        }
    }

    /// Decides the format from the first bytes of the content, using the filename only to break
    /// ties. `None` means the content is not any supported format (e.g. binary).
    pub fn sniff(head: &[u8], filename: &str) -> Option<Self> {
        if head.starts_with(b"PAR1") {
            return Some(Self::Parquet);
        }
        let by_name = Self::from_filename(filename);
        let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
        // A NUL byte never appears in the text formats; other binaries (zip, xlsx, images) do.
        if text.contains(&0) {
            return None;
        }
        // A document is known by its name (its text may start like anything) — except a `.txt`
        // file whose lines are rows (many exports are tab- or comma-separated `.txt`).
        match by_name {
            Some(Self::Markdown) => return Some(Self::Markdown),
            Some(Self::Text) if !looks_delimited(text) => return Some(Self::Text),
            _ => {}
        }
        let first = text.iter().copied().find(|b| !b.is_ascii_whitespace());
        match first {
            Some(b'[') => return Some(Self::Json),
            Some(b'{') => {
                // Several lines that each start with `{` are NDJSON; a lone object is JSON.
                let object_lines = text
                    .split(|&b| b == b'\n')
                    .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
                    .take(3)
                    .filter(|l| l.trim_ascii_start().starts_with(b"{") && l.trim_ascii_end().ends_with(b"}"))
                    .count();
                return Some(if object_lines >= 2 || by_name == Some(Self::Ndjson) {
                    Self::Ndjson
                } else {
                    Self::Json
                });
            }
            _ => {}
        }
        let first_line = text.split(|&b| b == b'\n').next().unwrap_or_default();
        let tabs = first_line.iter().filter(|&&b| b == b'\t').count();
        let commas = first_line.iter().filter(|&&b| b == b',').count();
        Some(match by_name {
            Some(f @ (Self::Csv | Self::Tsv)) if (tabs > 0) == (f == Self::Tsv) || tabs == commas => f,
            _ if tabs > commas => Self::Tsv,
            _ => Self::Csv,
        })
    }
}

/// Whether text reads as rows: its first lines (two at least) each hold the same number, above
/// zero, of tabs or of commas.
fn looks_delimited(text: &[u8]) -> bool {
    let lines: Vec<&[u8]> =
        text.split(|&b| b == b'\n').filter(|l| l.iter().any(|b| !b.is_ascii_whitespace())).take(5).collect();
    let same = |sep: u8| {
        let counts: Vec<usize> = lines.iter().map(|l| l.iter().filter(|&&b| b == sep).count()).collect();
        counts.len() >= 2 && counts[0] > 0 && counts.iter().all(|&c| c == counts[0])
    };
    same(b'\t') || same(b',')
}

/// A user's dataset, as the catalog records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub id: DatasetId,
    pub owner: UserId,
    /// The original filename.
    pub name: String,
    /// The SQL name, unique per user.
    pub table_name: String,
    pub format: DatasetFormat,
    pub status: DatasetStatus,
    pub row_count: u64,
    pub columns: Vec<Column>,
    pub size_bytes: u64,
    /// Lower-case hex sha256 of the uploaded bytes.
    pub version_hash: String,
    /// Why ingestion failed.
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// What the dataset is, in the owner's words (the semantic layer; empty when undescribed).
    #[serde(default)]
    pub description: String,
    /// What columns mean and their units, in the owner's words (only described columns).
    #[serde(default)]
    pub column_notes: Vec<ColumnNote>,
    /// For a dataset saved from a query: what it was computed from.
    #[serde(default)]
    pub lineage: Option<Lineage>,
    /// For a dataset imported from an approved folder: the file it was read from (what a refresh
    /// reads again).
    #[serde(default)]
    pub origin: Option<ImportOrigin>,
}

impl Dataset {
    /// The note on a column, if the owner wrote one.
    pub fn note(&self, column: &str) -> Option<&ColumnNote> {
        self.column_notes.iter().find(|n| n.column.eq_ignore_ascii_case(column))
    }
}

/// What one column means, in the owner's words.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnNote {
    pub column: String,
    pub description: String,
    /// e.g. "EUR", "m²", "days"; empty when it has none.
    #[serde(default)]
    pub unit: String,
}

/// Where a dataset saved from a query came from: the datasets it read (at the versions read) and
/// the SQL that computed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lineage {
    pub sources: Vec<crate::dataset::DatasetVersion>,
    pub sql: String,
    /// The query run that computed it.
    pub run_id: String,
}

/// The file in an approved folder a dataset was imported from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportOrigin {
    /// The approved folder's name.
    pub root: String,
    /// The file's path inside it.
    pub path: String,
}

/// The longest description of a dataset or a column.
pub const MAX_DESCRIPTION_CHARS: usize = 2_000;

/// Checks a description: at most [`MAX_DESCRIPTION_CHARS`], no control characters but newlines.
pub fn clean_description(raw: &str, field: &str) -> Result<String> {
    let text = raw.trim();
    if text.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(Error::validation(field, format!("a description is at most {MAX_DESCRIPTION_CHARS} characters")));
    }
    if text.chars().any(|c| c.is_control() && c != '\n') || text.chars().any(is_format_char) {
        return Err(Error::validation(field, "a description is plain text (no control or invisible characters)"));
    }
    Ok(text.to_owned())
}

/// Checks a table name a person chose: it must already be one (lower-case letters, digits and
/// `_`, not a reserved word), so what they asked for is exactly what SQL will use.
pub fn requested_table_name(raw: &str) -> Result<String> {
    let wanted = raw.trim();
    let canonical = base_table_name(wanted);
    if wanted.is_empty() || canonical != wanted || wanted.len() > MAX_TABLE_NAME - 4 {
        return Err(Error::validation(
            "table_name",
            format!("{wanted:?} is not a table name; try {canonical:?} (lower-case letters, digits and _)"),
        ));
    }
    Ok(canonical)
}

/// What ingestion learned about a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IngestOutcome {
    pub row_count: u64,
    pub columns: Vec<Column>,
}

/// Profile of one column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColumnStatistics {
    pub name: String,
    pub sql_type: String,
    pub kind: ValueKind,
    pub null_count: u64,
    pub distinct_count: u64,
    pub min: Value,
    pub max: Value,
    #[serde(with = "crate::value::non_finite::option")]
    pub mean: Option<f64>,
    #[serde(with = "crate::value::non_finite::option")]
    pub median: Option<f64>,
    #[serde(with = "crate::value::non_finite::option")]
    pub stddev: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
}

/// Profile of a dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatasetStatistics {
    pub dataset_id: DatasetId,
    pub table_name: String,
    pub row_count: u64,
    pub columns: Vec<ColumnStatistics>,
    pub exec_time_ms: u64,
}

/// Maximum length of a table name (PostgreSQL's identifier limit, a sane bound for any engine).
const MAX_TABLE_NAME: usize = 63;

/// Words that would need quoting in SQL; a table named like one gets a `_data` suffix, so the
/// model and people can write `SELECT * FROM orders_data` without quotes.
const RESERVED: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "between",
    "both",
    "case",
    "cast",
    "check",
    "collate",
    "column",
    "constraint",
    "create",
    "cross",
    "default",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "false",
    "fetch",
    "for",
    "foreign",
    "from",
    "full",
    "grant",
    "group",
    "having",
    "in",
    "inner",
    "intersect",
    "into",
    "is",
    "join",
    "lateral",
    "leading",
    "left",
    "like",
    "limit",
    "natural",
    "not",
    "null",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "outer",
    "pivot",
    "primary",
    "qualify",
    "references",
    "returning",
    "right",
    "select",
    "semi",
    "anti",
    "table",
    "then",
    "to",
    "trailing",
    "true",
    "union",
    "unique",
    "unpivot",
    "using",
    "when",
    "where",
    "window",
    "with",
    "data",
    "main",
    "temp",
    "system",
    "information_schema",
    "pg_catalog",
];

/// Derives the SQL table name from a filename: `Barcelona Apartments (2024).csv` →
/// `barcelona_apartments_2024`. Always a plain lower-case identifier.
pub fn base_table_name(filename: &str) -> String {
    let stem = match filename.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.len() <= 8 => stem,
        _ => filename,
    };
    let mut out = String::with_capacity(stem.len());
    for c in stem.chars() {
        let c = fold_accent(c);
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let mut name = out.trim_matches('_').to_owned();
    if name.is_empty() {
        name = "dataset".to_owned();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, "t_");
    }
    name.truncate(MAX_TABLE_NAME - 4); // room for a `_NNN` uniqueness suffix
    let name = name.trim_end_matches('_').to_owned();
    if RESERVED.contains(&name.as_str())
        || name.starts_with("duckdb_")
        || name.starts_with("sqlite_")
        || name.starts_with("pg_")
    {
        format!("{name}_data")
    } else {
        name
    }
}

/// The `n`-th candidate for a table name: the base, then `base_2`, `base_3`, ….
pub fn table_name_candidate(base: &str, n: u32) -> String {
    if n <= 1 { base.to_owned() } else { format!("{base}_{n}") }
}

/// Common Latin letters with diacritics, folded so `Sants-Montjuïc.csv` → `sants_montjuic`.
fn fold_accent(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' => 'a',
        'è' | 'é' | 'ê' | 'ë' | 'È' | 'É' | 'Ê' | 'Ë' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'Ì' | 'Í' | 'Î' | 'Ï' => 'i',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' => 'o',
        'ù' | 'ú' | 'û' | 'ü' | 'Ù' | 'Ú' | 'Û' | 'Ü' => 'u',
        'ñ' | 'Ñ' => 'n',
        'ç' | 'Ç' => 'c',
        'ý' | 'ÿ' | 'Ý' => 'y',
        'ß' => 's',
        other => other,
    }
}

/// Checks an uploaded filename and keeps only its last path component.
pub fn clean_filename(raw: &str) -> Result<String> {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    if last.is_empty() || last == "." || last == ".." {
        return Err(Error::validation("filename", "a filename is required (e.g. \"sales.csv\")"));
    }
    if last.chars().count() > 255 {
        return Err(Error::validation("filename", "the filename is longer than 255 characters"));
    }
    if last.chars().any(|c| c.is_control() || is_format_char(c)) {
        return Err(Error::validation("filename", "the filename contains control or invisible formatting characters"));
    }
    Ok(last.to_owned())
}

/// Bidi overrides, zero-width and other invisible formatting characters (Unicode category Cf)
/// that make a name display differently from what it is.
pub fn is_format_char(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0001}' | '\u{E0020}'..='\u{E007F}')
}

/// A row count for people: "1 row", "1000 rows".
pub fn in_rows(n: u64) -> String {
    if n == 1 { "1 row".to_owned() } else { format!("{n} rows") }
}

/// A size for people: "812 bytes", "27.0 KB", "3.4 MB" (1 KB = 1,024 bytes).
pub fn in_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut size = n as f64 / 1024.0;
    let mut unit = 0;
    while size >= 1024.0 && unit + 1 < UNITS.len() {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// A count with its thousands grouped: "50,000,000".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An estimate rounded as an estimate deserves: exact below 1,000, otherwise to two significant
/// digits (1,440 → 1,400; 62,400,000 → 62,000,000).
pub fn rounded_estimate(n: u64) -> u64 {
    if n < 1_000 {
        return n;
    }
    let step = 10u64.pow(n.ilog10() - 1);
    (n + step / 2) / step * step
}

/// An estimated row count for people ([`rounded_estimate`]): "about 812 rows", "about 1,400
/// rows", "about 45,000 rows", "about 1.2 million rows", "about 62 million rows".
pub fn about_rows(n: u64) -> String {
    let r = rounded_estimate(n);
    let (value, unit) = match r {
        0..1_000_000 => return format!("about {} row{}", grouped(r), if r == 1 { "" } else { "s" }),
        1_000_000..1_000_000_000 => (r as f64 / 1e6, "million"),
        _ => (r as f64 / 1e9, "billion"),
    };
    if value < 10.0 { format!("about {value:.1} {unit} rows") } else { format!("about {value:.0} {unit} rows") }
}

/// A dataset a run read, at the version it read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetVersion {
    pub dataset_id: DatasetId,
    pub table_name: String,
    pub version_hash: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a confirmation card says of a dataset's size: "1 row", never "1 rows".
    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!([in_rows(0), in_rows(1), in_rows(1000)], ["0 rows", "1 row", "1000 rows"]);
        assert_eq!([in_bytes(812), in_bytes(27 * 1024)], ["812 bytes", "27.0 KB"]);
        assert_eq!(
            [about_rows(1), about_rows(812), about_rows(1_440), about_rows(45_260), about_rows(999_600)],
            ["about 1 row", "about 812 rows", "about 1,400 rows", "about 45,000 rows", "about 1.0 million rows"]
        );
        assert_eq!(
            [about_rows(1_240_000), about_rows(62_400_000), about_rows(3_456_000_000)],
            ["about 1.2 million rows", "about 62 million rows", "about 3.5 billion rows"]
        );
        assert_eq!([grouped(0), grouped(999), grouped(1000), grouped(50_000_000)], ["0", "999", "1,000", "50,000,000"]);
    }

    #[test]
    fn table_names_are_plain_identifiers() {
        assert_eq!(base_table_name("barcelona_apartments.csv"), "barcelona_apartments");
        assert_eq!(base_table_name("Barcelona Apartments (2024).CSV"), "barcelona_apartments_2024");
        assert_eq!(base_table_name("Sants-Montjuïc.parquet"), "sants_montjuic");
        assert_eq!(base_table_name("2024 sales.csv"), "t_2024_sales");
        assert_eq!(base_table_name("select.csv"), "select_data");
        assert_eq!(base_table_name("duckdb_settings.csv"), "duckdb_settings_data");
        assert_eq!(base_table_name("...csv"), "dataset");
        assert_eq!(base_table_name("x\"; DROP TABLE t; --.csv"), "x_drop_table_t");
        assert_eq!(base_table_name("データ.csv"), "dataset");
        let long = base_table_name(&format!("{}.csv", "a".repeat(300)));
        assert!(long.len() <= 59);
        assert_eq!(table_name_candidate("sales", 1), "sales");
        assert_eq!(table_name_candidate("sales", 3), "sales_3");
    }

    #[test]
    fn formats_parse_from_clients_and_sniff_from_content() {
        assert_eq!(DatasetFormat::parse_client("CSV").unwrap(), Some(DatasetFormat::Csv));
        assert_eq!(DatasetFormat::parse_client("DATASET_FORMAT_PARQUET").unwrap(), Some(DatasetFormat::Parquet));
        assert_eq!(DatasetFormat::parse_client("jsonl").unwrap(), Some(DatasetFormat::Ndjson));
        assert_eq!(DatasetFormat::parse_client("").unwrap(), None);
        assert_eq!(DatasetFormat::parse_client("xlsx").unwrap_err().field.as_deref(), Some("format"));

        let sniff = DatasetFormat::sniff;
        assert_eq!(sniff(b"PAR1\x15\x04", "x.csv"), Some(DatasetFormat::Parquet));
        assert_eq!(sniff(b"a,b\n1,2\n", "x"), Some(DatasetFormat::Csv));
        assert_eq!(sniff(b"a\tb\n1\t2\n", "x"), Some(DatasetFormat::Tsv));
        assert_eq!(sniff(b"a\tb\n1\t2\n", "x.csv"), Some(DatasetFormat::Tsv));
        assert_eq!(sniff(b"\xEF\xBB\xBFname\n", "x.tsv"), Some(DatasetFormat::Tsv));
        assert_eq!(sniff(b"  [{\"a\":1}]", "x"), Some(DatasetFormat::Json));
        assert_eq!(sniff(b"{\"a\":1}\n{\"a\":2}\n", "x"), Some(DatasetFormat::Ndjson));
        assert_eq!(sniff(b"{\"a\":\n 1}", "x"), Some(DatasetFormat::Json));
        // Documents by their name; a `.txt` whose lines are rows stays a table.
        assert_eq!(sniff(b"[link](x) and {braces}", "notes.md"), Some(DatasetFormat::Markdown));
        assert_eq!(sniff(b"Dear team,\nthe refund policy changed.\n", "memo.txt"), Some(DatasetFormat::Text));
        assert_eq!(sniff(b"id\tlabel\n1\talpha\n", "labels.txt"), Some(DatasetFormat::Tsv));
        assert_eq!(sniff(b"a,b\n1,2\n3,4\n", "export.txt"), Some(DatasetFormat::Csv));
        assert_eq!(sniff(b"PK\x03\x04\x00\x00", "x.csv"), None);
    }

    #[test]
    fn filenames_lose_directories_and_refuse_invisible_characters() {
        assert_eq!(clean_filename("../../etc/passwd").unwrap(), "passwd");
        assert_eq!(clean_filename("C:\\Users\\me\\sales.csv").unwrap(), "sales.csv");
        assert!(clean_filename("").is_err());
        assert!(clean_filename("dir/").is_err());
        assert!(clean_filename("..").is_err());
        assert!(clean_filename("evil\u{202E}vsc.exe").is_err());
        assert!(clean_filename("a\nb.csv").is_err());
        assert!(clean_filename(&"a".repeat(256)).is_err());
    }
}
