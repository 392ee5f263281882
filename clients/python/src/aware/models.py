"""Datasets, their statistics and search hits, and a new API key, as plain Python objects.

Each wraps the generated message (kept as ``.message``) and exposes its fields with Python types:
enums as short names (``"READY"``), timestamps as UTC ``datetime``s, cells as Python values.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ._util import enum_name
from ._util import timestamp as _time
from .results import Column, Table, value_to_python
from .v1 import common_pb2, datasets_pb2

if TYPE_CHECKING:
    import pandas

__all__ = ["Dataset", "NewApiKey", "Statistics", "SearchResults"]


@dataclass(frozen=True)
class Dataset:
    """One of your datasets: an ingested file (or a saved result, or a knowledge document)."""

    id: str
    #: The original file name, e.g. ``"Barcelona Apartments.csv"``.
    name: str
    #: The name to use in SQL, e.g. ``"barcelona_apartments"``.
    table_name: str
    #: ``"CSV"``, ``"TSV"``, ``"PARQUET"``, ``"JSON"``, ``"NDJSON"``, ``"DERIVED"``, ``"MARKDOWN"``, ``"TEXT"``.
    format: str
    #: ``"PROCESSING"``, ``"READY"`` or ``"ERROR"`` (``error`` says why).
    status: str
    row_count: int
    size_bytes: int
    columns: List[Column]
    version_hash: str
    created_at: Optional[_dt.datetime]
    updated_at: Optional[_dt.datetime]
    error: str
    description: str
    #: A few sample rows (from ``datasets.get``), else ``None``.
    sample: Optional[Table] = field(default=None, repr=False, compare=False)
    message: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_message(cls, d: Any, sample: Optional[Table] = None) -> "Dataset":
        return cls(
            id=d.id,
            name=d.name,
            table_name=d.table_name,
            format=enum_name(datasets_pb2.DatasetFormat, d.format, "DATASET_FORMAT_"),
            status=enum_name(datasets_pb2.DatasetStatus, d.status, "DATASET_STATUS_"),
            row_count=d.row_count,
            size_bytes=d.size_bytes,
            columns=[Column.from_message(c) for c in d.columns],
            version_hash=d.version_hash,
            created_at=_time(d.created_at),
            updated_at=_time(d.updated_at),
            error=d.error,
            description=d.description,
            sample=sample,
            message=d,
        )

    @property
    def schema(self) -> Dict[str, str]:
        """``{column: DuckDB type}``."""
        return {c.name: c.type for c in self.columns}


class Statistics:
    """A dataset's profile: per column, NULLs, distinct values, min, max, mean, median, stddev."""

    def __init__(self, message: Any) -> None:
        self.message = message
        self.dataset_id: str = message.dataset_id
        self.table_name: str = message.table_name
        self.row_count: int = message.row_count
        self.exec_time_ms: int = message.exec_time_ms

    @property
    def columns(self) -> List[Dict[str, Any]]:
        """One dict per column; statistics that do not apply to its type are ``None``."""
        out = []
        for c in self.message.columns:
            kind = enum_name(common_pb2.ValueKind, c.kind, "VALUE_KIND_")
            out.append(
                {
                    "column": c.name,
                    "type": c.type,
                    "null_count": c.null_count,
                    "distinct_count": c.distinct_count,
                    "min": value_to_python(c.min, c.type, kind) if c.HasField("min") else None,
                    "max": value_to_python(c.max, c.type, kind) if c.HasField("max") else None,
                    "mean": c.mean if c.HasField("mean") else None,
                    "median": c.median if c.HasField("median") else None,
                    "stddev": c.stddev if c.HasField("stddev") else None,
                    "min_length": c.min_length if c.HasField("min_length") else None,
                    "max_length": c.max_length if c.HasField("max_length") else None,
                }
            )
        return out

    def to_pandas(self) -> "pandas.DataFrame":
        """One row per column (min and max keep each column's own Python type: dtype object)."""
        import pandas as pd

        frame = pd.DataFrame(self.columns)
        for name in ("mean", "median", "stddev"):
            frame[name] = pd.array(frame[name].tolist(), dtype="Float64")
        for name in ("null_count", "distinct_count", "min_length", "max_length"):
            frame[name] = pd.array(frame[name].tolist(), dtype="Int64")
        return frame.set_index("column")

    def _repr_html_(self) -> str:
        import html

        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape('' if v is None else str(v))}</td>" for v in c.values()) + "</tr>"
            for c in self.columns
        )
        head = "".join(
            f"<th>{h}</th>"
            for h in ("column", "type", "nulls", "distinct", "min", "max", "mean", "median", "stddev", "min len", "max len")
        )
        title = html.escape(f"{self.table_name}: {self.row_count:,} rows")
        return f"<p><b>{title}</b></p><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"

    def __repr__(self) -> str:
        return f"<aware.Statistics {self.table_name}: {self.row_count} rows, {len(self.message.columns)} columns>"


class SearchResults:
    """Rows whose text matched a search, best first (``hits`` are ``aware.v1.SearchHit``)."""

    def __init__(self, message: Any) -> None:
        self.message = message
        self.hits: List[Any] = list(message.hits)
        #: ``"hybrid"``, ``"lexical"`` or ``"vector"``: how the hits were found.
        self.mode: str = message.mode
        #: What limited the search, in plain words ("" when nothing did).
        self.note: str = message.note

    def __len__(self) -> int:
        return len(self.hits)

    def __iter__(self) -> Any:
        return iter(self.hits)

    def to_pandas(self) -> "pandas.DataFrame":
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "table_name": h.table_name,
                    "row_id": h.row_id,
                    "column": h.column,
                    "text": h.text,
                    "score": h.score,
                    "lexical_rank": h.lexical_rank,
                    "vector_rank": h.vector_rank,
                    "dataset_id": h.dataset_id,
                }
                for h in self.hits
            ],
            columns=["table_name", "row_id", "column", "text", "score", "lexical_rank", "vector_rank", "dataset_id"],
        )

    def __repr__(self) -> str:
        return f"<aware.SearchResults {len(self.hits)} hits ({self.mode})>"


@dataclass(frozen=True, repr=False)
class NewApiKey:
    """An API key just created (``client.admin.create_api_key``): its ``token``, shown this once
    (the server keeps only its hash), and the key itself (``aware.v1.ApiKey``: id, user, prefix,
    dates). Connect as its user with ``AwareClient(url, new_key.token)``. Its repr leaves the
    token out, so that it does not end up in a log by accident."""

    token: str
    #: The key as ``admin.list_api_keys`` shows it (``aware.v1.ApiKey``).
    key: Any

    @property
    def key_id(self) -> str:
        return str(self.key.key_id)

    @property
    def user_id(self) -> str:
        return str(self.key.user_id)

    @property
    def prefix(self) -> str:
        """The token's first characters, e.g. ``"aw_1a2b3c4d"``: how lists name the key."""
        return str(self.key.prefix)

    @property
    def expires_at(self) -> Optional[_dt.datetime]:
        return _time(self.key.expires_at)

    def __repr__(self) -> str:
        return f"<aware.NewApiKey {self.key_id} ({self.prefix}…) for {self.user_id}>"
