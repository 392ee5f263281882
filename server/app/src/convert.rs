//! Domain types → `aware.v1` messages (and the few proto enums requests carry → domain). Domain
//! code never sees prost types; this is the boundary.

use aware_core::auth::Role;
use aware_core::dataset::{ColumnNote, ColumnStatistics, Dataset, DatasetFormat, DatasetStatistics, DatasetStatus};
use aware_core::files::{EntryKind, ImportReport, Listing};
use aware_core::knowledge::{CitationCheck, CitationStatus, KnowledgeResults};
use aware_core::ports::{ApiKey, SavedQuery, User};
use aware_core::query_plan::{Aggregate, Expr, Filter, FilterOp, Operator, OrderBy, QueryPlan, SelectItem, TimeBucket};
use aware_core::run::{
    Capsule, DatasetVersion, Feedback, QueryMode, Rating, RunError, RunKind, RunOutcome, RunRecord, RunStatus, Usage,
};
use aware_core::runs::events::{
    EventPayload, Provenance, Resolution, ResourceRef, RichResult, RunEvent, RunPhase, Tier, ToolPhase, ToolRisk,
};
use aware_core::runs::store::{Confirmation, SessionGrant, SpanRecord};
use aware_core::runs::{Answer, DEFAULT_GRANT, LONGEST_GRANT, Scope};
use aware_core::search::{IndexState, IndexStatus, SearchHit, SearchResults};
use aware_core::value::{Column, Table, Value, ValueKind};
use aware_core::{Error, Result};
use aware_proto::v1 as pb;
use chrono::{DateTime, Utc};

pub fn timestamp(t: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp { seconds: t.timestamp(), nanos: t.timestamp_subsec_nanos() as i32 }
}

