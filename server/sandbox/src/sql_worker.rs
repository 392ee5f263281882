//! The SQL worker process (`aware-server worker sql`): the place where untrusted SQL meets DuckDB.
//!
//! Threat model: the SQL text comes from a language model or a remote service and may be written
//! by an attacker (prompt injection through the user's own data). It has already passed the
//! validator, but the worker assumes the validator can be wrong. Defences, outermost first:
//!
//! * **Process**: a separate process with an empty environment, killed by the parent on any
//!   deadline, I/O error or limit breach (the parent's guard kills and reaps it).
//! * **OS limits**: `RLIMIT_AS` (address space), `RLIMIT_NOFILE`, `RLIMIT_FSIZE` = 0 (it never
//!   writes files), `RLIMIT_CORE` = 0, and a soft `RLIMIT_CPU` re-armed before every query to the
//!   CPU already used plus the query's budget (deadline × threads + 2 s), so a query the watchdog
//!   cannot interrupt is killed by the kernel.
//! * **Binding**: the first query binds the worker to one user for its whole life. Landlock then
//!   allows reading that user's dataset folder and nothing else on the file system, and no TCP
//!   connect/bind; a seccomp filter refuses to create internet sockets at all. These hold even for
//!   SQL DuckDB would happily run (see the test probes).
//! * **DuckDB**: an in-memory instance that attaches **only the caller's tables**, read-only, as
//!   views with their SQL names; then external access off, extensions neither installed nor
//!   loaded, configuration locked, a memory limit, few threads, no temp spill. The instance is kept
//!   for the next query while the caller's table set is unchanged (only validated `SELECT`s ever
//!   run in it, so there is no state to leak) and rebuilt when it changes — opening and attaching
//!   costs 20–30 ms, most of a point query.
//! * **Cross-checks**: DuckDB's own parser (`json_serialize_sql`) and binder (`EXPLAIN`) must agree
//!   with the allowlist before execution. The session remembers the texts that passed and keeps
//!   their prepared statements, so a repeated query against the same tables is checked and
//!   planned once.
//! * **Execution**: a watchdog interrupts the query at its deadline; rows and bytes are capped.
//!
//! The `unsafe_code` lint stays forbidden: Landlock and seccomp are applied through the safe APIs
//! of the `landlock` and `seccompiler` crates.

use crate::protocol::{Probe, QueryRequest, Request, Response, ResultTable, TableFile, read_frame, write_frame};
use crate::sql::{ident, literal};
use crate::validator::FUNCTIONS;
use crate::values::to_value;
use aware_domain::ErrorCode;
use aware_domain::value::Value;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Environment variable that enables [`Probe`]s (tests only).
pub const TEST_HOOKS_ENV: &str = "AWARE_SANDBOX_TEST_HOOKS";
/// Environment variables through which the parent passes the DuckDB limits.
pub const MEMORY_ENV: &str = "AWARE_SQL_MEMORY_MB";
pub const THREADS_ENV: &str = "AWARE_SQL_THREADS";

struct Settings {
    memory_mb: u64,
    threads: u32,
    test_hooks: bool,
}

impl Settings {
    fn from_env() -> Self {
        let num = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
        Self {
            memory_mb: num(MEMORY_ENV, 256),
            threads: u32::try_from(num(THREADS_ENV, 2)).unwrap_or(2).max(1),
            test_hooks: std::env::var(TEST_HOOKS_ENV).as_deref() == Ok("1"),
        }
    }
}

/// The worker's `main`. Serves requests until stdin closes. Returns the exit code.
pub fn worker_main() -> i32 {
    let settings = Settings::from_env();
    if let Err(e) = apply_rlimits(&settings) {
        eprintln!("sql worker: cannot apply resource limits: {e}");
        return 3;
    }
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut bound: Option<PathBuf> = None;
    let mut session: Option<Session> = None;
    loop {
        let request = match read_frame::<Request>(&mut stdin) {
            Ok(Some(r)) => r,
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("sql worker: bad frame: {e}");
                return 2;
            }
        };
        let response = match request {
            Request::Query(q) => match bind(&mut bound, &q.user_dir) {
                Ok(()) => run_query(&q, &settings, &mut session),
                Err(r) => r,
            },
            Request::Probe(p) if settings.test_hooks => probe(p, &mut bound),
            Request::Probe(_) => failed(ErrorCode::RunnerInternalError, "probes are disabled"),
        };
        if write_frame(&mut stdout, &response).is_err() {
            return 5;
        }
    }
}

