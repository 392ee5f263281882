import datetime

from aware.v1 import common_pb2 as _common_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ToolPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_PHASE_UNSPECIFIED: _ClassVar[ToolPhase]
    TOOL_PHASE_QUEUED: _ClassVar[ToolPhase]
    TOOL_PHASE_AWAITING_CONFIRMATION: _ClassVar[ToolPhase]
    TOOL_PHASE_RUNNING: _ClassVar[ToolPhase]
    TOOL_PHASE_SUCCEEDED: _ClassVar[ToolPhase]
    TOOL_PHASE_FAILED: _ClassVar[ToolPhase]
    TOOL_PHASE_DENIED: _ClassVar[ToolPhase]
    TOOL_PHASE_EXPIRED: _ClassVar[ToolPhase]
    TOOL_PHASE_CANCELLED: _ClassVar[ToolPhase]

class RunStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_STATUS_UNSPECIFIED: _ClassVar[RunStatus]
    RUN_STATUS_QUEUED: _ClassVar[RunStatus]
    RUN_STATUS_RUNNING: _ClassVar[RunStatus]
    RUN_STATUS_AWAITING_CONFIRMATION: _ClassVar[RunStatus]
    RUN_STATUS_SUCCEEDED: _ClassVar[RunStatus]
    RUN_STATUS_FAILED: _ClassVar[RunStatus]
    RUN_STATUS_CANCELLED: _ClassVar[RunStatus]
    RUN_STATUS_MAX_ITERATIONS: _ClassVar[RunStatus]

class RunOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_OUTCOME_UNSPECIFIED: _ClassVar[RunOutcome]
    RUN_OUTCOME_ANSWERED: _ClassVar[RunOutcome]
    RUN_OUTCOME_ASKED_BACK: _ClassVar[RunOutcome]
    RUN_OUTCOME_NOT_UNDERSTOOD: _ClassVar[RunOutcome]
    RUN_OUTCOME_DENIED: _ClassVar[RunOutcome]
    RUN_OUTCOME_EXPIRED: _ClassVar[RunOutcome]
    RUN_OUTCOME_CANCELLED: _ClassVar[RunOutcome]
    RUN_OUTCOME_FAILED: _ClassVar[RunOutcome]

class RunKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_KIND_UNSPECIFIED: _ClassVar[RunKind]
    RUN_KIND_CHAT: _ClassVar[RunKind]
    RUN_KIND_SQL: _ClassVar[RunKind]
    RUN_KIND_QUERY_PLAN: _ClassVar[RunKind]
    RUN_KIND_TOOL: _ClassVar[RunKind]

class QueryMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    QUERY_MODE_UNSPECIFIED: _ClassVar[QueryMode]
    QUERY_MODE_NONE: _ClassVar[QueryMode]
    QUERY_MODE_PLAN: _ClassVar[QueryMode]
    QUERY_MODE_SQL: _ClassVar[QueryMode]

