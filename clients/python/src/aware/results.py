"""Typed tables: aware's result sets as Python values, Arrow, pandas and polars.

A ``Table`` from the server has typed columns (the DuckDB type name and a kind) and typed cells.
This module turns them into the types a data person expects and keeps them exact: a value that a
target type cannot hold is never rounded, truncated or guessed — it is kept as an exact Python
object (``decimal.Decimal``, ``int``) or, where no such fallback exists, a
:class:`~aware.errors.DataConversionError` names the column and row.

How each column type lands (``to_pandas`` uses pandas' nullable dtypes, so an integer column with
NULLs stays integer, and a NULL double (``<NA>``) stays distinct from a NaN the data holds; the
dtype depends on the column's type, not on whether this result happens to hold a NULL):

==========================  ===================  ======================  =======================
aware column (DuckDB type)  ``to_arrow``         ``to_pandas``           ``to_polars``
==========================  ===================  ======================  =======================
BOOLEAN                     bool                 boolean                 Boolean
TINYINT … BIGINT            int8 … int64         Int8 … Int64            Int8 … Int64
UTINYINT … UBIGINT          uint8 … uint64       UInt8 … UInt64          UInt8 … UInt64
HUGEINT, UHUGEINT           decimal128(38, 0)    Int64 (*)               Int128 / UInt128
REAL / DOUBLE               float32 / float64    Float32 / Float64       Float32 / Float64
DECIMAL(p, s)               decimal128(p, s)     Float64 (**)            Decimal(p, s)
VARCHAR (and enums, UUIDs)  string               string                  String
DATE                        date32               datetime64[us]          Date
TIMESTAMP                   timestamp[us]        datetime64[us]          Datetime(us)
TIMESTAMP WITH TIME ZONE    timestamp[us, UTC]   datetime64[us, UTC]     Datetime(us, UTC)
TIME                        time64[us]           object (datetime.time)  Time
BLOB                        binary               object (bytes)          Binary
INTERVAL, lists, structs    string (as DuckDB    string                  String
                            renders them)
==========================  ===================  ======================  =======================

(*) ``sum()`` of an integer column is a HUGEINT in DuckDB. Its values become Int64 when every one
fits in 64 bits; otherwise the column holds exact Python ``int`` objects (dtype object).
(**) A DECIMAL of at most 15 digits is held exactly enough by a double (it prints back the same
digits). A wider one becomes Float64 only when every value converts back to the same decimal;
otherwise the column holds exact ``decimal.Decimal`` objects (dtype object).
"""

from __future__ import annotations

import datetime as _dt
import html
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from .errors import DataConversionError
from .v1 import common_pb2

if TYPE_CHECKING:  # optional dependencies, imported lazily at run time
    import pandas
    import polars
    import pyarrow

__all__ = ["Column", "Table", "value_to_python"]

_EPOCH_DATE = _dt.date(1970, 1, 1)
_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_MICROS_PER_DAY = 86_400_000_000
# DuckDB's ±infinity dates and timestamps arrive as these sentinels. No Python, Arrow, pandas or
# polars date means "infinity", and showing them as the year 5881580 would be confidently wrong.
_DATE_INFINITY = 2**31 - 1
_INFINITY = "DuckDB's 'infinity' or '-infinity', which no date type here can hold: make it NULL in the SQL"
# Rows shown by the notebook view before "… N more rows".
HTML_ROWS = 50

_INT_WIDTHS: Dict[str, Tuple[int, bool]] = {
    "TINYINT": (8, True),
    "INT1": (8, True),
    "SMALLINT": (16, True),
    "INT2": (16, True),
    "INTEGER": (32, True),
    "INT": (32, True),
    "INT4": (32, True),
    "SIGNED": (32, True),
    "BIGINT": (64, True),
    "INT8": (64, True),
    "LONG": (64, True),
    "UTINYINT": (8, False),
    "USMALLINT": (16, False),
    "UINTEGER": (32, False),
    "UBIGINT": (64, False),
}
_DECIMAL_TYPE = re.compile(r"^(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$")


