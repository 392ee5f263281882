//! Measures a dataset does not store but its columns imply, named as people name them: revenue
//! from units, a unit price and a discount ("sales after discounts"), and the days between two
//! dates ("delivery time", "length of stay"). Each is a computed column of the lexicon, read like
//! any other, and every answer that uses one states its formula.

use super::{Class, ColumnInfo, Entry, Lexicon, Meaning, Source, Unit};
use crate::text::words_of;
use aware_domain::query_plan::{Expr, Operator};
use aware_domain::value::ValueKind;

/// A computed value over a dataset's columns (by index).
#[derive(Clone, Debug, PartialEq)]
pub enum Formula {
    Column(usize),
    Number(f64),
    Op(Operator, Box<Formula>, Box<Formula>),
    /// The total of one over the total of the other ("total freight cost over total
    /// distance"): a value of all the rows (or each group's), not of each row.
    Totals(Box<Formula>, Box<Formula>),
}

impl Formula {
    pub(super) fn op(op: Operator, a: Formula, b: Formula) -> Self {
        Self::Op(op, Box::new(a), Box::new(b))
    }

    /// Whether it is a value of many rows together, not of each row.
    pub fn is_total(&self) -> bool {
        matches!(self, Self::Totals(..))
    }

    /// Whether it reads column `c`.
    pub fn reads(&self, c: usize) -> bool {
        match self {
            Self::Column(x) => *x == c,
            Self::Number(_) => false,
            Self::Op(_, a, b) | Self::Totals(a, b) => a.reads(c) || b.reads(c),
        }
    }

    /// The first column it reads.
    pub(super) fn first_column(&self) -> Option<usize> {
        match self {
            Self::Column(c) => Some(*c),
            Self::Number(_) => None,
            Self::Op(_, a, b) | Self::Totals(a, b) => a.first_column().or_else(|| b.first_column()),
        }
    }

    pub fn is_days_between(&self) -> bool {
        matches!(self, Self::Op(Operator::DaysBetween, ..))
    }

    /// The plan's expression for it.
    pub fn expr(&self, columns: &[ColumnInfo]) -> Expr {
        match self {
            Self::Column(c) => Expr::column(&columns[*c].name),
            Self::Number(x) => Expr::number(*x),
            Self::Op(op, a, b) => Expr::op(*op, a.expr(columns), b.expr(columns)),
            Self::Totals(a, b) => Expr::op(
                Operator::Div,
                Expr::aggregate(aware_domain::query_plan::Aggregate::Sum, Some(a.expr(columns))),
                Expr::aggregate(aware_domain::query_plan::Aggregate::Sum, Some(b.expr(columns))),
            ),
        }
    }

    /// How it is computed, in words without digits (an answer's numbers are all results):
    /// "units × unit_price less discount_pct percent".
    pub fn describe(&self, columns: &[ColumnInfo]) -> String {
        match self {
            Self::Column(c) => columns[*c].name.clone(),
            Self::Number(x) => format!("{x}"),
            // (1 − d/100) as people say it.
            Self::Op(Operator::Mul, a, b) if matches!(**b, Self::Op(Operator::Sub, ..)) => match &**b {
                Self::Op(Operator::Sub, _, d) => match &**d {
                    Self::Op(Operator::Div, pct, _) => {
                        format!("{} less {} percent", a.describe(columns), pct.describe(columns))
                    }
                    Self::Column(_) | Self::Number(_) | Self::Op(..) | Self::Totals(..) => {
                        format!("{} × ({})", a.describe(columns), b.describe(columns))
                    }
                },
                Self::Column(_) | Self::Number(_) | Self::Op(..) | Self::Totals(..) => {
                    format!("{} × {}", a.describe(columns), b.describe(columns))
                }
            },
            Self::Op(Operator::DaysBetween, a, b) => {
                format!("the days from {} to {}", a.describe(columns), b.describe(columns))
            }
            Self::Totals(a, b) => format!("the total {} ÷ the total {}", a.describe(columns), b.describe(columns)),
            Self::Op(op, a, b) => {
                let sign = match op {
                    Operator::Add => "+",
                    Operator::Sub => "−",
                    Operator::Mul => "×",
                    Operator::Div => "÷",
                    Operator::DaysBetween => "to",
                };
                format!("{} {sign} {}", a.describe(columns), b.describe(columns))
            }
        }
    }
}

/// Words that say a column counts pieces.
const QUANTITY: &[&str] = &["units", "qty", "quantity", "quantities", "pieces", "volume", "items"];
/// Words that say a money column is already a total of a sale.
const TOTALS: &[&str] = &["revenue", "sales", "amount", "total", "turnover", "value", "subtotal", "gross", "net"];

