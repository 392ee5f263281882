//! A reading as the arguments of `execute_query_plan`: a typed QueryPlan, never SQL.

use super::{Ask, Cond, GroupOrder, Lit, Measure, Reading, Tally};
use crate::lexicon::Lexicon;
use aware_domain::query_plan::{Aggregate, Expr, FilterOp, Operator};
use serde_json::{Value, json};

/// The reading as a QueryPlan (the arguments of `execute_query_plan`).
pub fn plan_json(lex: &Lexicon, r: &Reading) -> Value {
    let col = |c: usize| lex.columns[c].name.clone();
    // A computed column (revenue, days between two dates) is its expression.
    let formula = |c: usize| lex.columns[c].formula.as_ref().map(|f| f.expr(&lex.columns));
    let mut plan = json!({"dataset": lex.dataset.table_name});
    let filters: Vec<Value> = r.filters.iter().flat_map(|c| cond_json(lex, c)).collect();
    if !filters.is_empty() {
        plan["filters"] = json!(filters);
    }
    if let Some(n) = r.limit {
        plan["limit"] = json!(n);
    }
    let tally = match &r.ask {
        Ask::Rows(order) => {
            if let Some((m, desc)) = order {
                if m.per.is_some() || formula(m.column).is_some() {
                    // Rows ranked by a ratio or a computed value carry it as an output after
                    // every column.
                    let alias = ratio_alias(lex, m);
                    let mut select: Vec<Value> = lex.stored().map(|c| json!({"column": lex.columns[c].name})).collect();
                    select.push(measure_item(lex, m, None, &alias));
                    plan["select"] = json!(select);
                    plan["order_by"] = json!([{"column": alias, "descending": desc}]);
                } else {
                    plan["order_by"] = json!([{"column": col(m.column), "descending": desc}]);
                }
            }
            return plan;
        }
        Ask::Tally(t) => t,
    };
    let mut select: Vec<Value> = Vec::new();
    let key = r.group.map(|(g, bucket)| match bucket {
        Some(b) => {
            select.push(json!({"column": col(g), "bucket": b.as_str(), "alias": b.as_str()}));
            b.as_str().to_owned()
        }
        None => {
            select.push(json!({"column": col(g)}));
            if let Some(l) = r.label {
                select.push(json!({"column": col(l)}));
            }
            col(g)
        }
    });
    let value_alias = value_alias(lex, tally);
    match tally {
        Tally::Count => select.push(json!({"aggregate": "count", "alias": value_alias})),
        Tally::Distinct(c) => {
            select.push(json!({"column": col(*c), "aggregate": "count_distinct", "alias": value_alias}));
        }
        Tally::Aggregate(agg, m) => select.push(measure_item(lex, m, Some(*agg), &value_alias)),
        Tally::PerRow(m) => {
            let of = formula(m.column).unwrap_or_else(|| Expr::column(&col(m.column)));
            let e = Expr::op(
                Operator::Div,
                Expr::aggregate(Aggregate::Sum, Some(of)),
                Expr::aggregate(Aggregate::Count, None),
            );
            select.push(json!({"expr": e, "alias": value_alias}));
        }
        Tally::Share(pred) => {
            let condition: Vec<Value> = pred.iter().flat_map(|c| cond_json(lex, c)).collect();
            select.push(json!({"aggregate": "share", "condition": condition, "alias": value_alias}));
            select.push(json!({"aggregate": "count", "alias": count_alias(lex)}));
        }
    }
    plan["select"] = json!(select);
    if let Some((g, _)) = r.group {
        plan["group_by"] = match r.label {
            Some(l) => json!([col(g), col(l)]),
            None => json!([col(g)]),
        };
        let key = key.unwrap_or_default();
        plan["order_by"] = match r.order {
            GroupOrder::Key => json!([{"column": key}]),
            GroupOrder::Value(desc) => json!([{"column": value_alias, "descending": desc}, {"column": key}]),
        };
    }
    plan
}

