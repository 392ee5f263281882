"""The synchronous client: ``AwareClient``."""

from __future__ import annotations

import atexit
import datetime as _dt
import logging
import threading
import time
import weakref
from typing import Any, Callable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import grpc
from google.protobuf import timestamp_pb2

from . import _core
from .errors import (
    AlreadyResolved,
    AwareError,
    ConfirmationExpired,
    IngestError,
    NotFound,
    from_rpc_error,
)
from .events import (
    Answer,
    Clarification,
    Confirmation,
    Connected,
    Event,
    Reconnecting,
    StreamItem,
    answer_from_events,
)
from ._util import enum_name, outcome_filter
from .models import Dataset, NewApiKey, SearchResults, Statistics
from .results import Table
from .v1 import (
    admin_pb2,
    audit_pb2,
    audit_pb2_grpc,
    chat_pb2,
    chat_pb2_grpc,
    datasets_pb2,
    datasets_pb2_grpc,
    events_pb2,
    files_pb2_grpc,
    memory_pb2,
    memory_pb2_grpc,
    query_pb2,
    query_pb2_grpc,
    run_pb2,
    runs_pb2,
    runs_pb2_grpc,
    threads_pb2,
    threads_pb2_grpc,
    admin_pb2_grpc,
)

__all__ = ["AwareClient", "ChatRun", "Stubs"]

OnConfirmation = Callable[[Confirmation], Optional[bool]]
OnClarification = Callable[[Clarification], Optional[str]]


class Stubs:
    """The generated service stubs on the client's channel, for RPCs the client does not wrap.

    Calls made through them are plain gRPC calls: pass ``metadata=client.metadata`` for the token,
    and turn a ``grpc.RpcError`` into aware's exception with :func:`aware.errors.from_rpc_error`.
    Read ``client.stubs`` at each use: a connection that went silent is replaced, stubs and all.
    """

    def __init__(self, channel: grpc.Channel) -> None:
        self.chat = chat_pb2_grpc.ChatServiceStub(channel)
        self.datasets = datasets_pb2_grpc.DatasetsServiceStub(channel)
        self.query = query_pb2_grpc.QueryServiceStub(channel)
        self.runs = runs_pb2_grpc.RunsServiceStub(channel)
        self.files = files_pb2_grpc.FilesServiceStub(channel)
        self.threads = threads_pb2_grpc.ThreadsServiceStub(channel)
        self.memory = memory_pb2_grpc.MemoryServiceStub(channel)
        self.audit = audit_pb2_grpc.AuditServiceStub(channel)
        self.admin = admin_pb2_grpc.AdminServiceStub(channel)


