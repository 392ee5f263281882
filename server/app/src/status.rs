//! The one mapping from the domain error to `tonic::Status`: a gRPC code per [`ErrorCode`]
//! (exhaustive, no catch-all), the code itself as `google.rpc.ErrorInfo` (domain `aware.v1`), the
//! faulty field as a `BadRequest` violation, and a message safe for people. Internal details are
//! logged here and never sent.

use aware_core::{Error, ErrorCode};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// The ErrorInfo domain of every aware error.
pub const ERROR_DOMAIN: &str = "aware.v1";

pub fn grpc_code(code: ErrorCode) -> Code {
    match code {
        ErrorCode::ValidationError | ErrorCode::SqlPolicyViolation | ErrorCode::BadRequest | ErrorCode::IngestError => {
            Code::InvalidArgument
        }
        ErrorCode::RunnerTimeout => Code::DeadlineExceeded,
        ErrorCode::RunnerResourceExceeded | ErrorCode::ResourceExhausted => Code::ResourceExhausted,
        ErrorCode::RunnerInternalError | ErrorCode::Internal => Code::Internal,
        ErrorCode::NotFound | ErrorCode::UnknownRun => Code::NotFound,
        ErrorCode::PermissionDenied | ErrorCode::NotAuthorized | ErrorCode::PathRefused => Code::PermissionDenied,
        ErrorCode::Unauthenticated => Code::Unauthenticated,
        ErrorCode::ConfirmationExpired
        | ErrorCode::TokenExpired
        | ErrorCode::AlreadyResolved
        | ErrorCode::NotReady
        | ErrorCode::ResourceChanged
        | ErrorCode::CostConfirmationRequired => Code::FailedPrecondition,
        ErrorCode::RunBusy => Code::Aborted,
        ErrorCode::CursorAhead => Code::OutOfRange,
        ErrorCode::ModelError | ErrorCode::StorageUnavailable | ErrorCode::ExternalToolFailed => Code::Unavailable,
        ErrorCode::Cancelled => Code::Cancelled,
        ErrorCode::AlreadyExists => Code::AlreadyExists,
        ErrorCode::Unimplemented => Code::Unimplemented,
    }
}

/// The code of an in-band `Rejected` answer on the Chat stream, which stays open: a field error
/// is a BAD_REQUEST there (the message names the field).
pub fn rejection_code(code: ErrorCode) -> aware_proto::v1::ErrorCode {
    crate::convert::error_code(if code == ErrorCode::ValidationError { ErrorCode::BadRequest } else { code })
}

/// Converts a domain error into the status sent to the client, logging it on the way.
pub fn to_status(e: Error) -> Status {
    let code = grpc_code(e.code);
    if matches!(code, Code::Internal | Code::Unavailable) {
        tracing::error!(code = %e.code, message = %e.message, internal = ?e.internal, "request failed");
    } else {
        tracing::info!(code = %e.code, message = %e.message, field = ?e.field, "request refused");
    }
    let metadata = e.metadata.iter().map(|(k, v)| ((*k).to_owned(), v.clone()));
    let mut details = ErrorDetails::with_error_info(
        e.code.as_str(),
        ERROR_DOMAIN,
        std::iter::once(("retryable".to_owned(), e.retryable().to_string()))
            .chain(metadata)
            .collect::<std::collections::HashMap<_, _>>(),
    );
    if let Some(field) = &e.field {
        details.add_bad_request_violation(field.clone(), e.message.clone());
    }
    if let Some(after) = e.retry_after {
        details.set_retry_info(Some(after));
    }
    Status::with_error_details(code, e.message, details)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_carry_the_code_the_field_and_no_internals() {
        let status = to_status(Error::validation("dataset_id", "a dataset id is required"));
        assert_eq!(status.code(), Code::InvalidArgument);
        let details = status.get_error_details();
        assert_eq!(details.error_info().unwrap().reason, "VALIDATION_ERROR");
        assert_eq!(details.error_info().unwrap().domain, "aware.v1");
        assert_eq!(details.bad_request().unwrap().field_violations[0].field, "dataset_id");

        let status = to_status(Error::internal("sqlite file /secret/path is locked"));
        assert_eq!(status.code(), Code::Internal);
        assert!(!status.message().contains("/secret"), "{}", status.message());
        assert_eq!(status.get_error_details().error_info().unwrap().metadata["retryable"], "true");
    }
}
