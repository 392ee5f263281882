//! Typed cells and tables, as the data engine produces them and clients receive them.

use serde::{Deserialize, Serialize};

/// The family a column's cells belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    Bool,
    Int,
    Double,
    Decimal,
    String,
    Date,
    Timestamp,
    Time,
    Interval,
    Bytes,
    Nested,
}

impl ValueKind {
    /// Classifies a DuckDB type name (`BIGINT`, `DECIMAL(10,2)`, `TIMESTAMP WITH TIME ZONE`, …).
    pub fn from_sql_type(type_name: &str) -> Self {
        let t = type_name.trim().to_ascii_uppercase();
        if t.ends_with("[]")
            || t.starts_with("STRUCT")
            || t.starts_with("MAP")
            || t.starts_with("UNION")
            || t.contains('[')
        {
            return Self::Nested;
        }
        let base = t.split('(').next().unwrap_or_default().trim();
        match base {
            "BOOLEAN" | "BOOL" => Self::Bool,
            "TINYINT" | "SMALLINT" | "INTEGER" | "INT" | "BIGINT" | "UTINYINT" | "USMALLINT" | "UINTEGER"
            | "UBIGINT" => Self::Int,
            "HUGEINT" | "UHUGEINT" | "DECIMAL" | "NUMERIC" => Self::Decimal,
            "FLOAT" | "REAL" | "DOUBLE" => Self::Double,
            "DATE" => Self::Date,
            "TIME" | "TIME WITH TIME ZONE" | "TIMETZ" => Self::Time,
            "INTERVAL" => Self::Interval,
            "BLOB" | "BYTEA" | "BIT" => Self::Bytes,
            b if b.starts_with("TIMESTAMP") => Self::Timestamp,
            _ => Self::String,
        }
    }

    /// Whether mean/median/stddev make sense.
    pub fn is_numeric(self) -> bool {
        matches!(self, Self::Int | Self::Double | Self::Decimal)
    }
}

/// One typed cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", content = "v", rename_all = "snake_case")]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// Any double DuckDB returns, NaN and ±infinity included (see [`non_finite`]).
    Double(#[serde(with = "non_finite")] f64),
    /// Exact decimals and integers beyond 64 bits, as canonical text.
    Decimal(String),
    String(String),
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds since 1970-01-01T00:00:00Z.
    Timestamp(i64),
    /// Microseconds since midnight.
    Time(i64),
    Bytes(Vec<u8>),
    /// Nested values and intervals, rendered as text.
    Text(String),
}

/// Serde for doubles that may be NaN or infinite. JSON has no such numbers (serde_json writes them
/// as `null` and cannot read that back as a number), and doubles cross JSON twice — the SQL
/// worker's frames and the stored event log — so the three non-finite values travel as the strings
/// `"NaN"`, `"Infinity"` and `"-Infinity"`. A `null` read back means NaN: that is what logs written
/// before this encoding hold where a non-finite double was.
pub mod non_finite {
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};
    use std::fmt;

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        match text(*x) {
            Some(t) => s.serialize_str(t),
            None => s.serialize_f64(*x),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        d.deserialize_any(Double)
    }

    /// The text of a non-finite double; `None` for a finite one.
    pub fn text(x: f64) -> Option<&'static str> {
        if x.is_nan() {
            Some("NaN")
        } else if x == f64::INFINITY {
            Some("Infinity")
        } else if x == f64::NEG_INFINITY {
            Some("-Infinity")
        } else {
            None
        }
    }

    pub(super) struct Double;

    impl<'de> Visitor<'de> for Double {
        type Value = f64;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number, \"NaN\", \"Infinity\" or \"-Infinity\"")
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
            match v {
                "NaN" => Ok(f64::NAN),
                "Infinity" => Ok(f64::INFINITY),
                "-Infinity" => Ok(f64::NEG_INFINITY),
                other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
            }
        }
        fn visit_unit<E: de::Error>(self) -> Result<f64, E> {
            Ok(f64::NAN)
        }
        fn visit_none<E: de::Error>(self) -> Result<f64, E> {
            Ok(f64::NAN)
        }
    }

    /// The same for optional doubles (`null` is `None` here).
    pub mod option {
        use serde::de::{self, Visitor};
        use serde::{Deserializer, Serializer};
        use std::fmt;

        pub fn serialize<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
            match x {
                Some(x) => super::serialize(x, s),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
            d.deserialize_option(Maybe)
        }

        struct Maybe;

        impl<'de> Visitor<'de> for Maybe {
            type Value = Option<f64>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("null or a double")
            }
            fn visit_none<E: de::Error>(self) -> Result<Option<f64>, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Option<f64>, E> {
                Ok(None)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<f64>, D::Error> {
                d.deserialize_any(super::Double).map(Some)
            }
        }
    }
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Self::Null)
    }

    /// The cell as a number, when it holds one: an integer, a double (NaN and infinities
    /// included: callers that count or compare drop them) or a decimal.
    pub fn number(&self) -> Option<f64> {
        match self {
            Self::Int(i) => Some(*i as f64),
            Self::Double(d) => Some(*d),
            Self::Decimal(s) => s.parse().ok(),
            Self::Null
            | Self::Bool(_)
            | Self::String(_)
            | Self::Date(_)
            | Self::Timestamp(_)
            | Self::Time(_)
            | Self::Bytes(_)
            | Self::Text(_) => None,
        }
    }
}

