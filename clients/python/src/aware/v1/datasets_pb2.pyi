import datetime

from aware.v1 import common_pb2 as _common_pb2
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

class DatasetStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DATASET_STATUS_UNSPECIFIED: _ClassVar[DatasetStatus]
    DATASET_STATUS_PROCESSING: _ClassVar[DatasetStatus]
    DATASET_STATUS_READY: _ClassVar[DatasetStatus]
    DATASET_STATUS_ERROR: _ClassVar[DatasetStatus]

class DatasetFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DATASET_FORMAT_UNSPECIFIED: _ClassVar[DatasetFormat]
    DATASET_FORMAT_CSV: _ClassVar[DatasetFormat]
    DATASET_FORMAT_TSV: _ClassVar[DatasetFormat]
    DATASET_FORMAT_PARQUET: _ClassVar[DatasetFormat]
    DATASET_FORMAT_JSON: _ClassVar[DatasetFormat]
    DATASET_FORMAT_NDJSON: _ClassVar[DatasetFormat]
    DATASET_FORMAT_DERIVED: _ClassVar[DatasetFormat]
    DATASET_FORMAT_MARKDOWN: _ClassVar[DatasetFormat]
    DATASET_FORMAT_TEXT: _ClassVar[DatasetFormat]

class SearchIndexState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_INDEX_STATE_UNSPECIFIED: _ClassVar[SearchIndexState]
    SEARCH_INDEX_STATE_INDEXING: _ClassVar[SearchIndexState]
    SEARCH_INDEX_STATE_NO_TEXT: _ClassVar[SearchIndexState]
    SEARCH_INDEX_STATE_EMBEDDING: _ClassVar[SearchIndexState]
    SEARCH_INDEX_STATE_LEXICAL: _ClassVar[SearchIndexState]
    SEARCH_INDEX_STATE_READY: _ClassVar[SearchIndexState]
    SEARCH_INDEX_STATE_FAILED: _ClassVar[SearchIndexState]
DATASET_STATUS_UNSPECIFIED: DatasetStatus
DATASET_STATUS_PROCESSING: DatasetStatus
DATASET_STATUS_READY: DatasetStatus
DATASET_STATUS_ERROR: DatasetStatus
DATASET_FORMAT_UNSPECIFIED: DatasetFormat
DATASET_FORMAT_CSV: DatasetFormat
DATASET_FORMAT_TSV: DatasetFormat
DATASET_FORMAT_PARQUET: DatasetFormat
DATASET_FORMAT_JSON: DatasetFormat
DATASET_FORMAT_NDJSON: DatasetFormat
DATASET_FORMAT_DERIVED: DatasetFormat
DATASET_FORMAT_MARKDOWN: DatasetFormat
DATASET_FORMAT_TEXT: DatasetFormat
SEARCH_INDEX_STATE_UNSPECIFIED: SearchIndexState
SEARCH_INDEX_STATE_INDEXING: SearchIndexState
SEARCH_INDEX_STATE_NO_TEXT: SearchIndexState
SEARCH_INDEX_STATE_EMBEDDING: SearchIndexState
SEARCH_INDEX_STATE_LEXICAL: SearchIndexState
SEARCH_INDEX_STATE_READY: SearchIndexState
SEARCH_INDEX_STATE_FAILED: SearchIndexState

class Dataset(_message.Message):
    __slots__ = ("id", "name", "table_name", "format", "status", "row_count", "column_count", "size_bytes", "version_hash", "created_at", "columns", "error", "updated_at", "search_index", "description", "column_notes", "lineage", "origin")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ROW_COUNT_FIELD_NUMBER: _ClassVar[int]
    COLUMN_COUNT_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    VERSION_HASH_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SEARCH_INDEX_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    COLUMN_NOTES_FIELD_NUMBER: _ClassVar[int]
    LINEAGE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    table_name: str
    format: DatasetFormat
    status: DatasetStatus
    row_count: int
    column_count: int
    size_bytes: int
    version_hash: str
    created_at: _timestamp_pb2.Timestamp
    columns: _containers.RepeatedCompositeFieldContainer[_common_pb2.Column]
    error: str
    updated_at: _timestamp_pb2.Timestamp
    search_index: SearchIndex
    description: str
    column_notes: _containers.RepeatedCompositeFieldContainer[ColumnNote]
    lineage: Lineage
    origin: ImportOrigin
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., table_name: _Optional[str] = ..., format: _Optional[_Union[DatasetFormat, str]] = ..., status: _Optional[_Union[DatasetStatus, str]] = ..., row_count: _Optional[int] = ..., column_count: _Optional[int] = ..., size_bytes: _Optional[int] = ..., version_hash: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., columns: _Optional[_Iterable[_Union[_common_pb2.Column, _Mapping]]] = ..., error: _Optional[str] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., search_index: _Optional[_Union[SearchIndex, _Mapping]] = ..., description: _Optional[str] = ..., column_notes: _Optional[_Iterable[_Union[ColumnNote, _Mapping]]] = ..., lineage: _Optional[_Union[Lineage, _Mapping]] = ..., origin: _Optional[_Union[ImportOrigin, _Mapping]] = ...) -> None: ...

