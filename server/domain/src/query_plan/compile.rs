//! A plan compiled to SQL: every column, value, expression and alias checked against the
//! dataset's schema (a refusal names the field at fault), then rendered as one deterministic
//! SELECT.

use super::{
    Aggregate, Expr, Filter, FilterOp, MAX_EXPR_DEPTH, MAX_EXPR_NODES, MAX_IN_VALUES, Operator, QueryPlan, SelectItem,
};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::value::{Column, Value, ValueKind};

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

/// A select item on a column (no expression): counted, a share of the rows, aggregated, or the
/// value itself (which, when the plan aggregates, must be grouped). Its SQL and default name.
fn column_item(
    item: &SelectItem,
    agg: Option<Aggregate>,
    aggregated: bool,
    groups: &[(String, String)],
    dataset: &Dataset,
    field: &str,
) -> Result<(String, String)> {
    Ok(match agg {
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
            let (value, name) = row_value(item, dataset, field)?;
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
            let (value, name) = row_value(item, dataset, field)?;
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
    })
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
            (None, agg) => column_item(item, agg, aggregated, &groups, dataset, &field)?,
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
