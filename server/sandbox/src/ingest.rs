//! Ingestion in a worker process. The server stages an upload, then runs
//! `aware-server worker ingest`, which reads one [`IngestRequest`] (JSON) on stdin, parses the
//! file with DuckDB into a new database file, and writes one [`IngestResponse`] (JSON) on stdout.
//!
//! The worker is where hostile bytes meet a parser, so it runs with a DuckDB memory limit, few
//! threads, no extension autoloading, OS resource limits (no core dumps, bounded CPU time, file
//! size and address space), an empty environment, and a deadline after which the parent kills it.
//! Anything unexpected (a crash, a signal, garbage on stdout) fails that one upload.

use aware_domain::dataset::DatasetFormat;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::sql::literal;

/// What the parent asks a worker to do.
#[derive(Debug, Serialize, Deserialize)]
pub struct IngestRequest {
    pub source: PathBuf,
    /// A new DuckDB file to create; the dataset's content ends up in its table `data`.
    pub target: PathBuf,
    pub format: DatasetFormat,
    pub memory_limit_mb: u64,
    pub threads: u32,
    pub cpu_seconds: u64,
    pub max_file_bytes: u64,
}

/// What a worker answers.
#[derive(Debug, Serialize, Deserialize)]
pub enum IngestResponse {
    Ingested {
        row_count: u64,
        columns: Vec<(String, String)>,
    },
    /// The file's content is the problem; the message is for the person who uploaded it.
    Rejected {
        message: String,
    },
    /// The file needed more than the limits allow.
    TooBig {
        message: String,
    },
}

/// Maximum number of columns a dataset may have.
const MAX_COLUMNS: usize = 2000;

/// The worker process's `main`: one request in, one response out. Returns the exit code. DuckDB
/// starts before the request is read, so a spare worker (see [`crate::spare`]) has it ready; the
/// dataset's file is attached to it once the request says where.
pub fn worker_main() -> i32 {
    let db = match start_duckdb() {
        Ok(db) => db,
        Err(e) => {
            eprintln!("could not start DuckDB: {e}");
            return 6;
        }
    };
    let mut input = String::new();
    if std::io::stdin().take(1 << 20).read_to_string(&mut input).is_err() {
        return 2;
    }
    let Ok(request) = serde_json::from_str::<IngestRequest>(&input) else { return 2 };
    if let Err(e) = apply_limits(&request) {
        eprintln!("could not apply resource limits: {e}");
        return 3;
    }
    let response = ingest(&db, &request);
    drop(db);
    let Ok(json) = serde_json::to_string(&response) else { return 4 };
    let mut out = std::io::stdout().lock();
    if out.write_all(json.as_bytes()).and_then(|()| out.flush()).is_err() {
        return 5;
    }
    0
}

/// OS limits for the worker: no core dumps (they would hold user data), bounded CPU time and file
/// size, and an address-space cap well above DuckDB's own memory limit (which is not a hard limit).
fn apply_limits(req: &IngestRequest) -> std::io::Result<()> {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let set = |resource, limit: u64| setrlimit(resource, Rlimit { current: Some(limit), maximum: Some(limit) });
    set(Resource::Core, 0)?;
    set(Resource::Cpu, req.cpu_seconds)?;
    set(Resource::Fsize, req.max_file_bytes)?;
    set(Resource::As, (req.memory_limit_mb * 4 + 2048) * 1024 * 1024)?;
    Ok(())
}

/// The delimiter of a delimited text file, read off its header line: the most frequent of `,`
/// `;` `|` and tab outside double quotes. DuckDB's sniffer would otherwise fall back to "one
/// column" for a file whose rows disagree, hiding ragged rows instead of reporting them.
fn header_delimiter(path: &Path) -> Option<char> {
    let mut head = vec![0u8; 64 * 1024];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).ok()?;
    let text = String::from_utf8_lossy(&head[..n]);
    let mut counts = [(',', 0usize), (';', 0), ('|', 0), ('\t', 0)];
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '\n' | '\r' if !quoted => break,
            _ if !quoted => {
                if let Some(slot) = counts.iter_mut().find(|(d, _)| *d == c) {
                    slot.1 += 1;
                }
            }
            _ => {}
        }
    }
    counts.into_iter().filter(|(_, n)| *n > 0).max_by_key(|(_, n)| *n).map(|(d, _)| d)
}

