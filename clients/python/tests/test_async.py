"""AsyncAwareClient against the real server: the same runs as the synchronous suite — an upload
with progress, a query as a DataFrame, a confirmation approved by a coroutine, a connection cut
mid-run and resumed with every event once, cancel, and an error as its class."""

from __future__ import annotations

import asyncio
from typing import Any, List

import pytest

import aware
from aware import AsyncAwareClient, AwareClient


def test_the_async_client_does_the_same_runs(server, proxy, tmp_path) -> None:
    asyncio.run(_runs(server, proxy, tmp_path))


async def _runs(server: Any, proxy: Any, tmp_path: Any) -> None:
    async with AsyncAwareClient(proxy.addr) as client:
        # Upload with progress, then a query over it as a DataFrame.
        path = tmp_path / "py_async_sales.csv"
        path.write_text("region,amount,day\nnorth,120,2024-01-02\nwest,,2024-01-03\nnorth,80,2024-01-05\n")
        sent: List[int] = []
        dataset = await client.datasets.upload(path, progress=lambda n, total: sent.append(n), chunk_size=16)
        assert (dataset.table_name, dataset.row_count) == ("py_async_sales", 3)
        assert sent[-1] == path.stat().st_size and len(sent) > 1
        table = await client.sql(
            "SELECT region, sum(amount) AS total, max(day) AS last_day FROM py_async_sales GROUP BY 1 ORDER BY 1"
        )
        df = table.to_pandas()
        assert df.dtypes.astype(str).to_dict() == {"region": "string", "total": "Int64", "last_day": "datetime64[us]"}
        assert df["total"].isna().tolist() == [False, True] and df["total"][0] == 200
        with AwareClient(server.addr) as sync:
            assert sync.sql(table.sql).rows == table.rows, "the same answer as the synchronous client"

        # A confirmation approved by a coroutine.
        async def approve(confirmation: aware.Confirmation) -> bool:
            await asyncio.sleep(0)
            return confirmation.tool_name == "delete_dataset"

        run = await client.chat("delete the py_async_sales dataset", on_confirmation=approve)
        answer = await run.answer()
        assert answer.status == "SUCCEEDED" and [c.tool_name for c in answer.confirmations] == ["delete_dataset"]
        assert "py_async_sales" not in {d.table_name for d in await client.datasets.list()}

        # A connection cut mid-run: every event once, in order, the same as the server's log.
        run = await client.chat("show me the apartments")
        items: List[Any] = []
        async for item in run.items():
            items.append(item)
            if item.kind == "event" and item.type == "tool_call_started" and proxy.cuts == 0:
                proxy.cut(down=0.5)
        kinds = [i.kind for i in items]
        assert "reconnecting" in kinds and run.stream_state == "done", kinds
        assert any(i.kind == "event" for i in items[kinds.index("reconnecting"):])
        events = [i for i in items if i.kind == "event"]
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        log = await client.runs.events(run.run_id)
        assert [e.message.SerializeToString() for e in events] == [e.message.SerializeToString() for e in log]
        assert (await run.answer()).tables[0].row_count == 10

        # A connection gone silent: noticed by its missing heartbeats, reopened.
        run = await client.chat("show me the apartments", heartbeat_timeout=1.0)
        items = []
        async for item in run.items():
            items.append(item)
            if item.kind == "event" and item.type == "tool_call_started" and proxy.cuts == 1:
                proxy.freeze()
        reconnects = [i for i in items if i.kind == "reconnecting"]
        assert reconnects and "no event or heartbeat for 1 s" in reconnects[0].error, reconnects
        assert [e.seq for e in run.events] == list(range(1, len(run.events) + 1))
        assert (await run.answer()).status == "SUCCEEDED"

        # One call, one answer.
        answer = await client.ask("what are my files?")
        assert answer.status == "SUCCEEDED" and "barcelona_apartments" in answer.text, answer

        # Cancel mid-tool.
        run = await client.chat("what are my files?")
        async for event in run:
            if event.type == "tool_call_started":
                await run.cancel()
        with pytest.raises(aware.Cancelled):
            await run.answer()

        # Errors as their classes.
        with pytest.raises(aware.SqlPolicyViolation) as refused:
            await client.sql("SELECT * FROM read_csv('/etc/passwd')")
        assert refused.value.grpc_code.name == "INVALID_ARGUMENT"
        with pytest.raises(aware.NotFound):
            async for _ in client.run_stream("run_doesnotexist"):
                pass
