// @aware/client against the real aware-server over grpc-web (node's test runner): upload, chat, an
// approved confirmation, a connection cut mid-run that the stream survives, cancel; conversations
// (list, reopen, rename, fork, delete), memory, feedback and session grants; curation (rename,
// describe, a query's result saved as a dataset, verified queries), admin (users, API keys) and
// a dataset imported from an approved folder read again from its file; each change read back
// from the audit log; a run's queries computed again; a question back (clarification) answered;
// a knowledge document uploaded, searched and cited by an answer.
//
// The server binary comes from $AWARE_SERVER_BIN (scripts/test sets it).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { toBinary } from "@bufbuild/protobuf";
import {
  CitationStatus,
  citationIds,
  citationMentions,
  ClarificationKind,
  Code,
  ConfirmationResolution,
  ConnectError,
  createAwareClient,
  DatasetFormat,
  errorInfo,
  DatasetStatus,
  FeedbackRating,
  RunStatus,
  SearchIndexState,
  ServerEventSchema,
  sourcesOf,
  textOf,
  timestampDate,
  UserActivation,
  UserRole,
  type AwareClient,
  type ServerEvent,
  type StreamItem,
} from "../src/index.js";

let server: ChildProcess;
let dataDir: string;
let baseUrl: string;

before(async () => {
  const bin = process.env.AWARE_SERVER_BIN;
  assert.ok(bin, "AWARE_SERVER_BIN must point at the aware-server binary (scripts/test sets it)");
  dataDir = mkdtempSync(join(tmpdir(), "aware-ts-"));
  // An approved folder with two files, for imports.
  const downloads = join(dataDir, "downloads");
  mkdirSync(downloads);
  writeFileSync(join(downloads, "q1.csv"), "region,amount\nnorth,120\n");
  writeFileSync(join(downloads, "q2.csv"), "region,amount\nwest,60\n");
  const { AWARE_SERVER_BIN: _bin, ...env } = process.env; // every AWARE_* variable is server config
  const args = ["serve", "--listen", "127.0.0.1:0", "--data-dir", join(dataDir, "data"), "--files-root", `downloads=${downloads}`];
  server = spawn(bin, args, {
    env: {
      ...env,
      AWARE_LOG_LEVEL: "warn",
      // Each tool takes a moment, so a run can be interrupted mid-way; heartbeats come often.
      AWARE_AGENT__TOOL_DELAY_MS: "800",
      AWARE_AGENT__HEARTBEAT_MS: "200",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  server.stderr!.on("data", (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); }); // drained: workers never block on a full pipe
  baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the server did not start within 120 s")), 120_000);
    server.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited early (${code}): ${stderr}`));
    });
    createInterface({ input: server.stdout! }).on("line", (line) => {
      const m = /^aware-server listening on (\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(`http://${m[1]}`);
      }
    });
  });
});

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once("exit", r));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

function client(fetchImpl?: typeof fetch): AwareClient {
  return createAwareClient({ baseUrl, source: "web", fetch: fetchImpl });
}

/** Follows a run to its end; `onEvent` may act on events (approve, cancel) as they arrive. */
async function follow(
  c: AwareClient,
  runId: string,
  onEvent: (e: ServerEvent) => Promise<void> | void = () => {},
): Promise<{ events: ServerEvent[]; items: StreamItem[] }> {
  const events: ServerEvent[] = [];
  const items: StreamItem[] = [];
  for await (const item of c.runStream(runId, { heartbeatTimeoutMs: 5_000, initialBackoffMs: 20 })) {
    items.push(item);
    if (item.kind === "event") {
      events.push(item.event);
      await onEvent(item.event);
    }
  }
  return { events, items };
}

function completed(events: ServerEvent[]) {
  const last = events.at(-1)!;
  assert.equal(last.payload.case, "runCompleted", `the run ends with RunCompleted, not ${last.payload.case}`);
  return last.payload.value;
}

test("a file uploads in chunks and becomes a queryable dataset", async () => {
  const c = client();
  const rows = ["city,price"];
  for (let i = 0; i < 2_000; i++) rows.push(`${i % 2 ? "Girona" : "Reus"},${1_000 + i}`);
  const bytes = new TextEncoder().encode(rows.join("\n") + "\n");
  const progress: number[] = [];
  const dataset = await c.uploadFile("ts_prices.csv", bytes, { onProgress: (sent) => progress.push(sent) });
  assert.equal(dataset.tableName, "ts_prices");
  assert.equal(dataset.rowCount, 2_000n);
  assert.equal(progress.at(-1), bytes.length, "progress reaches the whole file");
  const sum = await c.query.executeSql({ sql: "SELECT sum(price) AS s FROM ts_prices", limit: 0 });
  const cell = sum.table!.rows[0].values[0].kind;
  assert.equal(cell.case === "intValue" || cell.case === "decimalValue" ? String(cell.value) : "?", String(2_000 * 1_000 + (1_999 * 2_000) / 2));
});

test("chat: the question runs a tool and streams an answer from the real catalog", async () => {
  const c = client();
  const sent = await c.sendMessage("what are my files?");
  const { events, items } = await follow(c, sent.runId);
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => BigInt(i + 1)), "every seq once, in order");
  const result = events.find((e) => e.payload.case === "toolResult");
  assert.ok(result && result.payload.case === "toolResult");
  assert.equal(result.payload.value.toolName, "list_datasets");
  assert.equal(result.payload.value.rich.case, "datasetList");
  assert.equal(completed(events).status, RunStatus.SUCCEEDED);
  assert.match(textOf(events), /barcelona_apartments/);
  assert.ok(items.some((i) => i.kind === "heartbeat"), "heartbeats reach the caller while a tool runs");
});

test("a confirmation approved through the client lets the delete happen", async () => {
  const c = client();
  const sent = await c.sendMessage("delete the customer churn dataset");
  let asked = "";
  const { events } = await follow(c, sent.runId, async (e) => {
    if (e.payload.case === "confirmationRequired") {
      asked = e.payload.value.description;
      const answer = await c.confirm(e.payload.value.confirmationId, true);
      assert.equal(answer.runId, sent.runId);
    }
  });
  assert.match(asked, /customer_churn|customer churn/i, "the card names the dataset");
  assert.equal(completed(events).status, RunStatus.SUCCEEDED);
  const left = await c.datasets.listDatasets({});
  assert.ok(!left.datasets.some((d) => d.tableName === "customer_churn"), "the dataset is gone");
});

