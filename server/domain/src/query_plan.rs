//! QueryPlan: a typed query over one dataset, checked against the dataset's schema and compiled
//! deterministically to SQL. The SQL then goes through the same validator and sandbox as any
//! other query, so a plan can never do more than SQL could.

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::value::{Column, Value, ValueKind};
use serde::{Deserialize, Serialize};

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

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn find<'a>(dataset: &'a Dataset, name: &str, field: &str) -> Result<&'a Column> {
    dataset.columns.iter().find(|c| c.name.eq_ignore_ascii_case(name.trim())).ok_or_else(|| {
        let names: Vec<&str> = dataset.columns.iter().map(|c| c.name.as_str()).take(30).collect();
        Error::validation(
            field,
            format!("{} has no column {name:?}; its columns are {}", dataset.table_name, names.join(", ")),
        )
    })
}

fn check_alias(alias: &str, field: &str) -> Result<()> {
    let ok =
        !alias.is_empty() && alias.len() <= 64 && alias.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ' ');
    if ok {
        Ok(())
    } else {
        Err(Error::validation(field, "aliases are 1 to 64 letters, digits, spaces or underscores"))
    }
}

/// Renders a literal for a column of `kind`, refusing values of the wrong type.
fn literal(value: &Value, column: &Column, field: &str) -> Result<String> {
    let mismatch = || {
        Error::validation(field, format!("{:?} does not fit column {} of type {}", value, column.name, column.sql_type))
    };
    Ok(match (column.kind, value) {
        (ValueKind::Int | ValueKind::Double | ValueKind::Decimal, Value::Int(n)) => n.to_string(),
        (ValueKind::Int | ValueKind::Double | ValueKind::Decimal, Value::Double(x)) if x.is_finite() => {
            format!("{x:?}")
        }
        (ValueKind::Int | ValueKind::Double | ValueKind::Decimal, Value::Decimal(s) | Value::String(s)) => {
            let n: f64 = s.trim().parse().map_err(|_| mismatch())?;
            if !n.is_finite() {
                return Err(mismatch());
            }
            s.trim().to_owned()
        }
        (ValueKind::Bool, Value::Bool(b)) => b.to_string().to_uppercase(),
        (ValueKind::String, Value::String(s)) => format!("'{}'", s.replace('\'', "''")),
        (ValueKind::String, Value::Int(n)) => format!("'{n}'"),
        (ValueKind::Date, Value::String(s)) if is_date(s) => format!("DATE '{s}'"),
        (ValueKind::Timestamp, Value::String(s))
            if is_date(s.get(..10).unwrap_or_default())
                && s.chars().all(|c| c.is_ascii_digit() || "-: T.".contains(c)) =>
        {
            format!("TIMESTAMP '{s}'")
        }
        _ => return Err(mismatch()),
    })
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// What an expression computes, for checking what may be done with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExprKind {
    Number,
    Date,
    Other,
}

