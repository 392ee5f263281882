import datetime

from aware.v1 import admin_pb2 as _admin_pb2
from aware.v1 import common_pb2 as _common_pb2
from aware.v1 import datasets_pb2 as _datasets_pb2
from aware.v1 import files_pb2 as _files_pb2
from aware.v1 import query_pb2 as _query_pb2
from aware.v1 import run_pb2 as _run_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ConfirmationTier(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONFIRMATION_TIER_UNSPECIFIED: _ClassVar[ConfirmationTier]
    CONFIRMATION_TIER_STANDARD: _ClassVar[ConfirmationTier]
    CONFIRMATION_TIER_ELEVATED: _ClassVar[ConfirmationTier]

class ClarificationKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLARIFICATION_KIND_UNSPECIFIED: _ClassVar[ClarificationKind]
    CLARIFICATION_KIND_COLUMN: _ClassVar[ClarificationKind]
    CLARIFICATION_KIND_VALUE: _ClassVar[ClarificationKind]
    CLARIFICATION_KIND_TIME_RANGE: _ClassVar[ClarificationKind]

class ConfirmationResolution(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONFIRMATION_RESOLUTION_UNSPECIFIED: _ClassVar[ConfirmationResolution]
    CONFIRMATION_RESOLUTION_APPROVED: _ClassVar[ConfirmationResolution]
    CONFIRMATION_RESOLUTION_DENIED: _ClassVar[ConfirmationResolution]
    CONFIRMATION_RESOLUTION_EXPIRED: _ClassVar[ConfirmationResolution]
    CONFIRMATION_RESOLUTION_CANCELLED: _ClassVar[ConfirmationResolution]
    CONFIRMATION_RESOLUTION_SUPERSEDED: _ClassVar[ConfirmationResolution]

class RunPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_PHASE_UNSPECIFIED: _ClassVar[RunPhase]
    RUN_PHASE_QUEUED: _ClassVar[RunPhase]
    RUN_PHASE_WAITING_MODEL: _ClassVar[RunPhase]
    RUN_PHASE_STREAMING: _ClassVar[RunPhase]
    RUN_PHASE_EXECUTING_TOOL: _ClassVar[RunPhase]
    RUN_PHASE_AWAITING_CONFIRMATION: _ClassVar[RunPhase]
CONFIRMATION_TIER_UNSPECIFIED: ConfirmationTier
CONFIRMATION_TIER_STANDARD: ConfirmationTier
CONFIRMATION_TIER_ELEVATED: ConfirmationTier
CLARIFICATION_KIND_UNSPECIFIED: ClarificationKind
CLARIFICATION_KIND_COLUMN: ClarificationKind
CLARIFICATION_KIND_VALUE: ClarificationKind
CLARIFICATION_KIND_TIME_RANGE: ClarificationKind
CONFIRMATION_RESOLUTION_UNSPECIFIED: ConfirmationResolution
CONFIRMATION_RESOLUTION_APPROVED: ConfirmationResolution
CONFIRMATION_RESOLUTION_DENIED: ConfirmationResolution
CONFIRMATION_RESOLUTION_EXPIRED: ConfirmationResolution
CONFIRMATION_RESOLUTION_CANCELLED: ConfirmationResolution
CONFIRMATION_RESOLUTION_SUPERSEDED: ConfirmationResolution
RUN_PHASE_UNSPECIFIED: RunPhase
RUN_PHASE_QUEUED: RunPhase
RUN_PHASE_WAITING_MODEL: RunPhase
RUN_PHASE_STREAMING: RunPhase
RUN_PHASE_EXECUTING_TOOL: RunPhase
RUN_PHASE_AWAITING_CONFIRMATION: RunPhase

class ServerEvent(_message.Message):
    __slots__ = ("run_id", "seq", "time", "iteration", "thread_id", "run_started", "text_started", "text_delta", "text_ended", "tool_call_started", "tool_status", "tool_result", "tool_denied", "confirmation_required", "confirmation_resolved", "run_completed", "routing_decided", "memory_saved", "memory_forgotten", "grounding", "clarification_required", "clarification_resolved", "retrieval_completed", "heartbeat", "replay_started", "replay_finished", "rejected", "accepted", "state_applied", "shutting_down")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_STARTED_FIELD_NUMBER: _ClassVar[int]
    TEXT_STARTED_FIELD_NUMBER: _ClassVar[int]
    TEXT_DELTA_FIELD_NUMBER: _ClassVar[int]
    TEXT_ENDED_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_STARTED_FIELD_NUMBER: _ClassVar[int]
    TOOL_STATUS_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    TOOL_DENIED_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    RUN_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    ROUTING_DECIDED_FIELD_NUMBER: _ClassVar[int]
    MEMORY_SAVED_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    GROUNDING_FIELD_NUMBER: _ClassVar[int]
    CLARIFICATION_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    CLARIFICATION_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    RETRIEVAL_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    REPLAY_STARTED_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FINISHED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    STATE_APPLIED_FIELD_NUMBER: _ClassVar[int]
    SHUTTING_DOWN_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    seq: int
    time: _timestamp_pb2.Timestamp
    iteration: int
    thread_id: str
    run_started: RunStarted
    text_started: TextStarted
    text_delta: TextDelta
    text_ended: TextEnded
    tool_call_started: ToolCallStarted
    tool_status: ToolStatus
    tool_result: ToolResult
    tool_denied: ToolDenied
    confirmation_required: ConfirmationRequired
    confirmation_resolved: ConfirmationResolved
    run_completed: RunCompleted
    routing_decided: RoutingDecided
    memory_saved: MemorySaved
    memory_forgotten: MemoryForgotten
    grounding: Grounding
    clarification_required: ClarificationRequired
    clarification_resolved: ClarificationResolved
    retrieval_completed: RetrievalCompleted
    heartbeat: Heartbeat
    replay_started: ReplayStarted
    replay_finished: ReplayFinished
    rejected: Rejected
    accepted: Accepted
    state_applied: StateApplied
    shutting_down: ShuttingDown
    def __init__(self, run_id: _Optional[str] = ..., seq: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., iteration: _Optional[int] = ..., thread_id: _Optional[str] = ..., run_started: _Optional[_Union[RunStarted, _Mapping]] = ..., text_started: _Optional[_Union[TextStarted, _Mapping]] = ..., text_delta: _Optional[_Union[TextDelta, _Mapping]] = ..., text_ended: _Optional[_Union[TextEnded, _Mapping]] = ..., tool_call_started: _Optional[_Union[ToolCallStarted, _Mapping]] = ..., tool_status: _Optional[_Union[ToolStatus, _Mapping]] = ..., tool_result: _Optional[_Union[ToolResult, _Mapping]] = ..., tool_denied: _Optional[_Union[ToolDenied, _Mapping]] = ..., confirmation_required: _Optional[_Union[ConfirmationRequired, _Mapping]] = ..., confirmation_resolved: _Optional[_Union[ConfirmationResolved, _Mapping]] = ..., run_completed: _Optional[_Union[RunCompleted, _Mapping]] = ..., routing_decided: _Optional[_Union[RoutingDecided, _Mapping]] = ..., memory_saved: _Optional[_Union[MemorySaved, _Mapping]] = ..., memory_forgotten: _Optional[_Union[MemoryForgotten, _Mapping]] = ..., grounding: _Optional[_Union[Grounding, _Mapping]] = ..., clarification_required: _Optional[_Union[ClarificationRequired, _Mapping]] = ..., clarification_resolved: _Optional[_Union[ClarificationResolved, _Mapping]] = ..., retrieval_completed: _Optional[_Union[RetrievalCompleted, _Mapping]] = ..., heartbeat: _Optional[_Union[Heartbeat, _Mapping]] = ..., replay_started: _Optional[_Union[ReplayStarted, _Mapping]] = ..., replay_finished: _Optional[_Union[ReplayFinished, _Mapping]] = ..., rejected: _Optional[_Union[Rejected, _Mapping]] = ..., accepted: _Optional[_Union[Accepted, _Mapping]] = ..., state_applied: _Optional[_Union[StateApplied, _Mapping]] = ..., shutting_down: _Optional[_Union[ShuttingDown, _Mapping]] = ...) -> None: ...

class RunStarted(_message.Message):
    __slots__ = ("thread_id", "user_text", "ui_state_version", "max_iterations", "parent_run_id", "model", "client_msg_id", "tools")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    USER_TEXT_FIELD_NUMBER: _ClassVar[int]
    UI_STATE_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    PARENT_RUN_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    CLIENT_MSG_ID_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    user_text: str
    ui_state_version: int
    max_iterations: int
    parent_run_id: str
    model: str
    client_msg_id: str
    tools: _containers.RepeatedCompositeFieldContainer[ToolListing]
    def __init__(self, thread_id: _Optional[str] = ..., user_text: _Optional[str] = ..., ui_state_version: _Optional[int] = ..., max_iterations: _Optional[int] = ..., parent_run_id: _Optional[str] = ..., model: _Optional[str] = ..., client_msg_id: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[ToolListing, _Mapping]]] = ...) -> None: ...

