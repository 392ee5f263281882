"""What the synchronous and the asynchronous client share: addresses, headers, request building,
the rules for retrying, and the bookkeeping of a resumable run stream."""

from __future__ import annotations

import io
import os
import random
import re
import uuid
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import grpc
from google.protobuf import json_format

from .errors import AwareError, CursorAhead, Unavailable, from_rejected, is_transport_failure
from .events import Answer, Event, Heartbeat, Reconnecting, StreamItem
from .v1 import chat_pb2, query_pb2

PathOrFile = Union[str, "os.PathLike[str]", bytes, BinaryIO]
Progress = Union[bool, Callable[[int, int], Any], None]

# The server's messages may be large (a result table of up to `sandbox.max_result_mb` of cells);
# gRPC's default 4 MiB receive limit would refuse them.
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
UPLOAD_CHUNK_BYTES = 1024 * 1024
_DATASET_ID = re.compile(r"^ds_[0-9a-f]{32}$")

# Codes after which reopening a run stream cannot help: the run is not there or not ours, or the
# request is wrong. Anything else (the connection, a restart, a limit) is worth another try.
_FINAL_STREAM_CODES = {
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.OUT_OF_RANGE,
    grpc.StatusCode.UNIMPLEMENTED,
}


def parse_url(url: str) -> Tuple[str, bool]:
    """``"http://host:port"``, ``"https://host"`` or ``"host:port"`` → (gRPC target, TLS?)."""
    url = url.strip().rstrip("/")
    secure = False
    if url.startswith("https://"):
        secure, url = True, url[len("https://"):]
    elif url.startswith("http://"):
        url = url[len("http://"):]
    if not url:
        raise ValueError("the server address is empty")
    host_only = url.rsplit("]", 1)[-1] if url.startswith("[") else url
    if ":" not in host_only:
        url = f"{url}:{443 if secure else 80}"
    return url, secure


def channel_options(extra: Optional[Sequence[Tuple[str, Any]]] = None) -> List[Tuple[str, Any]]:
    options: Dict[str, Any] = {
        "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
        "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
        # A dropped connection is retried by run_stream with its own backoff; the channel's own
        # reconnect backoff (1 s doubling to 2 min by default) would add to it.
        "grpc.initial_reconnect_backoff_ms": 100,
        "grpc.min_reconnect_backoff_ms": 100,
        "grpc.max_reconnect_backoff_ms": 5_000,
        # Each channel its own connections: a channel that replaces one gone silent must not be
        # handed the same dead connection from gRPC's process-wide pool.
        "grpc.use_local_subchannel_pool": 1,
    }
    for key, value in extra or ():
        options[key] = value
    return list(options.items())


def call_metadata(token: Optional[str], source: Optional[str]) -> Tuple[Tuple[str, str], ...]:
    md: List[Tuple[str, str]] = []
    if token:
        md.append(("authorization", f"Bearer {token}"))
    if source:
        md.append(("x-aware-source", source))
    return tuple(md)


def new_client_msg_id() -> str:
    return f"py_{uuid.uuid4().hex}"


def looks_like_dataset_id(ref: str) -> bool:
    return bool(_DATASET_ID.match(ref))


_ON_BUSY = {
    "": chat_pb2.ON_BUSY_UNSPECIFIED,
    "reject": chat_pb2.ON_BUSY_REJECT,
    "enqueue": chat_pb2.ON_BUSY_ENQUEUE,
    "interrupt": chat_pb2.ON_BUSY_INTERRUPT,
}


def send_message_request(
    text: str, thread_id: Optional[str], on_busy: str, client_msg_id: Optional[str]
) -> Any:
    try:
        busy = _ON_BUSY[on_busy.lower()]
    except KeyError:
        raise ValueError(f"on_busy must be one of 'reject', 'enqueue', 'interrupt', not {on_busy!r}") from None
    return chat_pb2.SendMessageRequest(
        client_msg_id=client_msg_id or new_client_msg_id(),
        message=chat_pb2.UserMessage(thread_id=thread_id or "", text=text, on_busy=busy),
    )


def confirmation_request(
    confirmation_id: str,
    approve: bool,
    for_seconds: Optional[int],
    edited_arguments: Optional[Mapping[str, Any]],
) -> Any:
    import json

    if for_seconds is not None and not approve:
        raise ValueError("for_seconds applies to an approval only")
    return chat_pb2.SubmitConfirmationRequest(
        confirmation_id=confirmation_id,
        approved=approve,
        scope=chat_pb2.CONFIRMATION_SCOPE_SESSION if for_seconds is not None else chat_pb2.CONFIRMATION_SCOPE_ONCE,
        duration_seconds=for_seconds or 0,
        edited_arguments_json=json.dumps(dict(edited_arguments)) if edited_arguments is not None else "",
    )


# -- query plans -------------------------------------------------------------------------------

