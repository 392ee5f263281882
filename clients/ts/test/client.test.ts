// @aware/client against the real aware-server over grpc-web (node's test runner): upload, chat, an
// approved confirmation, a connection cut mid-run that the stream survives, and cancel.
//
// The server binary comes from $AWARE_SERVER_BIN (scripts/test sets it).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { toBinary } from "@bufbuild/protobuf";
import {
  createAwareClient,
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
  const { AWARE_SERVER_BIN: _bin, ...env } = process.env; // every AWARE_* variable is server config
  server = spawn(bin, ["serve", "--listen", "127.0.0.1:0", "--data-dir", join(dataDir, "data")], {
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
