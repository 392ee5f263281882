//! QueryPlan: a typed query over one dataset, checked against the dataset's schema and compiled
//! deterministically to SQL. The SQL then goes through the same validator and sandbox as any
//! other query, so a plan can never do more than SQL could.
//!
//! Here: the plan's types, as a model or a client writes them, and the limits a plan is held to;
//! `compile.rs` checks a plan against the dataset's schema and renders its SQL; `tests.rs` the
//! tests.

use crate::value::Value;
use serde::{Deserialize, Serialize};

mod compile;
#[cfg(test)]
mod tests;

pub use compile::compile;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    Count,
    CountDistinct,
    Sum,
    Avg,
    Min,
    Max,
    Median,
    /// The share of rows (0 to 1) that meet the item's `condition`; rows where it is unknown
    /// count as not meeting it.
    Share,
}

impl Aggregate {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Count => "count",
            Self::CountDistinct => "count_distinct",
            Self::Sum => "sum",
            Self::Avg => "avg",
            Self::Min => "min",
            Self::Max => "max",
            Self::Median => "median",
            Self::Share => "share",
        }
    }

    fn needs_numeric(self) -> bool {
        matches!(self, Self::Sum | Self::Avg | Self::Median)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
    Contains,
    IsNull,
    IsNotNull,
    Between,
}

/// A calendar unit a date or timestamp is truncated to, for grouping by time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeBucket {
    Year,
    Quarter,
    Month,
    Week,
    Day,
}

impl TimeBucket {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Year => "year",
            Self::Quarter => "quarter",
            Self::Month => "month",
            Self::Week => "week",
            Self::Day => "day",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelectItem {
    /// Empty only for `count(*)` and `share`.
    #[serde(default)]
    pub column: String,
    #[serde(default)]
    pub aggregate: Option<Aggregate>,
    #[serde(default)]
    pub alias: Option<String>,
    /// A second numeric column that each row's `column` is divided by before any aggregate
    /// (price per square metre: `price_eur` per `sqm`); a row whose divisor is 0 or missing
    /// is left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<String>,
    /// For a date or timestamp column the plan groups by: the unit it is truncated to first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<TimeBucket>,
    /// For `share`: the conditions (all must hold) whose share of the rows is computed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub condition: Vec<Filter>,
    /// A computed value in place of `column` (which stays empty): arithmetic over columns per
    /// row (aggregated when `aggregate` is set), or a formula over aggregates ("revenue per
    /// session": the sum of one column over the count of rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Filter {
    /// Empty when `expr` is set.
    #[serde(default)]
    pub column: String,
    pub op: FilterOp,
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub values: Vec<Value>,
    /// A per-row computed value compared in place of `column` ("orders whose revenue is over
    /// 2,000"); no aggregates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<Expr>,
}

/// An arithmetic operator of an [`Expr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    Add,
    Sub,
    Mul,
    /// A division by zero (or a missing divisor) gives no value, never an error.
    Div,
    /// Whole days from the first date to the second (negative when the second is earlier).
    DaysBetween,
}

impl Operator {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Add => "add",
            Self::Sub => "sub",
            Self::Mul => "mul",
            Self::Div => "div",
            Self::DaysBetween => "days_between",
        }
    }
}

/// A computed value: exactly one of a column, a number, an operator over `args` (two), or an
/// aggregate over `args` (one, or none for a count of rows). Aggregates do not nest.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<Operator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Aggregate>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<Expr>,
}

impl Expr {
    pub fn column(name: &str) -> Self {
        Self { column: Some(name.to_owned()), ..Self::default() }
    }

    pub fn number(x: f64) -> Self {
        Self { number: Some(x), ..Self::default() }
    }

    pub fn op(op: Operator, a: Expr, b: Expr) -> Self {
        Self { op: Some(op), args: vec![a, b], ..Self::default() }
    }

    /// `aggregate` over `of` (`None`: a count of rows).
    pub fn aggregate(aggregate: Aggregate, of: Option<Expr>) -> Self {
        Self { aggregate: Some(aggregate), args: of.into_iter().collect(), ..Self::default() }
    }

    /// Whether an aggregate appears anywhere in it.
    pub fn has_aggregate(&self) -> bool {
        self.aggregate.is_some() || self.args.iter().any(Expr::has_aggregate)
    }

    /// The columns it reads, in order of appearance.
    pub fn columns(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.column.as_deref().into_iter().collect();
        for a in &self.args {
            out.extend(a.columns());
        }
        out
    }
}

/// Deepest an expression may nest, and most nodes it may hold.
const MAX_EXPR_DEPTH: usize = 8;
const MAX_EXPR_NODES: usize = 64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderBy {
    pub column: String,
    #[serde(default)]
    pub descending: bool,
}

/// A plan over one dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueryPlan {
    /// Dataset id or table name.
    pub dataset: String,
    #[serde(default)]
    pub select: Vec<SelectItem>,
    #[serde(default)]
    pub filters: Vec<Filter>,
    #[serde(default)]
    pub group_by: Vec<String>,
    #[serde(default)]
    pub order_by: Vec<OrderBy>,
    /// 0: the server's row cap.
    #[serde(default)]
    pub limit: u32,
}

/// Most values an IN list may hold.
const MAX_IN_VALUES: usize = 1000;