test("a connection cut mid-run is resumed from the last seq, with nothing lost or repeated", async () => {
  let cut = false;
  // A fetch that breaks the first StreamRun response after its first chunk, as a dropped network would.
  const flaky: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (cut || !url.endsWith("/aware.v1.ChatService/StreamRun") || !response.body) return response;
    cut = true;
    const reader = response.body.getReader();
    let chunks = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (chunks++ >= 1) {
          await reader.cancel();
          controller.error(new TypeError("network connection lost (forced by the test)"));
          return;
        }
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const c = client(flaky);
  const sent = await c.sendMessage("show me the apartments");
  const { events, items } = await follow(c, sent.runId);
  assert.ok(cut, "the first stream was cut");
  const reconnects = items.filter((i) => i.kind === "reconnecting");
  assert.ok(reconnects.length >= 1, "the client said it was reconnecting");
  assert.equal(completed(events).status, RunStatus.SUCCEEDED);
  // Exactly the server's log, in order: compare with the unary replay, event by event.
  const log = await client().runs.listRunEvents({ runId: sent.runId, afterSeq: 0n, limit: 0 });
  assert.equal(events.length, log.events.length);
  events.forEach((e, i) => {
    assert.deepEqual(toBinary(ServerEventSchema, e), toBinary(ServerEventSchema, log.events[i]), `event ${i + 1}`);
  });
});

test("cancel stops a run mid-tool and the stream ends with CANCELLED", async () => {
  const c = client();
  const sent = await c.sendMessage("what are my files?");
  let cancelled = false;
  const { events } = await follow(c, sent.runId, async (e) => {
    if (e.payload.case === "toolCallStarted" && !cancelled) {
      cancelled = true;
      await c.cancel(sent.runId);
    }
  });
  assert.ok(cancelled);
  assert.equal(completed(events).status, RunStatus.CANCELLED);
});

/** Sends `text` (on `threadId`, or a new thread) and follows the run to its end. */
async function ask(c: AwareClient, text: string, threadId = "") {
  const sent = await c.sendMessage(text, { threadId });
  const { events } = await follow(c, sent.runId);
  assert.equal(completed(events).status, RunStatus.SUCCEEDED, text);
  return { ...sent, events };
}

/** The error code of a call that must fail. */
async function failure(call: Promise<unknown>): Promise<Code> {
  try {
    await call;
  } catch (e) {
    return ConnectError.from(e).code;
  }
  assert.fail("the call succeeded");
}

test("threads: a conversation is listed, reopened as turns, renamed, forked at a past message and deleted", async () => {
  const c = client();
  const first = await ask(c, "what are my files?");
  const second = await ask(c, "average price of the barcelona apartments", first.threadId);
  const listed = (await c.threads.listThreads({})).threads;
  assert.equal(listed[0].threadId, first.threadId, "newest activity first");
  assert.equal(listed[0].title, "what are my files?", "titled by its first message");
  assert.equal(listed[0].runCount, 2);
  assert.equal(listed[0].lastRunStatus, RunStatus.SUCCEEDED);

  const got = await c.threads.getThread({ threadId: first.threadId });
  assert.deepEqual(got.turns.map((t) => [t.runId, t.userText]), [[first.runId, "what are my files?"], [second.runId, "average price of the barcelona apartments"]]);
  assert.match(got.turns[0].assistantText, /barcelona_apartments/);
  assert.equal(got.turns[1].assistantText, textOf(second.events), "the answer as it was streamed");
  // A result is referenced by its seq: one ListRunEvents call brings back the rich payload.
  const ref = got.turns[0].results[0];
  assert.equal(ref.toolName, "list_datasets");
  assert.ok(ref.hasRich);
  const { events } = await c.runs.listRunEvents({ runId: first.runId, afterSeq: ref.seq - 1n, limit: 1 });
  assert.equal(events.length, 1);
  assert.ok(events[0].payload.case === "toolResult" && events[0].payload.value.rich.case === "datasetList");

  const renamed = await c.threads.renameThread({ threadId: first.threadId, title: "  Apartment   prices " });
  assert.equal(renamed.thread?.title, "Apartment prices", "whitespace collapsed");
  assert.equal((await c.threads.listThreads({})).threads.find((t) => t.threadId === first.threadId)?.title, "Apartment prices");

  // Edit the second message and send it again on a fork: the fork holds the first turn only.
  const fork = await c.threads.forkThread({ runId: second.runId });
  assert.equal(fork.userText, "average price of the barcelona apartments");
  assert.equal(fork.thread?.forkedFromThreadId, first.threadId);
  assert.equal(fork.thread?.forkedFromRunId, second.runId);
  const forkId = fork.thread!.threadId;
  assert.notEqual(forkId, first.threadId);
  await ask(c, "average price by neighbourhood", forkId);
  const forked = await c.threads.getThread({ threadId: forkId });
  assert.deepEqual(forked.turns.map((t) => t.userText), ["what are my files?", "average price by neighbourhood"]);
  assert.notEqual(forked.turns[0].runId, first.runId, "the fork has copies of the earlier runs");
  const original = await c.threads.getThread({ threadId: first.threadId });
  assert.deepEqual(original.turns.map((t) => t.userText), ["what are my files?", "average price of the barcelona apartments"], "the original is untouched");

  const deleted = await c.threads.deleteThread({ threadId: first.threadId });
  assert.equal(deleted.runsDeleted, 2);
  assert.equal(await failure(c.threads.getThread({ threadId: first.threadId })), Code.NotFound);
  assert.equal(await failure(c.runs.getRun({ runId: first.runId })), Code.NotFound, "its runs went with it");
  const left = (await c.threads.listThreads({})).threads.map((t) => t.threadId);
  assert.ok(!left.includes(first.threadId));
  assert.ok(left.includes(forkId), "the fork stays");
});

