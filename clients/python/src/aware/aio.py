"""The asyncio client: ``AsyncAwareClient``, the same API as ``AwareClient`` with ``await``.

Create it inside your event loop (in a coroutine, or a notebook cell):

    async with AsyncAwareClient("127.0.0.1:50051") as aware:
        table = await aware.sql("SELECT 42 AS answer")
        run = await aware.chat("what are my files?")
        async for event in run:
            print(event.text, end="")
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import inspect
from typing import Any, AsyncIterator, Awaitable, Callable, List, Mapping, Optional, Sequence, Tuple, Union

import grpc
import grpc.aio

from . import _core
from .client import (
    _audit_request,
    _checked,
    _ingested,
    _ref,
    _role,
    _save_query_request,
    _status_filter,
    _timestamp,
    _waiting,
)
from .errors import AlreadyResolved, AwareError, ConfirmationExpired, NotFound, from_rpc_error
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
    admin_pb2_grpc,
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
)

__all__ = ["AsyncAwareClient", "AsyncChatRun"]

OnConfirmation = Callable[[Confirmation], Union[Optional[bool], Awaitable[Optional[bool]]]]
OnClarification = Callable[[Clarification], Union[Optional[str], Awaitable[Optional[str]]]]


class AsyncStubs:
    """The generated service stubs on the client's ``grpc.aio`` channel (see ``Stubs``)."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.chat = chat_pb2_grpc.ChatServiceStub(channel)
        self.datasets = datasets_pb2_grpc.DatasetsServiceStub(channel)
        self.query = query_pb2_grpc.QueryServiceStub(channel)
        self.runs = runs_pb2_grpc.RunsServiceStub(channel)
        self.files = files_pb2_grpc.FilesServiceStub(channel)
        self.threads = threads_pb2_grpc.ThreadsServiceStub(channel)
        self.memory = memory_pb2_grpc.MemoryServiceStub(channel)
        self.audit = audit_pb2_grpc.AuditServiceStub(channel)
        self.admin = admin_pb2_grpc.AdminServiceStub(channel)


