#![allow(clippy::unwrap_used)]
//! The reader against the three sample datasets (their real categorical values, read from the
//! sample files): the questions a new user asks get the plan that answers them, or an honest
//! question back — never a plan that drops part of the question.

use aware_domain::dataset::{Dataset, DatasetFormat, DatasetStatus};
use aware_domain::ids::{DatasetId, UserId};
use aware_domain::ports::categories::CategoricalColumn;
use aware_domain::value::Column;
use aware_planner::lexicon::Lexicon;
use aware_planner::reading::{Unread, plan_json, read};
use chrono::NaiveDate;
use serde_json::{Value, json};

fn dataset(table: &str, columns: &[(&str, &str)], rows: u64) -> Dataset {
    Dataset {
        id: DatasetId::generate(),
        owner: UserId::local(),
        name: format!("{table}.csv"),
        table_name: table.to_owned(),
        format: DatasetFormat::Csv,
        status: DatasetStatus::Ready,
        row_count: rows,
        columns: columns.iter().map(|(n, t)| Column::new(*n, *t)).collect(),
        size_bytes: 1,
        version_hash: String::new(),
        error: None,
        created_at: chrono::Utc::now(),
        updated_at: chrono::Utc::now(),
        description: String::new(),
        column_notes: Vec::new(),
        lineage: None,
        origin: None,
    }
}

/// The distinct values of the sample's text columns (as the engine would read them).
fn categories(filename: &str, columns: &[(&str, &str)]) -> Vec<CategoricalColumn> {
    let file = aware_core::samples::sample_files().into_iter().find(|f| f.filename == filename).unwrap();
    let mut reader_lines = file.content.lines();
    let header: Vec<&str> = reader_lines.next().unwrap().split(',').collect();
    let mut out = Vec::new();
    for (i, name) in header.iter().enumerate() {
        let sql_type = columns.iter().find(|(n, _)| n == name).unwrap().1;
        if sql_type != "VARCHAR" {
            continue;
        }
        let mut values: Vec<String> = file
            .content
            .lines()
            .skip(1)
            .filter_map(|l| split_csv(l).get(i).cloned())
            .filter(|v| !v.is_empty())
            .collect();
        values.sort();
        values.dedup();
        if values.len() <= 200 {
            out.push(CategoricalColumn { column: (*name).to_owned(), values });
        }
    }
    out
}

fn split_csv(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

const APARTMENTS: [(&str, &str); 9] = [
    ("listing_id", "BIGINT"),
    ("neighbourhood", "VARCHAR"),
    ("bedrooms", "BIGINT"),
    ("bathrooms", "BIGINT"),
    ("sqm", "BIGINT"),
    ("price_eur", "BIGINT"),
    ("energy_rating", "VARCHAR"),
    ("has_terrace", "BOOLEAN"),
    ("listed_on", "DATE"),
];
const CHURN: [(&str, &str); 9] = [
    ("customer_id", "VARCHAR"),
    ("region", "VARCHAR"),
    ("plan", "VARCHAR"),
    ("contract", "VARCHAR"),
    ("tenure_months", "BIGINT"),
    ("monthly_charges", "DOUBLE"),
    ("total_charges", "DOUBLE"),
    ("support_calls", "BIGINT"),
    ("churned", "BOOLEAN"),
];
const TICKETS: [(&str, &str); 10] = [
    ("ticket_id", "VARCHAR"),
    ("created_at", "TIMESTAMP"),
    ("customer_id", "VARCHAR"),
    ("channel", "VARCHAR"),
    ("priority", "VARCHAR"),
    ("category", "VARCHAR"),
    ("subject", "VARCHAR"),
    ("body", "VARCHAR"),
    ("status", "VARCHAR"),
    ("resolution_hours", "DOUBLE"),
];

fn lexicons() -> [Lexicon; 3] {
    [
        Lexicon::new(
            &dataset("barcelona_apartments", &APARTMENTS, 240),
            &categories("barcelona_apartments.csv", &APARTMENTS),
        ),
        Lexicon::new(&dataset("customer_churn", &CHURN, 500), &categories("customer_churn.csv", &CHURN)),
        Lexicon::new(&dataset("support_tickets", &TICKETS, 300), &categories("support_tickets.csv", &TICKETS)),
    ]
}

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
}