test("memory: 'remember that …' is saved by the run; facts are added, listed and deleted", async () => {
  const c = client();
  const said = await ask(c, "remember that our fiscal year starts in April");
  const saved = said.events.find((e) => e.payload.case === "memorySaved");
  assert.ok(saved && saved.payload.case === "memorySaved");
  assert.equal(saved.payload.value.text, "our fiscal year starts in April");
  const turn = (await c.threads.getThread({ threadId: said.threadId })).turns[0];
  assert.deepEqual(turn.memoriesSaved, ["our fiscal year starts in April"]);

  const added = (await c.memory.addMemory({ text: "revenue is in EUR" })).memory!;
  assert.equal(added.sourceRunId, "", "added by hand, not by a run");
  let memories = (await c.memory.listMemories({})).memories;
  assert.deepEqual(memories.map((m) => m.text), ["revenue is in EUR", "our fiscal year starts in April"], "newest first");
  assert.equal(memories[1].sourceRunId, said.runId);
  await c.memory.deleteMemory({ memoryId: saved.payload.value.memoryId });
  memories = (await c.memory.listMemories({})).memories;
  assert.deepEqual(memories.map((m) => m.text), ["revenue is in EUR"]);
  await c.memory.deleteMemory({ memoryId: added.memoryId });
  assert.equal((await c.memory.listMemories({})).memories.length, 0);
});

test("feedback: sendFeedback rates a run; the latest rating is what GetRun, GetThread and ListRuns' filter show", async () => {
  const c = client();
  const rated = await ask(c, "what are my files?");
  const down = await c.sendFeedback(rated.runId, "down", "wrong count");
  assert.equal(down.rating, FeedbackRating.DOWN);
  const up = await c.sendFeedback(rated.runId, "up", "clear");
  assert.deepEqual([up.rating, up.reason], [FeedbackRating.UP, "clear"]);
  const run = (await c.runs.getRun({ runId: rated.runId })).run!;
  assert.deepEqual([run.feedback?.rating, run.feedback?.reason], [FeedbackRating.UP, "clear"], "the second replaced the first");
  const turn = (await c.threads.getThread({ threadId: rated.threadId })).turns[0];
  assert.equal(turn.feedback?.rating, FeedbackRating.UP);
  const ups = await c.runs.listRuns({ threadId: rated.threadId, rating: FeedbackRating.UP });
  assert.deepEqual(ups.runs.map((r) => r.runId), [rated.runId]);
  const downs = await c.runs.listRuns({ threadId: rated.threadId, rating: FeedbackRating.DOWN });
  assert.equal(downs.runs.length, 0);
});

test("grants: allowFor answers an import card with a session grant (narrowed by edits) that can be revoked; widening edits, memory cards and ELEVATED grants are refused", async () => {
  const c = client();
  const listed = await c.sendMessage("what CSV files are in my downloads?");
  await follow(c, listed.runId);
  const sent = await c.sendMessage("import those", { threadId: listed.threadId });
  let grantId = "";
  const { events } = await follow(c, sent.runId, async (e) => {
    if (e.payload.case !== "confirmationRequired") return;
    const card = e.payload.value;
    assert.equal(card.toolName, "import_files");
    assert.ok(card.grantable, "an import may be allowed for a while");
    const resolved = JSON.parse(card.resolvedArgumentsJson);
    assert.deepEqual([resolved.root, [...resolved.paths].sort()], ["downloads", ["q1.csv", "q2.csv"]], "the files the pattern lists");
    const widened = await failure(c.approveWithEdits(card.confirmationId, { root: "downloads", paths: ["q1.csv", "q2.csv", "q3.csv"] }));
    assert.equal(widened, Code.InvalidArgument, "an edit that is not a narrowing is refused");
    const answer = await c.allowFor(card.confirmationId, 120, { root: "downloads", paths: ["q1.csv"] });
    assert.equal(answer.resolution, ConfirmationResolution.APPROVED, "the card stayed pending until then");
    grantId = answer.grantId;
  });
  assert.equal(completed(events).status, RunStatus.SUCCEEDED);
  const tables = (await c.datasets.listDatasets({})).datasets.map((d) => d.tableName);
  assert.ok(tables.includes("q1") && !tables.includes("q2"), `only the kept file is imported: ${tables}`);
  assert.match(grantId, /^gr_/);
  const grants = (await c.chat.listGrants({})).grants;
  assert.deepEqual(grants.map((g) => [g.grantId, g.toolName, g.resourceClass]), [[grantId, "import_files", "files:downloads"]]);
  const lasts = Number(grants[0].expiresAt!.seconds - grants[0].createdAt!.seconds);
  assert.equal(lasts, 120, "for the seconds asked");
  await c.chat.revokeGrant({ grantId });
  assert.equal((await c.chat.listGrants({})).grants.length, 0);

  await c.memory.addMemory({ text: "the office closes in August" });
  const forget = await c.sendMessage("forget that the office closes in August");
  const forgotten = await follow(c, forget.runId, async (e) => {
    if (e.payload.case !== "confirmationRequired") return;
    assert.equal(e.payload.value.grantable, false, "memory always asks");
    assert.equal(await failure(c.allowFor(e.payload.value.confirmationId)), Code.PermissionDenied);
    await c.confirm(e.payload.value.confirmationId, true);
  });
  assert.ok(forgotten.events.some((e) => e.payload.case === "memoryForgotten"));

  const del = await c.sendMessage("delete the support tickets dataset");
  await follow(c, del.runId, async (e) => {
    if (e.payload.case !== "confirmationRequired") return;
    assert.equal(await failure(c.allowFor(e.payload.value.confirmationId)), Code.PermissionDenied, "never for ELEVATED");
    await c.confirm(e.payload.value.confirmationId, false);
  });
  assert.ok((await c.datasets.listDatasets({})).datasets.some((d) => d.tableName === "support_tickets"), "nothing deleted");
});

test("audit: the web app's upload is in the caller's audit log as web, with the newest first", async () => {
  const web = client();
  await web.uploadFile("audited.csv", new TextEncoder().encode("a,b\n1,2\n"));
  const { entries } = await web.audit.listAuditEntries({ action: "dataset.", pageSize: 5 });
  assert.equal(entries[0].action, "dataset.upload");
  assert.equal(entries[0].source, "web");
  assert.ok(entries.every((e, i) => i === 0 || e.entryId < entries[i - 1].entryId), "newest first");
  const users = (await web.admin.listUsers({})).users;
  assert.ok(users.some((u) => u.userId === entries[0].userId), "the local user is an admin and sees the users");
});

