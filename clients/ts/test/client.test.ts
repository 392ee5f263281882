// @aware/client against the real aware-server over grpc-web (node's test runner): upload, chat, an
// approved confirmation, a connection cut mid-run that the stream survives, cancel; conversations
// (list, reopen, rename, fork, delete), memory, feedback and session grants.
//
// The server binary comes from $AWARE_SERVER_BIN (scripts/test sets it).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { toBinary } from "@bufbuild/protobuf";
import {
  Code,
  ConfirmationResolution,
  ConnectError,
  createAwareClient,
  FeedbackRating,
  RunStatus,
  ServerEventSchema,
  textOf,
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