class AwareClient:
    """A connection to an aware server.

    >>> aware = AwareClient("127.0.0.1:50051")            # doctest: +SKIP
    >>> aware.sql("SELECT 42 AS answer").to_pandas()      # doctest: +SKIP

    Besides ``sql``, ``plan``, ``chat`` and ``ask``: ``datasets``, ``runs``, ``threads``,
    ``memory``, ``saved_queries``, ``grants``, ``audit`` and ``admin`` (users and API keys).

    Args:
        url: ``"host:port"``, ``"http://host:port"`` or ``"https://host"`` (TLS).
        token: an API key (``aware-server users add``); not needed in local auth mode.
        source: who acts, for the audit log: ``"web"``, ``"cli"`` or ``"api"`` (the default).
        timeout: a deadline in seconds for each unary call (None: none).
        retries: how many times a call that is safe to repeat is retried after the connection
            failed (or after a limit said when to come back).
        options: extra gRPC channel options, ``[(name, value), …]``.
        credentials: TLS channel credentials for ``https://`` (default: the system's roots).
    """

    def __init__(
        self,
        url: str,
        token: Optional[str] = None,
        *,
        source: Optional[str] = None,
        timeout: Optional[float] = None,
        retries: int = 2,
        options: Optional[Sequence[Tuple[str, Any]]] = None,
        credentials: Optional[grpc.ChannelCredentials] = None,
    ) -> None:
        target, secure = _core.parse_url(url)
        opts = _core.channel_options(options)
        if secure:
            creds = credentials or grpc.ssl_channel_credentials()
            self._new_channel = lambda: grpc.secure_channel(target, creds, opts)
        else:
            self._new_channel = lambda: grpc.insecure_channel(target, opts)
        self._channel = self._new_channel()
        self._channel_lock = threading.Lock()
        self.url = url
        self.metadata = _core.call_metadata(token, source)
        self.timeout = timeout
        self.retries = retries
        self.stubs = Stubs(self._channel)
        _OPEN.add(self)
        self.datasets = Datasets(self)
        self.runs = Runs(self)
        self.threads = Threads(self)
        self.memory = Memory(self)
        self.saved_queries = SavedQueries(self)
        self.grants = Grants(self)
        self.audit = Audit(self)
        self.admin = Admin(self)

    # -- plumbing ------------------------------------------------------------------------------

    def _call(self, method: Any, request: Any, *, idempotent: bool, timeout: Optional[float] = None) -> Any:
        attempt = 0
        while True:
            try:
                return method(request, metadata=self.metadata, timeout=timeout or self.timeout)
            except grpc.RpcError as e:
                err = from_rpc_error(e)
            # Raised outside the `except`: the error does not drag gRPC's call object along as its
            # context (nor a second traceback into the output).
            delay = _core.unary_retry_delay(err, idempotent, attempt, self.retries)
            if delay is None:
                raise err
            attempt += 1
            time.sleep(delay)

    def _replace_channel(self, stale: grpc.Channel) -> None:
        """Opens a new connection in place of one that went silent. gRPC would keep sending new
        calls down the dead one (it has not noticed); closing it also frees every call stuck on it."""
        with self._channel_lock:
            if self._channel is not stale:
                return  # another stream replaced it already
            self._channel = self._new_channel()
            self.stubs = Stubs(self._channel)
        stale.close()

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "AwareClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- queries -------------------------------------------------------------------------------

    def sql(self, text: str, limit: int = 0, *, run_heavy: bool = False, timeout: Optional[float] = None) -> Table:
        """Runs one ``SELECT`` (or ``WITH … SELECT``) over your datasets in the server's sandbox.

        ``limit`` caps the rows (0: the server's cap). Refused SQL raises
        :class:`~aware.errors.SqlPolicyViolation`; a slow query :class:`~aware.errors.RunnerTimeout`.
        A query the server estimates to read more rows than it runs without asking raises
        :class:`~aware.errors.CostConfirmationRequired` (with ``estimated_rows`` and
        ``estimated_bytes``) and is not run; ``run_heavy=True`` runs it.
        """
        r = self._call(
            self.stubs.query.ExecuteSql, query_pb2.ExecuteSqlRequest(sql=text, limit=limit, run_heavy=run_heavy),
            idempotent=True, timeout=timeout,
        )
        return Table(r.table, run_id=r.run_id, sql=r.executed_sql)

    def plan(self, plan: Any, limit: int = 0, *, run_heavy: bool = False, timeout: Optional[float] = None) -> Table:
        """Runs a typed query plan, checked against the dataset's schema and compiled to SQL.

        ``plan`` is an ``aware.v1.QueryPlan`` or a dict of the same shape, e.g.
        ``{"dataset": "customer_churn", "select": [{"column": "plan"}, {"aggregate": "count",
        "alias": "customers"}], "group_by": ["plan"]}`` (enum names may be short: ``"count"``,
        ``"avg"``, ``"month"``, ``">="``; filter values plain Python values). ``run_heavy`` as
        for :meth:`sql`.
        """
        r = self._call(
            self.stubs.query.ExecuteQueryPlan,
            query_pb2.ExecuteQueryPlanRequest(plan=_core.query_plan(plan), limit=limit, run_heavy=run_heavy),
            idempotent=True, timeout=timeout,
        )
        return Table(r.table, run_id=r.run_id, sql=r.compiled_sql)

    # -- the assistant -------------------------------------------------------------------------

    def chat(
        self,
        text: str,
        thread_id: Optional[str] = None,
        *,
        on_confirmation: Optional[OnConfirmation] = None,
        on_clarification: Optional[OnClarification] = None,
        on_busy: str = "reject",
        client_msg_id: Optional[str] = None,
        heartbeat_timeout: float = 15.0,
    ) -> "ChatRun":
        """Asks the assistant: starts a run and returns it to follow.

        Iterate the run for its events, or call :meth:`ChatRun.answer` to wait for the final text
        and rich results. ``on_confirmation(confirmation)`` is called for each action waiting for
        approval: return True to approve, False to deny, None to leave it pending (answer later
        with :meth:`confirm`). ``on_clarification(question)`` may return one option's ``value``.
        ``on_busy`` says what happens when the thread already has an active run: ``"reject"``
        (raises :class:`~aware.errors.RunBusy`), ``"enqueue"`` or ``"interrupt"``.
        """
        request = _core.send_message_request(text, thread_id, on_busy, client_msg_id)
        # Safe to retry: the server answers a repeated client_msg_id with the run it started.
        r = self._call(self.stubs.chat.SendMessage, request, idempotent=True)
        return ChatRun(
            self, r.run_id, r.thread_id, r.queued,
            on_confirmation=on_confirmation, on_clarification=on_clarification,
            heartbeat_timeout=heartbeat_timeout,
        )

    def ask(
        self,
        text: str,
        thread_id: Optional[str] = None,
        *,
        on_confirmation: Optional[OnConfirmation] = None,
        on_clarification: Optional[OnClarification] = None,
        on_busy: str = "enqueue",
        raise_on_failure: bool = True,
    ) -> Answer:
        """Asks the assistant and returns its answer in one call: ``client.ask("average price by
        neighbourhood").text``. The :class:`Answer` carries the run's id (to inspect it with
        ``client.runs.get`` or read its events again), its thread, results and events. A question on a
        busy thread waits its turn (``on_busy="enqueue"``); the callbacks are :meth:`chat`'s. A run
        that did not succeed raises its error unless ``raise_on_failure=False``.
        """
        run = self.chat(
            text, thread_id, on_confirmation=on_confirmation, on_clarification=on_clarification, on_busy=on_busy
        )
        return run.answer(raise_on_failure=raise_on_failure)

    def run_stream(
        self,
        run_id: str,
        after_seq: int = 0,
        *,
        heartbeat_timeout: float = 15.0,
        max_attempts: int = 8,
        initial_backoff: float = 0.1,
        max_backoff: float = 5.0,
    ) -> Iterator[StreamItem]:
        """Follows a run to its ``RunCompleted``, across disconnects.

        Yields every event with seq > ``after_seq`` exactly once, in order (:class:`Event`), plus
        :class:`Connected`, :class:`Heartbeat` and :class:`Reconnecting` items. A broken stream, or
        one silent for ``heartbeat_timeout`` seconds, is reopened from the last delivered seq with
        backoff (``initial_backoff`` doubling to ``max_backoff``); after ``max_attempts`` failures
        in a row it raises :class:`~aware.errors.Unavailable`. An unknown run raises
        :class:`~aware.errors.NotFound` (or :class:`~aware.errors.UnknownRun`).
        """
        follower = _core.RunFollower(run_id, after_seq)
        while True:
            error = "the stream ended before the run did"
            final: Optional[AwareError] = None
            with self._channel_lock:
                channel, stubs = self._channel, self.stubs
            call = stubs.chat.StreamRun(
                chat_pb2.StreamRunRequest(run_id=run_id, after_seq=follower.last_seq), metadata=self.metadata
            )
            watchdog = _Watchdog(call, heartbeat_timeout)
            try:
                yield Connected(after_seq=follower.last_seq)
                while True:
                    watchdog.waiting()
                    try:
                        response = next(call)
                    except StopIteration:
                        break
                    finally:
                        watchdog.idle()
                    item = follower.handle(response)
                    if item is None:
                        continue
                    yield item
                    if follower.done:
                        return
            except grpc.RpcError as e:
                if watchdog.fired:
                    error = f"no event or heartbeat for {heartbeat_timeout:g} s"
                else:
                    err = from_rpc_error(e)
                    if _core.is_final_stream_error(err):
                        final = err
                    error = str(err)
            except _core.StreamGap as gap:
                error = str(gap)
            finally:
                watchdog.stop()
                call.cancel()
                # Drop the call now, not whenever a traceback that saw this frame is collected:
                # gRPC's call objects can deadlock if collected while the interpreter shuts down.
                silent = watchdog.fired
                del call, watchdog
            if silent:
                self._replace_channel(channel)
            del channel, stubs
            if final is not None:
                final.run_id = run_id
                raise final
            delay = follower.next_delay(error, max_attempts, initial_backoff, max_backoff)
            yield Reconnecting(attempt=follower.failures, after_seq=follower.last_seq, error=error, delay=delay)
            time.sleep(delay)

    def confirm(
        self,
        confirmation_id: str,
        approve: bool = True,
        *,
        for_seconds: Optional[int] = None,
        edited_arguments: Optional[Mapping[str, Any]] = None,
    ) -> str:
        """Approves (or denies) an action waiting for a person; returns how it was resolved
        (``"APPROVED"``, ``"DENIED"``, …). The first answer from anywhere wins; the same answer
        again is harmless, a different one raises :class:`~aware.errors.AlreadyResolved`.

        ``for_seconds`` approves later calls of the same STANDARD tool on the same resource class
        for that long too; ``edited_arguments`` approves a narrower call than the one asked.
        """
        request = _core.confirmation_request(confirmation_id, approve, for_seconds, edited_arguments)
        r = self._call(self.stubs.chat.SubmitConfirmation, request, idempotent=True)
        return enum_name(events_pb2.ConfirmationResolution, r.resolution, "CONFIRMATION_RESOLUTION_")

    def clarify(self, clarification_id: str, choice: str, remember: bool = False) -> str:
        """Answers a question back with one option's ``value`` ("" dismisses it)."""
        r = self._call(
            self.stubs.chat.SubmitClarification,
            chat_pb2.SubmitClarificationRequest(clarification_id=clarification_id, choice=choice, remember=remember),
            idempotent=True,
        )
        return enum_name(events_pb2.ConfirmationResolution, r.resolution, "CONFIRMATION_RESOLUTION_")

    def cancel(self, run_id: str) -> str:
        """Cancels a run (idempotent); returns its status now (``"CANCELLED"`` or how it ended)."""
        r = self._call(self.stubs.chat.CancelRun, chat_pb2.CancelRunRequest(run_id=run_id), idempotent=True)
        return enum_name(run_pb2.RunStatus, r.status, "RUN_STATUS_")

    def pending_confirmations(self) -> List[Any]:
        """Your confirmations still waiting for an answer (``aware.v1.PendingConfirmation``)."""
        r = self._call(
            self.stubs.chat.ListPendingConfirmations, chat_pb2.ListPendingConfirmationsRequest(), idempotent=True
        )
        return list(r.confirmations)

    def feedback(self, run_id: str, rating: str, reason: str = "") -> Any:
        """Rates a run's answer ``"up"`` or ``"down"``; a second rating replaces the first."""
        value = {"up": run_pb2.FEEDBACK_RATING_UP, "down": run_pb2.FEEDBACK_RATING_DOWN}.get(rating.lower())
        if value is None:
            raise ValueError(f"rating must be 'up' or 'down', not {rating!r}")
        r = self._call(
            self.stubs.runs.SubmitFeedback,
            runs_pb2.SubmitFeedbackRequest(run_id=run_id, rating=value, reason=reason),
            idempotent=True,
        )
        return r.feedback

    def capabilities(self) -> Any:
        """The protocol, limits and tools this caller may use (``GetCapabilitiesResponse``)."""
        return self._call(self.stubs.chat.GetCapabilities, chat_pb2.GetCapabilitiesRequest(), idempotent=True)