/// The plan for `q` over the dataset the reader picks (the one covering most words).
fn plan(q: &str) -> Result<Value, Unread> {
    let lexes = lexicons();
    let lex = lexes
        .iter()
        .max_by_key(|l| {
            let (c, n) = aware_planner::reading::coverage(q, l);
            (n, c)
        })
        .unwrap();
    read(q, lex, today()).map(|r| plan_json(lex, &r))
}

fn filters(p: &Value) -> Value {
    p.get("filters").cloned().unwrap_or(json!([]))
}

#[test]
fn the_questions_that_were_answered_wrongly_now_keep_every_condition() {
    let p = plan("how many customers churned?").unwrap();
    assert_eq!(p["dataset"], "customer_churn");
    assert_eq!(filters(&p), json!([{"column": "churned", "op": "eq", "value": true}]), "{p}");
    assert_eq!(p["select"][0]["aggregate"], "count");

    let p = plan("how many apartments are there in Gràcia?").unwrap();
    assert_eq!(filters(&p), json!([{"column": "neighbourhood", "op": "eq", "value": "Gràcia"}]), "{p}");

    let p = plan("How many apartments are in Gracia").unwrap();
    assert_eq!(filters(&p), json!([{"column": "neighbourhood", "op": "eq", "value": "Gràcia"}]), "accents folded: {p}");

    let p = plan("how many support tickets are still open?").unwrap();
    assert_eq!(p["dataset"], "support_tickets");
    assert_eq!(filters(&p), json!([{"column": "status", "op": "eq", "value": "open"}]), "{p}");

    let p = plan("median price of apartments with 3 bedrooms").unwrap();
    assert_eq!(p["select"][0]["aggregate"], "median");
    assert_eq!(p["select"][0]["column"], "price_eur");
    assert_eq!(filters(&p), json!([{"column": "bedrooms", "op": "eq", "value": 3}]), "{p}");

    let p = plan("what is the average price per square metre by neighbourhood?").unwrap();
    assert_eq!(p["group_by"], json!(["neighbourhood"]));
    assert_eq!(p["select"][1]["per"], "sqm", "{p}");
    assert_eq!(p["select"][1]["aggregate"], "avg");

    let p = plan("number of tickets by status").unwrap();
    assert_eq!(p["group_by"], json!(["status"]), "{p}");
    assert_eq!(p["select"][1]["aggregate"], "count");

    let p = plan("which apartments have a terrace and cost less than 400000?").unwrap();
    assert_eq!(
        filters(&p),
        json!([{"column": "price_eur", "op": "lt", "value": 400000}, {"column": "has_terrace", "op": "eq", "value": true}]),
        "{p}"
    );
    assert!(p.get("select").is_none() && p.get("group_by").is_none(), "the rows themselves: {p}");
}