/// Dates that start something and dates that end it, by a word of the column's name.
pub(super) const STARTS: &[&str] = &[
    "start",
    "started",
    "begin",
    "admission",
    "admitted",
    "admit",
    "ship",
    "shipped",
    "dispatch",
    "dispatched",
    "order",
    "ordered",
    "created",
    "opened",
    "open",
    "incident",
    "issued",
    "booked",
    "submitted",
    "placed",
    "departure",
    "pickup",
    "purchase",
    "purchased",
    "received",
    "checkin",
    "arrival",
    "signup",
    "joined",
    "hired",
];
pub(super) const ENDS: &[&str] = &[
    "end",
    "ended",
    "finish",
    "finished",
    "discharge",
    "discharged",
    "delivery",
    "delivered",
    "completed",
    "closed",
    "resolved",
    "returned",
    "due",
    "checkout",
    "paid",
    "settled",
    "shipped",
    "departure",
    "left",
    "churned",
    "cancelled",
    "terminated",
];

/// Adds the computed measures `lex`'s columns imply, with the words for them.
pub(super) fn add(lex: &mut Lexicon) {
    revenue(lex);
    sales_words(lex);
    durations(lex);
}

/// Where the data stores what a sale brought in (`order_value_usd`, `amount`), and nothing
/// else is revenue: the everyday words for revenue name that column.
fn sales_words(lex: &mut Lexicon) {
    if lex.columns.iter().any(|c| c.formula.is_some() && c.class == Class::Money) {
        return;
    }
    let has =
        |lex: &Lexicon, c: usize, list: &[&str]| words_of_column(lex, c).iter().any(|w| list.contains(&w.as_str()));
    let sales: Vec<usize> = (0..lex.columns.len())
        .filter(|&c| {
            lex.columns[c].class == Class::Money
                && has(
                    lex,
                    c,
                    &["order", "sale", "sales", "revenue", "value", "total", "amount", "paid", "payment", "spend"],
                )
                && !has(
                    lex,
                    c,
                    &["cost", "costs", "price", "fee", "fees", "claim", "approved", "salary", "budget", "charges"],
                )
        })
        .collect();
    if let [c] = sales.as_slice() {
        for p in ["revenue", "sales", "turnover", "takings", "income", "earnings", "money made", "sales value"] {
            let ws: Vec<String> = p.split_whitespace().map(str::to_owned).collect();
            lex.entries.push(Entry::linked(&ws, Meaning::Column(*c), 1, Source::Synonym));
        }
    }
}

fn words_of_column(lex: &Lexicon, c: usize) -> Vec<String> {
    words_of(&lex.columns[c].name)
}

fn push(lex: &mut Lexicon, info: ColumnInfo, phrases: &[&str]) {
    let at = lex.columns.len();
    lex.columns.push(info);
    for p in phrases {
        let ws: Vec<String> = p.split_whitespace().map(str::to_owned).collect();
        // The computed column's own name ("revenue") is its name; the formula is stated in
        // every answer that uses it.
        let source = if ws.len() == 1 && ws[0] == lex.columns[at].name { Source::Name } else { Source::Synonym };
        lex.entries.push(Entry::linked(&ws, Meaning::Column(at), 3, source));
    }
}

/// Revenue from a quantity and a unit price, less a percentage discount when there is one —
/// only when no stored money column is already a sale's total.
fn revenue(lex: &mut Lexicon) {
    let numeric = |lex: &Lexicon, c: usize| lex.columns[c].is_numeric() && lex.columns[c].formula.is_none();
    let has =
        |lex: &Lexicon, c: usize, list: &[&str]| words_of_column(lex, c).iter().any(|w| list.contains(&w.as_str()));
    let n = lex.columns.len();
    let quantity: Vec<usize> =
        (0..n).filter(|&c| numeric(lex, c) && has(lex, c, QUANTITY) && !has(lex, c, &["price", "cost"])).collect();
    let price: Vec<usize> = (0..n).filter(|&c| numeric(lex, c) && has(lex, c, &["price"])).collect();
    let price: Vec<usize> = match price.as_slice() {
        [_, _, ..] => price.iter().copied().filter(|&c| has(lex, c, &["unit"])).collect(),
        _ => price,
    };
    let stored_total = (0..n).any(|c| numeric(lex, c) && lex.columns[c].class == Class::Money && has(lex, c, TOTALS));
    let ([q], [p], false) = (quantity.as_slice(), price.as_slice(), stored_total) else { return };
    let (q, p) = (*q, *p);
    let discounts: Vec<usize> = (0..n).filter(|&c| numeric(lex, c) && has(lex, c, &["discount"])).collect();
    let gross = Formula::op(Operator::Mul, Formula::Column(q), Formula::Column(p));
    let unit = lex.columns[p].unit;
    let money = |name: &str, label: &str| ColumnInfo {
        name: name.to_owned(),
        kind: ValueKind::Double,
        class: Class::Money,
        unit,
        label: label.to_owned(),
        values: Vec::new(),
        span: None,
        range: None,
        formula: None,
    };
    match discounts.as_slice() {
        [] => push(
            lex,
            ColumnInfo { formula: Some(gross), ..money("revenue", "revenue") },
            &["revenue", "sales", "turnover", "takings", "sales value", "order value", "gross revenue", "gross sales"],
        ),
        [d] => {
            let d = *d;
            let percent = lex.columns[d].unit == Some(Unit::Percent) || has(lex, d, &["pct", "percent", "percentage"]);
            // A discount of unknown scale (a fraction? an amount?) is not guessed.
            if !percent {
                return;
            }
            let kept = Formula::op(
                Operator::Sub,
                Formula::Number(1.0),
                Formula::op(Operator::Div, Formula::Column(d), Formula::Number(100.0)),
            );
            let net = Formula::op(Operator::Mul, gross.clone(), kept);
            push(
                lex,
                ColumnInfo { formula: Some(net), ..money("revenue", "revenue") },
                &[
                    "revenue",
                    "sales",
                    "turnover",
                    "takings",
                    "sales value",
                    "order value",
                    "net revenue",
                    "net sales",
                    "revenue after discount",
                    "sales after discount",
                    "revenue net of discount",
                ],
            );
            push(
                lex,
                ColumnInfo { formula: Some(gross), ..money("gross_revenue", "revenue before discounts") },
                &["gross revenue", "gross sales", "revenue before discount", "sales before discount", "list value"],
            );
        }
        _ => {}
    }
}