# Clients still open when the interpreter exits are closed first, while gRPC's threads still run:
# a call object collected later, during shutdown, can deadlock on a lock a frozen thread holds.
_OPEN: "weakref.WeakSet[AwareClient]" = weakref.WeakSet()


@atexit.register
def _close_open_clients() -> None:
    for client in list(_OPEN):
        client.close()


class _Watchdog:
    """Cancels a stream that stays silent (no event, no heartbeat) for ``timeout`` seconds while
    it is being read — not while the caller holds an event, however long it takes."""

    def __init__(self, call: Any, timeout: float) -> None:
        self._call = call
        self._timeout = timeout
        self._cv = threading.Condition()
        self._deadline: Optional[float] = None
        self._stopped = False
        self.fired = False
        threading.Thread(target=self._run, name="aware-stream-watchdog", daemon=True).start()

    def waiting(self) -> None:
        with self._cv:
            self._deadline = time.monotonic() + self._timeout
            self._cv.notify()

    def idle(self) -> None:
        with self._cv:
            self._deadline = None

    def stop(self) -> None:
        with self._cv:
            self._stopped = True
            self._call = None
            self._cv.notify()

    def _run(self) -> None:
        with self._cv:
            while not self._stopped:
                if self._deadline is None:
                    self._cv.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left <= 0:
                    self.fired = True
                    if self._call is not None:
                        self._call.cancel()
                    return
                self._cv.wait(left)


