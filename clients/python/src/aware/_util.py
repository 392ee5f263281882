"""Small conversions every module uses: enum numbers as short names, timestamps as datetimes."""

from __future__ import annotations

import datetime as _dt
from typing import Any, Optional


def enum_name(enum: Any, number: int, prefix: str) -> str:
    """An enum number as its short name (``RunStatus`` 4 → ``"SUCCEEDED"``); a number newer than
    these stubs stays a number, as text."""
    try:
        return str(enum.Name(number)).removeprefix(prefix)
    except ValueError:
        return str(number)


def timestamp(ts: Any) -> Optional[_dt.datetime]:
    """A ``google.protobuf.Timestamp`` as a UTC datetime; unset (zero) is None."""
    if ts is None or (ts.seconds == 0 and ts.nanos == 0):
        return None
    return ts.ToDatetime(tzinfo=_dt.timezone.utc)
