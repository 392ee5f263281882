// The web client in a real browser: playwright-core drives Debian's chromium against the real
// aware-server serving the built UI (scripts/test builds it and sets AWARE_SERVER_BIN). Each test
// saves screenshots of the states it checks under web-client/test-results/.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import net from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, "..", "test-results");
let server, dataDir, base, browser;

before(async () => {
  const bin = process.env.AWARE_SERVER_BIN;
  assert.ok(bin, "AWARE_SERVER_BIN must point at aware-server");
  mkdirSync(shots, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), "aware-web-"));
  const { AWARE_SERVER_BIN: _bin, ...env } = process.env;
  server = spawn(bin, ["serve", "--listen", "127.0.0.1:0", "--data-dir", join(dataDir, "data"), "--web-dir", join(here, "..", "dist")], {
    env: { ...env, AWARE_LOG_LEVEL: "warn", AWARE_AGENT__TOOL_DELAY_MS: "700", AWARE_AGENT__HEARTBEAT_MS: "200" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  server.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the server did not start")), 120_000);
    server.once("exit", (code) => { clearTimeout(timer); reject(new Error(`the server exited (${code}): ${stderr}`)); });
    createInterface({ input: server.stdout }).on("line", (line) => {
      const m = /^aware-server listening on (\S+)/.exec(line);
      if (m) { clearTimeout(timer); resolve(`http://${m[1]}`); }
    });
  });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
});

after(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once("exit", r));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** A fresh page on the app, its datasets loaded. */
async function open(hash = "#/datasets") {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/?hb=1500${hash}`);
  await page.getByRole("table").first().waitFor();
  return { context, page };
}

/** Sends a message from the assistant panel; returns the locator of its turn. */
async function ask(page, text) {
  const before = await page.locator(".turn").count();
  await page.getByLabel("Message").fill(text);
  await page.getByLabel("Message").press("Enter");
  const turn = page.locator(".turn").nth(before);
  await turn.waitFor();
  return turn;
}

const finished = (turn) => turn.and(turn.page().locator('.turn:not([data-status="RUNNING"]):not([data-status="AWAITING_CONFIRMATION"])')).waitFor({ timeout: 30_000 });

test("the app is served on the API's port and answers 'what are my files?' with a dataset table", async () => {
  const { context, page } = await open();
  assert.match(await page.title(), /aware/);
  const turn = await ask(page, "what are my files?");
  await turn.locator("table.datasets-result").getByText("barcelona_apartments").waitFor();
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  assert.match(await turn.locator(".answer").innerText(), /barcelona_apartments/);
  await page.screenshot({ path: join(shots, "1-files.png") });
  await context.close();
});

test("an average shows the number, and the details drawer shows the SQL", async () => {
  const { context, page } = await open();
  const turn = await ask(page, "average price of the barcelona apartments");
  await finished(turn);
  const answer = await turn.locator(".answer").innerText();
  const m = /The average price of apartments is €([\d,]+)\./.exec(answer);
  assert.ok(m, answer);
  await turn.getByRole("button", { name: "Details" }).click();
  const drawer = page.getByRole("dialog", { name: "Run details" });
  await drawer.waitFor();
  const sql = await drawer.locator("pre.sql").innerText();
  assert.match(sql.toLowerCase(), /avg\(.*price_eur/);
  assert.match(await drawer.innerText(), /barcelona_apartments @ /);
  await page.screenshot({ path: join(shots, "2-average-details.png") });
  await context.close();
});

test("a delete shows an ELEVATED card: Deny keeps the dataset, Allow deletes it and the list updates", async () => {
  const { context, page } = await open();
  const listed = page.locator("main table.datasets");
  await listed.getByText("customer_churn.csv").waitFor();
  let turn = await ask(page, "delete the customer churn dataset");
  let card = turn.locator(".card.elevated");
  await card.waitFor();
  assert.match(await card.innerText(), /Caution/);
  assert.match(await card.innerText(), /customer_churn/);
  await page.screenshot({ path: join(shots, "3-elevated-card.png") });
  await card.getByRole("button", { name: "Deny" }).click();
  await card.getByText("Denied").waitFor();
  await finished(turn);
  assert.equal(await listed.getByText("customer_churn.csv").count(), 1, "nothing deleted");

  turn = await ask(page, "delete the customer churn dataset");
  card = turn.locator(".card.elevated");
  await card.getByRole("button", { name: "Allow" }).click();
  await card.getByText("Allowed").waitFor();
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  await listed.getByText("customer_churn.csv").waitFor({ state: "detached" });
  await page.screenshot({ path: join(shots, "4-deleted.png") });
  await context.close();
});

/**
 * A TCP hop between the browser and the server that the test can cut: `cut()` drops every open
 * connection (the run's stream dies mid-flight) and refuses new ones until `restore()`.
 */
async function cuttableLink(target) {
  const open = new Set();
  let down = false;
  const hop = net.createServer((client) => {
    if (down) return client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
    };
    open.add(client);
    client.pipe(upstream).pipe(client);
    for (const s of [client, upstream]) s.on("error", end).on("close", end);
  });
  await new Promise((r) => hop.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${hop.address().port}`,
    cut() { down = true; for (const s of open) s.destroy(); },
    restore() { down = false; },
    close() { hop.close(); },
  };
}

