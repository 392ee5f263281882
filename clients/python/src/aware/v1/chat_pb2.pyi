import datetime

from aware.v1 import common_pb2 as _common_pb2
from aware.v1 import datasets_pb2 as _datasets_pb2
from aware.v1 import events_pb2 as _events_pb2
from aware.v1 import run_pb2 as _run_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OnBusy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ON_BUSY_UNSPECIFIED: _ClassVar[OnBusy]
    ON_BUSY_REJECT: _ClassVar[OnBusy]
    ON_BUSY_ENQUEUE: _ClassVar[OnBusy]
    ON_BUSY_INTERRUPT: _ClassVar[OnBusy]

class ConfirmationScope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONFIRMATION_SCOPE_UNSPECIFIED: _ClassVar[ConfirmationScope]
    CONFIRMATION_SCOPE_ONCE: _ClassVar[ConfirmationScope]
    CONFIRMATION_SCOPE_SESSION: _ClassVar[ConfirmationScope]
ON_BUSY_UNSPECIFIED: OnBusy
ON_BUSY_REJECT: OnBusy
ON_BUSY_ENQUEUE: OnBusy
ON_BUSY_INTERRUPT: OnBusy
CONFIRMATION_SCOPE_UNSPECIFIED: ConfirmationScope
CONFIRMATION_SCOPE_ONCE: ConfirmationScope
CONFIRMATION_SCOPE_SESSION: ConfirmationScope

