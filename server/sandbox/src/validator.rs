//! The SQL validator: pure, no I/O. Untrusted SQL (from a model, or from a service) passes five
//! string/token/AST layers, and only its **canonical re-serialisation** is ever executed:
//!
//! 1. input hygiene — length, control characters, invisible format/bidi characters, non-ASCII
//!    whitespace (DuckDB and sqlparser disagree on these);
//! 2. token checks — exotic literals (dollar-quoted, `E'…'`, `X'…'`, …), placeholders and nested
//!    block comments, where the two tokenizers are known to differ;
//! 3. parse with sqlparser's DuckDB dialect — exactly one `SELECT` / `WITH … SELECT`;
//! 4. an AST **allowlist** — relations only the caller's tables or in-scope CTEs (no recursive
//!    CTEs, no quoted or qualified names), table functions only `unnest`/`range`/`generate_series`
//!    with small literal bounds, scalar and aggregate functions only from [`FUNCTIONS`], padding
//!    widths bounded, no clauses outside plain analytics;
//! 5. canonicalisation — `Display` of the AST, re-parsed and required to be a fixed point.
//!
//! Each rejection names its [`Rule`] and says in plain words what is not allowed. The worker
//! then cross-checks the canonical text with DuckDB's own parser and binder before running it.

// sqlparser's AST has hundreds of kinds of statements, expressions and tokens, and gains more
// with each release: this module lists what it allows, and its `_` arms are the refusals of
// everything else — a kind a release adds is refused until someone allows it here.
#![allow(clippy::wildcard_enum_match_arm)]

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName, ObjectNamePart, Query, SetExpr, Statement,
    TableFactor, UnaryOperator, Value, Visit, Visitor,
};
use sqlparser::dialect::DuckDbDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};
use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::ops::ControlFlow;

/// Limits of the validator.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Longest accepted query, in bytes.
    pub max_len: usize,
    /// Largest number of rows `range`/`generate_series` may produce.
    pub max_generator_rows: i128,
    /// Largest product of the rows of every generator in a query: generators crossed with one
    /// another build that many rows (DuckDB's own plan estimates a date spine as one row, so its
    /// product-join check cannot see this).
    pub max_generator_product: i128,
    /// Largest `lpad`/`rpad` width.
    pub max_pad_width: i128,
    /// Most expression nodes in one query (guards against 3,000-term ORs and the like).
    pub max_expressions: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            max_len: 16 * 1024,
            max_generator_rows: 1_000_000,
            max_generator_product: 100_000_000,
            max_pad_width: 1000,
            max_expressions: 5000,
        }
    }
}

/// Which rule refused a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Empty,
    TooLong,
    ControlCharacter,
    InvisibleCharacter,
    ExoticLiteral,
    NestedComment,
    Placeholder,
    Syntax,
    MultipleStatements,
    NotASelect,
    ForbiddenClause,
    RecursiveCte,
    UnknownTable,
    QualifiedName,
    QuotedTable,
    ForbiddenTableFunction,
    ForbiddenFunction,
    GeneratorTooLarge,
    /// Generators whose rows multiply past the bound: a resource limit more than a policy one.
    GeneratorProductTooLarge,
    PaddingTooLarge,
    TooComplex,
    NotCanonical,
}

impl Rule {
    /// A stable name for logs and error details.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Empty => "empty",
            Self::TooLong => "too_long",
            Self::ControlCharacter => "control_character",
            Self::InvisibleCharacter => "invisible_character",
            Self::ExoticLiteral => "exotic_literal",
            Self::NestedComment => "nested_comment",
            Self::Placeholder => "placeholder",
            Self::Syntax => "syntax",
            Self::MultipleStatements => "multiple_statements",
            Self::NotASelect => "not_a_select",
            Self::ForbiddenClause => "forbidden_clause",
            Self::RecursiveCte => "recursive_cte",
            Self::UnknownTable => "unknown_table",
            Self::QualifiedName => "qualified_name",
            Self::QuotedTable => "quoted_table",
            Self::ForbiddenTableFunction => "forbidden_table_function",
            Self::ForbiddenFunction => "forbidden_function",
            Self::GeneratorTooLarge => "generator_too_large",
            Self::GeneratorProductTooLarge => "generator_product_too_large",
            Self::PaddingTooLarge => "padding_too_large",
            Self::TooComplex => "too_complex",
            Self::NotCanonical => "not_canonical",
        }
    }
}

/// A refused query: the rule and a message a person understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub rule: Rule,
    pub message: String,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn reject<T>(rule: Rule, message: impl Into<String>) -> Result<T, Rejection> {
    Err(Rejection { rule, message: message.into() })
}

/// A query that passed every layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidatedSql {
    /// The only text that may be executed.
    pub canonical: String,
    /// The caller's tables the query reads (lower-case).
    pub tables: BTreeSet<String>,
}