class AsyncAwareClient:
    """A connection to an aware server for asyncio code. Arguments as for ``AwareClient``."""

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
            self._new_channel = lambda: grpc.aio.secure_channel(target, creds, opts)
        else:
            self._new_channel = lambda: grpc.aio.insecure_channel(target, opts)
        self._channel = self._new_channel()
        self.url = url
        self.metadata = _core.call_metadata(token, source)
        self.timeout = timeout
        self.retries = retries
        self.stubs = AsyncStubs(self._channel)
        self.datasets = AsyncDatasets(self)
        self.runs = AsyncRuns(self)
        self.threads = AsyncThreads(self)
        self.memory = AsyncMemory(self)
        self.saved_queries = AsyncSavedQueries(self)
        self.grants = AsyncGrants(self)
        self.audit = AsyncAudit(self)
        self.admin = AsyncAdmin(self)

    async def _call(self, method: Any, request: Any, *, idempotent: bool, timeout: Optional[float] = None) -> Any:
        attempt = 0
        while True:
            try:
                return await method(request, metadata=self.metadata, timeout=timeout or self.timeout)
            except grpc.RpcError as e:
                err = from_rpc_error(e)
            delay = _core.unary_retry_delay(err, idempotent, attempt, self.retries)
            if delay is None:
                raise err  # outside the `except`, as in AwareClient._call
            attempt += 1
            await asyncio.sleep(delay)

    async def _replace_channel(self, stale: grpc.aio.Channel) -> None:
        """See ``AwareClient._replace_channel``."""
        if self._channel is not stale:
            return
        self._channel = self._new_channel()
        self.stubs = AsyncStubs(self._channel)
        await stale.close()

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "AsyncAwareClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # -- queries -------------------------------------------------------------------------------

    async def sql(
        self, text: str, limit: int = 0, *, run_heavy: bool = False, timeout: Optional[float] = None
    ) -> Table:
        """See :meth:`AwareClient.sql`."""
        r = await self._call(
            self.stubs.query.ExecuteSql, query_pb2.ExecuteSqlRequest(sql=text, limit=limit, run_heavy=run_heavy),
            idempotent=True, timeout=timeout,
        )
        return Table(r.table, run_id=r.run_id, sql=r.executed_sql)

    async def plan(
        self, plan: Any, limit: int = 0, *, run_heavy: bool = False, timeout: Optional[float] = None
    ) -> Table:
        """See :meth:`AwareClient.plan`."""
        r = await self._call(
            self.stubs.query.ExecuteQueryPlan,
            query_pb2.ExecuteQueryPlanRequest(plan=_core.query_plan(plan), limit=limit, run_heavy=run_heavy),
            idempotent=True, timeout=timeout,
        )
        return Table(r.table, run_id=r.run_id, sql=r.compiled_sql)

    # -- the assistant -------------------------------------------------------------------------

    async def chat(
        self,
        text: str,
        thread_id: Optional[str] = None,
        *,
        on_confirmation: Optional[OnConfirmation] = None,
        on_clarification: Optional[OnClarification] = None,
        on_busy: str = "reject",
        client_msg_id: Optional[str] = None,
        heartbeat_timeout: float = 15.0,
    ) -> "AsyncChatRun":
        """See :meth:`AwareClient.chat`; the callbacks may be coroutine functions."""
        request = _core.send_message_request(text, thread_id, on_busy, client_msg_id)
        r = await self._call(self.stubs.chat.SendMessage, request, idempotent=True)
        return AsyncChatRun(
            self, r.run_id, r.thread_id, r.queued,
            on_confirmation=on_confirmation, on_clarification=on_clarification,
            heartbeat_timeout=heartbeat_timeout,
        )

    async def ask(
        self,
        text: str,
        thread_id: Optional[str] = None,
        *,
        on_confirmation: Optional[OnConfirmation] = None,
        on_clarification: Optional[OnClarification] = None,
        on_busy: str = "enqueue",
        raise_on_failure: bool = True,
    ) -> Answer:
        """See :meth:`AwareClient.ask`: ``(await client.ask("…")).text``."""
        run = await self.chat(
            text, thread_id, on_confirmation=on_confirmation, on_clarification=on_clarification, on_busy=on_busy
        )
        return await run.answer(raise_on_failure=raise_on_failure)

    async def run_stream(
        self,
        run_id: str,
        after_seq: int = 0,
        *,
        heartbeat_timeout: float = 15.0,
        max_attempts: int = 8,
        initial_backoff: float = 0.1,
        max_backoff: float = 5.0,
    ) -> AsyncIterator[StreamItem]:
        """See :meth:`AwareClient.run_stream`."""
        follower = _core.RunFollower(run_id, after_seq)
        while True:
            error = "the stream ended before the run did"
            final: Optional[AwareError] = None
            silent = False
            channel = self._channel
            call = self.stubs.chat.StreamRun(
                chat_pb2.StreamRunRequest(run_id=run_id, after_seq=follower.last_seq), metadata=self.metadata
            )
            try:
                yield Connected(after_seq=follower.last_seq)
                while True:
                    try:
                        response = await asyncio.wait_for(call.read(), heartbeat_timeout)
                    except asyncio.TimeoutError:
                        error = f"no event or heartbeat for {heartbeat_timeout:g} s"
                        silent = True
                        break
                    if response is grpc.aio.EOF:
                        break
                    item = follower.handle(response)
                    if item is None:
                        continue
                    yield item
                    if follower.done:
                        return
            except grpc.RpcError as e:
                err = from_rpc_error(e)
                if _core.is_final_stream_error(err):
                    final = err
                error = str(err)
            except _core.StreamGap as gap:
                error = str(gap)
            finally:
                call.cancel()
                del call
            if silent:
                await self._replace_channel(channel)
            del channel
            if final is not None:
                final.run_id = run_id
                raise final
            delay = follower.next_delay(error, max_attempts, initial_backoff, max_backoff)
            yield Reconnecting(attempt=follower.failures, after_seq=follower.last_seq, error=error, delay=delay)
            await asyncio.sleep(delay)

    async def confirm(
        self,
        confirmation_id: str,
        approve: bool = True,
        *,
        for_seconds: Optional[int] = None,
        edited_arguments: Optional[Mapping[str, Any]] = None,
    ) -> str:
        """See :meth:`AwareClient.confirm`."""
        request = _core.confirmation_request(confirmation_id, approve, for_seconds, edited_arguments)
        r = await self._call(self.stubs.chat.SubmitConfirmation, request, idempotent=True)
        return enum_name(events_pb2.ConfirmationResolution, r.resolution, "CONFIRMATION_RESOLUTION_")

    async def clarify(self, clarification_id: str, choice: str, remember: bool = False) -> str:
        r = await self._call(
            self.stubs.chat.SubmitClarification,
            chat_pb2.SubmitClarificationRequest(clarification_id=clarification_id, choice=choice, remember=remember),
            idempotent=True,
        )
        return enum_name(events_pb2.ConfirmationResolution, r.resolution, "CONFIRMATION_RESOLUTION_")

    async def cancel(self, run_id: str) -> str:
        r = await self._call(self.stubs.chat.CancelRun, chat_pb2.CancelRunRequest(run_id=run_id), idempotent=True)
        return enum_name(run_pb2.RunStatus, r.status, "RUN_STATUS_")

    async def pending_confirmations(self) -> List[Any]:
        r = await self._call(
            self.stubs.chat.ListPendingConfirmations, chat_pb2.ListPendingConfirmationsRequest(), idempotent=True
        )
        return list(r.confirmations)

    async def feedback(self, run_id: str, rating: str, reason: str = "") -> Any:
        value = {"up": run_pb2.FEEDBACK_RATING_UP, "down": run_pb2.FEEDBACK_RATING_DOWN}.get(rating.lower())
        if value is None:
            raise ValueError(f"rating must be 'up' or 'down', not {rating!r}")
        r = await self._call(
            self.stubs.runs.SubmitFeedback,
            runs_pb2.SubmitFeedbackRequest(run_id=run_id, rating=value, reason=reason),
            idempotent=True,
        )
        return r.feedback

    async def capabilities(self) -> Any:
        return await self._call(self.stubs.chat.GetCapabilities, chat_pb2.GetCapabilitiesRequest(), idempotent=True)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class AsyncChatRun(_core.RunState):
    """A run of the assistant for asyncio code: ``async for event in run``, ``await run.answer()``."""

    client: AsyncAwareClient
    _label = "AsyncChatRun"

    async def items(self) -> AsyncIterator[StreamItem]:
        """Every stream item: events, and the connection's news (heartbeats, reconnects)."""
        if self._stream is None:
            self._stream = self.client.run_stream(self.run_id, heartbeat_timeout=self._heartbeat_timeout)
        async for item in self._stream:
            event = self._note(item)
            if event is not None:
                await self._react(event)
                self._reacted(event)
            yield item

    async def __aiter__(self) -> AsyncIterator[Event]:
        async for item in self.items():
            if isinstance(item, Event):
                yield item

    async def answer(self, *, raise_on_failure: bool = True) -> Answer:
        """See :meth:`ChatRun.answer`."""
        if self._answer is None:
            self._answering = True
            try:
                async for _ in self.items():
                    pass
            finally:
                self._answering = False
            self._answer = answer_from_events(self.events, run_id=self.run_id, thread_id=self.thread_id)
        return _checked(self._answer, raise_on_failure)

    async def cancel(self) -> str:
        return await self.client.cancel(self.run_id)

    async def _react(self, event: Event) -> None:
        if event.type == "confirmation_required" and self._on_confirmation is not None:
            confirmation = event.confirmation
            assert confirmation is not None
            decision = await _maybe_await(self._on_confirmation(confirmation))
            if decision is not None:
                try:
                    await self.client.confirm(confirmation.id, bool(decision))
                except (AlreadyResolved, ConfirmationExpired):
                    pass
        elif event.type == "confirmation_required" and self._answering:
            _waiting(event)
        elif event.type == "clarification_required" and self._on_clarification is not None:
            question = event.clarification
            assert question is not None
            choice = await _maybe_await(self._on_clarification(question))
            if choice is not None:
                try:
                    await self.client.clarify(question.id, choice)
                except (AlreadyResolved, ConfirmationExpired):
                    pass



