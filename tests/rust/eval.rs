#![allow(clippy::unwrap_used)]
#![allow(clippy::wildcard_enum_match_arm)] // a test names the kind it expects: any other kind fails it, or is skipped
//! The offline planner's evaluation (`tests/eval/corpus.jsonl`): questions in everyday phrasing
//! over the three sample datasets and over three generated ones whose names, columns and values
//! the planner was never written against, each with its truth computed here by SQL through
//! `ExecuteSql`. Every answer is scored:
//! - **correct**: the numbers and names the truth says the answer must carry are in its text,
//!   and every other number in it is backed by the truth (or was in the question);
//! - **honest**: it asked back or said what it could not do, stating no number;
//! - **wrong**: anything else — a number the truth does not back, an answer to an unanswerable
//!   question. Each answer's `Grounding` must trace every number to a tool result of its run.
//!   The test fails on any wrong answer or ungrounded number, and when fewer than 80% are correct overall,
//!   in any answerable category, or on the generated datasets.

use aware_core::samples::Rng;
use aware_e2e::events::{calls, follow_declining};
use aware_e2e::{TestServer, upload};
use aware_proto::v1 as pb;
use pb::server_event::Payload as P;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One question of the corpus.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Item {
    /// count, aggregate, group, topk, rate, derived, time, schema, unanswerable, ambiguous.
    cat: String,
    q: String,
    /// The SQL whose answer is the truth (answerable questions).
    #[serde(default)]
    truth: Option<String>,
    /// Which cells of the truth's first row the answer must state (default: all).
    #[serde(default)]
    must: Option<Vec<usize>>,
    /// Texts the answer must contain (names, columns).
    #[serde(default)]
    contains: Vec<String>,
    /// "any": the answer's other numbers are not checked (dataset listings and profiles).
    #[serde(default)]
    numbers: Option<String>,
    /// The dataset (table name) open in the app when the question is asked.
    #[serde(default)]
    open: Option<String>,
    /// Numbers the answer may state that the question implies (a unit converted: 2 hours → 120).
    #[serde(default)]
    implied: Vec<f64>,
    /// A conversation: the questions with the same thread are asked in order in one thread.
    #[serde(default)]
    thread: Option<String>,
    /// The person asked for a chart: the answer's table must come with one.
    #[serde(default)]
    chart: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum Score {
    Correct,
    Honest,
    Wrong(String),
}

fn day(base: chrono::NaiveDate, days: i64) -> String {
    (base + chrono::Duration::days(days)).format("%Y-%m-%d").to_string()
}

/// A fleet of vehicles: snake_case columns, a USD cost, kilometres, a flag, dates.
fn fleet() -> String {
    let mut rng = Rng(0xF1EE_7001);
    let depots = ["Harbour Road", "North Yard", "Airport", "Riverside"];
    let kinds = [("van", 3, 900.0), ("truck", 2, 1700.0), ("car", 5, 550.0), ("minibus", 16, 1200.0)];
    let fuels = ["diesel", "petrol", "electric", "hybrid"];
    let base = chrono::NaiveDate::from_ymd_opt(2019, 1, 1).unwrap();
    let mut out = String::from(
        "vehicle_id,depot,vehicle_type,fuel_type,odometer_km,purchased_on,monthly_cost_usd,is_available,seats,driver_rating\n",
    );
    for i in 1..=360 {
        let (kind, seats, cost) = *rng.pick(&kinds);
        let rating = if rng.unit() < 0.05 { String::new() } else { format!("{:.1}", 1.0 + rng.unit() * 4.0) };
        out.push_str(&format!(
            "V{i:04},{},{kind},{},{},{},{:.2},{},{},{rating}\n",
            rng.pick(&depots),
            rng.pick(&fuels),
            rng.range(5_000, 240_000),
            day(base, rng.range(0, 2500)),
            cost * (0.7 + 0.6 * rng.unit()),
            rng.unit() < 0.7,
            seats + rng.range(0, 1),
        ));
    }
    out
}

/// Clinic visits: CamelCase columns, accents and apostrophes in values, GBP fees, recent dates.
fn clinic() -> String {
    let mut rng = Rng(0xC11_71C);
    let clinics = ["Sant Pau", "Clínic", "Vall d'Hebron", "Del Mar"];
    let departments = ["cardiology", "dermatology", "paediatrics", "orthopaedics", "neurology"];
    let outcomes = ["discharged", "discharged", "admitted", "referred"];
    let base = chrono::NaiveDate::from_ymd_opt(2025, 1, 1).unwrap();
    let mut out = String::from("VisitId,VisitDate,Clinic,Department,PatientAge,WaitMinutes,FeeGBP,FollowUp,Outcome\n");
    for i in 1..=500 {
        let department = *rng.pick(&departments);
        let age = if department == "paediatrics" { rng.range(0, 17) } else { rng.range(18, 95) };
        out.push_str(&format!(
            "CV{i:05},{},\"{}\",{department},{age},{},{:.2},{},{}\n",
            day(base, rng.range(0, 688)),
            rng.pick(&clinics),
            rng.range(5, 180),
            40.0 + rng.unit() * 360.0,
            rng.unit() < 0.3,
            rng.pick(&outcomes),
        ));
    }
    out
}

/// Library loans: column names with spaces, a EUR fee, a flag.
fn library() -> String {
    let mut rng = Rng(0x1B_4A27);
    let branches = ["Central", "Eastside", "Old Town"];
    let genres = ["fiction", "history", "science", "children", "poetry"];
    let base = chrono::NaiveDate::from_ymd_opt(2024, 3, 1).unwrap();
    let mut out = String::from("Loan ID,Branch,Genre,Loan Days,Late Fee EUR,Returned Late,Checkout Date\n");
    for i in 1..=300 {
        let days = rng.range(1, 60);
        let late = days > 28;
        let fee = if late { (days - 28) as f64 * 0.25 } else { 0.0 };
        out.push_str(&format!(
            "L{i:04},{},{},{days},{fee:.2},{late},{}\n",
            rng.pick(&branches),
            rng.pick(&genres),
            day(base, rng.range(0, 900)),
        ));
    }
    out
}

/// The numbers written in a text, with the decimals they were written with: `500k` is 500000;
/// dates (2025-10-31) and the digits of ids (V0012) are not amounts.
fn numbers_in(text: &str) -> Vec<(f64, usize, bool)> {
    let mut chars: Vec<char> = text.chars().collect();
    // Blank out dates first.
    for i in 0..chars.len().saturating_sub(9) {
        let d = |k: usize| chars[i + k].is_ascii_digit();
        if d(0) && d(1) && d(2) && d(3) && chars[i + 4] == '-' && d(5) && d(6) && chars[i + 7] == '-' && d(8) && d(9) {
            for c in &mut chars[i..i + 10] {
                *c = ' ';
            }
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut s = String::new();
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || ((chars[i] == ',' || chars[i] == '.') && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit())))
        {
            s.push(chars[i]);
            i += 1;
        }
        let scale = match (chars.get(i), chars.get(i + 1)) {
            (Some('k'), next) if next.is_none_or(|c| !c.is_alphanumeric()) => 1e3,
            (Some('m'), next) if next.is_none_or(|c| !c.is_alphanumeric()) => 1e6,
            _ => 1.0,
        };
        // Digits inside a word or an id joined by hyphens (`Q3`, `SH-00436`, `CLM-23-0001`,
        // an age band `18-25`) are names, not amounts.
        let hyphen_before = start > 1 && chars[start - 1] == '-' && chars[start - 2].is_alphanumeric();
        // (A number before a word, "3-bedroom", is still a number.)
        let hyphen_after = chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit());
        let glued = (start > 0 && chars[start - 1].is_alphanumeric())
            || (scale == 1.0 && chars.get(i).is_some_and(|c| c.is_alphabetic()))
            || hyphen_before
            || hyphen_after;
        if glued {
            continue;
        }
        let percent = chars.get(i) == Some(&'%');
        let decimals = s.split_once('.').map_or(0, |(_, d)| d.len());
        if let Ok(x) = s.replace(',', "").parse::<f64>() {
            let negative = start > 0
                && (chars[start - 1] == '-' || chars[start - 1] == '−')
                && !(start > 1 && chars[start - 2].is_alphanumeric());
            out.push((if negative { -x } else { x } * scale, decimals, percent));
        }
    }
    out
}