class ChatRun(_core.RunState):
    """A run of the assistant, followed as it happens.

    Iterate it for its events (each once, in order, across reconnects), or call :meth:`answer`.
    ``stream_state`` is ``"connecting"``, ``"live"``, ``"reconnecting"`` or ``"done"``.
    """

    client: AwareClient

    def items(self) -> Iterator[StreamItem]:
        """Every stream item: events, and the connection's news (heartbeats, reconnects)."""
        if self._stream is None:
            self._stream = self.client.run_stream(self.run_id, heartbeat_timeout=self._heartbeat_timeout)
        for item in self._stream:
            event = self._note(item)
            if event is not None:
                self._react(event)
                self._reacted(event)
            yield item

    def __iter__(self) -> Iterator[Event]:
        for item in self.items():
            if isinstance(item, Event):
                yield item

    def answer(self, *, raise_on_failure: bool = True) -> Answer:
        """Waits for the run to end; its final text, rich results and events.

        A run that ended FAILED raises its error (e.g. :class:`~aware.errors.ModelError`), one
        that was cancelled :class:`~aware.errors.Cancelled` — unless ``raise_on_failure`` is
        False. A run that hit its iteration limit returns with ``status`` ``"MAX_ITERATIONS"``.
        """
        if self._answer is None:
            self._answering = True
            try:
                for _ in self.items():
                    pass
            finally:
                self._answering = False
            self._answer = answer_from_events(self.events, run_id=self.run_id, thread_id=self.thread_id)
        return _checked(self._answer, raise_on_failure)

    def cancel(self) -> str:
        return self.client.cancel(self.run_id)

    def _react(self, event: Event) -> None:
        if event.type == "confirmation_required" and self._on_confirmation is not None:
            confirmation = event.confirmation
            assert confirmation is not None
            decision = self._on_confirmation(confirmation)
            if decision is not None:
                try:
                    self.client.confirm(confirmation.id, bool(decision))
                except (AlreadyResolved, ConfirmationExpired):
                    pass  # answered elsewhere or too late: the run's log says how it ended
        elif event.type == "confirmation_required" and self._answering:
            _waiting(event)
        elif event.type == "clarification_required" and self._on_clarification is not None:
            question = event.clarification
            assert question is not None
            choice = self._on_clarification(question)
            if choice is not None:
                try:
                    self.client.clarify(question.id, choice)
                except (AlreadyResolved, ConfirmationExpired):
                    pass



_log = logging.getLogger("aware")


def _waiting(event: Event) -> None:
    """answer() is waiting on a confirmation no callback will answer: say so, or it looks hung."""
    c = event.confirmation
    assert c is not None
    _log.warning(
        "run %s waits for your approval (%s); answer it with confirm(%r, True) or confirm(%r, False), "
        "or pass on_confirmation= to chat(). Unanswered, it expires%s.",
        c.run_id, c.description, c.id, c.id, f" at {c.expires_at:%H:%M:%S} UTC" if c.expires_at else "",
    )


