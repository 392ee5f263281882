//! Datasets, their columns, values and tables, statistics, search hits, folder listings and imports.

use super::*;

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
        DatasetFormat::Derived => pb::DatasetFormat::Derived,
        DatasetFormat::Markdown => pb::DatasetFormat::Markdown,
        DatasetFormat::Text => pb::DatasetFormat::Text,
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
        Value::Bytes(b) => Kind::BytesValue(bytes::Bytes::copy_from_slice(b)),
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
        search_index: None,
        description: d.description.clone(),
        column_notes: d.column_notes.iter().map(column_note).collect(),
        lineage: d.lineage.as_ref().map(|l| pb::Lineage {
            sources: l.sources.iter().map(dataset_version).collect(),
            sql: l.sql.clone(),
            run_id: l.run_id.clone(),
        }),
        origin: d.origin.as_ref().map(|o| pb::ImportOrigin { root: o.root.clone(), path: o.path.clone() }),
    }
}

pub(super) fn column_note(n: &ColumnNote) -> pb::ColumnNote {
    pb::ColumnNote { column: n.column.clone(), description: n.description.clone(), unit: n.unit.clone() }
}

/// A note as a client sent it.
pub fn column_note_in(n: pb::ColumnNote) -> ColumnNote {
    ColumnNote { column: n.column, description: n.description, unit: n.unit }
}

pub(super) fn dataset_version(d: &DatasetVersion) -> pb::DatasetVersion {
    pb::DatasetVersion {
        dataset_id: d.dataset_id.to_string(),
        table_name: d.table_name.clone(),
        version_hash: d.version_hash.clone(),
    }
}

pub fn saved_query(q: &SavedQuery) -> pb::SavedQuery {
    pb::SavedQuery {
        id: q.id.to_string(),
        name: q.name.clone(),
        question: q.question.clone(),
        sql: q.sql.clone(),
        created_at: Some(timestamp(q.created_at)),
        updated_at: Some(timestamp(q.updated_at)),
    }
}

/// A dataset with its search index's status (for `ListDatasets` and `GetDataset`).
pub fn dataset_with_index(d: &Dataset, index: Option<IndexStatus>) -> pb::Dataset {
    pb::Dataset { search_index: index.as_ref().map(search_index), ..dataset(d) }
}

pub(super) fn search_index(s: &IndexStatus) -> pb::SearchIndex {
    use pb::SearchIndexState as S;
    let state = match s.state {
        IndexState::Indexing => S::Indexing,
        IndexState::NoText => S::NoText,
        IndexState::Embedding => S::Embedding,
        IndexState::Lexical => S::Lexical,
        IndexState::Ready => S::Ready,
        IndexState::Failed => S::Failed,
    };
    pb::SearchIndex {
        state: state.into(),
        text_columns: s.text_columns.clone(),
        rows: s.rows,
        vector_rows: s.vector_rows,
        embedding_model: s.model.clone(),
        vector_index: s.vector_index.clone(),
        error: s.error.clone().unwrap_or_default(),
    }
}

pub fn search_hits(r: &SearchResults) -> pb::SearchHits {
    pb::SearchHits {
        hits: r.hits.iter().map(search_hit).collect(),
        mode: r.mode.as_str().to_owned(),
        query: r.query.clone(),
        datasets_searched: r.datasets_searched,
        note: r.note.clone(),
    }
}

pub(super) fn search_hit(h: &SearchHit) -> pb::SearchHit {
    pb::SearchHit {
        dataset_id: h.dataset_id.to_string(),
        table_name: h.table_name.clone(),
        row_id: h.row_id,
        column: h.column.clone(),
        text: h.text.clone(),
        snippet: h.snippet.clone(),
        score: h.score,
        dataset_name: h.dataset_name.clone(),
        lexical_rank: h.lexical_rank,
        vector_rank: h.vector_rank,
        same_text_rows: h.same_text_rows,
    }
}

pub(super) fn column_statistics(c: &ColumnStatistics) -> pb::ColumnStatistics {
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

pub fn listing(l: &Listing) -> pb::DirectoryListing {
    pb::DirectoryListing {
        root: l.root.clone(),
        path: l.path.clone(),
        entries: l
            .entries
            .iter()
            .map(|e| pb::DirectoryEntry {
                name: e.name.clone(),
                path: e.path.clone(),
                kind: match e.kind {
                    EntryKind::File => pb::EntryKind::File,
                    EntryKind::Directory => pb::EntryKind::Directory,
                    EntryKind::Other => pb::EntryKind::Other,
                }
                .into(),
                size_bytes: e.size_bytes,
                modified_at: Some(timestamp(e.modified)),
                importable_format: e.format.map_or(pb::DatasetFormat::Unspecified, format).into(),
            })
            .collect(),
        truncated: l.truncated,
    }
}

pub fn import_report(r: &ImportReport) -> pb::ImportReport {
    pb::ImportReport {
        root: r.root.clone(),
        files: r
            .files
            .iter()
            .map(|f| pb::ImportedFile {
                path: f.path.clone(),
                dataset: f.dataset.as_ref().map(dataset),
                error: f.error.as_ref().map(run_error),
            })
            .collect(),
    }
}