fn failed(code: ErrorCode, message: impl Into<String>) -> Response {
    Response::Failed { code, message: message.into() }
}

/// Address space, open files, file size (zero: a query never writes) and core dumps.
fn apply_rlimits(settings: &Settings) -> std::io::Result<()> {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let set = |resource, limit: u64| setrlimit(resource, Rlimit { current: Some(limit), maximum: Some(limit) });
    set(Resource::Core, 0)?;
    set(Resource::Fsize, 0)?;
    set(Resource::Nofile, 256)?;
    // DuckDB's memory_limit is not a hard limit (some operators ignore it); the address space is.
    set(Resource::As, (settings.memory_mb * 3 + 768) * 1024 * 1024)?;
    Ok(())
}

/// Arms the kernel's CPU-time backstop for one query: the soft `RLIMIT_CPU` becomes the CPU time
/// used so far plus what the query may use. Only the soft limit moves (an unprivileged process
/// cannot raise a hard limit it has lowered); exceeding it sends SIGXCPU, which ends the worker.
fn arm_cpu_limit(timeout_ms: u64, threads: u32) -> std::io::Result<()> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    use rustix::time::{ClockId, clock_gettime};
    let used = clock_gettime(ClockId::ProcessCPUTime);
    let used_secs = u64::try_from(used.tv_sec).unwrap_or(0) + 1;
    let budget = timeout_ms.div_ceil(1000) * u64::from(threads) + 2;
    let hard = getrlimit(Resource::Cpu).maximum;
    setrlimit(Resource::Cpu, Rlimit { current: Some(used_secs + budget), maximum: hard })?;
    Ok(())
}

/// Binds the worker to one user's folder on first use (Landlock + seccomp), and refuses any
/// other folder afterwards.
fn bind(bound: &mut Option<PathBuf>, user_dir: &Path) -> Result<(), Response> {
    match bound {
        Some(dir) if dir == user_dir => Ok(()),
        Some(_) => Err(failed(ErrorCode::RunnerInternalError, "this worker is bound to another user")),
        None => {
            confine(user_dir)
                .map_err(|e| failed(ErrorCode::RunnerInternalError, format!("sandbox setup failed: {e}")))?;
            *bound = Some(user_dir.to_owned());
            Ok(())
        }
    }
}

fn confine(user_dir: &Path) -> Result<(), String> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
    };
    let abi = ABI::V5;
    let dir = PathFd::new(user_dir).map_err(|e| format!("landlock: {e}"))?;
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.handle_access(AccessNet::from_all(abi)))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rule(PathBeneath::new(dir, AccessFs::from_read(abi))))
        .map_err(|e| format!("landlock: {e}"))?;
    // DuckDB reads its CPU and memory limits from these when an instance opens; where they exist
    // but cannot be opened, it fails hard. They hold no user data.
    for (path, access) in [
        ("/sys/fs/cgroup", AccessFs::from_read(abi)),
        ("/sys/devices/system/cpu", AccessFs::from_read(abi)),
        ("/proc/self/cgroup", AccessFs::ReadFile.into()),
    ] {
        if let Ok(fd) = PathFd::new(path) {
            ruleset = ruleset.add_rule(PathBeneath::new(fd, access)).map_err(|e| format!("landlock: {e}"))?;
        }
    }
    let status = ruleset.restrict_self().map_err(|e| format!("landlock: {e}"))?;
    if status.ruleset != RulesetStatus::FullyEnforced {
        eprintln!("sql worker: landlock is {:?} on this kernel; relying on the other layers", status.ruleset);
    }
    deny_internet_sockets()
}