fn reader(req: &IngestRequest, full_sample: bool) -> Option<String> {
    let path = literal(&req.source.to_string_lossy());
    let sample = if full_sample { ", sample_size = -1" } else { "" };
    Some(match req.format {
        DatasetFormat::Csv => match header_delimiter(&req.source) {
            Some(d) => format!(
                "read_csv({path}, delim = {}, auto_detect = true, strict_mode = true{sample})",
                literal(&d.to_string())
            ),
            None => format!("read_csv({path}, auto_detect = true, strict_mode = true{sample})"),
        },
        DatasetFormat::Tsv => {
            format!("read_csv({path}, delim = '\\t', auto_detect = true, strict_mode = true{sample})")
        }
        DatasetFormat::Parquet => format!("read_parquet({path})"),
        DatasetFormat::Json => format!("read_json({path}, format = 'array'{sample})"),
        DatasetFormat::Ndjson => format!("read_json({path}, format = 'newline_delimited'{sample})"),
        // Saved results and documents are written by `materialize`, never read from a file here.
        DatasetFormat::Derived | DatasetFormat::Markdown | DatasetFormat::Text => return None,
    })
}

fn ingest(db: &duckdb::Connection, req: &IngestRequest) -> IngestResponse {
    // DuckDB's sniffer may read a file whose quote never closes as having no quotes at all, and
    // keep `"unterminated …` as a value: refused, with the line to fix.
    // A CSV whose header has no delimiter is one column: its quotes are checked as a comma's.
    let delim = delimited(req).or((req.format == DatasetFormat::Csv).then_some(','));
    if let Some(line) = delim.and_then(|d| unterminated_quote(&req.source, d)) {
        return IngestResponse::Rejected {
            message: format!(
                "A quoted value that starts on line {line} is never closed: add the closing \" (a quote inside a quoted value is written twice, \"\")"
            ),
        };
    }
    match try_ingest(db, req) {
        Ok(r) => r,
        Err(e) => {
            // DuckDB's sniffer often gives up on ragged files with a generic message; find the
            // first ragged row ourselves so the person knows what to fix.
            if let Some(delim) = delimited(req).and_then(|d| ragged_row(&req.source, d)) {
                return IngestResponse::Rejected {
                    message: format!(
                        "Rows have different numbers of columns (line {}): expected {} values, found {}",
                        delim.0, delim.1, delim.2
                    ),
                };
            }
            classify(&e.to_string(), req)
        }
    }
}

/// The delimiter of a delimited-text request.
fn delimited(req: &IngestRequest) -> Option<char> {
    match req.format {
        DatasetFormat::Csv => header_delimiter(&req.source),
        DatasetFormat::Tsv => Some('\t'),
        DatasetFormat::Parquet
        | DatasetFormat::Json
        | DatasetFormat::Ndjson
        | DatasetFormat::Derived
        | DatasetFormat::Markdown
        | DatasetFormat::Text => None,
    }
}

/// The first record whose field count differs from the header's: (line, expected, found).
/// Quote-aware (a quoted field may hold delimiters, doubled quotes and newlines).
fn ragged_row(path: &Path, delim: char) -> Option<(u64, usize, usize)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut expected = None;
    let (mut fields, mut quoted, mut line, mut record_line, mut empty) = (1usize, false, 1u64, 1u64, true);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
            }
            '"' => quoted = !quoted,
            '\n' => {
                line += 1;
                if quoted {
                    continue;
                }
                if !empty {
                    match expected {
                        None => expected = Some(fields),
                        Some(n) if n != fields => return Some((record_line, n, fields)),
                        Some(_) => {}
                    }
                }
                (fields, empty, record_line) = (1, true, line);
                continue;
            }
            '\r' if !quoted => continue,
            c if c == delim && !quoted => fields += 1,
            _ => {}
        }
        empty = false;
    }
    match expected {
        Some(n) if !empty && n != fields => Some((record_line, n, fields)),
        _ => None,
    }
}