def _checked(answer: Answer, raise_on_failure: bool) -> Answer:
    if raise_on_failure and answer.status in ("FAILED", "CANCELLED"):
        from .errors import Cancelled

        err = answer.error or (Cancelled("the run was cancelled", code="CANCELLED", run_id=answer.run_id)
                               if answer.status == "CANCELLED"
                               else AwareError("the run failed", run_id=answer.run_id))
        err.run_id = answer.run_id
        if answer.status == "CANCELLED" and not isinstance(err, Cancelled):
            err = Cancelled(err.message, code="CANCELLED", run_id=answer.run_id)
        err.answer = answer  # type: ignore[attr-defined]
        raise err
    return answer


class Datasets:
    """Your datasets: ``list``, ``get``, ``upload``, ``preview``, ``statistics``, ``delete``, ``search``.

    A dataset is named by its id (``ds_…``), its table name or its file name, or passed as a
    :class:`~aware.models.Dataset`.
    """

    def __init__(self, client: AwareClient) -> None:
        self._c = client

    def list(self, status: Optional[str] = None) -> List[Dataset]:
        """Your datasets, newest first (``status``: only ``"READY"``, ``"PROCESSING"`` or ``"ERROR"``)."""
        request = datasets_pb2.ListDatasetsRequest(status_filter=_status_filter(status))
        r = self._c._call(self._c.stubs.datasets.ListDatasets, request, idempotent=True)
        return [Dataset.from_message(d) for d in r.datasets]

    def _id(self, ref: Any) -> str:
        if isinstance(ref, Dataset):
            return ref.id
        if _core.looks_like_dataset_id(str(ref)):
            return str(ref)
        for d in self.list():
            if ref in (d.table_name, d.name):
                return d.id
        raise NotFound(f"no dataset is named {ref!r}", code="NOT_FOUND")

    def get(self, ref: Any, sample_rows: int = 5) -> Dataset:
        """One dataset with its schema and ``sample_rows`` sample rows (``.sample``)."""
        request = datasets_pb2.GetDatasetRequest(dataset_id=self._id(ref), sample_rows=sample_rows)
        r = self._c._call(self._c.stubs.datasets.GetDataset, request, idempotent=True)
        return Dataset.from_message(r.dataset, sample=Table(r.sample) if r.HasField("sample") else None)

    def upload(
        self,
        source: _core.PathOrFile,
        *,
        filename: Optional[str] = None,
        format: str = "",
        progress: _core.Progress = False,
        chunk_size: int = _core.UPLOAD_CHUNK_BYTES,
    ) -> Dataset:
        """Uploads a file (a path, an open binary file or bytes) and waits until it is ingested.

        CSV, TSV, Parquet, JSON, NDJSON, Markdown and text; ``format`` overrides the sniffing.
        The file goes in ``chunk_size`` pieces, announcing its size so that a stream cut short
        is refused rather than kept truncated. ``progress=True`` shows a tqdm bar;
        ``progress=callback`` calls ``callback(bytes_sent, total_bytes)`` after each piece.
        A file that cannot be ingested raises :class:`~aware.errors.IngestError`.
        """
        src = _core.open_upload(source, filename)
        reporter = _core.ProgressReporter(progress, src.size, src.filename)

        def requests() -> Iterator[Any]:
            for message, n in _core.upload_messages(src, format, chunk_size):
                yield message
                reporter.advance(n)  # gRPC asks for the next piece once it has taken this one

        try:
            r = self._c._call(self._c.stubs.datasets.UploadDataset, requests(), idempotent=False)
        finally:
            reporter.close()
            src.close()
        return _ingested(Dataset.from_message(r.dataset))

    def preview(self, ref: Any, limit: int = 10) -> Table:
        """The first ``limit`` rows (1 to 50)."""
        request = datasets_pb2.PreviewRowsRequest(dataset_id=self._id(ref), limit=limit)
        r = self._c._call(self._c.stubs.datasets.PreviewRows, request, idempotent=True)
        return Table(r.table)

    def statistics(self, ref: Any) -> Statistics:
        """Every column profiled: NULLs, distinct values, min, max, mean, median, stddev."""
        request = datasets_pb2.GetDatasetStatisticsRequest(dataset_id=self._id(ref))
        r = self._c._call(self._c.stubs.datasets.GetDatasetStatistics, request, idempotent=True)
        return Statistics(r.statistics)

    def delete(self, ref: Any) -> str:
        """Deletes a dataset for good (its data, index and catalog entry); returns its id."""
        request = datasets_pb2.DeleteDatasetRequest(dataset_id=self._id(ref))
        r = self._c._call(self._c.stubs.datasets.DeleteDataset, request, idempotent=False)
        return str(r.dataset_id)

    def search(self, query: str, dataset: Any = None, *, limit: int = 10, mode: str = "") -> SearchResults:
        """Searches the text of your datasets by words and meaning (``mode``: ``"hybrid"``,
        ``"lexical"`` or ``"vector"``; ``dataset`` restricts it to one)."""
        target = "" if dataset is None else (dataset.id if isinstance(dataset, Dataset) else str(dataset))
        request = datasets_pb2.SearchDatasetsRequest(query=query, dataset_id=target, limit=limit, mode=mode)
        r = self._c._call(self._c.stubs.datasets.SearchDatasets, request, idempotent=True)
        return SearchResults(r)