/// A seccomp filter (all threads) that makes `socket(AF_INET | AF_INET6 | AF_PACKET, …)` fail
/// with EACCES. Local (AF_UNIX) sockets stay available; DuckDB does not need them either.
fn deny_internet_sockets() -> Result<(), String> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
        TargetArch,
    };
    const SYS_SOCKET: i64 = 41; // x86_64
    const EACCES: u32 = 13;
    let families = [2u64 /* AF_INET */, 10 /* AF_INET6 */, 17 /* AF_PACKET */];
    let rules = families
        .iter()
        .map(|&family| {
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, family)
                .and_then(|c| SeccompRule::new(vec![c]))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("seccomp rule: {e}"))?;
    let arch = if cfg!(target_arch = "x86_64") {
        TargetArch::x86_64
    } else {
        return Err("the seccomp filter is only defined for x86_64".to_owned());
    };
    let filter = SeccompFilter::new(
        [(SYS_SOCKET, rules)].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(EACCES),
        arch,
    )
    .map_err(|e| format!("seccomp filter: {e}"))?;
    let program: BpfProgram = filter.try_into().map_err(|e| format!("seccomp compile: {e:?}"))?;
    seccompiler::apply_filter_all_threads(&program).map_err(|e| format!("seccomp apply: {e}"))
}

/// Opens a fresh in-memory DuckDB holding only `tables`, then locks it down.
fn open_locked(tables: &[TableFile], settings: &Settings) -> duckdb::Result<duckdb::Connection> {
    let config = duckdb::Config::default()
        .threads(i64::from(settings.threads))?
        .max_memory(&format!("{}MB", settings.memory_mb))?
        .enable_autoload_extension(false)?
        .with("autoinstall_known_extensions", "false")?
        .with("allow_community_extensions", "false")?;
    let conn = duckdb::Connection::open_in_memory_with_flags(config)?;
    let mut setup = String::new();
    for (i, t) in tables.iter().enumerate() {
        setup.push_str(&format!(
            "ATTACH {} AS src{i} (READ_ONLY); CREATE VIEW {} AS SELECT * FROM src{i}.main.data;\n",
            literal(&t.path.to_string_lossy()),
            ident(&t.name)
        ));
    }
    // The temp directory must be unset before external access goes off (DuckDB then refuses to
    // change it); with it unset, nothing spills to disk.
    setup.push_str(
        "SET temp_directory = ''; SET enable_external_access = false; SET max_temp_directory_size = '0B';
         SET allow_persistent_secrets = false; SET lock_configuration = true;",
    );
    conn.execute_batch(&setup)?;
    Ok(conn)
}

/// DuckDB-internal function names that valid allowlisted SQL turns into (operators are flagged
/// separately and always allowed).
const INTERNAL_FUNCTIONS: &[&str] = &[
    "count_star",
    "array_extract",
    "array_slice",
    "list_pack",
    "struct_pack",
    "row",
    "~~",
    "!~~",
    "~~*",
    "!~~*",
    "~~~",
    "date_part",
    "regexp_full_match",
    "nullif",
    "ifnull",
    "coalesce",
    "cast",
    "try_cast",
];

/// Layer "DuckDB parser": `json_serialize_sql` of the canonical text must be one SELECT whose
/// functions, table functions and tables are all allowed.
fn cross_check_parse(conn: &duckdb::Connection, sql: &str, tables: &[TableFile]) -> Result<(), Response> {
    let json: String = conn.query_row("SELECT json_serialize_sql(?)", [sql], |r| r.get(0)).map_err(|e| {
        failed(
            ErrorCode::SqlPolicyViolation,
            format!("DuckDB could not parse the query: {}", clean(&e.to_string(), tables)),
        )
    })?;
    let doc: serde_json::Value = serde_json::from_str(&json)
        .map_err(|e| failed(ErrorCode::RunnerInternalError, format!("unreadable parse tree: {e}")))?;
    if doc["error"].as_bool() != Some(false) {
        let msg = doc["error_message"].as_str().unwrap_or("not a single SELECT");
        return Err(failed(ErrorCode::SqlPolicyViolation, format!("DuckDB refused the query: {}", clean(msg, tables))));
    }
    let statements = doc["statements"].as_array().map(Vec::len).unwrap_or(0);
    if statements != 1 {
        return Err(failed(ErrorCode::SqlPolicyViolation, "DuckDB sees more than one statement"));
    }
    let mut ctes = Vec::new();
    collect_ctes(&doc, &mut ctes);
    let allowed_tables: Vec<String> = tables.iter().map(|t| t.name.to_lowercase()).collect();
    walk_parse_tree(&doc, &allowed_tables, &ctes)
}

