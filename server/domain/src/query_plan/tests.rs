//! Plans compiled against a sample dataset: the SQL they give, and the field a bad one names.

use super::*;
use crate::dataset::{Dataset, DatasetFormat, DatasetStatus};
use crate::ids::{DatasetId, UserId};
use crate::value::Column;

fn apartments() -> Dataset {
    Dataset {
        id: DatasetId::parse("ds_1").unwrap(),
        owner: UserId::local(),
        name: "barcelona_apartments.csv".into(),
        table_name: "barcelona_apartments".into(),
        format: DatasetFormat::Csv,
        status: DatasetStatus::Ready,
        row_count: 240,
        columns: vec![
            Column::new("neighbourhood", "VARCHAR"),
            Column::new("price_eur", "BIGINT"),
            Column::new("sqm", "INTEGER"),
            Column::new("listed_on", "DATE"),
            Column::new("has_terrace", "BOOLEAN"),
        ],
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

fn plan(json: serde_json::Value) -> QueryPlan {
    serde_json::from_value(json).unwrap()
}

#[test]
fn plans_compile_to_one_deterministic_select() {
    let p = plan(serde_json::json!({
        "dataset": "barcelona_apartments",
        "select": [{"column": "Neighbourhood"}, {"column": "price_eur", "aggregate": "avg"}],
        "filters": [
            {"column": "price_eur", "op": "gt", "value": {"t": "int", "v": 300000}},
            {"column": "listed_on", "op": "between", "values": [{"t": "string", "v": "2024-01-01"}, {"t": "string", "v": "2024-12-31"}]},
            {"column": "neighbourhood", "op": "in", "values": [{"t": "string", "v": "Gràcia"}, {"t": "string", "v": "O'Hare"}]}
        ],
        "group_by": ["neighbourhood"],
        "order_by": [{"column": "avg_price_eur", "descending": true}],
        "limit": 5
    }));
    let sql = compile(&p, &apartments(), 10_000).unwrap();
    assert_eq!(
        sql,
        "SELECT \"neighbourhood\" AS \"neighbourhood\", avg(\"price_eur\") AS \"avg_price_eur\" FROM \"barcelona_apartments\" \
         WHERE \"price_eur\" > 300000 AND \"listed_on\" BETWEEN DATE '2024-01-01' AND DATE '2024-12-31' \
         AND \"neighbourhood\" IN ('Gràcia', 'O''Hare') GROUP BY \"neighbourhood\" ORDER BY \"avg_price_eur\" DESC LIMIT 5"
    );
    assert_eq!(compile(&p, &apartments(), 10_000).unwrap(), sql, "deterministic");
    let count = plan(serde_json::json!({"dataset": "x", "select": [{"aggregate": "count"}]}));
    assert_eq!(
        compile(&count, &apartments(), 100).unwrap(),
        "SELECT count(*) AS \"count\" FROM \"barcelona_apartments\" LIMIT 100"
    );
}

#[test]
fn bad_plans_name_the_field() {
    let field = |json: serde_json::Value| compile(&plan(json), &apartments(), 100).unwrap_err().field.unwrap();
    assert_eq!(field(serde_json::json!({"dataset": "x", "select": [{"column": "nope"}]})), "plan.select[0].column");
    assert_eq!(
        field(serde_json::json!({"dataset": "x", "select": [{"column": "neighbourhood", "aggregate": "avg"}]})),
        "plan.select[0].aggregate"
    );
    assert_eq!(
        field(
            serde_json::json!({"dataset": "x", "filters": [{"column": "price_eur", "op": "eq", "value": {"t": "string", "v": "cheap"}}]})
        ),
        "plan.filters[0].value"
    );
    assert_eq!(
        field(
            serde_json::json!({"dataset": "x", "filters": [{"column": "price_eur", "op": "contains", "value": {"t": "string", "v": "1"}}]})
        ),
        "plan.filters[0].op"
    );
    assert_eq!(
        field(
            serde_json::json!({"dataset": "x", "select": [{"column": "neighbourhood"}, {"column": "price_eur", "aggregate": "sum"}]})
        ),
        "plan.select[0].column"
    );
    assert_eq!(field(serde_json::json!({"dataset": "x", "limit": 101})), "plan.limit");
    assert_eq!(
        field(serde_json::json!({"dataset": "x", "select": [{"column": "price_eur", "alias": "x\"; DROP"}]})),
        "plan.select[0].alias"
    );
}

#[test]
fn computed_values_compile_per_row_aggregated_and_as_formulas() {
    let sql = |json: serde_json::Value| compile(&plan(json), &apartments(), 100);
    let per_m2 = serde_json::json!({"op": "div", "args": [{"column": "price_eur"}, {"column": "sqm"}]});
    assert_eq!(
        sql(serde_json::json!({"dataset": "x", "select": [{"column": "neighbourhood"},
            {"expr": per_m2, "aggregate": "median", "alias": "median_eur_m2"}], "group_by": ["neighbourhood"],
            "filters": [{"expr": {"op": "sub", "args": [{"column": "price_eur"}, {"number": 1000}]}, "op": "gt",
                "value": {"t": "int", "v": 2000}}]}))
        .unwrap(),
        "SELECT \"neighbourhood\" AS \"neighbourhood\", median((\"price_eur\" / NULLIF(\"sqm\", 0))) AS \"median_eur_m2\" \
         FROM \"barcelona_apartments\" WHERE (\"price_eur\" - 1000.0) > 2000 GROUP BY \"neighbourhood\" LIMIT 100"
    );
    // A formula over aggregates: the total price over the number of rows.
    assert_eq!(
        sql(serde_json::json!({"dataset": "x", "select": [{"expr": {"op": "div", "args": [
            {"aggregate": "sum", "args": [{"column": "price_eur"}]}, {"aggregate": "count"}]}}]}))
        .unwrap(),
        "SELECT (sum(\"price_eur\") / NULLIF(count(*), 0)) AS \"value\" FROM \"barcelona_apartments\" LIMIT 100"
    );
    assert_eq!(
        sql(serde_json::json!({"dataset": "x", "select": [{"expr": {"op": "days_between", "args": [
            {"column": "listed_on"}, {"column": "listed_on"}]}, "aggregate": "max"}]}))
        .unwrap(),
        "SELECT max(date_diff('day', \"listed_on\", \"listed_on\")) AS \"max_value\" FROM \"barcelona_apartments\" LIMIT 100"
    );
    let field = |json: serde_json::Value| sql(json).unwrap_err().field.unwrap();
    let select =
        |e: serde_json::Value| serde_json::json!({"dataset": "x", "select": [{"expr": e, "aggregate": "sum"}]});
    // Text is not arithmetic; dates only through days_between; no nesting of aggregates.
    assert_eq!(
        field(select(serde_json::json!({"op": "mul", "args": [{"column": "neighbourhood"}, {"number": 2}]}))),
        "plan.select[0].expr.args"
    );
    assert_eq!(
        field(select(serde_json::json!({"op": "sub", "args": [{"column": "listed_on"}, {"column": "listed_on"}]}))),
        "plan.select[0].expr.args"
    );
    assert_eq!(
        field(serde_json::json!({"dataset": "x", "select": [{"expr": {"aggregate": "sum", "args": [
            {"aggregate": "avg", "args": [{"column": "sqm"}]}]}}]})),
        "plan.select[0].expr.args[0].aggregate"
    );
    assert_eq!(field(select(serde_json::json!({"column": "sqm", "number": 2}))), "plan.select[0].expr");
    assert_eq!(
        field(select(serde_json::json!({"op": "div", "args": [{"column": "nope"}, {"number": 2}]}))),
        "plan.select[0].expr.args[0].column"
    );
    // A bare column beside aggregates, and an expr in a filter that aggregates, are refused.
    assert_eq!(
        field(serde_json::json!({"dataset": "x", "select": [{"expr": {"op": "div", "args": [
            {"column": "sqm"}, {"aggregate": "count"}]}}]})),
        "plan.select[0].expr"
    );
    assert_eq!(
        field(serde_json::json!({"dataset": "x", "filters": [{"expr": {"aggregate": "count"}, "op": "gt",
            "value": {"t": "int", "v": 1}}]})),
        "plan.filters[0].expr"
    );
    let mut deep = serde_json::json!({"column": "sqm"});
    for _ in 0..10 {
        deep = serde_json::json!({"op": "add", "args": [deep, {"number": 1}]});
    }
    assert!(field(select(deep)).starts_with("plan.select[0].expr"));
}

#[test]
fn derived_measures_time_buckets_and_shares_compile_to_checked_sql() {
    let sql = |json: serde_json::Value| compile(&plan(json), &apartments(), 100);
    assert_eq!(
        sql(serde_json::json!({"dataset": "x", "select": [{"column": "neighbourhood"},
            {"column": "price_eur", "per": "sqm", "aggregate": "avg"}], "group_by": ["neighbourhood"],
            "order_by": [{"column": "avg_price_eur_per_sqm", "descending": true}]}))
        .unwrap(),
        "SELECT \"neighbourhood\" AS \"neighbourhood\", avg((\"price_eur\" / NULLIF(\"sqm\", 0))) AS \"avg_price_eur_per_sqm\" \
         FROM \"barcelona_apartments\" GROUP BY \"neighbourhood\" ORDER BY \"avg_price_eur_per_sqm\" DESC LIMIT 100"
    );
    assert_eq!(
        sql(serde_json::json!({"dataset": "x", "select": [{"column": "listed_on", "bucket": "month"},
            {"aggregate": "count"}], "group_by": ["listed_on"], "order_by": [{"column": "listed_on_month"}]}))
        .unwrap(),
        "SELECT date_trunc('month', \"listed_on\") AS \"listed_on_month\", count(*) AS \"count\" FROM \"barcelona_apartments\" \
         GROUP BY date_trunc('month', \"listed_on\") ORDER BY \"listed_on_month\" ASC LIMIT 100"
    );
    assert_eq!(
        sql(serde_json::json!({"dataset": "x", "select": [{"column": "neighbourhood"}, {"aggregate": "share",
            "condition": [{"column": "has_terrace", "op": "eq", "value": {"t": "bool", "v": true}}]}],
            "group_by": ["neighbourhood"]}))
        .unwrap(),
        "SELECT \"neighbourhood\" AS \"neighbourhood\", avg(CASE WHEN \"has_terrace\" = TRUE THEN 1.0 ELSE 0.0 END) AS \"share\" \
         FROM \"barcelona_apartments\" GROUP BY \"neighbourhood\" LIMIT 100"
    );
    let field = |json: serde_json::Value| sql(json).unwrap_err().field.unwrap();
    assert_eq!(
        field(
            serde_json::json!({"dataset": "x", "select": [{"column": "neighbourhood", "per": "sqm", "aggregate": "avg"}]})
        ),
        "plan.select[0].per"
    );
    assert_eq!(
        field(
            serde_json::json!({"dataset": "x", "select": [{"column": "price_eur", "bucket": "month"}], "group_by": ["price_eur"]})
        ),
        "plan.group_by[0].bucket"
    );
    assert_eq!(
        field(serde_json::json!({"dataset": "x", "select": [{"aggregate": "share"}]})),
        "plan.select[0].condition"
    );
    assert_eq!(
        field(
            serde_json::json!({"dataset": "x", "select": [{"aggregate": "share", "condition": [{"column": "nope", "op": "is_null"}]}]})
        ),
        "plan.select[0].condition[0].column"
    );
}