class AsyncDatasets:
    """See ``Datasets``."""

    def __init__(self, client: AsyncAwareClient) -> None:
        self._c = client

    async def list(self, status: Optional[str] = None) -> List[Dataset]:
        request = datasets_pb2.ListDatasetsRequest(status_filter=_status_filter(status))
        r = await self._c._call(self._c.stubs.datasets.ListDatasets, request, idempotent=True)
        return [Dataset.from_message(d) for d in r.datasets]

    async def _id(self, ref: Any) -> str:
        if isinstance(ref, Dataset):
            return ref.id
        if _core.looks_like_dataset_id(str(ref)):
            return str(ref)
        for d in await self.list():
            if ref in (d.table_name, d.name):
                return d.id
        raise NotFound(f"no dataset is named {ref!r}", code="NOT_FOUND")

    async def get(self, ref: Any, sample_rows: int = 5) -> Dataset:
        request = datasets_pb2.GetDatasetRequest(dataset_id=await self._id(ref), sample_rows=sample_rows)
        r = await self._c._call(self._c.stubs.datasets.GetDataset, request, idempotent=True)
        return Dataset.from_message(r.dataset, sample=Table(r.sample) if r.HasField("sample") else None)

    async def upload(
        self,
        source: _core.PathOrFile,
        *,
        filename: Optional[str] = None,
        format: str = "",
        progress: _core.Progress = False,
        chunk_size: int = _core.UPLOAD_CHUNK_BYTES,
    ) -> Dataset:
        src = _core.open_upload(source, filename)
        reporter = _core.ProgressReporter(progress, src.size, src.filename)

        async def requests() -> AsyncIterator[Any]:
            for message, n in _core.upload_messages(src, format, chunk_size):
                yield message
                reporter.advance(n)

        try:
            r = await self._c._call(self._c.stubs.datasets.UploadDataset, requests(), idempotent=False)
        finally:
            reporter.close()
            src.close()
        return _ingested(Dataset.from_message(r.dataset))

    async def preview(self, ref: Any, limit: int = 10) -> Table:
        request = datasets_pb2.PreviewRowsRequest(dataset_id=await self._id(ref), limit=limit)
        r = await self._c._call(self._c.stubs.datasets.PreviewRows, request, idempotent=True)
        return Table(r.table)

    async def statistics(self, ref: Any) -> Statistics:
        request = datasets_pb2.GetDatasetStatisticsRequest(dataset_id=await self._id(ref))
        r = await self._c._call(self._c.stubs.datasets.GetDatasetStatistics, request, idempotent=True)
        return Statistics(r.statistics)

    async def delete(self, ref: Any) -> str:
        request = datasets_pb2.DeleteDatasetRequest(dataset_id=await self._id(ref))
        r = await self._c._call(self._c.stubs.datasets.DeleteDataset, request, idempotent=False)
        return str(r.dataset_id)

    async def search(self, query: str, dataset: Any = None, *, limit: int = 10, mode: str = "") -> SearchResults:
        target = "" if dataset is None else (dataset.id if isinstance(dataset, Dataset) else str(dataset))
        request = datasets_pb2.SearchDatasetsRequest(query=query, dataset_id=target, limit=limit, mode=mode)
        r = await self._c._call(self._c.stubs.datasets.SearchDatasets, request, idempotent=True)
        return SearchResults(r)