/// An expression as SQL over `dataset`'s columns, with what it computes. `inside` is true within
/// an aggregate (which may not hold another).
fn expr_sql(e: &Expr, dataset: &Dataset, field: &str, depth: usize, inside: bool) -> Result<(String, ExprKind)> {
    if depth > MAX_EXPR_DEPTH {
        return Err(Error::validation(field, format!("expressions nest at most {MAX_EXPR_DEPTH} deep")));
    }
    let parts = usize::from(e.column.is_some())
        + usize::from(e.number.is_some())
        + usize::from(e.op.is_some())
        + usize::from(e.aggregate.is_some());
    if parts != 1 {
        return Err(Error::validation(field, "an expression is exactly one of column, number, op or aggregate"));
    }
    let arg = |i: usize| expr_sql(&e.args[i], dataset, &format!("{field}.args[{i}]"), depth + 1, inside);
    if let Some(name) = &e.column {
        let col = find(dataset, name, &format!("{field}.column"))?;
        let kind = if col.kind.is_numeric() {
            ExprKind::Number
        } else if matches!(col.kind, ValueKind::Date | ValueKind::Timestamp) {
            ExprKind::Date
        } else {
            ExprKind::Other
        };
        return Ok((quote(&col.name), kind));
    }
    if let Some(x) = e.number {
        if !x.is_finite() {
            return Err(Error::validation(&format!("{field}.number"), "numbers must be finite"));
        }
        return Ok((format!("{x:?}"), ExprKind::Number));
    }
    if let Some(op) = e.op {
        if e.args.len() != 2 {
            return Err(Error::validation(&format!("{field}.args"), format!("{} needs two args", op.as_str())));
        }
        let ((a, ka), (b, kb)) = (arg(0)?, arg(1)?);
        return match op {
            Operator::DaysBetween => {
                if ka != ExprKind::Date || kb != ExprKind::Date {
                    return Err(Error::validation(&format!("{field}.args"), "days_between needs two dates"));
                }
                Ok((format!("date_diff('day', {a}, {b})"), ExprKind::Number))
            }
            _ if ka != ExprKind::Number || kb != ExprKind::Number => Err(Error::validation(
                &format!("{field}.args"),
                format!("{} needs two numbers (dates go through days_between)", op.as_str()),
            )),
            Operator::Add => Ok((format!("({a} + {b})"), ExprKind::Number)),
            Operator::Sub => Ok((format!("({a} - {b})"), ExprKind::Number)),
            Operator::Mul => Ok((format!("({a} * {b})"), ExprKind::Number)),
            Operator::Div => Ok((format!("({a} / NULLIF({b}, 0))"), ExprKind::Number)),
        };
    }
    let agg = e.aggregate.unwrap_or(Aggregate::Count);
    let field_agg = format!("{field}.aggregate");
    if inside {
        return Err(Error::validation(&field_agg, "aggregates do not nest"));
    }
    let of = match e.args.as_slice() {
        [] if agg == Aggregate::Count => None,
        [one] => Some(expr_sql(one, dataset, &format!("{field}.args[0]"), depth + 1, true)?),
        _ => return Err(Error::validation(&format!("{field}.args"), format!("{} takes one arg", agg.as_str()))),
    };
    match (agg, of) {
        (Aggregate::Share, _) => Err(Error::validation(&field_agg, "share is a select item of its own, not a term")),
        (Aggregate::Count, None) => Ok(("count(*)".to_owned(), ExprKind::Number)),
        (_, None) => Err(Error::validation(&format!("{field}.args"), format!("{} needs an arg", agg.as_str()))),
        (Aggregate::Count | Aggregate::CountDistinct, Some((v, _))) => Ok((aggregate_sql(agg, &v), ExprKind::Number)),
        (_, Some((_, k))) if agg.needs_numeric() && k != ExprKind::Number => {
            Err(Error::validation(&field_agg, format!("{} needs a number", agg.as_str())))
        }
        (Aggregate::Min | Aggregate::Max, Some((v, k))) => Ok((aggregate_sql(agg, &v), k)),
        (_, Some((v, _))) => Ok((aggregate_sql(agg, &v), ExprKind::Number)),
    }
}

/// Checks an expression's size, then renders it.
fn checked_expr(e: &Expr, dataset: &Dataset, field: &str) -> Result<(String, ExprKind)> {
    fn nodes(e: &Expr) -> usize {
        1 + e.args.iter().map(nodes).sum::<usize>()
    }
    if nodes(e) > MAX_EXPR_NODES {
        return Err(Error::validation(field, format!("an expression holds at most {MAX_EXPR_NODES} terms")));
    }
    expr_sql(e, dataset, field, 0, false)
}