test("curation: a dataset is renamed and described, saved queries follow the rename, a query's result becomes a derived dataset with lineage; the audit log has each change as web", async () => {
  const c = client();
  const uploaded = await c.uploadFile("ts rooms.csv", new TextEncoder().encode("room,sqm,price_eur\nA,30,900\nB,45,1200\nC,60,1500\n"));
  const saved = (await c.datasets.saveQuery({ name: "big rooms", question: "which rooms are big?", query: { case: "sql", value: "select room from ts_rooms where sqm > 40" } })).query!;
  assert.match(saved.sql, /FROM ts_rooms/, "kept in canonical form");

  const renamed = (await c.datasets.updateDataset({ datasetId: uploaded.id, name: "Rooms 2026", tableName: "rooms_2026" })).dataset!;
  assert.deepEqual([renamed.name, renamed.tableName], ["Rooms 2026", "rooms_2026"]);
  const bad = await c.datasets.updateDataset({ datasetId: uploaded.id, tableName: "Rooms 2026!" }).catch((e) => ConnectError.from(e));
  assert.ok(bad instanceof ConnectError);
  assert.equal(bad.code, Code.InvalidArgument);
  assert.match(bad.rawMessage, /is not a table name; try "rooms_2026"/, "the message says what would do");
  assert.equal(await failure(c.datasets.updateDataset({ datasetId: uploaded.id, tableName: "support_tickets" })), Code.AlreadyExists);
  const [followed] = (await c.datasets.listSavedQueries({})).queries;
  assert.equal(followed.id, saved.id);
  assert.match(followed.sql, /FROM rooms_2026/, "the saved query reads the new table name");

  await c.datasets.updateDataset({
    datasetId: uploaded.id,
    description: "Rooms to let in 2026",
    columnNotes: [{ column: "price_eur", description: "monthly rent", unit: "EUR" }, { column: "SQM", description: "floor area", unit: "m²" }],
  });
  // A note with neither description nor unit removes it; other columns' notes stay.
  await c.datasets.updateDataset({ datasetId: uploaded.id, columnNotes: [{ column: "sqm" }] });
  const got = (await c.datasets.getDataset({ datasetId: uploaded.id })).dataset!;
  assert.equal(got.description, "Rooms to let in 2026");
  assert.deepEqual(got.columnNotes.map((n) => [n.column, n.description, n.unit]), [["price_eur", "monthly rent", "EUR"]]);
  assert.equal(await failure(c.datasets.updateDataset({ datasetId: uploaded.id, columnNotes: [{ column: "floor", description: "x" }] })), Code.InvalidArgument);

  const derived = (await c.datasets.materializeQuery({ tableName: "pricey_rooms", query: { case: "sql", value: "SELECT room, price_eur FROM rooms_2026 WHERE price_eur >= 1200" } })).dataset!;
  assert.equal(derived.format, DatasetFormat.DERIVED);
  assert.equal(derived.rowCount, 2n);
  const lineage = (await c.datasets.getDataset({ datasetId: derived.id })).dataset!.lineage!;
  assert.deepEqual(lineage.sources.map((s) => [s.datasetId, s.tableName, s.versionHash]), [[uploaded.id, "rooms_2026", uploaded.versionHash]]);
  assert.match(lineage.sql, /FROM rooms_2026/);
  assert.equal((await c.runs.getRun({ runId: lineage.runId })).run?.runId, lineage.runId, "the run that computed it is there to inspect");
  assert.equal(await failure(c.datasets.materializeQuery({ tableName: "pricey_rooms", query: { case: "sql", value: "SELECT 1" } })), Code.AlreadyExists, "a name is never silently suffixed");

  const deleted = (await c.datasets.deleteSavedQuery({ query: "big rooms" })).query!;
  assert.equal(deleted.id, saved.id, "by name");
  assert.equal((await c.datasets.listSavedQueries({})).queries.length, 0);

  const changes: string[] = [];
  for await (const e of c.auditEntries({ source: "web", pageSize: 2 })) {
    if (e.resourceId === uploaded.id || e.resourceId === derived.id || e.resourceId === saved.id) changes.push(`${e.action} ${e.outcome}`);
    if (e.action === "dataset.upload" && e.resourceId === uploaded.id) break; // older pages are not read
  }
  assert.deepEqual(changes, [
    "saved_query.delete succeeded",
    "dataset.materialize succeeded",
    "dataset.describe succeeded",
    "dataset.describe succeeded",
    "dataset.rename succeeded",
    "saved_query.create succeeded",
    "dataset.upload succeeded",
  ]);
});

test("admin: users are created, re-roled, deactivated and reactivated; a key's token comes once and the list shows its prefix; revoked keys say so; all audited", async () => {
  const c = client();
  const me = (await c.admin.listUsers({})).users[0];
  const bob = (await c.admin.createUser({ name: "bob@example.com", role: UserRole.ANALYST })).user!;
  assert.equal(bob.role, UserRole.ANALYST);
  assert.ok((await c.admin.listUsers({})).users.some((u) => u.userId === bob.userId));
  assert.equal(await failure(c.admin.createUser({ name: "", role: UserRole.VIEWER })), Code.InvalidArgument);

  const created = await c.admin.createApiKey({ userId: bob.userId });
  const key = created.key!;
  assert.ok(created.token.startsWith(key.prefix) && created.token.length > key.prefix.length + 16, "the token, whose first characters are the prefix");
  const listed = (await c.admin.listApiKeys({ userId: bob.userId })).keys;
  assert.deepEqual(listed.map((k) => [k.keyId, k.prefix]), [[key.keyId, key.prefix]]);
  assert.ok(!JSON.stringify(listed, (_, v) => (typeof v === "bigint" ? String(v) : v)).includes(created.token), "the list never carries the token");

  const viewer = (await c.admin.updateUser({ userId: bob.userId, role: UserRole.VIEWER })).user!;
  assert.equal(viewer.role, UserRole.VIEWER);
  const off = (await c.admin.updateUser({ userId: bob.userId, activation: UserActivation.DEACTIVATE })).user!;
  assert.ok(off.deactivatedAt, "deactivated, with when");
  const on = (await c.admin.updateUser({ userId: bob.userId, activation: UserActivation.REACTIVATE })).user!;
  assert.equal(on.deactivatedAt, undefined);
  assert.equal(await failure(c.admin.updateUser({ userId: me.userId, role: UserRole.VIEWER })), Code.PermissionDenied, "no self-demotion");

  const revoked = (await c.admin.revokeApiKey({ keyId: key.keyId })).key!;
  assert.ok(revoked.revokedAt);
  assert.ok((await c.admin.listApiKeys({})).keys.find((k) => k.keyId === key.keyId)?.revokedAt, "listed as revoked");

  const actions: string[] = [];
  for await (const e of c.auditEntries({ source: "web", action: "user.", userId: me.userId })) actions.push(e.action);
  assert.deepEqual(actions.slice(0, 4), ["user.reactivate", "user.deactivate", "user.role", "user.create"]);
  const keys = [];
  for await (const e of c.auditEntries({ source: "web", action: "api_key." })) keys.push(e);
  assert.deepEqual(keys.slice(0, 2).map((e) => [e.action, e.resourceId, JSON.parse(e.detailsJson).prefix]), [["api_key.revoke", key.keyId, key.prefix], ["api_key.create", key.keyId, key.prefix]]);
  assert.ok(!keys.some((e) => e.detailsJson.includes(created.token)), "nor does the audit log");
  assert.equal((await c.audit.listAuditEntries({ source: "cli", action: "api_key." })).entries.length, 0, "filtered by source");
});