/// The line of a quote that opens a field and is never closed (RFC 4180: a quote opens a field
/// only at its start; inside, `""` is a quote and `"` then a delimiter or a line's end closes it).
/// Read as bytes, a buffer at a time: quotes, delimiters and line ends are ASCII in UTF-8.
fn unterminated_quote(path: &Path, delim: char) -> Option<u64> {
    use std::io::Read;
    let delim = u8::try_from(delim).ok()?;
    let mut file = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path).ok()?);
    let (mut line, mut opened_on) = (1u64, 0u64);
    let (mut at_field_start, mut quoted, mut closing) = (true, false, false);
    let mut buf = [0u8; 1 << 16];
    let mut first = true;
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        // A UTF-8 byte order mark is not the first field's first character.
        let start = if std::mem::take(&mut first) && buf[..n].starts_with(&[0xEF, 0xBB, 0xBF]) { 3 } else { 0 };
        for &b in &buf[start..n] {
            if b == b'\n' {
                line += 1;
            }
            if quoted {
                match (closing, b) {
                    // `""` inside: a quote.
                    (true, b'"') => closing = false,
                    (false, b'"') => closing = true,
                    // The quote before this byte closed the field.
                    (true, _) => {
                        (quoted, closing) = (false, false);
                        at_field_start = b == delim || b == b'\n';
                    }
                    (false, _) => {}
                }
                continue;
            }
            if at_field_start && b == b'"' {
                (quoted, opened_on) = (true, line);
                continue;
            }
            at_field_start = b == delim || b == b'\n' || (b == b'\r' && at_field_start);
        }
    }
    (quoted && !closing).then_some(opened_on)
}

/// An in-memory DuckDB without extension autoloading; the request's limits are set on it later.
fn start_duckdb() -> duckdb::Result<duckdb::Connection> {
    duckdb::Connection::open_in_memory_with_flags(duckdb::Config::default().enable_autoload_extension(false)?)
}

/// Attaches the new dataset file as `ingested`, fills its table `data`, and detaches it.
fn try_ingest(conn: &duckdb::Connection, req: &IngestRequest) -> duckdb::Result<IngestResponse> {
    let target = req.target.to_string_lossy();
    // Spilled data goes beside the new file (as it would for a file opened directly).
    conn.execute_batch(&format!(
        "SET threads = {}; SET memory_limit = '{}MB'; SET temp_directory = {}; ATTACH {} AS ingested; USE ingested;",
        req.threads.max(1),
        req.memory_limit_mb,
        literal(&format!("{target}.tmp")),
        literal(&target),
    ))?;
    let response = fill(conn, req);
    let detached = conn.execute_batch("USE memory; DETACH ingested;");
    let response = response?;
    detached?;
    Ok(response)
}

fn fill(conn: &duckdb::Connection, req: &IngestRequest) -> duckdb::Result<IngestResponse> {
    let Some(source) = reader(req, false) else {
        return Ok(IngestResponse::Rejected {
            message: "A dataset saved from a query is not a file to ingest.".into(),
        });
    };
    let create = |full_sample| {
        let source = if full_sample { reader(req, true).unwrap_or_default() } else { source.clone() };
        conn.execute_batch(&format!("CREATE TABLE data AS SELECT * FROM {source}"))
    };
    if let Err(e) = create(false) {
        // Type sniffing looks at the first rows only; a later row that does not fit the sniffed
        // type deserves a second attempt that samples the whole file.
        if !e.to_string().contains("Could not convert") {
            return Err(e);
        }
        conn.execute_batch("DROP TABLE IF EXISTS data")?;
        create(true)?;
    }
    let row_count: i64 = conn.query_row("SELECT count(*) FROM data", [], |r| r.get(0))?;
    // The table function, not information_schema: binding that view costs 18 ms, this 1 ms.
    let mut stmt = conn.prepare("SELECT name, type FROM pragma_table_info('data') ORDER BY cid")?;
    let columns = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
        .collect::<duckdb::Result<Vec<_>>>()?;
    if row_count == 0 {
        return Ok(IngestResponse::Rejected { message: "The file contains no data rows.".to_owned() });
    }
    if columns.len() > MAX_COLUMNS {
        return Ok(IngestResponse::Rejected {
            message: format!("The file has {} columns; at most {MAX_COLUMNS} are supported.", columns.len()),
        });
    }
    conn.execute_batch("CHECKPOINT ingested")?;
    Ok(IngestResponse::Ingested { row_count: row_count as u64, columns })
}

