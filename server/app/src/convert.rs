//! Domain types → `aware.v1` messages (and the few proto enums requests carry → domain). Domain
//! code never sees prost types; this is the boundary.

use aware_core::dataset::{ColumnStatistics, Dataset, DatasetFormat, DatasetStatistics, DatasetStatus};
use aware_core::value::{Column, Table, Value, ValueKind};
use aware_core::{Error, Result};
use aware_proto::v1 as pb;
use chrono::{DateTime, Utc};

pub fn timestamp(t: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp { seconds: t.timestamp(), nanos: t.timestamp_subsec_nanos() as i32 }
}

fn micros_timestamp(us: i64) -> prost_types::Timestamp {
    prost_types::Timestamp { seconds: us.div_euclid(1_000_000), nanos: (us.rem_euclid(1_000_000) * 1000) as i32 }
}

pub fn status(s: DatasetStatus) -> pb::DatasetStatus {
    match s {
        DatasetStatus::Processing => pb::DatasetStatus::Processing,
        DatasetStatus::Ready => pb::DatasetStatus::Ready,
        DatasetStatus::Error => pb::DatasetStatus::Error,
    }
}

/// A status filter from a request: UNSPECIFIED means "all".
pub fn status_filter(raw: i32) -> Result<Option<DatasetStatus>> {
    match pb::DatasetStatus::try_from(raw) {
        Ok(pb::DatasetStatus::Unspecified) => Ok(None),
        Ok(pb::DatasetStatus::Processing) => Ok(Some(DatasetStatus::Processing)),
        Ok(pb::DatasetStatus::Ready) => Ok(Some(DatasetStatus::Ready)),
        Ok(pb::DatasetStatus::Error) => Ok(Some(DatasetStatus::Error)),
        Err(_) => Err(Error::validation("status_filter", format!("unknown dataset status {raw}"))),
    }
}

pub fn format(f: DatasetFormat) -> pb::DatasetFormat {
    match f {
        DatasetFormat::Csv => pb::DatasetFormat::Csv,
        DatasetFormat::Tsv => pb::DatasetFormat::Tsv,
        DatasetFormat::Parquet => pb::DatasetFormat::Parquet,
        DatasetFormat::Json => pb::DatasetFormat::Json,
        DatasetFormat::Ndjson => pb::DatasetFormat::Ndjson,
    }
}

pub fn kind(k: ValueKind) -> pb::ValueKind {
    match k {
        ValueKind::Bool => pb::ValueKind::Bool,
        ValueKind::Int => pb::ValueKind::Int,
        ValueKind::Double => pb::ValueKind::Double,
        ValueKind::Decimal => pb::ValueKind::Decimal,
        ValueKind::String => pb::ValueKind::String,
        ValueKind::Date => pb::ValueKind::Date,
        ValueKind::Timestamp => pb::ValueKind::Timestamp,
        ValueKind::Time => pb::ValueKind::Time,
        ValueKind::Interval => pb::ValueKind::Interval,
        ValueKind::Bytes => pb::ValueKind::Bytes,
        ValueKind::Nested => pb::ValueKind::Nested,
    }
}

pub fn column(c: &Column) -> pb::Column {
    pb::Column { name: c.name.clone(), r#type: c.sql_type.clone(), kind: kind(c.kind).into(), nullable: c.nullable }
}

pub fn value(v: &Value) -> pb::Value {
    use pb::value::Kind;
    let kind = match v {
        Value::Null => Kind::NullValue(pb::Null::Unspecified.into()),
        Value::Bool(b) => Kind::BoolValue(*b),
        Value::Int(n) => Kind::IntValue(*n),
        Value::Double(x) => Kind::DoubleValue(*x),
        Value::Decimal(s) => Kind::DecimalValue(s.clone()),
        Value::String(s) => Kind::StringValue(s.clone()),
        Value::Date(d) => Kind::DateValue(*d),
        Value::Timestamp(us) => Kind::TimestampValue(micros_timestamp(*us)),
        Value::Time(us) => Kind::TimeValue(*us),
        Value::Bytes(b) => Kind::BytesValue(b.clone()),
        Value::Text(s) => Kind::TextValue(s.clone()),
    };
    pb::Value { kind: Some(kind) }
}

pub fn table(t: &Table) -> pb::Table {
    pb::Table {
        columns: t.columns.iter().map(column).collect(),
        rows: t.rows.iter().map(|r| pb::Row { values: r.iter().map(value).collect() }).collect(),
        row_count: t.rows.len() as u64,
        truncated: t.truncated,
        exec_time_ms: t.exec_time_ms,
    }
}

pub fn dataset(d: &Dataset) -> pb::Dataset {
    pb::Dataset {
        id: d.id.to_string(),
        name: d.name.clone(),
        table_name: d.table_name.clone(),
        format: format(d.format).into(),
        status: status(d.status).into(),
        row_count: d.row_count,
        column_count: d.columns.len() as u32,
        size_bytes: d.size_bytes,
        version_hash: d.version_hash.clone(),
        created_at: Some(timestamp(d.created_at)),
        columns: d.columns.iter().map(column).collect(),
        error: d.error.clone().unwrap_or_default(),
        updated_at: Some(timestamp(d.updated_at)),
    }
}

fn column_statistics(c: &ColumnStatistics) -> pb::ColumnStatistics {
    let present = |v: &Value| (!v.is_null()).then(|| value(v));
    pb::ColumnStatistics {
        name: c.name.clone(),
        r#type: c.sql_type.clone(),
        kind: kind(c.kind).into(),
        null_count: c.null_count,
        distinct_count: c.distinct_count,
        min: present(&c.min),
        max: present(&c.max),
        mean: c.mean,
        median: c.median,
        stddev: c.stddev,
        min_length: c.min_length,
        max_length: c.max_length,
    }
}

pub fn statistics(s: &DatasetStatistics) -> pb::DatasetStatistics {
    pb::DatasetStatistics {
        dataset_id: s.dataset_id.to_string(),
        table_name: s.table_name.clone(),
        row_count: s.row_count,
        columns: s.columns.iter().map(column_statistics).collect(),
        exec_time_ms: s.exec_time_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_before_the_epoch_keep_positive_nanos() {
        let t = micros_timestamp(-1);
        assert_eq!((t.seconds, t.nanos), (-1, 999_999_000));
        let t = micros_timestamp(1_500_000);
        assert_eq!((t.seconds, t.nanos), (1, 500_000_000));
    }

    #[test]
    fn unknown_status_filters_are_validation_errors() {
        assert_eq!(status_filter(0).unwrap(), None);
        assert_eq!(status_filter(2).unwrap(), Some(DatasetStatus::Ready));
        assert_eq!(status_filter(99).unwrap_err().field.as_deref(), Some("status_filter"));
    }
}
