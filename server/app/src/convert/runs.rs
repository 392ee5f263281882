//! Runs: status, outcome, errors, usage, the run and its capsule, feedback, confirmation answers, grants, spans.

use super::*;

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

pub(super) fn knowledge_hits(r: &KnowledgeResults) -> pb::KnowledgeHits {
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

pub(super) fn rating(r: Rating) -> pb::FeedbackRating {
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