/// Turns a DuckDB error into a reason a person can act on, without leaking server paths.
fn classify(raw: &str, req: &IngestRequest) -> IngestResponse {
    let source = req.source.to_string_lossy();
    let msg = raw.replace(source.as_ref(), "the file");
    let line = line_number(&msg).map(|n| format!(" (line {n})")).unwrap_or_default();
    let format = req.format.as_str().to_uppercase();
    let rejected = |m: String| IngestResponse::Rejected { message: m };
    if msg.contains("Out of Memory") || msg.contains("memory limit") || msg.contains("failed to allocate") {
        return IngestResponse::TooBig {
            message: format!(
                "The file needs more memory to ingest than the limit of {} MB allows.",
                req.memory_limit_mb
            ),
        };
    }
    if msg.contains("Invalid unicode") || msg.contains("byte sequence mismatch") || msg.contains("not valid UTF-8") {
        return rejected(format!(
            "The file is not valid UTF-8 text{line}. Save it with UTF-8 encoding and upload it again."
        ));
    }
    if msg.contains("Expected Number of Columns")
        || msg.contains("too many columns")
        || msg.contains("Too many columns")
    {
        return rejected(format!(
            "Rows have different numbers of columns{line}: {}",
            expectation(&msg).unwrap_or_else(|| "every row must have as many values as the header".to_owned())
        ));
    }
    if msg.contains("Maximum line size") {
        return rejected(format!("A line is longer than the maximum line size of 2 MB{line}."));
    }
    if msg.contains("Could not convert") {
        return rejected(format!("A value does not match its column's type{line}: {}", first_sentence(&msg)));
    }
    if matches!(req.format, DatasetFormat::Parquet) {
        return rejected(format!("The file is not a valid Parquet file: {}", first_sentence(&msg)));
    }
    if matches!(req.format, DatasetFormat::Json | DatasetFormat::Ndjson) && msg.contains("JSON") {
        return rejected(format!("The file is not valid {format}{line}: {}", first_sentence(&msg)));
    }
    rejected(format!("The file could not be read as {format}{line}: {}", first_sentence(&msg)))
}