class AsyncRuns:
    """See ``Runs``."""

    def __init__(self, client: AsyncAwareClient) -> None:
        self._c = client

    async def get(self, run_id: str) -> Any:
        r = await self._c._call(self._c.stubs.runs.GetRun, runs_pb2.GetRunRequest(run_id=run_id), idempotent=True)
        return r.run

    async def events(self, run_id: str, after_seq: int = 0) -> List[Event]:
        out: List[Event] = []
        while True:
            request = runs_pb2.ListRunEventsRequest(run_id=run_id, after_seq=after_seq, limit=1000)
            page = await self._c._call(self._c.stubs.runs.ListRunEvents, request, idempotent=True)
            out.extend(Event.from_message(e) for e in page.events)
            if not page.events:
                return out
            after_seq = page.events[-1].seq
            if after_seq >= page.last_seq:
                return out

    async def list(self, thread_id: str = "", *, limit: int = 100, outcome: str = "") -> List[Any]:
        out: List[Any] = []
        token = ""
        while len(out) < limit:
            request = runs_pb2.ListRunsRequest(thread_id=thread_id, page_size=min(100, limit - len(out)),
                                               page_token=token, outcome=outcome_filter(outcome))
            page = await self._c._call(self._c.stubs.runs.ListRuns, request, idempotent=True)
            out.extend(page.runs)
            token = page.next_page_token
            if not token:
                break
        return out

    async def rerun(self, run_id: str) -> Any:
        return await self._c._call(
            self._c.stubs.runs.RerunQuery, runs_pb2.RerunQueryRequest(run_id=run_id), idempotent=True
        )

    async def answer(self, run_id: str) -> Answer:
        return answer_from_events(await self.events(run_id), run_id=run_id)