/// Whether a written number (rounded to `decimals`) stands for `truth`. When the truth was
/// itself rounded by its SQL (`round(x, 1)`), either may be the nearer one: they agree when
/// their rounding intervals meet (30.49 stands for 30.5, 9.72 for 9.73 of a true 9.725).
fn close(written: f64, decimals: usize, truth: f64, truth_rounded: bool) -> bool {
    let mut tol = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9 * truth.abs();
    if truth_rounded && truth.fract() != 0.0 {
        let shown = format!("{truth}");
        let places = shown.split_once('.').map_or(0, |(_, d)| d.len());
        tol += 0.5 * 10f64.powi(-(places as i32));
    }
    (written - truth).abs() <= tol || (written - truth * 100.0).abs() <= tol
}

fn cell_number(v: &pb::Value) -> Option<f64> {
    match v.kind.as_ref()? {
        pb::value::Kind::IntValue(i) => Some(*i as f64),
        pb::value::Kind::DoubleValue(d) => Some(*d),
        pb::value::Kind::DecimalValue(d) => d.parse().ok(),
        _ => None,
    }
}

fn cell_text(v: &pb::Value) -> Option<String> {
    match v.kind.as_ref()? {
        pb::value::Kind::StringValue(s) => Some(s.clone()),
        pb::value::Kind::BoolValue(b) => Some(b.to_string()),
        _ => None,
    }
}