fn collect_ctes(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::Array(entries)) = map.get("cte_map").and_then(|m| m.get("map")) {
                for e in entries {
                    if let Some(k) = e["key"].as_str() {
                        out.push(k.to_lowercase());
                    }
                }
            }
            map.values().for_each(|c| collect_ctes(c, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|c| collect_ctes(c, out)),
        serde_json::Value::Null
        | serde_json::Value::Bool(_)
        | serde_json::Value::Number(_)
        | serde_json::Value::String(_) => {}
    }
}

fn walk_parse_tree(v: &serde_json::Value, tables: &[String], ctes: &[String]) -> Result<(), Response> {
    let deny = |m: String| Err(failed(ErrorCode::SqlPolicyViolation, m));
    match v {
        serde_json::Value::Object(map) => {
            let class = map.get("class").and_then(|c| c.as_str()).unwrap_or_default();
            let kind = map.get("type").and_then(|c| c.as_str()).unwrap_or_default();
            if class == "FUNCTION" && map.get("is_operator").and_then(|b| b.as_bool()) != Some(true) {
                let name = map.get("function_name").and_then(|n| n.as_str()).unwrap_or_default().to_lowercase();
                let schema = map.get("schema").and_then(|n| n.as_str()).unwrap_or_default();
                if !schema.is_empty()
                    || !(FUNCTIONS.contains(&name.as_str()) || INTERNAL_FUNCTIONS.contains(&name.as_str()))
                {
                    return deny(format!("`{name}` is not allowed: queries may only read your datasets"));
                }
            }
            if kind == "BASE_TABLE" {
                let name = map.get("table_name").and_then(|n| n.as_str()).unwrap_or_default().to_lowercase();
                let qualified = ["schema_name", "catalog_name"]
                    .iter()
                    .any(|k| map.get(*k).and_then(|s| s.as_str()).is_some_and(|s| !s.is_empty()));
                if qualified || !(tables.contains(&name) || ctes.contains(&name)) {
                    return deny(format!("unknown table `{name}`"));
                }
            }
            if kind == "TABLE_FUNCTION" {
                let function = map.get("function").cloned().unwrap_or_default();
                let name = function.get("function_name").and_then(|n| n.as_str()).unwrap_or_default().to_lowercase();
                if !matches!(name.as_str(), "unnest" | "range" | "generate_series") {
                    return deny(format!("`{name}` is not allowed: queries may only read your datasets"));
                }
                // The function node itself is checked by name above; its arguments like any
                // other expression.
                if let Some(args) = function.get("children") {
                    walk_parse_tree(args, tables, ctes)?;
                }
                return map
                    .iter()
                    .filter(|(k, _)| k.as_str() != "function")
                    .try_for_each(|(_, child)| walk_parse_tree(child, tables, ctes));
            }
            for child in map.values() {
                walk_parse_tree(child, tables, ctes)?;
            }
            Ok(())
        }
        serde_json::Value::Array(items) => items.iter().try_for_each(|c| walk_parse_tree(c, tables, ctes)),
        serde_json::Value::Null
        | serde_json::Value::Bool(_)
        | serde_json::Value::Number(_)
        | serde_json::Value::String(_) => Ok(()),
    }
}

/// Leaf operators a plan over the caller's views may contain.
const LEAVES: &[&str] = &[
    "SEQ_SCAN",
    "TABLE_SCAN",
    "SEQ_SCAN ",
    "DUMMY_SCAN",
    "COLUMN_DATA_SCAN",
    "CTE_SCAN",
    "DELIM_SCAN",
    "CHUNK_SCAN",
    "EMPTY_RESULT",
    "UNNEST",
    "RANGE",
    "GENERATE_SERIES",
    "EXPRESSION_SCAN",
    "RESULT_COLLECTOR",
];
/// Joins whose output is the product of their inputs.
const PRODUCT_JOINS: &[&str] = &["CROSS_PRODUCT", "NESTED_LOOP_JOIN", "BLOCKWISE_NL_JOIN", "PIECEWISE_MERGE_JOIN"];
/// The largest product-join a plan may hold, in estimated rows.
const MAX_PRODUCT_ROWS: f64 = 1e8;

