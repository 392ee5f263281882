#![allow(clippy::unwrap_used)]
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
use aware_e2e::events::{calls, follow, no_confirmation};
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
        let glued = (start > 0 && chars[start - 1].is_alphanumeric())
            || (scale == 1.0 && chars.get(i).is_some_and(|c| c.is_alphabetic()));
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

/// Whether a written number (rounded to `decimals`) stands for `truth`.
fn close(written: f64, decimals: usize, truth: f64) -> bool {
    let tol = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9 * truth.abs();
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
    let req = pb::ExecuteSqlRequest { sql: sql.into(), limit: 0 };
    match server.query().await.execute_sql(req).await {
        Ok(r) => r.into_inner().table.unwrap(),
        Err(e) => panic!("the truth SQL failed: {sql}: {}", e.message()),
    }
}

fn score(item: &Item, text: &str, queried: bool, truth: Option<&pb::Table>) -> Score {
    let mut question_numbers: Vec<f64> = numbers_in(&item.q).into_iter().map(|(x, _, _)| x).collect();
    question_numbers.extend(&item.implied);
    let written = numbers_in(text);
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
    let truth_numbers: Vec<f64> = cells.iter().filter_map(|v| cell_number(v)).collect();
    let backed = |x: f64, d: usize| {
        truth_numbers.iter().any(|t| close(x, d, *t))
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
    for i in wanted {
        let Some(v) = first.get(i) else { continue };
        if let Some(t) = cell_number(v) {
            // "There are no tickets …" states a zero.
            let says_none = t == 0.0
                && text.split(|c: char| !c.is_alphanumeric()).any(|w| matches!(w, "no" | "No" | "none" | "zero"));
            if !written.iter().any(|(x, d, _)| close(*x, *d, t)) && !says_none {
                missing.push(format!("{t}"));
            }
        } else if let Some(s) = cell_text(v)
            && !text.to_lowercase().contains(&s.to_lowercase())
        {
            missing.push(s);
        }
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
        (true, false) => Score::Wrong(format!("missing {missing:?}")),
    }
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
    let listing = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
    let ids: BTreeMap<String, String> =
        listing.into_inner().datasets.into_iter().map(|d| (d.table_name, d.id)).collect();
    let corpus = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/eval/corpus.jsonl")).unwrap();
    let items: Vec<Item> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("//"))
        .enumerate()
        .map(|(n, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("corpus line {}: {e}", n + 1)))
        .collect();
    assert!(items.len() >= 200, "the corpus has {} questions", items.len());
    let client = server.client(None).await;
    let generated = ["fleet_vehicles", "clinic_visits", "library_loans"];
    // (category or family) → [correct, honest, wrong]
    let mut table: BTreeMap<String, [u32; 3]> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut ungrounded = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let thread = format!("eval-{n}");
        if let Some(open) = &item.open {
            let snapshot = pb::StateSnapshot {
                thread_id: thread.clone(),
                ui_state_version: 1,
                current_route: format!("/datasets/{}", ids[open]),
                active_dataset_id: ids[open].clone(),
                ..Default::default()
            };
            client.chat().update_state(pb::UpdateStateRequest { snapshot: Some(snapshot) }).await.unwrap();
        }
        let sent = client.send_message(&thread, &item.q, "").await.unwrap();
        let events = follow(&client, &sent.run_id, no_confirmation).await;
        let text = match events.last().and_then(|e| e.payload.as_ref()) {
            Some(P::RunCompleted(c)) => c.final_text.clone(),
            other => panic!("{}: the run did not complete: {other:?}", item.q),
        };
        // Every number the planner writes is traced to a tool result of its run (Grounding).
        let grounding = events.iter().find_map(|e| match &e.payload {
            Some(P::Grounding(g)) => Some(g.clone()),
            _ => None,
        });
        match &grounding {
            Some(g) => {
                let loose: Vec<&str> =
                    g.numbers.iter().filter(|n| n.source.is_none()).map(|n| n.text.as_str()).collect();
                if !loose.is_empty() {
                    ungrounded.push(format!("UNGROUNDED {loose:?} in {}\n    → {text}", item.q));
                }
            }
            None => ungrounded.push(format!("NO GROUNDING for {}", item.q)),
        }
        let queried = calls(&events).iter().any(|(name, _)| name == "execute_query_plan" || name == "run_sql_query");
        // Relative periods are computed from the server's day, as the planner computes them.
        let today = chrono::Utc::now().date_naive().format("%Y-%m-%d").to_string();
        let truth = match &item.truth {
            Some(sql) => Some(truth(&server, &sql.replace("{today}", &today)).await),
            None => None,
        };
        let s = score(item, &text, queried, truth.as_ref());
        let family = if generated
            .iter()
            .any(|g| item.truth.as_deref().unwrap_or_default().contains(g) || item.open.as_deref() == Some(g))
        {
            "generated datasets"
        } else {
            "sample datasets"
        };
        for key in [item.cat.as_str(), family, "all"] {
            let row = table.entry(key.to_owned()).or_default();
            match &s {
                Score::Correct => row[0] += 1,
                Score::Honest => row[1] += 1,
                Score::Wrong(_) => row[2] += 1,
            }
        }
        match &s {
            Score::Wrong(why) => wrong.push(format!("WRONG [{}] {}\n    → {text}\n    ({why})", item.cat, item.q)),
            Score::Honest if std::env::var_os("EVAL_VERBOSE").is_some() => {
                println!("honest [{}] {}\n    → {text}", item.cat, item.q)
            }
            _ => {}
        }
    }
    println!("\n{:<22} {:>8} {:>8} {:>8} {:>10}", "category", "correct", "honest", "wrong", "correct %");
    for (cat, [c, h, w]) in &table {
        let total = c + h + w;
        println!("{cat:<22} {c:>8} {h:>8} {w:>8} {:>9.1}%", f64::from(*c) * 100.0 / f64::from(total.max(1)));
    }
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
    };
    let value = |x: f64| pb::Value { kind: Some(pb::value::Kind::DoubleValue(x)) };
    let text_value = |s: &str| pb::Value { kind: Some(pb::value::Kind::StringValue(s.into())) };
    let table = pb::Table {
        rows: vec![pb::Row { values: vec![text_value("Gràcia"), value(511_852.941_2)] }],
        ..Default::default()
    };
    let q = item("average price in Gràcia");
    assert_eq!(score(&q, "The average price in Gràcia is €511,853.", true, Some(&table)), Score::Correct);
    assert!(matches!(score(&q, "The average price in Gràcia is €512,853.", true, Some(&table)), Score::Wrong(_)));
    assert!(matches!(score(&q, "There are 500 matching rows.", true, Some(&table)), Score::Wrong(_)));
    assert_eq!(score(&q, "Which price do you mean?", false, Some(&table)), Score::Honest);
    let share = pb::Table { rows: vec![pb::Row { values: vec![value(0.294), value(147.0)] }], ..Default::default() };
    assert_eq!(
        score(&item("churn rate"), "29.4% of customers churned: 147 of 500.", true, Some(&share)),
        Score::Wrong("numbers the truth does not back: [500.0]".into())
    );
    let refuse = Item { truth: None, ..item("how many customers will churn next year?") };
    assert_eq!(score(&refuse, "customer_churn has no date column.", false, None), Score::Correct);
    assert!(matches!(score(&refuse, "There are 147 customers that churned.", true, None), Score::Wrong(_)));
}