test("refresh: a dataset imported from an approved folder is read again from its file — the same bytes change nothing, new ones replace its rows and columns in place, a missing or emptied file changes nothing — and an uploaded one is refused; all audited", async () => {
  const c = client();
  // In a folder of its own: the grants test lists the CSV files at the top of downloads.
  const folder = join(dataDir, "downloads", "reports");
  mkdirSync(folder);
  const file = join(folder, "ts_sales.csv");
  writeFileSync(file, "region,amount\nnorth,120\nsouth,80\nwest,60\n");
  const report = (await c.files.importFiles({ root: "downloads", paths: ["reports/ts_sales.csv"] })).report!;
  const imported = report.files[0].dataset!;
  assert.deepEqual([imported.tableName, imported.rowCount, imported.origin?.root, imported.origin?.path], ["ts_sales", 3n, "downloads", "reports/ts_sales.csv"]);
  const listed = (await c.datasets.listDatasets({})).datasets.find((d) => d.id === imported.id)!;
  assert.deepEqual([listed.origin?.root, listed.origin?.path], ["downloads", "reports/ts_sales.csv"], "listed with where it came from");

  const same = await c.datasets.refreshDataset({ datasetId: imported.id });
  assert.equal(same.changed, false, "the same bytes");
  assert.deepEqual([same.previousRowCount, same.dataset?.rowCount, same.dataset?.versionHash], [3n, 3n, imported.versionHash]);

  writeFileSync(file, "region,amount,channel\nnorth,120,web\nsouth,80,shop\nwest,60,web\neast,45,shop\n");
  const fresh = await c.datasets.refreshDataset({ datasetId: imported.id });
  const after = fresh.dataset!;
  assert.equal(fresh.changed, true);
  assert.deepEqual([fresh.previousRowCount, after.rowCount, after.columnCount], [3n, 4n, 3]);
  assert.deepEqual([after.id, after.tableName], [imported.id, "ts_sales"], "replaced in place");
  assert.deepEqual(after.columns.map((col) => col.name), ["region", "amount", "channel"]);
  assert.notEqual(after.versionHash, imported.versionHash);
  const web = await c.query.executeSql({ sql: "SELECT sum(amount) AS s FROM ts_sales WHERE channel = 'web'", limit: 0 });
  const cell = web.table!.rows[0].values[0].kind;
  assert.equal(cell.case === "intValue" || cell.case === "decimalValue" ? String(cell.value) : "?", "180", "queries read the new rows");

  // A file that cannot be read again, or no longer ingests, leaves the dataset as it was, and says so.
  const refused = async (why: string) => {
    const e = await c.datasets.refreshDataset({ datasetId: imported.id }).catch((err) => ConnectError.from(err));
    assert.ok(e instanceof ConnectError, `${why}: refused`);
    const now = (await c.datasets.getDataset({ datasetId: imported.id })).dataset!;
    assert.deepEqual([now.rowCount, now.versionHash], [4n, after.versionHash], `${why}: unchanged`);
    return e;
  };
  writeFileSync(file, "");
  const emptied = await refused("an emptied file");
  assert.equal(emptied.code, Code.InvalidArgument);
  assert.equal(emptied.rawMessage, "The file is empty. ts_sales is unchanged.");
  rmSync(file);
  const missing = await refused("a missing file");
  assert.match(missing.rawMessage, /^downloads:reports\/ts_sales\.csv could not be read again: .+; ts_sales is unchanged$/);

  const sample = (await c.datasets.listDatasets({})).datasets.find((d) => d.tableName === "barcelona_apartments")!;
  assert.equal(sample.origin, undefined, "a sample dataset was uploaded");
  const uploaded = await c.datasets.refreshDataset({ datasetId: sample.id }).catch((err) => ConnectError.from(err));
  assert.ok(uploaded instanceof ConnectError);
  assert.equal(uploaded.code, Code.InvalidArgument);
  assert.equal(uploaded.rawMessage, "barcelona_apartments was uploaded, not imported from an approved folder, so there is no file to read again; upload the new file instead");

  const audited: string[] = [];
  for await (const e of c.auditEntries({ action: "dataset.refresh" })) {
    const d = JSON.parse(e.detailsJson);
    audited.push(e.resourceId === imported.id ? `${e.outcome}${d.rows_before === undefined ? "" : ` ${d.rows_before}→${d.rows_after}`}` : `${e.outcome} (other)`);
  }
  assert.deepEqual(audited, ["failed (other)", "failed", "failed", "succeeded 3→4", "unchanged 3→3"]);
});