/// Aggregate, window and scalar functions a query may call (lower-case). An allowlist on
/// purpose: anything new in DuckDB is refused until someone decides it is safe.
pub const FUNCTIONS: &[&str] = &[
    // aggregates
    "count",
    "sum",
    "avg",
    "mean",
    "min",
    "max",
    "median",
    "mode",
    "quantile",
    "quantile_cont",
    "quantile_disc",
    "percentile_cont",
    "percentile_disc",
    "stddev",
    "stddev_samp",
    "stddev_pop",
    "variance",
    "var_samp",
    "var_pop",
    "corr",
    "covar_samp",
    "covar_pop",
    "regr_slope",
    "regr_intercept",
    "regr_r2",
    "regr_count",
    "regr_avgx",
    "regr_avgy",
    "approx_count_distinct",
    "approx_quantile",
    "any_value",
    "first",
    "last",
    "arg_min",
    "arg_max",
    "argmin",
    "argmax",
    "min_by",
    "max_by",
    "bool_and",
    "bool_or",
    "count_if",
    "countif",
    "string_agg",
    "group_concat",
    "listagg",
    "list",
    "array_agg",
    "histogram",
    "entropy",
    "kurtosis",
    "skewness",
    "product",
    "fsum",
    "geomean",
    "mad",
    // window
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    // math
    "abs",
    "round",
    "ceil",
    "ceiling",
    "floor",
    "trunc",
    "sign",
    "sqrt",
    "cbrt",
    "pow",
    "power",
    "exp",
    "ln",
    "log",
    "log10",
    "log2",
    "mod",
    "greatest",
    "least",
    "pi",
    "radians",
    "degrees",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "isnan",
    "isinf",
    "isfinite",
    "gcd",
    "lcm",
    "round_even",
    "random",
    // text
    "lower",
    "upper",
    "lcase",
    "ucase",
    "length",
    "len",
    "char_length",
    "strlen",
    "trim",
    "ltrim",
    "rtrim",
    "substring",
    "substr",
    "left",
    "right",
    "replace",
    "concat",
    "concat_ws",
    "contains",
    "starts_with",
    "ends_with",
    "prefix",
    "suffix",
    "strpos",
    "instr",
    "position",
    "split_part",
    "string_split",
    "str_split",
    "regexp_matches",
    "regexp_replace",
    "regexp_extract",
    "regexp_full_match",
    "reverse",
    "md5",
    "hash",
    "sha256",
    "levenshtein",
    "jaro_winkler_similarity",
    "damerau_levenshtein",
    "hamming",
    "ascii",
    "chr",
    "strip_accents",
    "nfc_normalize",
    "array_to_string",
    "lpad",
    "rpad",
    "ilike_escape",
    "like_escape",
    "format_bytes",
    // dates and times
    "now",
    "current_date",
    "current_timestamp",
    "today",
    "date_trunc",
    "datetrunc",
    "date_part",
    "datepart",
    "date_diff",
    "datediff",
    "date_sub",
    "datesub",
    "date_add",
    "extract",
    "year",
    "month",
    "day",
    "dayofweek",
    "dayofmonth",
    "dayofyear",
    "week",
    "weekofyear",
    "quarter",
    "hour",
    "minute",
    "second",
    "epoch",
    "epoch_ms",
    "strftime",
    "strptime",
    "try_strptime",
    "make_date",
    "make_timestamp",
    "to_timestamp",
    "last_day",
    "monthname",
    "dayname",
    "age",
    "to_days",
    "to_months",
    "to_years",
    "to_hours",
    "to_minutes",
    "to_seconds",
    "time_bucket",
    "isodow",
    "isoyear",
    "yearweek",
    // conditionals, lists, structs
    "coalesce",
    "ifnull",
    "nullif",
    "if",
    "iff",
    "list_value",
    "list_extract",
    "list_element",
    "list_slice",
    "list_sort",
    "list_reverse_sort",
    "list_distinct",
    "list_unique",
    "list_contains",
    "list_has",
    "list_position",
    "list_sum",
    "list_avg",
    "list_min",
    "list_max",
    "list_count",
    "array_length",
    "flatten",
    "list_transform",
    "list_filter",
    "struct_pack",
    "struct_extract",
    "element_at",
    "cardinality",
    "unnest",
    "columns",
    "json_extract",
    "json_extract_string",
    "typeof",
    "try_cast",
];

/// Table functions a query may use in FROM, with literal bounds.
pub const TABLE_FUNCTIONS: &[&str] = &["unnest", "range", "generate_series"];

/// Functions that touch files, the network, the catalog or the configuration: refused with a
/// message that says why (they are refused anyway by not being in [`FUNCTIONS`]).
fn outside_world(name: &str) -> bool {
    name.starts_with("read_")
        || name.starts_with("duckdb_")
        || name.starts_with("pragma_")
        || name.starts_with("sqlite_")
        || name.starts_with("postgres_")
        || name.starts_with("mysql_")
        || name.starts_with("parquet_")
        || name.starts_with("iceberg_")
        || name.starts_with("delta_")
        || name.starts_with("http")
        || matches!(
            name,
            "glob"
                | "sniff_csv"
                | "query"
                | "query_table"
                | "getenv"
                | "current_setting"
                | "getvariable"
                | "which_secret"
                | "load_extension"
                | "parquet_scan"
                | "csv_scan"
                | "json_serialize_sql"
                | "version"
                | "nextval"
                | "currval"
                | "setseed"
        )
}