def _status_filter(status: Optional[str]) -> Any:  # a DatasetStatus number
    if not status:
        return datasets_pb2.DATASET_STATUS_UNSPECIFIED
    return int(datasets_pb2.DatasetStatus.Value("DATASET_STATUS_" + status.upper().removeprefix("DATASET_STATUS_")))


def _ingested(dataset: Dataset) -> Dataset:
    if dataset.status == "ERROR":
        err = IngestError(
            f"{dataset.name} could not be ingested: {dataset.error} (the failed entry {dataset.id} stays until deleted)",
            code="INGEST_ERROR",
        )
        err.dataset = dataset  # type: ignore[attr-defined]
        raise err
    return dataset


class Runs:
    """Runs after the fact: the run capsule, its event log, a thread's runs."""

    def __init__(self, client: AwareClient) -> None:
        self._c = client

    def get(self, run_id: str) -> Any:
        """The run capsule (``aware.v1.Run``): question, data versions, SQL, status, usage, …"""
        r = self._c._call(self._c.stubs.runs.GetRun, runs_pb2.GetRunRequest(run_id=run_id), idempotent=True)
        return r.run

    def events(self, run_id: str, after_seq: int = 0) -> List[Event]:
        """The run's logged events after ``after_seq``, read page by page (no live tail)."""
        out: List[Event] = []
        while True:
            request = runs_pb2.ListRunEventsRequest(run_id=run_id, after_seq=after_seq, limit=1000)
            page = self._c._call(self._c.stubs.runs.ListRunEvents, request, idempotent=True)
            out.extend(Event.from_message(e) for e in page.events)
            if not page.events:
                return out
            after_seq = page.events[-1].seq
            if after_seq >= page.last_seq:
                return out

    def list(self, thread_id: str = "", *, limit: int = 100, outcome: str = "") -> List[Any]:
        """Runs of a thread (or all of yours), newest first, up to ``limit``; with ``outcome``
        (``"NOT_UNDERSTOOD"``, ``"DENIED"``, …) only the runs that came to it."""
        out: List[Any] = []
        token = ""
        while len(out) < limit:
            request = runs_pb2.ListRunsRequest(thread_id=thread_id, page_size=min(100, limit - len(out)),
                                               page_token=token, outcome=outcome_filter(outcome))
            page = self._c._call(self._c.stubs.runs.ListRuns, request, idempotent=True)
            out.extend(page.runs)
            token = page.next_page_token
            if not token:
                break
        return out

    def rerun(self, run_id: str) -> Any:
        """Computes a finished run's queries again on the data as it is now (``RerunQueryResponse``)."""
        return self._c._call(self._c.stubs.runs.RerunQuery, runs_pb2.RerunQueryRequest(run_id=run_id), idempotent=True)

    def answer(self, run_id: str) -> Answer:
        """A finished run's answer, from its log."""
        events = self.events(run_id)
        return answer_from_events(events, run_id=run_id)


class Threads:
    """Conversations: list, reopen, rename, delete, fork."""

    def __init__(self, client: AwareClient) -> None:
        self._c = client

    def list(self, *, limit: int = 100, query: str = "") -> List[Any]:
        """Newest activity first; with ``query``, the threads whose title or a question holds it."""
        out: List[Any] = []
        token = ""
        while len(out) < limit:
            request = threads_pb2.ListThreadsRequest(
                page_size=min(100, limit - len(out)), page_token=token, query=query
            )
            page = self._c._call(self._c.stubs.threads.ListThreads, request, idempotent=True)
            out.extend(page.threads)
            token = page.next_page_token
            if not token:
                break
        return out

    def get(self, thread_id: str) -> Any:
        """The thread and its turns (``GetThreadResponse``)."""
        return self._c._call(
            self._c.stubs.threads.GetThread, threads_pb2.GetThreadRequest(thread_id=thread_id), idempotent=True
        )

    def rename(self, thread_id: str, title: str) -> Any:
        r = self._c._call(
            self._c.stubs.threads.RenameThread,
            threads_pb2.RenameThreadRequest(thread_id=thread_id, title=title), idempotent=True,
        )
        return r.thread

    def delete(self, thread_id: str) -> int:
        """Deletes a thread and its runs; returns how many runs went."""
        r = self._c._call(
            self._c.stubs.threads.DeleteThread, threads_pb2.DeleteThreadRequest(thread_id=thread_id), idempotent=False
        )
        return int(r.runs_deleted)

    def fork(self, run_id: str) -> Any:
        """A new thread holding the turns before ``run_id`` (``ForkThreadResponse``)."""
        return self._c._call(
            self._c.stubs.threads.ForkThread, threads_pb2.ForkThreadRequest(run_id=run_id), idempotent=False
        )