#[test]
fn rankings_rates_and_comparisons_read_as_people_mean_them() {
    let p = plan("which neighbourhood is most expensive?").unwrap();
    assert_eq!(p["group_by"], json!(["neighbourhood"]));
    assert_eq!(p["select"][1], json!({"column": "price_eur", "aggregate": "avg", "alias": "avg_price_eur"}));
    assert_eq!(p["order_by"][0], json!({"column": "avg_price_eur", "descending": true}), "{p}");

    let p = plan("show me the 5 cheapest apartments").unwrap();
    assert_eq!(p["order_by"], json!([{"column": "price_eur", "descending": false}]), "{p}");
    assert_eq!(p["limit"], 5);

    let p = plan("the most expensive apartment").unwrap();
    assert_eq!(p["order_by"], json!([{"column": "price_eur", "descending": true}]), "{p}");
    assert_eq!(p["limit"], 1);

    let p = plan("most common ticket categories").unwrap();
    assert_eq!(p["group_by"], json!(["category"]), "{p}");
    assert_eq!(p["order_by"][0]["descending"], true);

    let p = plan("what's the churn rate?").unwrap();
    assert_eq!(p["select"][0]["aggregate"], "share", "{p}");
    assert_eq!(p["select"][0]["condition"], json!([{"column": "churned", "op": "eq", "value": true}]));

    let p = plan("compare churn by plan").unwrap();
    assert_eq!(p["group_by"], json!(["plan"]), "{p}");
    assert_eq!(p["select"][1]["aggregate"], "share");

    let p = plan("how many customers on the premium plan did not churn?").unwrap();
    assert_eq!(
        filters(&p),
        json!([{"column": "plan", "op": "eq", "value": "premium"}, {"column": "churned", "op": "eq", "value": false}]),
        "{p}"
    );

    let p = plan("how many apartments in Gràcia or Eixample have no terrace?").unwrap();
    assert_eq!(
        filters(&p),
        json!([
            {"column": "neighbourhood", "op": "in", "values": ["Gràcia", "Eixample"]},
            {"column": "has_terrace", "op": "eq", "value": false}
        ]),
        "{p}"
    );

    let p = plan("how many tickets were created in 2025?").unwrap();
    assert_eq!(
        filters(&p),
        json!([{"column": "created_at", "op": "ge", "value": "2025-01-01"}, {"column": "created_at", "op": "lt", "value": "2026-01-01"}]),
        "{p}"
    );

    let p = plan("tickets per month").unwrap();
    assert_eq!(p["select"][0], json!({"column": "created_at", "bucket": "month", "alias": "month"}), "{p}");
}

#[test]
fn what_cannot_be_read_is_said_and_never_answered() {
    let refused = |q: &str| match plan(q) {
        Err(Unread::Refuse(t) | Unread::Ask(t)) => t,
        Err(Unread::Choose(c)) => c.in_words(),
        other => panic!("{q}: expected a refusal or a question, got {other:?}"),
    };
    let t = refused("how many customers churned last month?");
    assert!(t.contains("no date column"), "{t}");
    let t = refused("how many apartments have a swimming pool?");
    assert!(t.contains("swimming") && t.contains("pool"), "{t}");
    let t = refused("what is the average charges?");
    assert!(t.contains("monthly_charges") || t.contains("monthly charges"), "{t}");
    let t = refused("how many customers will churn next year?");
    assert!(t.contains("next"), "{t}");
    let t = refused("how many apartments are in Madrid?");
    assert!(t.contains("Madrid"), "{t}");
    assert!(matches!(plan("write me a poem"), Err(Unread::NotData) | Err(Unread::Refuse(_))));
    // Clients are the customers here, one per row.
    assert!(plan("how many unique clients are there?").is_ok());
}

/// A result table as the sandbox returns it.
fn table(columns: &[(&str, &str)], rows: Vec<Vec<aware_domain::value::Value>>) -> aware_domain::value::Table {
    aware_domain::value::Table {
        columns: columns.iter().map(|(n, t)| Column::new(*n, *t)).collect(),
        rows,
        truncated: false,
        exec_time_ms: 1,
    }
}

/// The answer to `q` over `result`.
fn answer(q: &str, result: &aware_domain::value::Table) -> String {
    let lexes = lexicons();
    let lex = lexes
        .iter()
        .max_by_key(|l| {
            let (c, n) = aware_planner::reading::coverage(q, l);
            (n, c)
        })
        .unwrap();
    let r = read(q, lex, today()).unwrap();
    aware_planner::answer::write(lex, &r, result)
}

