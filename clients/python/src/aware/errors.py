"""aware's errors as Python exceptions.

The server answers a failed call with a gRPC status whose details hold a ``google.rpc.ErrorInfo``
(domain ``aware.v1``) naming aware's error code — ``SQL_POLICY_VIOLATION``, ``NOT_FOUND``, … — plus,
where they apply, a ``BadRequest`` naming the field at fault and a ``RetryInfo`` saying when to
try again. Each code has its own exception class here, so callers branch on the class (or on
``err.code``), never on message text. The same classes are raised for failures that arrive
in-band: a run that ends FAILED (its ``RunCompleted.error``) and a stream's ``Rejected`` answer.

A status without aware's ErrorInfo is a failure of the connection or of gRPC itself (the server
unreachable, a deadline the caller set): :class:`Unavailable`, :class:`DeadlineExceeded`, or the
base :class:`AwareError` with ``code`` ``None``.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

import grpc

from google.rpc import error_details_pb2, status_pb2  # googleapis-common-protos

from .v1 import common_pb2

__all__ = [
    "AwareError",
    "ValidationError",
    "SqlPolicyViolation",
    "RunnerTimeout",
    "RunnerResourceExceeded",
    "RunnerInternalError",
    "NotFound",
    "PermissionDenied",
    "Unauthenticated",
    "ConfirmationExpired",
    "RunBusy",
    "UnknownRun",
    "TokenExpired",
    "AlreadyResolved",
    "NotAuthorized",
    "BadRequest",
    "CursorAhead",
    "ResourceExhausted",
    "IngestError",
    "ModelError",
    "Cancelled",
    "AlreadyExists",
    "Unimplemented",
    "InternalError",
    "PathRefused",
    "NotReady",
    "StorageUnavailable",
    "ExternalToolFailed",
    "ResourceChanged",
    "CostConfirmationRequired",
    "Unavailable",
    "DeadlineExceeded",
    "DataConversionError",
    "error_class",
]

ERROR_DOMAIN = "aware.v1"
_DETAILS_KEY = "grpc-status-details-bin"


class AwareError(Exception):
    """A call to aware failed, or a run ended in failure.

    Attributes:
        code: aware's error code without its prefix (``"SQL_POLICY_VIOLATION"``), or ``None`` for a
            failure that did not come from aware (the connection, a client-side deadline).
        message: the server's message, safe to show to a person.
        grpc_code: the gRPC status code, when the failure was a failed call.
        retryable: whether the same request may succeed later (the server's word).
        field: the request field at fault, when there is one.
        retry_after: seconds the server asks to wait before retrying, when it said.
        run_id: the run the failure belongs to, for a run that ended in failure.
    """

    def __init__(
        self,
        message: str,
        *,
        code: Optional[str] = None,
        grpc_code: Optional[grpc.StatusCode] = None,
        retryable: bool = False,
        field: str = "",
        retry_after: Optional[float] = None,
        run_id: str = "",
        metadata: Optional[Dict[str, str]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.grpc_code = grpc_code
        self.retryable = retryable
        self.field = field
        self.retry_after = retry_after
        self.run_id = run_id
        #: Facts the server attached for programs (``ErrorInfo`` metadata), e.g. a query's estimate.
        self.metadata: Dict[str, str] = dict(metadata or {})

    def __str__(self) -> str:
        where = f" (field {self.field})" if self.field else ""
        code = self.code or (self.grpc_code.name if self.grpc_code is not None else "ERROR")
        return f"{code}: {self.message}{where}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r})"


class ValidationError(AwareError):
    """A request field is missing or malformed (``field`` names it)."""


class SqlPolicyViolation(AwareError):
    """The SQL was refused by the sandbox policy; the message names the rule."""


class RunnerTimeout(AwareError):
    """The query ran out of time and was interrupted."""


class RunnerResourceExceeded(AwareError):
    """The query hit a memory, row or byte limit."""


class RunnerInternalError(AwareError):
    """The sandbox worker failed; the query may be retried."""


class NotFound(AwareError):
    """The thing does not exist, or belongs to someone else."""


class PermissionDenied(AwareError):
    """The caller is known but their role does not allow this."""


class Unauthenticated(AwareError):
    """No credentials, or credentials that are unknown or revoked."""


class ConfirmationExpired(AwareError):
    """A confirmation was answered after its expiry."""


class RunBusy(AwareError):
    """The thread already has an active run and ``on_busy`` is REJECT."""


class UnknownRun(NotFound):
    """The run id is unknown to this caller."""


class TokenExpired(ConfirmationExpired):
    """A confirmation token or id is expired."""


class AlreadyResolved(AwareError):
    """The confirmation was already resolved with a different decision."""


class NotAuthorized(PermissionDenied):
    """The caller may not act on this run or confirmation."""


class BadRequest(AwareError):
    """One client message could not be understood."""


class CursorAhead(AwareError):
    """A resume cursor is beyond the end of the run's log."""


class ResourceExhausted(AwareError):
    """A size, rate or concurrency limit was hit (``retry_after`` says when to retry, if known)."""


class IngestError(AwareError):
    """A dataset file could not be ingested: empty, ragged, bad encoding, unsupported."""


class ModelError(AwareError):
    """The language model provider failed or returned something unusable."""


class Cancelled(AwareError):
    """The operation (or the run) was cancelled."""


class AlreadyExists(AwareError):
    """The thing already exists."""


class Unimplemented(AwareError):
    """The feature is not available in this deployment."""


class InternalError(AwareError):
    """An unexpected server failure; details are in the server's log, never sent."""


class PathRefused(PermissionDenied):
    """A file path was refused by the file jail."""


class NotReady(AwareError):
    """The thing exists but is not in a state that allows this (e.g. a dataset still PROCESSING)."""


class StorageUnavailable(AwareError):
    """The server's data directory cannot be written; reads still work."""


class ExternalToolFailed(AwareError):
    """An external MCP server's tool failed, timed out, or its server is not running."""


class ResourceChanged(AwareError):
    """What a person approved no longer matches the resource; nothing was done."""


class CostConfirmationRequired(AwareError):
    """The query would read more rows than the server runs without asking; nothing ran.

    ``estimated_rows`` and ``estimated_bytes`` are the server's estimate; send the query again with
    ``run_heavy=True`` to run it.
    """

    @property
    def estimated_rows(self) -> int:
        return int(self.metadata.get("estimated_rows", "0"))

    @property
    def estimated_bytes(self) -> int:
        return int(self.metadata.get("estimated_bytes", "0"))


class Unavailable(AwareError):
    """The server could not be reached, or the connection broke (no aware error code)."""


class DeadlineExceeded(AwareError):
    """The call took longer than the deadline the caller gave it (no aware error code)."""


class DataConversionError(AwareError, ValueError):
    """A cell could not be converted exactly to the type asked for; it is never rounded or guessed."""

    def __str__(self) -> str:
        return self.message


_BY_CODE: Dict[str, Type[AwareError]] = {
    "VALIDATION_ERROR": ValidationError,
    "SQL_POLICY_VIOLATION": SqlPolicyViolation,
    "RUNNER_TIMEOUT": RunnerTimeout,
    "RUNNER_RESOURCE_EXCEEDED": RunnerResourceExceeded,
    "RUNNER_INTERNAL_ERROR": RunnerInternalError,
    "NOT_FOUND": NotFound,
    "PERMISSION_DENIED": PermissionDenied,
    "UNAUTHENTICATED": Unauthenticated,
    "CONFIRMATION_EXPIRED": ConfirmationExpired,
    "RUN_BUSY": RunBusy,
    "UNKNOWN_RUN": UnknownRun,
    "TOKEN_EXPIRED": TokenExpired,
    "ALREADY_RESOLVED": AlreadyResolved,
    "NOT_AUTHORIZED": NotAuthorized,
    "BAD_REQUEST": BadRequest,
    "CURSOR_AHEAD": CursorAhead,
    "RESOURCE_EXHAUSTED": ResourceExhausted,
    "INGEST_ERROR": IngestError,
    "MODEL_ERROR": ModelError,
    "CANCELLED": Cancelled,
    "ALREADY_EXISTS": AlreadyExists,
    "UNIMPLEMENTED": Unimplemented,
    "INTERNAL": InternalError,
    "PATH_REFUSED": PathRefused,
    "NOT_READY": NotReady,
    "STORAGE_UNAVAILABLE": StorageUnavailable,
    "EXTERNAL_TOOL_FAILED": ExternalToolFailed,
    "RESOURCE_CHANGED": ResourceChanged,
    "COST_CONFIRMATION_REQUIRED": CostConfirmationRequired,
}

# A status that carries no aware code: what gRPC itself (or the network) said.
_BY_GRPC_CODE: Dict[grpc.StatusCode, Type[AwareError]] = {
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
    grpc.StatusCode.CANCELLED: Cancelled,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.UNIMPLEMENTED: Unimplemented,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
}


def error_class(code: Optional[str]) -> Type[AwareError]:
    """The exception class of an aware error code (``"NOT_FOUND"`` or ``"ERROR_CODE_NOT_FOUND"``)."""
    if not code:
        return AwareError
    return _BY_CODE.get(code.removeprefix("ERROR_CODE_"), AwareError)


def code_name(code: int) -> str:
    """An ``ErrorCode`` enum number as its short name (``2`` → ``"SQL_POLICY_VIOLATION"``)."""
    try:
        return common_pb2.ErrorCode.Name(code).removeprefix("ERROR_CODE_")
    except ValueError:  # a code newer than these stubs
        return f"ERROR_CODE_{code}"


def from_error_message(err: Any, *, run_id: str = "") -> AwareError:
    """The exception for an in-band ``aware.v1.Error`` (e.g. ``RunCompleted.error``)."""
    code = code_name(err.code)
    return error_class(code)(
        err.message or code, code=code, retryable=err.retryable, field=err.field, run_id=run_id
    )


def from_rejected(rejected: Any, *, run_id: str = "") -> AwareError:
    """The exception for a stream's in-band ``Rejected`` answer."""
    code = code_name(rejected.code)
    return error_class(code)(rejected.message or code, code=code, run_id=run_id)


def _metadata_value(metadata: Any, key: str) -> Optional[bytes]:
    for item in metadata or ():
        k, v = (item.key, item.value) if hasattr(item, "key") else item
        if k == key:
            return v if isinstance(v, bytes) else v.encode()
    return None


def from_rpc_error(error: grpc.RpcError) -> AwareError:
    """The exception for a failed gRPC call, with the details the server attached."""
    grpc_code: Optional[grpc.StatusCode] = getattr(error, "code", lambda: None)()
    message: str = getattr(error, "details", lambda: "")() or ""
    try:
        trailers = error.trailing_metadata()
    except Exception:  # a call that failed before it had trailers
        trailers = None
    code: Optional[str] = None
    retryable = False
    metadata: Dict[str, str] = {}
    field = ""
    retry_after: Optional[float] = None
    raw = _metadata_value(trailers, _DETAILS_KEY)
    if raw:
        status = status_pb2.Status()
        try:
            status.ParseFromString(raw)
        except Exception:  # details we cannot read: keep the status code and message
            status = status_pb2.Status()
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                if info.domain == ERROR_DOMAIN:
                    code = info.reason
                    retryable = info.metadata.get("retryable") == "true"
                    metadata = {k: v for k, v in info.metadata.items() if k != "retryable"}
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                if bad.field_violations:
                    field = bad.field_violations[0].field
            elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                info_retry = error_details_pb2.RetryInfo()
                detail.Unpack(info_retry)
                delay = info_retry.retry_delay
                retry_after = delay.seconds + delay.nanos / 1e9
    if code is not None:
        cls = error_class(code)
    else:
        cls = _BY_GRPC_CODE.get(grpc_code, AwareError) if grpc_code is not None else AwareError
        retryable = grpc_code == grpc.StatusCode.UNAVAILABLE
    return cls(
        message or (grpc_code.name if grpc_code is not None else "the call failed"),
        code=code,
        grpc_code=grpc_code,
        retryable=retryable,
        field=field,
        retry_after=retry_after,
        metadata=metadata,
    )


def is_transport_failure(err: AwareError) -> bool:
    """Whether the failure was the connection's (no aware code): the request may not have arrived."""
    return err.code is None and err.grpc_code == grpc.StatusCode.UNAVAILABLE
