"""aware-client (the synchronous AwareClient) against the real aware-server: an upload with
progress, SQL and plans whose DataFrames are checked against DuckDB in this process, a chat run
whose confirmation the callback approves, a connection cut mid-run (through a proxy) that the run
stream survives with every event exactly once, cancel, and errors mapped to their classes."""

from __future__ import annotations

import datetime as dt
import io
import math
from decimal import Decimal
from typing import Any, List

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import aware
from aware import AwareClient

PEOPLE_CSV = (
    "id,city,price,visits,signup,last_seen,active,note\n"
    "1,Barcelona,1250.5,3,2024-01-05,2024-01-05 10:30:00,true,plain\n"
    "2,Girona,,5,2024-02-29,2024-03-01 08:00:00.25,false,<script>alert(1)</script>\n"
    '3,Reus,980.25,,2023-12-31,,,"comma, quoted"\n'
    "4,Lleida,1100.0,12,,2024-05-20 23:59:59.999999,true,\n"
)

# Every type family aware's cells have, NULLs in each, a NaN that is not a NULL, a decimal that a
# double holds exactly and one it does not.
TYPED_SQL = """
SELECT id, city, price, visits, signup, last_seen, active, note,
       CASE WHEN id = 1 THEN 'nan'::DOUBLE ELSE price END AS price_or_nan,
       CAST(price AS DECIMAL(10, 2)) AS price_dec,
       CAST(price AS DECIMAL(30, 2)) AS price_wide,
       CAST(visits AS DECIMAL(38, 18)) + 0.123456789012345678 AS visits_exact,
       CAST(visits AS INTEGER) AS visits_i32,
       TIMESTAMPTZ '2024-01-01 10:00:00+02' + id * INTERVAL 1 HOUR AS at_utc,
       CAST(last_seen AS TIME) AS seen_time
FROM {table} ORDER BY id
"""

AGGREGATE_SQL = """
SELECT count(*) AS n, sum(visits) AS total_visits, sum(id) * 100000000000000000000 AS huge,
       avg(price) AS mean_price, max(signup) AS last_signup
FROM {table}
"""


@pytest.fixture(scope="module")
def client(server) -> AwareClient:
    c = AwareClient(server.addr, source="api")
    yield c
    c.close()


@pytest.fixture(scope="module")
def people(client: AwareClient, tmp_path_factory) -> aware.Dataset:
    path = tmp_path_factory.mktemp("people") / "py_people.csv"
    path.write_text(PEOPLE_CSV)
    return client.datasets.upload(path)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b) and type(a) is type(b)


def _rows_equal(ours: List[tuple], theirs: List[tuple]) -> None:
    assert len(ours) == len(theirs)
    for r, (x, y) in enumerate(zip(ours, theirs)):
        assert len(x) == len(y)
        for c, (a, b) in enumerate(zip(x, y)):
            assert _same(a, b), f"row {r}, column {c}: {a!r} (aware) != {b!r} (DuckDB)"