test("rerun: a SQL run computed again over unchanged data has the recorded hash and no rows added or removed; after its file changes, the rows that came and went and the dataset's new version show, and GetRun says it is stale", async () => {
  const c = client();
  const folder = join(dataDir, "downloads", "reruns");
  mkdirSync(folder);
  const file = join(folder, "ts_stock.csv");
  writeFileSync(file, "item,qty\nbolt,40\nnut,25\nwasher,60\n");
  const dataset = (await c.files.importFiles({ root: "downloads", paths: ["reruns/ts_stock.csv"] })).report!.files[0].dataset!;
  const ran = await c.query.executeSql({ sql: "SELECT item, qty FROM ts_stock ORDER BY item", limit: 0 });
  const rowsOf = (rows: { values: { kind: { value?: unknown } }[] }[]) => rows.map((r) => r.values.map((v) => String(v.kind.value)).join(":"));

  const same = await c.rerunQuery(ran.runId);
  assert.equal(same.queries.length, 1);
  const q = same.queries[0];
  assert.equal(q.runId, ran.runId);
  assert.match(q.sql, /FROM ts_stock/);
  assert.match(q.resultSha256, /^[0-9a-f]{64}$/);
  assert.equal(q.resultSha256, q.recordedSha256, "the same data gives the same hash");
  assert.deepEqual([q.addedRows.length, q.removedRows.length, q.unchangedRows, q.recordedRowsKept], [0, 0, 3n, true]);
  assert.deepEqual(rowsOf(q.result!.rows), ["bolt:40", "nut:25", "washer:60"], "the result as it is now");
  assert.equal(q.changedDatasets.length, 0);
  const fresh = (await c.runs.getRun({ runId: ran.runId })).run!;
  assert.deepEqual([fresh.stale, fresh.changedDatasets.length], [false, 0]);

  writeFileSync(file, "item,qty\nbolt,40\nnut,30\nwasher,60\nscrew,15\n");
  const refreshed = (await c.datasets.refreshDataset({ datasetId: dataset.id })).dataset!;
  const moved = (await c.rerunQuery(ran.runId)).queries[0];
  assert.notEqual(moved.resultSha256, moved.recordedSha256);
  assert.deepEqual(rowsOf(moved.addedRows).sort(), ["nut:30", "screw:15"]);
  assert.deepEqual(rowsOf(moved.removedRows), ["nut:25"]);
  assert.equal(moved.unchangedRows, 2n);
  assert.deepEqual(moved.changedDatasets.map((d) => [d.datasetId, d.versionHash]), [[dataset.id, refreshed.versionHash]]);
  const stale = (await c.runs.getRun({ runId: ran.runId })).run!;
  assert.equal(stale.stale, true);
  assert.deepEqual(stale.changedDatasets.map((d) => [d.datasetId, d.versionHash]), [[dataset.id, refreshed.versionHash]]);
  const again = (await c.rerunQuery(ran.runId)).queries[0];
  assert.equal(again.recordedSha256, q.recordedSha256, "a rerun records nothing: the run keeps its result");

  const listed = await ask(c, "what are my files?");
  assert.equal(await failure(c.rerunQuery(listed.runId)), Code.InvalidArgument, "a run that ran no query");
  assert.equal(await failure(c.rerunQuery("run_doesnotexist")), Code.NotFound);
});

