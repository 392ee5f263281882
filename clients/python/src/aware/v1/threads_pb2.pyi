import datetime

from aware.v1 import events_pb2 as _events_pb2
from aware.v1 import run_pb2 as _run_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Thread(_message.Message):
    __slots__ = ("thread_id", "title", "created_at", "last_activity_at", "run_count", "last_run_status", "forked_from_thread_id", "forked_from_run_id", "last_run_outcome")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTIVITY_AT_FIELD_NUMBER: _ClassVar[int]
    RUN_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_RUN_STATUS_FIELD_NUMBER: _ClassVar[int]
    FORKED_FROM_THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    FORKED_FROM_RUN_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_RUN_OUTCOME_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    title: str
    created_at: _timestamp_pb2.Timestamp
    last_activity_at: _timestamp_pb2.Timestamp
    run_count: int
    last_run_status: _run_pb2.RunStatus
    forked_from_thread_id: str
    forked_from_run_id: str
    last_run_outcome: _run_pb2.RunOutcome
    def __init__(self, thread_id: _Optional[str] = ..., title: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_activity_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., run_count: _Optional[int] = ..., last_run_status: _Optional[_Union[_run_pb2.RunStatus, str]] = ..., forked_from_thread_id: _Optional[str] = ..., forked_from_run_id: _Optional[str] = ..., last_run_outcome: _Optional[_Union[_run_pb2.RunOutcome, str]] = ...) -> None: ...

class ListThreadsRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "query")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    query: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., query: _Optional[str] = ...) -> None: ...

class ListThreadsResponse(_message.Message):
    __slots__ = ("threads", "next_page_token")
    THREADS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    threads: _containers.RepeatedCompositeFieldContainer[Thread]
    next_page_token: str
    def __init__(self, threads: _Optional[_Iterable[_Union[Thread, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetThreadRequest(_message.Message):
    __slots__ = ("thread_id",)
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    def __init__(self, thread_id: _Optional[str] = ...) -> None: ...

class TurnResult(_message.Message):
    __slots__ = ("seq", "tool_call_id", "tool_name", "is_error", "summary", "has_rich")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    HAS_RICH_FIELD_NUMBER: _ClassVar[int]
    seq: int
    tool_call_id: str
    tool_name: str
    is_error: bool
    summary: str
    has_rich: bool
    def __init__(self, seq: _Optional[int] = ..., tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., is_error: _Optional[bool] = ..., summary: _Optional[str] = ..., has_rich: _Optional[bool] = ...) -> None: ...

class TurnConfirmation(_message.Message):
    __slots__ = ("confirmation_id", "tool_name", "description", "resolution", "grant_id", "edited_arguments_json")
    CONFIRMATION_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    GRANT_ID_FIELD_NUMBER: _ClassVar[int]
    EDITED_ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    confirmation_id: str
    tool_name: str
    description: str
    resolution: _events_pb2.ConfirmationResolution
    grant_id: str
    edited_arguments_json: str
    def __init__(self, confirmation_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., description: _Optional[str] = ..., resolution: _Optional[_Union[_events_pb2.ConfirmationResolution, str]] = ..., grant_id: _Optional[str] = ..., edited_arguments_json: _Optional[str] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("run_id", "status", "outcome", "user_text", "assistant_text", "created_at", "results", "confirmations", "feedback", "memories_saved", "grounding", "citations")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    USER_TEXT_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_TEXT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATIONS_FIELD_NUMBER: _ClassVar[int]
    FEEDBACK_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_SAVED_FIELD_NUMBER: _ClassVar[int]
    GROUNDING_FIELD_NUMBER: _ClassVar[int]
    CITATIONS_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    status: _run_pb2.RunStatus
    outcome: _run_pb2.RunOutcome
    user_text: str
    assistant_text: str
    created_at: _timestamp_pb2.Timestamp
    results: _containers.RepeatedCompositeFieldContainer[TurnResult]
    confirmations: _containers.RepeatedCompositeFieldContainer[TurnConfirmation]
    feedback: _run_pb2.Feedback
    memories_saved: _containers.RepeatedScalarFieldContainer[str]
    grounding: _containers.RepeatedCompositeFieldContainer[_run_pb2.GroundedNumber]
    citations: _run_pb2.CitationCheck
    def __init__(self, run_id: _Optional[str] = ..., status: _Optional[_Union[_run_pb2.RunStatus, str]] = ..., outcome: _Optional[_Union[_run_pb2.RunOutcome, str]] = ..., user_text: _Optional[str] = ..., assistant_text: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., results: _Optional[_Iterable[_Union[TurnResult, _Mapping]]] = ..., confirmations: _Optional[_Iterable[_Union[TurnConfirmation, _Mapping]]] = ..., feedback: _Optional[_Union[_run_pb2.Feedback, _Mapping]] = ..., memories_saved: _Optional[_Iterable[str]] = ..., grounding: _Optional[_Iterable[_Union[_run_pb2.GroundedNumber, _Mapping]]] = ..., citations: _Optional[_Union[_run_pb2.CitationCheck, _Mapping]] = ...) -> None: ...

class GetThreadResponse(_message.Message):
    __slots__ = ("thread", "turns")
    THREAD_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    thread: Thread
    turns: _containers.RepeatedCompositeFieldContainer[Turn]
    def __init__(self, thread: _Optional[_Union[Thread, _Mapping]] = ..., turns: _Optional[_Iterable[_Union[Turn, _Mapping]]] = ...) -> None: ...

class RenameThreadRequest(_message.Message):
    __slots__ = ("thread_id", "title")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    title: str
    def __init__(self, thread_id: _Optional[str] = ..., title: _Optional[str] = ...) -> None: ...

class RenameThreadResponse(_message.Message):
    __slots__ = ("thread",)
    THREAD_FIELD_NUMBER: _ClassVar[int]
    thread: Thread
    def __init__(self, thread: _Optional[_Union[Thread, _Mapping]] = ...) -> None: ...

class DeleteThreadRequest(_message.Message):
    __slots__ = ("thread_id",)
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    def __init__(self, thread_id: _Optional[str] = ...) -> None: ...

class DeleteThreadResponse(_message.Message):
    __slots__ = ("runs_deleted",)
    RUNS_DELETED_FIELD_NUMBER: _ClassVar[int]
    runs_deleted: int
    def __init__(self, runs_deleted: _Optional[int] = ...) -> None: ...

class ForkThreadRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class ForkThreadResponse(_message.Message):
    __slots__ = ("thread", "user_text")
    THREAD_FIELD_NUMBER: _ClassVar[int]
    USER_TEXT_FIELD_NUMBER: _ClassVar[int]
    thread: Thread
    user_text: str
    def __init__(self, thread: _Optional[_Union[Thread, _Mapping]] = ..., user_text: _Optional[str] = ...) -> None: ...