class ChatRequest(_message.Message):
    __slots__ = ("client_msg_id", "hello", "snapshot", "message", "confirmation", "resume", "cancel", "clarification")
    CLIENT_MSG_ID_FIELD_NUMBER: _ClassVar[int]
    HELLO_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    CANCEL_FIELD_NUMBER: _ClassVar[int]
    CLARIFICATION_FIELD_NUMBER: _ClassVar[int]
    client_msg_id: str
    hello: Hello
    snapshot: StateSnapshot
    message: UserMessage
    confirmation: ConfirmationResponse
    resume: Resume
    cancel: Cancel
    clarification: ClarificationResponse
    def __init__(self, client_msg_id: _Optional[str] = ..., hello: _Optional[_Union[Hello, _Mapping]] = ..., snapshot: _Optional[_Union[StateSnapshot, _Mapping]] = ..., message: _Optional[_Union[UserMessage, _Mapping]] = ..., confirmation: _Optional[_Union[ConfirmationResponse, _Mapping]] = ..., resume: _Optional[_Union[Resume, _Mapping]] = ..., cancel: _Optional[_Union[Cancel, _Mapping]] = ..., clarification: _Optional[_Union[ClarificationResponse, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("protocol_version", "client_instance_id", "resume")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    CLIENT_INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    client_instance_id: str
    resume: _containers.RepeatedCompositeFieldContainer[Resume]
    def __init__(self, protocol_version: _Optional[int] = ..., client_instance_id: _Optional[str] = ..., resume: _Optional[_Iterable[_Union[Resume, _Mapping]]] = ...) -> None: ...

class DatasetSummary(_message.Message):
    __slots__ = ("id", "name", "row_count", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROW_COUNT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    row_count: int
    status: _datasets_pb2.DatasetStatus
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., row_count: _Optional[int] = ..., status: _Optional[_Union[_datasets_pb2.DatasetStatus, str]] = ...) -> None: ...

class StateSnapshot(_message.Message):
    __slots__ = ("thread_id", "ui_state_version", "current_route", "active_dataset_id", "datasets", "captured_at")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    UI_STATE_VERSION_FIELD_NUMBER: _ClassVar[int]
    CURRENT_ROUTE_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    DATASETS_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_AT_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    ui_state_version: int
    current_route: str
    active_dataset_id: str
    datasets: _containers.RepeatedCompositeFieldContainer[DatasetSummary]
    captured_at: _timestamp_pb2.Timestamp
    def __init__(self, thread_id: _Optional[str] = ..., ui_state_version: _Optional[int] = ..., current_route: _Optional[str] = ..., active_dataset_id: _Optional[str] = ..., datasets: _Optional[_Iterable[_Union[DatasetSummary, _Mapping]]] = ..., captured_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class UserMessage(_message.Message):
    __slots__ = ("thread_id", "text", "on_busy")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ON_BUSY_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    text: str
    on_busy: OnBusy
    def __init__(self, thread_id: _Optional[str] = ..., text: _Optional[str] = ..., on_busy: _Optional[_Union[OnBusy, str]] = ...) -> None: ...

class ConfirmationResponse(_message.Message):
    __slots__ = ("confirmation_id", "approved", "scope", "duration_seconds", "edited_arguments_json")
    CONFIRMATION_ID_FIELD_NUMBER: _ClassVar[int]
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    DURATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    EDITED_ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    confirmation_id: str
    approved: bool
    scope: ConfirmationScope
    duration_seconds: int
    edited_arguments_json: str
    def __init__(self, confirmation_id: _Optional[str] = ..., approved: _Optional[bool] = ..., scope: _Optional[_Union[ConfirmationScope, str]] = ..., duration_seconds: _Optional[int] = ..., edited_arguments_json: _Optional[str] = ...) -> None: ...

class ClarificationResponse(_message.Message):
    __slots__ = ("clarification_id", "choice", "remember")
    CLARIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    REMEMBER_FIELD_NUMBER: _ClassVar[int]
    clarification_id: str
    choice: str
    remember: bool
    def __init__(self, clarification_id: _Optional[str] = ..., choice: _Optional[str] = ..., remember: _Optional[bool] = ...) -> None: ...

class Resume(_message.Message):
    __slots__ = ("run_id", "last_event_seq")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_SEQ_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    last_event_seq: int
    def __init__(self, run_id: _Optional[str] = ..., last_event_seq: _Optional[int] = ...) -> None: ...

class Cancel(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class ChatResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _events_pb2.ServerEvent
    def __init__(self, event: _Optional[_Union[_events_pb2.ServerEvent, _Mapping]] = ...) -> None: ...

class SendMessageRequest(_message.Message):
    __slots__ = ("client_msg_id", "message")
    CLIENT_MSG_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    client_msg_id: str
    message: UserMessage
    def __init__(self, client_msg_id: _Optional[str] = ..., message: _Optional[_Union[UserMessage, _Mapping]] = ...) -> None: ...

class SendMessageResponse(_message.Message):
    __slots__ = ("run_id", "thread_id", "queued")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    thread_id: str
    queued: bool
    def __init__(self, run_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., queued: _Optional[bool] = ...) -> None: ...

class StreamRunRequest(_message.Message):
    __slots__ = ("run_id", "after_seq")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    after_seq: int
    def __init__(self, run_id: _Optional[str] = ..., after_seq: _Optional[int] = ...) -> None: ...

class StreamRunResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _events_pb2.ServerEvent
    def __init__(self, event: _Optional[_Union[_events_pb2.ServerEvent, _Mapping]] = ...) -> None: ...

class UpdateStateRequest(_message.Message):
    __slots__ = ("snapshot",)
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    snapshot: StateSnapshot
    def __init__(self, snapshot: _Optional[_Union[StateSnapshot, _Mapping]] = ...) -> None: ...

class UpdateStateResponse(_message.Message):
    __slots__ = ("thread_id", "ui_state_version")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    UI_STATE_VERSION_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    ui_state_version: int
    def __init__(self, thread_id: _Optional[str] = ..., ui_state_version: _Optional[int] = ...) -> None: ...

class SubmitConfirmationRequest(_message.Message):
    __slots__ = ("confirmation_id", "approved", "scope", "duration_seconds", "edited_arguments_json")
    CONFIRMATION_ID_FIELD_NUMBER: _ClassVar[int]
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    DURATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    EDITED_ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    confirmation_id: str
    approved: bool
    scope: ConfirmationScope
    duration_seconds: int
    edited_arguments_json: str
    def __init__(self, confirmation_id: _Optional[str] = ..., approved: _Optional[bool] = ..., scope: _Optional[_Union[ConfirmationScope, str]] = ..., duration_seconds: _Optional[int] = ..., edited_arguments_json: _Optional[str] = ...) -> None: ...

class SubmitClarificationRequest(_message.Message):
    __slots__ = ("clarification_id", "choice", "remember")
    CLARIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    REMEMBER_FIELD_NUMBER: _ClassVar[int]
    clarification_id: str
    choice: str
    remember: bool
    def __init__(self, clarification_id: _Optional[str] = ..., choice: _Optional[str] = ..., remember: _Optional[bool] = ...) -> None: ...

class SubmitClarificationResponse(_message.Message):
    __slots__ = ("run_id", "resolution")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    resolution: _events_pb2.ConfirmationResolution
    def __init__(self, run_id: _Optional[str] = ..., resolution: _Optional[_Union[_events_pb2.ConfirmationResolution, str]] = ...) -> None: ...

class SubmitConfirmationResponse(_message.Message):
    __slots__ = ("run_id", "resolution", "grant_id")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    GRANT_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    resolution: _events_pb2.ConfirmationResolution
    grant_id: str
    def __init__(self, run_id: _Optional[str] = ..., resolution: _Optional[_Union[_events_pb2.ConfirmationResolution, str]] = ..., grant_id: _Optional[str] = ...) -> None: ...

class ListGrantsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGrantsResponse(_message.Message):
    __slots__ = ("grants",)
    GRANTS_FIELD_NUMBER: _ClassVar[int]
    grants: _containers.RepeatedCompositeFieldContainer[Grant]
    def __init__(self, grants: _Optional[_Iterable[_Union[Grant, _Mapping]]] = ...) -> None: ...

class Grant(_message.Message):
    __slots__ = ("grant_id", "tool_name", "resource_class", "confirmation_id", "created_at", "expires_at")
    GRANT_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_CLASS_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    grant_id: str
    tool_name: str
    resource_class: str
    confirmation_id: str
    created_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, grant_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., resource_class: _Optional[str] = ..., confirmation_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RevokeGrantRequest(_message.Message):
    __slots__ = ("grant_id",)
    GRANT_ID_FIELD_NUMBER: _ClassVar[int]
    grant_id: str
    def __init__(self, grant_id: _Optional[str] = ...) -> None: ...

class RevokeGrantResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListPendingConfirmationsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListPendingConfirmationsResponse(_message.Message):
    __slots__ = ("confirmations",)
    CONFIRMATIONS_FIELD_NUMBER: _ClassVar[int]
    confirmations: _containers.RepeatedCompositeFieldContainer[PendingConfirmation]
    def __init__(self, confirmations: _Optional[_Iterable[_Union[PendingConfirmation, _Mapping]]] = ...) -> None: ...

class PendingConfirmation(_message.Message):
    __slots__ = ("confirmation_id", "run_id", "tool_call_id", "tool_name", "resource", "description", "tier", "created_at", "expires_at", "grantable")
    CONFIRMATION_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    GRANTABLE_FIELD_NUMBER: _ClassVar[int]
    confirmation_id: str
    run_id: str
    tool_call_id: str
    tool_name: str
    resource: _common_pb2.ResourceRef
    description: str
    tier: _events_pb2.ConfirmationTier
    created_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    grantable: bool
    def __init__(self, confirmation_id: _Optional[str] = ..., run_id: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., resource: _Optional[_Union[_common_pb2.ResourceRef, _Mapping]] = ..., description: _Optional[str] = ..., tier: _Optional[_Union[_events_pb2.ConfirmationTier, str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., grantable: _Optional[bool] = ...) -> None: ...

class CancelRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class CancelRunResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: _run_pb2.RunStatus
    def __init__(self, status: _Optional[_Union[_run_pb2.RunStatus, str]] = ...) -> None: ...

class GetCapabilitiesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ToolInfo(_message.Message):
    __slots__ = ("name", "title", "description", "input_schema_json", "risk", "capability", "activity", "provenance")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    RISK_FIELD_NUMBER: _ClassVar[int]
    CAPABILITY_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    name: str
    title: str
    description: str
    input_schema_json: str
    risk: _events_pb2.ToolRisk
    capability: str
    activity: str
    provenance: _events_pb2.ToolProvenance
    def __init__(self, name: _Optional[str] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., input_schema_json: _Optional[str] = ..., risk: _Optional[_Union[_events_pb2.ToolRisk, _Mapping]] = ..., capability: _Optional[str] = ..., activity: _Optional[str] = ..., provenance: _Optional[_Union[_events_pb2.ToolProvenance, _Mapping]] = ...) -> None: ...

class ExternalServer(_message.Message):
    __slots__ = ("id", "state", "detail", "tools")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    id: str
    state: str
    detail: str
    tools: int
    def __init__(self, id: _Optional[str] = ..., state: _Optional[str] = ..., detail: _Optional[str] = ..., tools: _Optional[int] = ...) -> None: ...

class GetCapabilitiesResponse(_message.Message):
    __slots__ = ("protocol_version", "server_version", "heartbeat_interval_ms", "confirmation_ttl_ms", "max_iterations", "max_tool_calls_per_message", "tool_timeout_ms", "on_busy_modes", "tools", "mode", "auth_mode", "model_provider", "role", "max_upload_bytes", "max_message_bytes", "external_servers")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_INTERVAL_MS_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_TTL_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOOL_CALLS_PER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TOOL_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    ON_BUSY_MODES_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    AUTH_MODE_FIELD_NUMBER: _ClassVar[int]
    MODEL_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MAX_UPLOAD_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_SERVERS_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    server_version: str
    heartbeat_interval_ms: int
    confirmation_ttl_ms: int
    max_iterations: int
    max_tool_calls_per_message: int
    tool_timeout_ms: int
    on_busy_modes: _containers.RepeatedScalarFieldContainer[OnBusy]
    tools: _containers.RepeatedCompositeFieldContainer[ToolInfo]
    mode: str
    auth_mode: str
    model_provider: str
    role: str
    max_upload_bytes: int
    max_message_bytes: int
    external_servers: _containers.RepeatedCompositeFieldContainer[ExternalServer]
    def __init__(self, protocol_version: _Optional[int] = ..., server_version: _Optional[str] = ..., heartbeat_interval_ms: _Optional[int] = ..., confirmation_ttl_ms: _Optional[int] = ..., max_iterations: _Optional[int] = ..., max_tool_calls_per_message: _Optional[int] = ..., tool_timeout_ms: _Optional[int] = ..., on_busy_modes: _Optional[_Iterable[_Union[OnBusy, str]]] = ..., tools: _Optional[_Iterable[_Union[ToolInfo, _Mapping]]] = ..., mode: _Optional[str] = ..., auth_mode: _Optional[str] = ..., model_provider: _Optional[str] = ..., role: _Optional[str] = ..., max_upload_bytes: _Optional[int] = ..., max_message_bytes: _Optional[int] = ..., external_servers: _Optional[_Iterable[_Union[ExternalServer, _Mapping]]] = ...) -> None: ...