class ToolProvenance(_message.Message):
    __slots__ = ("source", "server_id", "scope")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SERVER_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    source: str
    server_id: str
    scope: str
    def __init__(self, source: _Optional[str] = ..., server_id: _Optional[str] = ..., scope: _Optional[str] = ...) -> None: ...

class ToolListing(_message.Message):
    __slots__ = ("name", "title", "provenance")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    name: str
    title: str
    provenance: ToolProvenance
    def __init__(self, name: _Optional[str] = ..., title: _Optional[str] = ..., provenance: _Optional[_Union[ToolProvenance, _Mapping]] = ...) -> None: ...

class TextStarted(_message.Message):
    __slots__ = ("message_id",)
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    def __init__(self, message_id: _Optional[str] = ...) -> None: ...

class TextDelta(_message.Message):
    __slots__ = ("message_id", "delta")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    delta: str
    def __init__(self, message_id: _Optional[str] = ..., delta: _Optional[str] = ...) -> None: ...

class TextEnded(_message.Message):
    __slots__ = ("message_id",)
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    def __init__(self, message_id: _Optional[str] = ...) -> None: ...

class ToolRisk(_message.Message):
    __slots__ = ("read_only", "destructive", "requires_confirmation", "tier")
    READ_ONLY_FIELD_NUMBER: _ClassVar[int]
    DESTRUCTIVE_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_CONFIRMATION_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    read_only: bool
    destructive: bool
    requires_confirmation: bool
    tier: ConfirmationTier
    def __init__(self, read_only: _Optional[bool] = ..., destructive: _Optional[bool] = ..., requires_confirmation: _Optional[bool] = ..., tier: _Optional[_Union[ConfirmationTier, str]] = ...) -> None: ...