class Memory:
    """What the assistant remembers for you."""

    def __init__(self, client: AwareClient) -> None:
        self._c = client

    def list(self) -> List[Any]:
        """Your memories, newest first (``aware.v1.Memory``: memory_id, text, source_run_id, dates)."""
        r = self._c._call(self._c.stubs.memory.ListMemories, memory_pb2.ListMemoriesRequest(), idempotent=True)
        return list(r.memories)

    def add(self, text: str) -> Any:
        """Stores a fact (1 to 500 characters); the same text twice is one memory."""
        r = self._c._call(self._c.stubs.memory.AddMemory, memory_pb2.AddMemoryRequest(text=text), idempotent=False)
        return r.memory

    def delete(self, memory: Any) -> None:
        """Forgets a fact, by its id or the ``Memory``. One you do not have raises :class:`~aware.errors.NotFound`."""
        request = memory_pb2.DeleteMemoryRequest(memory_id=_ref(memory, "memory_id"))
        self._c._call(self._c.stubs.memory.DeleteMemory, request, idempotent=True)


class SavedQueries:
    """Verified queries: a question and the SQL a person approved for it. From then on the
    assistant answers that question with that SQL, and the run says so (``Run.verified_query``)."""

    def __init__(self, client: AwareClient) -> None:
        self._c = client

    def list(self) -> List[Any]:
        """Your saved queries, by name (``aware.v1.SavedQuery``: id, name, question, sql, dates)."""
        r = self._c._call(
            self._c.stubs.datasets.ListSavedQueries, datasets_pb2.ListSavedQueriesRequest(), idempotent=True
        )
        return list(r.queries)

    def save(self, name: str, sql: Optional[str] = None, *, plan: Any = None, question: str = "") -> Any:
        """Keeps a query under ``name`` for ``question`` (default: the name); the saved
        ``aware.v1.SavedQuery``. Give the ``sql`` or a query ``plan`` (a dict as for
        :meth:`AwareClient.plan`). The server runs it once first: SQL that does not run raises
        (e.g. :class:`~aware.errors.ValidationError`), a name you already use
        :class:`~aware.errors.AlreadyExists`."""
        request = _save_query_request(name, sql, plan, question)
        r = self._c._call(self._c.stubs.datasets.SaveQuery, request, idempotent=False)
        return r.query

    def delete(self, query: Any) -> Any:
        """Deletes a saved query, named by its id, its name or the ``SavedQuery`` itself; returns it.
        One you do not have raises :class:`~aware.errors.NotFound`."""
        request = datasets_pb2.DeleteSavedQueryRequest(query=_ref(query, "id"))
        r = self._c._call(self._c.stubs.datasets.DeleteSavedQuery, request, idempotent=False)
        return r.query


def _save_query_request(name: str, sql: Optional[str], plan: Any, question: str) -> Any:
    if (sql is None) == (plan is None):
        raise ValueError("give the query as sql= or as plan=, one of them")
    if plan is not None:
        return datasets_pb2.SaveQueryRequest(name=name, question=question, plan=_core.query_plan(plan))
    return datasets_pb2.SaveQueryRequest(name=name, question=question, sql=sql)


class Grants:
    """Your session grants: approvals "for a while" (``confirm(id, True, for_seconds=…)``) that let
    later calls of the same tool on the same resource through without asking, until they expire
    or you revoke them."""

    def __init__(self, client: AwareClient) -> None:
        self._c = client

    def list(self) -> List[Any]:
        """The grants still in force (``aware.v1.Grant``: tool_name, resource_class, expires_at, …)."""
        r = self._c._call(self._c.stubs.chat.ListGrants, chat_pb2.ListGrantsRequest(), idempotent=True)
        return list(r.grants)

    def revoke(self, grant: Any) -> None:
        """Ends a grant now (by its id or the ``Grant``): the next such call asks again. One that is
        not in force (unknown, expired or already revoked) raises :class:`~aware.errors.NotFound`."""
        self._c._call(
            self._c.stubs.chat.RevokeGrant, chat_pb2.RevokeGrantRequest(grant_id=_ref(grant, "grant_id")),
            idempotent=False,
        )


class Audit:
    """The audit log: who changed what, from where (``source``), with what outcome. An admin reads
    every entry; anyone else their own."""

    def __init__(self, client: AwareClient) -> None:
        self._c = client

    def list(
        self,
        user_id: str = "",
        source: str = "",
        action: str = "",
        limit: int = 100,
        *,
        since: Optional[_dt.datetime] = None,
        until: Optional[_dt.datetime] = None,
    ) -> List[Any]:
        """Entries, newest first, up to ``limit`` (``aware.v1.AuditEntry``: at, user_id, source,
        action, resource_type, resource_id, outcome, details_json), read page by page.

        Each filter is optional: ``user_id`` (another user's needs the admin role), ``source``
        (``"web"``, ``"cli"``, ``"api"``, ``"ai_assistant"``, ``"mcp"`` or ``"system"``), ``action``
        (``"dataset.delete"``, or every action under a prefix ending with a dot: ``"dataset."``), and
        the time range ``since`` (included) to ``until`` (excluded); naive datetimes are UTC.
        """
        out: List[Any] = []
        token = ""
        while len(out) < limit:
            request = _audit_request(user_id, source, action, since, until, min(100, limit - len(out)), token)
            page = self._c._call(self._c.stubs.audit.ListAuditEntries, request, idempotent=True)
            out.extend(page.entries)
            token = page.next_page_token
            if not token:
                break
        return out