/// One filter as a SQL condition over `dataset`'s columns.
fn condition(f: &Filter, dataset: &Dataset, field: &str) -> Result<String> {
    if let Some(e) = &f.expr {
        return expr_condition(f, e, dataset, field);
    }
    let col = find(dataset, &f.column, &format!("{field}.column"))?;
    let q = quote(&col.name);
    let one = || {
        f.value
            .as_ref()
            .ok_or_else(|| Error::validation(&format!("{field}.value"), format!("{:?} needs a value", f.op)))
    };
    let comparable = !matches!(col.kind, ValueKind::Nested | ValueKind::Bytes);
    let compare =
        |sym: &str| -> Result<String> { Ok(format!("{q} {sym} {}", literal(one()?, col, &format!("{field}.value"))?)) };
    Ok(match f.op {
        FilterOp::IsNull => format!("{q} IS NULL"),
        FilterOp::IsNotNull => format!("{q} IS NOT NULL"),
        FilterOp::Contains => {
            if col.kind != ValueKind::String {
                return Err(Error::validation(
                    &format!("{field}.op"),
                    format!("contains needs a text column; {} is {}", col.name, col.sql_type),
                ));
            }
            let Value::String(s) = one()? else {
                return Err(Error::validation(&format!("{field}.value"), "contains needs a text value"));
            };
            format!("contains(lower({q}), '{}')", s.to_lowercase().replace('\'', "''"))
        }
        _ if !comparable => {
            return Err(Error::validation(&format!("{field}.op"), format!("{} cannot be compared", col.name)));
        }
        FilterOp::In | FilterOp::NotIn => {
            if f.values.is_empty() || f.values.len() > MAX_IN_VALUES {
                return Err(Error::validation(
                    &format!("{field}.values"),
                    format!("in needs 1 to {MAX_IN_VALUES} values"),
                ));
            }
            let list = f
                .values
                .iter()
                .enumerate()
                .map(|(j, v)| literal(v, col, &format!("{field}.values[{j}]")))
                .collect::<Result<Vec<_>>>()?;
            let not = if f.op == FilterOp::NotIn { "NOT " } else { "" };
            format!("{q} {not}IN ({})", list.join(", "))
        }
        FilterOp::Between => {
            let [lo, hi] = f.values.as_slice() else {
                return Err(Error::validation(&format!("{field}.values"), "between needs exactly two values"));
            };
            format!(
                "{q} BETWEEN {} AND {}",
                literal(lo, col, &format!("{field}.values[0]"))?,
                literal(hi, col, &format!("{field}.values[1]"))?
            )
        }
        FilterOp::Eq => compare("=")?,
        FilterOp::Ne => compare("<>")?,
        FilterOp::Lt => compare("<")?,
        FilterOp::Le => compare("<=")?,
        FilterOp::Gt => compare(">")?,
        FilterOp::Ge => compare(">=")?,
    })
}

/// A filter on a per-row computed number: compared with numbers only.
fn expr_condition(f: &Filter, e: &Expr, dataset: &Dataset, field: &str) -> Result<String> {
    if !f.column.trim().is_empty() {
        return Err(Error::validation(&format!("{field}.column"), "a filter has a column or an expr, not both"));
    }
    let (sql, kind) = checked_expr(e, dataset, &format!("{field}.expr"))?;
    if e.has_aggregate() {
        return Err(Error::validation(&format!("{field}.expr"), "a filter applies to rows: no aggregates"));
    }
    if kind != ExprKind::Number {
        return Err(Error::validation(&format!("{field}.expr"), "a filter's expr must compute a number"));
    }
    let number = Column::new("expr", "DOUBLE");
    let lit = |v: &Value, at: &str| literal(v, &number, at);
    let one = || {
        f.value
            .as_ref()
            .ok_or_else(|| Error::validation(&format!("{field}.value"), format!("{:?} needs a value", f.op)))
    };
    let value = format!("{field}.value");
    Ok(match f.op {
        FilterOp::IsNull => format!("{sql} IS NULL"),
        FilterOp::IsNotNull => format!("{sql} IS NOT NULL"),
        FilterOp::Eq => format!("{sql} = {}", lit(one()?, &value)?),
        FilterOp::Ne => format!("{sql} <> {}", lit(one()?, &value)?),
        FilterOp::Lt => format!("{sql} < {}", lit(one()?, &value)?),
        FilterOp::Le => format!("{sql} <= {}", lit(one()?, &value)?),
        FilterOp::Gt => format!("{sql} > {}", lit(one()?, &value)?),
        FilterOp::Ge => format!("{sql} >= {}", lit(one()?, &value)?),
        FilterOp::Between => {
            let [lo, hi] = f.values.as_slice() else {
                return Err(Error::validation(&format!("{field}.values"), "between needs exactly two values"));
            };
            format!(
                "{sql} BETWEEN {} AND {}",
                lit(lo, &format!("{field}.values[0]"))?,
                lit(hi, &format!("{field}.values[1]"))?
            )
        }
        FilterOp::In | FilterOp::NotIn | FilterOp::Contains => {
            return Err(Error::validation(
                &format!("{field}.op"),
                "a computed value is compared with eq, ne, lt, le, gt, ge, between or a null check",
            ));
        }
    })
}