class ToolCallStarted(_message.Message):
    __slots__ = ("tool_call_id", "tool_name", "arguments_json", "risk", "title", "provenance")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    RISK_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    tool_name: str
    arguments_json: str
    risk: ToolRisk
    title: str
    provenance: ToolProvenance
    def __init__(self, tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., arguments_json: _Optional[str] = ..., risk: _Optional[_Union[ToolRisk, _Mapping]] = ..., title: _Optional[str] = ..., provenance: _Optional[_Union[ToolProvenance, _Mapping]] = ...) -> None: ...

class ToolStatus(_message.Message):
    __slots__ = ("tool_call_id", "phase", "message")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    phase: _run_pb2.ToolPhase
    message: str
    def __init__(self, tool_call_id: _Optional[str] = ..., phase: _Optional[_Union[_run_pb2.ToolPhase, str]] = ..., message: _Optional[str] = ...) -> None: ...

class SystemStatus(_message.Message):
    __slots__ = ("version", "mode", "model_provider", "storage", "dataset_count", "dataset_bytes", "sandbox_workers", "sandbox_workers_busy", "search_index", "uptime_seconds", "active_runs")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    MODEL_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    STORAGE_FIELD_NUMBER: _ClassVar[int]
    DATASET_COUNT_FIELD_NUMBER: _ClassVar[int]
    DATASET_BYTES_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_WORKERS_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_WORKERS_BUSY_FIELD_NUMBER: _ClassVar[int]
    SEARCH_INDEX_FIELD_NUMBER: _ClassVar[int]
    UPTIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_RUNS_FIELD_NUMBER: _ClassVar[int]
    version: str
    mode: str
    model_provider: str
    storage: str
    dataset_count: int
    dataset_bytes: int
    sandbox_workers: int
    sandbox_workers_busy: int
    search_index: str
    uptime_seconds: int
    active_runs: int
    def __init__(self, version: _Optional[str] = ..., mode: _Optional[str] = ..., model_provider: _Optional[str] = ..., storage: _Optional[str] = ..., dataset_count: _Optional[int] = ..., dataset_bytes: _Optional[int] = ..., sandbox_workers: _Optional[int] = ..., sandbox_workers_busy: _Optional[int] = ..., search_index: _Optional[str] = ..., uptime_seconds: _Optional[int] = ..., active_runs: _Optional[int] = ...) -> None: ...

