"""What following a run yields, and the answer it comes to.

A run's log is a sequence of ``aware.v1.ServerEvent`` messages numbered ``seq`` 1, 2, 3, … that
ends with exactly one ``RunCompleted``. :func:`AwareClient.run_stream` yields each of them once, in
order, as an :class:`Event`, and says what the connection is doing between them:

- :class:`Connected` — a stream was opened, replaying from ``after_seq``;
- :class:`Heartbeat` — the server is alive (every 5 s on an idle stream);
- :class:`Reconnecting` — the connection broke or went silent; it is reopened from the last
  delivered seq after ``delay`` seconds.

Every item has a ``kind``: ``"event"``, ``"heartbeat"``, ``"reconnecting"`` or ``"connected"``.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, List, Optional, Union

from ._util import enum_name
from ._util import timestamp as _time
from .errors import AwareError, from_error_message
from .models import Dataset, SearchResults, Statistics
from .results import Table
from .v1 import events_pb2, run_pb2

__all__ = [
    "Event",
    "Heartbeat",
    "Reconnecting",
    "Connected",
    "StreamItem",
    "ToolResult",
    "Confirmation",
    "Clarification",
    "Answer",
]


@dataclass(frozen=True)
class Event:
    """One sequenced event of a run (``seq`` ≥ 1), delivered exactly once."""

    kind: ClassVar[str] = "event"
    run_id: str
    seq: int
    #: The payload's name: ``"run_started"``, ``"text_delta"``, ``"tool_call_started"``,
    #: ``"tool_result"``, ``"confirmation_required"``, ``"run_completed"``, …
    type: str
    #: The payload message (e.g. ``aware.v1.TextDelta``).
    payload: Any
    #: The whole ``aware.v1.ServerEvent``.
    message: Any = field(repr=False, compare=False)

    @classmethod
    def from_message(cls, event: Any) -> "Event":
        case = event.WhichOneof("payload") or ""
        return cls(
            run_id=event.run_id,
            seq=event.seq,
            type=case,
            payload=getattr(event, case) if case else None,
            message=event,
        )

    @property
    def time(self) -> Optional[_dt.datetime]:
        return _time(self.message.time)

    @property
    def thread_id(self) -> str:
        return str(self.message.thread_id)

    @property
    def iteration(self) -> int:
        return int(self.message.iteration)

    @property
    def text(self) -> str:
        """The text a ``text_delta`` adds ("" for other events)."""
        return str(self.payload.delta) if self.type == "text_delta" else ""

    @property
    def is_terminal(self) -> bool:
        return self.type == "run_completed"

    @property
    def result(self) -> Optional["ToolResult"]:
        """The tool result a ``tool_result`` event carries."""
        return ToolResult.from_message(self.payload) if self.type == "tool_result" else None

    @property
    def confirmation(self) -> Optional["Confirmation"]:
        """The request a ``confirmation_required`` event carries."""
        if self.type != "confirmation_required":
            return None
        return Confirmation.from_message(self.payload, run_id=self.run_id)

    @property
    def clarification(self) -> Optional["Clarification"]:
        """The question a ``clarification_required`` event asks."""
        if self.type != "clarification_required":
            return None
        return Clarification.from_message(self.payload, run_id=self.run_id)


@dataclass(frozen=True)
class Heartbeat:
    """The server is alive; ``active_runs`` says what each of the stream's runs is doing."""

    kind: ClassVar[str] = "heartbeat"
    message: Any = field(repr=False)

    @property
    def server_time(self) -> Optional[_dt.datetime]:
        return _time(self.message.heartbeat.server_time)

    @property
    def active_runs(self) -> List[Dict[str, Any]]:
        return [
            {
                "run_id": r.run_id,
                "phase": enum_name(events_pb2.RunPhase, r.phase, "RUN_PHASE_"),
                "last_seq": r.last_seq,
                "confirmation_ms_left": r.confirmation_ms_left,
            }
            for r in self.message.heartbeat.active_runs
        ]


@dataclass(frozen=True)
class Reconnecting:
    """The stream broke or went silent; it is reopened after ``delay`` seconds from ``after_seq``."""

    kind: ClassVar[str] = "reconnecting"
    attempt: int
    after_seq: int
    error: str
    delay: float


@dataclass(frozen=True)
class Connected:
    """A stream was opened; events with seq > ``after_seq`` follow."""

    kind: ClassVar[str] = "connected"
    after_seq: int


StreamItem = Union[Event, Heartbeat, Reconnecting, Connected]


@dataclass(frozen=True)
class ToolResult:
    """What one tool call returned: the rich result for people and the summary the model saw."""

    tool_name: str
    tool_call_id: str
    is_error: bool
    #: Exactly what the model was given (names, counts, ranges — never raw cells).
    summary: str
    #: The rich result's name: ``"table"``, ``"dataset_list"``, ``"statistics"``, … ("" if none).
    rich: str
    #: The rich result: a :class:`~aware.results.Table` for a table, a
    #: :class:`~aware.models.Dataset` (or a list of them) for datasets,
    #: :class:`~aware.models.Statistics`, :class:`~aware.models.SearchResults`, else the message.
    value: Any = field(repr=False)
    error: Optional[AwareError]
    executed_sql: str
    duration_ms: int
    message: Any = field(repr=False, compare=False)

    @classmethod
    def from_message(cls, result: Any) -> "ToolResult":
        rich = result.WhichOneof("rich") or ""
        value: Any = getattr(result, rich) if rich else None
        if rich == "table":
            value = Table(value, sql=result.executed_sql)
        elif rich in ("deleted_dataset",):
            value = Dataset.from_message(value)
        elif rich == "dataset_list":
            value = [Dataset.from_message(d) for d in value.datasets]
        elif rich == "dataset_detail":
            value = Dataset.from_message(value.dataset, sample=Table(value.sample) if value.HasField("sample") else None)
        elif rich == "statistics":
            value = Statistics(value)
        elif rich == "search_hits":
            value = SearchResults(value)
        error = from_error_message(result.error) if result.is_error and result.HasField("error") else None
        return cls(
            tool_name=result.tool_name,
            tool_call_id=result.tool_call_id,
            is_error=result.is_error,
            summary=result.llm_summary,
            rich=rich,
            value=value,
            error=error,
            executed_sql=result.executed_sql,
            duration_ms=result.duration_ms,
            message=result,
        )

    @property
    def table(self) -> Optional[Table]:
        return self.value if self.rich == "table" else None

    @property
    def chart(self) -> Optional[Dict[str, Any]]:
        """The Vega-Lite v5 spec the server chose for a table result, when one suits it."""
        if not self.message.HasField("chart") or not self.message.chart.vega_lite_json:
            return None
        spec: Dict[str, Any] = json.loads(self.message.chart.vega_lite_json)
        return spec


