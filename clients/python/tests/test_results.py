"""Typed tables at their edges, from hand-built messages: values no target type holds are kept
exact or refused — never rounded, wrapped or guessed."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, List, Sequence

import pandas as pd
import polars as pl
import pytest

import aware
from aware.results import Table
from aware.v1 import common_pb2


def table(columns: Sequence[tuple], rows: Sequence[Sequence[dict]]) -> Table:
    msg = common_pb2.Table()
    for name, type_, kind in columns:
        msg.columns.add(name=name, type=type_, kind=common_pb2.ValueKind.Value("VALUE_KIND_" + kind), nullable=True)
    for row in rows:
        r = msg.rows.add()
        for cell in row:
            v = r.values.add()
            for field, value in cell.items():
                if field == "null_value":
                    v.null_value = common_pb2.NULL_UNSPECIFIED
                elif field == "timestamp_value":  # set directly: the server may send any 64-bit micros
                    seconds, micros = divmod(value, 1_000_000)
                    v.timestamp_value.seconds, v.timestamp_value.nanos = seconds, micros * 1000
                else:
                    setattr(v, field, value)
    msg.row_count = len(rows)
    return Table(msg)


NULL = {"null_value": 0}


def test_wide_integers_stay_exact() -> None:
    t = table(
        [("u", "UBIGINT", "INT"), ("h", "HUGEINT", "DECIMAL")],
        [
            [{"decimal_value": str(2**64 - 1)}, {"decimal_value": str(-(2**100))}],
            [{"int_value": 7}, {"int_value": 1}],
            [NULL, NULL],
        ],
    )
    assert t.rows == [(2**64 - 1, -(2**100)), (7, 1), (None, None)]
    df = t.to_pandas()
    assert str(df["u"].dtype) == "UInt64" and df["u"][0] == 2**64 - 1
    assert df["h"].dtype == object and df["h"][0] == -(2**100), "beyond 64 bits: exact Python ints"
    assert t.to_polars()["h"].to_list() == [-(2**100), 1, None]
    arrow = t.to_arrow()
    assert str(arrow.schema.field("u").type) == "uint64" and arrow.column("u")[0].as_py() == 2**64 - 1
    assert arrow.column("h")[0].as_py() == Decimal(-(2**100))


def test_a_hugeint_past_38_digits_is_refused_by_arrow_not_wrapped() -> None:
    t = table([("h", "HUGEINT", "DECIMAL")], [[{"decimal_value": str(2**127 - 1)}]])
    with pytest.raises(aware.DataConversionError, match="decimal128"):
        t.to_arrow()
    assert t.to_pandas()["h"][0] == 2**127 - 1


def test_decimals_become_floats_only_when_the_float_is_the_same_number() -> None:
    t = table(
        [("narrow", "DECIMAL(10,2)", "DECIMAL"), ("fits", "DECIMAL(38,10)", "DECIMAL"), ("exact", "DECIMAL(38,20)", "DECIMAL")],
        [
            [{"decimal_value": "0.10"}, {"decimal_value": "1234.5"}, {"decimal_value": "0.12345678901234567891"}],
            [NULL, NULL, NULL],
        ],
    )
    df = t.to_pandas()
    assert str(df["narrow"].dtype) == "Float64" and df["narrow"][0] == 0.1 and pd.isna(df["narrow"][1])
    assert str(df["fits"].dtype) == "Float64" and df["fits"][0] == 1234.5
    assert df["exact"].dtype == object and df["exact"][0] == Decimal("0.12345678901234567891")
    assert t.to_polars()["exact"][0] == Decimal("0.12345678901234567891")
    assert str(t.to_arrow().schema.field("exact").type) == "decimal128(38, 20)"


def test_a_cell_of_the_wrong_kind_or_of_no_kind_is_refused_with_its_place() -> None:
    wrong = table([("n", "BIGINT", "INT")], [[{"int_value": 1}], [{"string_value": "1"}]])
    with pytest.raises(aware.DataConversionError, match=r"column 'n' \(BIGINT\), row 1: a string_value cell"):
        wrong.to_pandas()
    unset = common_pb2.Table()
    unset.columns.add(name="x", type="BIGINT", kind=common_pb2.VALUE_KIND_INT)
    unset.rows.add().values.add()  # a Value with no kind set: what a newer server's cell looks like
    with pytest.raises(aware.DataConversionError, match="a kind this client does not know"):
        Table(unset).rows
    too_big = table([("t", "TINYINT", "INT")], [[{"int_value": 300}]])
    with pytest.raises(aware.DataConversionError, match="does not fit TINYINT"):
        too_big.to_arrow()
    precise = table([("f", "DOUBLE", "DOUBLE")], [[{"int_value": 2**60 + 1}]])
    with pytest.raises(aware.DataConversionError):
        precise.rows


def test_times_and_instants_keep_their_meaning() -> None:
    micros = 1_704_103_200_123_456  # 2024-01-01 10:00:00.123456 UTC
    t = table(
        [("ts", "TIMESTAMP", "TIMESTAMP"), ("tz", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP"), ("d", "DATE", "DATE"),
         ("t", "TIME", "TIME"), ("b", "BLOB", "BYTES"), ("l", "INTEGER[]", "NESTED")],
        [
            [{"timestamp_value": micros}, {"timestamp_value": micros}, {"date_value": -1},
             {"time_value": 3_600_000_001}, {"bytes_value": b"\x00\xff"}, {"text_value": "[1, 2]"}],
            [NULL, NULL, NULL, NULL, NULL, NULL],
        ],
    )
    ts, tz, d, tm, b, lst = t.rows[0]
    assert ts.isoformat() == "2024-01-01T10:00:00.123456" and ts.tzinfo is None
    assert tz.isoformat() == "2024-01-01T10:00:00.123456+00:00"
    assert d.isoformat() == "1969-12-31" and tm.isoformat() == "01:00:00.000001"
    assert (b, lst) == (b"\x00\xff", "[1, 2]")
    assert t.rows[1] == (None,) * 6
    df = t.to_pandas()
    assert str(df["tz"].dtype) == "datetime64[us, UTC]" and df["tz"][0] == pd.Timestamp(micros, unit="us", tz="UTC")
    assert pd.isna(df["ts"][1]) and df["b"][1] is None
    p = t.to_polars()
    assert p.schema["tz"] == pl.Datetime("us", "UTC") and p["t"][0].isoformat() == "01:00:00.000001"
    # A DATE beyond what datetime64[us] holds is refused by pandas, kept by Arrow.
    far = table([("d", "DATE", "DATE")], [[{"date_value": 2_000_000_000}]])
    with pytest.raises(aware.DataConversionError, match="datetime64"):
        far.to_pandas()
    kept = far.to_arrow().column(0)
    assert str(kept.type) == "date32[day]" and kept.cast("int32").to_pylist() == [2_000_000_000]
    # DuckDB's infinite dates and timestamps are refused everywhere rather than shown as a far year.
    for cell, type_, kind in (
        ({"date_value": 2**31 - 1}, "DATE", "DATE"),
        ({"date_value": -(2**31 - 1)}, "DATE", "DATE"),
        ({"timestamp_value": 2**63 - 1}, "TIMESTAMP", "TIMESTAMP"),
    ):
        infinite = table([("x", type_, kind)], [[cell]])
        for convert in (lambda: infinite.rows, infinite.to_arrow, infinite.to_pandas, infinite.to_polars):
            with pytest.raises(aware.DataConversionError, match="infinity"):
                convert()


def test_repeated_column_names_survive_in_pandas_and_arrow() -> None:
    t = table([("a", "BIGINT", "INT"), ("a", "VARCHAR", "STRING")], [[{"int_value": 1}, {"string_value": "x"}]])
    df = t.to_pandas()
    assert list(df.columns) == ["a", "a"] and df.iloc[0].tolist() == [1, "x"]
    assert t.to_arrow().column_names == ["a", "a"]
    records: List[Any] = t.records()
    assert records == [{"a": "x"}], "a dict keeps the last of a repeated name"