def test_upload_in_chunks_with_a_progress_bar_and_a_callback(client: AwareClient, capsys, tmp_path) -> None:
    rows = ["city,price"] + [f"{'Girona' if i % 2 else 'Reus'},{1000 + i}" for i in range(20_000)]
    path = tmp_path / "py_prices.csv"
    path.write_text("\n".join(rows) + "\n")
    size = path.stat().st_size
    assert size > 3 * 64 * 1024, "several chunks"

    dataset = client.datasets.upload(path, progress=True, chunk_size=64 * 1024)
    assert (dataset.table_name, dataset.status, dataset.row_count) == ("py_prices", "READY", 20_000)
    assert dataset.size_bytes == size
    assert dataset.schema == {"city": "VARCHAR", "price": "BIGINT"}
    bar = capsys.readouterr().err
    assert "uploading py_prices.csv" in bar and "100%" in bar, bar
    total = client.sql("SELECT sum(price) AS s FROM py_prices").rows[0][0]
    assert total == sum(1000 + i for i in range(20_000))

    # An open file works too; the callback sees every byte, in order, and the announced total.
    seen: List[tuple] = []
    again = client.datasets.upload(
        io.BytesIO(path.read_bytes()), filename="py_prices_again.csv",
        progress=lambda sent, total: seen.append((sent, total)), chunk_size=100_000,
    )
    assert again.row_count == 20_000
    assert [s for s, _ in seen] == sorted(s for s, _ in seen) and seen[-1] == (size, size)
    assert len(seen) == -(-size // 100_000)
    assert client.datasets.delete(again) == again.id
    assert client.datasets.delete("py_prices") == dataset.id
    assert "py_prices" not in {d.table_name for d in client.datasets.list()}


def test_sql_results_keep_their_types_in_pandas_arrow_and_polars_as_duckdb_computes_them(
    client: AwareClient, people: aware.Dataset, tmp_path
) -> None:
    # The same table in DuckDB in this process, with the schema the server reports.
    csv = tmp_path / "people.csv"
    csv.write_text(PEOPLE_CSV)
    con = duckdb.connect()
    con.execute(
        f"CREATE TABLE {people.table_name} AS SELECT * FROM read_csv(?, header = true, columns = ?)",
        [str(csv), people.schema],
    )
    sql = TYPED_SQL.format(table=people.table_name)
    result = client.sql(sql)
    assert result.run_id.startswith("run_") and result.sql and not result.truncated
    assert [c.type for c in result.columns] == [
        "BIGINT", "VARCHAR", "DOUBLE", "BIGINT", "DATE", "TIMESTAMP", "BOOLEAN", "VARCHAR", "DOUBLE",
        "DECIMAL(10,2)", "DECIMAL(30,2)", "DECIMAL(38,18)", "INTEGER", "TIMESTAMP WITH TIME ZONE", "TIME",
    ]

    # Python values: exactly DuckDB's own, NULLs, NaN, decimals, dates, times and instants included.
    _rows_equal(result.rows, con.execute(sql).fetchall())

    df = result.to_pandas()
    assert df.dtypes.astype(str).to_dict() == {
        "id": "Int64", "city": "string", "price": "Float64", "visits": "Int64",
        "signup": "datetime64[us]", "last_seen": "datetime64[us]", "active": "boolean", "note": "string",
        "price_or_nan": "Float64", "price_dec": "Float64", "price_wide": "Float64",
        "visits_exact": "object", "visits_i32": "Int32", "at_utc": "datetime64[us, UTC]", "seen_time": "object",
    }
    duck = con.execute(sql).df()
    assert df["id"].tolist() == duck["id"].tolist() == [1, 2, 3, 4]
    assert df["price"].isna().tolist() == [False, True, False, False], "NULL is <NA>"
    assert df["price_or_nan"].isna().tolist() == [False, True, False, False], "NaN is a value, not <NA>"
    assert math.isnan(df["price_or_nan"].array._data[0])
    assert df["visits"].isna().tolist() == [False, False, True, False], "an int column with a NULL stays Int64"
    assert df["visits"].sum() == duck["visits"].sum() == 20
    assert df["price"].sum() == duck["price"].sum()
    assert df["price_dec"].tolist()[0] == 1250.5 and df["price_wide"].tolist()[2] == 980.25
    assert df["visits_exact"].tolist()[:2] == [Decimal("3.123456789012345678"), Decimal("5.123456789012345678")]
    assert df["visits_exact"][2] is None, "a decimal no double holds is kept exact"
    assert list(df["signup"]) [:3] == list(duck["signup"])[:3] and pd.isna(df["signup"][3])
    assert df["last_seen"][1] == pd.Timestamp("2024-03-01 08:00:00.25") and pd.isna(df["last_seen"][2])
    assert df["last_seen"][3] == pd.Timestamp("2024-05-20 23:59:59.999999")
    assert df["at_utc"][0] == pd.Timestamp("2024-01-01 09:00:00", tz="UTC")
    assert df["active"].tolist()[:2] == [True, False] and pd.isna(df["active"][2])
    assert df["seen_time"].tolist()[0] == dt.time(10, 30) and df["seen_time"][2] is None
    assert df["note"][1] == "<script>alert(1)</script>" and pd.isna(df["note"][3])

    # Arrow: the exact types, and DuckDB's own Arrow values.
    table = result.to_arrow()
    assert [str(t) for t in table.schema.types] == [
        "int64", "string", "double", "int64", "date32[day]", "timestamp[us]", "bool", "string", "double",
        "decimal128(10, 2)", "decimal128(30, 2)", "decimal128(38, 18)", "int32", "timestamp[us, tz=UTC]",
        "time64[us]",
    ]
    theirs = con.sql(sql).to_arrow_table()
    _rows_equal([tuple(r.values()) for r in table.to_pylist()], [tuple(r.values()) for r in theirs.to_pylist()])

    # polars: DuckDB's own polars frame, time zone aside (DuckDB names the session's).
    ours_pl = result.to_polars()
    theirs_pl = con.sql(sql).pl().with_columns(pl.col("at_utc").dt.convert_time_zone("UTC"))
    from polars.testing import assert_frame_equal

    assert_frame_equal(ours_pl, theirs_pl)

    # Aggregates: count is BIGINT, sum() a HUGEINT (Int64 while it fits, exact ints beyond).
    agg_sql = AGGREGATE_SQL.format(table=people.table_name)
    agg = client.sql(agg_sql)
    _rows_equal(agg.rows, con.execute(agg_sql).fetchall())
    adf = agg.to_pandas()
    assert adf.dtypes.astype(str).to_dict() == {
        "n": "Int64", "total_visits": "Int64", "huge": "object", "mean_price": "Float64", "last_signup": "datetime64[us]",
    }
    assert adf["huge"][0] == 10 * 10**20 and isinstance(adf["huge"][0], int)
    assert agg.to_arrow().schema.field("huge").type == pa.decimal128(38, 0)
    assert agg.to_polars()["huge"].dtype == pl.Int128


def test_a_table_renders_in_a_notebook_with_every_cell_escaped(client: AwareClient, people: aware.Dataset) -> None:
    result = client.sql(f"SELECT id, note AS \"<b>note</b>\" FROM {people.table_name} ORDER BY id")
    page = result._repr_html_()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
    assert "&lt;b&gt;note&lt;/b&gt;" in page and "<b>note</b>" not in page
    assert "<i>NULL</i>" in page, "a NULL is shown as NULL, not as an empty string"
    assert "4 rows × 2 columns" in page
    assert "4 rows" in repr(result)


def test_a_query_plan_runs_from_a_plain_dict(client: AwareClient, people: aware.Dataset) -> None:
    result = client.plan(
        {
            "dataset": people.table_name,
            "select": [{"column": "city"}, {"column": "visits", "aggregate": "sum", "alias": "visits"}],
            "filters": [{"column": "visits", "op": ">=", "value": 4}],
            "group_by": ["city"],
            "order_by": [{"column": "visits", "descending": True}],
        }
    )
    assert "sum" in result.sql.lower()
    assert result.records() == [{"city": "Lleida", "visits": 12}, {"city": "Girona", "visits": 5}]


def test_chat_a_confirmation_approved_through_the_callback_lets_the_delete_happen(client: AwareClient, tmp_path) -> None:
    path = tmp_path / "py_scratch.csv"
    path.write_text("a,b\n1,2\n")
    scratch = client.datasets.upload(path)
    asked: List[aware.Confirmation] = []

    def approve(confirmation: aware.Confirmation) -> bool:
        asked.append(confirmation)
        return True

    run = client.chat("delete the py_scratch dataset", on_confirmation=approve)
    kinds = [item.kind for item in run.items()]
    assert "heartbeat" in kinds, "heartbeats reach the caller while the delete runs"
    answer = run.answer()
    assert answer.status == "SUCCEEDED", answer.text
    assert len(asked) == 1
    card = asked[0]
    assert (card.tool_name, card.tier, card.resource["id"]) == ("delete_dataset", "ELEVATED", scratch.id)
    assert "py_scratch" in card.description and card.expires_at > dt.datetime.now(dt.timezone.utc)
    resolved = [e for e in answer.events if e.type == "confirmation_resolved"]
    assert [aware.v1.events_pb2.ConfirmationResolution.Name(e.payload.resolution) for e in resolved] == [
        "CONFIRMATION_RESOLUTION_APPROVED"
    ]
    assert answer.results[-1].rich == "deleted_dataset" and answer.results[-1].value.id == scratch.id
    assert scratch.id not in {d.id for d in client.datasets.list()}
    assert [e.seq for e in answer.events] == list(range(1, len(answer.events) + 1))
    assert client.confirm(card.id, True) == "APPROVED", "the same answer again is harmless"
    with pytest.raises(aware.AlreadyResolved):
        client.confirm(card.id, False)


def test_a_connection_cut_mid_run_is_resumed_with_every_event_exactly_once(server, proxy) -> None:
    client = AwareClient(proxy.addr)
    run = client.chat("show me the apartments")
    items: List[Any] = []
    for item in run.items():
        items.append(item)
        if item.kind == "event" and item.type == "tool_call_started" and proxy.cuts == 0:
            proxy.cut(down=0.5)  # the tool runs for 800 ms: the rest of the run comes after the cut
    kinds = [i.kind for i in items]
    assert "reconnecting" in kinds, kinds
    first_reconnect = kinds.index("reconnecting")
    assert any(i.kind == "event" for i in items[first_reconnect:]), "events arrived after the reconnect"
    assert proxy.connections >= 2, "the client came back through the proxy"

    events = [i for i in items if i.kind == "event"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1)), "no gap, no duplicate"
    assert events[-1].type == "run_completed"
    answer = run.answer()
    assert answer.status == "SUCCEEDED" and answer.tables and answer.tables[0].row_count == 10
    # Exactly the server's log, event by event.
    with AwareClient(server.addr) as direct:
        log = direct.runs.events(run.run_id)
    assert [e.message.SerializeToString() for e in events] == [e.message.SerializeToString() for e in log]
    client.close()


