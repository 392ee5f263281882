//! Query plans and values a request sends, charts, reruns and grounded numbers.

use super::*;

/// A typed cell from a request.
pub fn value_in(v: &pb::Value, field: &str) -> Result<Value> {
    use pb::value::Kind;
    Ok(match &v.kind {
        None | Some(Kind::NullValue(_)) => Value::Null,
        Some(Kind::BoolValue(b)) => Value::Bool(*b),
        Some(Kind::IntValue(n)) => Value::Int(*n),
        Some(Kind::DoubleValue(x)) => Value::Double(*x),
        Some(Kind::DecimalValue(s)) => Value::Decimal(s.clone()),
        Some(Kind::StringValue(s)) => Value::String(s.clone()),
        Some(Kind::DateValue(d)) => Value::Date(*d),
        Some(Kind::TimestampValue(t)) => Value::Timestamp(t.seconds * 1_000_000 + i64::from(t.nanos) / 1000),
        Some(Kind::TimeValue(us)) => Value::Time(*us),
        Some(Kind::BytesValue(_) | Kind::TextValue(_)) => {
            return Err(Error::validation(field, "bytes and nested values cannot be used in a plan"));
        }
    })
}

/// One plan filter from a request.
pub(super) fn filter_in(f: &pb::Filter, field: &str) -> Result<Filter> {
    let op = match pb::FilterOp::try_from(f.op) {
        Ok(pb::FilterOp::Eq) => FilterOp::Eq,
        Ok(pb::FilterOp::Ne) => FilterOp::Ne,
        Ok(pb::FilterOp::Lt) => FilterOp::Lt,
        Ok(pb::FilterOp::Le) => FilterOp::Le,
        Ok(pb::FilterOp::Gt) => FilterOp::Gt,
        Ok(pb::FilterOp::Ge) => FilterOp::Ge,
        Ok(pb::FilterOp::In) => FilterOp::In,
        Ok(pb::FilterOp::NotIn) => FilterOp::NotIn,
        Ok(pb::FilterOp::Contains) => FilterOp::Contains,
        Ok(pb::FilterOp::IsNull) => FilterOp::IsNull,
        Ok(pb::FilterOp::IsNotNull) => FilterOp::IsNotNull,
        Ok(pb::FilterOp::Between) => FilterOp::Between,
        Ok(pb::FilterOp::Unspecified) | Err(_) => {
            return Err(Error::validation(&format!("{field}.op"), "a filter needs an operator (eq, gt, in, …)"));
        }
    };
    Ok(Filter {
        column: f.column.clone(),
        expr: f.expr.as_ref().map(|e| expr_in(e, &format!("{field}.expr"), 0)).transpose()?,
        op,
        value: f.value.as_ref().map(|v| value_in(v, &format!("{field}.value"))).transpose()?,
        values: f
            .values
            .iter()
            .enumerate()
            .map(|(j, v)| value_in(v, &format!("{field}.values[{j}]")))
            .collect::<Result<_>>()?,
    })
}

pub(super) fn aggregate_in(a: i32, field: &str) -> Result<Option<Aggregate>> {
    Ok(match pb::Aggregate::try_from(a) {
        Ok(pb::Aggregate::Unspecified) => None,
        Ok(pb::Aggregate::Count) => Some(Aggregate::Count),
        Ok(pb::Aggregate::CountDistinct) => Some(Aggregate::CountDistinct),
        Ok(pb::Aggregate::Sum) => Some(Aggregate::Sum),
        Ok(pb::Aggregate::Avg) => Some(Aggregate::Avg),
        Ok(pb::Aggregate::Min) => Some(Aggregate::Min),
        Ok(pb::Aggregate::Max) => Some(Aggregate::Max),
        Ok(pb::Aggregate::Median) => Some(Aggregate::Median),
        Ok(pb::Aggregate::Share) => Some(Aggregate::Share),
        Err(_) => return Err(Error::validation(field, "unknown aggregate")),
    })
}

/// An expression from a request: its shape is checked here (enums, nesting), its columns later.
pub(super) fn expr_in(e: &pb::Expression, field: &str, depth: usize) -> Result<Expr> {
    // Deeper than the compiler allows is refused there; this bound only keeps the conversion
    // itself from recursing without end on a hostile message.
    if depth > 16 {
        return Err(Error::validation(field, "the expression nests too deep"));
    }
    let op = match pb::Operator::try_from(e.op) {
        Ok(pb::Operator::Unspecified) => None,
        Ok(pb::Operator::Add) => Some(Operator::Add),
        Ok(pb::Operator::Sub) => Some(Operator::Sub),
        Ok(pb::Operator::Mul) => Some(Operator::Mul),
        Ok(pb::Operator::Div) => Some(Operator::Div),
        Ok(pb::Operator::DaysBetween) => Some(Operator::DaysBetween),
        Err(_) => return Err(Error::validation(&format!("{field}.op"), "unknown operator")),
    };
    Ok(Expr {
        column: (!e.column.is_empty()).then(|| e.column.clone()),
        number: e.number,
        op,
        aggregate: aggregate_in(e.aggregate, &format!("{field}.aggregate"))?,
        args: e
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| expr_in(a, &format!("{field}.args[{i}]"), depth + 1))
            .collect::<Result<_>>()?,
    })
}

