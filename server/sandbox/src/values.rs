//! DuckDB values → aware's typed cells.

// DuckDB's `Value` is `#[non_exhaustive]`: a kind it adds cannot be listed before it exists, so
// the `_` arms here say how an unknown kind is carried (as its text) or that it is not a number.
#![allow(clippy::wildcard_enum_match_arm)]

use aware_domain::value::Value;
use duckdb::types::Value as Db;

pub(crate) fn to_value(v: Db) -> Value {
    match v {
        Db::Null => Value::Null,
        Db::Boolean(b) => Value::Bool(b),
        Db::TinyInt(n) => Value::Int(n.into()),
        Db::SmallInt(n) => Value::Int(n.into()),
        Db::Int(n) => Value::Int(n.into()),
        Db::BigInt(n) => Value::Int(n),
        Db::UTinyInt(n) => Value::Int(n.into()),
        Db::USmallInt(n) => Value::Int(n.into()),
        Db::UInt(n) => Value::Int(n.into()),
        Db::UBigInt(n) => i64::try_from(n).map_or_else(|_| Value::Decimal(n.to_string()), Value::Int),
        Db::HugeInt(n) => Value::Decimal(n.to_string()),
        Db::UHugeInt(n) => Value::Decimal(n.to_string()),
        Db::Float(x) => Value::Double(x.into()),
        Db::Double(x) => Value::Double(x),
        Db::Decimal(d) => Value::Decimal(d.to_string()),
        Db::Timestamp(unit, n) => infinite(n, i64::MAX).unwrap_or_else(|| Value::Timestamp(unit.to_micros(n))),
        Db::Text(s) => Value::String(s),
        Db::Enum(s) => Value::String(s),
        Db::Blob(b) | Db::Geometry(b) => Value::Bytes(b),
        Db::Date32(d) => infinite(d.into(), i32::MAX.into()).unwrap_or(Value::Date(d)),
        Db::Time64(unit, n) => Value::Time(unit.to_micros(n)),
        other => Value::Text(render(&other)),
    }
}

/// DuckDB's `infinity` and `-infinity` dates and timestamps are sentinels at the ends of the
/// integer range (`max`), not instants: they are sent as those words, never as a date in the year
/// 5,881,580 or 294,247.
fn infinite(n: i64, max: i64) -> Option<Value> {
    match n {
        _ if n == max => Some(Value::Text("infinity".into())),
        _ if n == -max => Some(Value::Text("-infinity".into())),
        _ => None,
    }
}

/// Renders nested values (lists, structs, maps, unions) and intervals as compact text.
fn render(v: &Db) -> String {
    match v {
        Db::Null => "NULL".to_owned(),
        Db::Text(s) | Db::Enum(s) => format!("'{}'", s.replace('\'', "''")),
        Db::List(items) | Db::Array(items) => {
            format!("[{}]", items.iter().map(render).collect::<Vec<_>>().join(", "))
        }
        Db::Struct(fields) => format!(
            "{{{}}}",
            fields.iter().map(|(k, v)| format!("'{k}': {}", render(v))).collect::<Vec<_>>().join(", ")
        ),
        Db::Map(entries) => format!(
            "{{{}}}",
            entries.iter().map(|(k, v)| format!("{}={}", render(k), render(v))).collect::<Vec<_>>().join(", ")
        ),
        Db::Union(inner) => render(inner),
        Db::Interval { months, days, nanos } => format!("{months} months {days} days {} us", nanos / 1000),
        scalar => match to_value(scalar.clone()) {
            Value::Bool(b) => b.to_string(),
            Value::Int(n) => n.to_string(),
            Value::Double(x) => x.to_string(),
            Value::Decimal(s) | Value::String(s) | Value::Text(s) => s,
            Value::Date(d) => format!("date {d}"),
            Value::Timestamp(us) => format!("timestamp {us}"),
            Value::Time(us) => format!("time {us}"),
            Value::Bytes(b) => format!("blob({} bytes)", b.len()),
            Value::Null => "NULL".to_owned(),
        },
    }
}

/// Reads a DuckDB value as f64, for aggregates that are cast to DOUBLE.
pub(crate) fn to_f64(v: &Db) -> Option<f64> {
    match v {
        Db::Double(x) => Some(*x),
        Db::Float(x) => Some((*x).into()),
        Db::BigInt(n) => Some(*n as f64),
        Db::Int(n) => Some((*n).into()),
        _ => None,
    }
}

/// Reads a DuckDB count as u64.
pub(crate) fn to_u64(v: &Db) -> u64 {
    match v {
        Db::BigInt(n) => u64::try_from(*n).unwrap_or(0),
        Db::UBigInt(n) => *n,
        Db::Int(n) => u64::try_from(*n).unwrap_or(0),
        Db::HugeInt(n) => u64::try_from(*n).unwrap_or(u64::MAX),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use duckdb::types::TimeUnit;

    #[test]
    fn scalars_and_nested_values_convert() {
        assert_eq!(to_value(Db::BigInt(-5)), Value::Int(-5));
        assert_eq!(to_value(Db::UBigInt(u64::MAX)), Value::Decimal(u64::MAX.to_string()));
        assert_eq!(to_value(Db::Timestamp(TimeUnit::Millisecond, 2)), Value::Timestamp(2000));
        assert_eq!(to_value(Db::Date32(19_723)), Value::Date(19_723));
        assert_eq!(
            to_value(Db::List(vec![Db::Int(1), Db::Null, Db::Text("a'b".into())])),
            Value::Text("[1, NULL, 'a''b']".into())
        );
        assert_eq!(to_u64(&Db::BigInt(7)), 7);
        // What DuckDB returns for 'infinity'::DATE, '-infinity'::TIMESTAMP and 'infinity'::TIMESTAMP_S.
        assert_eq!(to_value(Db::Date32(i32::MAX)), Value::Text("infinity".into()));
        assert_eq!(to_value(Db::Timestamp(TimeUnit::Microsecond, -i64::MAX)), Value::Text("-infinity".into()));
        assert_eq!(to_value(Db::Timestamp(TimeUnit::Second, i64::MAX)), Value::Text("infinity".into()));
        assert_eq!(to_value(Db::Date32(-i32::MAX + 1)), Value::Date(-i32::MAX + 1), "the earliest real date");
        assert_eq!(to_f64(&Db::Double(1.5)), Some(1.5));
    }
}