def test_a_connection_gone_silent_is_noticed_by_its_missing_heartbeats_and_reopened(server, proxy) -> None:
    client = AwareClient(proxy.addr)
    run = client.chat("show me the apartments", heartbeat_timeout=1.0)
    items: List[Any] = []
    for item in run.items():
        items.append(item)
        if item.kind == "event" and item.type == "tool_call_started" and proxy.cuts == 0:
            proxy.freeze()  # heartbeats come every 200 ms: a second of silence means a dead link
    reconnects = [i for i in items if i.kind == "reconnecting"]
    assert reconnects and "no event or heartbeat for 1 s" in reconnects[0].error, reconnects
    events = [i for i in items if i.kind == "event"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1)) and events[-1].type == "run_completed"
    assert run.answer().status == "SUCCEEDED"
    client.close()


def test_ask_answers_in_one_call_and_the_run_stays_inspectable(client: AwareClient) -> None:
    answer = client.ask("what are my files?")
    assert answer.status == "SUCCEEDED" and "barcelona_apartments" in answer.text, answer
    assert [r.tool_name for r in answer.results] == ["list_datasets"]
    run = client.runs.get(answer.run_id)
    assert (run.question, run.final_text) == ("what are my files?", answer.text), "the same run, kept"
    again = client.ask("and how many rows does barcelona_apartments have?", answer.thread_id)
    assert again.thread_id == answer.thread_id and "240" in again.text, again