/// The per-row value a select item starts from: a column, a column divided by another, or a
/// date truncated to a bucket.
fn row_value(item: &SelectItem, dataset: &Dataset, field: &str) -> Result<(String, String)> {
    let col = find(dataset, &item.column, &format!("{field}.column"))?;
    let q = quote(&col.name);
    match (&item.per, item.bucket) {
        (Some(_), Some(_)) => Err(Error::validation(&format!("{field}.bucket"), "an item has per or bucket, not both")),
        (Some(per), None) => {
            let divisor = find(dataset, per, &format!("{field}.per"))?;
            for c in [col, divisor] {
                if !c.kind.is_numeric() {
                    return Err(Error::validation(
                        &format!("{field}.per"),
                        format!("per divides numbers; {} is {}", c.name, c.sql_type),
                    ));
                }
            }
            Ok((format!("({q} / NULLIF({}, 0))", quote(&divisor.name)), format!("{}_per_{}", col.name, divisor.name)))
        }
        (None, Some(bucket)) => {
            if !matches!(col.kind, ValueKind::Date | ValueKind::Timestamp) {
                return Err(Error::validation(
                    &format!("{field}.bucket"),
                    format!("bucket needs a date or timestamp column; {} is {}", col.name, col.sql_type),
                ));
            }
            Ok((format!("date_trunc('{}', {q})", bucket.as_str()), format!("{}_{}", col.name, bucket.as_str())))
        }
        (None, None) => Ok((q, col.name.clone())),
    }
}

/// An aggregate over a per-row SQL value (for `share`, the value is the condition).
fn aggregate_sql(agg: Aggregate, value: &str) -> String {
    match agg {
        Aggregate::Count => format!("count({value})"),
        Aggregate::CountDistinct => format!("count(DISTINCT {value})"),
        Aggregate::Sum => format!("sum({value})"),
        Aggregate::Avg => format!("avg({value})"),
        Aggregate::Min => format!("min({value})"),
        Aggregate::Max => format!("max({value})"),
        Aggregate::Median => format!("median({value})"),
        Aggregate::Share => format!("avg(CASE WHEN {value} THEN 1.0 ELSE 0.0 END)"),
    }
}