/// A request's timestamp; out-of-range values are a VALIDATION_ERROR on `field`.
pub fn timestamp_in(t: &prost_types::Timestamp, field: &str) -> aware_core::Result<DateTime<Utc>> {
    u32::try_from(t.nanos)
        .ok()
        .and_then(|nanos| DateTime::from_timestamp(t.seconds, nanos))
        .ok_or_else(|| aware_core::Error::validation(field, "the timestamp is out of range"))
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

fn column_note(n: &ColumnNote) -> pb::ColumnNote {
    pb::ColumnNote { column: n.column.clone(), description: n.description.clone(), unit: n.unit.clone() }
}

/// A note as a client sent it.
pub fn column_note_in(n: pb::ColumnNote) -> ColumnNote {
    ColumnNote { column: n.column, description: n.description, unit: n.unit }
}

fn dataset_version(d: &DatasetVersion) -> pb::DatasetVersion {
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

fn search_index(s: &IndexStatus) -> pb::SearchIndex {
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

fn search_hit(h: &SearchHit) -> pb::SearchHit {
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
fn filter_in(f: &pb::Filter, field: &str) -> Result<Filter> {
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

fn aggregate_in(a: i32, field: &str) -> Result<Option<Aggregate>> {
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
fn expr_in(e: &pb::Expression, field: &str, depth: usize) -> Result<Expr> {
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

pub fn run_status(s: RunStatus) -> pb::RunStatus {
    match s {
        RunStatus::Queued => pb::RunStatus::Queued,
        RunStatus::Running => pb::RunStatus::Running,
        RunStatus::AwaitingConfirmation => pb::RunStatus::AwaitingConfirmation,
        RunStatus::Succeeded => pb::RunStatus::Succeeded,
        RunStatus::Failed => pb::RunStatus::Failed,
        RunStatus::Cancelled => pb::RunStatus::Cancelled,
        RunStatus::MaxIterations => pb::RunStatus::MaxIterations,
    }
}

pub fn run_outcome(o: RunOutcome) -> pb::RunOutcome {
    match o {
        RunOutcome::Answered => pb::RunOutcome::Answered,
        RunOutcome::AskedBack => pb::RunOutcome::AskedBack,
        RunOutcome::NotUnderstood => pb::RunOutcome::NotUnderstood,
        RunOutcome::Denied => pb::RunOutcome::Denied,
        RunOutcome::Expired => pb::RunOutcome::Expired,
        RunOutcome::Cancelled => pb::RunOutcome::Cancelled,
        RunOutcome::Failed => pb::RunOutcome::Failed,
    }
}

/// An outcome a request filters by (UNSPECIFIED: every outcome).
pub fn run_outcome_in(raw: i32, field: &str) -> Result<Option<RunOutcome>> {
    let Ok(o) = pb::RunOutcome::try_from(raw) else {
        return Err(Error::validation(field, format!("{raw} is not a run outcome")));
    };
    Ok(RunOutcome::ALL.into_iter().find(|ours| run_outcome(*ours) == o))
}

pub fn error_code(c: aware_core::ErrorCode) -> pb::ErrorCode {
    use aware_core::ErrorCode as E;
    match c {
        E::ValidationError => pb::ErrorCode::ValidationError,
        E::SqlPolicyViolation => pb::ErrorCode::SqlPolicyViolation,
        E::RunnerTimeout => pb::ErrorCode::RunnerTimeout,
        E::RunnerResourceExceeded => pb::ErrorCode::RunnerResourceExceeded,
        E::RunnerInternalError => pb::ErrorCode::RunnerInternalError,
        E::NotFound => pb::ErrorCode::NotFound,
        E::PermissionDenied => pb::ErrorCode::PermissionDenied,
        E::Unauthenticated => pb::ErrorCode::Unauthenticated,
        E::ConfirmationExpired => pb::ErrorCode::ConfirmationExpired,
        E::RunBusy => pb::ErrorCode::RunBusy,
        E::UnknownRun => pb::ErrorCode::UnknownRun,
        E::TokenExpired => pb::ErrorCode::TokenExpired,
        E::AlreadyResolved => pb::ErrorCode::AlreadyResolved,
        E::NotAuthorized => pb::ErrorCode::NotAuthorized,
        E::BadRequest => pb::ErrorCode::BadRequest,
        E::CursorAhead => pb::ErrorCode::CursorAhead,
        E::ResourceExhausted => pb::ErrorCode::ResourceExhausted,
        E::IngestError => pb::ErrorCode::IngestError,
        E::ModelError => pb::ErrorCode::ModelError,
        E::Cancelled => pb::ErrorCode::Cancelled,
        E::AlreadyExists => pb::ErrorCode::AlreadyExists,
        E::Unimplemented => pb::ErrorCode::Unimplemented,
        E::Internal => pb::ErrorCode::Internal,
        E::PathRefused => pb::ErrorCode::PathRefused,
        E::NotReady => pb::ErrorCode::NotReady,
        E::StorageUnavailable => pb::ErrorCode::StorageUnavailable,
        E::ExternalToolFailed => pb::ErrorCode::ExternalToolFailed,
        E::ResourceChanged => pb::ErrorCode::ResourceChanged,
        E::CostConfirmationRequired => pb::ErrorCode::CostConfirmationRequired,
    }
}

pub fn run_error(e: &RunError) -> pb::Error {
    pb::Error {
        code: error_code(e.code).into(),
        message: e.message.clone(),
        retryable: e.retryable,
        field: String::new(),
    }
}

pub fn usage(u: &Usage) -> pb::Usage {
    pb::Usage {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_tokens: u.cache_read_tokens,
        cache_write_tokens: u.cache_write_tokens,
        model_calls: u.model_calls,
        partial: u.partial,
    }
}

/// A run capsule.
pub fn run(r: &RunRecord, c: &Capsule) -> pb::Run {
    pb::Run {
        run_id: r.id.to_string(),
        thread_id: r.thread_id.as_ref().map(|t| t.name().to_owned()).unwrap_or_default(),
        kind: match r.kind {
            RunKind::Chat => pb::RunKind::Chat,
            RunKind::Sql => pb::RunKind::Sql,
            RunKind::QueryPlan => pb::RunKind::QueryPlan,
            RunKind::Tool => pb::RunKind::Tool,
        }
        .into(),
        status: run_status(r.status).into(),
        outcome: r.outcome.map(run_outcome).unwrap_or_default().into(),
        question: r.question.clone(),
        created_at: Some(timestamp(r.created_at)),
        completed_at: r.completed_at.map(timestamp),
        ui_state_version: r.ui_state_version,
        datasets: c.datasets.iter().map(dataset_version).collect(),
        query_mode: match c.query_mode {
            QueryMode::None => pb::QueryMode::None,
            QueryMode::Plan => pb::QueryMode::Plan,
            QueryMode::Sql => pb::QueryMode::Sql,
        }
        .into(),
        plan_json: c.plan_json.clone().unwrap_or_default(),
        compiled_sql: c.compiled_sql.clone().unwrap_or_default(),
        result_summary: c.result_summary.clone().unwrap_or_default(),
        error: c.error.as_ref().or(r.error.as_ref()).map(run_error),
        exec_time_ms: c.exec_time_ms.unwrap_or_default(),
        usage: Some(usage(&r.usage)),
        tool_calls: c
            .tool_calls
            .iter()
            .map(|t| pb::ToolCallRecord {
                tool_call_id: t.id.to_string(),
                tool_name: t.tool_name.clone(),
                arguments_json: t.arguments_json.clone(),
                phase: tool_phase(t.phase).into(),
                llm_summary: t.llm_summary.clone().unwrap_or_default(),
                duration_ms: t.duration_ms.unwrap_or(0),
            })
            .collect(),
        last_seq: r.last_seq,
        final_text: r.final_text.clone(),
        model: r.model.clone().unwrap_or_default(),
        iterations: r.iterations,
        parent_run_id: r.parent_run_id.as_ref().map(ToString::to_string).unwrap_or_default(),
        feedback: r.feedback.as_ref().map(feedback),
        verified_query: c
            .verified_query
            .as_ref()
            .map(|v| pb::VerifiedQueryUse { id: v.id.clone(), name: v.name.clone() }),
        grounding: c.grounding.as_ref().map(|g| grounded_numbers(&g.numbers)).unwrap_or_default(),
        ungrounded_numbers: c.grounding.as_ref().map_or(0, |g| g.ungrounded() as u32),
        stale: !c.changed_datasets.is_empty(),
        changed_datasets: c.changed_datasets.iter().map(dataset_version).collect(),
        citations: c.grounding.as_ref().and_then(|g| g.citations.as_ref()).map(citation_check),
    }
}

/// The check of an answer's citations of the passages its run retrieved.
pub fn citation_check(c: &CitationCheck) -> pb::CitationCheck {
    pb::CitationCheck {
        status: match c.status {
            CitationStatus::Cited => pb::CitationStatus::Cited,
            CitationStatus::MissingCitations => pb::CitationStatus::MissingCitations,
            CitationStatus::InvalidCitation => pb::CitationStatus::InvalidCitation,
            CitationStatus::NoEvidence => pb::CitationStatus::NoEvidence,
        }
        .into(),
        cited: c.cited.clone(),
        invalid: c.invalid.clone(),
        retrieved: c.retrieved.clone(),
    }
}

fn knowledge_hits(r: &KnowledgeResults) -> pb::KnowledgeHits {
    pb::KnowledgeHits {
        query: r.query.clone(),
        chunks: r
            .chunks
            .iter()
            .map(|c| pb::KnowledgeChunk {
                chunk_id: c.chunk_id.clone(),
                dataset_id: c.dataset_id.clone(),
                title: c.title.clone(),
                heading: c.heading.clone(),
                text: c.text.clone(),
                snippet: c.snippet.clone(),
                score: c.score,
                document_name: c.document_name.clone(),
            })
            .collect(),
        documents_searched: r.documents_searched,
        note: r.note.clone(),
        mode: r.mode.clone(),
    }
}

pub fn feedback(f: &Feedback) -> pb::Feedback {
    pb::Feedback { rating: rating(f.rating).into(), reason: f.reason.clone(), created_at: Some(timestamp(f.at)) }
}

fn rating(r: Rating) -> pb::FeedbackRating {
    match r {
        Rating::Up => pb::FeedbackRating::Up,
        Rating::Down => pb::FeedbackRating::Down,
    }
}

/// A rating a request gives (required for feedback; a filter when listing).
pub fn rating_in(raw: i32, field: &str) -> Result<Option<Rating>> {
    match pb::FeedbackRating::try_from(raw) {
        Ok(pb::FeedbackRating::Unspecified) => Ok(None),
        Ok(pb::FeedbackRating::Up) => Ok(Some(Rating::Up)),
        Ok(pb::FeedbackRating::Down) => Ok(Some(Rating::Down)),
        Err(_) => Err(Error::validation(field, "rating is UP or DOWN")),
    }
}

/// A person's answer to a confirmation, from the fields `ConfirmationResponse` and
/// `SubmitConfirmationRequest` share.
pub fn answer_in(approved: bool, scope: i32, duration_seconds: u32, edited_arguments_json: &str) -> Result<Answer> {
    let scope = match pb::ConfirmationScope::try_from(scope) {
        Ok(pb::ConfirmationScope::Unspecified | pb::ConfirmationScope::Once) => {
            if duration_seconds != 0 {
                return Err(Error::validation("duration_seconds", "a duration goes with scope SESSION"));
            }
            Scope::Once
        }
        Ok(pb::ConfirmationScope::Session) => {
            let duration = match duration_seconds {
                0 => DEFAULT_GRANT,
                n => std::time::Duration::from_secs(u64::from(n)),
            };
            if duration > LONGEST_GRANT {
                return Err(Error::validation(
                    "duration_seconds",
                    format!("a session grant lasts at most {} seconds", LONGEST_GRANT.as_secs()),
                ));
            }
            Scope::Session(duration)
        }
        Err(_) => return Err(Error::validation("scope", "scope is ONCE or SESSION")),
    };
    let edited_args = match edited_arguments_json.trim() {
        "" => None,
        raw => Some(serde_json::from_str::<serde_json::Value>(raw).map_err(|e| {
            Error::new(aware_core::ErrorCode::BadRequest, format!("edited_arguments_json is not JSON: {e}"))
                .with_field("edited_arguments_json")
        })?),
    };
    Ok(Answer { approved, scope, edited_args })
}

/// A session grant.
pub fn grant(g: &SessionGrant) -> pb::Grant {
    pb::Grant {
        grant_id: g.id.to_string(),
        tool_name: g.tool_name.clone(),
        resource_class: g.resource_class.clone(),
        confirmation_id: g.confirmation_id.to_string(),
        created_at: Some(timestamp(g.created_at)),
        expires_at: Some(timestamp(g.expires_at)),
    }
}

fn tool_phase(p: ToolPhase) -> pb::ToolPhase {
    match p {
        ToolPhase::Queued => pb::ToolPhase::Queued,
        ToolPhase::AwaitingConfirmation => pb::ToolPhase::AwaitingConfirmation,
        ToolPhase::Running => pb::ToolPhase::Running,
        ToolPhase::Succeeded => pb::ToolPhase::Succeeded,
        ToolPhase::Failed => pb::ToolPhase::Failed,
        ToolPhase::Denied => pb::ToolPhase::Denied,
        ToolPhase::Expired => pb::ToolPhase::Expired,
        ToolPhase::Cancelled => pb::ToolPhase::Cancelled,
    }
}

fn tier(t: Tier) -> pb::ConfirmationTier {
    match t {
        Tier::Standard => pb::ConfirmationTier::Standard,
        Tier::Elevated => pb::ConfirmationTier::Elevated,
    }
}

pub fn resolution(r: Resolution) -> pb::ConfirmationResolution {
    match r {
        Resolution::Pending => pb::ConfirmationResolution::Unspecified,
        Resolution::Approved => pb::ConfirmationResolution::Approved,
        Resolution::Denied => pb::ConfirmationResolution::Denied,
        Resolution::Expired => pb::ConfirmationResolution::Expired,
        Resolution::Cancelled => pb::ConfirmationResolution::Cancelled,
        Resolution::Superseded => pb::ConfirmationResolution::Superseded,
    }
}

pub fn run_phase(p: RunPhase) -> pb::RunPhase {
    match p {
        RunPhase::Queued => pb::RunPhase::Queued,
        RunPhase::WaitingModel => pb::RunPhase::WaitingModel,
        RunPhase::Streaming => pb::RunPhase::Streaming,
        RunPhase::ExecutingTool => pb::RunPhase::ExecutingTool,
        RunPhase::AwaitingConfirmation => pb::RunPhase::AwaitingConfirmation,
    }
}

pub fn tool_risk(r: ToolRisk) -> pb::ToolRisk {
    pb::ToolRisk {
        read_only: r.read_only,
        destructive: r.destructive,
        requires_confirmation: r.confirmation.is_some(),
        tier: r.confirmation.map_or(pb::ConfirmationTier::Unspecified, tier).into(),
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

fn chart(c: &aware_core::chart::Chart) -> pb::Chart {
    use aware_core::chart::ChartKind;
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

fn rich(r: &RichResult) -> pb::tool_result::Rich {
    match r {
        RichResult::DatasetList { datasets } => {
            pb::tool_result::Rich::DatasetList(pb::DatasetList { datasets: datasets.iter().map(dataset).collect() })
        }
        RichResult::DeletedDataset { dataset: d } => pb::tool_result::Rich::DeletedDataset(dataset(d)),
        RichResult::DatasetDetail { dataset: d, sample } => pb::tool_result::Rich::DatasetDetail(pb::DatasetDetail {
            dataset: Some(dataset(d)),
            sample: sample.as_ref().map(table),
        }),
        RichResult::Table { table: t, .. } => pb::tool_result::Rich::Table(table(t)),
        RichResult::Run { run: r, capsule } => pb::tool_result::Rich::Run(run(r, capsule)),
        RichResult::External { server_id, tool, result } => pb::tool_result::Rich::External(pb::ExternalResult {
            server_id: server_id.clone(),
            tool: tool.clone(),
            result_json: result.to_string(),
        }),
        RichResult::Statistics { statistics: s } => pb::tool_result::Rich::Statistics(statistics(s)),
        RichResult::DirectoryListing { listing: l } => pb::tool_result::Rich::DirectoryListing(listing(l)),
        RichResult::ImportReport { report } => pb::tool_result::Rich::ImportReport(import_report(report)),
        RichResult::SearchHits { results } => pb::tool_result::Rich::SearchHits(search_hits(results)),
        RichResult::Knowledge { results } => pb::tool_result::Rich::Knowledge(knowledge_hits(results)),
        RichResult::SystemStatus { status } => pb::tool_result::Rich::SystemStatus(pb::SystemStatus {
            version: status.version.clone(),
            mode: status.mode.clone(),
            model_provider: status.model_provider.clone(),
            storage: status.storage.clone(),
            dataset_count: status.dataset_count,
            dataset_bytes: status.dataset_bytes,
            search_index: status.search.clone(),
            ..Default::default()
        }),
        RichResult::DatasetChanged { change, dataset: d } => pb::tool_result::Rich::DatasetChange(pb::DatasetChange {
            change: change.clone(),
            dataset: Some(dataset(d)),
        }),
        RichResult::SavedQuery { change, query } => pb::tool_result::Rich::SavedQueryChange(pb::SavedQueryChange {
            change: change.clone(),
            query: Some(saved_query(query)),
        }),
        RichResult::Account { change, user, api_key, token } => {
            pb::tool_result::Rich::AccountChange(pb::AccountChange {
                change: change.clone(),
                user: user.as_ref().map(self::user),
                api_key: api_key.as_ref().map(self::api_key),
                token: token.clone(),
            })
        }
    }
}

/// A sequenced run event as clients see it.
pub fn event(e: &RunEvent) -> pb::ServerEvent {
    use pb::server_event::Payload as P;
    let payload = match &e.payload {
        EventPayload::RunStarted {
            user_text,
            ui_state_version,
            max_iterations,
            parent_run_id,
            model,
            client_msg_id,
            tools,
        } => P::RunStarted(pb::RunStarted {
            thread_id: e.thread_id.name().to_owned(),
            user_text: user_text.clone(),
            ui_state_version: *ui_state_version,
            max_iterations: *max_iterations,
            parent_run_id: parent_run_id.as_ref().map(ToString::to_string).unwrap_or_default(),
            model: model.clone(),
            client_msg_id: client_msg_id.clone(),
            tools: tools
                .iter()
                .map(|t| pb::ToolListing {
                    name: t.name.clone(),
                    title: t.title.clone(),
                    provenance: Some(provenance(&t.provenance)),
                })
                .collect(),
        }),
        EventPayload::TextStarted { message_id } => P::TextStarted(pb::TextStarted { message_id: message_id.clone() }),
        EventPayload::TextDelta { message_id, delta } => {
            P::TextDelta(pb::TextDelta { message_id: message_id.clone(), delta: delta.clone() })
        }
        EventPayload::TextEnded { message_id } => P::TextEnded(pb::TextEnded { message_id: message_id.clone() }),
        EventPayload::ToolCallStarted { tool_call_id, tool_name, arguments_json, risk, title, provenance: p } => {
            P::ToolCallStarted(pb::ToolCallStarted {
                tool_call_id: tool_call_id.to_string(),
                tool_name: tool_name.clone(),
                arguments_json: arguments_json.clone(),
                risk: Some(tool_risk(*risk)),
                title: title.clone(),
                provenance: Some(provenance(p)),
            })
        }
        EventPayload::ToolStatus { tool_call_id, phase, message } => P::ToolStatus(pb::ToolStatus {
            tool_call_id: tool_call_id.to_string(),
            phase: tool_phase(*phase).into(),
            message: message.clone(),
        }),
        EventPayload::ToolResult {
            tool_call_id,
            tool_name,
            is_error,
            llm_summary,
            error,
            duration_ms,
            rich: r,
            provenance: p,
        } => P::ToolResult(pb::ToolResult {
            tool_call_id: tool_call_id.to_string(),
            tool_name: tool_name.clone(),
            is_error: *is_error,
            llm_summary: llm_summary.clone(),
            error: error.as_ref().map(run_error),
            duration_ms: *duration_ms,
            executed_sql: match r {
                Some(RichResult::Table { executed_sql, .. }) => executed_sql.clone(),
                _ => String::new(),
            },
            chart: match r {
                Some(RichResult::Table { table, .. }) => aware_core::chart::chart_for(table).map(|c| chart(&c)),
                _ => None,
            },
            rich: r.as_ref().map(rich),
            provenance: Some(provenance(p)),
        }),
        EventPayload::ToolDenied { tool_call_id, tool_name, reason, code, provenance: p } => {
            P::ToolDenied(pb::ToolDenied {
                tool_call_id: tool_call_id.to_string(),
                tool_name: tool_name.clone(),
                reason: reason.clone(),
                code: code.clone(),
                provenance: Some(provenance(p)),
            })
        }
        EventPayload::ConfirmationRequired {
            confirmation_id,
            tool_call_id,
            tool_name,
            resource,
            description,
            tier: t,
            expires_at,
            arguments_json,
            resolved_arguments_json,
            grantable,
            blast_radius,
        } => P::ConfirmationRequired(pb::ConfirmationRequired {
            confirmation_id: confirmation_id.to_string(),
            tool_call_id: tool_call_id.to_string(),
            tool_name: tool_name.clone(),
            resource: Some(resource_ref(resource)),
            description: description.clone(),
            tier: tier(*t).into(),
            expires_at: Some(timestamp(*expires_at)),
            arguments_json: arguments_json.clone(),
            resolved_arguments_json: resolved_arguments_json.clone(),
            grantable: *grantable,
            blast_radius: blast_radius.as_ref().map(|b| pb::BlastRadius {
                version_hash: b.version_hash.clone(),
                row_count: b.row_count,
                size_bytes: b.size_bytes,
                saved_queries: b.saved_queries.clone(),
                derived_datasets: b.derived_datasets.iter().map(resource_ref).collect(),
            }),
        }),
        EventPayload::ConfirmationResolved {
            confirmation_id,
            tool_call_id,
            resolution: r,
            grant_id,
            edited_arguments_json,
        } => P::ConfirmationResolved(pb::ConfirmationResolved {
            confirmation_id: confirmation_id.to_string(),
            tool_call_id: tool_call_id.to_string(),
            resolution: resolution(*r).into(),
            grant_id: grant_id.as_ref().map(ToString::to_string).unwrap_or_default(),
            edited_arguments_json: edited_arguments_json.clone(),
        }),
        EventPayload::ClarificationRequired { clarification_id, tool_call_id, question: q, expires_at } => {
            use aware_core::runs::clarify::ClarificationKind;
            P::ClarificationRequired(pb::ClarificationRequired {
                clarification_id: clarification_id.to_string(),
                tool_call_id: tool_call_id.to_string(),
                kind: match q.kind {
                    ClarificationKind::Column => pb::ClarificationKind::Column,
                    ClarificationKind::Value => pb::ClarificationKind::Value,
                    ClarificationKind::TimeRange => pb::ClarificationKind::TimeRange,
                }
                .into(),
                question: q.question.clone(),
                phrase: q.phrase.clone(),
                dataset: Some(resource_ref(&q.dataset)),
                options: q
                    .options
                    .iter()
                    .map(|o| pb::ClarificationOption {
                        value: o.value.clone(),
                        label: o.label.clone(),
                        sql_type: o.sql_type.clone(),
                        null_share: o.null_share,
                        min: o.min.clone(),
                        max: o.max.clone(),
                        count: o.count,
                    })
                    .collect(),
                expires_at: Some(timestamp(*expires_at)),
            })
        }
        EventPayload::ClarificationResolved { clarification_id, tool_call_id, resolution: r, choice, remembered } => {
            P::ClarificationResolved(pb::ClarificationResolved {
                clarification_id: clarification_id.to_string(),
                tool_call_id: tool_call_id.to_string(),
                resolution: resolution(*r).into(),
                choice: choice.clone(),
                remembered: *remembered,
            })
        }
        EventPayload::MemorySaved { memory_id, text } => {
            P::MemorySaved(pb::MemorySaved { memory_id: memory_id.to_string(), text: text.clone() })
        }
        EventPayload::Grounding { numbers, citations } => P::Grounding(pb::Grounding {
            numbers: grounded_numbers(numbers),
            ungrounded: numbers.iter().filter(|n| n.source.is_none()).count() as u32,
            citations: citations.as_ref().map(citation_check),
        }),
        EventPayload::RetrievalCompleted { tool_call_id, query, chunk_ids } => {
            P::RetrievalCompleted(pb::RetrievalCompleted {
                tool_call_id: tool_call_id.to_string(),
                query: query.clone(),
                chunk_ids: chunk_ids.clone(),
            })
        }
        EventPayload::MemoryForgotten { memory_id, text } => {
            P::MemoryForgotten(pb::MemoryForgotten { memory_id: memory_id.to_string(), text: text.clone() })
        }
        EventPayload::RoutingDecided { intent, confidence, risk, tools, withheld_tools } => {
            P::RoutingDecided(pb::RoutingDecided {
                intent: intent.clone(),
                confidence: *confidence,
                risk: risk.clone(),
                tools: tools.clone(),
                withheld_tools: withheld_tools.clone(),
            })
        }
        EventPayload::RunCompleted { status, error, usage: u, final_text, follow_ups, .. } => {
            P::RunCompleted(pb::RunCompleted {
                status: run_status(*status).into(),
                error: error.as_ref().map(run_error),
                usage: Some(usage(u)),
                final_text: final_text.clone(),
                outcome: e.outcome().map(run_outcome).unwrap_or_default().into(),
                follow_ups: follow_ups.clone(),
            })
        }
    };
    pb::ServerEvent {
        run_id: e.run_id.to_string(),
        seq: e.seq,
        time: Some(timestamp(e.time)),
        iteration: e.iteration,
        thread_id: e.thread_id.name().to_owned(),
        payload: Some(payload),
    }
}

/// A span of a run's trace.
pub fn span(s: &SpanRecord) -> pb::Span {
    pb::Span {
        span_id: s.span_id.clone(),
        parent_span_id: s.parent_span_id.clone().unwrap_or_default(),
        kind: s.kind.clone(),
        name: s.name.clone(),
        start_time: Some(timestamp(s.start)),
        end_time: Some(timestamp(s.end)),
        duration_ms: u64::try_from((s.end - s.start).num_milliseconds()).unwrap_or(0),
        attributes: s
            .attributes
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
            .collect(),
    }
}

/// The run a request names on the Chat service: a malformed id names no run of the caller's.
pub fn run_id_in(raw: &str) -> Result<aware_core::ids::RunId, aware_core::Error> {
    aware_core::ids::RunId::parse(raw).ok_or_else(|| {
        let said = aware_core::ids::bad_id(raw, "run", aware_core::ids::RunId::PREFIX);
        aware_core::Error::new(aware_core::ErrorCode::UnknownRun, said)
    })
}

/// The dataset a request names.
pub fn dataset_id_in(raw: &str) -> Result<aware_core::ids::DatasetId, aware_core::Error> {
    aware_core::ids::DatasetId::parse_field(raw, "dataset_id")
}

/// The confirmation a person answers.
pub fn confirmation_id_in(raw: &str) -> Result<aware_core::ids::ConfirmationId, aware_core::Error> {
    aware_core::ids::ConfirmationId::parse_field(raw, "confirmation_id")
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
pub fn grounded_numbers(numbers: &[aware_core::runs::grounding::NumberClaim]) -> Vec<pb::GroundedNumber> {
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

fn resource_ref(r: &ResourceRef) -> pb::ResourceRef {
    pb::ResourceRef { r#type: r.kind.clone(), id: r.id.clone(), display_name: r.display_name.clone() }
}

/// A confirmation waiting for a person (`ListPendingConfirmations`).
pub(crate) fn pending_confirmation(c: &Confirmation, grantable: bool) -> pb::PendingConfirmation {
    pb::PendingConfirmation {
        confirmation_id: c.id.to_string(),
        run_id: c.run_id.to_string(),
        tool_call_id: c.tool_call_id.to_string(),
        tool_name: c.tool_name.clone(),
        resource: Some(resource_ref(&c.resource)),
        description: c.description.clone(),
        tier: tier(c.tier).into(),
        created_at: Some(timestamp(c.created_at)),
        expires_at: Some(timestamp(c.expires_at)),
        grantable,
    }
}

/// Where a tool comes from.
pub(crate) fn provenance(p: &Provenance) -> pb::ToolProvenance {
    pb::ToolProvenance { source: p.source.as_str().to_owned(), server_id: p.server_id.clone(), scope: p.scope.clone() }
}

// ---------------------------------------------------------------------------------------------
// Accounts

fn role_out(r: Role) -> pb::UserRole {
    match r {
        Role::Viewer => pb::UserRole::Viewer,
        Role::Analyst => pb::UserRole::Analyst,
        Role::Admin => pb::UserRole::Admin,
    }
}

/// A role a request names; `None` when it names none.
pub(crate) fn role_in(raw: i32) -> Result<Option<Role>> {
    match pb::UserRole::try_from(raw) {
        Ok(pb::UserRole::Unspecified) => Ok(None),
        Ok(pb::UserRole::Viewer) => Ok(Some(Role::Viewer)),
        Ok(pb::UserRole::Analyst) => Ok(Some(Role::Analyst)),
        Ok(pb::UserRole::Admin) => Ok(Some(Role::Admin)),
        Err(_) => Err(Error::validation("role", "role is USER_ROLE_VIEWER, USER_ROLE_ANALYST or USER_ROLE_ADMIN")),
    }
}

/// A user as clients see it (also inside the assistant's account results).
pub(crate) fn user(u: &User) -> pb::User {
    pb::User {
        user_id: u.id.to_string(),
        name: u.name.clone(),
        role: role_out(u.role).into(),
        created_at: Some(timestamp(u.created_at)),
        deactivated_at: u.deactivated_at.map(timestamp),
    }
}

/// A key as clients see it: never the token.
pub(crate) fn api_key(k: &ApiKey) -> pb::ApiKey {
    pb::ApiKey {
        key_id: k.id.to_string(),
        user_id: k.user.to_string(),
        prefix: k.prefix.clone(),
        created_at: Some(timestamp(k.created_at)),
        expires_at: k.expires_at.map(timestamp),
        revoked_at: k.revoked_at.map(timestamp),
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
