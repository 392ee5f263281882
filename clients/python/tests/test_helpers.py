"""The client's helpers against the real server, as a user sees their effect: threads (listed by
title, renamed, forked, deleted), memory, feedback on a run, a rerun that finds changed rows, a
question back answered with ``clarify``, session grants, saved (verified) queries, the audit log,
and — on a second server in api-key mode — users and API keys: a key made for a new user connects
as that user until the user is deactivated or the key revoked. The async client's helpers are
checked to do the same."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import subprocess
from dataclasses import dataclass
from typing import Any, Iterator, List

import pytest

import aware
from aware import AsyncAwareClient, AwareClient
from aware.results import Table
from aware.v1 import admin_pb2, common_pb2, run_pb2
from conftest import server_bin, start_server, stop_server

PRODUCTS_CSV = "item,price_eur,price_usd\nlamp,10,11\nchair,30,33.5\ndesk,50,\n"


@pytest.fixture(scope="module")
def client(server) -> Iterator[AwareClient]:
    c = AwareClient(server.addr, source="api")
    yield c
    c.close()


@dataclass
class KeyedServer:
    """A server in api-key mode with one admin, ``root``, whose token is ``root_token``."""

    addr: str
    root_token: str
    process: subprocess.Popen


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KeyedServer]:
    binary = str(server_bin())
    data = tmp_path_factory.mktemp("aware-keyed") / "data"
    env = {k: v for k, v in os.environ.items() if k not in ("AWARE_SERVER_BIN", "AWARE_LISTEN")}
    env.update(AWARE_LOG_LEVEL="warn")
    added = subprocess.run(
        [binary, "users", "add", "--data-dir", str(data), "--name", "root", "--role", "admin"],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert added.returncode == 0, added.stdout + added.stderr
    token = added.stdout.split()[-1]  # the token is the output's last word
    assert token.startswith("aw_"), added.stdout
    log = data.parent / "server.log"
    argv = [binary, "serve", "--auth", "api-key", "--no-samples", "--listen", "127.0.0.1:0", "--data-dir", str(data)]
    process, addr = start_server([str(x) for x in argv], env, log)
    try:
        yield KeyedServer(addr=addr, root_token=token, process=process)
    finally:
        stop_server(process)


# -- threads, memory, feedback -----------------------------------------------------------------


def test_a_thread_is_listed_by_its_title_renamed_forked_before_a_run_and_deleted(client: AwareClient) -> None:
    questions = [
        "what are my files?",
        "how many rows does barcelona_apartments have?",
        "how many rows does customer_churn have?",
    ]
    first = client.ask(questions[0])
    thread_id = first.thread_id
    answers = [first] + [client.ask(q, thread_id) for q in questions[1:]]
    assert {a.thread_id for a in answers} == {thread_id}
    fork_id = ""
    try:
        listed = {t.thread_id: t for t in client.threads.list()}
        assert thread_id in listed, "the chat's thread is listed"
        assert (listed[thread_id].title, listed[thread_id].run_count) == (questions[0], 3)
        assert client.threads.list()[0].thread_id == thread_id, "newest activity first"
        assert thread_id in {t.thread_id for t in client.threads.list(query="customer_churn")}, "found by a question"
        assert thread_id not in {t.thread_id for t in client.threads.list(query="no such words zq")}

        renamed = client.threads.rename(thread_id, "py helpers: my files")
        assert renamed.title == "py helpers: my files"
        assert client.threads.get(thread_id).thread.title == "py helpers: my files"
        assert {t.thread_id: t.title for t in client.threads.list()}[thread_id] == "py helpers: my files"
        with pytest.raises(aware.ValidationError):
            client.threads.rename(thread_id, "x" * 201)

        # Forked at the third run: the new thread holds the two turns before it, the original all three.
        fork = client.threads.fork(answers[2].run_id)
        fork_id = fork.thread.thread_id
        assert fork_id != thread_id and fork.user_text == questions[2], "the message to edit and send again"
        assert (fork.thread.forked_from_thread_id, fork.thread.forked_from_run_id) == (thread_id, answers[2].run_id)
        turns = client.threads.get(fork_id).turns
        assert [t.user_text for t in turns] == questions[:2]
        assert [t.assistant_text for t in turns] == [a.text for a in answers[:2]]
        assert [t.user_text for t in client.threads.get(thread_id).turns] == questions, "the original is untouched"
        again = client.ask("and how many rows does support_tickets have?", fork_id)
        assert again.thread_id == fork_id and "300" in again.text, again.text

        assert client.threads.delete(fork_id) == 3
        assert client.threads.delete(thread_id) == 3
        fork_id = thread_id = ""
        remaining = {t.thread_id for t in client.threads.list()}
        assert not {first.thread_id, fork.thread.thread_id} & remaining, "both threads are gone"
        with pytest.raises(aware.NotFound):
            client.threads.get(first.thread_id)
        with pytest.raises(aware.NotFound):
            client.runs.get(answers[1].run_id)
    finally:
        for t in (fork_id, thread_id):
            if t:
                client.threads.delete(t)


def test_a_memory_is_added_listed_once_and_deleted(client: AwareClient) -> None:
    text = "py helpers: our fiscal year starts in April"
    added = client.memory.add(text)
    try:
        assert added.text == text and added.memory_id.startswith("mem_") and not added.source_run_id
        assert [m.memory_id for m in client.memory.list() if m.text == text] == [added.memory_id]
        assert client.memory.add(text).memory_id == added.memory_id, "the same text twice is one memory"
        assert [m.text for m in client.memory.list()].count(text) == 1
        with pytest.raises(aware.ValidationError):
            client.memory.add("x" * 501)
    finally:
        client.memory.delete(added)
    assert text not in [m.text for m in client.memory.list()]
    with pytest.raises(aware.NotFound):
        client.memory.delete(added.memory_id)


def test_feedback_shows_on_the_run_and_a_second_rating_replaces_the_first(client: AwareClient) -> None:
    answer = client.ask("how many rows does barcelona_apartments have?")
    try:
        assert not client.runs.get(answer.run_id).HasField("feedback"), "not rated yet"
        down = client.feedback(answer.run_id, "down", "wrong count")
        assert (down.rating, down.reason) == (run_pb2.FEEDBACK_RATING_DOWN, "wrong count")
        kept = client.runs.get(answer.run_id).feedback
        assert (kept.rating, kept.reason) == (run_pb2.FEEDBACK_RATING_DOWN, "wrong count")

        client.feedback(answer.run_id, "UP", "clear")
        kept = client.runs.get(answer.run_id).feedback
        assert (kept.rating, kept.reason) == (run_pb2.FEEDBACK_RATING_UP, "clear"), "the second replaced the first"
        turn = client.threads.get(answer.thread_id).turns[-1]
        assert (turn.feedback.rating, turn.feedback.reason) == (run_pb2.FEEDBACK_RATING_UP, "clear")

        with pytest.raises(ValueError, match="rating must be 'up' or 'down', not 'meh'"):
            client.feedback(answer.run_id, "meh")
        with pytest.raises(aware.ValidationError) as long_reason:
            client.feedback(answer.run_id, "down", "x" * 1001)
        assert long_reason.value.field == "reason" and "1000" in long_reason.value.message
        with pytest.raises(aware.NotFound):
            client.feedback("run_" + "0" * 32, "up")
        kept = client.runs.get(answer.run_id).feedback
        assert (kept.rating, kept.reason) == (run_pb2.FEEDBACK_RATING_UP, "clear"), "refused ratings changed nothing"
        audited = client.audit.list(action="run.feedback", limit=10)
        assert [e.resource_id for e in audited].count(answer.run_id) == 2, "each rating is audited"
    finally:
        client.threads.delete(answer.thread_id)


# -- rerun, clarify ----------------------------------------------------------------------------


def test_a_rerun_matches_on_unchanged_data_and_shows_the_rows_that_changed(client: AwareClient) -> None:
    first = client.datasets.upload(b"city,visits\nGirona,5\nReus,3\n", filename="py_rerun.csv")
    second = None
    try:
        table = client.sql("SELECT city, visits FROM py_rerun ORDER BY city")
        [same] = client.runs.rerun(table.run_id).queries
        assert same.run_id == table.run_id and same.sql == table.sql
        assert same.result_sha256 == same.recorded_sha256 and same.recorded_rows_kept
        assert (list(same.added_rows), list(same.removed_rows), same.unchanged_rows) == ([], [], 2)
        assert not same.changed_datasets
        assert Table(same.result).rows == table.rows == [("Girona", 5), ("Reus", 3)]

        # A chat run's queries, computed again the same way.
        answer = client.ask("how many rows does barcelona_apartments have?")
        [chat_query] = client.runs.rerun(answer.run_id).queries
        assert chat_query.result_sha256 == chat_query.recorded_sha256 and Table(chat_query.result).rows == [(240,)]
        with pytest.raises(aware.ValidationError, match="nothing to run again"):
            client.runs.rerun(client.ask("what are my files?", answer.thread_id).run_id)
        client.threads.delete(answer.thread_id)

        # Deleted, and another upload takes its name: the rerun says the dataset it read is gone
        # and never computes over the newcomer (rows that changed in place: tests/rust/files.rs).
        client.datasets.delete(first)
        second = client.datasets.upload(b"city,visits\nGirona,5\nReus,4\n", filename="py_rerun.csv")
        [gone] = client.runs.rerun(table.run_id).queries
        assert gone.error.code == common_pb2.ERROR_CODE_NOT_FOUND, gone.error
        assert gone.error.message.startswith("py_rerun was deleted since"), gone.error.message
        assert (list(gone.added_rows), list(gone.removed_rows), gone.result_sha256) == ([], [], "")
        assert [(d.dataset_id, d.table_name, d.version_hash) for d in gone.changed_datasets] == [
            (first.id, "py_rerun", "")
        ]
    finally:
        for d in (first, second):
            if d is not None and d.id in {x.id for x in client.datasets.list()}:
                client.datasets.delete(d)


def test_a_question_over_two_price_columns_is_asked_back_and_clarify_finishes_the_run(client: AwareClient) -> None:
    products = client.datasets.upload(PRODUCTS_CSV.encode(), filename="py_products.csv")
    threads: List[str] = []
    try:
        run = client.chat("average price of products")
        threads.append(run.thread_id)
        asked: List[aware.Clarification] = []
        for event in run:
            if event.type == "clarification_required":
                assert event.clarification is not None
                asked.append(event.clarification)
                assert client.clarify(event.clarification.id, "price_usd") == "APPROVED"
        [question] = asked
        assert question.phrase == "price" and question.run_id == run.run_id
        assert [o["value"] for o in question.options] == ["price_eur", "price_usd"]
        assert "33% empty" in question.options[1]["label"], question.options
        assert question.message.dataset.id == products.id
        answer = run.answer()
        assert (answer.status, answer.outcome) == ("SUCCEEDED", "ANSWERED")
        assert "22.25" in answer.text, f"the mean of price_usd's two values: {answer.text}"
        resolved = [e.payload for e in answer.events if e.type == "clarification_resolved"]
        assert [r.choice for r in resolved] == ["price_usd"]

        assert client.clarify(question.id, "price_usd") == "APPROVED", "the same answer again is harmless"
        with pytest.raises(aware.AlreadyResolved):
            client.clarify(question.id, "price_eur")

        # Not remembered: asked again, answered this time by the callback.
        seen: List[aware.Clarification] = []
        again = client.ask("average price of products", on_clarification=lambda c: seen.append(c) or "price_eur")
        threads.append(again.thread_id)
        assert len(seen) == 1 and seen[0].id != question.id
        assert "30" in again.text and "22.25" not in again.text, again.text
    finally:
        for t in threads:
            client.threads.delete(t)
        client.datasets.delete(products)


# -- grants, saved queries, audit --------------------------------------------------------------


def _rename(client: AwareClient, old: str, new: str, on_confirmation: Any = None) -> aware.Answer:
    answer = client.ask(f"rename the {old} dataset to {new}", on_confirmation=on_confirmation)
    client.threads.delete(answer.thread_id)
    return answer


def test_an_approval_for_a_while_is_a_grant_listed_until_revoked(client: AwareClient) -> None:
    cities = client.datasets.upload(b"city,visits\nGirona,5\n", filename="py_grant_cities.csv")
    grant_id = ""
    try:
        assert client.grants.list() == []
        run = client.chat("rename the py_grant_cities dataset to py_grant_towns")
        cards: List[aware.Confirmation] = []
        for event in run:
            if event.type == "confirmation_required":
                assert event.confirmation is not None
                cards.append(event.confirmation)
                assert client.confirm(event.confirmation.id, True, for_seconds=120) == "APPROVED"
        [card] = cards
        assert (card.tool_name, card.tier, card.grantable) == ("rename_dataset", "STANDARD", True)
        assert run.answer().status == "SUCCEEDED"
        client.threads.delete(run.thread_id)
        assert client.datasets.get(cities.id).table_name == "py_grant_towns"

        [grant] = client.grants.list()
        grant_id = grant.grant_id
        assert grant_id.startswith("gr_") and grant.confirmation_id == card.id
        assert (grant.tool_name, grant.resource_class) == ("rename_dataset", f"dataset:{cities.id}")
        assert grant.expires_at.seconds - grant.created_at.seconds == 120

        # Within the grant: no card, the grant approves it.
        by_grant = _rename(client, "py_grant_towns", "py_grant_villages")
        assert "confirmation_required" not in [e.type for e in by_grant.events]
        assert [e.payload.grant_id for e in by_grant.events if e.type == "confirmation_resolved"] == [grant_id]
        assert client.datasets.get(cities.id).table_name == "py_grant_villages"

        client.grants.revoke(grant)
        grant_id = ""
        assert client.grants.list() == []
        with pytest.raises(aware.NotFound):
            client.grants.revoke(grant.grant_id)
        with pytest.raises(aware.NotFound):
            client.grants.revoke("gr_" + "0" * 32)

        # Revoked: it asks again (denied here, so nothing changes).
        denied = _rename(client, "py_grant_villages", "py_grant_hamlets", on_confirmation=lambda c: False)
        assert "confirmation_required" in [e.type for e in denied.events] and denied.outcome == "DENIED"
        assert client.datasets.get(cities.id).table_name == "py_grant_villages"
        actions = [e.action for e in client.audit.list(action="grant.", limit=10) if e.resource_id == grant.grant_id]
        assert actions[0] == "grant.revoke" and "grant.create" in actions and "grant.use" in actions, actions
    finally:
        if grant_id:
            client.grants.revoke(grant_id)
        client.datasets.delete(cities.id)


def test_a_saved_query_answers_its_question_until_deleted(client: AwareClient) -> None:
    question = "how many big flats are there?"
    saved = client.saved_queries.save(
        "py big flats", "select count(*) as big_flats from barcelona_apartments where sqm > 100", question=question
    )
    plan_saved = None
    try:
        assert saved.id.startswith("sq_") and (saved.name, saved.question) == ("py big flats", question)
        assert saved.sql == "SELECT count(*) AS big_flats FROM barcelona_apartments WHERE sqm > 100", "canonical"
        assert {q.id: q.question for q in client.saved_queries.list()}.get(saved.id) == question
        [[big]] = client.sql(saved.sql).rows
        assert big > 0

        answer = client.ask(question)
        run = client.runs.get(answer.run_id)
        client.threads.delete(answer.thread_id)
        assert (run.verified_query.id, run.verified_query.name) == (saved.id, "py big flats")
        assert answer.text == f"From your verified query “py big flats”: big_flats is {big}.", answer.text

        with pytest.raises(aware.AlreadyExists):
            client.saved_queries.save("py big flats", "SELECT 1 AS one")
        with pytest.raises(aware.ValidationError):
            client.saved_queries.save("py broken", "SELECT no_such_column FROM barcelona_apartments")
        with pytest.raises(ValueError, match="one of them"):
            client.saved_queries.save("py neither")
        with pytest.raises(ValueError, match="one of them"):
            client.saved_queries.save("py both", "SELECT 1", plan={"dataset": "barcelona_apartments"})

        plan_saved = client.saved_queries.save(
            "py flats by terrace",
            plan={"dataset": "barcelona_apartments",
                  "select": [{"column": "has_terrace"}, {"aggregate": "count", "alias": "flats"}],
                  "group_by": ["has_terrace"]},
        )
        assert plan_saved.question == "py flats by terrace", "the question defaults to the name"
        assert "has_terrace" in plan_saved.sql and "count" in plan_saved.sql.lower()
        assert client.saved_queries.delete("py flats by terrace").id == plan_saved.id, "deleted by name"
        plan_saved = None

        assert client.saved_queries.delete(saved).id == saved.id, "deleted as the SavedQuery"
        assert saved.id not in {q.id for q in client.saved_queries.list()}
        with pytest.raises(aware.NotFound):
            client.saved_queries.delete(saved.id)
        after = client.ask(question)
        after_run = client.runs.get(after.run_id)
        client.threads.delete(after.thread_id)
        assert not after_run.HasField("verified_query"), "deleted, it answers nothing"
        assert "big_flats" not in after.text, after.text
    finally:
        for q in (saved, plan_saved):
            if q is not None and q.id in {s.id for s in client.saved_queries.list()}:
                client.saved_queries.delete(q)


def test_the_audit_log_lists_an_upload_and_a_delete_filtered_by_source_and_action(server, client: AwareClient) -> None:
    before = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=1)
    with AwareClient(server.addr, source="cli") as cli:
        dataset = cli.datasets.upload(b"a,b\n1,2\n", filename="py_audited.csv")
        cli.datasets.delete(dataset)

    from_cli = client.audit.list(source="cli", action="dataset.")
    assert [(e.action, e.resource_id, e.source, e.outcome) for e in from_cli[:2]] == [
        ("dataset.delete", dataset.id, "cli", "succeeded"),
        ("dataset.upload", dataset.id, "cli", "succeeded"),
    ], "newest first"
    assert all(e.source == "cli" and e.action.startswith("dataset.") for e in from_cli)
    assert dataset.id not in {e.resource_id for e in client.audit.list(source="api", action="dataset.")}
    deletes = client.audit.list(action="dataset.delete")
    assert dataset.id in {e.resource_id for e in deletes} and {e.action for e in deletes} == {"dataset.delete"}

    # A time range: since the upload, only what came after; until then, none of it.
    recent = client.audit.list(since=before)
    assert {e.resource_id for e in recent} >= {dataset.id}
    assert all(e.at.ToDatetime(tzinfo=dt.timezone.utc) >= before for e in recent)
    assert dataset.id not in {e.resource_id for e in client.audit.list(until=before)}

    # Pages (of at most 100): 120 entries come back in order, each once, and `limit` is kept.
    memories = []
    for i in range(60):
        memory = client.memory.add(f"py helpers: audited fact {i}")
        client.memory.delete(memory)
        memories.append(memory.memory_id)
    trail = client.audit.list(action="memory.", limit=120)
    assert len(trail) == 120 and len({e.entry_id for e in trail}) == 120, "two pages, no entry twice"
    assert [(e.action, e.resource_id) for e in trail] == [
        (action, m) for m in reversed(memories) for action in ("memory.delete", "memory.add")
    ], "newest first"
    assert not any("audited fact" in e.details_json for e in trail), "a memory's text is its owner's alone"
    every = client.audit.list(limit=1000)
    ids = [e.entry_id for e in every]
    assert len(ids) > 120 and ids == sorted(ids, reverse=True) and len(set(ids)) == len(ids)
    assert [e.entry_id for e in client.audit.list(limit=3)] == ids[:3]

    with pytest.raises(aware.ValidationError) as bad:
        client.audit.list(source="email")
    assert bad.value.field == "source"


# -- users and API keys (api-key mode) ---------------------------------------------------------


def test_an_admin_makes_a_user_whose_key_connects_until_deactivated_or_revoked(keyed: KeyedServer) -> None:
    root = AwareClient(keyed.addr, keyed.root_token)
    [me] = [u for u in root.admin.list_users() if u.name == "root"]
    assert me.role == admin_pb2.USER_ROLE_ADMIN

    ana = root.admin.create_user("py-ana", "viewer")
    assert (ana.name, ana.role) == ("py-ana", admin_pb2.USER_ROLE_VIEWER) and ana.user_id.startswith("usr_")
    assert ana.user_id in {u.user_id for u in root.admin.list_users()}
    with pytest.raises(ValueError, match="not a role"):
        root.admin.create_user("py-bob", "owner")
    with pytest.raises(aware.ValidationError):
        root.admin.create_user("", "viewer")

    key = root.admin.create_api_key(ana)
    assert key.token.startswith(key.prefix) and key.prefix.startswith("aw_") and key.user_id == ana.user_id
    assert key.token not in repr(key), "the token stays out of logs"
    assert [k.key_id for k in root.admin.list_api_keys(ana)] == [key.key_id]
    assert key.key_id in {k.key_id for k in root.admin.list_api_keys()}, "everyone's keys"

    as_ana = AwareClient(keyed.addr, key.token)
    assert as_ana.datasets.list() == [], "connected as ana, who has nothing yet"
    with pytest.raises(aware.PermissionDenied):
        as_ana.datasets.upload(b"a\n1\n", filename="py_ana.csv")
    with pytest.raises(aware.PermissionDenied):
        as_ana.admin.list_users()

    analyst = root.admin.set_role(ana, "analyst")
    assert analyst.role == admin_pb2.USER_ROLE_ANALYST
    uploaded = as_ana.datasets.upload(b"a\n1\n", filename="py_ana.csv")
    assert [d.id for d in as_ana.datasets.list()] == [uploaded.id], "an analyst may upload"
    assert [d.id for d in root.datasets.list()] == [], "ana's dataset is hers"
    assert uploaded.id in {e.resource_id for e in root.audit.list(user_id=ana.user_id, action="dataset.upload")}
    with pytest.raises(aware.PermissionDenied):
        as_ana.audit.list(user_id=me.user_id)

    off = root.admin.deactivate(ana.user_id)
    assert off.deactivated_at.seconds > 0
    with pytest.raises(aware.Unauthenticated, match="deactivated"):
        as_ana.datasets.list()
    on = root.admin.reactivate(ana)
    assert not on.HasField("deactivated_at")
    assert [d.id for d in as_ana.datasets.list()] == [uploaded.id], "back in, nothing of hers deleted"

    revoked = root.admin.revoke_api_key(key)
    assert revoked.key_id == key.key_id and revoked.revoked_at.seconds > 0
    with pytest.raises(aware.Unauthenticated):
        as_ana.datasets.list()
    assert root.admin.revoke_api_key(key.key_id).revoked_at == revoked.revoked_at, "revoking again changes nothing"

    expires = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) + dt.timedelta(days=1)
    fresh = root.admin.create_api_key(ana.user_id, expires_at=expires)
    assert fresh.expires_at == expires
    with AwareClient(keyed.addr, fresh.token) as again:
        assert [d.id for d in again.datasets.list()] == [uploaded.id], "a new key for the same user"

    with pytest.raises(aware.PermissionDenied, match="yourself"):
        root.admin.set_role(me, "viewer")
    with pytest.raises(aware.NotFound):
        root.admin.deactivate("usr_" + "0" * 32)
    actions = {e.action for e in root.audit.list(action="user.") if e.resource_id == ana.user_id}
    assert actions == {"user.create", "user.role", "user.deactivate", "user.reactivate"}, actions
    as_ana.close()
    root.close()


# -- the async client --------------------------------------------------------------------------


def test_the_async_client_has_the_same_helpers(server, keyed: KeyedServer) -> None:
    asyncio.run(_async_helpers(server, keyed))


async def _async_helpers(server: Any, keyed: KeyedServer) -> None:
    async with AsyncAwareClient(server.addr, source="cli") as client:
        memory = await client.memory.add("py helpers async: the week starts on Monday")
        assert memory.memory_id in {m.memory_id for m in await client.memory.list()}
        await client.memory.delete(memory)
        assert memory.memory_id not in {m.memory_id for m in await client.memory.list()}

        saved = await client.saved_queries.save("py async count", "SELECT count(*) AS n FROM customer_churn")
        assert saved.id in {q.id for q in await client.saved_queries.list()}
        assert (await client.saved_queries.delete("py async count")).id == saved.id
        assert saved.id not in {q.id for q in await client.saved_queries.list()}

        assert await client.grants.list() == []
        with pytest.raises(aware.NotFound):
            await client.grants.revoke("gr_" + "0" * 32)

        entries = await client.audit.list(source="cli", action="saved_query.", limit=2)
        assert [(e.action, e.resource_id) for e in entries] == [
            ("saved_query.delete", saved.id), ("saved_query.create", saved.id)
        ]

        answer = await client.ask("how many rows does customer_churn have?")
        await client.feedback(answer.run_id, "down", "async")
        assert (await client.runs.get(answer.run_id)).feedback.reason == "async"
        [query] = (await client.runs.rerun(answer.run_id)).queries
        assert query.result_sha256 == query.recorded_sha256
        assert (await client.threads.rename(answer.thread_id, "py async thread")).title == "py async thread"
        assert await client.threads.delete(answer.thread_id) == 1

    async with AsyncAwareClient(keyed.addr, keyed.root_token) as root:
        user = await root.admin.create_user("py-async-user", "analyst")
        assert user.user_id in {u.user_id for u in await root.admin.list_users()}
        key = await root.admin.create_api_key(user)
        async with AsyncAwareClient(keyed.addr, key.token) as as_user:
            assert await as_user.datasets.list() == []
            assert (await root.admin.set_role(user, "viewer")).role == admin_pb2.USER_ROLE_VIEWER
            assert (await root.admin.deactivate(user)).deactivated_at.seconds > 0
            with pytest.raises(aware.Unauthenticated):
                await as_user.datasets.list()
            await root.admin.reactivate(user)
            assert await as_user.datasets.list() == []
            assert [k.key_id for k in await root.admin.list_api_keys(user)] == [key.key_id]
            assert (await root.admin.revoke_api_key(key)).revoked_at.seconds > 0
            with pytest.raises(aware.Unauthenticated):
                await as_user.datasets.list()