@dataclass(frozen=True)
class Column:
    """One column of a table: its name, its DuckDB type name and the family of its cells."""

    name: str
    #: The DuckDB type name, e.g. ``"BIGINT"``, ``"DECIMAL(18,3)"``, ``"TIMESTAMP WITH TIME ZONE"``.
    type: str
    #: ``"BOOL"``, ``"INT"``, ``"DOUBLE"``, ``"DECIMAL"``, ``"STRING"``, ``"DATE"``, ``"TIMESTAMP"``,
    #: ``"TIME"``, ``"INTERVAL"``, ``"BYTES"`` or ``"NESTED"``.
    kind: str
    nullable: bool = True

    @classmethod
    def from_message(cls, c: Any) -> "Column":
        try:
            kind = common_pb2.ValueKind.Name(c.kind).removeprefix("VALUE_KIND_")
        except ValueError:
            kind = "UNSPECIFIED"
        return cls(name=c.name, type=c.type, kind=kind, nullable=c.nullable)


@dataclass(frozen=True)
class _Plan:
    """How one column's cells decode: a logical type and its parameters."""

    logical: str  # bool int float decimal bigint string text bytes date timestamp timestamptz time other
    bits: int = 64
    signed: bool = True
    precision: int = 0
    scale: int = 0


def _plan(column: Column) -> _Plan:
    base_type = column.type.strip().upper()
    base = base_type.split("(")[0].strip()
    kind = column.kind
    if kind == "BOOL":
        return _Plan("bool")
    if kind == "INT":
        bits, signed = _INT_WIDTHS.get(base, (64, True))
        return _Plan("int", bits=bits, signed=signed)
    if kind == "DOUBLE":
        return _Plan("float", bits=32 if base in ("FLOAT", "REAL", "FLOAT4") else 64)
    if kind == "DECIMAL":
        m = _DECIMAL_TYPE.match(base_type)
        if m:
            return _Plan("decimal", precision=int(m.group(1)), scale=int(m.group(2)))
        if base in ("DECIMAL", "NUMERIC"):  # DuckDB's default width
            return _Plan("decimal", precision=18, scale=3)
        return _Plan("bigint", signed=not base.startswith("U"))  # HUGEINT, UHUGEINT
    if kind == "STRING":
        return _Plan("string")
    if kind in ("NESTED", "INTERVAL"):
        return _Plan("text")
    if kind == "BYTES":
        return _Plan("bytes")
    if kind == "DATE":
        return _Plan("date")
    if kind == "TIMESTAMP":
        tz = "WITH TIME ZONE" in base_type or base == "TIMESTAMPTZ"
        return _Plan("timestamptz" if tz else "timestamp")
    if kind == "TIME":
        return _Plan("time")
    return _Plan("other")


def _refuse(column: Column, row: int, why: str) -> DataConversionError:
    return DataConversionError(f"column {column.name!r} ({column.type}), row {row}: {why}")


def _decode(value: Any, plan: _Plan, column: Column, row: int) -> Any:
    """One cell as the raw Python value of its logical type (None for NULL), checked exactly."""
    which = value.WhichOneof("kind")
    if which == "null_value":
        return None
    if which is None:
        # A cell with no value set: what a newer server's kind of cell looks like to these stubs.
        raise _refuse(column, row, "a cell of a kind this client does not know")
    logical = plan.logical
    if logical == "bool" and which == "bool_value":
        return value.bool_value
    if logical == "int":
        if which == "int_value":
            n = value.int_value
        elif which == "decimal_value":  # a UBIGINT beyond 63 bits travels as text
            n = _exact_int(value.decimal_value, column, row)
        else:
            raise _refuse(column, row, f"a {which} cell in an integer column")
        lo, hi = (-(2 ** (plan.bits - 1)), 2 ** (plan.bits - 1) - 1) if plan.signed else (0, 2**plan.bits - 1)
        if not lo <= n <= hi:
            raise _refuse(column, row, f"{n} does not fit {column.type}")
        return n
    if logical == "float":
        if which == "double_value":
            return value.double_value
        if which == "int_value" and abs(value.int_value) <= 2**53:
            return float(value.int_value)
        raise _refuse(column, row, f"a {which} cell in a floating-point column")
    if logical == "decimal":
        if which == "decimal_value":
            try:
                return Decimal(value.decimal_value)
            except ArithmeticError:
                raise _refuse(column, row, f"{value.decimal_value!r} is not a decimal") from None
        if which == "int_value":
            return Decimal(value.int_value)
        raise _refuse(column, row, f"a {which} cell in a decimal column")
    if logical == "bigint":
        if which == "decimal_value":
            return _exact_int(value.decimal_value, column, row)
        if which == "int_value":
            return value.int_value
        raise _refuse(column, row, f"a {which} cell in a {column.type} column")
    if logical in ("string", "text") and which in ("string_value", "text_value"):
        return getattr(value, which)
    if logical == "bytes" and which == "bytes_value":
        return value.bytes_value
    if logical == "date" and which == "date_value":
        if abs(value.date_value) == _DATE_INFINITY:
            raise _refuse(column, row, _INFINITY)
        return value.date_value
    if logical in ("timestamp", "timestamptz") and which == "timestamp_value":
        ts = value.timestamp_value
        if ts.nanos % 1000:
            raise _refuse(column, row, "a timestamp finer than a microsecond")
        micros = ts.seconds * 1_000_000 + ts.nanos // 1000
        if abs(micros) == _INT64_MAX:
            raise _refuse(column, row, _INFINITY)
        return micros
    if logical == "time" and which == "time_value":
        return value.time_value
    if logical == "other":
        return _python_of_cell(value, which)
    raise _refuse(column, row, f"a {which} cell in a {column.kind} column")