test("the network dies mid-run: 'Reconnecting…', then the whole answer once", async () => {
  const link = await cuttableLink(new URL(base));
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/?hb=1500&server=${encodeURIComponent(link.url)}#/datasets`);
  await page.getByRole("table").first().waitFor();
  const turn = await ask(page, "what are my files?");
  await turn.locator(".chip.active").waitFor(); // RunStarted and ToolCallStarted arrived; the tool runs
  // The network goes: the open stream breaks and every new StreamRun is blocked.
  await page.route("**/aware.v1.ChatService/StreamRun", (route) => route.abort("internetdisconnected"));
  link.cut();
  const banner = page.getByRole("status").filter({ hasText: "Reconnecting…" });
  await banner.waitFor({ timeout: 15_000 });
  await page.screenshot({ path: join(shots, "5-reconnecting.png") });
  await new Promise((r) => setTimeout(r, 1_500)); // the run goes on without us
  link.restore();
  await page.unroute("**/aware.v1.ChatService/StreamRun");
  await finished(turn);
  await banner.waitFor({ state: "detached" });
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  const answer = await turn.locator(".answer").innerText();
  assert.equal(answer.split("You have").length - 1, 1, `the answer once, not repeated: ${answer}`);
  assert.equal(await turn.locator(".chip").count(), 1, "one tool chip");
  assert.equal(await turn.locator("table.datasets-result").count(), 1, "one result table");
  await page.screenshot({ path: join(shots, "6-resumed.png") });
  await context.close();
  link.close();
});

test("on a dataset's page, 'what am I looking at?' is answered about that dataset", async () => {
  const { context, page } = await open();
  await page.getByRole("link", { name: "barcelona_apartments.csv" }).click();
  await page.getByRole("heading", { name: "barcelona_apartments.csv" }).waitFor();
  await page.getByRole("heading", { name: "Preview" }).waitFor();
  const turn = await ask(page, "what am I looking at?");
  await finished(turn);
  const answer = await turn.locator(".answer").innerText();
  assert.match(answer, /barcelona_apartments/);
  assert.match(answer, /240/);
  await page.screenshot({ path: join(shots, "7-looking-at.png") });
  await context.close();
});

test("a file uploads from the page, the list updates, and a grouped aggregate gets a chart", async () => {
  const { context, page } = await open();
  const csv = "team,points\nred,3\nblue,7\nred,5\ngreen,2\n";
  await page.getByLabel("Upload a dataset file").setInputFiles({ name: "league.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.locator("main table.datasets").getByText("league.csv").waitFor();
  const turn = await ask(page, "total points by team in league");
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  await turn.getByRole("img", { name: /Bar chart of sum_points by team/ }).waitFor();
  const cells = await turn.locator("table td").allInnerTexts();
  assert.deepEqual(cells, ["blue", "7", "green", "2", "red", "8"]);
  await page.screenshot({ path: join(shots, "8-upload-and-chart.png") });
  await context.close();
});

test("search hits show snippets with the words marked, and a dataset's markup stays text", async () => {
  const { context, page } = await open();
  const csv = 'id,note\n1,"<img src=x onerror=""window.__pwned=1""> the espresso machine leaks water"\n2,"the printer jams on thick paper"\n';
  await page.getByLabel("Upload a dataset file").setInputFiles({ name: "office_notes.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.locator("main table.datasets").getByText("office_notes.csv").waitFor();
  await page.locator("main table.datasets").getByText("office_notes.csv").click();
  await page.locator(".search-state").getByText(/words \(note\)/).waitFor({ timeout: 30_000 });
  const turn = await ask(page, "search for espresso machine");
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  const hit = turn.locator(".search-hits li").first();
  await hit.waitFor();
  assert.deepEqual(await hit.locator("mark").allInnerTexts(), ["espresso", "machine"]);
  assert.match(await hit.locator(".snippet").innerText(), /^<img src=x onerror="window.__pwned=1"> the espresso machine leaks water$/);
  assert.equal(await page.evaluate(() => window.__pwned), undefined, "markup in a cell is shown, never run");
  assert.equal(await hit.locator("img").count(), 0);
  await page.screenshot({ path: join(shots, "9-search-hits.png") });
  await context.close();
});