class ImportOrigin(_message.Message):
    __slots__ = ("root", "path")
    ROOT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    root: str
    path: str
    def __init__(self, root: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class ColumnNote(_message.Message):
    __slots__ = ("column", "description", "unit")
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    column: str
    description: str
    unit: str
    def __init__(self, column: _Optional[str] = ..., description: _Optional[str] = ..., unit: _Optional[str] = ...) -> None: ...

class Lineage(_message.Message):
    __slots__ = ("sources", "sql", "run_id")
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    SQL_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    sources: _containers.RepeatedCompositeFieldContainer[_run_pb2.DatasetVersion]
    sql: str
    run_id: str
    def __init__(self, sources: _Optional[_Iterable[_Union[_run_pb2.DatasetVersion, _Mapping]]] = ..., sql: _Optional[str] = ..., run_id: _Optional[str] = ...) -> None: ...

class SavedQuery(_message.Message):
    __slots__ = ("id", "name", "question", "sql", "created_at", "updated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    SQL_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    question: str
    sql: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., question: _Optional[str] = ..., sql: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SearchIndex(_message.Message):
    __slots__ = ("state", "text_columns", "rows", "vector_rows", "embedding_model", "vector_index", "error")
    STATE_FIELD_NUMBER: _ClassVar[int]
    TEXT_COLUMNS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    VECTOR_ROWS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_MODEL_FIELD_NUMBER: _ClassVar[int]
    VECTOR_INDEX_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    state: SearchIndexState
    text_columns: _containers.RepeatedScalarFieldContainer[str]
    rows: int
    vector_rows: int
    embedding_model: str
    vector_index: str
    error: str
    def __init__(self, state: _Optional[_Union[SearchIndexState, str]] = ..., text_columns: _Optional[_Iterable[str]] = ..., rows: _Optional[int] = ..., vector_rows: _Optional[int] = ..., embedding_model: _Optional[str] = ..., vector_index: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class KnowledgeHits(_message.Message):
    __slots__ = ("query", "chunks", "documents_searched", "note", "mode")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_SEARCHED_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    query: str
    chunks: _containers.RepeatedCompositeFieldContainer[KnowledgeChunk]
    documents_searched: int
    note: str
    mode: str
    def __init__(self, query: _Optional[str] = ..., chunks: _Optional[_Iterable[_Union[KnowledgeChunk, _Mapping]]] = ..., documents_searched: _Optional[int] = ..., note: _Optional[str] = ..., mode: _Optional[str] = ...) -> None: ...

class KnowledgeChunk(_message.Message):
    __slots__ = ("chunk_id", "dataset_id", "title", "heading", "text", "snippet", "score", "document_name")
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    HEADING_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SNIPPET_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    chunk_id: str
    dataset_id: str
    title: str
    heading: str
    text: str
    snippet: str
    score: float
    document_name: str
    def __init__(self, chunk_id: _Optional[str] = ..., dataset_id: _Optional[str] = ..., title: _Optional[str] = ..., heading: _Optional[str] = ..., text: _Optional[str] = ..., snippet: _Optional[str] = ..., score: _Optional[float] = ..., document_name: _Optional[str] = ...) -> None: ...

class DatasetList(_message.Message):
    __slots__ = ("datasets",)
    DATASETS_FIELD_NUMBER: _ClassVar[int]
    datasets: _containers.RepeatedCompositeFieldContainer[Dataset]
    def __init__(self, datasets: _Optional[_Iterable[_Union[Dataset, _Mapping]]] = ...) -> None: ...

class DatasetDetail(_message.Message):
    __slots__ = ("dataset", "sample")
    DATASET_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_FIELD_NUMBER: _ClassVar[int]
    dataset: Dataset
    sample: _common_pb2.Table
    def __init__(self, dataset: _Optional[_Union[Dataset, _Mapping]] = ..., sample: _Optional[_Union[_common_pb2.Table, _Mapping]] = ...) -> None: ...

class ColumnStatistics(_message.Message):
    __slots__ = ("name", "type", "kind", "null_count", "distinct_count", "min", "max", "mean", "median", "stddev", "min_length", "max_length")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NULL_COUNT_FIELD_NUMBER: _ClassVar[int]
    DISTINCT_COUNT_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    MEAN_FIELD_NUMBER: _ClassVar[int]
    MEDIAN_FIELD_NUMBER: _ClassVar[int]
    STDDEV_FIELD_NUMBER: _ClassVar[int]
    MIN_LENGTH_FIELD_NUMBER: _ClassVar[int]
    MAX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    kind: _common_pb2.ValueKind
    null_count: int
    distinct_count: int
    min: _common_pb2.Value
    max: _common_pb2.Value
    mean: float
    median: float
    stddev: float
    min_length: int
    max_length: int
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., kind: _Optional[_Union[_common_pb2.ValueKind, str]] = ..., null_count: _Optional[int] = ..., distinct_count: _Optional[int] = ..., min: _Optional[_Union[_common_pb2.Value, _Mapping]] = ..., max: _Optional[_Union[_common_pb2.Value, _Mapping]] = ..., mean: _Optional[float] = ..., median: _Optional[float] = ..., stddev: _Optional[float] = ..., min_length: _Optional[int] = ..., max_length: _Optional[int] = ...) -> None: ...

class DatasetStatistics(_message.Message):
    __slots__ = ("dataset_id", "table_name", "row_count", "columns", "exec_time_ms")
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    ROW_COUNT_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    EXEC_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    table_name: str
    row_count: int
    columns: _containers.RepeatedCompositeFieldContainer[ColumnStatistics]
    exec_time_ms: int
    def __init__(self, dataset_id: _Optional[str] = ..., table_name: _Optional[str] = ..., row_count: _Optional[int] = ..., columns: _Optional[_Iterable[_Union[ColumnStatistics, _Mapping]]] = ..., exec_time_ms: _Optional[int] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("dataset_id", "table_name", "row_id", "column", "text", "snippet", "score", "dataset_name", "lexical_rank", "vector_rank", "same_text_rows")
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    ROW_ID_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SNIPPET_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    DATASET_NAME_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_RANK_FIELD_NUMBER: _ClassVar[int]
    VECTOR_RANK_FIELD_NUMBER: _ClassVar[int]
    SAME_TEXT_ROWS_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    table_name: str
    row_id: int
    column: str
    text: str
    snippet: str
    score: float
    dataset_name: str
    lexical_rank: int
    vector_rank: int
    same_text_rows: int
    def __init__(self, dataset_id: _Optional[str] = ..., table_name: _Optional[str] = ..., row_id: _Optional[int] = ..., column: _Optional[str] = ..., text: _Optional[str] = ..., snippet: _Optional[str] = ..., score: _Optional[float] = ..., dataset_name: _Optional[str] = ..., lexical_rank: _Optional[int] = ..., vector_rank: _Optional[int] = ..., same_text_rows: _Optional[int] = ...) -> None: ...

class SearchHits(_message.Message):
    __slots__ = ("hits", "mode", "query", "datasets_searched", "note")
    HITS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    DATASETS_SEARCHED_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    mode: str
    query: str
    datasets_searched: int
    note: str
    def __init__(self, hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., mode: _Optional[str] = ..., query: _Optional[str] = ..., datasets_searched: _Optional[int] = ..., note: _Optional[str] = ...) -> None: ...

class ListDatasetsRequest(_message.Message):
    __slots__ = ("status_filter",)
    STATUS_FILTER_FIELD_NUMBER: _ClassVar[int]
    status_filter: DatasetStatus
    def __init__(self, status_filter: _Optional[_Union[DatasetStatus, str]] = ...) -> None: ...

class ListDatasetsResponse(_message.Message):
    __slots__ = ("datasets",)
    DATASETS_FIELD_NUMBER: _ClassVar[int]
    datasets: _containers.RepeatedCompositeFieldContainer[Dataset]
    def __init__(self, datasets: _Optional[_Iterable[_Union[Dataset, _Mapping]]] = ...) -> None: ...

class GetDatasetRequest(_message.Message):
    __slots__ = ("dataset_id", "sample_rows")
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_ROWS_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    sample_rows: int
    def __init__(self, dataset_id: _Optional[str] = ..., sample_rows: _Optional[int] = ...) -> None: ...

class GetDatasetResponse(_message.Message):
    __slots__ = ("dataset", "sample", "suggested_questions")
    DATASET_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_FIELD_NUMBER: _ClassVar[int]
    SUGGESTED_QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    dataset: Dataset
    sample: _common_pb2.Table
    suggested_questions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, dataset: _Optional[_Union[Dataset, _Mapping]] = ..., sample: _Optional[_Union[_common_pb2.Table, _Mapping]] = ..., suggested_questions: _Optional[_Iterable[str]] = ...) -> None: ...

class UploadDatasetRequest(_message.Message):
    __slots__ = ("filename", "format", "chunk", "size_bytes")
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    filename: str
    format: str
    chunk: bytes
    size_bytes: int
    def __init__(self, filename: _Optional[str] = ..., format: _Optional[str] = ..., chunk: _Optional[bytes] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class UploadDatasetResponse(_message.Message):
    __slots__ = ("dataset",)
    DATASET_FIELD_NUMBER: _ClassVar[int]
    dataset: Dataset
    def __init__(self, dataset: _Optional[_Union[Dataset, _Mapping]] = ...) -> None: ...

class CreateUploadRequest(_message.Message):
    __slots__ = ("filename", "format", "size_bytes")
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    filename: str
    format: str
    size_bytes: int
    def __init__(self, filename: _Optional[str] = ..., format: _Optional[str] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class CreateUploadResponse(_message.Message):
    __slots__ = ("upload_id", "max_chunk_bytes")
    UPLOAD_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_CHUNK_BYTES_FIELD_NUMBER: _ClassVar[int]
    upload_id: str
    max_chunk_bytes: int
    def __init__(self, upload_id: _Optional[str] = ..., max_chunk_bytes: _Optional[int] = ...) -> None: ...

class AppendUploadRequest(_message.Message):
    __slots__ = ("upload_id", "offset", "chunk")
    UPLOAD_ID_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    upload_id: str
    offset: int
    chunk: bytes
    def __init__(self, upload_id: _Optional[str] = ..., offset: _Optional[int] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class AppendUploadResponse(_message.Message):
    __slots__ = ("received_bytes",)
    RECEIVED_BYTES_FIELD_NUMBER: _ClassVar[int]
    received_bytes: int
    def __init__(self, received_bytes: _Optional[int] = ...) -> None: ...

class CommitUploadRequest(_message.Message):
    __slots__ = ("upload_id",)
    UPLOAD_ID_FIELD_NUMBER: _ClassVar[int]
    upload_id: str
    def __init__(self, upload_id: _Optional[str] = ...) -> None: ...

class CommitUploadResponse(_message.Message):
    __slots__ = ("dataset",)
    DATASET_FIELD_NUMBER: _ClassVar[int]
    dataset: Dataset
    def __init__(self, dataset: _Optional[_Union[Dataset, _Mapping]] = ...) -> None: ...

class PreviewRowsRequest(_message.Message):
    __slots__ = ("dataset_id", "limit")
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    limit: int
    def __init__(self, dataset_id: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class PreviewRowsResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: _common_pb2.Table
    def __init__(self, table: _Optional[_Union[_common_pb2.Table, _Mapping]] = ...) -> None: ...

class GetDatasetStatisticsRequest(_message.Message):
    __slots__ = ("dataset_id",)
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    def __init__(self, dataset_id: _Optional[str] = ...) -> None: ...

class GetDatasetStatisticsResponse(_message.Message):
    __slots__ = ("statistics",)
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    statistics: DatasetStatistics
    def __init__(self, statistics: _Optional[_Union[DatasetStatistics, _Mapping]] = ...) -> None: ...

class DeleteDatasetRequest(_message.Message):
    __slots__ = ("dataset_id",)
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    def __init__(self, dataset_id: _Optional[str] = ...) -> None: ...

class DeleteDatasetResponse(_message.Message):
    __slots__ = ("dataset_id",)
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    def __init__(self, dataset_id: _Optional[str] = ...) -> None: ...

class SearchDatasetsRequest(_message.Message):
    __slots__ = ("query", "dataset_id", "limit", "mode")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    query: str
    dataset_id: str
    limit: int
    mode: str
    def __init__(self, query: _Optional[str] = ..., dataset_id: _Optional[str] = ..., limit: _Optional[int] = ..., mode: _Optional[str] = ...) -> None: ...

class SearchDatasetsResponse(_message.Message):
    __slots__ = ("hits", "mode", "datasets_searched", "note")
    HITS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    DATASETS_SEARCHED_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    mode: str
    datasets_searched: int
    note: str
    def __init__(self, hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., mode: _Optional[str] = ..., datasets_searched: _Optional[int] = ..., note: _Optional[str] = ...) -> None: ...

class UpdateDatasetRequest(_message.Message):
    __slots__ = ("dataset_id", "name", "table_name", "description", "column_notes")
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    COLUMN_NOTES_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    name: str
    table_name: str
    description: str
    column_notes: _containers.RepeatedCompositeFieldContainer[ColumnNote]
    def __init__(self, dataset_id: _Optional[str] = ..., name: _Optional[str] = ..., table_name: _Optional[str] = ..., description: _Optional[str] = ..., column_notes: _Optional[_Iterable[_Union[ColumnNote, _Mapping]]] = ...) -> None: ...

class UpdateDatasetResponse(_message.Message):
    __slots__ = ("dataset",)
    DATASET_FIELD_NUMBER: _ClassVar[int]
    dataset: Dataset
    def __init__(self, dataset: _Optional[_Union[Dataset, _Mapping]] = ...) -> None: ...

class RefreshDatasetRequest(_message.Message):
    __slots__ = ("dataset_id",)
    DATASET_ID_FIELD_NUMBER: _ClassVar[int]
    dataset_id: str
    def __init__(self, dataset_id: _Optional[str] = ...) -> None: ...

class RefreshDatasetResponse(_message.Message):
    __slots__ = ("dataset", "changed", "previous_row_count")
    DATASET_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_ROW_COUNT_FIELD_NUMBER: _ClassVar[int]
    dataset: Dataset
    changed: bool
    previous_row_count: int
    def __init__(self, dataset: _Optional[_Union[Dataset, _Mapping]] = ..., changed: _Optional[bool] = ..., previous_row_count: _Optional[int] = ...) -> None: ...

class MaterializeQueryRequest(_message.Message):
    __slots__ = ("table_name", "sql", "plan", "run_heavy")
    TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    SQL_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    RUN_HEAVY_FIELD_NUMBER: _ClassVar[int]
    table_name: str
    sql: str
    plan: _query_pb2.QueryPlan
    run_heavy: bool
    def __init__(self, table_name: _Optional[str] = ..., sql: _Optional[str] = ..., plan: _Optional[_Union[_query_pb2.QueryPlan, _Mapping]] = ..., run_heavy: _Optional[bool] = ...) -> None: ...

class MaterializeQueryResponse(_message.Message):
    __slots__ = ("dataset",)
    DATASET_FIELD_NUMBER: _ClassVar[int]
    dataset: Dataset
    def __init__(self, dataset: _Optional[_Union[Dataset, _Mapping]] = ...) -> None: ...

class ListSavedQueriesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListSavedQueriesResponse(_message.Message):
    __slots__ = ("queries",)
    QUERIES_FIELD_NUMBER: _ClassVar[int]
    queries: _containers.RepeatedCompositeFieldContainer[SavedQuery]
    def __init__(self, queries: _Optional[_Iterable[_Union[SavedQuery, _Mapping]]] = ...) -> None: ...

class SaveQueryRequest(_message.Message):
    __slots__ = ("name", "question", "sql", "plan", "run_heavy")
    NAME_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    SQL_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    RUN_HEAVY_FIELD_NUMBER: _ClassVar[int]
    name: str
    question: str
    sql: str
    plan: _query_pb2.QueryPlan
    run_heavy: bool
    def __init__(self, name: _Optional[str] = ..., question: _Optional[str] = ..., sql: _Optional[str] = ..., plan: _Optional[_Union[_query_pb2.QueryPlan, _Mapping]] = ..., run_heavy: _Optional[bool] = ...) -> None: ...

class SaveQueryResponse(_message.Message):
    __slots__ = ("query",)
    QUERY_FIELD_NUMBER: _ClassVar[int]
    query: SavedQuery
    def __init__(self, query: _Optional[_Union[SavedQuery, _Mapping]] = ...) -> None: ...

class DeleteSavedQueryRequest(_message.Message):
    __slots__ = ("query",)
    QUERY_FIELD_NUMBER: _ClassVar[int]
    query: str
    def __init__(self, query: _Optional[str] = ...) -> None: ...

class DeleteSavedQueryResponse(_message.Message):
    __slots__ = ("query",)
    QUERY_FIELD_NUMBER: _ClassVar[int]
    query: SavedQuery
    def __init__(self, query: _Optional[_Union[SavedQuery, _Mapping]] = ...) -> None: ...