/// Validates `sql` against the caller's `tables` (their SQL table names).
pub fn validate(sql: &str, tables: &HashSet<String>, policy: &Policy) -> Result<ValidatedSql, Rejection> {
    hygiene(sql, policy)?;
    tokens(sql)?;
    let query = parse_one_select(sql)?;
    let lowered: HashSet<String> = tables.iter().map(|t| t.to_lowercase()).collect();
    let mut checker =
        Checker { tables: &lowered, policy, frames: Vec::new(), used: BTreeSet::new(), expressions: 0, generated: 1 };
    if let ControlFlow::Break(r) = query.visit(&mut checker) {
        return Err(r);
    }
    let canonical = query.to_string();
    match parse_one_select(&canonical) {
        Ok(again) if again.to_string() == canonical => {}
        _ => return reject(Rule::NotCanonical, "the query could not be brought into a canonical form; simplify it"),
    }
    Ok(ValidatedSql { canonical, tables: checker.used })
}

/// `sql` with every reference to table `from` naming `to` instead (a saved query follows its
/// dataset's rename). Refused like any query when it does not parse as one SELECT.
pub fn rename_table(sql: &str, from: &str, to: &str) -> Result<String, Rejection> {
    use sqlparser::ast::{Ident, visit_expressions_mut, visit_relations_mut};
    let mut query = parse_one_select(sql)?;
    let is_from = |ident: &Ident| ident.value.eq_ignore_ascii_case(from);
    let _ = visit_relations_mut(&mut query, |name: &mut ObjectName| {
        if let [ObjectNamePart::Identifier(ident)] = name.0.as_mut_slice()
            && is_from(ident)
        {
            *ident = Ident::new(to);
        }
        ControlFlow::<()>::Continue(())
    });
    let _ = visit_expressions_mut(&mut query, |expr: &mut Expr| {
        if let Expr::CompoundIdentifier(parts) = expr
            && parts.len() >= 2
            && is_from(&parts[0])
        {
            parts[0] = Ident::new(to);
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(query.to_string())
}

/// The single-part table names `sql` reads (lower-case, sorted, each once; a CTE's name counts).
/// Refused like any query when it does not parse as one SELECT.
pub fn tables_named(sql: &str) -> Result<Vec<String>, Rejection> {
    use sqlparser::ast::visit_relations;
    let query = parse_one_select(sql)?;
    let mut names = std::collections::BTreeSet::new();
    let _ = visit_relations(&query, |name: &ObjectName| {
        if let [ObjectNamePart::Identifier(ident)] = name.0.as_slice() {
            names.insert(ident.value.to_lowercase());
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(names.into_iter().collect())
}

/// Layer 1: characters.
fn hygiene(sql: &str, policy: &Policy) -> Result<(), Rejection> {
    if sql.trim().is_empty() {
        return reject(Rule::Empty, "the query is empty");
    }
    if sql.len() > policy.max_len {
        return reject(Rule::TooLong, format!("the query is longer than {} bytes", policy.max_len));
    }
    for c in sql.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            return reject(
                Rule::ControlCharacter,
                format!("the query contains a control character (U+{:04X}); use plain spaces and newlines", c as u32),
            );
        }
        if aware_domain::dataset::is_format_char(c) || matches!(c, '\u{2028}' | '\u{2029}') {
            return reject(
                Rule::InvisibleCharacter,
                format!("the query contains an invisible formatting character (U+{:04X})", c as u32),
            );
        }
        if c.is_whitespace() && !c.is_ascii() {
            return reject(
                Rule::InvisibleCharacter,
                format!("the query contains non-ASCII whitespace (U+{:04X}); use plain spaces", c as u32),
            );
        }
    }
    Ok(())
}

/// Layer 2: tokens where sqlparser and DuckDB are known to disagree.
fn tokens(sql: &str) -> Result<(), Rejection> {
    let tokens = Tokenizer::new(&DuckDbDialect {}, sql).tokenize().map_err(|e| Rejection {
        rule: Rule::Syntax,
        message: format!("the query could not be read: {}", e.message),
    })?;
    let mut previous: Option<&Token> = None;
    let mut before_previous: Option<&Token> = None;
    for token in &tokens {
        match token {
            Token::Whitespace(Whitespace::MultiLineComment(body)) if body.contains("/*") => {
                return reject(Rule::NestedComment, "nested block comments are not allowed");
            }
            Token::Placeholder(p) => {
                return reject(Rule::Placeholder, format!("parameters such as `{p}` are not allowed; write the value"));
            }
            Token::DollarQuotedString(_)
            | Token::EscapedStringLiteral(_)
            | Token::NationalStringLiteral(_)
            | Token::HexStringLiteral(_)
            | Token::UnicodeStringLiteral(_)
            | Token::SingleQuotedByteStringLiteral(_)
            | Token::DoubleQuotedByteStringLiteral(_)
            | Token::TripleSingleQuotedByteStringLiteral(_)
            | Token::TripleDoubleQuotedByteStringLiteral(_)
            | Token::SingleQuotedRawStringLiteral(_)
            | Token::DoubleQuotedRawStringLiteral(_)
            | Token::TripleSingleQuotedRawStringLiteral(_)
            | Token::TripleDoubleQuotedRawStringLiteral(_)
            | Token::TripleSingleQuotedString(_)
            | Token::TripleDoubleQuotedString(_)
            | Token::QuoteDelimitedStringLiteral(_)
            | Token::NationalQuoteDelimitedStringLiteral(_) => {
                return reject(Rule::ExoticLiteral, "only plain 'single-quoted' string literals are allowed");
            }
            Token::SingleQuotedString(_) if matches!(previous, Some(Token::Word(_))) => {
                return reject(
                    Rule::ExoticLiteral,
                    "a word glued to a string literal (like E'…' or X'…') is not allowed; put a space between them",
                );
            }
            // U&'…' (unicode-escape strings in PostgreSQL) reads as `U & '…'` to sqlparser.
            Token::SingleQuotedString(_)
                if matches!(previous, Some(Token::Ampersand)) && matches!(before_previous, Some(Token::Word(_))) =>
            {
                return reject(Rule::ExoticLiteral, "unicode-escape strings (U&'…') are not allowed");
            }
            _ => {}
        }
        before_previous = previous;
        previous = Some(token);
    }
    Ok(())
}

/// Layer 3: exactly one SELECT.
fn parse_one_select(sql: &str) -> Result<Box<Query>, Rejection> {
    let statements = Parser::new(&DuckDbDialect {})
        .with_recursion_limit(40)
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| Rejection { rule: Rule::Syntax, message: format!("the query could not be parsed: {e}") })?;
    let mut statements = statements.into_iter();
    let (Some(first), None) = (statements.next(), statements.next()) else {
        return reject(Rule::MultipleStatements, "send exactly one SELECT query (no `;`-separated statements)");
    };
    match first {
        Statement::Query(q) => {
            if matches!(*q.body, SetExpr::Values(_)) {
                return reject(Rule::NotASelect, "a bare VALUES list is not a query over your datasets");
            }
            Ok(q)
        }
        other => reject(Rule::NotASelect, format!("only SELECT queries are allowed, not {}", statement_kind(&other))),
    }
}

fn statement_kind(s: &Statement) -> String {
    let text = s.to_string();
    let word: String = text.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
    format!("`{}`", word.to_uppercase())
}

/// One query scope: the CTE bodies declared by its WITH that are not finished yet, and the CTE
/// names already visible (declared earlier and finished).
struct Frame {
    query: *const Query,
    pending: Vec<(*const Query, String)>,
    visible: Vec<String>,
}

struct Checker<'a> {
    tables: &'a HashSet<String>,
    policy: &'a Policy,
    frames: Vec<Frame>,
    used: BTreeSet<String>,
    expressions: usize,
    /// The product of the rows of the generators seen so far.
    generated: i128,
}

type Flow = ControlFlow<Rejection>;

fn stop(rule: Rule, message: impl Into<String>) -> Flow {
    ControlFlow::Break(Rejection { rule, message: message.into() })
}

impl Checker<'_> {
    fn cte_visible(&self, name: &str) -> bool {
        self.frames.iter().any(|f| f.visible.iter().any(|v| v == name))
    }

    fn check_table(&mut self, name: &ObjectName) -> Flow {
        let [ObjectNamePart::Identifier(ident)] = name.0.as_slice() else {
            return stop(
                Rule::QualifiedName,
                format!("`{name}`: refer to tables by their plain name (no schema or database prefix)"),
            );
        };
        if matches!(ident.quote_style, Some(q) if q != '"') {
            return stop(
                Rule::QuotedTable,
                format!("`{ident}` is not allowed: queries may only read your datasets, not files or URLs"),
            );
        }
        let lower = ident.value.to_lowercase();
        if self.cte_visible(&lower) {
            return ControlFlow::Continue(());
        }
        if self.tables.contains(&lower) {
            self.used.insert(lower);
            return ControlFlow::Continue(());
        }
        if lower.contains('/') || lower.contains('.') || lower.contains(':') {
            return stop(
                Rule::QuotedTable,
                format!("`{}` is not allowed: queries may only read your datasets, not files or URLs", ident.value),
            );
        }
        let mut known: Vec<&String> = self.tables.iter().collect();
        known.sort();
        let list = if known.is_empty() {
            "you have no datasets yet".to_owned()
        } else {
            format!("your datasets are {}", known.iter().take(12).map(|t| t.as_str()).collect::<Vec<_>>().join(", "))
        };
        stop(Rule::UnknownTable, format!("unknown table `{}`: {list}", ident.value))
    }

    fn check_generator(&mut self, name: &str, args: &[FunctionArg]) -> Flow {
        if name == "unnest" {
            return ControlFlow::Continue(());
        }
        if let Some(rows) = date_spine_rows(args) {
            if rows > self.policy.max_generator_rows {
                return stop(
                    Rule::GeneratorTooLarge,
                    format!(
                        "`{name}` would produce {rows} rows; at most {} are allowed",
                        self.policy.max_generator_rows
                    ),
                );
            }
            return self.count_generated(rows);
        }
        let ints: Option<Vec<i128>> = args.iter().map(int_literal_arg).collect();
        let Some(ints) = ints else {
            return stop(
                Rule::GeneratorTooLarge,
                format!(
                    "`{name}` needs whole-number literal arguments (at most {} rows)",
                    self.policy.max_generator_rows
                ),
            );
        };
        let (start, end, step) = match ints.as_slice() {
            [end] => (0, *end, 1),
            [start, end] => (*start, *end, 1),
            [start, end, step] => (*start, *end, *step),
            _ => return stop(Rule::GeneratorTooLarge, format!("`{name}` takes one to three arguments")),
        };
        if step == 0 {
            return stop(Rule::GeneratorTooLarge, format!("`{name}` needs a non-zero step"));
        }
        let rows = (end - start) / step;
        if rows > self.policy.max_generator_rows {
            return stop(
                Rule::GeneratorTooLarge,
                format!("`{name}` would produce {rows} rows; at most {} are allowed", self.policy.max_generator_rows),
            );
        }
        self.count_generated(rows)
    }

    /// Multiplies a generator's rows into the query's product (an upper bound: generators that are
    /// never joined are counted as if they were).
    fn count_generated(&mut self, rows: i128) -> Flow {
        self.generated = self.generated.saturating_mul(rows.max(1));
        if self.generated > self.policy.max_generator_product {
            return stop(
                Rule::GeneratorProductTooLarge,
                format!(
                    "the query crosses generators that would build about {} rows (at most {}); generate fewer rows or join on a condition",
                    self.generated, self.policy.max_generator_product
                ),
            );
        }
        ControlFlow::Continue(())
    }
}

/// Rows of a date spine `(DATE|TIMESTAMP 'YYYY-MM-DD…', DATE|TIMESTAMP '…', INTERVAL n unit)`
/// with a step of a day or more; `None` when the arguments are not of that shape.
fn date_spine_rows(args: &[FunctionArg]) -> Option<i128> {
    let [start, end, step] = args else { return None };
    let day = |a: &FunctionArg| -> Option<i128> {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::TypedString(t))) = a else { return None };
        day_number(t.value.value.to_string().trim_matches('\''))
    };
    let span = day(end)? - day(start)?;
    let FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Interval(interval))) = step else { return None };
    let count = int_literal(&interval.value).or_else(|| match &*interval.value {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => s.split_whitespace().next()?.parse().ok(),
            _ => None,
        },
        _ => None,
    })?;
    let unit = interval.leading_field.as_ref().map(|f| f.to_string().to_lowercase()).unwrap_or_default();
    let days_per = match unit.as_str() {
        "day" | "days" => 1,
        "week" | "weeks" => 7,
        "month" | "months" => 31,
        "quarter" | "quarters" => 93,
        "year" | "years" => 372,
        _ => return None,
    };
    (count > 0).then(|| span.max(0) / (count * days_per) + 1)
}