/// Layer "DuckDB binder": the bound plan's leaves must all be scans of the attached views (or
/// constant generators), and product joins must stay small. Returns the rows the plan reads from
/// each table.
fn cross_check_plan(conn: &duckdb::Connection, sql: &str, tables: &[TableFile]) -> Result<Vec<u64>, Response> {
    let plan: String = conn
        .query_row(&format!("EXPLAIN (FORMAT json) {sql}"), [], |r| r.get(1))
        .map_err(|e| classify_error(&e.to_string(), tables))?;
    let doc: serde_json::Value = serde_json::from_str(&plan)
        .map_err(|e| failed(ErrorCode::RunnerInternalError, format!("unreadable plan: {e}")))?;
    walk_plan(&doc)?;
    let mut per_table = vec![0; tables.len()];
    scanned_rows(&doc, tables, &mut per_table);
    Ok(per_table)
}

/// The rows a plan reads from each attached table (by its index in `tables`): each scan of one
/// counts the table's rows (a filter still reads every row it tests). A streaming LIMIT straight
/// over an unfiltered scan (through projections only) stops after a few blocks and counts
/// nothing; over anything else — a grouping, a join, a filter — it still reads all it counts. A
/// scan the plan does not name by its attached table counts DuckDB's own estimate, as the first
/// table's.
fn scanned_rows(node: &serde_json::Value, tables: &[TableFile], per_table: &mut [u64]) {
    match node {
        serde_json::Value::Array(items) => items.iter().for_each(|n| scanned_rows(n, tables, per_table)),
        serde_json::Value::Object(map) => {
            let name = map.get("name").and_then(|n| n.as_str()).unwrap_or_default().trim();
            if name == "SEQ_SCAN" || name == "TABLE_SCAN" {
                let table = node["extra_info"]["Table"].as_str().unwrap_or_default();
                let attached = table
                    .strip_prefix("src")
                    .and_then(|rest| rest.split_once('.'))
                    .and_then(|(i, _)| i.parse::<usize>().ok())
                    .filter(|i| *i < tables.len());
                let (index, rows) = match attached {
                    Some(i) => (i, tables[i].rows),
                    None => (0, estimated_rows(node) as u64),
                };
                if let Some(slot) = per_table.get_mut(index) {
                    *slot = slot.saturating_add(rows);
                }
                return;
            }
            let children = node["children"].as_array().map(Vec::as_slice).unwrap_or_default();
            if name == "STREAMING_LIMIT" && children.iter().all(stops_early) {
                return;
            }
            children.iter().for_each(|n| scanned_rows(n, tables, per_table));
        }
        serde_json::Value::Null
        | serde_json::Value::Bool(_)
        | serde_json::Value::Number(_)
        | serde_json::Value::String(_) => {}
    }
}

/// Whether a plan under a streaming LIMIT stops reading once the limit is reached: projections
/// over one unfiltered scan, nothing that must see every row first.
fn stops_early(node: &serde_json::Value) -> bool {
    let name = node["name"].as_str().unwrap_or_default().trim();
    let children = node["children"].as_array().map(Vec::as_slice).unwrap_or_default();
    match name {
        "SEQ_SCAN" | "TABLE_SCAN" => node["extra_info"].get("Filters").is_none(),
        "PROJECTION" => children.len() == 1 && stops_early(&children[0]),
        _ => false,
    }
}

/// A node's estimated output rows: DuckDB's own estimate where it gives one; otherwise the
/// product of the inputs for a product join and the largest input for anything else.
fn estimated_rows(node: &serde_json::Value) -> f64 {
    let own = node["extra_info"]["Estimated Cardinality"]
        .as_str()
        .and_then(|s| s.trim_start_matches('~').parse::<f64>().ok());
    if let Some(rows) = own {
        return rows;
    }
    let children = node["children"].as_array().map(Vec::as_slice).unwrap_or_default();
    let name = node["name"].as_str().unwrap_or_default().trim();
    if PRODUCT_JOINS.contains(&name) {
        children.iter().map(estimated_rows).map(|r| r.max(1.0)).product()
    } else {
        children.iter().map(estimated_rows).fold(0.0, f64::max)
    }
}