/// The calendar day of a `Date` cell's days since 1970-01-01 (`None` past chrono's range).
pub fn day(days_since_epoch: i32) -> Option<chrono::NaiveDate> {
    /// Days from 0001-01-01 (chrono's day 1) to 1970-01-01.
    const EPOCH_FROM_CE: i32 = 719_163;
    chrono::NaiveDate::from_num_days_from_ce_opt(days_since_epoch.checked_add(EPOCH_FROM_CE)?)
}

/// A column of a table or dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    /// The DuckDB type name.
    pub sql_type: String,
    pub kind: ValueKind,
    pub nullable: bool,
}

impl Column {
    pub fn new(name: impl Into<String>, sql_type: impl Into<String>) -> Self {
        let sql_type = sql_type.into();
        Self { name: name.into(), kind: ValueKind::from_sql_type(&sql_type), sql_type, nullable: true }
    }
}

/// A typed result set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
    /// More rows existed than were returned.
    pub truncated: bool,
    pub exec_time_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duckdb_type_names_map_to_kinds() {
        for (t, k) in [
            ("BIGINT", ValueKind::Int),
            ("DECIMAL(10,2)", ValueKind::Decimal),
            ("HUGEINT", ValueKind::Decimal),
            ("DOUBLE", ValueKind::Double),
            ("VARCHAR", ValueKind::String),
            ("DATE", ValueKind::Date),
            ("TIMESTAMP WITH TIME ZONE", ValueKind::Timestamp),
            ("TIMESTAMP_NS", ValueKind::Timestamp),
            ("INTEGER[]", ValueKind::Nested),
            ("STRUCT(a INTEGER)", ValueKind::Nested),
            ("BOOLEAN", ValueKind::Bool),
            ("BLOB", ValueKind::Bytes),
            ("INTERVAL", ValueKind::Interval),
        ] {
            assert_eq!(ValueKind::from_sql_type(t), k, "{t}");
        }
        assert!(ValueKind::Decimal.is_numeric());
        assert!(!ValueKind::Date.is_numeric());
    }

    #[test]
    fn non_finite_doubles_survive_json_and_old_nulls_read_as_nan() {
        let cells = vec![
            Value::Double(f64::NAN),
            Value::Double(f64::INFINITY),
            Value::Double(f64::NEG_INFINITY),
            Value::Double(-0.5),
            Value::Double(3.0),
        ];
        let json = serde_json::to_string(&cells).unwrap();
        assert_eq!(
            json,
            r#"[{"t":"double","v":"NaN"},{"t":"double","v":"Infinity"},{"t":"double","v":"-Infinity"},{"t":"double","v":-0.5},{"t":"double","v":3.0}]"#
        );
        let back: Vec<Value> = serde_json::from_str(&json).unwrap();
        let Value::Double(nan) = back[0] else { panic!("a double") };
        assert!(nan.is_nan());
        assert_eq!(back[1..], cells[1..]);
        // The content before the tag (serde buffers it) and the encoding of older logs.
        let Value::Double(x) = serde_json::from_str::<Value>(r#"{"v":"-Infinity","t":"double"}"#).unwrap() else {
            panic!("a double")
        };
        assert_eq!(x, f64::NEG_INFINITY);
        let Value::Double(x) = serde_json::from_str::<Value>(r#"{"t":"double","v":null}"#).unwrap() else {
            panic!("a double")
        };
        assert!(x.is_nan());
        assert!(serde_json::from_str::<Value>(r#"{"t":"double","v":"lots"}"#).is_err());

        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Stats {
            #[serde(with = "non_finite::option")]
            mean: Option<f64>,
        }
        for mean in [None, Some(1.5), Some(f64::INFINITY)] {
            let json = serde_json::to_string(&Stats { mean }).unwrap();
            assert_eq!(serde_json::from_str::<Stats>(&json).unwrap(), Stats { mean }, "{json}");
        }
        assert_eq!(serde_json::to_string(&Stats { mean: Some(f64::NEG_INFINITY) }).unwrap(), r#"{"mean":"-Infinity"}"#);
    }
}