test("clarify: 'average price' over price_eur and price_usd asks which one with each column's figures; a choice not offered is refused and the question stays open; dismissing computes nothing; a choice finishes the same run with that column's average and, remembered, is a rule of the dataset that is not asked again", async () => {
  const c = client();
  // price_eur averages 125, price_usd 137.5.
  const csv = "item,price_eur,price_usd\nlamp,40,44\ndesk,250,275\nchair,90,99\nshelf,120,132\n";
  const dataset = await c.uploadFile("ts_gadgets.csv", new TextEncoder().encode(csv));
  const question = "average price in ts_gadgets";

  const questionIn = (e: ServerEvent) => (e.payload.case === "clarificationRequired" ? e.payload.value : undefined);
  // Dismissed ("none of these"): the run ends without an answer computed from a guess.
  const first = await c.sendMessage(question);
  const dismissed = await follow(c, first.runId, async (e) => {
    const q = questionIn(e);
    if (q) assert.equal((await c.dismissClarification(q.clarificationId)).resolution, ConfirmationResolution.DENIED);
  });
  const closed = dismissed.events.find((e) => e.payload.case === "clarificationResolved");
  assert.ok(closed && closed.payload.case === "clarificationResolved", "the question was closed");
  assert.deepEqual([closed.payload.value.resolution, closed.payload.value.choice, closed.payload.value.remembered], [ConfirmationResolution.DENIED, "", false]);
  assert.equal(completed(dismissed.events).status, RunStatus.SUCCEEDED);
  assert.ok(!dismissed.events.some((e) => e.payload.case === "toolResult" && e.payload.value.toolName === "execute_query_plan"), "no query ran");
  assert.doesNotMatch(textOf(dismissed.events), /125|137\.5/);

  const sent = await c.sendMessage(question);
  let asked: ReturnType<typeof questionIn>;
  const { events } = await follow(c, sent.runId, async (e) => {
    const q = questionIn(e);
    if (!q) return;
    asked = q;
    assert.ok(q.expiresAt && timestampDate(q.expiresAt) > new Date(), "it waits until a time to come");
    // The run waits for the person; GetRun says so (its status is written just after the event).
    let status = RunStatus.UNSPECIFIED;
    for (let i = 0; i < 50 && status !== RunStatus.AWAITING_CONFIRMATION; i++) {
      status = (await c.runs.getRun({ runId: sent.runId })).run!.status;
      if (status !== RunStatus.AWAITING_CONFIRMATION) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, RunStatus.AWAITING_CONFIRMATION);
    const wrong = await c.clarify(q.clarificationId, "item").catch((err) => ConnectError.from(err));
    assert.ok(wrong instanceof ConnectError, "a choice that is not an option");
    assert.equal(wrong.code, Code.InvalidArgument);
    assert.match(wrong.rawMessage, /price_eur, price_usd/, "the message names the options");
    assert.equal(await failure(c.confirm(q.clarificationId, true)), Code.InvalidArgument, "a clarification is not approved like a confirmation");
    assert.ok(!(await c.chat.listPendingConfirmations({})).confirmations.some((p) => p.confirmationId === q.clarificationId), "nor listed with the approvals");
    const answer = await c.clarify(q.clarificationId, "price_eur", true);
    assert.deepEqual([answer.runId, answer.resolution], [sent.runId, ConfirmationResolution.APPROVED], "the question was still open");
  });
  assert.ok(asked, "the run asked which price");
  assert.equal(asked.kind, ClarificationKind.COLUMN);
  assert.equal(asked.phrase, "price");
  assert.match(asked.question, /price_eur.*price_usd.*\?$/);
  assert.deepEqual([asked.dataset?.type, asked.dataset?.id, asked.dataset?.displayName], ["dataset", dataset.id, dataset.name]);
  assert.deepEqual(
    asked.options.map((o) => [o.value, o.min, o.max, o.nullShare]),
    [["price_eur", "40", "250", 0], ["price_usd", "44", "275", 0]],
    "each option with its figures from the data",
  );
  assert.deepEqual(
    asked.options.map((o) => o.label),
    [`price_eur (${asked.options[0].sqlType}): 40 to 250, none empty`, `price_usd (${asked.options[1].sqlType}): 44 to 275, none empty`],
  );
  assert.ok(asked.options.every((o) => o.sqlType !== ""), "with its SQL type");
  const resolved = events.filter((e) => e.payload.case === "clarificationResolved");
  assert.equal(resolved.length, 1, "resolved once: the refused choice left it open");
  assert.ok(resolved[0].payload.case === "clarificationResolved");
  assert.deepEqual([resolved[0].payload.value.choice, resolved[0].payload.value.remembered], ["price_eur", true]);
  assert.equal(completed(events).status, RunStatus.SUCCEEDED, "the same run went on");
  assert.match(textOf(events), /\b125\b/, textOf(events));
  assert.doesNotMatch(textOf(events), /137\.5/);
  const rerun = await c.rerunQuery(sent.runId);
  assert.equal(rerun.queries.length, 1, "the run's one query");
  assert.match(rerun.queries[0].sql, /avg\(.*price_eur/i);
  assert.equal(rerun.queries[0].resultSha256, rerun.queries[0].recordedSha256);

  const described = (await c.datasets.getDataset({ datasetId: dataset.id })).dataset!;
  assert.match(described.description, /“price” means price_eur\./, "kept as a rule of the dataset");
  const later = await ask(c, question);
  assert.ok(!later.events.some((e) => e.payload.case === "clarificationRequired"), "the rule settles it");
  assert.match(textOf(later.events), /\b125\b/);

  assert.equal(await failure(c.clarify("cf_doesnotexist", "price_eur")), Code.NotFound);
  assert.equal(await failure(c.dismissClarification("cf_doesnotexist")), Code.NotFound);
});

test("citationIds reads bracketed chunk ids — several to a bracket, by commas or semicolons — each once, in order; other brackets are not citations", () => {
  const text = "Refunds take 14 days [handbook::003]. Sale items too [handbook::004, faq_2024::0012; handbook::003]. " +
    "Not these: [handbook::03], [Handbook::003], [see handbook::005], [handbook:005], [](x) and [the docs](https://example.com).";
  assert.deepEqual(citationIds(text), ["handbook::003", "handbook::004", "faq_2024::0012"]);
  assert.deepEqual(citationIds("nothing cited"), []);
  const mentions = citationMentions("a [x::001] b [ y::002 ;z::003 ]");
  assert.deepEqual(mentions.map((m) => [m.start, m.end, m.ids]), [[2, 10, ["x::001"]], [13, 31, ["y::002", "z::003"]]]);
});

/** A staff guide in Markdown: its refund rule is in a section of its own, past the first passage. */
const HANDBOOK = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "tests", "corpus", "staff-guide.md"), "utf8");