fn walk_plan(v: &serde_json::Value) -> Result<(), Response> {
    match v {
        serde_json::Value::Array(items) => items.iter().try_for_each(walk_plan),
        serde_json::Value::Object(map) => {
            let name = map.get("name").and_then(|n| n.as_str()).unwrap_or_default().trim().to_owned();
            let children = map.get("children").and_then(|c| c.as_array()).cloned().unwrap_or_default();
            if children.is_empty() && !name.is_empty() && !LEAVES.contains(&name.as_str()) {
                return Err(failed(
                    ErrorCode::SqlPolicyViolation,
                    format!("the query plan reads from `{name}`, which is not one of your datasets"),
                ));
            }
            if PRODUCT_JOINS.contains(&name.as_str()) {
                let product: f64 = children.iter().map(estimated_rows).map(|r| r.max(1.0)).product();
                if product > MAX_PRODUCT_ROWS {
                    return Err(failed(
                        ErrorCode::RunnerResourceExceeded,
                        format!(
                            "the query joins without a usable condition and would build about {product:.0} rows; add a join condition or filter first"
                        ),
                    ));
                }
            }
            children.iter().try_for_each(walk_plan)
        }
        serde_json::Value::Null
        | serde_json::Value::Bool(_)
        | serde_json::Value::Number(_)
        | serde_json::Value::String(_) => Ok(()),
    }
}

/// Removes attach aliases and file paths from a DuckDB message.
fn clean(message: &str, tables: &[TableFile]) -> String {
    let mut m = message.to_owned();
    for (i, t) in tables.iter().enumerate() {
        m = m.replace(&*t.path.to_string_lossy(), &t.name).replace(&format!("src{i}.main.data"), &t.name);
    }
    let first = m.lines().next().unwrap_or_default().trim();
    first.chars().take(500).collect()
}

/// Maps a DuckDB error to the taxonomy.
fn classify_error(message: &str, tables: &[TableFile]) -> Response {
    let m = clean(message, tables);
    if m.contains("INTERRUPT") || m.contains("Interrupted") {
        failed(ErrorCode::RunnerTimeout, "the query took too long and was stopped")
    } else if m.contains("Out of Memory")
        || m.contains("memory limit")
        || m.contains("failed to allocate")
        || m.contains("std::bad_alloc")
    {
        failed(ErrorCode::RunnerResourceExceeded, "the query needed more memory than allowed; aggregate or filter more")
    } else if m.contains("Permission Error")
        || m.contains("disabled by configuration")
        || m.contains("lock_configuration")
    {
        failed(ErrorCode::SqlPolicyViolation, format!("refused by the sandbox: {m}"))
    } else if m.contains("Binder Error")
        || m.contains("Parser Error")
        || m.contains("Conversion Error")
        || m.contains("Catalog Error")
        || m.contains("Invalid Input Error")
        || m.contains("Out of Range Error")
    {
        failed(ErrorCode::ValidationError, m)
    } else {
        failed(ErrorCode::RunnerInternalError, m)
    }
}

/// A locked-down DuckDB instance and the tables it has attached.
struct Session {
    tables: Vec<TableFile>,
    conn: duckdb::Connection,
    /// SQL texts that passed both cross-checks against exactly these tables, with the rows each
    /// plan reads from each table. The verdict is a function of the text and the (read-only,
    /// unchanging) tables alone, so a repeated query — a refreshed chart, an agent asking again —
    /// skips two of its three parses.
    passed: std::collections::HashMap<String, Vec<u64>>,
}

/// Verdicts kept per session (forgotten all at once when full).
const MAX_VERDICTS: usize = 1024;