class FeedbackRating(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FEEDBACK_RATING_UNSPECIFIED: _ClassVar[FeedbackRating]
    FEEDBACK_RATING_UP: _ClassVar[FeedbackRating]
    FEEDBACK_RATING_DOWN: _ClassVar[FeedbackRating]

class CitationStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CITATION_STATUS_UNSPECIFIED: _ClassVar[CitationStatus]
    CITATION_STATUS_CITED: _ClassVar[CitationStatus]
    CITATION_STATUS_MISSING_CITATIONS: _ClassVar[CitationStatus]
    CITATION_STATUS_INVALID_CITATION: _ClassVar[CitationStatus]
    CITATION_STATUS_NO_EVIDENCE: _ClassVar[CitationStatus]
TOOL_PHASE_UNSPECIFIED: ToolPhase
TOOL_PHASE_QUEUED: ToolPhase
TOOL_PHASE_AWAITING_CONFIRMATION: ToolPhase
TOOL_PHASE_RUNNING: ToolPhase
TOOL_PHASE_SUCCEEDED: ToolPhase
TOOL_PHASE_FAILED: ToolPhase
TOOL_PHASE_DENIED: ToolPhase
TOOL_PHASE_EXPIRED: ToolPhase
TOOL_PHASE_CANCELLED: ToolPhase
RUN_STATUS_UNSPECIFIED: RunStatus
RUN_STATUS_QUEUED: RunStatus
RUN_STATUS_RUNNING: RunStatus
RUN_STATUS_AWAITING_CONFIRMATION: RunStatus
RUN_STATUS_SUCCEEDED: RunStatus
RUN_STATUS_FAILED: RunStatus
RUN_STATUS_CANCELLED: RunStatus
RUN_STATUS_MAX_ITERATIONS: RunStatus
RUN_OUTCOME_UNSPECIFIED: RunOutcome
RUN_OUTCOME_ANSWERED: RunOutcome
RUN_OUTCOME_ASKED_BACK: RunOutcome
RUN_OUTCOME_NOT_UNDERSTOOD: RunOutcome
RUN_OUTCOME_DENIED: RunOutcome
RUN_OUTCOME_EXPIRED: RunOutcome
RUN_OUTCOME_CANCELLED: RunOutcome
RUN_OUTCOME_FAILED: RunOutcome
RUN_KIND_UNSPECIFIED: RunKind
RUN_KIND_CHAT: RunKind
RUN_KIND_SQL: RunKind
RUN_KIND_QUERY_PLAN: RunKind
RUN_KIND_TOOL: RunKind
QUERY_MODE_UNSPECIFIED: QueryMode
QUERY_MODE_NONE: QueryMode
QUERY_MODE_PLAN: QueryMode
QUERY_MODE_SQL: QueryMode
FEEDBACK_RATING_UNSPECIFIED: FeedbackRating
FEEDBACK_RATING_UP: FeedbackRating
FEEDBACK_RATING_DOWN: FeedbackRating
CITATION_STATUS_UNSPECIFIED: CitationStatus
CITATION_STATUS_CITED: CitationStatus
CITATION_STATUS_MISSING_CITATIONS: CitationStatus
CITATION_STATUS_INVALID_CITATION: CitationStatus
CITATION_STATUS_NO_EVIDENCE: CitationStatus

class Feedback(_message.Message):
    __slots__ = ("rating", "reason", "created_at")
    RATING_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    rating: FeedbackRating
    reason: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, rating: _Optional[_Union[FeedbackRating, str]] = ..., reason: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class DatasetVersion(_message.Message):
    __slots__ = ("dataset_id", "table_name", "version_hash")
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_HASH_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    table_name: str
    version_hash: str
    def __init__(self, dataset_id: _Optional[str] = ..., table_name: _Optional[str] = ..., version_hash: _Optional[str] = ...) -> None: ...

class ToolCallRecord(_message.Message):
    __slots__ = ("tool_call_id", "tool_name", "arguments_json", "phase", "llm_summary", "duration_ms")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    LLM_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    tool_name: str
    arguments_json: str
    phase: ToolPhase
    llm_summary: str
    duration_ms: int
    def __init__(self, tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., arguments_json: _Optional[str] = ..., phase: _Optional[_Union[ToolPhase, str]] = ..., llm_summary: _Optional[str] = ..., duration_ms: _Optional[int] = ...) -> None: ...

class Run(_message.Message):
    __slots__ = ("run_id", "thread_id", "kind", "status", "question", "created_at", "completed_at", "ui_state_version", "datasets", "query_mode", "plan_json", "compiled_sql", "result_summary", "error", "exec_time_ms", "usage", "tool_calls", "last_seq", "final_text", "model", "iterations", "parent_run_id", "feedback", "verified_query", "grounding", "ungrounded_numbers", "stale", "changed_datasets", "citations", "outcome")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_FIELD_NUMBER: _ClassVar[int]
    UI_STATE_VERSION_FIELD_NUMBER: _ClassVar[int]
    DATASETS_FIELD_NUMBER: _ClassVar[int]
    QUERY_MODE_FIELD_NUMBER: _ClassVar[int]
    PLAN_JSON_FIELD_NUMBER: _ClassVar[int]
    COMPILED_SQL_FIELD_NUMBER: _ClassVar[int]
    RESULT_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    EXEC_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    FINAL_TEXT_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    PARENT_RUN_ID_FIELD_NUMBER: _ClassVar[int]
    FEEDBACK_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_QUERY_FIELD_NUMBER: _ClassVar[int]
    GROUNDING_FIELD_NUMBER: _ClassVar[int]
    UNGROUNDED_NUMBERS_FIELD_NUMBER: _ClassVar[int]
    STALE_FIELD_NUMBER: _ClassVar[int]
    CHANGED_DATASETS_FIELD_NUMBER: _ClassVar[int]
    CITATIONS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    thread_id: str
    kind: RunKind
    status: RunStatus
    question: str
    created_at: _timestamp_pb2.Timestamp
    completed_at: _timestamp_pb2.Timestamp
    ui_state_version: int
    datasets: _containers.RepeatedCompositeFieldContainer[DatasetVersion]
    query_mode: QueryMode
    plan_json: str
    compiled_sql: str
    result_summary: str
    error: _common_pb2.Error
    exec_time_ms: int
    usage: _common_pb2.Usage
    tool_calls: _containers.RepeatedCompositeFieldContainer[ToolCallRecord]
    last_seq: int
    final_text: str
    model: str
    iterations: int
    parent_run_id: str
    feedback: Feedback
    verified_query: VerifiedQueryUse
    grounding: _containers.RepeatedCompositeFieldContainer[GroundedNumber]
    ungrounded_numbers: int
    stale: bool
    changed_datasets: _containers.RepeatedCompositeFieldContainer[DatasetVersion]
    citations: CitationCheck
    outcome: RunOutcome
    def __init__(self, run_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., kind: _Optional[_Union[RunKind, str]] = ..., status: _Optional[_Union[RunStatus, str]] = ..., question: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ui_state_version: _Optional[int] = ..., datasets: _Optional[_Iterable[_Union[DatasetVersion, _Mapping]]] = ..., query_mode: _Optional[_Union[QueryMode, str]] = ..., plan_json: _Optional[str] = ..., compiled_sql: _Optional[str] = ..., result_summary: _Optional[str] = ..., error: _Optional[_Union[_common_pb2.Error, _Mapping]] = ..., exec_time_ms: _Optional[int] = ..., usage: _Optional[_Union[_common_pb2.Usage, _Mapping]] = ..., tool_calls: _Optional[_Iterable[_Union[ToolCallRecord, _Mapping]]] = ..., last_seq: _Optional[int] = ..., final_text: _Optional[str] = ..., model: _Optional[str] = ..., iterations: _Optional[int] = ..., parent_run_id: _Optional[str] = ..., feedback: _Optional[_Union[Feedback, _Mapping]] = ..., verified_query: _Optional[_Union[VerifiedQueryUse, _Mapping]] = ..., grounding: _Optional[_Iterable[_Union[GroundedNumber, _Mapping]]] = ..., ungrounded_numbers: _Optional[int] = ..., stale: _Optional[bool] = ..., changed_datasets: _Optional[_Iterable[_Union[DatasetVersion, _Mapping]]] = ..., citations: _Optional[_Union[CitationCheck, _Mapping]] = ..., outcome: _Optional[_Union[RunOutcome, str]] = ...) -> None: ...

class CitationCheck(_message.Message):
    __slots__ = ("status", "cited", "invalid", "retrieved")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CITED_FIELD_NUMBER: _ClassVar[int]
    INVALID_FIELD_NUMBER: _ClassVar[int]
    RETRIEVED_FIELD_NUMBER: _ClassVar[int]
    status: CitationStatus
    cited: _containers.RepeatedScalarFieldContainer[str]
    invalid: _containers.RepeatedScalarFieldContainer[str]
    retrieved: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, status: _Optional[_Union[CitationStatus, str]] = ..., cited: _Optional[_Iterable[str]] = ..., invalid: _Optional[_Iterable[str]] = ..., retrieved: _Optional[_Iterable[str]] = ...) -> None: ...