async fn truth(server: &TestServer, sql: &str) -> pb::Table {
    let req = pb::ExecuteSqlRequest { sql: sql.into(), limit: 0, ..Default::default() };
    match server.query().await.execute_sql(req).await {
        Ok(r) => r.into_inner().table.unwrap(),
        Err(e) => panic!("the truth SQL failed: {sql}: {}", e.message()),
    }
}

/// `text` without the names it mentions that hold digits (a column `Readmitted Within 30 Days`,
/// a product `Monitor 32 Curved`) and without code spans: what is left holds the answer's claims.
fn without_names(text: &str, names: &[String]) -> String {
    let mut out: String = text.split('`').enumerate().map(|(k, part)| if k % 2 == 1 { " " } else { part }).collect();
    let mut names: Vec<&String> = names.iter().filter(|n| n.chars().any(|c| c.is_ascii_digit())).collect();
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    for name in names {
        let lower = out.to_lowercase();
        if lower.len() != out.len() {
            break;
        }
        let needle = name.to_lowercase();
        let mut cut = String::with_capacity(out.len());
        let mut last = 0;
        for (at, _) in lower.match_indices(&needle) {
            cut.push_str(&out[last..at]);
            cut.push(' ');
            last = at + needle.len();
        }
        cut.push_str(&out[last..]);
        out = cut;
    }
    out
}

fn score(item: &Item, text: &str, queried: bool, truth: Option<&pb::Table>, names: &[String]) -> Score {
    score_in_thread(item, &[], text, queried, truth, names)
}