#[test]
fn answers_lead_with_the_insight_in_numbers_people_read() {
    use aware_domain::value::Value::{Double, Int, String as Text};
    let t = table(&[("customers", "BIGINT")], vec![vec![Int(147)]]);
    assert_eq!(answer("how many customers churned?", &t), "There are 147 customers that churned.");

    let t = table(&[("median_price_eur", "DOUBLE")], vec![vec![Double(470_000.0)]]);
    assert_eq!(
        answer("median price of apartments with 3 bedrooms", &t),
        "The median price of apartments with 3 bedrooms is €470,000."
    );

    let t = table(
        &[("neighbourhood", "VARCHAR"), ("avg_price_eur", "DOUBLE")],
        vec![
            vec![Text("Sarrià-Sant Gervasi".into()), Double(625_222.222_2)],
            vec![Text("Les Corts".into()), Double(558_944.4)],
            vec![Text("Sants-Montjuïc".into()), Double(380_000.0)],
        ],
    );
    assert_eq!(
        answer("which neighbourhood is most expensive?", &t),
        "Sarrià-Sant Gervasi has the highest average price: €625,222, ahead of Les Corts. The table ranks them all."
    );

    let t = table(&[("share", "DOUBLE"), ("customers", "BIGINT")], vec![vec![Double(0.294), Int(500)]]);
    assert_eq!(answer("what's the churn rate?", &t), "29.4% of customers churned (147 of 500).");

    let t = table(&[("share", "DOUBLE"), ("apartments", "BIGINT")], vec![vec![Double(0.35), Int(240)]]);
    assert_eq!(
        answer("what percentage of apartments have a terrace?", &t),
        "35% of apartments have a terrace (84 of 240)."
    );

    let t = table(
        &[("listing_id", "BIGINT"), ("neighbourhood", "VARCHAR"), ("price_eur", "BIGINT")],
        vec![vec![Int(17), Text("Gràcia".into()), Int(890_000)]],
    );
    assert_eq!(
        answer("the most expensive apartment", &t),
        "The apartment with the highest price is listing 17 (neighbourhood Gràcia): €890,000."
    );

    let t = table(
        &[("status", "VARCHAR"), ("tickets", "BIGINT")],
        vec![
            vec![Text("closed".into()), Int(180)],
            vec![Text("open".into()), Int(59)],
            vec![Text("pending".into()), Int(61)],
        ],
    );
    assert_eq!(
        answer("number of tickets by status", &t),
        "Tickets by status: highest closed (180), lowest open (59). In full: closed 180, open 59, pending 61."
    );
    let tied = table(
        &[("status", "VARCHAR"), ("tickets", "BIGINT")],
        vec![
            vec![Text("closed".into()), Int(180)],
            vec![Text("open".into()), Int(59)],
            vec![Text("pending".into()), Int(59)],
        ],
    );
    assert_eq!(
        answer("number of tickets by status", &tied),
        "Tickets by status: highest closed (180), lowest open and pending (59). In full: closed 180, open 59, pending 59.",
        "a tie is said, not broken by the order of the rows"
    );
}

/// A retail orders table like a stranger's: units, a unit price and a discount in percent (no
/// revenue column), one year of dates.
fn orders() -> Lexicon {
    const ORDERS: [(&str, &str); 9] = [
        ("order_id", "VARCHAR"),
        ("order_date", "DATE"),
        ("region", "VARCHAR"),
        ("product", "VARCHAR"),
        ("category", "VARCHAR"),
        ("units", "BIGINT"),
        ("unit_price", "DOUBLE"),
        ("discount_pct", "BIGINT"),
        ("returned", "BOOLEAN"),
    ];
    let cats = [
        CategoricalColumn { column: "region".into(), values: vec!["East".into(), "North".into(), "West".into()] },
        CategoricalColumn { column: "product".into(), values: vec!["Laptop Pro 14".into(), "Monitor 27".into()] },
        CategoricalColumn { column: "category".into(), values: vec!["Laptops".into(), "Monitors".into()] },
    ];
    let mut lex = Lexicon::new(&dataset("sales_orders", &ORDERS, 500), &cats);
    let day = |m, d| NaiveDate::from_ymd_opt(2025, m, d).unwrap();
    lex.columns[1].span = Some((day(1, 2), day(12, 30)));
    lex
}

