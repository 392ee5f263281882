import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_CODE_UNSPECIFIED: _ClassVar[ErrorCode]
    ERROR_CODE_VALIDATION_ERROR: _ClassVar[ErrorCode]
    ERROR_CODE_SQL_POLICY_VIOLATION: _ClassVar[ErrorCode]
    ERROR_CODE_RUNNER_TIMEOUT: _ClassVar[ErrorCode]
    ERROR_CODE_RUNNER_RESOURCE_EXCEEDED: _ClassVar[ErrorCode]
    ERROR_CODE_RUNNER_INTERNAL_ERROR: _ClassVar[ErrorCode]
    ERROR_CODE_NOT_FOUND: _ClassVar[ErrorCode]
    ERROR_CODE_PERMISSION_DENIED: _ClassVar[ErrorCode]
    ERROR_CODE_UNAUTHENTICATED: _ClassVar[ErrorCode]
    ERROR_CODE_CONFIRMATION_EXPIRED: _ClassVar[ErrorCode]
    ERROR_CODE_RUN_BUSY: _ClassVar[ErrorCode]
    ERROR_CODE_UNKNOWN_RUN: _ClassVar[ErrorCode]
    ERROR_CODE_TOKEN_EXPIRED: _ClassVar[ErrorCode]
    ERROR_CODE_ALREADY_RESOLVED: _ClassVar[ErrorCode]
    ERROR_CODE_NOT_AUTHORIZED: _ClassVar[ErrorCode]
    ERROR_CODE_BAD_REQUEST: _ClassVar[ErrorCode]
    ERROR_CODE_CURSOR_AHEAD: _ClassVar[ErrorCode]
    ERROR_CODE_RESOURCE_EXHAUSTED: _ClassVar[ErrorCode]
    ERROR_CODE_INGEST_ERROR: _ClassVar[ErrorCode]
    ERROR_CODE_MODEL_ERROR: _ClassVar[ErrorCode]
    ERROR_CODE_CANCELLED: _ClassVar[ErrorCode]
    ERROR_CODE_ALREADY_EXISTS: _ClassVar[ErrorCode]
    ERROR_CODE_UNIMPLEMENTED: _ClassVar[ErrorCode]
    ERROR_CODE_INTERNAL: _ClassVar[ErrorCode]
    ERROR_CODE_PATH_REFUSED: _ClassVar[ErrorCode]
    ERROR_CODE_NOT_READY: _ClassVar[ErrorCode]
    ERROR_CODE_STORAGE_UNAVAILABLE: _ClassVar[ErrorCode]
    ERROR_CODE_EXTERNAL_TOOL_FAILED: _ClassVar[ErrorCode]
    ERROR_CODE_RESOURCE_CHANGED: _ClassVar[ErrorCode]
    ERROR_CODE_COST_CONFIRMATION_REQUIRED: _ClassVar[ErrorCode]

class ValueKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VALUE_KIND_UNSPECIFIED: _ClassVar[ValueKind]
    VALUE_KIND_BOOL: _ClassVar[ValueKind]
    VALUE_KIND_INT: _ClassVar[ValueKind]
    VALUE_KIND_DOUBLE: _ClassVar[ValueKind]
    VALUE_KIND_DECIMAL: _ClassVar[ValueKind]
    VALUE_KIND_STRING: _ClassVar[ValueKind]
    VALUE_KIND_DATE: _ClassVar[ValueKind]
    VALUE_KIND_TIMESTAMP: _ClassVar[ValueKind]
    VALUE_KIND_TIME: _ClassVar[ValueKind]
    VALUE_KIND_INTERVAL: _ClassVar[ValueKind]
    VALUE_KIND_BYTES: _ClassVar[ValueKind]
    VALUE_KIND_NESTED: _ClassVar[ValueKind]