_PLAN_ENUMS = {"aggregate": "AGGREGATE_", "bucket": "TIME_BUCKET_", "op": "FILTER_OP_"}
_OPS = {"=": "EQ", "==": "EQ", "!=": "NE", "<>": "NE", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE"}


def python_to_value(v: Any) -> Dict[str, Any]:
    """A Python value as ``aware.v1.Value`` JSON (a dict already in that form is kept)."""
    import datetime as dt
    from decimal import Decimal

    if isinstance(v, dict):
        return v
    if v is None:
        return {"null_value": "NULL_UNSPECIFIED"}
    if isinstance(v, bool):
        return {"bool_value": v}
    if isinstance(v, int):
        return {"int_value": str(v)}
    if isinstance(v, float):
        return {"double_value": v}
    if isinstance(v, Decimal):
        return {"decimal_value": str(v)}
    if isinstance(v, str):
        return {"string_value": v}
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=dt.timezone.utc)
        return {"timestamp_value": v.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")}
    if isinstance(v, dt.date):
        return {"date_value": (v - dt.date(1970, 1, 1)).days}
    raise TypeError(f"a plan value must be a bool, int, float, Decimal, str, date or datetime, not {type(v).__name__}")


def _normalise_plan(node: Any, key: str = "") -> Any:
    if isinstance(node, dict):
        out: Dict[str, Any] = {}
        for k, v in node.items():
            if k == "value":
                out[k] = python_to_value(v)
            elif k == "values" and isinstance(v, (list, tuple)):
                out[k] = [python_to_value(x) for x in v]
            else:
                out[k] = _normalise_plan(v, k)
        return out
    if isinstance(node, (list, tuple)):
        return [_normalise_plan(x, key) for x in node]
    if key in _PLAN_ENUMS and isinstance(node, str):
        prefix = _PLAN_ENUMS[key]
        name = _OPS.get(node, node).upper().replace(" ", "_")
        return name if name.startswith(prefix) else prefix + name
    return node


def query_plan(plan: Any) -> Any:
    """A ``QueryPlan`` from its message or from a dict in its JSON form, where enums may be
    short (``"count"`` for ``AGGREGATE_COUNT``, ``">="`` for ``FILTER_OP_GE``) and filter values
    plain Python values."""
    if isinstance(plan, query_pb2.QueryPlan):
        return plan
    if not isinstance(plan, Mapping):
        raise TypeError(f"a plan is a dict or an aware.v1.QueryPlan, not {type(plan).__name__}")
    message = query_pb2.QueryPlan()
    json_format.ParseDict(_normalise_plan(dict(plan)), message)
    return message


# -- retries -----------------------------------------------------------------------------------


def backoff_delay(attempt: int, initial: float, maximum: float) -> float:
    """The wait before retry number ``attempt`` (1-based): doubling, capped, with jitter."""
    return min(maximum, initial * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)


def unary_retry_delay(err: AwareError, idempotent: bool, attempt: int, retries: int) -> Optional[float]:
    """How long to wait before retrying a failed unary call, or None not to retry.

    Only calls that are safe to repeat are retried (reads, and writes the server de-duplicates:
    a message with its ``client_msg_id``, a confirmation's same answer, a cancel), and only when
    the connection failed before aware answered, or aware said when to come back.
    """
    if not idempotent or attempt >= retries:
        return None
    if is_transport_failure(err):
        return backoff_delay(attempt + 1, 0.2, 2.0)
    if err.code in ("RESOURCE_EXHAUSTED", "RUNNER_RESOURCE_EXCEEDED") and err.retry_after is not None:
        return min(err.retry_after, 10.0)
    return None


def is_final_stream_error(err: AwareError) -> bool:
    return err.grpc_code in _FINAL_STREAM_CODES


class StreamGap(Exception):
    """A stream skipped a seq: never delivered as if nothing were missing; the stream is reopened."""


@dataclass
class RunFollower:
    """One run stream's bookkeeping across reconnects: the last delivered seq, and what each
    response means."""

    run_id: str
    last_seq: int = 0
    failures: int = 0
    done: bool = False
    retry_after: Optional[float] = None

    def handle(self, response: Any) -> Optional[StreamItem]:
        """The item to yield for one ``StreamRunResponse``, or None to skip it."""
        event = response.event
        if event.seq == 0:
            case = event.WhichOneof("payload")
            if case == "heartbeat":
                return Heartbeat(message=event)
            if case == "rejected":
                err = from_rejected(event.rejected, run_id=self.run_id)
                if isinstance(err, CursorAhead):
                    err.message += f" (the run's last seq is {event.rejected.last_seq})"
                raise err
            if case == "shutting_down":
                self.retry_after = event.shutting_down.retry_after_ms / 1000
            return None  # replay markers and other news of this stream
        if event.seq <= self.last_seq:
            return None  # delivered before a reconnect
        if event.seq != self.last_seq + 1:
            raise StreamGap(f"seq {event.seq} arrived after {self.last_seq}")
        self.last_seq = event.seq
        self.failures = 0
        item = Event.from_message(event)
        if item.type == "run_completed":
            self.done = True
        return item

    def next_delay(self, error: str, max_attempts: int, initial: float, maximum: float) -> float:
        """Counts a failed connection; the wait before the next, or raises when out of attempts."""
        self.failures += 1
        if self.failures > max_attempts:
            raise Unavailable(
                f"gave up following run {self.run_id} after {max_attempts} reconnects: {error}",
                run_id=self.run_id,
            )
        delay = backoff_delay(self.failures, initial, maximum)
        if self.retry_after is not None:
            delay, self.retry_after = max(delay, self.retry_after), None
        return delay


# -- uploads -----------------------------------------------------------------------------------


@dataclass
class UploadSource:
    file: BinaryIO
    filename: str
    size: int  # 0: unknown
    owned: bool  # opened here, so closed here

    def close(self) -> None:
        if self.owned:
            self.file.close()


def open_upload(source: PathOrFile, filename: Optional[str]) -> UploadSource:
    if isinstance(source, (bytes, bytearray, memoryview)):
        if not filename:
            raise ValueError("uploading bytes needs filename=")
        data = bytes(source)
        return UploadSource(io.BytesIO(data), filename, len(data), True)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        f = open(path, "rb")
        return UploadSource(f, filename or os.path.basename(path), os.fstat(f.fileno()).st_size, True)
    name = filename or os.path.basename(str(getattr(source, "name", "") or ""))
    if not name:
        raise ValueError("this file object has no name: pass filename=")
    size = 0
    try:
        if source.seekable():
            here = source.tell()
            size = source.seek(0, os.SEEK_END) - here
            source.seek(here)
    except (AttributeError, OSError):
        size = 0
    return UploadSource(source, name, max(size, 0), False)


class ProgressReporter:
    """Reports bytes sent: a tqdm bar (``progress=True``), a callback ``(sent, total)``, or nothing."""

    def __init__(self, progress: Progress, total: int, filename: str) -> None:
        self.sent = 0
        self.total = total
        self._callback: Optional[Callable[[int, int], Any]] = None
        self._bar: Any = None
        if progress is True:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                raise ImportError("progress=True needs tqdm: pip install 'aware-client[progress]'") from None
            self._bar = tqdm(
                total=total or None, unit="B", unit_scale=True, unit_divisor=1024, desc=f"uploading {filename}"
            )
        elif callable(progress):
            self._callback = progress

    def advance(self, n: int) -> None:
        self.sent += n
        if self._bar is not None:
            self._bar.update(n)
        if self._callback is not None:
            self._callback(self.sent, self.total)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def upload_messages(src: UploadSource, fmt: str, chunk_size: int) -> Any:
    """The ``UploadDatasetRequest`` messages of a file: (message, bytes in it), lazily."""
    from .v1 import datasets_pb2

    first = True
    while True:
        chunk = src.file.read(chunk_size)
        if not chunk and not first:
            return
        if first:
            msg = datasets_pb2.UploadDatasetRequest(
                filename=src.filename, format=fmt, size_bytes=src.size, chunk=chunk
            )
            first = False
        else:
            msg = datasets_pb2.UploadDatasetRequest(chunk=chunk)
        yield msg, len(chunk)
        if not chunk:
            return


class RunState:
    """What a followed run keeps, in the synchronous ``ChatRun`` and the asynchronous
    ``AsyncChatRun`` alike: its ids, its events so far, the stream's state and the callbacks."""

    _label = "ChatRun"

    def __init__(
        self,
        client: Any,
        run_id: str,
        thread_id: str,
        queued: bool,
        *,
        on_confirmation: Optional[Callable[..., Any]] = None,
        on_clarification: Optional[Callable[..., Any]] = None,
        heartbeat_timeout: float = 15.0,
    ) -> None:
        self.client = client
        self.run_id = run_id
        self.thread_id = thread_id
        #: True when the run waits behind the thread's active run (``on_busy="enqueue"``).
        self.queued = queued
        self.events: List[Event] = []
        #: ``"connecting"``, ``"live"``, ``"reconnecting"`` or ``"done"``.
        self.stream_state = "connecting"
        self._on_confirmation = on_confirmation
        self._on_clarification = on_clarification
        self._stream: Any = None
        self._heartbeat_timeout = heartbeat_timeout
        self._answer: Optional[Answer] = None
        self._answering = False

    def _note(self, item: StreamItem) -> Optional[Event]:
        """Records a stream item; an event is returned for the caller to react to (then
        :meth:`_reacted` marks the end of the run)."""
        if isinstance(item, Event):
            self.stream_state = "live"
            self.events.append(item)
            return item
        if isinstance(item, Reconnecting):
            self.stream_state = "reconnecting"
        return None

    def _reacted(self, event: Event) -> None:
        if event.is_terminal:
            self.stream_state = "done"

    def __repr__(self) -> str:
        return f"<aware.{self._label} {self.run_id} ({self.stream_state}, {len(self.events)} events)>"