/// A condition as the plan's filters (a date range as two).
fn cond_json(lex: &Lexicon, c: &Cond) -> Vec<Value> {
    let col = |c: usize| lex.columns[c].name.clone();
    let formula = |c: usize| lex.columns[c].formula.as_ref().map(|f| f.expr(&lex.columns));
    let op = serde_json::to_value(c.op).unwrap_or_default();
    if let Some(e) = formula(c.column) {
        let mut f = json!({"expr": e, "op": op});
        match c.values.as_slice() {
            [v] => f["value"] = v.json(),
            [] => {}
            vs => f["values"] = json!(vs.iter().map(Lit::json).collect::<Vec<_>>()),
        }
        return vec![f];
    }
    match (c.op, c.values.as_slice()) {
        // A date range is [from, to): two conditions, so a timestamp late on the last day counts.
        (FilterOp::Between, [Lit::Date(from), Lit::Date(to)]) => vec![
            json!({"column": col(c.column), "op": "ge", "value": Lit::Date(*from).json()}),
            json!({"column": col(c.column), "op": "lt", "value": Lit::Date(*to).json()}),
        ],
        (FilterOp::In | FilterOp::NotIn | FilterOp::Between, vs) => {
            vec![json!({"column": col(c.column), "op": op, "values": vs.iter().map(Lit::json).collect::<Vec<_>>()})]
        }
        (_, [v, ..]) => vec![json!({"column": col(c.column), "op": op, "value": v.json()})],
        (_, []) => vec![json!({"column": col(c.column), "op": op})],
    }
}

/// A measure as an output of the plan, aggregated by `agg` (unless it totals already) and named
/// `alias`.
fn measure_item(lex: &Lexicon, m: &Measure, agg: Option<Aggregate>, alias: &str) -> Value {
    let col = |c: usize| lex.columns[c].name.clone();
    let formula = |c: usize| lex.columns[c].formula.as_ref().map(|f| f.expr(&lex.columns));
    let computed = m.per.is_some_and(|p| formula(p).is_some()) || formula(m.column).is_some();
    let mut item = if computed {
        let of = |c: usize| formula(c).unwrap_or_else(|| Expr::column(&col(c)));
        let e = match m.per {
            Some(p) => Expr::op(Operator::Div, of(m.column), of(p)),
            None => of(m.column),
        };
        json!({"expr": e, "alias": alias})
    } else {
        let mut item = json!({"column": col(m.column), "alias": alias});
        if let Some(per) = m.per {
            item["per"] = json!(col(per));
        }
        item
    };
    // A total over a total aggregates already.
    let of_totals = lex.columns[m.column].formula.as_ref().is_some_and(|f| f.is_total());
    if let Some(a) = agg.filter(|_| !of_totals) {
        item["aggregate"] = json!(a.as_str());
    }
    item
}

/// The output column that holds a tally's value.
pub fn value_alias(lex: &Lexicon, tally: &Tally) -> String {
    match tally {
        Tally::Count => count_alias(lex),
        Tally::Distinct(c) => clean_alias(&format!("distinct_{}", lex.columns[*c].name)),
        Tally::Aggregate(agg, m) => alias_for(lex, *agg, m),
        Tally::PerRow(m) => {
            clean_alias(&format!("{}_per_{}", lex.columns[m.column].name, crate::text::singular(&lex.entity)))
        }
        Tally::Share(_) => "share".to_owned(),
    }
}

/// The output name of a row count: the rows' plural ("apartments").
pub fn count_alias(lex: &Lexicon) -> String {
    clean_alias(&lex.entity)
}

pub fn ratio_alias(lex: &Lexicon, m: &Measure) -> String {
    let per = m.per.map_or_else(String::new, |p| format!("_per_{}", lex.columns[p].name));
    clean_alias(&format!("{}{per}", lex.columns[m.column].name))
}

pub(super) fn clean_alias(s: &str) -> String {
    s.chars().map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' }).take(64).collect()
}

/// The output name of an aggregate: `avg_price_eur`, `median_price_eur_per_sqm`.
pub fn alias_for(lex: &Lexicon, agg: Aggregate, m: &Measure) -> String {
    clean_alias(&format!("{}_{}", agg.as_str(), ratio_alias(lex, m)))
}

impl Lit {
    pub(super) fn json(&self) -> Value {
        match self {
            Self::Text(s) => json!(s),
            Self::Num(n) if n.fract() == 0.0 && n.abs() < 9e15 => json!(*n as i64),
            Self::Num(n) => json!(n),
            Self::Bool(b) => json!(b),
            Self::Date(d) => json!(d.format("%Y-%m-%d").to_string()),
        }
    }
}