class GroundedNumber(_message.Message):
    __slots__ = ("text", "value", "start", "end", "source")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    text: str
    value: float
    start: int
    end: int
    source: NumberSource
    def __init__(self, text: _Optional[str] = ..., value: _Optional[float] = ..., start: _Optional[int] = ..., end: _Optional[int] = ..., source: _Optional[_Union[NumberSource, _Mapping]] = ...) -> None: ...

class NumberSource(_message.Message):
    __slots__ = ("seq", "tool_call_id", "tool_name", "location", "value")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    seq: int
    tool_call_id: str
    tool_name: str
    location: str
    value: str
    def __init__(self, seq: _Optional[int] = ..., tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., location: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class VerifiedQueryUse(_message.Message):
    __slots__ = ("id", "name")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class Span(_message.Message):
    __slots__ = ("span_id", "parent_span_id", "kind", "name", "start_time", "end_time", "duration_ms", "attributes")
    class AttributesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SPAN_ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_SPAN_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    span_id: str
    parent_span_id: str
    kind: str
    name: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    duration_ms: int
    attributes: _containers.ScalarMap[str, str]
    def __init__(self, span_id: _Optional[str] = ..., parent_span_id: _Optional[str] = ..., kind: _Optional[str] = ..., name: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., duration_ms: _Optional[int] = ..., attributes: _Optional[_Mapping[str, str]] = ...) -> None: ...