/// The days between two date columns, named by what they start and end.
fn durations(lex: &mut Lexicon) {
    let dates: Vec<usize> =
        (0..lex.columns.len()).filter(|&c| lex.columns[c].is_date() && lex.columns[c].formula.is_none()).collect();
    let has =
        |lex: &Lexicon, c: usize, list: &[&str]| words_of_column(lex, c).iter().any(|w| list.contains(&w.as_str()));
    let mut pairs = Vec::new();
    for (k, &a) in dates.iter().enumerate() {
        for &b in &dates[k + 1..] {
            // Column order, unless the names say the second starts what the first ends.
            let swap = has(lex, a, ENDS) && !has(lex, a, STARTS) && has(lex, b, STARTS) && !has(lex, b, ENDS);
            pairs.push(if swap { (b, a) } else { (a, b) });
        }
    }
    let only = pairs.len() == 1;
    for (a, b) in pairs {
        let core = |c: usize| -> Vec<String> {
            words_of_column(lex, c)
                .into_iter()
                .filter(|w| !matches!(w.as_str(), "date" | "at" | "on" | "time" | "day"))
                .collect()
        };
        let (ca, cb) = (core(a), core(b));
        let (Some(first_a), Some(first_b)) = (ca.first().cloned(), cb.first().cloned()) else { continue };
        let name = format!("days_{}_to_{}", ca.join("_"), cb.join("_"));
        if lex.columns.iter().any(|c| c.name.eq_ignore_ascii_case(&name)) {
            continue;
        }
        let label = format!("days from {} to {}", lex.columns[a].label, lex.columns[b].label);
        let mut phrases: Vec<String> = vec![
            format!("{first_b} time"),
            format!("time to {first_b}"),
            format!("days to {first_b}"),
            format!("{first_b} days"),
            format!("{first_a} to {first_b}"),
        ];
        let is = |c: usize, list: &[&str]| has(lex, c, list);
        if is(a, &["admission", "admitted", "admit", "arrival", "checkin"])
            && is(b, &["discharge", "discharged", "departure", "checkout", "left"])
        {
            phrases.extend(
                ["length of stay", "stay length", "days stayed", "time in hospital", "days in hospital", "los"]
                    .map(str::to_owned),
            );
        }
        if is(b, &["delivery", "delivered"]) {
            phrases.extend(
                [
                    "delivery time",
                    "transit time",
                    "shipping time",
                    "days to deliver",
                    "time to deliver",
                    "delivery days",
                ]
                .map(str::to_owned),
            );
        }
        if only {
            phrases.extend(
                [
                    "duration",
                    "lead time",
                    "turnaround",
                    "turnaround time",
                    "time taken",
                    "delay",
                    "lag",
                    "reporting delay",
                    "reporting lag",
                ]
                .map(str::to_owned),
            );
        }
        let refs: Vec<&str> = phrases.iter().map(String::as_str).collect();
        let info = ColumnInfo {
            name,
            kind: ValueKind::Double,
            class: Class::Duration,
            unit: Some(Unit::Word("days")),
            label,
            values: Vec::new(),
            span: None,
            range: None,
            formula: Some(Formula::op(Operator::DaysBetween, Formula::Column(a), Formula::Column(b))),
        };
        push(lex, info, &refs);
    }
}