@dataclass(frozen=True)
class Confirmation:
    """A tool call waiting for a person's approval (``ConfirmationRequired``)."""

    id: str
    run_id: str
    tool_name: str
    #: Plain English: what approving will do.
    description: str
    #: ``"STANDARD"`` or ``"ELEVATED"`` (destructive and irreversible).
    tier: str
    #: The resource approval acts on: ``{"type", "id", "display_name"}``.
    resource: Dict[str, str]
    expires_at: Optional[_dt.datetime]
    arguments: Dict[str, Any]
    #: Whether it may be approved for a while (STANDARD tools only).
    grantable: bool
    message: Any = field(repr=False, compare=False)

    @classmethod
    def from_message(cls, c: Any, *, run_id: str = "") -> "Confirmation":
        try:
            arguments = json.loads(c.resolved_arguments_json or c.arguments_json or "{}")
        except ValueError:
            arguments = {}
        return cls(
            id=c.confirmation_id,
            run_id=run_id,
            tool_name=c.tool_name,
            description=c.description,
            tier=enum_name(events_pb2.ConfirmationTier, c.tier, "CONFIRMATION_TIER_"),
            resource={"type": c.resource.type, "id": c.resource.id, "display_name": c.resource.display_name},
            expires_at=_time(c.expires_at),
            arguments=arguments if isinstance(arguments, dict) else {},
            grantable=c.grantable,
            message=c,
        )


@dataclass(frozen=True)
class Clarification:
    """A question back (``ClarificationRequired``): answer with one option's ``value``."""

    id: str
    run_id: str
    question: str
    phrase: str
    #: Each option: ``{"value", "label"}`` (and the figures in ``message.options``).
    options: List[Dict[str, str]]
    expires_at: Optional[_dt.datetime]
    message: Any = field(repr=False, compare=False)

    @classmethod
    def from_message(cls, c: Any, *, run_id: str = "") -> "Clarification":
        return cls(
            id=c.clarification_id,
            run_id=run_id,
            question=c.question,
            phrase=c.phrase,
            options=[{"value": o.value, "label": o.label} for o in c.options],
            expires_at=_time(c.expires_at),
            message=c,
        )


@dataclass
class Answer:
    """A finished run: its final text, its rich results and every event it logged."""

    run_id: str
    thread_id: str
    #: ``"SUCCEEDED"``, ``"FAILED"``, ``"CANCELLED"`` or ``"MAX_ITERATIONS"``.
    status: str
    #: What the run came to: ``"ANSWERED"``, ``"ASKED_BACK"``, ``"NOT_UNDERSTOOD"``, ``"DENIED"``,
    #: ``"EXPIRED"``, ``"CANCELLED"`` or ``"FAILED"``. A run that "succeeded" may have asked back
    #: or not understood the question: check this, not ``status``, before trusting ``text``.
    outcome: str
    #: The final answer text.
    text: str
    results: List[ToolResult]
    events: List[Event] = field(repr=False)
    error: Optional[AwareError] = None
    #: Token usage (``aware.v1.Usage``).
    usage: Any = field(default=None, repr=False)

    @property
    def tables(self) -> List[Table]:
        """The tables the run's tools returned, in order."""
        return [r.table for r in self.results if r.table is not None]

    @property
    def confirmations(self) -> List[Confirmation]:
        return [c for c in (e.confirmation for e in self.events) if c is not None]

    def __str__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in self.text.split("\n\n") if p.strip())
        said = self.outcome.lower().replace("_", " ")
        status = "" if self.outcome == "ANSWERED" else f"<p><b>{html.escape(said)}</b></p>"
        return status + paragraphs + "".join(t._repr_html_() for t in self.tables)


def answer_from_events(events: List[Event], *, run_id: str, thread_id: str = "") -> Answer:
    """The answer a run's events come to (its last event must be ``run_completed``)."""
    last = events[-1].payload if events and events[-1].type == "run_completed" else None
    if last is None:
        raise ValueError("the run has not completed")
    status = enum_name(run_pb2.RunStatus, last.status, "RUN_STATUS_")
    outcome = enum_name(run_pb2.RunOutcome, last.outcome, "RUN_OUTCOME_")
    error = from_error_message(last.error, run_id=run_id) if last.HasField("error") and last.error.code else None
    text = last.final_text or "".join(e.text for e in events)
    thread = thread_id or next((e.thread_id for e in events if e.thread_id), "")
    results = [r for r in (e.result for e in events) if r is not None]
    return Answer(
        run_id=run_id,
        thread_id=thread,
        status=status,
        outcome=outcome,
        text=text,
        results=results,
        events=events,
        error=error,
        usage=last.usage,
    )