class Null(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NULL_UNSPECIFIED: _ClassVar[Null]

class ChartKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHART_KIND_UNSPECIFIED: _ClassVar[ChartKind]
    CHART_KIND_BAR: _ClassVar[ChartKind]
    CHART_KIND_LINE: _ClassVar[ChartKind]
    CHART_KIND_SCATTER: _ClassVar[ChartKind]

class Source(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SOURCE_UNSPECIFIED: _ClassVar[Source]
    SOURCE_API: _ClassVar[Source]
    SOURCE_WEB: _ClassVar[Source]
    SOURCE_CLI: _ClassVar[Source]
    SOURCE_AI_ASSISTANT: _ClassVar[Source]
    SOURCE_SYSTEM: _ClassVar[Source]
ERROR_CODE_UNSPECIFIED: ErrorCode
ERROR_CODE_VALIDATION_ERROR: ErrorCode
ERROR_CODE_SQL_POLICY_VIOLATION: ErrorCode
ERROR_CODE_RUNNER_TIMEOUT: ErrorCode
ERROR_CODE_RUNNER_RESOURCE_EXCEEDED: ErrorCode
ERROR_CODE_RUNNER_INTERNAL_ERROR: ErrorCode
ERROR_CODE_NOT_FOUND: ErrorCode
ERROR_CODE_PERMISSION_DENIED: ErrorCode
ERROR_CODE_UNAUTHENTICATED: ErrorCode
ERROR_CODE_CONFIRMATION_EXPIRED: ErrorCode
ERROR_CODE_RUN_BUSY: ErrorCode
ERROR_CODE_UNKNOWN_RUN: ErrorCode
ERROR_CODE_TOKEN_EXPIRED: ErrorCode
ERROR_CODE_ALREADY_RESOLVED: ErrorCode
ERROR_CODE_NOT_AUTHORIZED: ErrorCode
ERROR_CODE_BAD_REQUEST: ErrorCode
ERROR_CODE_CURSOR_AHEAD: ErrorCode
ERROR_CODE_RESOURCE_EXHAUSTED: ErrorCode
ERROR_CODE_INGEST_ERROR: ErrorCode
ERROR_CODE_MODEL_ERROR: ErrorCode
ERROR_CODE_CANCELLED: ErrorCode
ERROR_CODE_ALREADY_EXISTS: ErrorCode
ERROR_CODE_UNIMPLEMENTED: ErrorCode
ERROR_CODE_INTERNAL: ErrorCode
ERROR_CODE_PATH_REFUSED: ErrorCode
ERROR_CODE_NOT_READY: ErrorCode
ERROR_CODE_STORAGE_UNAVAILABLE: ErrorCode
ERROR_CODE_EXTERNAL_TOOL_FAILED: ErrorCode
ERROR_CODE_RESOURCE_CHANGED: ErrorCode
ERROR_CODE_COST_CONFIRMATION_REQUIRED: ErrorCode
VALUE_KIND_UNSPECIFIED: ValueKind
VALUE_KIND_BOOL: ValueKind
VALUE_KIND_INT: ValueKind
VALUE_KIND_DOUBLE: ValueKind
VALUE_KIND_DECIMAL: ValueKind
VALUE_KIND_STRING: ValueKind
VALUE_KIND_DATE: ValueKind
VALUE_KIND_TIMESTAMP: ValueKind
VALUE_KIND_TIME: ValueKind
VALUE_KIND_INTERVAL: ValueKind
VALUE_KIND_BYTES: ValueKind
VALUE_KIND_NESTED: ValueKind
NULL_UNSPECIFIED: Null
CHART_KIND_UNSPECIFIED: ChartKind
CHART_KIND_BAR: ChartKind
CHART_KIND_LINE: ChartKind
CHART_KIND_SCATTER: ChartKind
SOURCE_UNSPECIFIED: Source
SOURCE_API: Source
SOURCE_WEB: Source
SOURCE_CLI: Source
SOURCE_AI_ASSISTANT: Source
SOURCE_SYSTEM: Source

class Error(_message.Message):
    __slots__ = ("code", "message", "retryable", "field")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RETRYABLE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    retryable: bool
    field: str
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ..., retryable: _Optional[bool] = ..., field: _Optional[str] = ...) -> None: ...

class Column(_message.Message):
    __slots__ = ("name", "type", "kind", "nullable")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NULLABLE_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    kind: ValueKind
    nullable: bool
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., kind: _Optional[_Union[ValueKind, str]] = ..., nullable: _Optional[bool] = ...) -> None: ...