/** The document once its passages can be searched (its index is built in the background). */
async function searchable(c: AwareClient, datasetId: string) {
  for (let i = 0; i < 240; i++) {
    const d = (await c.datasets.getDataset({ datasetId, sampleRows: 0 })).dataset!;
    const state = d.searchIndex?.state ?? SearchIndexState.UNSPECIFIED;
    if ([SearchIndexState.LEXICAL, SearchIndexState.EMBEDDING, SearchIndexState.READY].includes(state)) return d;
    assert.ok(![SearchIndexState.FAILED, SearchIndexState.NO_TEXT].includes(state), `the document's index: ${SearchIndexState[state]} ${d.searchIndex?.error ?? ""}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail("the document's passages were not searchable within a minute");
}

test("documents: uploadDocument stores Markdown and text as passages with stable chunk ids, and refuses other names before sending anything", async () => {
  const c = client();
  const doc = await c.uploadDocument("ts_handbook.md", HANDBOOK);
  assert.deepEqual([doc.tableName, doc.format, doc.status], ["ts_handbook", DatasetFormat.MARKDOWN, DatasetStatus.READY]);
  assert.ok(doc.rowCount >= 3n, `split into passages: ${doc.rowCount}`);
  const columns = doc.columns.map((col) => col.name);
  for (const name of ["chunk_id", "heading", "text", "title"]) assert.ok(columns.includes(name), `a passage has its ${name}: ${columns.join(", ")}`);
  const rows = (await c.datasets.previewRows({ datasetId: doc.id, limit: 50 })).table!;
  const at = rows.columns.findIndex((col) => col.name === "chunk_id");
  const ids = rows.rows.map((r) => String(r.values[at].kind.value));
  assert.equal(ids.length, Number(doc.rowCount));
  assert.ok(ids.every((id) => /^ts_handbook::\d{3,}$/.test(id)), ids.join(", "));
  assert.equal(new Set(ids).size, ids.length, "each passage its own id");

  const notes = await c.uploadDocument("ts_notes.txt", new TextEncoder().encode("Plain notes.\n\nThe office closes at six on Fridays.\n"));
  assert.deepEqual([notes.tableName, notes.format], ["ts_notes", DatasetFormat.TEXT]);
  const named = await c.uploadDocument("ts_readme", "# Read me\n\nA document with no extension.\n", { format: "markdown" });
  assert.equal(named.format, DatasetFormat.MARKDOWN, "an explicit format wins");

  const before = (await c.datasets.listDatasets({})).datasets.length;
  await assert.rejects(c.uploadDocument("ts_slides.pdf", "%PDF-1.7"), /ts_slides\.pdf is not a document/);
  assert.equal((await c.datasets.listDatasets({})).datasets.length, before, "nothing was uploaded");
  await c.datasets.deleteDataset({ datasetId: notes.id });
  await c.datasets.deleteDataset({ datasetId: named.id });
});

test("documents: asked what the handbook says about refunds, the run retrieves the refund passage and its answer cites only what it retrieved; GetRun and citationsOf agree", async () => {
  const c = client();
  const doc = (await c.datasets.listDatasets({})).datasets.find((d) => d.tableName === "ts_handbook")!;
  assert.ok(doc, "uploaded by the test before");
  await searchable(c, doc.id);
  const { runId, events } = await ask(c, "what does the handbook say about refunds?");

  const results = events.filter((e) => e.payload.case === "toolResult" && e.payload.value.rich.case === "knowledge");
  assert.ok(results.length >= 1, `search_knowledge ran: ${events.map((e) => e.payload.case).join(", ")}`);
  const retrievals = events.filter((e) => e.payload.case === "retrievalCompleted");
  assert.equal(retrievals.length, results.length, "one RetrievalCompleted per search");
  for (const r of results) {
    assert.ok(r.payload.case === "toolResult" && r.payload.value.rich.case === "knowledge");
    assert.equal(r.payload.value.toolName, "search_knowledge");
    const next = events.find((e) => e.seq === r.seq + 1n)!;
    assert.ok(next.payload.case === "retrievalCompleted", "right after its ToolResult");
    assert.equal(next.payload.value.toolCallId, r.payload.value.toolCallId);
    assert.deepEqual(next.payload.value.chunkIds, r.payload.value.rich.value.chunks.map((k) => k.chunkId), "the ids of the passages it returned");
  }
  const sources = sourcesOf(events);
  const refund = [...sources.passages.values()].find((k) => /Refunds are issued within 14 days/.test(k.text));
  assert.ok(refund, `a passage with the refund rule was retrieved: ${[...sources.passages.keys()].join(", ")}`);
  assert.match(refund.chunkId, /^ts_handbook::\d{3,}$/);
  assert.deepEqual([refund.datasetId, refund.title, refund.documentName], [doc.id, "Acme Staff Guide", "ts_handbook.md"]);
  assert.ok(["Working hours", "Refunds"].includes(refund.heading), `under a heading of the guide: ${refund.heading}`);
  assert.match(refund.snippet, /<mark>refunds?<\/mark>/i, "the snippet marks the query's words");
  assert.ok(retrievals.some((e) => e.payload.case === "retrievalCompleted" && e.payload.value.chunkIds.includes(refund.chunkId)));

  const grounding = events.find((e) => e.payload.case === "grounding");
  assert.ok(grounding && grounding.payload.case === "grounding", "the answer was checked");
  const check = grounding.payload.value.citations;
  assert.ok(check, "with its citations");
  assert.equal(check.status, CitationStatus.CITED, `${CitationStatus[check.status]}: ${textOf(events)}`);
  assert.ok(check.cited.length >= 1);
  assert.deepEqual(check.invalid, []);
  const retrieved = new Set(retrievals.flatMap((e) => (e.payload.case === "retrievalCompleted" ? e.payload.value.chunkIds : [])));
  assert.deepEqual(new Set(check.retrieved), retrieved, "retrieved: every id the searches returned");
  assert.ok(check.cited.every((id) => retrieved.has(id)), `cited ⊆ retrieved: ${check.cited.join(", ")}`);
  assert.deepEqual(citationIds(textOf(events)), check.cited, "the client reads the answer's citations as the server does");
  assert.equal(sources.status, CitationStatus.CITED);
  assert.deepEqual(sources.cited.map((k) => k.chunkId), check.cited, "each cited passage with its text, in cited order");
  assert.ok(sources.cited.some((k) => /14 days/.test(k.text)), "the answer cites the refund passage");
  assert.match(textOf(events), /14 days/);

  const run = (await c.runs.getRun({ runId })).run!;
  assert.deepEqual([run.citations?.status, run.citations?.cited, run.citations?.retrieved], [check.status, check.cited, check.retrieved], "GetRun says the same");
  const joined = await c.citationsOf(runId);
  assert.deepEqual(joined.cited.map((k) => [k.chunkId, k.text]), sources.cited.map((k) => [k.chunkId, k.text]));
  assert.equal(joined.searched, true);
});

test("documents: a question the handbook does not cover retrieves nothing, and the answer cites nothing and says it has no evidence", async () => {
  const c = client();
  const { runId, events } = await ask(c, "what does the handbook say about parental leave?");
  const retrievals = events.filter((e) => e.payload.case === "retrievalCompleted");
  assert.ok(retrievals.length >= 1, "the documents were searched");
  assert.deepEqual(retrievals.flatMap((e) => (e.payload.case === "retrievalCompleted" ? e.payload.value.chunkIds : [])), [], "nothing matches");
  const grounding = events.find((e) => e.payload.case === "grounding");
  assert.ok(grounding && grounding.payload.case === "grounding");
  const check = grounding.payload.value.citations!;
  assert.deepEqual([check.status, check.cited, check.retrieved], [CitationStatus.NO_EVIDENCE, [], []]);
  assert.deepEqual(citationIds(textOf(events)), []);
  assert.ok(textOf(events).trim().length > 0, "it still answers, in words");
  const joined = await c.citationsOf(runId);
  assert.deepEqual([joined.status, joined.cited.length, joined.searched], [CitationStatus.NO_EVIDENCE, 0, true]);
});

test("errorInfo reads aware's error code and its facts from a failed call, and nothing from a failed connection", async () => {
  const c = client();
  const refused = await c.query.executeSql({ sql: "SELECT * FROM read_csv('/etc/passwd')" }).catch((e: unknown) => e);
  assert.ok(refused instanceof ConnectError, String(refused));
  assert.deepEqual(errorInfo(refused), { reason: "SQL_POLICY_VIOLATION", metadata: { retryable: "false" } });
  const missing = await c.datasets.getDataset({ datasetId: "ds_nope" }).catch((e: unknown) => e);
  assert.equal(errorInfo(missing)?.reason, "NOT_FOUND");
  const nowhere = createAwareClient({ baseUrl: "http://127.0.0.1:9" });
  const down = await nowhere.datasets.listDatasets({}).catch((e: unknown) => e);
  assert.equal(errorInfo(down), undefined, "a connection failure carries no aware code");
});