fn run_query(q: &QueryRequest, settings: &Settings, session: &mut Option<Session>) -> Response {
    let started = Instant::now();
    if session.as_ref().is_none_or(|s| s.tables != q.tables) {
        // Drop the old instance first so two never hold memory at once.
        *session = None;
        match open_locked(&q.tables, settings) {
            Ok(conn) => *session = Some(Session { tables: q.tables.clone(), conn, passed: Default::default() }),
            Err(e) => {
                return failed(
                    ErrorCode::RunnerInternalError,
                    format!("could not open your datasets: {}", clean(&e.to_string(), &q.tables)),
                );
            }
        }
    }
    let Some(Session { conn, passed, .. }) = session.as_mut() else {
        return failed(ErrorCode::RunnerInternalError, "no DuckDB session");
    };
    let checked = passed.get(&q.sql).cloned();
    if checked.is_none()
        && let Err(r) = cross_check_parse(conn, &q.sql, &q.tables)
    {
        return r;
    }
    // Binding and optimising can already burn CPU, so the watchdog covers EXPLAIN as well.
    if let Err(e) = arm_cpu_limit(q.timeout_ms, settings.threads) {
        return failed(ErrorCode::RunnerInternalError, format!("cannot arm the CPU limit: {e}"));
    }
    let interrupt = conn.interrupt_handle();
    let (done, wait) = mpsc::channel::<()>();
    let timeout = Duration::from_millis(q.timeout_ms);
    let watchdog = std::thread::spawn(move || {
        if wait.recv_timeout(timeout).is_err() {
            interrupt.interrupt();
        }
    });
    let plan = match checked {
        Some(rows) => Ok(rows),
        None => {
            let plan = cross_check_plan(conn, &q.sql, &q.tables);
            if let Ok(rows) = &plan {
                if passed.len() >= MAX_VERDICTS {
                    passed.clear();
                }
                passed.insert(q.sql.clone(), rows.clone());
            }
            plan
        }
    };
    let result = plan.and_then(|per_table| {
        let scan_rows = per_table.iter().fold(0u64, |a, r| a.saturating_add(*r));
        if q.estimate_only || q.ask_above.is_some_and(|limit| scan_rows > limit) {
            return Err(Response::Estimated { per_table });
        }
        execute(conn, q)
    });
    let _ = done.send(());
    let _ = watchdog.join();
    match result {
        Ok(mut table) => {
            table.exec_ms = started.elapsed().as_millis() as u64;
            Response::Table(table)
        }
        Err(r) => r,
    }
}

fn execute(conn: &duckdb::Connection, q: &QueryRequest) -> Result<ResultTable, Response> {
    let wrapped = format!("SELECT * FROM ({}) AS aware_result LIMIT {}", q.sql, q.max_rows + 1);
    // Cached per session: a repeated query skips parsing and planning (the tables cannot change
    // under it; a new table set means a new session). A cached statement keeps its last result
    // in memory until it runs again, so only small, complete answers stay cached.
    let mut stmt = conn.prepare_cached(&wrapped).map_err(|e| classify_error(&e.to_string(), &q.tables))?;
    let read = read_rows(&mut stmt, q);
    if !matches!(&read, Ok((table, bytes)) if !table.truncated && *bytes <= KEEP_RESULT_BYTES) {
        stmt.discard();
    }
    read.map(|(table, _)| table)
}

/// Largest answer (approximate bytes) whose statement stays in the session's cache.
const KEEP_RESULT_BYTES: u64 = 256 << 10;

/// The rows of an executed statement, capped by rows and bytes, and their approximate size.
fn read_rows(stmt: &mut duckdb::Statement<'_>, q: &QueryRequest) -> Result<(ResultTable, u64), Response> {
    let mut rows = stmt.query([]).map_err(|e| classify_error(&e.to_string(), &q.tables))?;
    let mut out: Vec<Vec<Value>> = Vec::new();
    let mut bytes = 0u64;
    let mut truncated = false;
    let mut width = None;
    while let Some(row) = rows.next().map_err(|e| classify_error(&e.to_string(), &q.tables))? {
        let n = *width.get_or_insert_with(|| row.as_ref().column_count());
        if out.len() as u64 >= q.max_rows {
            truncated = true;
            break;
        }
        let mut cells = Vec::with_capacity(n);
        for i in 0..n {
            let v = row.get::<_, duckdb::types::Value>(i).map_err(|e| classify_error(&e.to_string(), &q.tables))?;
            let v = to_value(v);
            bytes += approx_size(&v);
            cells.push(v);
        }
        if bytes > q.max_bytes {
            truncated = true;
            break;
        }
        out.push(cells);
    }
    drop(rows);
    let columns = (0..stmt.column_count())
        .map(|i| {
            let name = stmt.column_name(i).map(|s| s.to_string()).unwrap_or_else(|_| format!("column{i}"));
            (name, type_name(&stmt.column_logical_type(i)))
        })
        .collect();
    Ok((ResultTable { columns, rows: out, truncated, exec_ms: 0 }, bytes))
}