#[test]
fn a_strangers_words_periods_and_computed_measures() {
    let lex = orders();
    let p = |q: &str| read(q, &lex, today()).map(|r| plan_json(&lex, &r));
    let revenue = json!({"op": "mul", "args": [
        {"op": "mul", "args": [{"column": "units"}, {"column": "unit_price"}]},
        {"op": "sub", "args": [{"number": 1.0}, {"op": "div", "args": [{"column": "discount_pct"}, {"number": 100.0}]}]}
    ]});
    // "sales" is the revenue the columns imply, summed per region.
    let q = p("total sales by region").unwrap();
    assert_eq!(q["group_by"], json!(["region"]), "{q}");
    assert_eq!(q["select"][1]["expr"], revenue, "{q}");
    assert_eq!(q["select"][1]["aggregate"], "sum", "{q}");
    // Top-k of groups by an amount ranks totals, with the number asked for.
    let q = p("top 3 products by revenue").unwrap();
    assert_eq!((q["group_by"].clone(), q["limit"].clone()), (json!(["product"]), json!(3)), "{q}");
    assert_eq!(
        (q["select"][1]["aggregate"].clone(), q["order_by"][0]["descending"].clone()),
        (json!("sum"), json!(true))
    );
    // The biggest orders are the ones worth most.
    let q = p("the 5 biggest orders").unwrap();
    assert_eq!(q["limit"], 5, "{q}");
    assert_eq!(q["order_by"][0], json!({"column": "revenue", "descending": true}), "{q}");
    // "sold" is the units, totalled; the best-selling product leads.
    let q = p("best selling product").unwrap();
    assert_eq!(q["group_by"], json!(["product"]), "{q}");
    assert_eq!(q["select"][1], json!({"column": "units", "aggregate": "sum", "alias": "sum_units"}), "{q}");
    // Quarters, halves and a month in the data's only year.
    let between = |q: &Value| (q["filters"][0]["value"].clone(), q["filters"][1]["value"].clone());
    assert_eq!(between(&p("how many orders in Q3?").unwrap()), (json!("2025-07-01"), json!("2025-10-01")));
    assert_eq!(
        between(&p("units sold in the first half of 2025").unwrap()),
        (json!("2025-01-01"), json!("2025-07-01"))
    );
    assert_eq!(between(&p("revenue in March").unwrap()), (json!("2025-03-01"), json!("2025-04-01")));
    assert_eq!(between(&p("orders between May and July").unwrap()), (json!("2025-05-01"), json!("2025-08-01")));
    assert_eq!(
        between(&p("how many orders in the last quarter of 2025").unwrap()),
        (json!("2025-10-01"), json!("2026-01-01"))
    );
    // A number compared with is never also a year.
    let q = p("how many orders with revenue over 2000?").unwrap();
    assert_eq!(q["filters"], json!([{"expr": revenue, "op": "gt", "value": 2000}]), "{q}");
    // Follow-ups change the last reading.
    let first = read("total revenue by region", &lex, today()).unwrap();
    let next = aware_planner::reading::read_followup("and by month?", &lex, today(), &first).unwrap();
    assert_eq!(plan_json(&lex, &next)["group_by"], json!(["order_date"]));
    let next = aware_planner::reading::read_followup("only for laptops", &lex, today(), &first).unwrap();
    let q = plan_json(&lex, &next);
    assert_eq!(
        (q["group_by"].clone(), q["filters"].clone()),
        (json!(["region"]), json!([{"column": "category", "op": "eq", "value": "Laptops"}])),
        "{q}"
    );
    let next = aware_planner::reading::read_followup("top 2 instead", &lex, today(), &first).unwrap();
    assert_eq!(
        (plan_json(&lex, &next)["limit"].clone(), next.order),
        (json!(2), aware_planner::reading::GroupOrder::Value(true))
    );
}