/// A QueryPlan from a request; enums are checked here, the schema later.
pub fn plan_in(p: &pb::QueryPlan) -> Result<QueryPlan> {
    let select = p
        .select
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let field = format!("plan.select[{i}]");
            let aggregate = aggregate_in(s.aggregate, &format!("{field}.aggregate"))?;
            let bucket = match pb::TimeBucket::try_from(s.bucket) {
                Ok(pb::TimeBucket::Unspecified) => None,
                Ok(pb::TimeBucket::Year) => Some(TimeBucket::Year),
                Ok(pb::TimeBucket::Quarter) => Some(TimeBucket::Quarter),
                Ok(pb::TimeBucket::Month) => Some(TimeBucket::Month),
                Ok(pb::TimeBucket::Week) => Some(TimeBucket::Week),
                Ok(pb::TimeBucket::Day) => Some(TimeBucket::Day),
                Err(_) => return Err(Error::validation(&format!("{field}.bucket"), "unknown time bucket")),
            };
            Ok(SelectItem {
                expr: s.expr.as_ref().map(|e| expr_in(e, &format!("{field}.expr"), 0)).transpose()?,
                column: s.column.clone(),
                aggregate,
                alias: (!s.alias.is_empty()).then(|| s.alias.clone()),
                per: (!s.per.is_empty()).then(|| s.per.clone()),
                bucket,
                condition: s
                    .condition
                    .iter()
                    .enumerate()
                    .map(|(j, f)| filter_in(f, &format!("{field}.condition[{j}]")))
                    .collect::<Result<_>>()?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let filters = p
        .filters
        .iter()
        .enumerate()
        .map(|(i, f)| filter_in(f, &format!("plan.filters[{i}]")))
        .collect::<Result<Vec<_>>>()?;
    Ok(QueryPlan {
        dataset: p.dataset.clone(),
        select,
        filters,
        group_by: p.group_by.clone(),
        order_by: p.order_by.iter().map(|o| OrderBy { column: o.column.clone(), descending: o.descending }).collect(),
        limit: p.limit,
    })
}

pub(super) fn chart(c: &aware_domain::chart::Chart) -> pb::Chart {
    use aware_domain::chart::ChartKind;
    pb::Chart {
        kind: match c.kind {
            ChartKind::Bar => pb::ChartKind::Bar,
            ChartKind::Line => pb::ChartKind::Line,
            ChartKind::Scatter => pb::ChartKind::Scatter,
        } as i32,
        vega_lite_json: c.spec.to_string(),
        x: c.x.clone(),
        y: c.y.clone(),
        color: c.color.clone().unwrap_or_default(),
    }
}

/// One query of a run computed again, and how it compares.
pub fn rerun(r: &aware_core::query::Rerun) -> pb::QueryRerun {
    let rows = |rows: &[Vec<Value>]| rows.iter().map(|r| pb::Row { values: r.iter().map(value).collect() }).collect();
    pb::QueryRerun {
        run_id: r.run_id.to_string(),
        sql: r.sql.clone(),
        result: Some(table(&r.table)),
        result_sha256: r.result_sha256.clone(),
        recorded_sha256: r.recorded_sha256.clone(),
        added_rows: rows(&r.added),
        removed_rows: rows(&r.removed),
        unchanged_rows: r.unchanged,
        recorded_rows_kept: r.rows_kept,
        changed_datasets: r.changed_datasets.iter().map(dataset_version).collect(),
        error: r.error.as_ref().map(run_error),
    }
}

/// The numbers of an answer and their sources.
pub fn grounded_numbers(numbers: &[aware_domain::grounding::NumberClaim]) -> Vec<pb::GroundedNumber> {
    numbers
        .iter()
        .map(|n| pb::GroundedNumber {
            text: n.text.clone(),
            value: n.value,
            start: n.start,
            end: n.end,
            source: n.source.as_ref().map(|s| pb::NumberSource {
                seq: s.seq,
                tool_call_id: s.tool_call_id.clone(),
                tool_name: s.tool_name.clone(),
                location: s.location.clone(),
                value: s.value.clone(),
            }),
        })
        .collect()
}
