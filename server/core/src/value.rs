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
    Double(f64),
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

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Self::Null)
    }
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
}