class AsyncThreads:
    """See ``Threads``."""

    def __init__(self, client: AsyncAwareClient) -> None:
        self._c = client

    async def list(self, *, limit: int = 100, query: str = "") -> List[Any]:
        """Newest activity first; with ``query``, the threads whose title or a question holds it."""
        out: List[Any] = []
        token = ""
        while len(out) < limit:
            request = threads_pb2.ListThreadsRequest(
                page_size=min(100, limit - len(out)), page_token=token, query=query
            )
            page = await self._c._call(self._c.stubs.threads.ListThreads, request, idempotent=True)
            out.extend(page.threads)
            token = page.next_page_token
            if not token:
                break
        return out

    async def get(self, thread_id: str) -> Any:
        return await self._c._call(
            self._c.stubs.threads.GetThread, threads_pb2.GetThreadRequest(thread_id=thread_id), idempotent=True
        )

    async def rename(self, thread_id: str, title: str) -> Any:
        r = await self._c._call(
            self._c.stubs.threads.RenameThread,
            threads_pb2.RenameThreadRequest(thread_id=thread_id, title=title), idempotent=True,
        )
        return r.thread

    async def delete(self, thread_id: str) -> int:
        r = await self._c._call(
            self._c.stubs.threads.DeleteThread, threads_pb2.DeleteThreadRequest(thread_id=thread_id), idempotent=False
        )
        return int(r.runs_deleted)

    async def fork(self, run_id: str) -> Any:
        return await self._c._call(
            self._c.stubs.threads.ForkThread, threads_pb2.ForkThreadRequest(run_id=run_id), idempotent=False
        )


class AsyncMemory:
    """See ``Memory``."""

    def __init__(self, client: AsyncAwareClient) -> None:
        self._c = client

    async def list(self) -> List[Any]:
        r = await self._c._call(self._c.stubs.memory.ListMemories, memory_pb2.ListMemoriesRequest(), idempotent=True)
        return list(r.memories)

    async def add(self, text: str) -> Any:
        r = await self._c._call(
            self._c.stubs.memory.AddMemory, memory_pb2.AddMemoryRequest(text=text), idempotent=False
        )
        return r.memory

    async def delete(self, memory: Any) -> None:
        request = memory_pb2.DeleteMemoryRequest(memory_id=_ref(memory, "memory_id"))
        await self._c._call(self._c.stubs.memory.DeleteMemory, request, idempotent=True)


class AsyncSavedQueries:
    """See ``SavedQueries``."""

    def __init__(self, client: AsyncAwareClient) -> None:
        self._c = client

    async def list(self) -> List[Any]:
        r = await self._c._call(
            self._c.stubs.datasets.ListSavedQueries, datasets_pb2.ListSavedQueriesRequest(), idempotent=True
        )
        return list(r.queries)

    async def save(self, name: str, sql: Optional[str] = None, *, plan: Any = None, question: str = "") -> Any:
        request = _save_query_request(name, sql, plan, question)
        r = await self._c._call(self._c.stubs.datasets.SaveQuery, request, idempotent=False)
        return r.query

    async def delete(self, query: Any) -> Any:
        request = datasets_pb2.DeleteSavedQueryRequest(query=_ref(query, "id"))
        r = await self._c._call(self._c.stubs.datasets.DeleteSavedQuery, request, idempotent=False)
        return r.query