def test_each_answer_says_what_the_run_came_to_and_runs_are_listed_by_it(client: AwareClient) -> None:
    assert client.ask("what are my files?").outcome == "ANSWERED"
    puzzled = client.ask("what's the weather in Paris tomorrow?")
    assert (puzzled.status, puzzled.outcome) == ("SUCCEEDED", "NOT_UNDERSTOOD"), "succeeded is not answered"
    asked = client.ask("how many are there?")
    assert asked.outcome == "ASKED_BACK" and "Which dataset" in asked.text, asked
    denied = client.chat("delete the barcelona apartments dataset", on_confirmation=lambda c: False).answer()
    assert (denied.status, denied.outcome) == ("SUCCEEDED", "DENIED")
    run_pb2 = aware.v1.run_pb2
    for said, want, run_id in [("denied", run_pb2.RUN_OUTCOME_DENIED, denied.run_id),
                               ("NOT_UNDERSTOOD", run_pb2.RUN_OUTCOME_NOT_UNDERSTOOD, puzzled.run_id)]:
        listed = client.runs.list(outcome=said)
        assert run_id in [r.run_id for r in listed] and {r.outcome for r in listed} == {want}, listed
    assert client.runs.get(asked.run_id).outcome == run_pb2.RUN_OUTCOME_ASKED_BACK
    with pytest.raises(ValueError, match="not a run outcome"):
        client.runs.list(outcome="confused")


def test_cancel_stops_a_run_mid_tool_and_answer_raises_cancelled(client: AwareClient) -> None:
    run = client.chat("what are my files?")
    for event in run:
        if event.type == "tool_call_started":
            assert run.cancel() == "CANCELLED", "the status after the request"
    assert run.events[-1].type == "run_completed"
    with pytest.raises(aware.Cancelled) as raised:
        run.answer()
    assert raised.value.run_id == run.run_id
    answer = run.answer(raise_on_failure=False)
    assert answer.status == "CANCELLED"
    assert client.cancel(run.run_id) == "CANCELLED", "idempotent"