/// DuckDB's `... Line: 17 ...` / `line 17` → 17.
fn line_number(msg: &str) -> Option<u64> {
    let lower = msg.to_ascii_lowercase();
    let at = lower.find("line: ").map(|i| i + 6).or_else(|| lower.find("line ").map(|i| i + 5))?;
    let digits: String = lower[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// `Expected Number of Columns: 3 Found: 4` → `expected 3 values, found 4`.
fn expectation(msg: &str) -> Option<String> {
    let after = &msg[msg.find("Expected Number of Columns: ")? + 28..];
    let expected: String = after.chars().take_while(char::is_ascii_digit).collect();
    let found_at = after.find("Found: ")? + 7;
    let found: String = after[found_at..].chars().take_while(char::is_ascii_digit).collect();
    Some(format!("expected {expected} values, found {found}"))
}

/// The first line of an error without DuckDB's category prefix, shortened.
fn first_sentence(msg: &str) -> String {
    let first = msg.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("unknown error");
    let first = first.split_once("Error: ").map_or(first, |(_, rest)| rest);
    let mut s: String = first.chars().take(200).collect();
    if s.len() < first.len() {
        s.push('…');
    }
    s
}

/// Paths of a dataset's content.
pub fn content_paths(datasets_dir: &Path, owner: &str, id: &str) -> [PathBuf; 4] {
    let dir = datasets_dir.join(owner);
    [
        dir.join(format!("{id}.duckdb")),
        dir.join(format!("{id}.duckdb.wal")),
        dir.join(format!("{id}.ingest.duckdb")),
        dir.join(format!("{id}.ingest.duckdb.wal")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(format: DatasetFormat) -> IngestRequest {
        IngestRequest {
            source: "/srv/aware/uploads/up_1.part".into(),
            target: "/tmp/x.duckdb".into(),
            format,
            memory_limit_mb: 1024,
            threads: 2,
            cpu_seconds: 60,
            max_file_bytes: 1 << 30,
        }
    }

    fn message(r: IngestResponse) -> String {
        match r {
            IngestResponse::Rejected { message } | IngestResponse::TooBig { message } => message,
            IngestResponse::Ingested { .. } => panic!("not an error"),
        }
    }

    #[test]
    fn a_quote_that_never_closes_is_found_and_quotes_inside_values_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        let found = |text: &str| {
            std::fs::write(&path, text).unwrap();
            unterminated_quote(&path, ',')
        };
        assert_eq!(found("name,note\nana,\"unterminated\nbo,fine\n"), Some(2));
        assert_eq!(found("name,note\nana,\"closed, with \"\"quotes\"\"\"\nbo,\"multi\nline\"\n"), None);
        assert_eq!(found("name,size\ntv,55\" screen\nbo,\"x\"\r\n"), None, "a quote inside a value opens nothing");
        assert_eq!(found("a,b\n1,\"\"\n"), None, "an empty quoted value");
        assert_eq!(found("a,b\n1,\"x\""), None, "closed at the end of the file");
        assert_eq!(found("\u{feff}\"Total,\",x\n1,2\n"), None, "a byte order mark before a quoted header");
    }

    #[test]
    fn ragged_rows_are_found_quote_aware() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        std::fs::write(&path, "a,b,c\n1,\"x,y\",3\n\"multi\nline\",2,3\n\n4,5\n").unwrap();
        assert_eq!(ragged_row(&path, ','), Some((6, 3, 2)));
        std::fs::write(&path, "a,b\r\n1,\"say \"\"hi\"\"\"\r\n").unwrap();
        assert_eq!(ragged_row(&path, ','), None);
        assert_eq!(header_delimiter(&path), Some(','));
        std::fs::write(&path, "a;b;\"c,d\"\n").unwrap();
        assert_eq!(header_delimiter(&path), Some(';'));
    }

    #[test]
    fn duckdb_errors_become_readable_reasons_without_paths() {
        let r = req(DatasetFormat::Csv);
        let m = message(classify(
            "Invalid Input Error: CSV Error on Line: 7\nOriginal Line: a,b,c,d\nExpected Number of Columns: 3 Found: 4\nfile=/srv/aware/uploads/up_1.part",
            &r,
        ));
        assert_eq!(m, "Rows have different numbers of columns (line 7): expected 3 values, found 4");
        let m = message(classify(
            "Invalid Input Error: Invalid unicode (byte sequence mismatch) detected in CSV file. Line: 2",
            &r,
        ));
        assert!(m.starts_with("The file is not valid UTF-8 text (line 2)"), "{m}");
        let m = message(classify("Some Error: failed reading /srv/aware/uploads/up_1.part", &r));
        assert!(!m.contains("/srv"), "paths never leak: {m}");
        assert!(m.starts_with("The file could not be read as CSV"), "{m}");
        let m =
            message(classify("Invalid Input Error: No magic bytes found at end of file", &req(DatasetFormat::Parquet)));
        assert!(m.starts_with("The file is not a valid Parquet file"), "{m}");
        assert!(matches!(classify("Out of Memory Error: could not allocate", &r), IngestResponse::TooBig { .. }));
    }
}