class AsyncGrants:
    """See ``Grants``."""

    def __init__(self, client: AsyncAwareClient) -> None:
        self._c = client

    async def list(self) -> List[Any]:
        r = await self._c._call(self._c.stubs.chat.ListGrants, chat_pb2.ListGrantsRequest(), idempotent=True)
        return list(r.grants)

    async def revoke(self, grant: Any) -> None:
        await self._c._call(
            self._c.stubs.chat.RevokeGrant, chat_pb2.RevokeGrantRequest(grant_id=_ref(grant, "grant_id")),
            idempotent=False,
        )


class AsyncAudit:
    """See ``Audit``."""

    def __init__(self, client: AsyncAwareClient) -> None:
        self._c = client

    async def list(
        self,
        user_id: str = "",
        source: str = "",
        action: str = "",
        limit: int = 100,
        *,
        since: Optional[_dt.datetime] = None,
        until: Optional[_dt.datetime] = None,
    ) -> List[Any]:
        out: List[Any] = []
        token = ""
        while len(out) < limit:
            request = _audit_request(user_id, source, action, since, until, min(100, limit - len(out)), token)
            page = await self._c._call(self._c.stubs.audit.ListAuditEntries, request, idempotent=True)
            out.extend(page.entries)
            token = page.next_page_token
            if not token:
                break
        return out


class AsyncAdmin:
    """See ``Admin``."""

    def __init__(self, client: AsyncAwareClient) -> None:
        self._c = client

    async def list_users(self) -> List[Any]:
        r = await self._c._call(self._c.stubs.admin.ListUsers, admin_pb2.ListUsersRequest(), idempotent=True)
        return list(r.users)

    async def create_user(self, name: str, role: Union[str, int]) -> Any:
        request = admin_pb2.CreateUserRequest(name=name, role=_role(role))
        return (await self._c._call(self._c.stubs.admin.CreateUser, request, idempotent=False)).user

    async def set_role(self, user: Any, role: Union[str, int]) -> Any:
        return await self._update(admin_pb2.UpdateUserRequest(user_id=_ref(user, "user_id"), role=_role(role)))

    async def deactivate(self, user: Any) -> Any:
        return await self._update(
            admin_pb2.UpdateUserRequest(user_id=_ref(user, "user_id"), activation=admin_pb2.USER_ACTIVATION_DEACTIVATE)
        )

    async def reactivate(self, user: Any) -> Any:
        return await self._update(
            admin_pb2.UpdateUserRequest(user_id=_ref(user, "user_id"), activation=admin_pb2.USER_ACTIVATION_REACTIVATE)
        )

    async def _update(self, request: Any) -> Any:
        return (await self._c._call(self._c.stubs.admin.UpdateUser, request, idempotent=True)).user

    async def create_api_key(self, user: Any, expires_at: Optional[_dt.datetime] = None) -> NewApiKey:
        request = admin_pb2.CreateApiKeyRequest(user_id=_ref(user, "user_id"))
        if expires_at is not None:
            request.expires_at.CopyFrom(_timestamp(expires_at))
        r = await self._c._call(self._c.stubs.admin.CreateApiKey, request, idempotent=False)
        return NewApiKey(token=r.token, key=r.key)

    async def list_api_keys(self, user: Any = None) -> List[Any]:
        request = admin_pb2.ListApiKeysRequest(user_id="" if user is None else _ref(user, "user_id"))
        return list((await self._c._call(self._c.stubs.admin.ListApiKeys, request, idempotent=True)).keys)

    async def revoke_api_key(self, key: Any) -> Any:
        request = admin_pb2.RevokeApiKeyRequest(key_id=_ref(key, "key_id"))
        return (await self._c._call(self._c.stubs.admin.RevokeApiKey, request, idempotent=True)).key