/// A select item with an `expr`: a per-row value (aggregated when `agg` is set), or a formula
/// over aggregates. Its output is named `value` unless it has an alias.
fn computed(
    item: &SelectItem,
    e: &Expr,
    agg: Option<Aggregate>,
    aggregated: bool,
    dataset: &Dataset,
    field: &str,
) -> Result<(String, String)> {
    if !item.column.trim().is_empty() || item.per.is_some() || item.bucket.is_some() || !item.condition.is_empty() {
        return Err(Error::validation(
            &format!("{field}.expr"),
            "an item with an expr has no column, per, bucket or condition",
        ));
    }
    let (sql, kind) = checked_expr(e, dataset, &format!("{field}.expr"))?;
    match agg {
        Some(Aggregate::Share) => {
            Err(Error::validation(&format!("{field}.aggregate"), "share takes a condition, not an expr"))
        }
        Some(_) if e.has_aggregate() => {
            Err(Error::validation(&format!("{field}.aggregate"), "the expr already aggregates: leave aggregate unset"))
        }
        Some(agg) if agg.needs_numeric() && kind != ExprKind::Number => Err(Error::validation(
            &format!("{field}.aggregate"),
            format!("{} needs a number; the expr is not one", agg.as_str()),
        )),
        Some(agg) => Ok((aggregate_sql(agg, &sql), format!("{}_value", agg.as_str()))),
        None if e.has_aggregate() => {
            // Columns outside the aggregates would need grouping by an expression: not offered.
            fn bare(e: &Expr) -> bool {
                e.aggregate.is_none() && (e.column.is_some() || e.args.iter().any(bare))
            }
            if bare(e) {
                return Err(Error::validation(
                    &format!("{field}.expr"),
                    "in a formula over aggregates every column must be inside an aggregate",
                ));
            }
            Ok((sql, "value".to_owned()))
        }
        None if aggregated => Err(Error::validation(
            &format!("{field}.expr"),
            "the plan aggregates: aggregate this expr (set aggregate) or use aggregates inside it",
        )),
        None => Ok((sql, "value".to_owned())),
    }
}

