import datetime

from aware.v1 import common_pb2 as _common_pb2
from aware.v1 import events_pb2 as _events_pb2
from aware.v1 import run_pb2 as _run_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RerunQueryRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class RerunQueryResponse(_message.Message):
    __slots__ = ("queries",)
    QUERIES_FIELD_NUMBER: _ClassVar[int]
    queries: _containers.RepeatedCompositeFieldContainer[QueryRerun]
    def __init__(self, queries: _Optional[_Iterable[_Union[QueryRerun, _Mapping]]] = ...) -> None: ...

class QueryRerun(_message.Message):
    __slots__ = ("run_id", "sql", "result", "result_sha256", "recorded_sha256", "added_rows", "removed_rows", "unchanged_rows", "recorded_rows_kept", "changed_datasets", "error")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    SQL_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    RESULT_SHA256_FIELD_NUMBER: _ClassVar[int]
    RECORDED_SHA256_FIELD_NUMBER: _ClassVar[int]
    ADDED_ROWS_FIELD_NUMBER: _ClassVar[int]
    REMOVED_ROWS_FIELD_NUMBER: _ClassVar[int]
    UNCHANGED_ROWS_FIELD_NUMBER: _ClassVar[int]
    RECORDED_ROWS_KEPT_FIELD_NUMBER: _ClassVar[int]
    CHANGED_DATASETS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    sql: str
    result: _common_pb2.Table
    result_sha256: str
    recorded_sha256: str
    added_rows: _containers.RepeatedCompositeFieldContainer[_common_pb2.Row]
    removed_rows: _containers.RepeatedCompositeFieldContainer[_common_pb2.Row]
    unchanged_rows: int
    recorded_rows_kept: bool
    changed_datasets: _containers.RepeatedCompositeFieldContainer[_run_pb2.DatasetVersion]
    error: _common_pb2.Error
    def __init__(self, run_id: _Optional[str] = ..., sql: _Optional[str] = ..., result: _Optional[_Union[_common_pb2.Table, _Mapping]] = ..., result_sha256: _Optional[str] = ..., recorded_sha256: _Optional[str] = ..., added_rows: _Optional[_Iterable[_Union[_common_pb2.Row, _Mapping]]] = ..., removed_rows: _Optional[_Iterable[_Union[_common_pb2.Row, _Mapping]]] = ..., unchanged_rows: _Optional[int] = ..., recorded_rows_kept: _Optional[bool] = ..., changed_datasets: _Optional[_Iterable[_Union[_run_pb2.DatasetVersion, _Mapping]]] = ..., error: _Optional[_Union[_common_pb2.Error, _Mapping]] = ...) -> None: ...

class SubmitFeedbackRequest(_message.Message):
    __slots__ = ("run_id", "rating", "reason")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    rating: _run_pb2.FeedbackRating
    reason: str
    def __init__(self, run_id: _Optional[str] = ..., rating: _Optional[_Union[_run_pb2.FeedbackRating, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class SubmitFeedbackResponse(_message.Message):
    __slots__ = ("feedback",)
    FEEDBACK_FIELD_NUMBER: _ClassVar[int]
    feedback: _run_pb2.Feedback
    def __init__(self, feedback: _Optional[_Union[_run_pb2.Feedback, _Mapping]] = ...) -> None: ...

class GetRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class GetRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: _run_pb2.Run
    def __init__(self, run: _Optional[_Union[_run_pb2.Run, _Mapping]] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ("thread_id", "page_size", "page_token", "rating", "outcome")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    page_size: int
    page_token: str
    rating: _run_pb2.FeedbackRating
    outcome: _run_pb2.RunOutcome
    def __init__(self, thread_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., rating: _Optional[_Union[_run_pb2.FeedbackRating, str]] = ..., outcome: _Optional[_Union[_run_pb2.RunOutcome, str]] = ...) -> None: ...

class ListRunsResponse(_message.Message):
    __slots__ = ("runs", "next_page_token")
    RUNS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[_run_pb2.Run]
    next_page_token: str
    def __init__(self, runs: _Optional[_Iterable[_Union[_run_pb2.Run, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListRunEventsRequest(_message.Message):
    __slots__ = ("run_id", "after_seq", "limit")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    after_seq: int
    limit: int
    def __init__(self, run_id: _Optional[str] = ..., after_seq: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class ListRunEventsResponse(_message.Message):
    __slots__ = ("events", "status", "last_seq")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.ServerEvent]
    status: _run_pb2.RunStatus
    last_seq: int
    def __init__(self, events: _Optional[_Iterable[_Union[_events_pb2.ServerEvent, _Mapping]]] = ..., status: _Optional[_Union[_run_pb2.RunStatus, str]] = ..., last_seq: _Optional[int] = ...) -> None: ...

class GetRunTraceRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class GetRunTraceResponse(_message.Message):
    __slots__ = ("spans",)
    SPANS_FIELD_NUMBER: _ClassVar[int]
    spans: _containers.RepeatedCompositeFieldContainer[_run_pb2.Span]
    def __init__(self, spans: _Optional[_Iterable[_Union[_run_pb2.Span, _Mapping]]] = ...) -> None: ...

class GetUsageRequest(_message.Message):
    __slots__ = ("since", "user_id")
    SINCE_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    since: _timestamp_pb2.Timestamp
    user_id: str
    def __init__(self, since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., user_id: _Optional[str] = ...) -> None: ...

class GetUsageResponse(_message.Message):
    __slots__ = ("user_id", "usage", "runs")
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    usage: _common_pb2.Usage
    runs: int
    def __init__(self, user_id: _Optional[str] = ..., usage: _Optional[_Union[_common_pb2.Usage, _Mapping]] = ..., runs: _Optional[int] = ...) -> None: ...