/// [`score`] for a turn of a conversation: the numbers the person said in earlier turns
/// (`said`) are theirs too.
fn score_in_thread(
    item: &Item,
    said: &[String],
    text: &str,
    queried: bool,
    truth: Option<&pb::Table>,
    names: &[String],
) -> Score {
    let mut question_numbers: Vec<f64> =
        std::iter::once(&item.q).chain(said).flat_map(|q| numbers_in(q)).map(|(x, _, _)| x).collect();
    question_numbers.extend(&item.implied);
    let mut named: Vec<String> = names.to_vec();
    if let Some(t) = truth {
        named.extend(t.rows.iter().flat_map(|r| r.values.iter()).filter_map(cell_text));
    }
    let written = numbers_in(&without_names(text, &named));
    let is_year = |x: f64| x.fract() == 0.0 && (1900.0..=2100.0).contains(&x);
    let Some(truth) = truth else {
        // Unanswerable or ambiguous: a question back or a refusal, with no number of its own.
        let stray: Vec<f64> =
            written.iter().map(|(x, _, _)| *x).filter(|x| !question_numbers.contains(x) && !is_year(*x)).collect();
        return if queried || !stray.is_empty() {
            Score::Wrong(format!("answered what cannot be answered (numbers {stray:?})"))
        } else {
            Score::Correct
        };
    };
    let cells: Vec<&pb::Value> = truth.rows.iter().flat_map(|r| r.values.iter()).collect();
    let rounded = item.truth.as_deref().is_some_and(|sql| sql.to_lowercase().contains("round("));
    let truth_numbers: Vec<f64> = cells.iter().filter_map(|v| cell_number(v)).collect();
    let backed = |x: f64, d: usize| {
        truth_numbers.iter().any(|t| close(x, d, *t, rounded))
            || question_numbers.contains(&x)
            || is_year(x)
            || x == truth.rows.len() as f64
    };
    let stray: Vec<f64> = if item.numbers.as_deref() == Some("any") {
        Vec::new()
    } else {
        written.iter().filter(|(x, d, _)| !backed(*x, *d)).map(|(x, _, _)| *x).collect()
    };
    let first = truth.rows.first().map(|r| r.values.clone()).unwrap_or_default();
    let wanted: Vec<usize> = item.must.clone().unwrap_or_else(|| (0..first.len()).collect());
    let mut missing: Vec<String> = Vec::new();
    // The headline is the first cell asked for: the number or name the question is about.
    let mut headline_missing = false;
    for (k, i) in wanted.into_iter().enumerate() {
        let before = missing.len();
        let Some(v) = first.get(i) else { continue };
        if let Some(t) = cell_number(v) {
            // "There are no tickets …" states a zero.
            let says_none = t == 0.0
                && text.split(|c: char| !c.is_alphanumeric()).any(|w| matches!(w, "no" | "No" | "none" | "zero"));
            if !written.iter().any(|(x, d, _)| close(*x, *d, t, rounded)) && !says_none {
                missing.push(format!("{t}"));
            }
        } else if let Some(s) = cell_text(v)
            && !text.to_lowercase().contains(&s.to_lowercase())
        {
            missing.push(s);
        }
        headline_missing |= k == 0 && missing.len() > before;
    }
    for c in &item.contains {
        if !text.to_lowercase().contains(&c.to_lowercase()) {
            missing.push(c.clone());
        }
    }
    match (stray.is_empty(), missing.is_empty()) {
        (true, true) => Score::Correct,
        (false, _) => Score::Wrong(format!("numbers the truth does not back: {stray:?}")),
        (true, false) if !queried && written.iter().all(|(x, _, _)| question_numbers.contains(x) || is_year(*x)) => {
            Score::Honest
        }
        // The headline stated, every number backed, some context left out: incomplete, not
        // correct — and not wrong.
        (true, false) if !headline_missing => Score::Honest,
        (true, false) => Score::Wrong(format!("missing {missing:?}")),
    }
}

/// The corpus lines of a JSONL file (comments start with `//`).
fn corpus(path: &str) -> Vec<Item> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("//"))
        .enumerate()
        .map(|(n, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path} line {}: {e}", n + 1)))
        .collect()
}

/// The names an answer may mention that are not claims: every column's name and every value
/// of a text column with few values (a product "Monitor 32 Curved", an age band "18-25").
async fn names(server: &TestServer) -> Vec<String> {
    let listing = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
    let mut out = Vec::new();
    for d in listing.into_inner().datasets {
        for c in &d.columns {
            out.push(c.name.clone());
            if c.r#type != "VARCHAR" {
                continue;
            }
            let sql = format!(
                "SELECT DISTINCT \"{}\" FROM \"{}\" WHERE \"{}\" IS NOT NULL LIMIT 201",
                c.name.replace('"', "\"\""),
                d.table_name,
                c.name.replace('"', "\"\"")
            );
            let values = truth(server, &sql).await;
            if values.rows.len() <= 200 {
                out.extend(values.rows.iter().filter_map(|r| r.values.first().and_then(cell_text)));
            }
        }
    }
    out
}

/// The table names of the server's datasets, and their ids.
async fn dataset_ids(server: &TestServer) -> BTreeMap<String, String> {
    let listing = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
    listing.into_inner().datasets.into_iter().map(|d| (d.table_name, d.id)).collect()
}

