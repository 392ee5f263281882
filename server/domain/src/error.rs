//! The error taxonomy, shared by every layer. The gRPC layer maps each [`ErrorCode`] to exactly one
//! status code (an exhaustive match) and sends the code as `google.rpc.ErrorInfo.reason`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Machine-readable error codes; mirrors `aware.v1.ErrorCode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    ValidationError,
    SqlPolicyViolation,
    RunnerTimeout,
    RunnerResourceExceeded,
    RunnerInternalError,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    ConfirmationExpired,
    RunBusy,
    UnknownRun,
    TokenExpired,
    AlreadyResolved,
    NotAuthorized,
    BadRequest,
    CursorAhead,
    ResourceExhausted,
    IngestError,
    ModelError,
    Cancelled,
    AlreadyExists,
    Unimplemented,
    Internal,
    PathRefused,
    NotReady,
    StorageUnavailable,
    /// An external MCP server's tool failed, timed out, or its server is not running.
    ExternalToolFailed,
    /// The resource changed between a confirmation's request and its approval; nothing was done.
    ResourceChanged,
    /// A query would read more rows than the server runs without asking; it was not run.
    CostConfirmationRequired,
}

impl ErrorCode {
    /// The stable name used as `ErrorInfo.reason`, e.g. `SQL_POLICY_VIOLATION`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ValidationError => "VALIDATION_ERROR",
            Self::SqlPolicyViolation => "SQL_POLICY_VIOLATION",
            Self::RunnerTimeout => "RUNNER_TIMEOUT",
            Self::RunnerResourceExceeded => "RUNNER_RESOURCE_EXCEEDED",
            Self::RunnerInternalError => "RUNNER_INTERNAL_ERROR",
            Self::NotFound => "NOT_FOUND",
            Self::PermissionDenied => "PERMISSION_DENIED",
            Self::Unauthenticated => "UNAUTHENTICATED",
            Self::ConfirmationExpired => "CONFIRMATION_EXPIRED",
            Self::RunBusy => "RUN_BUSY",
            Self::UnknownRun => "UNKNOWN_RUN",
            Self::TokenExpired => "TOKEN_EXPIRED",
            Self::AlreadyResolved => "ALREADY_RESOLVED",
            Self::NotAuthorized => "NOT_AUTHORIZED",
            Self::BadRequest => "BAD_REQUEST",
            Self::CursorAhead => "CURSOR_AHEAD",
            Self::ResourceExhausted => "RESOURCE_EXHAUSTED",
            Self::IngestError => "INGEST_ERROR",
            Self::ModelError => "MODEL_ERROR",
            Self::Cancelled => "CANCELLED",
            Self::AlreadyExists => "ALREADY_EXISTS",
            Self::Unimplemented => "UNIMPLEMENTED",
            Self::Internal => "INTERNAL",
            Self::PathRefused => "PATH_REFUSED",
            Self::NotReady => "NOT_READY",
            Self::StorageUnavailable => "STORAGE_UNAVAILABLE",
            Self::ExternalToolFailed => "EXTERNAL_TOOL_FAILED",
            Self::ResourceChanged => "RESOURCE_CHANGED",
            Self::CostConfirmationRequired => "COST_CONFIRMATION_REQUIRED",
        }
    }

    /// Whether repeating the request later may succeed.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            Self::RunnerTimeout
                | Self::RunnerInternalError
                | Self::RunBusy
                | Self::ResourceExhausted
                | Self::ModelError
                | Self::Internal
                | Self::StorageUnavailable
                | Self::ExternalToolFailed
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error a caller can act on. `message` is safe to show to a person; `internal` carries the
/// details for the server log only and is never sent to a client.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    /// The request field at fault, e.g. `dataset_id`.
    pub field: Option<String>,
    pub internal: Option<String>,
    /// When to try again, for a limit that will lift (sent as `google.rpc.RetryInfo`).
    pub retry_after: Option<std::time::Duration>,
    /// Facts a program acts on (sent as `google.rpc.ErrorInfo` metadata), e.g. a query's
    /// estimated rows.
    pub metadata: Vec<(&'static str, String)>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), field: None, internal: None, retry_after: None, metadata: Vec::new() }
    }

    /// A request field is missing or malformed.
    pub fn validation(field: &str, message: impl Into<String>) -> Self {
        Self { field: Some(field.to_owned()), ..Self::new(ErrorCode::ValidationError, message) }
    }

    /// `what` with `id` does not exist for this caller (or belongs to someone else: the two are
    /// never distinguished).
    pub fn not_found(what: &str, id: impl fmt::Display) -> Self {
        Self::new(ErrorCode::NotFound, format!("{what} {id} was not found"))
    }

    pub fn permission_denied(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PermissionDenied, message)
    }

    pub fn unauthenticated(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unauthenticated, message)
    }

    /// What a person approved no longer describes the resource (its content or name changed
    /// since the confirmation was asked); nothing was done.
    pub fn resource_changed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ResourceChanged, message)
    }

    pub fn resource_exhausted(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ResourceExhausted, message)
    }

    pub fn unimplemented(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unimplemented, message)
    }

    /// An unexpected failure: the client sees a generic message, the log sees `detail`.
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self {
            internal: Some(detail.to_string()),
            ..Self::new(ErrorCode::Internal, "internal error; the server log has details")
        }
    }

    /// The data directory's disk is full: the write failed and nothing was saved.
    pub fn disk_full(detail: impl fmt::Display) -> Self {
        Self {
            internal: Some(detail.to_string()),
            ..Self::new(
                ErrorCode::ResourceExhausted,
                "the server's disk is full (no space left in its data directory); nothing was saved — retry once space is freed",
            )
        }
    }

    /// The data directory cannot be written (mounted read-only): nothing was saved.
    pub fn read_only(detail: impl fmt::Display) -> Self {
        Self {
            internal: Some(detail.to_string()),
            ..Self::new(
                ErrorCode::StorageUnavailable,
                "the server's data directory is read-only; nothing was saved (reading still works) — retry once it is writable",
            )
        }
    }

    pub fn with_retry_after(mut self, after: std::time::Duration) -> Self {
        self.retry_after = Some(after);
        self
    }

    pub fn with_field(mut self, field: &str) -> Self {
        self.field = Some(field.to_owned());
        self
    }

    pub fn retryable(&self) -> bool {
        self.code.retryable()
    }
}

impl From<std::io::Error> for Error {
    #[expect(clippy::wildcard_enum_match_arm, reason = "io::ErrorKind is non-exhaustive: the rest is internal")]
    fn from(e: std::io::Error) -> Self {
        use std::io::ErrorKind;
        match e.kind() {
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => Self::disk_full(format!("i/o: {e}")),
            ErrorKind::ReadOnlyFilesystem => Self::read_only(format!("i/o: {e}")),
            _ => Self::internal(format!("i/o: {e}")),
        }
    }
}
