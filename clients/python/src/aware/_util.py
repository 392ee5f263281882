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


def outcome_filter(outcome: str) -> int:
    """A run outcome's name (``"NOT_UNDERSTOOD"``, ``"not understood"``, ``"denied"``) as the
    ``RunOutcome`` number ``ListRuns`` filters by; empty is every outcome."""
    from .v1 import run_pb2

    if not outcome:
        return 0
    name = outcome.strip().upper().replace(" ", "_").replace("-", "_").removeprefix("RUN_OUTCOME_")
    try:
        return int(run_pb2.RunOutcome.Value("RUN_OUTCOME_" + name))
    except ValueError:
        known = ", ".join(n.removeprefix("RUN_OUTCOME_") for n in run_pb2.RunOutcome.keys()[1:])
        raise ValueError(f"{outcome!r} is not a run outcome; one of {known}") from None


def timestamp(ts: Any) -> Optional[_dt.datetime]:
    """A ``google.protobuf.Timestamp`` as a UTC datetime; unset (zero) is None."""
    if ts is None or (ts.seconds == 0 and ts.nanos == 0):
        return None
    return ts.ToDatetime(tzinfo=_dt.timezone.utc)
