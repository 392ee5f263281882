import datetime

from aware.v1 import common_pb2 as _common_pb2
from aware.v1 import datasets_pb2 as _datasets_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EntryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENTRY_KIND_UNSPECIFIED: _ClassVar[EntryKind]
    ENTRY_KIND_FILE: _ClassVar[EntryKind]
    ENTRY_KIND_DIRECTORY: _ClassVar[EntryKind]
    ENTRY_KIND_OTHER: _ClassVar[EntryKind]
ENTRY_KIND_UNSPECIFIED: EntryKind
ENTRY_KIND_FILE: EntryKind
ENTRY_KIND_DIRECTORY: EntryKind
ENTRY_KIND_OTHER: EntryKind

class FileRoot(_message.Message):
    __slots__ = ("name", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class DirectoryEntry(_message.Message):
    __slots__ = ("name", "path", "kind", "size_bytes", "modified_at", "importable_format")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    IMPORTABLE_FORMAT_FIELD_NUMBER: _ClassVar[int]
    name: str
    path: str
    kind: EntryKind
    size_bytes: int
    modified_at: _timestamp_pb2.Timestamp
    importable_format: _datasets_pb2.DatasetFormat
    def __init__(self, name: _Optional[str] = ..., path: _Optional[str] = ..., kind: _Optional[_Union[EntryKind, str]] = ..., size_bytes: _Optional[int] = ..., modified_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., importable_format: _Optional[_Union[_datasets_pb2.DatasetFormat, str]] = ...) -> None: ...

class DirectoryListing(_message.Message):
    __slots__ = ("root", "path", "entries", "truncated")
    ROOT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    root: str
    path: str
    entries: _containers.RepeatedCompositeFieldContainer[DirectoryEntry]
    truncated: bool
    def __init__(self, root: _Optional[str] = ..., path: _Optional[str] = ..., entries: _Optional[_Iterable[_Union[DirectoryEntry, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class ImportedFile(_message.Message):
    __slots__ = ("path", "dataset", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    dataset: _datasets_pb2.Dataset
    error: _common_pb2.Error
    def __init__(self, path: _Optional[str] = ..., dataset: _Optional[_Union[_datasets_pb2.Dataset, _Mapping]] = ..., error: _Optional[_Union[_common_pb2.Error, _Mapping]] = ...) -> None: ...

class ImportReport(_message.Message):
    __slots__ = ("root", "files")
    ROOT_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    root: str
    files: _containers.RepeatedCompositeFieldContainer[ImportedFile]
    def __init__(self, root: _Optional[str] = ..., files: _Optional[_Iterable[_Union[ImportedFile, _Mapping]]] = ...) -> None: ...

class ListRootsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListRootsResponse(_message.Message):
    __slots__ = ("roots",)
    ROOTS_FIELD_NUMBER: _ClassVar[int]
    roots: _containers.RepeatedCompositeFieldContainer[FileRoot]
    def __init__(self, roots: _Optional[_Iterable[_Union[FileRoot, _Mapping]]] = ...) -> None: ...

class ListDirectoryRequest(_message.Message):
    __slots__ = ("root", "path", "pattern")
    ROOT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    root: str
    path: str
    pattern: str
    def __init__(self, root: _Optional[str] = ..., path: _Optional[str] = ..., pattern: _Optional[str] = ...) -> None: ...

class ListDirectoryResponse(_message.Message):
    __slots__ = ("listing",)
    LISTING_FIELD_NUMBER: _ClassVar[int]
    listing: DirectoryListing
    def __init__(self, listing: _Optional[_Union[DirectoryListing, _Mapping]] = ...) -> None: ...

class ImportFilesRequest(_message.Message):
    __slots__ = ("root", "paths")
    ROOT_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    root: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, root: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ...) -> None: ...

class ImportFilesResponse(_message.Message):
    __slots__ = ("report",)
    REPORT_FIELD_NUMBER: _ClassVar[int]
    report: ImportReport
    def __init__(self, report: _Optional[_Union[ImportReport, _Mapping]] = ...) -> None: ...