/// Asks one question in `thread` (with its dataset open, when it says so) and scores the answer.
async fn ask_and_score(
    server: &TestServer,
    client: &aware_client::AwareClient,
    ids: &BTreeMap<String, String>,
    names: &[String],
    item: &Item,
    said: &[String],
    thread: &str,
) -> (Score, String, Option<String>) {
    if let Some(open) = &item.open {
        let snapshot = pb::StateSnapshot {
            thread_id: thread.to_owned(),
            ui_state_version: 1,
            current_route: format!("/datasets/{}", ids[open]),
            active_dataset_id: ids[open].clone(),
            ..Default::default()
        };
        client.chat().update_state(pb::UpdateStateRequest { snapshot: Some(snapshot) }).await.unwrap();
    }
    let sent = client.send_message(thread, &item.q, "").await.unwrap();
    // A question must never lead to a proposal to delete or change anything: any card is
    // denied, and counted against the answer; a question back is left unanswered.
    let (events, proposed) = follow_declining(client, &sent.run_id).await;
    let text = match events.last().and_then(|e| e.payload.as_ref()) {
        Some(P::RunCompleted(c)) => c.final_text.clone(),
        other => panic!("{}: the run did not complete: {other:?}", item.q),
    };
    // Every number the planner writes is traced to a tool result of its run (Grounding).
    let grounding = events.iter().find_map(|e| match &e.payload {
        Some(P::Grounding(g)) => Some(g.clone()),
        _ => None,
    });
    let ungrounded = match &grounding {
        Some(g) => {
            let loose: Vec<&str> = g.numbers.iter().filter(|n| n.source.is_none()).map(|n| n.text.as_str()).collect();
            (!loose.is_empty()).then(|| format!("UNGROUNDED {loose:?} in {}\n    → {text}", item.q))
        }
        None => Some(format!("NO GROUNDING for {}", item.q)),
    };
    let queried = calls(&events).iter().any(|(name, _)| name == "execute_query_plan" || name == "run_sql_query");
    // Relative periods are computed from the server's day, as the planner computes them.
    let today = chrono::Utc::now().date_naive().format("%Y-%m-%d").to_string();
    let truth = match &item.truth {
        Some(sql) => Some(truth(server, &sql.replace("{today}", &today)).await),
        None => None,
    };
    let mut s = score_in_thread(item, said, &text, queried, truth.as_ref(), names);
    if !proposed.is_empty() {
        s = Score::Wrong(format!("proposed {proposed:?} for a question"));
    } else if item.chart && s == Score::Correct {
        let charted = events.iter().any(|e| matches!(&e.payload, Some(P::ToolResult(r)) if r.chart.is_some()));
        if !charted {
            s = Score::Honest;
        }
    }
    (s, text, ungrounded)
}

#[tokio::test]
async fn the_offline_planner_is_never_confidently_wrong() {
    let server = TestServer::start(&[]);
    for (name, csv) in
        [("fleet_vehicles.csv", fleet()), ("clinic_visits.csv", clinic()), ("library_loans.csv", library())]
    {
        let d = upload(&server, name, csv.into_bytes()).await.unwrap();
        assert_eq!(d.status(), pb::DatasetStatus::Ready, "{name}: {}", d.error);
    }
    let ids = dataset_ids(&server).await;
    let names = names(&server).await;
    let items = corpus(concat!(env!("CARGO_MANIFEST_DIR"), "/eval/corpus.jsonl"));
    assert!(items.len() >= 200, "the corpus has {} questions", items.len());
    let client = server.client(None).await;
    let generated = ["fleet_vehicles", "clinic_visits", "library_loans"];
    // (category or family) → [correct, honest, wrong]
    let mut table: BTreeMap<String, [u32; 3]> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut ungrounded = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let (s, text, loose) = ask_and_score(&server, &client, &ids, &names, item, &[], &format!("eval-{n}")).await;
        ungrounded.extend(loose);
        let family = if generated
            .iter()
            .any(|g| item.truth.as_deref().unwrap_or_default().contains(g) || item.open.as_deref() == Some(g))
        {
            "generated datasets"
        } else {
            "sample datasets"
        };
        count_score(&mut table, &[item.cat.as_str(), family, "all"], &s);
        match &s {
            Score::Wrong(why) => wrong.push(wrong_line(item, &text, why)),
            Score::Honest if std::env::var_os("EVAL_VERBOSE").is_some() => {
                println!("honest [{}] {}\n    → {text}", item.cat, item.q)
            }
            _ => {}
        }
    }
    print_table(&table);
    for w in &wrong {
        println!("{w}");
    }
    for u in &ungrounded {
        println!("{u}");
    }
    assert!(wrong.is_empty(), "{} wrong answers (listed above)", wrong.len());
    assert!(ungrounded.is_empty(), "{} answers with ungrounded numbers (listed above)", ungrounded.len());
    for (cat, [c, h, w]) in &table {
        let share = f64::from(*c) / f64::from((c + h + w).max(1));
        assert!(share >= 0.8, "{cat}: only {:.1}% correct", share * 100.0);
    }
}

/// Counts `s` under each of `keys`, as [correct, honest, wrong].
fn count_score(table: &mut BTreeMap<String, [u32; 3]>, keys: &[&str], s: &Score) {
    let column = match s {
        Score::Correct => 0,
        Score::Honest => 1,
        Score::Wrong(_) => 2,
    };
    for key in keys {
        table.entry((*key).to_owned()).or_default()[column] += 1;
    }
}