def _exact_int(text: str, column: Column, row: int) -> int:
    try:
        d = Decimal(text)
    except ArithmeticError:
        raise _refuse(column, row, f"{text!r} is not a number") from None
    if d != d.to_integral_value():
        raise _refuse(column, row, f"{text} is not a whole number")
    return int(d)


def _python_of_cell(value: Any, which: str) -> Any:
    """A cell of a column whose kind this client does not know, as its exact Python value."""
    if which == "decimal_value":
        return Decimal(value.decimal_value)
    if which == "timestamp_value":
        ts = value.timestamp_value
        return _EPOCH_UTC + _dt.timedelta(seconds=ts.seconds, microseconds=ts.nanos // 1000)
    if which == "date_value":
        return _EPOCH_DATE + _dt.timedelta(days=value.date_value)
    if which == "time_value":
        return _micros_to_time(value.time_value)
    return getattr(value, which)


def _micros_to_time(micros: int) -> _dt.time:
    seconds, us = divmod(micros, 1_000_000)
    minutes, s = divmod(seconds, 60)
    h, m = divmod(minutes, 60)
    return _dt.time(h, m, s, us)


def _to_python(raw: Any, plan: _Plan, column: Column, row: int) -> Any:
    """A decoded cell as the Python value people use (dates as ``datetime.date``, …)."""
    if raw is None:
        return None
    logical = plan.logical
    try:
        if logical == "date":
            return _EPOCH_DATE + _dt.timedelta(days=raw)
        if logical == "timestamp":
            return _EPOCH + _dt.timedelta(microseconds=raw)
        if logical == "timestamptz":
            return _EPOCH_UTC + _dt.timedelta(microseconds=raw)
        if logical == "time":
            return _micros_to_time(raw)
    except (OverflowError, ValueError):
        raise _refuse(column, row, f"{raw} is outside what Python's datetime can hold (use to_arrow())") from None
    return raw


def value_to_python(value: Any, column_type: str = "", kind: str = "") -> Any:
    """One ``aware.v1.Value`` as a Python value, typed by its column when the type is given."""
    which = value.WhichOneof("kind")
    if which == "null_value":
        return None
    if not kind:
        if which is None:
            raise DataConversionError("a cell of a kind this client does not know")
        return _python_of_cell(value, which)
    column = Column(name="", type=column_type, kind=kind)
    plan = _plan(column)
    return _to_python(_decode(value, plan, column, 0), plan, column, 0)


class Table:
    """A typed result set: columns with their DuckDB types, and rows of exact values.

    Iterate it for rows (tuples of Python values), or convert it whole with :meth:`to_pandas`,
    :meth:`to_arrow` or :meth:`to_polars` (each imports its library only when called). In
    Jupyter it shows as a table.

    Attributes:
        columns: the columns, in order.
        row_count: rows in this table.
        truncated: True when the query had more rows than the server's row cap let through.
        exec_time_ms: how long the query ran on the server.
        run_id: the run capsule recording the query (``aware.runs.get(run_id)``), when there is one.
        sql: the SQL that ran (the validator's canonical form), when known.
        message: the ``aware.v1.Table`` message itself.
    """

    def __init__(self, message: Any, *, run_id: str = "", sql: str = "") -> None:
        self.message = message
        self.columns: List[Column] = [Column.from_message(c) for c in message.columns]
        self.row_count: int = len(message.rows)
        self.truncated: bool = message.truncated
        self.exec_time_ms: int = message.exec_time_ms
        self.run_id = run_id
        self.sql = sql
        self._plans = [_plan(c) for c in self.columns]
        self._raw: Optional[List[List[Any]]] = None

    # -- cells ---------------------------------------------------------------------------------

    def _columns_raw(self) -> List[List[Any]]:
        """Every column's cells, decoded and checked once."""
        if self._raw is None:
            width = len(self.columns)
            raw: List[List[Any]] = [[] for _ in range(width)]
            for r, row in enumerate(self.message.rows):
                if len(row.values) != width:
                    raise DataConversionError(f"row {r} has {len(row.values)} cells for {width} columns")
                for i, cell in enumerate(row.values):
                    raw[i].append(_decode(cell, self._plans[i], self.columns[i], r))
            self._raw = raw
        return self._raw

    @property
    def column_names(self) -> List[str]:
        return [c.name for c in self.columns]

    def column(self, name: str) -> List[Any]:
        """One column's values as Python values (the first column of that name)."""
        for i, c in enumerate(self.columns):
            if c.name == name:
                raw = self._columns_raw()[i]
                return [_to_python(v, self._plans[i], c, r) for r, v in enumerate(raw)]
        raise KeyError(name)

    @property
    def rows(self) -> List[Tuple[Any, ...]]:
        """Every row as a tuple of Python values: ``int``, ``float``, ``decimal.Decimal``, ``str``,
        ``bool``, ``bytes``, ``datetime.date``/``datetime``/``time`` (UTC-aware for time-zone
        columns), ``None`` for NULL."""
        cols = [self.column_at(i) for i in range(len(self.columns))]
        return list(zip(*cols)) if cols else [() for _ in range(self.row_count)]

    def column_at(self, index: int) -> List[Any]:
        c, plan = self.columns[index], self._plans[index]
        return [_to_python(v, plan, c, r) for r, v in enumerate(self._columns_raw()[index])]

    def records(self) -> List[Dict[str, Any]]:
        """Every row as a ``{column: value}`` dict."""
        names = self.column_names
        return [dict(zip(names, row)) for row in self.rows]

    def __len__(self) -> int:
        return self.row_count

    def __iter__(self) -> Iterator[Tuple[Any, ...]]:
        return iter(self.rows)

    # -- Arrow ---------------------------------------------------------------------------------

    def to_arrow(self) -> "pyarrow.Table":
        """The table as a ``pyarrow.Table`` with exact types (needs ``pyarrow``)."""
        pa = _require("pyarrow", "to_arrow")
        arrays = [
            _arrow_array(pa, raw, plan, col)
            for raw, plan, col in zip(self._columns_raw(), self._plans, self.columns)
        ]
        return pa.Table.from_arrays(arrays, names=self.column_names)

    # -- pandas --------------------------------------------------------------------------------

    def to_pandas(self, dtype_backend: str = "numpy_nullable") -> "pandas.DataFrame":
        """The table as a ``pandas.DataFrame`` (needs ``pandas``).

        ``dtype_backend`` is pandas' own choice of column types: ``"numpy_nullable"`` (the
        default; see the module's table) or ``"pyarrow"`` (``pandas.ArrowDtype`` columns over
        :meth:`to_arrow`'s exact types; needs ``pyarrow`` too).
        """
        pd = _require("pandas", "to_pandas")
        if dtype_backend == "pyarrow":
            return self.to_arrow().to_pandas(types_mapper=pd.ArrowDtype)
        if dtype_backend != "numpy_nullable":
            raise ValueError(f"dtype_backend must be 'numpy_nullable' or 'pyarrow', not {dtype_backend!r}")
        series = [
            _pandas_series(pd, raw, plan, col)
            for raw, plan, col in zip(self._columns_raw(), self._plans, self.columns)
        ]
        frame = pd.DataFrame({i: s for i, s in enumerate(series)}, index=pd.RangeIndex(self.row_count))
        frame.columns = self.column_names  # positional: a result may repeat a column name
        return frame

    # -- polars --------------------------------------------------------------------------------

    def to_polars(self) -> "polars.DataFrame":
        """The table as a ``polars.DataFrame`` with exact types (needs ``polars``)."""
        pl = _require("polars", "to_polars")
        series = [
            _polars_series(pl, raw, plan, col)
            for raw, plan, col in zip(self._columns_raw(), self._plans, self.columns)
        ]
        return pl.DataFrame(series)

    # -- display -------------------------------------------------------------------------------

    def _display_cell(self, index: int, row: int) -> Optional[str]:
        cell = self.message.rows[row].values[index]
        try:
            value = _to_python(_decode(cell, self._plans[index], self.columns[index], row),
                               self._plans[index], self.columns[index], row)
        except DataConversionError:
            which = cell.WhichOneof("kind")
            return str(getattr(cell, which)) if which else "?"
        if value is None:
            return None
        if isinstance(value, bytes):
            return f"<{len(value)} bytes>"
        if isinstance(value, _dt.datetime):
            return value.isoformat(sep=" ")
        return str(value)

    def _repr_html_(self) -> str:
        """The notebook view: a table, every name and cell HTML-escaped."""
        esc = html.escape
        shown = min(self.row_count, HTML_ROWS)
        head = "".join(
            f'<th title="{esc(c.type, quote=True)}">{esc(c.name)}<br>'
            f'<span style="font-weight:normal;opacity:.6">{esc(c.type)}</span></th>'
            for c in self.columns
        )
        body = []
        for r in range(shown):
            cells = []
            for i, c in enumerate(self.columns):
                text = self._display_cell(i, r)
                align = "right" if c.kind in ("INT", "DOUBLE", "DECIMAL") else "left"
                if text is None:
                    cells.append(f'<td style="text-align:{align};opacity:.5"><i>NULL</i></td>')
                else:
                    cells.append(f'<td style="text-align:{align}">{esc(text)}</td>')
            body.append("<tr>" + "".join(cells) + "</tr>")
        notes = [f"{self.row_count:,} row{'s' if self.row_count != 1 else ''} × {len(self.columns)} columns"]
        if shown < self.row_count:
            notes.append(f"first {shown} shown")
        if self.truncated:
            notes.append("cut at the server's row cap: the query had more rows")
        return (
            '<table class="aware-table"><thead><tr>' + head + "</tr></thead><tbody>"
            + "".join(body) + "</tbody></table>"
            + f"<p><small>{esc(' · '.join(notes))}</small></p>"
        )

    def __repr__(self) -> str:
        cols = ", ".join(f"{c.name} {c.type}" for c in self.columns)
        more = ", truncated" if self.truncated else ""
        return f"<aware.Table {self.row_count} rows{more}: {cols}>"


def _require(module: str, method: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        extra = {"pyarrow": "arrow", "pandas": "pandas", "polars": "polars"}[module]
        raise ImportError(
            f"{method}() needs {module}: pip install 'aware-client[{extra}]' (or pip install {module})"
        ) from None


# -- Arrow -------------------------------------------------------------------------------------


def _arrow_array(pa: Any, raw: Sequence[Any], plan: _Plan, col: Column) -> Any:
    logical = plan.logical
    if logical == "bool":
        return pa.array(raw, type=pa.bool_())
    if logical == "int":
        return pa.array(raw, type=getattr(pa, f"{'' if plan.signed else 'u'}int{plan.bits}")())
    if logical == "float":
        return pa.array(raw, type=pa.float32() if plan.bits == 32 else pa.float64())
    if logical == "decimal":
        return pa.array(raw, type=pa.decimal128(plan.precision, plan.scale))
    if logical == "bigint":
        for r, v in enumerate(raw):
            if v is not None and abs(v) >= 10**38:
                raise _refuse(col, r, f"{v} has more digits than an Arrow decimal128 holds")
        return pa.array([None if v is None else Decimal(v) for v in raw], type=pa.decimal128(38, 0))
    if logical in ("string", "text"):
        return pa.array(raw, type=pa.string())
    if logical == "bytes":
        return pa.array(raw, type=pa.binary())
    if logical == "date":
        return pa.array(raw, type=pa.date32())
    if logical == "timestamp":
        return pa.array(raw, type=pa.timestamp("us"))
    if logical == "timestamptz":
        return pa.array(raw, type=pa.timestamp("us", tz="UTC"))
    if logical == "time":
        return pa.array(raw, type=pa.time64("us"))
    return pa.array(raw)  # unknown kinds: Arrow infers from the exact Python values, or refuses


# -- pandas ------------------------------------------------------------------------------------


def _pandas_series(pd: Any, raw: Sequence[Any], plan: _Plan, col: Column) -> Any:
    import numpy as np

    logical = plan.logical
    n = len(raw)
    if logical == "bool":
        return pd.Series(pd.array(raw, dtype="boolean"))
    if logical == "int":
        return pd.Series(pd.array(raw, dtype=f"{'Int' if plan.signed else 'UInt'}{plan.bits}"))
    if logical == "float":
        return pd.Series(_floating(pd, np, raw, plan.bits))
    if logical == "decimal":
        floats = [None if d is None else float(d) for d in raw]
        exact = plan.precision <= 15 or all(
            d is None or Decimal(repr(f)) == d for d, f in zip(raw, floats)
        )
        if exact:
            return pd.Series(_floating(pd, np, floats, 64))
        return pd.Series(list(raw), dtype=object)
    if logical == "bigint":
        if all(v is None or _INT64_MIN <= v <= _INT64_MAX for v in raw):
            return pd.Series(pd.array(raw, dtype="Int64"))
        return pd.Series(list(raw), dtype=object)
    if logical in ("string", "text"):
        return pd.Series(pd.array(raw, dtype="string"))
    if logical in ("date", "timestamp", "timestamptz"):
        micros = np.empty(n, dtype="int64")
        nat = np.iinfo(np.int64).min
        for r, v in enumerate(raw):
            if v is None:
                micros[r] = nat
                continue
            us = v * _MICROS_PER_DAY if logical == "date" else v
            if not nat < us <= _INT64_MAX:
                raise _refuse(col, r, "outside the range of datetime64[us] (use to_arrow())")
            micros[r] = us
        series = pd.Series(micros.view("datetime64[us]"))
        return series.dt.tz_localize("UTC") if logical == "timestamptz" else series
    # time, bytes and kinds this client does not know: exact Python objects
    return pd.Series([_to_python(v, plan, col, r) for r, v in enumerate(raw)], dtype=object)


def _floating(pd: Any, np: Any, values: Sequence[Optional[float]], bits: int) -> Any:
    """A nullable float array in which NULL (masked) and NaN (a value) stay different."""
    dtype = np.float32 if bits == 32 else np.float64
    data = np.array([0.0 if v is None else v for v in values], dtype=dtype)
    mask = np.array([v is None for v in values], dtype=bool)
    return pd.arrays.FloatingArray(data, mask)


# -- polars ------------------------------------------------------------------------------------


def _polars_series(pl: Any, raw: Sequence[Any], plan: _Plan, col: Column) -> Any:
    logical, name = plan.logical, col.name
    if logical == "bool":
        return pl.Series(name, raw, dtype=pl.Boolean)
    if logical == "int":
        return pl.Series(name, raw, dtype=getattr(pl, f"{'Int' if plan.signed else 'UInt'}{plan.bits}"))
    if logical == "float":
        return pl.Series(name, raw, dtype=pl.Float32 if plan.bits == 32 else pl.Float64)
    if logical == "decimal":
        return pl.Series(name, raw, dtype=pl.Decimal(plan.precision, plan.scale))
    if logical == "bigint":
        return pl.Series(name, raw, dtype=pl.Int128 if plan.signed else pl.UInt128)
    if logical in ("string", "text"):
        return pl.Series(name, raw, dtype=pl.String)
    if logical == "bytes":
        return pl.Series(name, raw, dtype=pl.Binary)
    if logical == "date":
        return pl.Series(name, raw, dtype=pl.Int32).cast(pl.Date)
    if logical == "timestamp":
        return pl.Series(name, raw, dtype=pl.Int64).cast(pl.Datetime("us"))
    if logical == "timestamptz":
        return pl.Series(name, raw, dtype=pl.Int64).cast(pl.Datetime("us")).dt.replace_time_zone("UTC")
    if logical == "time":
        return pl.Series(name, [None if v is None else v * 1000 for v in raw], dtype=pl.Int64).cast(pl.Time)
    return pl.Series(name, [_to_python(v, plan, col, r) for r, v in enumerate(raw)], dtype=pl.Object)