class Value(_message.Message):
    __slots__ = ("null_value", "bool_value", "int_value", "double_value", "decimal_value", "string_value", "date_value", "timestamp_value", "time_value", "bytes_value", "text_value")
    NULL_VALUE_FIELD_NUMBER: _ClassVar[int]
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    INT_VALUE_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_VALUE_FIELD_NUMBER: _ClassVar[int]
    DECIMAL_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    DATE_VALUE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_VALUE_FIELD_NUMBER: _ClassVar[int]
    TIME_VALUE_FIELD_NUMBER: _ClassVar[int]
    BYTES_VALUE_FIELD_NUMBER: _ClassVar[int]
    TEXT_VALUE_FIELD_NUMBER: _ClassVar[int]
    null_value: Null
    bool_value: bool
    int_value: int
    double_value: float
    decimal_value: str
    string_value: str
    date_value: int
    timestamp_value: _timestamp_pb2.Timestamp
    time_value: int
    bytes_value: bytes
    text_value: str
    def __init__(self, null_value: _Optional[_Union[Null, str]] = ..., bool_value: _Optional[bool] = ..., int_value: _Optional[int] = ..., double_value: _Optional[float] = ..., decimal_value: _Optional[str] = ..., string_value: _Optional[str] = ..., date_value: _Optional[int] = ..., timestamp_value: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., time_value: _Optional[int] = ..., bytes_value: _Optional[bytes] = ..., text_value: _Optional[str] = ...) -> None: ...

class Row(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[Value]
    def __init__(self, values: _Optional[_Iterable[_Union[Value, _Mapping]]] = ...) -> None: ...

class Table(_message.Message):
    __slots__ = ("columns", "rows", "row_count", "truncated", "exec_time_ms")
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    ROW_COUNT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    EXEC_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    columns: _containers.RepeatedCompositeFieldContainer[Column]
    rows: _containers.RepeatedCompositeFieldContainer[Row]
    row_count: int
    truncated: bool
    exec_time_ms: int
    def __init__(self, columns: _Optional[_Iterable[_Union[Column, _Mapping]]] = ..., rows: _Optional[_Iterable[_Union[Row, _Mapping]]] = ..., row_count: _Optional[int] = ..., truncated: _Optional[bool] = ..., exec_time_ms: _Optional[int] = ...) -> None: ...

class Chart(_message.Message):
    __slots__ = ("kind", "vega_lite_json", "x", "y", "color")
    KIND_FIELD_NUMBER: _ClassVar[int]
    VEGA_LITE_JSON_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    kind: ChartKind
    vega_lite_json: str
    x: str
    y: _containers.RepeatedScalarFieldContainer[str]
    color: str
    def __init__(self, kind: _Optional[_Union[ChartKind, str]] = ..., vega_lite_json: _Optional[str] = ..., x: _Optional[str] = ..., y: _Optional[_Iterable[str]] = ..., color: _Optional[str] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "model_calls", "partial")
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_READ_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_WRITE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALLS_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    model_calls: int
    partial: bool
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cache_read_tokens: _Optional[int] = ..., cache_write_tokens: _Optional[int] = ..., model_calls: _Optional[int] = ..., partial: _Optional[bool] = ...) -> None: ...

class ResourceRef(_message.Message):
    __slots__ = ("type", "id", "display_name")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    type: str
    id: str
    display_name: str
    def __init__(self, type: _Optional[str] = ..., id: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...