def test_errors_carry_the_servers_code_as_their_class(client: AwareClient) -> None:
    with pytest.raises(aware.SqlPolicyViolation) as refused:
        client.sql("SELECT * FROM read_csv('/etc/passwd')")
    err = refused.value
    assert (err.code, err.grpc_code.name, err.retryable) == ("SQL_POLICY_VIOLATION", "INVALID_ARGUMENT", False)
    assert "read_csv" in err.message and str(err).startswith("SQL_POLICY_VIOLATION: ")
    assert err.__context__ is None, "no gRPC internals chained on"

    with pytest.raises(aware.RunnerTimeout) as slow:
        client.sql(
            "SELECT sum(length(regexp_replace(a.body || b.body || c.body, '[aeiou]+', 'x', 'g'))) "
            "FROM support_tickets a JOIN support_tickets b ON a.ticket_id < b.ticket_id "
            "JOIN support_tickets c ON b.ticket_id < c.ticket_id"
        )
    assert slow.value.grpc_code.name == "DEADLINE_EXCEEDED"

    with pytest.raises(aware.ValidationError) as invalid:
        client.datasets.preview("ds_" + "0" * 32, limit=500)
    assert invalid.value.field == "limit"

    with pytest.raises(aware.NotFound):
        client.datasets.get("no_such_dataset")
    with pytest.raises(aware.NotFound):
        client.datasets.get("ds_" + "0" * 32)
    with pytest.raises(aware.IngestError) as ragged:
        client.datasets.upload(b"a,b\n1,2\n3\n", filename="py_ragged.csv")
    assert "different numbers of columns" in ragged.value.message
    client.datasets.delete(ragged.value.dataset)

    with pytest.raises(aware.NotFound) as unknown:  # UnknownRun is a NotFound
        list(client.run_stream("run_doesnotexist"))
    assert unknown.value.run_id == "run_doesnotexist"
    finished = client.chat("what are my files?").answer()
    with pytest.raises(aware.CursorAhead):
        list(client.run_stream(finished.run_id, after_seq=10_000))
    assert [i.seq for i in client.run_stream(finished.run_id, after_seq=len(finished.events) - 1) if i.kind == "event"] == [
        len(finished.events)
    ], "a finished run replays from any seq"

    with pytest.raises(aware.Unavailable):
        AwareClient("127.0.0.1:9", retries=1).datasets.list()


def test_a_query_over_the_cost_limit_raises_with_its_estimate_until_run_heavy(tmp_path) -> None:
    """A server that asks above 300 rows: ``sql`` and ``plan`` over the 500-row churn sample raise
    ``CostConfirmationRequired`` with the estimate and run nothing; ``run_heavy=True`` runs them."""
    import os

    from conftest import server_bin, start_server, stop_server

    env = {k: v for k, v in os.environ.items() if k not in ("AWARE_SERVER_BIN", "AWARE_LISTEN")}
    env.update(AWARE_LOG_LEVEL="warn", AWARE_SANDBOX__CONFIRM_SCAN_ROWS="300")
    argv = [str(server_bin()), "serve", "--listen", "127.0.0.1:0", "--data-dir", str(tmp_path / "data")]
    process, addr = start_server(argv, env, tmp_path / "server.log")
    try:
        with AwareClient(addr) as c:
            sql = "SELECT plan, avg(monthly_charges) AS avg_charges FROM customer_churn GROUP BY plan"
            with pytest.raises(aware.CostConfirmationRequired) as heavy:
                c.sql(sql)
            assert heavy.value.estimated_rows == 500
            assert heavy.value.estimated_bytes > 500
            assert "about 500 rows" in heavy.value.message
            assert len(c.sql(sql, run_heavy=True).to_pandas()) >= 2
            plan = {"dataset": "customer_churn", "select": [{"column": "plan"}, {"aggregate": "count"}], "group_by": ["plan"]}
            with pytest.raises(aware.CostConfirmationRequired):
                c.plan(plan)
            assert sum(c.plan(plan, run_heavy=True).to_pandas().iloc[:, 1]) == 500
            assert len(c.sql("SELECT avg(price_eur) FROM barcelona_apartments").to_pandas()) == 1, "240 rows run"
    finally:
        stop_server(process)