/// Compiles `plan` against `dataset` (its schema) into one SELECT. `max_rows` caps the limit.
pub fn compile(plan: &QueryPlan, dataset: &Dataset, max_rows: u32) -> Result<String> {
    let aggregated = !plan.group_by.is_empty()
        || plan.select.iter().any(|s| s.aggregate.is_some() || s.expr.as_ref().is_some_and(Expr::has_aggregate));
    // Each group column, and the expression it is grouped by (a bucketed date groups by its bucket).
    let mut groups: Vec<(String, String)> = Vec::new();
    for (i, g) in plan.group_by.iter().enumerate() {
        let col = find(dataset, g, &format!("plan.group_by[{i}]"))?;
        let bucketed = plan.select.iter().find(|s| s.bucket.is_some() && s.column.eq_ignore_ascii_case(&col.name));
        let expr = match bucketed {
            Some(item) => row_value(item, dataset, &format!("plan.group_by[{i}]"))?.0,
            None => quote(&col.name),
        };
        groups.push((col.name.clone(), expr));
    }

    let mut outputs: Vec<String> = Vec::new();
    let mut projections = Vec::new();
    for (i, item) in plan.select.iter().enumerate() {
        let field = format!("plan.select[{i}]");
        let (expr, default_alias) = match (&item.expr, item.aggregate) {
            (Some(e), agg) => computed(item, e, agg, aggregated, dataset, &field)?,
            (None, agg) => match agg {
                Some(Aggregate::Count) if item.column.trim().is_empty() => ("count(*)".to_owned(), "count".to_owned()),
                Some(Aggregate::Share) => {
                    if item.condition.is_empty() {
                        return Err(Error::validation(&format!("{field}.condition"), "share needs a condition"));
                    }
                    let conds = item
                        .condition
                        .iter()
                        .enumerate()
                        .map(|(j, f)| condition(f, dataset, &format!("{field}.condition[{j}]")))
                        .collect::<Result<Vec<_>>>()?;
                    (aggregate_sql(Aggregate::Share, &conds.join(" AND ")), "share".to_owned())
                }
                Some(agg) => {
                    if item.bucket.is_some() {
                        return Err(Error::validation(
                            &format!("{field}.bucket"),
                            "a bucketed date is grouped, not aggregated",
                        ));
                    }
                    let (value, name) = row_value(item, dataset, &field)?;
                    let col = find(dataset, &item.column, &format!("{field}.column"))?;
                    if agg.needs_numeric() && !col.kind.is_numeric() {
                        return Err(Error::validation(
                            &format!("{field}.aggregate"),
                            format!("{} needs a numeric column; {} is {}", agg.as_str(), col.name, col.sql_type),
                        ));
                    }
                    if matches!(col.kind, ValueKind::Nested | ValueKind::Bytes) && agg != Aggregate::Count {
                        return Err(Error::validation(
                            &format!("{field}.aggregate"),
                            format!("{} cannot be applied to {}", agg.as_str(), col.name),
                        ));
                    }
                    let expr = aggregate_sql(agg, &value);
                    (expr, format!("{}_{name}", agg.as_str()))
                }
                None => {
                    let (value, name) = row_value(item, dataset, &field)?;
                    let col = find(dataset, &item.column, &format!("{field}.column"))?;
                    let grouped = groups.iter().any(|(g, _)| *g == col.name) && item.per.is_none();
                    if aggregated && !grouped {
                        return Err(Error::validation(
                            &format!("{field}.column"),
                            format!("{} must be in group_by (or aggregated) because the plan aggregates", col.name),
                        ));
                    }
                    (value, name)
                }
            },
        };
        let alias = match &item.alias {
            Some(a) if !a.trim().is_empty() => {
                check_alias(a.trim(), &format!("{field}.alias"))?;
                a.trim().to_owned()
            }
            _ => default_alias,
        };
        if outputs.iter().any(|o| o.eq_ignore_ascii_case(&alias)) {
            return Err(Error::validation(&format!("{field}.alias"), format!("two outputs are named {alias}")));
        }
        projections.push(format!("{expr} AS {}", quote(&alias)));
        outputs.push(alias);
    }
    if projections.is_empty() {
        if aggregated {
            for (g, expr) in &groups {
                projections.push(if *expr == quote(g) { expr.clone() } else { format!("{expr} AS {}", quote(g)) });
                outputs.push(g.clone());
            }
        } else {
            projections.push("*".to_owned());
            outputs.extend(dataset.columns.iter().map(|c| c.name.clone()));
        }
    }

    let conditions = plan
        .filters
        .iter()
        .enumerate()
        .map(|(i, f)| condition(f, dataset, &format!("plan.filters[{i}]")))
        .collect::<Result<Vec<_>>>()?;

    let mut order = Vec::new();
    for (i, o) in plan.order_by.iter().enumerate() {
        let target = match outputs.iter().find(|n| n.eq_ignore_ascii_case(o.column.trim())) {
            Some(name) => quote(name),
            None if !aggregated => quote(&find(dataset, &o.column, &format!("plan.order_by[{i}].column"))?.name),
            None => {
                return Err(Error::validation(
                    &format!("plan.order_by[{i}].column"),
                    format!("order by {:?}: it is not one of the outputs ({})", o.column, outputs.join(", ")),
                ));
            }
        };
        order.push(format!("{target} {}", if o.descending { "DESC" } else { "ASC" }));
    }
    if plan.limit > max_rows {
        return Err(Error::validation("plan.limit", format!("limit must be at most {max_rows}")));
    }

    let mut sql = format!("SELECT {} FROM {}", projections.join(", "), quote(&dataset.table_name));
    if !conditions.is_empty() {
        sql.push_str(&format!(" WHERE {}", conditions.join(" AND ")));
    }
    if !groups.is_empty() {
        sql.push_str(&format!(" GROUP BY {}", groups.iter().map(|(_, e)| e.as_str()).collect::<Vec<_>>().join(", ")));
    }
    if !order.is_empty() {
        sql.push_str(&format!(" ORDER BY {}", order.join(", ")));
    }
    sql.push_str(&format!(" LIMIT {}", if plan.limit == 0 { max_rows } else { plan.limit }));
    Ok(sql)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{DatasetFormat, DatasetStatus};
    use crate::ids::{DatasetId, UserId};

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
}