/// A date (or timestamp) literal as a day count: `[-]YYYY…-MM-DD`, with a year of any length
/// and sign (DuckDB takes `-100000-01-01`), optionally followed by a time. Monotonic and at least
/// as dense as real days. `None` for anything else — a `BC` suffix, `infinity`, a malformed
/// date — which leaves the generator refused.
fn day_number(text: &str) -> Option<i128> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let year_len = unsigned.find('-')?;
    let (year, rest) = unsigned.split_at(year_len);
    let date = rest.get(1..6)?;
    let time = &rest[6..];
    if year.is_empty()
        || year.len() > 9
        || !year.bytes().all(|b| b.is_ascii_digit())
        || !date.bytes().enumerate().all(|(i, b)| if i == 2 { b == b'-' } else { b.is_ascii_digit() })
        || !(time.is_empty() || time.starts_with([' ', 'T']))
        || time.to_ascii_uppercase().contains("BC")
    {
        return None;
    }
    let year: i128 = year.parse().ok()?;
    let (m, d): (i128, i128) = (date[..2].parse().ok()?, date[3..].parse().ok()?);
    Some(if negative { -year } else { year } * 372 + m * 31 + d)
}

/// An integer literal argument, possibly negated.
fn int_literal_arg(arg: &FunctionArg) -> Option<i128> {
    let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg else { return None };
    int_literal(e)
}