/// A wrong answer as the report prints it.
fn wrong_line(item: &Item, text: &str, why: &str) -> String {
    format!("WRONG [{}] {}\n    → {text}\n    ({why})", item.cat, item.q)
}

fn print_table(table: &BTreeMap<String, [u32; 3]>) {
    println!("\n{:<22} {:>8} {:>8} {:>8} {:>10}", "category", "correct", "honest", "wrong", "correct %");
    for (cat, [c, h, w]) in table {
        let total = c + h + w;
        println!("{cat:<22} {c:>8} {h:>8} {w:>8} {:>9.1}%", f64::from(*c) * 100.0 / f64::from(total.max(1)));
    }
}

/// The blind evaluation's datasets (`tests/eval/blind/data.rs`).
#[path = "../eval/blind/data.rs"]
mod blind;

/// The blind corpora: questions over seven datasets in domains the planner was never written
/// against, written by someone who saw only each dataset's schema, a few rows and its
/// categories, and frozen before the planner was changed for them (`questions-1.jsonl`; the
/// second and third sets were written by other strangers after rounds of planner work, each
/// first run unseen: BENCHMARKS.md §8 has every measurement). Each set
/// must state no wrong number and propose nothing, answer at least 80% of its answerable
/// questions, and at least 70% in every category. `BLIND_ONLY=<category>` asks only one
/// category's questions (and conversations), `EVAL_VERBOSE=1` prints every answer that is not
/// correct.
#[tokio::test]
async fn strangers_questions_over_data_it_never_saw() {
    let server = TestServer::start(&[]);
    for (name, csv) in blind::files() {
        let d = upload(&server, name, csv.into_bytes()).await.unwrap();
        assert_eq!(d.status(), pb::DatasetStatus::Ready, "{name}: {}", d.error);
    }
    let ids = dataset_ids(&server).await;
    let names = names(&server).await;
    let client = server.client(None).await;
    let only = std::env::var("BLIND_ONLY").ok();
    let verbose = std::env::var_os("EVAL_VERBOSE").is_some();
    let mut failures = Vec::new();
    for set in ["questions-1.jsonl", "questions-2.jsonl", "questions-3.jsonl"] {
        let path = format!("{}/eval/blind/{set}", env!("CARGO_MANIFEST_DIR"));
        let items = corpus(&path);
        let least = match set {
            "questions-1.jsonl" => 300,
            "questions-2.jsonl" => 170,
            _ => 130,
        };
        assert!(items.len() >= least, "{set} has {} questions", items.len());
        // (category) → [correct, honest, wrong], over the answerable questions and the others.
        let mut table: BTreeMap<String, [u32; 3]> = BTreeMap::new();
        let mut wrong = Vec::new();
        let mut ungrounded = Vec::new();
        for (n, item) in items.iter().enumerate() {
            if only.as_ref().is_some_and(|c| *c != item.cat) {
                continue;
            }
            let thread = match &item.thread {
                Some(t) => format!("{set}-{t}"),
                None => format!("{set}-{n}"),
            };
            // The earlier questions of its conversation.
            let said: Vec<String> = items[..n]
                .iter()
                .filter(|earlier| earlier.thread.is_some() && earlier.thread == item.thread)
                .map(|earlier| earlier.q.clone())
                .collect();
            let (s, text, loose) = ask_and_score(&server, &client, &ids, &names, item, &said, &thread).await;
            ungrounded.extend(loose);
            let answerable = if item.truth.is_some() { "answerable" } else { "not answerable" };
            count_score(&mut table, &[item.cat.as_str(), answerable], &s);
            match &s {
                Score::Wrong(why) => wrong.push(wrong_line(item, &text, why)),
                Score::Honest if verbose => println!("not answered [{}] {}\n    → {text}", item.cat, item.q),
                _ => {}
            }
        }
        println!("\n{set}");
        print_table(&table);
        for w in wrong.iter().chain(&ungrounded) {
            println!("{w}");
        }
        if !wrong.is_empty() {
            failures.push(format!("{set}: {} wrong answers", wrong.len()));
        }
        if !ungrounded.is_empty() {
            failures.push(format!("{set}: {} answers with ungrounded numbers", ungrounded.len()));
        }
        // Correct among the answerable questions: overall, and in every category that has them.
        let [c, h, w] = table.get("answerable").copied().unwrap_or_default();
        let overall = f64::from(c) / f64::from((c + h + w).max(1));
        if only.is_none() && overall < 0.8 {
            failures.push(format!("{set}: {:.1}% of the answerable questions answered", overall * 100.0));
        }
        for (cat, [c, h, w]) in &table {
            let share = f64::from(*c) / f64::from((c + h + w).max(1));
            if cat != "not answerable" && cat != "answerable" && share < 0.7 {
                failures.push(format!("{set}: {cat} only {:.1}% correct", share * 100.0));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_scorer_catches_a_wrong_number_and_accepts_a_rounded_right_one() {
    let item = |q: &str| Item {
        cat: "count".into(),
        q: q.into(),
        truth: Some(String::new()),
        must: None,
        contains: vec![],
        numbers: None,
        open: None,
        implied: vec![],
        thread: None,
        chart: false,
    };
    let value = |x: f64| pb::Value { kind: Some(pb::value::Kind::DoubleValue(x)) };
    let text_value = |s: &str| pb::Value { kind: Some(pb::value::Kind::StringValue(s.into())) };
    let table = pb::Table {
        rows: vec![pb::Row { values: vec![text_value("Gràcia"), value(511_852.941_2)] }],
        ..Default::default()
    };
    let q = item("average price in Gràcia");
    assert_eq!(score(&q, "The average price in Gràcia is €511,853.", true, Some(&table), &[]), Score::Correct);
    assert!(matches!(score(&q, "The average price in Gràcia is €512,853.", true, Some(&table), &[]), Score::Wrong(_)));
    assert!(matches!(score(&q, "There are 500 matching rows.", true, Some(&table), &[]), Score::Wrong(_)));
    assert_eq!(score(&q, "Which price do you mean?", false, Some(&table), &[]), Score::Honest);
    let share = pb::Table { rows: vec![pb::Row { values: vec![value(0.294), value(147.0)] }], ..Default::default() };
    assert_eq!(
        score(&item("churn rate"), "29.4% of customers churned: 147 of 500.", true, Some(&share), &[]),
        Score::Wrong("numbers the truth does not back: [500.0]".into())
    );
    // Names that hold digits (a product, a column), code spans and hyphenated ids are not
    // claims; a number beside them still is.
    let names = vec!["Monitor 32 Curved".to_owned()];
    assert_eq!(
        score(
            &q,
            "The average price in Gràcia is €511,853 (Monitor 32 Curved, `Within 30 Days`, SH-00436).",
            true,
            Some(&table),
            &names
        ),
        Score::Correct
    );
    assert!(matches!(
        score(&q, "The average price in Gràcia is €511,853; Monitor 32 Curved sold 33.", true, Some(&table), &names),
        Score::Wrong(_)
    ));
    // The headline (the first cell) stated with nothing false is incomplete, not wrong; another
    // of the truth's numbers stated in its place is wrong.
    let failed =
        pb::Table { rows: vec![pb::Row { values: vec![value(3.0), value(4.0), value(160.0)] }], ..Default::default() };
    assert_eq!(
        score(&item("how many students failed?"), "3 students failed.", true, Some(&failed), &[]),
        Score::Honest
    );
    assert!(matches!(
        score(&item("how many students failed?"), "There are 4 that did not pass.", true, Some(&failed), &[]),
        Score::Wrong(_)
    ));
    // A truth its SQL rounded (30.5 of a true 30.495) backs an answer rounded otherwise
    // (30.49); a truth left whole does not.
    let age = pb::Table { rows: vec![pb::Row { values: vec![value(30.5)] }], ..Default::default() };
    let rounded = Item { truth: Some("select round(avg(Age), 1) from stays".into()), ..item("average age") };
    assert_eq!(score(&rounded, "The average age is 30.49.", true, Some(&age), &[]), Score::Correct);
    assert!(matches!(score(&rounded, "The average age is 30.39.", true, Some(&age), &[]), Score::Wrong(_)));
    assert!(matches!(score(&item("average age"), "The average age is 30.49.", true, Some(&age), &[]), Score::Wrong(_)));
    let refuse = Item { truth: None, ..item("how many customers will churn next year?") };
    assert_eq!(score(&refuse, "customer_churn has no date column.", false, None, &[]), Score::Correct);
    assert!(matches!(score(&refuse, "There are 147 customers that churned.", true, None, &[]), Score::Wrong(_)));
}

/// Orders over two years: a gross and a net amount (neither called revenue), a region, a product.
fn orders_book() -> String {
    let mut rng = Rng(0x0B0_0C5);
    let base = chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap();
    let mut out = String::from("order_ref,ordered_on,region,product,gross_usd,net_usd\n");
    for i in 1..=400 {
        let gross = 50.0 + rng.unit() * 950.0;
        out.push_str(&format!(
            "OB{i:04},{},{},{},{gross:.2},{:.2}\n",
            day(base, rng.range(0, 729)),
            rng.pick(&["North", "South", "East", "West"]),
            rng.pick(&["Laptop", "Phone", "Tablet"]),
            gross * (0.7 + 0.25 * rng.unit()),
        ));
    }
    out
}

/// A conversation of five follow-ups on one dataset, each answered as a change to the last
/// reading and checked against SQL; then a word the planner does not know ("revenue") is taught
/// as a memory and the next answer uses it, saying so.
#[tokio::test]
async fn follow_ups_change_the_last_answer_and_a_taught_word_is_used_next_time() {
    let server = TestServer::start(&[]);
    let d = upload(&server, "order_book.csv", orders_book().into_bytes()).await.unwrap();
    assert_eq!(d.status(), pb::DatasetStatus::Ready, "{}", d.error);
    let ids = dataset_ids(&server).await;
    let names = names(&server).await;
    let client = server.client(None).await;
    let turn = |q: &str, truth: &str| Item {
        cat: "followup".into(),
        q: q.into(),
        truth: Some(truth.into()),
        must: None,
        contains: vec![],
        numbers: None,
        open: Some("order_book".into()),
        implied: vec![],
        thread: Some("book".into()),
        chart: false,
    };
    let by_month = "SELECT strftime(date_trunc('month', ordered_on), '%B %Y') AS month";
    let conversation = [
        turn("total net usd by region", "SELECT region, sum(net_usd) FROM order_book GROUP BY region ORDER BY region"),
        turn(
            "and by month?",
            &format!(
                "{by_month}, sum(net_usd) FROM order_book GROUP BY 1, date_trunc('month', ordered_on) ORDER BY date_trunc('month', ordered_on)"
            ),
        ),
        turn(
            "only for laptops",
            &format!(
                "{by_month}, sum(net_usd) FROM order_book WHERE product = 'Laptop' GROUP BY 1, date_trunc('month', ordered_on) ORDER BY date_trunc('month', ordered_on)"
            ),
        ),
        turn(
            "what about 2025?",
            &format!(
                "{by_month}, sum(net_usd) FROM order_book WHERE product = 'Laptop' AND year(ordered_on) = 2025 GROUP BY 1, date_trunc('month', ordered_on) ORDER BY date_trunc('month', ordered_on)"
            ),
        ),
        turn(
            "top 3 instead",
            &format!(
                "{by_month}, sum(net_usd) AS s FROM order_book WHERE product = 'Laptop' AND year(ordered_on) = 2025 GROUP BY 1 ORDER BY s DESC LIMIT 3"
            ),
        ),
    ];
    let mut said: Vec<String> = Vec::new();
    for item in &conversation {
        let (s, text, loose) = ask_and_score(&server, &client, &ids, &names, item, &said, "book").await;
        assert_eq!(s, Score::Correct, "{}\n  → {text}", item.q);
        assert_eq!(loose, None);
        said.push(item.q.clone());
    }

    // "revenue" names nothing here: not understood, and nothing stated.
    let question = Item {
        thread: None,
        ..turn("total revenue in 2025", "SELECT sum(net_usd) FROM order_book WHERE year(ordered_on) = 2025")
    };
    let (s, text, _) = ask_and_score(&server, &client, &ids, &names, &question, &[], "taught-1").await;
    assert_eq!(s, Score::Honest, "{text}");
    // Taught once, in so many words, it is kept and read so from then on — and the answer says
    // how it read it.
    let sent = client.send_message("taught-0", "revenue means net_usd", "").await.unwrap();
    let (events, _) = follow_declining(&client, &sent.run_id).await;
    assert!(events.iter().any(|e| matches!(&e.payload, Some(P::MemorySaved(_)))), "kept as a memory: {events:?}");
    let (s, text, _) = ask_and_score(&server, &client, &ids, &names, &question, &[], "taught-2").await;
    assert_eq!(s, Score::Correct, "{text}");
    assert!(text.contains("I read “revenue” as net_usd"), "{text}");
}