def _audit_request(
    user_id: str, source: str, action: str, since: Optional[_dt.datetime], until: Optional[_dt.datetime],
    page_size: int, page_token: str,
) -> Any:
    request = audit_pb2.ListAuditEntriesRequest(
        user_id=user_id, source=source, action=action, page_size=page_size, page_token=page_token
    )
    if since is not None:
        request.since.CopyFrom(_timestamp(since))
    if until is not None:
        request.until.CopyFrom(_timestamp(until))
    return request


class Admin:
    """Users and their API keys, for admins (anyone else gets :class:`~aware.errors.PermissionDenied`).

    Keys matter with ``--auth api-key``. A revoked key, or any key of a deactivated user, is
    refused (:class:`~aware.errors.Unauthenticated`) from its next call on; nothing of the user's
    is deleted. An admin cannot demote or deactivate themselves. Every change is audited. A user
    is named by their id (``usr_…``) or passed as the ``aware.v1.User``; roles are ``"viewer"``
    (reads and asks), ``"analyst"`` (also uploads, imports and deletes) or ``"admin"``.
    """

    def __init__(self, client: AwareClient) -> None:
        self._c = client

    def list_users(self) -> List[Any]:
        """Every user, oldest first (``aware.v1.User``: user_id, name, role, created_at, deactivated_at)."""
        r = self._c._call(self._c.stubs.admin.ListUsers, admin_pb2.ListUsersRequest(), idempotent=True)
        return list(r.users)

    def create_user(self, name: str, role: Union[str, int]) -> Any:
        """A new user (``aware.v1.User``); give them a key with :meth:`create_api_key`."""
        request = admin_pb2.CreateUserRequest(name=name, role=_role(role))
        return self._c._call(self._c.stubs.admin.CreateUser, request, idempotent=False).user

    def set_role(self, user: Any, role: Union[str, int]) -> Any:
        """Changes a user's role; the user as they are now."""
        return self._update(admin_pb2.UpdateUserRequest(user_id=_ref(user, "user_id"), role=_role(role)))

    def deactivate(self, user: Any) -> Any:
        """Refuses every key of the user from their next call on (``deactivated_at`` is set)."""
        return self._update(
            admin_pb2.UpdateUserRequest(user_id=_ref(user, "user_id"), activation=admin_pb2.USER_ACTIVATION_DEACTIVATE)
        )

    def reactivate(self, user: Any) -> Any:
        """Lets a deactivated user's keys in again (those not revoked)."""
        return self._update(
            admin_pb2.UpdateUserRequest(user_id=_ref(user, "user_id"), activation=admin_pb2.USER_ACTIVATION_REACTIVATE)
        )

    def _update(self, request: Any) -> Any:
        return self._c._call(self._c.stubs.admin.UpdateUser, request, idempotent=True).user

    def create_api_key(self, user: Any, expires_at: Optional[_dt.datetime] = None) -> NewApiKey:
        """A new key for a user, expiring at ``expires_at`` (None: never). Its ``token`` is in this
        answer only: keep it now (:class:`~aware.models.NewApiKey`)."""
        request = admin_pb2.CreateApiKeyRequest(user_id=_ref(user, "user_id"))
        if expires_at is not None:
            request.expires_at.CopyFrom(_timestamp(expires_at))
        r = self._c._call(self._c.stubs.admin.CreateApiKey, request, idempotent=False)
        return NewApiKey(token=r.token, key=r.key)

    def list_api_keys(self, user: Any = None) -> List[Any]:
        """One user's keys, or everyone's (``aware.v1.ApiKey``: key_id, user_id, prefix, dates): never a token."""
        request = admin_pb2.ListApiKeysRequest(user_id="" if user is None else _ref(user, "user_id"))
        return list(self._c._call(self._c.stubs.admin.ListApiKeys, request, idempotent=True).keys)

    def revoke_api_key(self, key: Any) -> Any:
        """Revokes a key (by its id, the ``ApiKey`` or the ``NewApiKey``); the key, ``revoked_at``
        set. Revoking it again changes nothing."""
        request = admin_pb2.RevokeApiKeyRequest(key_id=_ref(key, "key_id"))
        return self._c._call(self._c.stubs.admin.RevokeApiKey, request, idempotent=True).key


def _ref(ref: Any, field: str) -> str:
    """An id given as itself, or as the message (or model) that carries it in ``field``."""
    value = getattr(ref, field, None)
    return str(ref if value is None else value)


_ROLE_NAMES = ("viewer", "analyst", "admin")


def _role(role: Any) -> int:
    """A role's name (``"analyst"``, ``"USER_ROLE_ANALYST"``) or ``UserRole`` number."""
    if isinstance(role, int) and not isinstance(role, bool) and 1 <= role <= len(_ROLE_NAMES):
        return role  # USER_ROLE_VIEWER, _ANALYST or _ADMIN
    name = str(role).strip().lower().removeprefix("user_role_")
    if name not in _ROLE_NAMES:
        raise ValueError(f"{role!r} is not a role; one of {', '.join(_ROLE_NAMES)}")
    return int(admin_pb2.UserRole.Value("USER_ROLE_" + name.upper()))


def _timestamp(when: _dt.datetime) -> Any:
    """A datetime as a ``google.protobuf.Timestamp``; a naive one is taken as UTC."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(when)
    return ts