fn int_literal(e: &Expr) -> Option<i128> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.replace('_', "").parse().ok(),
            _ => None,
        },
        Expr::UnaryOp { op: UnaryOperator::Minus, expr } => int_literal(expr).map(|n| -n),
        Expr::Nested(inner) => int_literal(inner),
        _ => None,
    }
}

fn function_args(args: &FunctionArguments) -> &[FunctionArg] {
    match args {
        FunctionArguments::List(list) => &list.args,
        FunctionArguments::None | FunctionArguments::Subquery(_) => &[],
    }
}

impl Visitor for Checker<'_> {
    type Break = Rejection;

    fn pre_visit_query(&mut self, query: &Query) -> Flow {
        if !query.locks.is_empty()
            || query.for_clause.is_some()
            || query.settings.is_some()
            || query.format_clause.is_some()
            || !query.pipe_operators.is_empty()
        {
            return stop(Rule::ForbiddenClause, "locking, FOR, SETTINGS, FORMAT and pipe clauses are not allowed");
        }
        let mut pending = Vec::new();
        if let Some(with) = &query.with {
            if with.recursive {
                return stop(Rule::RecursiveCte, "WITH RECURSIVE is not allowed");
            }
            for cte in &with.cte_tables {
                pending.push((&*cte.query as *const Query, cte.alias.name.value.to_lowercase()));
            }
        }
        match &*query.body {
            SetExpr::Select(_) | SetExpr::Query(_) | SetExpr::SetOperation { .. } | SetExpr::Values(_) => {}
            SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => {
                return stop(
                    Rule::NotASelect,
                    "queries may only read: INSERT, UPDATE, DELETE and MERGE are not allowed",
                );
            }
            SetExpr::Table(_) => {
                return stop(Rule::ForbiddenClause, "`TABLE name` is not allowed; write SELECT * FROM name");
            }
        }
        self.frames.push(Frame { query, pending, visible: Vec::new() });
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &Query) -> Flow {
        if self.frames.last().is_some_and(|f| std::ptr::eq(f.query, query)) {
            self.frames.pop();
        }
        // A finished CTE body becomes visible to the CTEs after it and to the main body.
        if let Some(frame) = self.frames.last_mut()
            && let Some(i) = frame.pending.iter().position(|(q, _)| std::ptr::eq(*q, query))
        {
            let (_, name) = frame.pending.remove(i);
            frame.visible.push(name);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &sqlparser::ast::Select) -> Flow {
        if select.into.is_some() {
            return stop(Rule::NotASelect, "SELECT … INTO creates a table and is not allowed");
        }
        if !select.lateral_views.is_empty()
            || select.prewhere.is_some()
            || !select.connect_by.is_empty()
            || select.top.is_some()
            || select.value_table_mode.is_some()
            || !select.cluster_by.is_empty()
            || !select.distribute_by.is_empty()
            || !select.sort_by.is_empty()
        {
            return stop(
                Rule::ForbiddenClause,
                "that clause is not supported; use standard SELECT … FROM … WHERE … GROUP BY …",
            );
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> Flow {
        match factor {
            TableFactor::Table { name, args, with_hints, version, partitions, json_path, index_hints, .. } => {
                if !with_hints.is_empty()
                    || version.is_some()
                    || !partitions.is_empty()
                    || json_path.is_some()
                    || !index_hints.is_empty()
                {
                    return stop(
                        Rule::ForbiddenClause,
                        format!("table hints, versions and partitions are not allowed (`{name}`)"),
                    );
                }
                match args {
                    None => self.check_table(name),
                    Some(args) => {
                        let [ObjectNamePart::Identifier(ident)] = name.0.as_slice() else {
                            return stop(Rule::QualifiedName, format!("`{name}`: call functions by their plain name"));
                        };
                        let lower = ident.value.to_lowercase();
                        if !TABLE_FUNCTIONS.contains(&lower.as_str()) {
                            return stop(
                                Rule::ForbiddenTableFunction,
                                format!("`{}` is not allowed: queries may only read your datasets", ident.value),
                            );
                        }
                        self.check_generator(&lower, &args.args)
                    }
                }
            }
            TableFactor::Derived { .. } | TableFactor::NestedJoin { .. } | TableFactor::UNNEST { .. } => {
                ControlFlow::Continue(())
            }
            other => stop(
                Rule::ForbiddenClause,
                format!("`{}` is not allowed in FROM", other.to_string().split_whitespace().next().unwrap_or("that")),
            ),
        }
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> Flow {
        self.expressions += 1;
        if self.expressions > self.policy.max_expressions {
            return stop(
                Rule::TooComplex,
                format!("the query has more than {} expressions", self.policy.max_expressions),
            );
        }
        match expr {
            Expr::Value(v) if matches!(v.value, Value::Placeholder(_)) => {
                stop(Rule::Placeholder, "parameters are not allowed; write the value")
            }
            Expr::Function(f) => {
                let [ObjectNamePart::Identifier(ident)] = f.name.0.as_slice() else {
                    return stop(Rule::QualifiedName, format!("`{}`: call functions by their plain name", f.name));
                };
                let lower = ident.value.to_lowercase();
                if !matches!(f.parameters, FunctionArguments::None) {
                    return stop(Rule::ForbiddenFunction, format!("`{}` with parameters is not allowed", ident.value));
                }
                if outside_world(&lower) {
                    return stop(
                        Rule::ForbiddenFunction,
                        format!("`{}` is not allowed: queries may only read your datasets", ident.value),
                    );
                }
                if !FUNCTIONS.contains(&lower.as_str()) {
                    return stop(
                        Rule::ForbiddenFunction,
                        format!("the function `{}` is not allowed in queries", ident.value),
                    );
                }
                if matches!(lower.as_str(), "lpad" | "rpad") {
                    let width = function_args(&f.args).get(1).and_then(int_literal_arg);
                    if !width.is_some_and(|w| (0..=self.policy.max_pad_width).contains(&w)) {
                        return stop(
                            Rule::PaddingTooLarge,
                            format!("`{lower}` needs a literal width of at most {}", self.policy.max_pad_width),
                        );
                    }
                }
                ControlFlow::Continue(())
            }
            _ => ControlFlow::Continue(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables() -> HashSet<String> {
        ["barcelona_apartments", "customer_churn"].into_iter().map(String::from).collect()
    }

    fn ok(sql: &str) -> ValidatedSql {
        validate(sql, &tables(), &Policy::default()).unwrap_or_else(|r| panic!("{sql}: {r:?}"))
    }

    fn rule(sql: &str) -> Rule {
        match validate(sql, &tables(), &Policy::default()) {
            Ok(v) => panic!("{sql} should be refused, got {}", v.canonical),
            Err(r) => r.rule,
        }
    }

    #[test]
    fn analytics_pass_and_only_the_canonical_text_remains() {
        let v = ok(
            "select neighbourhood, avg(price_eur) as avg_price -- comment\nfrom Barcelona_Apartments group by 1 order by 2 desc limit 5",
        );
        assert!(!v.canonical.contains("comment"), "comments never reach DuckDB: {}", v.canonical);
        assert_eq!(v.tables, BTreeSet::from(["barcelona_apartments".to_owned()]));
        ok("WITH a AS (SELECT * FROM barcelona_apartments), b AS (SELECT count(*) AS n FROM a) SELECT n FROM b");
        ok("SELECT plan, count(*) FILTER (WHERE churned) FROM customer_churn GROUP BY ALL");
        ok(
            "SELECT *, row_number() OVER (PARTITION BY plan ORDER BY tenure_months DESC) AS r FROM customer_churn QUALIFY r <= 3",
        );
        ok(
            "SELECT a.bedrooms, c.plan FROM barcelona_apartments a JOIN customer_churn c ON a.listing_id = c.tenure_months",
        );
        ok("SELECT d FROM generate_series(1, 10) AS t(d)");
        ok("SELECT lpad(neighbourhood, 20, '.') FROM barcelona_apartments");
        ok("SELECT date_trunc('month', listed_on), count(*) FROM barcelona_apartments GROUP BY 1");
        ok("SELECT d FROM generate_series(DATE '2024-01-01', DATE '2024-12-31', INTERVAL 1 DAY) AS t(d)");
    }

    #[test]
    fn every_layer_refuses_with_a_named_rule() {
        assert_eq!(rule(""), Rule::Empty);
        assert_eq!(rule(&format!("SELECT {} FROM customer_churn", "1+".repeat(9000) + "1")), Rule::TooLong);
        assert_eq!(rule("SELECT 1 AS a --x\rUNION ALL SELECT count(*) FROM other"), Rule::ControlCharacter);
        assert_eq!(rule("SELECT 1\u{202E} FROM customer_churn"), Rule::InvisibleCharacter);
        assert_eq!(rule("SELECT\u{00A0}1"), Rule::InvisibleCharacter);
        assert_eq!(rule("SELECT 1 /* /* */ ' */ , 2 --'"), Rule::NestedComment);
        assert_eq!(rule("SELECT $$x$$"), Rule::ExoticLiteral);
        assert_eq!(rule("SELECT E'\\x41'"), Rule::ExoticLiteral);
        assert_eq!(rule("SELECT * FROM customer_churn WHERE plan = $1"), Rule::Placeholder);
        assert_eq!(rule("SELECT 1; DROP TABLE customer_churn"), Rule::MultipleStatements);
        assert_eq!(rule("DELETE FROM customer_churn"), Rule::NotASelect);
        assert_eq!(rule("VALUES (1)"), Rule::NotASelect);
        assert_eq!(rule("WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r"), Rule::RecursiveCte);
        assert_eq!(rule("SELECT * FROM other_users_table"), Rule::UnknownTable);
        assert_eq!(rule("SELECT * FROM main.customer_churn"), Rule::QualifiedName);
        assert_eq!(rule("SELECT * FROM '/etc/passwd'"), Rule::QuotedTable);
        assert_eq!(rule("SELECT * FROM \"/etc/passwd\""), Rule::QuotedTable);
        assert_eq!(rule("SELECT * FROM read_csv('/etc/passwd')"), Rule::ForbiddenTableFunction);
        assert_eq!(rule("SELECT * FROM query('SELECT 1')"), Rule::ForbiddenTableFunction);
        assert_eq!(rule("SELECT current_setting('home_directory')"), Rule::ForbiddenFunction);
        assert_eq!(rule("SELECT repeat('x', 100000000)"), Rule::ForbiddenFunction);
        assert_eq!(rule("SELECT system.main.read_text('/etc/passwd')"), Rule::QualifiedName);
        assert_eq!(rule("SELECT * FROM range(1000000000000)"), Rule::GeneratorTooLarge);
        assert_eq!(
            rule("SELECT * FROM generate_series(DATE '0001-01-01', DATE '9999-12-31', INTERVAL 1 DAY)"),
            Rule::GeneratorTooLarge
        );
        assert_eq!(
            rule("SELECT * FROM generate_series(DATE '2024-01-01', DATE '2024-12-31', INTERVAL 1 SECOND)"),
            Rule::GeneratorTooLarge
        );
        // Six-digit and negative years are real days too (about 37 million of them here).
        for spine in [
            "generate_series(DATE '-100000-01-01', DATE '2000-01-01', INTERVAL 1 DAY)",
            "generate_series(DATE '2000-01-01', DATE '102000-01-01', INTERVAL 1 DAY)",
            "range(TIMESTAMP '-099999-06-01 00:00:00', TIMESTAMP '0001-01-01', INTERVAL 1 DAY)",
            "generate_series(DATE '0044-03-15 (BC)', DATE '2000-01-01', INTERVAL 1 DAY)",
            "generate_series(DATE 'infinity', DATE '2000-01-01', INTERVAL 1 DAY)",
        ] {
            assert_eq!(rule(&format!("SELECT * FROM {spine}")), Rule::GeneratorTooLarge, "{spine}");
        }
        assert_eq!(day_number("2024-03-05"), Some(2024 * 372 + 3 * 31 + 5));
        assert_eq!(day_number("-100000-01-01"), Some(-100_000 * 372 + 31 + 1));
        assert_eq!(day_number("2024-03-05T10:00:00"), day_number("2024-03-05"));
        for bad in ["2024-3-05", "20x4-03-05", "-2024", "2024-03-05BC", "", "--2024-03-05"] {
            assert_eq!(day_number(bad), None, "{bad}");
        }
        let spine = "generate_series(DATE '1800-01-01', DATE '2100-01-01', INTERVAL 1 DAY)";
        assert_eq!(rule(&format!("SELECT count(*) FROM {spine} a, {spine} b")), Rule::GeneratorProductTooLarge);
        assert_eq!(rule("SELECT * FROM range(1000000) a, range(1000000) b"), Rule::GeneratorProductTooLarge);
        ok(&format!("SELECT count(*) FROM {spine} a, range(100) b"));
        assert_eq!(rule("SELECT U&'\\0041'"), Rule::ExoticLiteral);
        assert_eq!(rule("SELECT lpad('x', 2000000000, 'y')"), Rule::PaddingTooLarge);
        assert_eq!(
            rule("WITH customer_churn AS (SELECT * FROM d_other) SELECT * FROM customer_churn"),
            Rule::UnknownTable
        );
        assert_eq!(
            rule("WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a"),
            Rule::UnknownTable,
            "forward reference"
        );
        assert_eq!(
            rule("SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x) t, x"),
            Rule::UnknownTable,
            "scope escape"
        );
    }

    #[test]
    fn messages_say_what_is_not_allowed() {
        let r = validate("SELECT * FROM read_csv('/etc/passwd')", &tables(), &Policy::default()).unwrap_err();
        assert_eq!(r.message, "`read_csv` is not allowed: queries may only read your datasets");
        let r = validate("SELECT * FROM nope", &tables(), &Policy::default()).unwrap_err();
        assert_eq!(r.message, "unknown table `nope`: your datasets are barcelona_apartments, customer_churn");
    }

    #[test]
    fn the_tables_a_query_reads_are_named_once_each() {
        let sql = "SELECT plan, count(*) FROM customer_churn JOIN Barcelona_Apartments b ON true \
                   WHERE plan IN (SELECT plan FROM CUSTOMER_CHURN) GROUP BY 1";
        assert_eq!(tables_named(sql).unwrap(), ["barcelona_apartments", "customer_churn"]);
        assert_eq!(tables_named("DELETE FROM customer_churn").unwrap_err().rule, Rule::NotASelect);
    }

    #[test]
    fn a_rename_follows_every_reference_and_only_those() {
        let sql = "SELECT customer_churn.plan, count(*) FROM customer_churn JOIN barcelona_apartments b ON true \
                   WHERE plan IN (SELECT plan FROM Customer_Churn) GROUP BY 1";
        let renamed = rename_table(sql, "customer_churn", "churn_2026").unwrap();
        assert!(!renamed.to_lowercase().contains("customer_churn"), "{renamed}");
        assert_eq!(renamed.matches("churn_2026").count(), 3, "{renamed}");
        assert!(renamed.contains("barcelona_apartments b"), "{renamed}");
        let validated = validate(
            &renamed,
            &["churn_2026".to_owned(), "barcelona_apartments".to_owned()].into(),
            &Policy::default(),
        );
        assert!(validated.is_ok(), "{validated:?}");
        assert_eq!(
            rename_table("DROP TABLE customer_churn", "customer_churn", "x").unwrap_err().rule,
            Rule::NotASelect
        );
    }
}