fn approx_size(v: &Value) -> u64 {
    match v {
        Value::String(s) | Value::Decimal(s) | Value::Text(s) => s.len() as u64 + 8,
        Value::Bytes(b) => b.len() as u64 + 8,
        Value::Null
        | Value::Bool(_)
        | Value::Int(_)
        | Value::Double(_)
        | Value::Date(_)
        | Value::Timestamp(_)
        | Value::Time(_) => 9,
    }
}

/// DuckDB's SQL name for a result column type.
// DuckDB's type ids are `#[non_exhaustive]`: any other is named as DuckDB names it.
#[allow(clippy::wildcard_enum_match_arm)]
pub fn type_name(t: &duckdb::core::LogicalTypeHandle) -> String {
    use duckdb::core::LogicalTypeId as Id;
    match t.id() {
        Id::Boolean => "BOOLEAN".into(),
        Id::Tinyint => "TINYINT".into(),
        Id::Smallint => "SMALLINT".into(),
        Id::Integer => "INTEGER".into(),
        Id::Bigint => "BIGINT".into(),
        Id::UTinyint => "UTINYINT".into(),
        Id::USmallint => "USMALLINT".into(),
        Id::UInteger => "UINTEGER".into(),
        Id::UBigint => "UBIGINT".into(),
        Id::Float => "FLOAT".into(),
        Id::Double => "DOUBLE".into(),
        Id::Timestamp => "TIMESTAMP".into(),
        Id::TimestampS => "TIMESTAMP_S".into(),
        Id::TimestampMs => "TIMESTAMP_MS".into(),
        Id::TimestampNs => "TIMESTAMP_NS".into(),
        Id::TimestampTZ => "TIMESTAMP WITH TIME ZONE".into(),
        Id::Date => "DATE".into(),
        Id::Time => "TIME".into(),
        Id::Interval => "INTERVAL".into(),
        Id::Hugeint => "HUGEINT".into(),
        Id::Varchar => "VARCHAR".into(),
        Id::Blob => "BLOB".into(),
        Id::Decimal => format!("DECIMAL({},{})", t.decimal_width(), t.decimal_scale()),
        Id::Enum => "ENUM".into(),
        Id::List => format!("{}[]", type_name(&t.child(0))),
        Id::Struct => format!(
            "STRUCT({})",
            (0..t.num_children())
                .map(|i| format!("{} {}", t.child_name(i), type_name(&t.child(i))))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Id::Map => format!("MAP({}, {})", type_name(&t.child(0)), type_name(&t.child(1))),
        other => format!("{other:?}").to_uppercase(),
    }
}

fn probe(p: Probe, bound: &mut Option<PathBuf>) -> Response {
    let user_dir = match &p {
        Probe::RawSql { user_dir, .. }
        | Probe::Connect { user_dir, .. }
        | Probe::ReadFile { user_dir, .. }
        | Probe::CpuSpin { user_dir, .. } => user_dir.clone(),
    };
    if let Err(r) = bind(bound, &user_dir) {
        return r;
    }
    let outcome: Result<String, String> = match p {
        Probe::RawSql { sql, .. } => duckdb::Connection::open_in_memory()
            .and_then(|c| {
                let mut stmt = c.prepare(&sql)?;
                let mut rows = stmt.query([])?;
                let mut n = 0;
                while rows.next()?.is_some() {
                    n += 1;
                }
                Ok(format!("{n} rows"))
            })
            .map_err(|e| e.to_string()),
        Probe::Connect { addr, .. } => std::net::TcpStream::connect_timeout(
            &addr.parse().map_err(|e| format!("{e}")).unwrap_or_else(|_| ([127, 0, 0, 1], 9).into()),
            Duration::from_secs(2),
        )
        .map(|_| "connected".to_owned())
        .map_err(|e| e.to_string()),
        Probe::ReadFile { path, .. } => {
            std::fs::read(&path).map(|b| format!("read {} bytes", b.len())).map_err(|e| e.to_string())
        }
        Probe::CpuSpin { timeout_ms, .. } => arm_cpu_limit(timeout_ms, 1).map_err(|e| e.to_string()).map(|()| {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
            }
        }),
    };
    match outcome {
        Ok(detail) => Response::Probed { ok: true, detail },
        Err(detail) => Response::Probed { ok: false, detail },
    }
}