class ToolResult(_message.Message):
    __slots__ = ("tool_call_id", "tool_name", "is_error", "llm_summary", "error", "duration_ms", "executed_sql", "table", "dataset_list", "dataset_detail", "statistics", "search_hits", "system_status", "directory_listing", "import_report", "query_plan", "run", "deleted_dataset", "external", "dataset_change", "saved_query_change", "account_change", "knowledge", "provenance", "chart")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    LLM_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    EXECUTED_SQL_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    DATASET_LIST_FIELD_NUMBER: _ClassVar[int]
    DATASET_DETAIL_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    SEARCH_HITS_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_STATUS_FIELD_NUMBER: _ClassVar[int]
    DIRECTORY_LISTING_FIELD_NUMBER: _ClassVar[int]
    IMPORT_REPORT_FIELD_NUMBER: _ClassVar[int]
    QUERY_PLAN_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    DELETED_DATASET_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_FIELD_NUMBER: _ClassVar[int]
    DATASET_CHANGE_FIELD_NUMBER: _ClassVar[int]
    SAVED_QUERY_CHANGE_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_CHANGE_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    CHART_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    tool_name: str
    is_error: bool
    llm_summary: str
    error: _common_pb2.Error
    duration_ms: int
    executed_sql: str
    table: _common_pb2.Table
    dataset_list: _datasets_pb2.DatasetList
    dataset_detail: _datasets_pb2.DatasetDetail
    statistics: _datasets_pb2.DatasetStatistics
    search_hits: _datasets_pb2.SearchHits
    system_status: SystemStatus
    directory_listing: _files_pb2.DirectoryListing
    import_report: _files_pb2.ImportReport
    query_plan: _query_pb2.QueryPlan
    run: _run_pb2.Run
    deleted_dataset: _datasets_pb2.Dataset
    external: ExternalResult
    dataset_change: DatasetChange
    saved_query_change: SavedQueryChange
    account_change: AccountChange
    knowledge: _datasets_pb2.KnowledgeHits
    provenance: ToolProvenance
    chart: _common_pb2.Chart
    def __init__(self, tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., is_error: _Optional[bool] = ..., llm_summary: _Optional[str] = ..., error: _Optional[_Union[_common_pb2.Error, _Mapping]] = ..., duration_ms: _Optional[int] = ..., executed_sql: _Optional[str] = ..., table: _Optional[_Union[_common_pb2.Table, _Mapping]] = ..., dataset_list: _Optional[_Union[_datasets_pb2.DatasetList, _Mapping]] = ..., dataset_detail: _Optional[_Union[_datasets_pb2.DatasetDetail, _Mapping]] = ..., statistics: _Optional[_Union[_datasets_pb2.DatasetStatistics, _Mapping]] = ..., search_hits: _Optional[_Union[_datasets_pb2.SearchHits, _Mapping]] = ..., system_status: _Optional[_Union[SystemStatus, _Mapping]] = ..., directory_listing: _Optional[_Union[_files_pb2.DirectoryListing, _Mapping]] = ..., import_report: _Optional[_Union[_files_pb2.ImportReport, _Mapping]] = ..., query_plan: _Optional[_Union[_query_pb2.QueryPlan, _Mapping]] = ..., run: _Optional[_Union[_run_pb2.Run, _Mapping]] = ..., deleted_dataset: _Optional[_Union[_datasets_pb2.Dataset, _Mapping]] = ..., external: _Optional[_Union[ExternalResult, _Mapping]] = ..., dataset_change: _Optional[_Union[DatasetChange, _Mapping]] = ..., saved_query_change: _Optional[_Union[SavedQueryChange, _Mapping]] = ..., account_change: _Optional[_Union[AccountChange, _Mapping]] = ..., knowledge: _Optional[_Union[_datasets_pb2.KnowledgeHits, _Mapping]] = ..., provenance: _Optional[_Union[ToolProvenance, _Mapping]] = ..., chart: _Optional[_Union[_common_pb2.Chart, _Mapping]] = ...) -> None: ...

class DatasetChange(_message.Message):
    __slots__ = ("change", "dataset")
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    change: str
    dataset: _datasets_pb2.Dataset
    def __init__(self, change: _Optional[str] = ..., dataset: _Optional[_Union[_datasets_pb2.Dataset, _Mapping]] = ...) -> None: ...

class SavedQueryChange(_message.Message):
    __slots__ = ("change", "query")
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    change: str
    query: _datasets_pb2.SavedQuery
    def __init__(self, change: _Optional[str] = ..., query: _Optional[_Union[_datasets_pb2.SavedQuery, _Mapping]] = ...) -> None: ...

class AccountChange(_message.Message):
    __slots__ = ("change", "user", "api_key", "token")
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    change: str
    user: _admin_pb2.User
    api_key: _admin_pb2.ApiKey
    token: str
    def __init__(self, change: _Optional[str] = ..., user: _Optional[_Union[_admin_pb2.User, _Mapping]] = ..., api_key: _Optional[_Union[_admin_pb2.ApiKey, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class ExternalResult(_message.Message):
    __slots__ = ("server_id", "tool", "result_json")
    SERVER_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    server_id: str
    tool: str
    result_json: str
    def __init__(self, server_id: _Optional[str] = ..., tool: _Optional[str] = ..., result_json: _Optional[str] = ...) -> None: ...

class ToolDenied(_message.Message):
    __slots__ = ("tool_call_id", "tool_name", "reason", "code", "provenance")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    tool_name: str
    reason: str
    code: str
    provenance: ToolProvenance
    def __init__(self, tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., reason: _Optional[str] = ..., code: _Optional[str] = ..., provenance: _Optional[_Union[ToolProvenance, _Mapping]] = ...) -> None: ...

class ConfirmationRequired(_message.Message):
    __slots__ = ("confirmation_id", "tool_call_id", "tool_name", "resource", "description", "tier", "expires_at", "arguments_json", "resolved_arguments_json", "grantable", "blast_radius")
    CONFIRMATION_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    GRANTABLE_FIELD_NUMBER: _ClassVar[int]
    BLAST_RADIUS_FIELD_NUMBER: _ClassVar[int]
    confirmation_id: str
    tool_call_id: str
    tool_name: str
    resource: _common_pb2.ResourceRef
    description: str
    tier: ConfirmationTier
    expires_at: _timestamp_pb2.Timestamp
    arguments_json: str
    resolved_arguments_json: str
    grantable: bool
    blast_radius: BlastRadius
    def __init__(self, confirmation_id: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., resource: _Optional[_Union[_common_pb2.ResourceRef, _Mapping]] = ..., description: _Optional[str] = ..., tier: _Optional[_Union[ConfirmationTier, str]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., arguments_json: _Optional[str] = ..., resolved_arguments_json: _Optional[str] = ..., grantable: _Optional[bool] = ..., blast_radius: _Optional[_Union[BlastRadius, _Mapping]] = ...) -> None: ...

class ClarificationRequired(_message.Message):
    __slots__ = ("clarification_id", "tool_call_id", "kind", "question", "phrase", "dataset", "options", "expires_at")
    CLARIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    PHRASE_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    clarification_id: str
    tool_call_id: str
    kind: ClarificationKind
    question: str
    phrase: str
    dataset: _common_pb2.ResourceRef
    options: _containers.RepeatedCompositeFieldContainer[ClarificationOption]
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, clarification_id: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., kind: _Optional[_Union[ClarificationKind, str]] = ..., question: _Optional[str] = ..., phrase: _Optional[str] = ..., dataset: _Optional[_Union[_common_pb2.ResourceRef, _Mapping]] = ..., options: _Optional[_Iterable[_Union[ClarificationOption, _Mapping]]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ClarificationOption(_message.Message):
    __slots__ = ("value", "label", "sql_type", "null_share", "min", "max", "count")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SQL_TYPE_FIELD_NUMBER: _ClassVar[int]
    NULL_SHARE_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    value: str
    label: str
    sql_type: str
    null_share: float
    min: str
    max: str
    count: int
    def __init__(self, value: _Optional[str] = ..., label: _Optional[str] = ..., sql_type: _Optional[str] = ..., null_share: _Optional[float] = ..., min: _Optional[str] = ..., max: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class ClarificationResolved(_message.Message):
    __slots__ = ("clarification_id", "tool_call_id", "resolution", "choice", "remembered")
    CLARIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    REMEMBERED_FIELD_NUMBER: _ClassVar[int]
    clarification_id: str
    tool_call_id: str
    resolution: ConfirmationResolution
    choice: str
    remembered: bool
    def __init__(self, clarification_id: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., resolution: _Optional[_Union[ConfirmationResolution, str]] = ..., choice: _Optional[str] = ..., remembered: _Optional[bool] = ...) -> None: ...

class BlastRadius(_message.Message):
    __slots__ = ("version_hash", "row_count", "size_bytes", "saved_queries", "derived_datasets")
    VERSION_HASH_FIELD_NUMBER: _ClassVar[int]
    ROW_COUNT_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    SAVED_QUERIES_FIELD_NUMBER: _ClassVar[int]
    DERIVED_DATASETS_FIELD_NUMBER: _ClassVar[int]
    version_hash: str
    row_count: int
    size_bytes: int
    saved_queries: _containers.RepeatedScalarFieldContainer[str]
    derived_datasets: _containers.RepeatedCompositeFieldContainer[_common_pb2.ResourceRef]
    def __init__(self, version_hash: _Optional[str] = ..., row_count: _Optional[int] = ..., size_bytes: _Optional[int] = ..., saved_queries: _Optional[_Iterable[str]] = ..., derived_datasets: _Optional[_Iterable[_Union[_common_pb2.ResourceRef, _Mapping]]] = ...) -> None: ...

class ConfirmationResolved(_message.Message):
    __slots__ = ("confirmation_id", "tool_call_id", "resolution", "grant_id", "edited_arguments_json")
    CONFIRMATION_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    GRANT_ID_FIELD_NUMBER: _ClassVar[int]
    EDITED_ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    confirmation_id: str
    tool_call_id: str
    resolution: ConfirmationResolution
    grant_id: str
    edited_arguments_json: str
    def __init__(self, confirmation_id: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., resolution: _Optional[_Union[ConfirmationResolution, str]] = ..., grant_id: _Optional[str] = ..., edited_arguments_json: _Optional[str] = ...) -> None: ...

class MemorySaved(_message.Message):
    __slots__ = ("memory_id", "text")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    memory_id: str
    text: str
    def __init__(self, memory_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class Grounding(_message.Message):
    __slots__ = ("numbers", "ungrounded", "citations")
    NUMBERS_FIELD_NUMBER: _ClassVar[int]
    UNGROUNDED_FIELD_NUMBER: _ClassVar[int]
    CITATIONS_FIELD_NUMBER: _ClassVar[int]
    numbers: _containers.RepeatedCompositeFieldContainer[_run_pb2.GroundedNumber]
    ungrounded: int
    citations: _run_pb2.CitationCheck
    def __init__(self, numbers: _Optional[_Iterable[_Union[_run_pb2.GroundedNumber, _Mapping]]] = ..., ungrounded: _Optional[int] = ..., citations: _Optional[_Union[_run_pb2.CitationCheck, _Mapping]] = ...) -> None: ...

class RetrievalCompleted(_message.Message):
    __slots__ = ("tool_call_id", "query", "chunk_ids")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    CHUNK_IDS_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    query: str
    chunk_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tool_call_id: _Optional[str] = ..., query: _Optional[str] = ..., chunk_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class MemoryForgotten(_message.Message):
    __slots__ = ("memory_id", "text")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    memory_id: str
    text: str
    def __init__(self, memory_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class RoutingDecided(_message.Message):
    __slots__ = ("intent", "confidence", "risk", "tools", "withheld_tools")
    INTENT_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    RISK_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    WITHHELD_TOOLS_FIELD_NUMBER: _ClassVar[int]
    intent: str
    confidence: float
    risk: str
    tools: _containers.RepeatedScalarFieldContainer[str]
    withheld_tools: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, intent: _Optional[str] = ..., confidence: _Optional[float] = ..., risk: _Optional[str] = ..., tools: _Optional[_Iterable[str]] = ..., withheld_tools: _Optional[_Iterable[str]] = ...) -> None: ...

class RunCompleted(_message.Message):
    __slots__ = ("status", "error", "usage", "final_text", "outcome", "follow_ups")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    FINAL_TEXT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    FOLLOW_UPS_FIELD_NUMBER: _ClassVar[int]
    status: _run_pb2.RunStatus
    error: _common_pb2.Error
    usage: _common_pb2.Usage
    final_text: str
    outcome: _run_pb2.RunOutcome
    follow_ups: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, status: _Optional[_Union[_run_pb2.RunStatus, str]] = ..., error: _Optional[_Union[_common_pb2.Error, _Mapping]] = ..., usage: _Optional[_Union[_common_pb2.Usage, _Mapping]] = ..., final_text: _Optional[str] = ..., outcome: _Optional[_Union[_run_pb2.RunOutcome, str]] = ..., follow_ups: _Optional[_Iterable[str]] = ...) -> None: ...

class ActiveRun(_message.Message):
    __slots__ = ("run_id", "phase", "last_seq", "confirmation_ms_left")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_MS_LEFT_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    phase: RunPhase
    last_seq: int
    confirmation_ms_left: int
    def __init__(self, run_id: _Optional[str] = ..., phase: _Optional[_Union[RunPhase, str]] = ..., last_seq: _Optional[int] = ..., confirmation_ms_left: _Optional[int] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("server_time", "active_runs")
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_RUNS_FIELD_NUMBER: _ClassVar[int]
    server_time: _timestamp_pb2.Timestamp
    active_runs: _containers.RepeatedCompositeFieldContainer[ActiveRun]
    def __init__(self, server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., active_runs: _Optional[_Iterable[_Union[ActiveRun, _Mapping]]] = ...) -> None: ...

class ShuttingDown(_message.Message):
    __slots__ = ("message", "retry_after_ms")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RETRY_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    message: str
    retry_after_ms: int
    def __init__(self, message: _Optional[str] = ..., retry_after_ms: _Optional[int] = ...) -> None: ...

class ReplayStarted(_message.Message):
    __slots__ = ("after_seq", "last_seq_at_start")
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_AT_START_FIELD_NUMBER: _ClassVar[int]
    after_seq: int
    last_seq_at_start: int
    def __init__(self, after_seq: _Optional[int] = ..., last_seq_at_start: _Optional[int] = ...) -> None: ...

class ReplayFinished(_message.Message):
    __slots__ = ("last_seq", "live")
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    last_seq: int
    live: bool
    def __init__(self, last_seq: _Optional[int] = ..., live: _Optional[bool] = ...) -> None: ...

class Rejected(_message.Message):
    __slots__ = ("client_msg_id", "code", "message", "active_run_id", "last_seq")
    CLIENT_MSG_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_RUN_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    client_msg_id: str
    code: _common_pb2.ErrorCode
    message: str
    active_run_id: str
    last_seq: int
    def __init__(self, client_msg_id: _Optional[str] = ..., code: _Optional[_Union[_common_pb2.ErrorCode, str]] = ..., message: _Optional[str] = ..., active_run_id: _Optional[str] = ..., last_seq: _Optional[int] = ...) -> None: ...

class Accepted(_message.Message):
    __slots__ = ("client_msg_id", "thread_id", "queued")
    CLIENT_MSG_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    client_msg_id: str
    thread_id: str
    queued: bool
    def __init__(self, client_msg_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., queued: _Optional[bool] = ...) -> None: ...

class StateApplied(_message.Message):
    __slots__ = ("client_msg_id", "thread_id", "ui_state_version")
    CLIENT_MSG_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    UI_STATE_VERSION_FIELD_NUMBER: _ClassVar[int]
    client_msg_id: str
    thread_id: str
    ui_state_version: int
    def __init__(self, client_msg_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., ui_state_version: _Optional[int] = ...) -> None: ...
