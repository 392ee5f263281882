// The web client in a real browser: playwright-core drives Debian's chromium against the real
// aware-server serving the built UI (scripts/test builds it and sets AWARE_SERVER_BIN). Each test
// saves screenshots of the states it checks under web-client/test-results/ (1440×900, and
// 390×844 for the phone layout). A second server runs the scripted model for what the offline
// planner never produces (Markdown answers, token usage, a confirmation left to expire); the
// import and refresh tests start their own, with an approved folder, and the curation and admin
// tests share one (their renames and accounts stay out of the other tests' way).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import net from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import Ajv from "ajv";
import { chromium } from "playwright-core";
import ts from "typescript";

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, "..", "test-results");
const servers = [];
let dataDir, base, scripted, browser;

/** Starts aware-server serving the built UI; resolves to its base URL once it listens. */
async function startServer(name, extraEnv, extraArgs = []) {
  const { AWARE_SERVER_BIN: bin, ...env } = process.env;
  const server = spawn(bin, ["serve", "--listen", "127.0.0.1:0", "--data-dir", join(dataDir, name), "--web-dir", join(here, "..", "dist"), ...extraArgs], {
    env: { ...env, AWARE_LOG_LEVEL: "warn", AWARE_AGENT__HEARTBEAT_MS: "200", ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  servers.push(server);
  let stderr = "";
  server.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the server did not start")), 120_000);
    server.once("exit", (code) => { clearTimeout(timer); reject(new Error(`the server exited (${code}): ${stderr}`)); });
    createInterface({ input: server.stdout }).on("line", (line) => {
      const m = /^aware-server listening on (\S+)/.exec(line);
      if (m) { clearTimeout(timer); resolve(`http://${m[1]}`); }
    });
  });
}

/** The scripted model's replies, by a word of the user's message. */
const SCRIPT = {
  replies: [
    {
      when: "markdown",
      turns: [{
        chunks: [
          "Here is **the summary** of `price_eur`, *in short*:\n\n- first point\n- second point\n\n1. one\n2. two\n\n",
          "[the docs](https://example.com/docs) and [a trap](javascript:window.__pwned=2) ",
          "<img src=x onerror=\"window.__pwned=3\"> stays text; snake_case_names stay whole.\n\n",
          "### Totals\n\n| region | churned |\n|:--|--:|\n| north | *12* |\n| south | 30 |\n\n",
          "See [the runs](/runs), ~~old~~ figures, <https://example.org/auto>, [a shout](JAVASCRIPT:window.__pwned=4) ",
          "and ![a pixel](https://example.com/pixel.png?from=answer).",
        ],
        input_tokens: 1200,
        output_tokens: 34,
      }],
    },
    {
      when: "north",
      turns: [
        {
          tool_calls: [{
            name: "ask_user",
            arguments: { dataset: "customer_churn", kind: "value", value: "north", phrase: "north", question: "“north” is in region and plan. Which one do you mean?", options: ["region", "plan"] },
          }],
          input_tokens: 300,
          output_tokens: 20,
        },
        { chunks: ["Nothing was computed: no column was chosen."], input_tokens: 320, output_tokens: 9 },
      ],
    },
    {
      when: "delete",
      turns: [
        { tool_calls: [{ name: "delete_dataset", arguments: { dataset: "customer_churn" } }], input_tokens: 900, output_tokens: 12 },
        { chunks: ["Nothing was deleted: the approval expired."], input_tokens: 950, output_tokens: 9 },
      ],
    },
  ],
};

before(async () => {
  assert.ok(process.env.AWARE_SERVER_BIN, "AWARE_SERVER_BIN must point at aware-server");
  mkdirSync(shots, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), "aware-web-"));
  const script = join(dataDir, "script.json");
  writeFileSync(script, JSON.stringify(SCRIPT));
  [base, scripted] = await Promise.all([
    startServer("data", { AWARE_AGENT__TOOL_DELAY_MS: "700" }),
    startServer("scripted", { AWARE_AGENT__MODEL: "script", AWARE_AGENT__SCRIPT: script, AWARE_AGENT__CONFIRMATION_TTL_SECS: "3" }),
  ]);
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
});

after(async () => {
  await browser?.close();
  await Promise.all(
    servers.filter((s) => s.exitCode === null).map((s) => {
      const exited = new Promise((r) => s.once("exit", r));
      s.kill("SIGTERM");
      return exited;
    }),
  );
  rmSync(dataDir, { recursive: true, force: true });
});

/** Waits until the server's first external MCP server is ready (asked through `apiClient`). */
async function externalServerReady(server) {
  const aware = await apiClient(server);
  for (let i = 0; ; i++) {
    const caps = await aware.chat.getCapabilities({}).catch(() => null);
    if (caps?.externalServers?.[0]?.state === "ready") return;
    assert.ok(i < 100, "the external server did not become ready");
    await new Promise((r) => setTimeout(r, 100));
  }
}

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/** A fresh page on the app at `path` (a page's path: "/datasets/ds_…"), its tables loaded. */
async function open(path = "/datasets", { viewport = DESKTOP, server = base } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${server}${path}?hb=1500`);
  await page.getByRole("table").first().waitFor();
  return { context, page };
}

/** The assistant: a panel beside the page on wide screens, a drawer (a dialog) on narrow ones. */
const assistant = (page) => page.getByRole("complementary", { name: "Assistant" }).or(page.getByRole("dialog", { name: "Assistant" }));

/** Sends a message from the assistant panel; returns the locator of its turn. */
async function ask(page, text) {
  const before = await page.locator(".turn").count();
  await page.getByLabel("Message").fill(text);
  await page.getByLabel("Message").press("Enter");
  const turn = page.locator(".turn").nth(before);
  await turn.waitFor();
  return turn;
}

/** Waits (up to 5 s) until `locator`'s element has the keyboard focus; fails saying what has it. */
async function hasFocus(locator, what) {
  const where = await locator.evaluate(
    (el) =>
      new Promise((done) => {
        const start = Date.now();
        (function wait() {
          if (el === document.activeElement) done("");
          else if (Date.now() - start > 5000) done(document.activeElement?.outerHTML.slice(0, 120) ?? "nothing");
          else setTimeout(wait, 20);
        })();
      }),
  );
  assert.equal(where, "", `${what}: the focus is on ${where}`);
}

const finished = (turn) => turn.and(turn.page().locator('.turn:not([data-status="RUNNING"]):not([data-status="AWAITING_CONFIRMATION"])')).waitFor({ timeout: 30_000 });

/** An init script: keeps what the page's Content-Security-Policy blocked, in `window.__violations`. */
function recordPolicyViolations() {
  window.__violations = [];
  document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(`${e.violatedDirective}: ${e.blockedURI} ${e.sample}`));
}

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
  // Highlighted as SQL, and copied whole.
  const keywords = await drawer.locator("pre.sql .hljs-keyword").allInnerTexts();
  assert.ok(keywords.includes("SELECT") && keywords.includes("FROM"), `keywords marked: ${keywords}`);
  assert.equal(await drawer.locator("pre.sql .hljs-keyword", { hasText: "price_eur" }).count(), 0, "a column is not a keyword");
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  await drawer.getByRole("button", { name: "Copy the SQL" }).click();
  await drawer.getByRole("button", { name: "Copy the SQL" }).getByText("Copied").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), sql);
  assert.match(await drawer.innerText(), /barcelona_apartments @ /);
  // Plan and SQL wrap between words, never inside one; the plan is laid out as JSON.
  for (const pre of ["pre.sql", "pre.plan"]) {
    assert.equal(await drawer.locator(pre).evaluate((e) => getComputedStyle(e).wordBreak), "normal", pre);
  }
  assert.ok((await drawer.locator("pre.plan").innerText()).split("\n").length > 3, "the plan is pretty-printed");
  // Usage shows only for runs that used a model, and then says so in numbers.
  const usage = drawer.locator("dd.usage");
  assert.equal(await usage.count(), 0, "the offline planner calls no model, so no usage line");
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
  // While it waits, it says it waits for the person — not that it is deleting.
  assert.equal(await turn.locator(".chip").innerText(), "Waiting for your approval");
  assert.equal(await turn.locator(".outcome").innerText(), "Waiting for your approval");
  assert.equal(await card.getByRole("button", { name: "Allow for 5 minutes" }).count(), 0, "a destructive action is never allowed for a while");
  await page.screenshot({ path: join(shots, "3-elevated-card.png") });
  await card.getByRole("button", { name: "Deny" }).click();
  await card.getByText("Denied — nothing changed").waitFor();
  await finished(turn);
  assert.equal(await turn.locator(".chip").innerText(), "Denied — nothing changed");
  assert.equal(await turn.locator(".outcome").innerText(), "Denied — nothing changed", "the footer says what happened, not 'succeeded'");
  assert.equal(await listed.getByText("customer_churn.csv").count(), 1, "nothing deleted");
  await page.screenshot({ path: join(shots, "3b-denied.png") });

  turn = await ask(page, "delete the customer churn dataset");
  card = turn.locator(".card.elevated");
  await card.getByRole("button", { name: "Allow" }).click();
  await card.getByText("Allowed").waitFor();
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  assert.equal(await turn.locator(".outcome").innerText(), "answered");
  assert.match(await turn.locator(".chip").innerText(), /^✓ /);
  await listed.getByText("customer_churn.csv").waitFor({ state: "detached" });
  await page.screenshot({ path: join(shots, "4-deleted.png") });

  // The run's steps in the inspector: routed, asked for an elevated approval, approved, deleted.
  await turn.getByRole("button", { name: "Details" }).click();
  await page.getByRole("dialog", { name: "Run details" }).locator("dd.id a").click();
  const steps = page.getByRole("region", { name: "Steps" }).locator("li");
  await steps.first().waitFor();
  const texts = (await steps.allInnerTexts()).map((t) => t.replace(/^\+\d+ ms\s+/, ""));
  const at = (re) => texts.findIndex((t) => re.test(t));
  const order = [
    at(/^Delete a dataset \(delete_dataset\) — started$/),
    at(/^Asked for an elevated approval: Delete the dataset “customer_churn\.csv”/),
    at(/^Approval approved after \d+\.\d s$/),
    at(/^Delete a dataset \(delete_dataset\) — succeeded in \d+ ms$/),
    texts.length - 1,
  ];
  assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), `in this order:\n${texts.join("\n")}`);
  assert.ok(texts.includes("Numbers checked: the answer has none"), texts.join("\n"));
  assert.match(texts[texts.length - 1], /^Ended answered after \d+ ms/);
  await page.screenshot({ path: join(shots, "4b-steps.png") });
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
  // The page and its API through the link (the server's CSP lets a page talk to its own origin only).
  await page.goto(`${link.url}/datasets?hb=1500`);
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
  await page.getByLabel("Choose a file to upload as a dataset").setInputFiles({ name: "league.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.locator("main table.datasets").getByText("league.csv").waitFor();
  const turn = await ask(page, "total points by team in league");
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  // Titled, and ranked by value (largest first); the table keeps the query's order.
  await turn.getByRole("img", { name: "Bar chart of sum_points by team, largest first: red 8, blue 7, green 2" }).waitFor();
  assert.equal(await turn.locator("figcaption").innerText(), "sum_points by team");
  const cells = await turn.locator("table td").allInnerTexts();
  assert.deepEqual(cells, ["blue", "7", "green", "2", "red", "8"]);
  await page.screenshot({ path: join(shots, "8-upload-and-chart.png") });
  await context.close();
});

/** A Content-Security-Policy without 'unsafe-eval' or inline styles, for the page `context` opens. */

test("any table can be charted: a dataset's preview on asking, averaged where its values repeat; kind, across and of are picked; the server's chart is the first pick and can be hidden", async () => {
  const { context, page } = await open();
  await page.getByRole("link", { name: "barcelona_apartments.csv" }).click();
  const preview = page.locator("main .result").first();
  await preview.locator("tbody tr").first().waitFor();
  assert.equal(await preview.locator("figure.chart-figure").count(), 0, "a raw preview has no chart until asked");
  await preview.getByRole("button", { name: "Chart" }).click();
  const settings = preview.getByRole("group", { name: "Chart settings" });
  const chosen = (label) => settings.getByLabel(label).evaluate((s) => s.selectedOptions[0].textContent);
  assert.deepEqual([await chosen("Chart"), await chosen("across"), await chosen("of")], ["Bars", "neighbourhood", "bedrooms"], "text across, the first measure (not an id) up");
  await settings.getByLabel("of").selectOption({ label: "price_eur" });
  const figure = preview.locator("figure.chart-figure");
  await figure.locator("figcaption").getByText("average price_eur by neighbourhood").waitFor();
  // One bar per neighbourhood of the 20 rows shown, each the average of its rows.
  const rows = await preview.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.cells[1].innerText, Number(tr.cells[5].innerText)]));
  const by = new Map();
  for (const [n, p] of rows) by.set(n, [...(by.get(n) ?? []), p]);
  const bars = figure.locator("svg g.mark-rect.role-mark path");
  await bars.first().waitFor();
  assert.equal(await bars.count(), by.size, "a bar per neighbourhood shown");
  const spoken = await figure.locator("div.chart[role=img]").getAttribute("aria-label");
  const [name, prices] = [...by.entries()][0];
  const mean = prices.reduce((a, b) => a + b, 0) / prices.length;
  assert.ok(spoken.includes(`${name} €${Math.round(mean).toLocaleString("en-US")}`), `the average of its rows: ${name} ${mean} in ${spoken}`);
  await settings.getByLabel("Chart").selectOption({ label: "Points" });
  await figure.locator("figcaption").getByText("price_eur against neighbourhood", { exact: true }).waitFor();
  await figure.locator("svg g.mark-symbol.role-mark path").first().waitFor();
  assert.equal(await figure.locator("svg g.mark-symbol.role-mark path").count(), rows.length, "points draw every row");
  await page.screenshot({ path: join(shots, "chart-picker.png") });
  await settings.getByRole("button", { name: "Hide chart" }).click();
  assert.equal(await figure.count(), 0);
  await preview.getByRole("button", { name: "Chart" }).waitFor();

  // An answer's chart is the server's, with the same settings to change.
  const turn = await ask(page, "average price by neighbourhood");
  await finished(turn);
  const answered = turn.getByRole("group", { name: "Chart settings" });
  assert.deepEqual(
    await Promise.all(["Chart", "across", "of"].map((l) => answered.getByLabel(l).evaluate((s) => s.selectedOptions[0].textContent))),
    ["Bars", "neighbourhood", "avg_price_eur"],
  );
  await answered.getByLabel("Chart").selectOption({ label: "Line" });
  await turn.locator("figure.chart-figure svg g.mark-line.role-mark path").first().waitFor();
  await context.close();
});

test("a grouped aggregate is drawn from the server's Vega-Lite chart, under a CSP without eval: a bar per row, labelled by category; PNG, SVG and a spec that validates", async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  // The server's own policy allows no eval: a chart that needed it (vega compiles expressions
  // with `new Function` unless it interprets them) would fail here.
  await context.addInitScript(recordPolicyViolations);
  const page = await context.newPage();
  const response = await page.goto(`${base}/datasets?hb=1500`);
  const policy = response.headers()["content-security-policy"] ?? "";
  assert.match(policy, /script-src 'self';/, `the page's CSP: ${policy}`);
  assert.doesNotMatch(policy, /unsafe-eval|unsafe-inline/, policy);
  await page.getByRole("table").first().waitFor();
  const turn = await ask(page, "average price by neighbourhood");
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");

  // The table's rows, as the chart must show them: largest first (the spec sorts by the measure).
  const rows = await turn.locator(".result .table-scroll tbody tr").evaluateAll((trs) =>
    trs.map((tr) => ({ category: tr.cells[0].innerText, value: Number(tr.cells[1].title || tr.cells[1].innerText.replace(/[^\d.-]/g, "")) })),
  );
  assert.ok(rows.length >= 2, `a grouped result: ${JSON.stringify(rows)}`);
  const ranked = [...rows].sort((a, b) => b.value - a.value).map((r) => r.category);

  const figure = turn.locator("figure.chart-figure");
  assert.equal(await figure.locator("figcaption").innerText(), "avg_price_eur by neighbourhood");
  const chart = figure.getByRole("img", { name: /^Bar chart of avg_price_eur by neighbourhood, largest first: / });
  const bars = chart.locator("svg g.mark-rect.role-mark path");
  await bars.first().waitFor();
  assert.equal(await bars.count(), rows.length, "one bar per row of the table");
  // Each bar names its category (Vega-Lite's aria description), in the chart's order, and the x axis
  // is labelled with the same categories.
  const barNames = await bars.evaluateAll((ps) => ps.map((p) => p.getAttribute("aria-label") ?? ""));
  const barCategories = barNames.map((n) => /^neighbourhood: (.*?); /.exec(n)?.[1]);
  assert.deepEqual([...barCategories].sort(), rows.map((r) => r.category).sort(), barNames.join(" | "));
  const axisLabels = await chart.locator('svg g.role-axis[aria-label^="X-axis"] g.role-axis-label text').allTextContents();
  assert.deepEqual(axisLabels, ranked, "the x axis reads largest first");
  const spoken = await chart.getAttribute("aria-label");
  assert.ok(spoken.indexOf(ranked[0]) < spoken.indexOf(ranked.at(-1)), spoken);
  // Bars are in the accent colour, and their tooltip (styled by the app) names the bar.
  assert.equal(await bars.first().getAttribute("fill"), "rgb(53, 88, 214)", "the app's accent (light theme)");
  await bars.first().hover();
  const tooltip = page.locator("#vg-tooltip-element.visible");
  await tooltip.waitFor();
  assert.match(await tooltip.innerText(), /neighbourhood\s+\S/);
  await page.mouse.move(0, 0);

  // The downloads are a menu: its button, then the format.
  const downloaded = async (name) => {
    await figure.getByRole("button", { name: "Download" }).click();
    const [d] = await Promise.all([page.waitForEvent("download"), page.getByRole("menuitem", { name }).click()]);
    return { file: d.suggestedFilename(), bytes: readFileSync(await d.path()) };
  };
  const svg = await downloaded("SVG image");
  assert.equal(svg.file, "avg_price_eur_by_neighbourhood.svg");
  const svgText = svg.bytes.toString("utf8");
  assert.match(svgText, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal(svgText.match(/<path [^>]*aria-label="neighbourhood: /g)?.length, rows.length, "the SVG file has every bar");
  // By keyboard too: Enter opens the menu at its first item, Enter takes it, and the focus is back on the menu's button.
  const menuButton = figure.getByRole("button", { name: "Download" });
  await menuButton.focus();
  await page.keyboard.press("Enter");
  await hasFocus(page.getByRole("menuitem", { name: "PNG image" }), "the menu opens at its first item");
  const [pngDownload] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
  const png = { file: pngDownload.suggestedFilename(), bytes: readFileSync(await pngDownload.path()) };
  await hasFocus(menuButton, "back on Download");
  assert.equal(png.file, "avg_price_eur_by_neighbourhood.png");
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "a PNG");

  // The spec as downloaded validates against the Vega-Lite schema that ships with the package.
  const spec = JSON.parse((await downloaded(/^Vega-Lite spec/)).bytes.toString("utf8"));
  const schema = JSON.parse(readFileSync(join(here, "..", "node_modules", "vega-lite", "build", "vega-lite-schema.json"), "utf8"));
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  validate(spec);
  assert.deepEqual(validate.errors ?? [], [], "the spec is valid Vega-Lite");
  assert.equal(validate({ ...spec, mark: "bars" }), false, "the validator does reject a bad spec");
  assert.equal(spec.mark.type, "bar");
  assert.deepEqual(spec.data.values.map((v) => v.neighbourhood).sort(), rows.map((r) => r.category).sort(), "the spec carries the table's rows");

  // The dialogs (Radix UI) keep to the CSP too: Expand opens one.
  await turn.getByRole("button", { name: "Expand" }).click();
  await page.getByRole("dialog", { name: /^Table / }).waitFor();
  await page.keyboard.press("Escape");
  await page.getByRole("dialog", { name: /^Table / }).waitFor({ state: "detached" });
  assert.deepEqual(await page.evaluate(() => window.__violations), [], "nothing broke the CSP");
  await figure.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "charts-bar.png") });
  await context.close();
});

test("a result table sorts by a column's header: numbers by value, largest first on a second click, the server's order on a third; each header names its type", async () => {
  const { context, page } = await open();
  const turn = await ask(page, "average price by neighbourhood");
  await finished(turn);
  const result = turn.locator(".result").first();
  const table = result.getByRole("table");
  const first = () => table.locator("tbody tr").first().locator("td").first().innerText();
  const bar = result.locator(".result-bar > span").first();
  assert.equal(await first(), "Ciutat Vella", "the server's order");
  const price = table.getByRole("button", { name: "avg_price_eur", exact: true });
  await price.click();
  assert.equal(await table.locator("th").nth(1).getAttribute("aria-sort"), "ascending");
  assert.equal(await first(), "Horta-Guinardó", "the cheapest first");
  assert.match(await bar.innerText(), /8 rows · sorted by avg_price_eur, smallest first$/);
  await price.click();
  assert.equal(await table.locator("th").nth(1).getAttribute("aria-sort"), "descending");
  assert.equal(await first(), "Sarrià-Sant Gervasi", "the dearest first");
  const prices = await table.locator("tbody tr td:nth-child(2)").allInnerTexts();
  const values = prices.map((p) => Number(p.replace(/[^\d.]/g, "")));
  assert.deepEqual(values, [...values].sort((a, b) => b - a), `descending: ${prices}`);
  await price.click();
  assert.equal(await table.locator("th").nth(1).getAttribute("aria-sort"), null);
  assert.equal(await first(), "Ciutat Vella", "back to the server's order");
  await table.getByRole("button", { name: "neighbourhood", exact: true }).click();
  await table.getByRole("button", { name: "neighbourhood", exact: true }).click();
  assert.equal(await first(), "Sarrià-Sant Gervasi", "Z to A");
  assert.match(await bar.innerText(), /sorted by neighbourhood, Z to A$/);
  assert.deepEqual(await table.locator("th .col-type").allInnerTexts(), ["varchar", "double"]);
  await page.screenshot({ path: join(shots, "32-sorted.png") });
  await context.close();
});

test("a result table's sort keeps nulls last both ways, orders whole numbers exactly and text as people read it; Export CSV writes the rows as shown", async () => {
  const { context, page } = await open();
  // Whole numbers past 2^53 (as doubles, the first two are equal), empty cells, `item 10` after `item 3`.
  const csv = "label,big,score,price_usd\nitem 10,9007199254740993,5,1234.56\nitem 2,9007199254740992,,\nitem 1,9007199254740995,12,\n,9007199254740994,,\nitem 3,1,3,\n";
  await page.getByLabel("Choose a file to upload as a dataset").setInputFiles({ name: "sort_edges.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.locator("main table.datasets").getByRole("link", { name: "sort_edges.csv" }).click();
  await page.getByRole("heading", { name: "Preview" }).waitFor();
  const preview = page.locator("main .result");
  const table = preview.getByRole("table");
  await table.getByText("item 10").waitFor();
  const labels = async () => (await table.locator("tbody tr td:nth-child(1)").allInnerTexts()).map((t) => t.trim());
  const server = ["item 10", "item 2", "item 1", "NULL", "item 3"];
  assert.deepEqual(await labels(), server, "the server's order");
  // A dataset's own rows are shown as stored: money above $1,000 is not rounded to whole dollars.
  assert.equal((await table.locator("tbody tr").first().locator("td").nth(3).innerText()).trim(), "1234.56");
  const header = (name) => table.getByRole("button", { name, exact: true });
  await header("score").click();
  assert.deepEqual(await labels(), ["item 3", "item 10", "item 1", "item 2", "NULL"], "smallest first, the empty scores last in the server's order");
  await header("score").click();
  assert.deepEqual(await labels(), ["item 1", "item 10", "item 3", "item 2", "NULL"], "largest first, the empty scores still last");
  const [download] = await Promise.all([page.waitForEvent("download"), preview.getByRole("button", { name: "Export CSV" }).click()]);
  const exported = readFileSync(await download.path(), "utf8").split("\r\n").map((l) => l.split(",")[0]);
  assert.deepEqual(exported.slice(1, 6), ["item 1", "item 10", "item 3", "item 2", ""], "the CSV has the rows in the order shown");
  await header("score").click();
  assert.deepEqual(await labels(), server, "a third click: the server's order");
  await header("big").click();
  assert.deepEqual(await labels(), ["item 3", "item 2", "item 10", "NULL", "item 1"], "whole numbers exactly");
  await header("label").focus();
  await page.keyboard.press("Enter");
  assert.equal(await table.locator("th").first().getAttribute("aria-sort"), "ascending", "a header sorts from the keyboard");
  assert.equal(await table.locator("th").nth(1).getAttribute("aria-sort"), null, "one column at a time");
  assert.deepEqual(await labels(), ["item 1", "item 2", "item 3", "item 10", "NULL"], "text as people read it");
  await page.keyboard.press("Enter");
  assert.deepEqual(await labels(), ["item 10", "item 3", "item 2", "item 1", "NULL"], "Z to A, the empty label still last");
  await context.close();
});

test("search hits show snippets with the words marked, and a dataset's markup stays text", async () => {
  const { context, page } = await open();
  const csv = 'id,note\n1,"<img src=x onerror=""window.__pwned=1""> the espresso machine leaks water"\n2,"the printer jams on thick paper"\n';
  await page.getByLabel("Choose a file to upload as a dataset").setInputFiles({ name: "office_notes.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
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

/** src/lib/format.ts, compiled by TypeScript as it is (it imports types only). */
async function formatModule() {
  const source = readFileSync(join(here, "..", "src", "lib", "format.ts"), "utf8");
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText;
  return import(`data:text/javascript;base64,${Buffer.from(js).toString("base64")}`);
}

const cell = (kase, value) => ({ kind: { case: kase, value } });

test("numbers read well: NaN and infinities, money from the column name, rounding by size; CSV neutralises formulas", async () => {
  const f = await formatModule();
  assert.deepEqual([NaN, Infinity, -Infinity].map((x) => f.cellText(cell("doubleValue", x))), ["NaN", "∞", "−∞"]);
  assert.deepEqual([NaN, Infinity, -Infinity].map((x) => f.csvCell(cell("doubleValue", x))), ["NaN", "Infinity", "-Infinity"]);
  assert.equal(f.cellText(cell("doubleValue", 511852.9412), f.columnUnit("average_price_eur")), "€511,853");
  assert.equal(f.cellText(cell("doubleValue", 12.5), f.columnUnit("avg(price_eur)")), "€12.50");
  assert.equal(f.cellText(cell("intValue", 1250000n), f.columnUnit("price_eur")), "€1,250,000");
  assert.equal(f.formatNumber(475620.83), "475,621");
  assert.equal(f.formatNumber(3.14159), "3.14");
  assert.equal(f.formatNumber(0.000123456), "0.000123");
  assert.equal(f.cellText(cell("intValue", 2024n), f.columnUnit("listed_year")), "2024", "years are not grouped");
  assert.equal(f.cellText(cell("doubleValue", 0.3487), f.columnUnit("share")), "34.9%", "a share reads as the answer says it");
  const jan = cell("timestampValue", { seconds: 1704067200n, nanos: 0 });
  assert.equal(f.cellText(jan, f.columnUnit("month")), "January 2024", "a month bucket reads as the answer says it");
  assert.equal(f.cellText(jan, f.columnUnit("quarter")), "Q1 2024", "as the answer writes it");
  assert.equal(f.cellText(jan, f.columnUnit("listed_on")), "2024-01-01 00:00:00", "any other timestamp as stored");
  assert.equal(f.cellText(cell("timestampValue", { seconds: 1704070800n, nanos: 0 }), f.columnUnit("month")), "2024-01-01 01:00:00", "not a month's start: as stored");
  assert.equal(f.cellText(cell("doubleValue", 0.004), f.columnUnit("churned_share")), "0.4%");
  assert.equal(f.exactText(cell("doubleValue", 0.3487)), "0.3487", "its exact value stays available");
  assert.equal(f.exactText(cell("doubleValue", 511852.9412)), "511852.9412", "the exact value stays available");
  const hostile = ["=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx", "\r=1", "＝1+1"];
  assert.deepEqual(
    hostile.map((t) => f.csvCell(cell("stringValue", t))),
    ["\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"", "\"'+cmd|' /C calc'!A0\"", "\"'-2+3\"", "\"'@SUM(A1)\"", "\"'\tx\"", "\"'\r=1\"", "\"'＝1+1\""],
  );
  assert.equal(f.csvCell(cell("intValue", -5n)), "-5", "a negative number is a number");
  assert.equal(f.csvCell(cell("stringValue", "plain")), "plain");
  assert.equal(f.tableCsv([{ name: "=cmd" }, { name: "n" }], [{ values: [cell("stringValue", "a,b"), cell("doubleValue", -1.5)] }]), "\"'=cmd\",n\r\n\"a,b\",-1.5\r\n");
});

test("times in lists read 'today, 14:05' for today and as a date before", async () => {
  const f = await formatModule();
  const now = new Date(2026, 10, 24, 15, 0);
  assert.equal(f.whenText(new Date(2026, 10, 24, 14, 5), now), "today, 14:05");
  assert.equal(f.whenText(new Date(2026, 10, 23, 23, 59), now), "23 Nov 2026, 23:59", "yesterday is a date");
  assert.equal(f.whenText(new Date(2025, 0, 2, 9, 7), now), "2 Jan 2025, 09:07");
});

test("a file that failed says why in the list and on its page; formulas are neutralised in Export CSV", async () => {
  const { context, page } = await open();
  const list = page.locator("main table.datasets");
  await page.getByLabel("Choose a file to upload as a dataset").setInputFiles({ name: "rainfall.parquet", mimeType: "application/octet-stream", buffer: Buffer.from("city,price\nGirona,3\n") });
  const row = list.locator("tr", { hasText: "rainfall.parquet" });
  await row.waitFor();
  assert.match(await row.locator(".status").innerText(), /^failed\s+This is not a Parquet file/);
  await page.screenshot({ path: join(shots, "10-failed-in-list.png") });
  await row.getByRole("link", { name: "rainfall.parquet" }).click();
  const alert = page.locator("main .load-failed");
  await alert.waitFor();
  assert.match(await alert.innerText(), /This is not a Parquet file/);
  assert.equal(await page.locator("main").getByText("Loading…").count(), 0, "nothing waits forever");
  await page.screenshot({ path: join(shots, "11-failed-page.png") });

  await page.goto(`${base}/datasets?hb=1500`);
  const csv = "name,formula\nana,\"=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\"\nbo,+cmd|' /C calc'!A0\ncy,@SUM(1+1)\n";
  await page.getByLabel("Choose a file to upload as a dataset").setInputFiles({ name: "formulas.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await list.getByRole("link", { name: "formulas.csv" }).click();
  await page.getByRole("heading", { name: "Preview" }).waitFor();
  const preview = page.locator("main .result");
  await preview.getByText("=HYPERLINK", { exact: false }).waitFor();
  const [download] = await Promise.all([page.waitForEvent("download"), preview.getByRole("button", { name: "Export CSV" }).click()]);
  const exported = readFileSync(await download.path(), "utf8");
  assert.equal(exported, "name,formula\r\nana,\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\"\r\nbo,\"'+cmd|' /C calc'!A0\"\r\ncy,\"'@SUM(1+1)\"\r\n");
  await context.close();
});

test("runs list chat runs by their question with their queries nested; the inspector shows the question and the results", async () => {
  const { context, page } = await open();
  // A run that "succeeded" without understanding the question says so in the list.
  await finished(await ask(page, "what's the weather in Paris tomorrow?"));
  const turn = await ask(page, "average price by neighbourhood");
  await finished(turn);
  await page.getByRole("link", { name: "Runs" }).click();
  const chat = page.locator("table.runs tbody.chat-run", { hasText: "average price by neighbourhood" }).first();
  await chat.waitFor();
  const nested = chat.locator("tr.nested");
  assert.ok((await nested.count()) >= 1, "the query it ran is nested under it");
  assert.match(await nested.first().innerText(), /plan.*barcelona_apartments: neighbourhood, avg\(price_eur\) by neighbourhood/s);
  for (const title of await page.locator("table.runs tbody > tr:first-child td.title").allInnerTexts()) {
    assert.ok(!title.trim().startsWith("{"), `no raw plan JSON as a title: ${title}`);
  }
  // The status column stays in view beside a long title (it is not pushed under the assistant).
  const status = await chat.locator("td.run-status").first().boundingBox();
  const main = await page.locator("main").boundingBox();
  assert.ok(status && main && status.x + status.width <= main.x + main.width, "the status column is inside the page");
  assert.equal(await chat.locator("td.run-status").first().innerText(), "answered");
  const weather = page.locator("table.runs tbody.chat-run", { hasText: "weather in Paris" }).first();
  assert.equal(await weather.locator("td.run-status").innerText(), "not understood", "not 'succeeded'");
  assert.equal(await chat.locator(".run-usage").count(), 0, "the offline planner used no model: no tokens shown");
  await page.screenshot({ path: join(shots, "12-runs.png") });

  await chat.getByRole("link", { name: "average price by neighbourhood" }).click();
  await page.getByRole("heading", { name: "average price by neighbourhood" }).waitFor();
  const inspector = page.locator("main .inspector");
  await inspector.locator(".transcript table").waitFor();
  assert.ok((await inspector.locator(".transcript .answer").innerText()).trim().length > 0, "the answer is there");
  assert.match(await inspector.locator(".transcript thead").innerText(), /neighbourhood\s+varchar\s+avg_price_eur\s+double/, "names with their types");
  assert.match(await inspector.locator(".transcript tbody tr").first().innerText(), /€[\d,]+/, "money in its currency");
  // The trace: one bar per span — the run, each model call and the tool call — each inside the
  // run's own bar, as wide as it took.
  const spans = page.getByRole("region", { name: "Trace" }).locator("ol.timeline > li");
  await spans.first().waitFor();
  const labels = await spans.locator(".span-name").allInnerTexts();
  assert.equal(await spans.locator(".span-bar").count(), labels.length, "one bar per span");
  assert.deepEqual(labels.filter((l) => l.startsWith("run ·")).length, 1, labels.join("\n"));
  assert.ok(labels.filter((l) => l.startsWith("model_call ·")).length >= 2, `the planner's two turns: ${labels.join("\n")}`);
  assert.ok(labels.some((l) => l === "tool_call · execute_query_plan"), labels.join("\n"));
  const bars = await spans.locator(".span-bar").evaluateAll((all) => all.map((b) => { const r = b.getBoundingClientRect(); return { left: r.left, right: r.right }; }));
  const run = bars[labels.findIndex((l) => l.startsWith("run ·"))];
  for (const [i, b] of bars.entries()) {
    assert.ok(b.right > b.left, `span ${labels[i]} has a bar`);
    assert.ok(b.left >= run.left - 1 && b.right <= run.right + 1, `span ${labels[i]} lies within the run: ${JSON.stringify({ b, run })}`);
  }
  await page.screenshot({ path: join(shots, "13-run-inspector.png") });

  await page.goBack();
  await page.locator("table.runs tr.nested a").first().click();
  await page.getByRole("heading", { name: /^Query plan — barcelona_apartments/ }).waitFor();
  assert.equal(await page.locator("main .usage").count(), 0, "a query run used no model: no usage line");
  await context.close();
});

test("wide tables scroll with a hint and open full-window; statistics show every measure in its unit", async () => {
  const { context, page } = await open();
  const turn = await ask(page, "show me the apartments");
  await finished(turn);
  const box = turn.locator(".result .table-scroll");
  const { scrollWidth, clientWidth } = await box.evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
  assert.ok(scrollWidth > clientWidth, "the table is wider than the panel and scrolls sideways");
  await turn.locator(".more-hint").waitFor();
  const last = box.locator("th").last();
  await last.scrollIntoViewIfNeeded();
  const lastBox = await last.boundingBox();
  const panel = await assistant(page).boundingBox();
  assert.ok(lastBox && panel && lastBox.x + lastBox.width <= panel.x + panel.width + 1, "the last column can be scrolled into view");
  await turn.getByRole("button", { name: "Expand" }).click();
  const dialog = page.getByRole("dialog", { name: /^Table / });
  await dialog.waitFor();
  for (const column of ["price_eur", "has_terrace", "listed_on"]) await dialog.getByRole("columnheader", { name: column }).waitFor();
  await hasFocus(dialog.getByRole("button", { name: "Close table" }), "the focus moves into the dialog");
  await page.screenshot({ path: join(shots, "14-expanded-table.png") });
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  await hasFocus(turn.getByRole("button", { name: "Expand" }), "Esc closed it: back on Expand");
  await turn.getByRole("button", { name: "Expand" }).click();
  await dialog.getByRole("button", { name: "Close table" }).click();
  await dialog.waitFor({ state: "detached" });

  await page.getByRole("link", { name: "barcelona_apartments.csv" }).click();
  const stats = page.locator("main table.statistics");
  await stats.waitFor();
  assert.deepEqual(await stats.locator("th").allInnerTexts(), ["Column", "Type", "Missing", "Distinct", "Min", "Max", "Mean", "Median", "Std dev"]);
  const price = await stats.locator("tr", { hasText: "price_eur" }).locator("td").allInnerTexts();
  for (const i of [4, 5, 6, 7, 8]) assert.match(price[i], /^€\d{1,3}(,\d{3})*$/, `${price.join(" | ")}`);
  await page.screenshot({ path: join(shots, "15-statistics.png") });
  await context.close();
});

test("on a phone the page has the width and the assistant is a drawer; at 800 px the datasets table fits", async () => {
  const { context, page } = await open("/datasets", { viewport: PHONE });
  const main = await page.locator("main").boundingBox();
  assert.ok(main && main.width >= 360, `the page uses the screen: ${JSON.stringify(main)}`);
  const drawer = page.getByRole("dialog", { name: "Assistant" });
  assert.equal(await drawer.isVisible(), false, "the assistant waits in its drawer");
  await page.screenshot({ path: join(shots, "16-phone-datasets.png") });
  // The menu shows every page: nothing scrolled out of sight to the side.
  const menu = page.getByRole("navigation", { name: "Main" });
  const sideways = await menu.evaluate((n) => n.scrollWidth - n.clientWidth);
  assert.ok(sideways <= 1, `the menu does not scroll sideways (${sideways} px hidden)`);
  for (const link of await menu.getByRole("link").all()) {
    const b = await link.boundingBox();
    assert.ok(b && b.x >= 0 && b.x + b.width <= PHONE.width + 1, `${await link.innerText()} is on screen: ${JSON.stringify(b)}`);
  }
  await page.getByRole("button", { name: "Ask the assistant" }).click();
  await drawer.waitFor();
  await hasFocus(page.getByLabel("Message"), "the drawer opened at the message box");
  const box = await drawer.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width + 1, "the drawer fits the screen");
  const turn = await ask(page, "what are my files?");
  await finished(turn);
  await turn.locator("table.datasets-result").waitFor();
  await page.screenshot({ path: join(shots, "17-phone-assistant.png") });
  await drawer.getByRole("button", { name: "Close the assistant" }).click();
  await drawer.waitFor({ state: "hidden" });
  await hasFocus(page.getByRole("button", { name: "Ask the assistant" }), "back on the button that opened it");
  // The Runs page's times fit their column: none prints over the question beside it.
  await menu.getByRole("link", { name: "Runs" }).click();
  const when = page.locator("table.runs td.when").first();
  await when.waitFor();
  assert.match(await when.innerText(), /^today, \d\d:\d\d$/);
  const spill = await page.locator("table.runs td.when").evaluateAll((cells) => Math.max(...cells.map((c) => c.scrollWidth - c.clientWidth)));
  assert.ok(spill <= 0, `a time spills ${spill} px out of its cell`);
  // So do the outcomes, the longest ("not understood") on two lines.
  const cut = await page.locator("table.runs td.run-status").evaluateAll((cells) => Math.max(...cells.map((c) => c.scrollWidth - c.clientWidth)));
  assert.ok(cut <= 0, `an outcome is cut ${cut} px short`);
  await page.screenshot({ path: join(shots, "16b-phone-runs.png") });
  await menu.getByRole("link", { name: "Datasets" }).click();
  await page.getByRole("heading", { level: 1, name: "Datasets" }).waitFor();
  // Esc closes it too.
  await page.getByRole("button", { name: "Ask the assistant" }).click();
  await drawer.waitFor();
  await page.keyboard.press("Escape");
  await drawer.waitFor({ state: "hidden" });
  // A link in the drawer opens its page: the drawer makes way, and the page takes the focus.
  await page.getByRole("button", { name: "Ask the assistant" }).click();
  await drawer.getByRole("link", { name: "Preview barcelona_apartments" }).click();
  await page.getByRole("heading", { level: 1, name: "barcelona_apartments.csv" }).waitFor();
  await drawer.waitFor({ state: "hidden" });
  await hasFocus(page.locator("main"), "the new page");
  await context.close();

  const narrow = await open("/datasets", { viewport: { width: 800, height: 900 } });
  const table = await narrow.page.locator("main table.datasets").boundingBox();
  const page800 = await narrow.page.locator("main").boundingBox();
  assert.ok(table && page800 && table.x + table.width <= page800.x + page800.width, "the datasets table is not cut off");
  await narrow.context.close();
});

test("answers render Markdown safely: GFM tables, only http(s) and the app's own links, images never loaded; usage shows when a model was used; an expired approval says nothing changed", async () => {
  const { context, page } = await open("/datasets", { server: scripted });
  const requested = [];
  page.on("request", (r) => requested.push(r.url()));
  const turn = await ask(page, "markdown please");
  await finished(turn);
  const answer = turn.locator(".answer");
  assert.deepEqual(await answer.locator("strong").allInnerTexts(), ["the summary", "Totals"]);
  assert.deepEqual(await answer.locator("em").allInnerTexts(), ["in short", "12"]);
  assert.equal(await answer.locator("code").innerText(), "price_eur");
  assert.equal(await answer.locator("del").innerText(), "old");
  assert.deepEqual(await answer.locator("ul > li").allInnerTexts(), ["first point", "second point"]);
  assert.deepEqual(await answer.locator("ol > li").allInnerTexts(), ["one", "two"]);
  // A heading is a bold paragraph: an answer adds nothing to the page's outline.
  assert.equal(await answer.locator(".md-heading").innerText(), "Totals");
  assert.equal(await answer.locator("h1, h2, h3, h4, h5, h6").count(), 0);
  // A GFM table is a table, in a box that scrolls, its alignment kept.
  const grid = answer.getByRole("region", { name: "Table" }).getByRole("table");
  assert.deepEqual(await grid.locator("th").allInnerTexts(), ["region", "churned"]);
  assert.deepEqual(await grid.locator("tbody td").allInnerTexts(), ["north", "12", "south", "30"]);
  assert.equal(await grid.locator("tbody td").nth(1).evaluate((td) => getComputedStyle(td).textAlign), "right");
  assert.deepEqual(await answer.locator("a").allInnerTexts(), ["the docs", "the runs", "https://example.org/auto"], "only http(s) and the app's own links are links");
  assert.equal(await answer.getByRole("link", { name: "the docs" }).getAttribute("href"), "https://example.com/docs");
  assert.equal(await answer.getByRole("link", { name: "the docs" }).getAttribute("target"), "_blank");
  const text = await answer.innerText();
  assert.ok(!/\*\*|`|~~|\]\(/.test(text), `no Markdown shows literally: ${text}`);
  assert.match(text, /a trap <img src=x onerror="window.__pwned=3"> stays text; snake_case_names stay whole\./);
  assert.match(text, /See the runs, old figures, https:\/\/example\.org\/auto, a shout and a pixel\./, "a javascript: link and an image are their text");
  assert.equal(await answer.locator("img").count(), 0);
  assert.ok(!requested.some((u) => u.includes("pixel.png")), "an image in an answer is never fetched");
  assert.equal(await page.evaluate(() => window.__pwned), undefined, "nothing from the text ran");
  await answer.screenshot({ path: join(shots, "18a-markdown-answer.png") });
  await turn.getByRole("button", { name: "Details" }).click();
  const drawer = page.getByRole("dialog", { name: "Run details" });
  assert.equal(await drawer.locator("dd.usage").innerText(), "1 model call · 1,200 in / 34 out tokens");
  await page.screenshot({ path: join(shots, "18-markdown.png") });
  await drawer.getByRole("button", { name: "Close details" }).click();
  // The answer's link to the runs list opens it in the app (no page load) with the conversation;
  // the list says what each chat run cost in tokens; the offline planner's runs cost none.
  const thread = new URL(page.url()).searchParams.get("thread");
  assert.ok(thread, "the conversation is in the URL");
  await page.evaluate(() => (window.__samePage = true));
  await answer.getByRole("link", { name: "the runs" }).click();
  await page.waitForURL((u) => u.pathname === "/runs");
  assert.equal(new URL(page.url()).searchParams.get("thread"), thread, "the link keeps the conversation");
  assert.equal(await page.evaluate(() => window.__samePage), true, "opened in the app, not loaded anew");
  const listedRun = page.locator("table.runs tbody.chat-run", { hasText: "markdown please" }).first();
  assert.equal(await listedRun.locator(".run-usage").innerText(), "1 model call · 1,200 in / 34 out tokens");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Datasets" }).click();
  await page.locator("main table.datasets").waitFor();

  const del = await ask(page, "delete it");
  const card = del.locator(".card.elevated");
  await card.waitFor();
  await card.getByText("Expired — nothing changed").waitFor({ timeout: 20_000 });
  await finished(del);
  assert.equal(await del.locator(".chip").innerText(), "Expired — nothing changed");
  assert.equal(await del.locator(".outcome").innerText(), "Expired — nothing changed");
  assert.equal(await page.locator("main table.datasets").getByText("customer_churn.csv").count(), 1, "nothing deleted");
  await page.screenshot({ path: join(shots, "19-expired.png") });
  await context.close();
});

/** An MCP client's session on `server`'s /mcp (Streamable HTTP, no elicitation): `call(id,
 *  method, params)` resolves to the response's text once the server answers. */
async function mcpSession(server) {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
  const post = (message) => fetch(`${server}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", ...message }) });
  const init = await post({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "ui-test", version: "1" } } });
  headers["mcp-session-id"] = init.headers.get("mcp-session-id");
  await init.text();
  await (await post({ method: "notifications/initialized" })).text();
  return (id, method, params) => post({ id, method, params }).then((r) => r.text());
}

test("an MCP client's delete waits in the app's approvals list; Allow there, and the client fetches the delete's result", async () => {
  const server = await startServer("approvals", {});
  const call = await mcpSession(server);
  const deleting = call(2, "tools/call", { name: "delete_dataset", arguments: { dataset: "barcelona_apartments" } });
  const { context, page } = await open("/datasets", { server });
  const waiting = page.getByRole("region", { name: "Waiting for your approval" });
  await waiting.waitFor();
  assert.match(await waiting.innerText(), /delete_dataset/);
  assert.match(await waiting.innerText(), /barcelona_apartments/);
  assert.match(await waiting.innerText(), /Caution/);
  await page.screenshot({ path: join(shots, "12-mcp-approval.png") });
  // The client's call answered at once (it cannot elicit): a person must approve, here is the run.
  const first = await deleting;
  assert.match(first, /"pending_approval"/);
  const runId = first.match(/"run_id":"(run_[0-9a-f]+)"/)[1];
  await waiting.getByRole("button", { name: "Allow" }).click();
  await waiting.waitFor({ state: "detached" });
  const answer = await call(3, "tools/call", { name: "get_call_result", arguments: { run_id: runId } });
  assert.match(answer, /"isError":false/);
  assert.match(answer, /"deleted_dataset"/);
  await page.locator("main table.datasets").getByText("barcelona_apartments.csv").waitFor({ state: "detached" });
  // A chat run's own card is not listed twice: the assistant shows it, the approvals list does not.
  const turn = await ask(page, "delete the customer churn dataset");
  await turn.locator(".card.elevated").waitFor();
  await page.waitForTimeout(2500);
  assert.equal(await waiting.count(), 0, "the assistant's card is the only one");
  await turn.locator(".card.elevated").getByRole("button", { name: "Deny" }).click();
  await finished(turn);
  await context.close();
});

test("an external MCP server's tool shows where it comes from, and its output is shown as text", async () => {
  const repo = join(here, "..", "..");
  const node = join(repo, ".tools", "bin", "node24");
  const everything = join(repo, "tests", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
  const server = await startServer("external", {
    AWARE_MCP__SERVERS: `[{id="everything", command=${JSON.stringify(node)}, args=[${JSON.stringify(everything)}, "stdio"], tools={echo="demo.read"}, scopes=[{name="demo.read", modes=["local"]}]}]`,
  });
  await externalServerReady(server);
  const { context, page } = await open("/datasets", { server });
  const turn = await ask(page, "use everything.echo with <b>hello</b> from the browser");
  await finished(turn);
  assert.match(await turn.locator(".chip").innerText(), /Echo Tool · from everything · scope demo\.read/);
  const shown = turn.locator(".external-result");
  assert.match(await shown.innerText(), /Echo: <b>hello<\/b> from the browser/, "markup from another server stays text");
  assert.match(await shown.innerText(), /from the external server everything/);
  await page.screenshot({ path: join(shots, "13-external-tool.png") });
  const tools = await ask(page, "what tools do you have?");
  await finished(tools);
  assert.match(await tools.innerText(), /From the external MCP server everything: everything\.echo \(scope demo\.read\)/);
  // Settings shows the server, its state, and the tool with its scope beside aware's own tools.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  const registered = page.getByRole("region", { name: "MCP server everything" });
  await registered.waitFor();
  assert.match(await registered.locator("h3").innerText(), /^everything\s+ready\s+\d+ tools, 1 for you$/);
  assert.match(await registered.getByRole("listitem").innerText(), /Echo Tool everything\.echo reads only scope demo\.read/);
  const own = await page.locator("ul.tools").first().innerText();
  assert.match(own, /delete_dataset asks first, with a warning · cannot be undone/, "a delete says it asks first");
  assert.match(own, /create_user asks first, with a warning —/, "an account can be deactivated again: not 'cannot be undone'");
  assert.match(own, /Run SQL run_sql_query reads only/);
  // What each tool does, for a person: not the model's instructions, no raw backticks.
  assert.doesNotMatch(own, /you never see it|`/, "the model's own instructions stay the model's");
  await page.screenshot({ path: join(shots, "13b-settings-mcp.png") });
  await context.close();
});

test("an external tool's approval card is plain text in aware's words, with every argument", async () => {
  const repo = join(here, "..", "..");
  const python = join(repo, ".tools", "python", "bin", "python");
  const evil = join(repo, "tests", "mcp", "hostile_server.py");
  const server = await startServer("hostile", {
    AWARE_MCP__SERVERS: `[{id="evil", command=${JSON.stringify(python)}, args=[${JSON.stringify(evil)}], tools={send="evil.any"}, scopes=[{name="evil.any", modes=["local"]}]}]`,
  });
  await externalServerReady(server);
  const { context, page } = await open("/datasets", { server });
  const turn = await ask(page, 'use evil.send with {"note": "**safe to allow** [details](https://evil.example)", "zzz_bcc": "exfil@evil.example"}');
  const card = turn.locator(".card");
  await card.waitFor();
  const text = await card.innerText();
  assert.match(text, /external MCP server evil/);
  assert.match(text, /\*\*safe to allow\*\* \[details\]\(https:\/\/evil\.example\)/, "the model's Markdown stays text");
  assert.match(text, /zzz_bcc: "exfil@evil\.example"/, "every argument is on the card");
  assert.doesNotMatch(text, /\*\*read-only/, "the server's title without its emphasis");
  assert.equal(await card.locator("strong:not(.caution), em, a").count(), 0, "nothing is rendered as emphasis or a link");
  assert.equal(await card.getByRole("button", { name: /Allow for/ }).count(), 0, "never allowed for a while");
  await card.getByRole("button", { name: "Deny" }).click();
  await finished(turn);
  await context.close();
});

const threadOf = (page) => new URL(page.url()).searchParams.get("thread");

/** The assistant's conversations panel, opened. */
async function conversations(page) {
  await assistant(page).getByRole("button", { name: "Conversations", exact: true }).click();
  const panel = page.getByRole("dialog", { name: "Conversations" });
  await panel.locator("li.thread").or(panel.locator(".empty")).first().waitFor();
  return panel;
}

test("a reload reopens the conversation: the URL names its thread, and its questions, answers and results are back", async () => {
  const { context, page } = await open();
  assert.equal(threadOf(page), null, "a new conversation has no thread in the URL yet");
  const turn = await ask(page, "what are my files?");
  await finished(turn);
  const answer = await turn.locator(".answer").innerText();
  const thread = threadOf(page);
  assert.match(thread ?? "", /^th_/, page.url());
  await page.reload();
  const again = page.locator(".turn").first();
  await again.locator("table.datasets-result").getByText("barcelona_apartments").waitFor();
  assert.equal(threadOf(page), thread);
  assert.equal(await page.locator(".turn").count(), 1);
  assert.equal(await again.locator(".question").innerText(), "what are my files?");
  assert.equal(await again.locator(".answer").innerText(), answer);
  assert.equal(await again.getAttribute("data-status"), "SUCCEEDED");
  assert.equal(await again.locator(".outcome").innerText(), "answered");
  assert.equal(await page.locator(".assistant .current-title").innerText(), "what are my files?", "the header names the conversation");
  await page.screenshot({ path: join(shots, "20-reloaded.png") });
  // It goes on where it was: the next question joins the same thread.
  const next = await ask(page, "average price of the barcelona apartments");
  await finished(next);
  assert.equal(threadOf(page), thread);
  // A reload while a run is still working picks it up again and follows it to its end.
  const third = await ask(page, "what are my files?");
  await third.locator(".chip.active").waitFor();
  await page.reload();
  const resumed = page.locator(".turn").nth(2);
  await resumed.waitFor();
  assert.deepEqual(await page.locator(".turn .question").allInnerTexts(), ["what are my files?", "average price of the barcelona apartments", "what are my files?"]);
  await finished(resumed);
  assert.equal(await resumed.getAttribute("data-status"), "SUCCEEDED");
  assert.match(await resumed.locator(".answer").innerText(), /^You have \d+ dataset/);
  assert.equal(await resumed.locator("table.datasets-result").count(), 1, "its result once");
  await page.screenshot({ path: join(shots, "20b-reloaded-mid-run.png") });
  await context.close();
});

test("the conversations panel renames a conversation (kept after a reload), opens one, starts a new one, and deletes one after a confirmation", async () => {
  const { context, page } = await open();
  const turn = await ask(page, "what are my files?");
  await finished(turn);
  const thread = threadOf(page);
  let panel = await conversations(page);
  const row = panel.locator(`li.thread[data-thread-id="${thread}"]`);
  assert.equal(await row.getAttribute("aria-current"), "true", "the open conversation is marked");
  assert.equal(await panel.locator("li.thread").first().getAttribute("data-thread-id"), thread, "newest activity first");
  assert.match(await row.innerText(), /what are my files\?\s+today, \d\d:\d\d/, "title and last activity");
  await page.screenshot({ path: join(shots, "21-conversations.png") });

  await row.getByRole("button", { name: "Rename “what are my files?”" }).click();
  await row.getByLabel("Conversation title").fill("Apartment files");
  await row.getByLabel("Conversation title").press("Enter");
  await row.locator(".thread-title").getByText("Apartment files", { exact: true }).waitFor();
  assert.equal(await page.locator(".assistant .current-title").innerText(), "Apartment files");
  await page.screenshot({ path: join(shots, "21b-renamed.png") });
  await page.reload();
  await page.locator(".turn").first().waitFor();
  assert.equal(await page.locator(".assistant .current-title").innerText(), "Apartment files", "the new title survives a reload");
  panel = await conversations(page);
  assert.equal(await row.locator(".thread-title").innerText(), "Apartment files");

  // A new conversation is empty and has no thread yet; the old one opens from the list.
  await panel.getByRole("button", { name: "New conversation" }).click();
  await panel.waitFor({ state: "detached" });
  assert.equal(await page.locator(".turn").count(), 0);
  assert.equal(threadOf(page), null);
  panel = await conversations(page);
  await row.getByRole("button", { name: /^Apartment files/ }).click();
  await page.locator(".turn .question").getByText("what are my files?").waitFor();
  assert.equal(threadOf(page), thread);

  panel = await conversations(page);
  await row.getByRole("button", { name: "Delete “Apartment files”" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete “Apartment files”?" });
  await confirm.waitFor();
  assert.match(await confirm.innerText(), /cannot be undone/);
  await hasFocus(confirm.getByRole("button", { name: "Keep it" }), "the way back");
  // (The panel is behind the dialog, hidden from roles meanwhile: found by its class.)
  assert.equal(await page.locator(`.conversations li.thread[data-thread-id="${thread}"]`).count(), 1, "nothing is deleted before the second click");
  await page.screenshot({ path: join(shots, "21c-delete-confirm.png") });
  await confirm.getByRole("button", { name: "Delete conversation" }).click();
  await confirm.waitFor({ state: "detached" });
  await row.waitFor({ state: "detached" });
  assert.equal(await panel.getByText("Apartment files").count(), 0, "gone from the list");
  assert.equal(await page.locator(".turn").count(), 0, "the deleted conversation is off the screen");
  assert.equal(threadOf(page), null);
  await page.screenshot({ path: join(shots, "21d-deleted.png") });
  await page.reload();
  panel = await conversations(page);
  assert.equal(await panel.locator(`li.thread[data-thread-id="${thread}"]`).count(), 0, "still gone after a reload");
  await context.close();

  // On a phone the panel fits the assistant's drawer.
  const phone = await open("/datasets", { viewport: PHONE });
  await phone.page.getByRole("button", { name: "Ask the assistant" }).click();
  await finished(await ask(phone.page, "what are my files?"));
  panel = await conversations(phone.page);
  const box = await panel.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width + 1, `the panel fits the screen: ${JSON.stringify(box)}`);
  const open1 = await panel.locator("li.thread .open-thread").first().boundingBox();
  assert.ok(open1 && open1.width >= 150, "titles have room");
  await phone.page.screenshot({ path: join(shots, "21e-phone-conversations.png") });
  await phone.context.close();
});

test("⌘K / Ctrl+K opens the conversations at a search box: the server finds a thread by a question that is not its title, and says when none holds the words; Shift+Enter adds a line, Enter sends; Esc in the message box stops the answer", async () => {
  const { context, page } = await open();
  // A thread whose title is its first question, with a second question the search must find.
  let turn = await ask(page, "what are my files?");
  await finished(turn);
  const thread = threadOf(page);
  turn = await ask(page, "describe the apartment listings please");
  await finished(turn);
  await page.getByLabel("Message").press("Control+k");
  const panel = page.getByRole("dialog", { name: "Conversations" });
  const search = panel.getByRole("searchbox", { name: "Search conversations" });
  await search.waitFor();
  await hasFocus(search, "the search box");
  await search.fill("APARTMENT LISTINGS");
  await panel.locator(`li.thread[data-thread-id="${thread}"]`).waitFor();
  await page.waitForFunction(() => document.querySelectorAll(".conversations li.thread").length === 1);
  assert.match(await panel.locator("li.thread").innerText(), /what are my files\?/, "listed by its title, found by its second question");
  await page.screenshot({ path: join(shots, "21f-search.png") });
  await search.fill("no such words anywhere");
  await panel.getByText("No conversation holds “no such words anywhere”.").waitFor();
  assert.equal(await panel.locator("li.thread").count(), 0);
  await search.press("Escape");
  await panel.waitFor({ state: "hidden" });

  // Shift+Enter starts a new line; Enter sends the lines as one message.
  const box = page.getByLabel("Message");
  const turns = await page.locator(".turn").count();
  await box.fill("what are my files?");
  await box.press("Shift+Enter");
  await box.pressSequentially("the csv ones");
  assert.equal(await box.inputValue(), "what are my files?\nthe csv ones", "nothing sent yet");
  assert.equal(await page.locator(".turn").count(), turns);
  await box.press("Enter");
  turn = page.locator(".turn").nth(turns);
  await finished(turn);
  assert.equal(await turn.locator(".question").innerText(), "what are my files?\nthe csv ones");
  assert.equal(await box.inputValue(), "", "the box is empty again");

  // Esc while an answer is being written stops it (the tool step takes 700 ms on this server).
  turn = await ask(page, "average price by neighbourhood");
  await page.getByRole("button", { name: "Cancel" }).waitFor();
  await page.getByLabel("Message").press("Escape");
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "CANCELLED");
  assert.equal(await turn.locator(".outcome").innerText(), "cancelled");
  await context.close();
});

test("edit & resend forks: the edited question and its answer go to a new conversation, the original keeps its own", async () => {
  const { context, page } = await open();
  const first = await ask(page, "what are my files?");
  await finished(first);
  const second = await ask(page, "average price of the barcelona apartments");
  await finished(second);
  const original = threadOf(page);
  await second.getByRole("button", { name: "Edit and resend “average price of the barcelona apartments”" }).click();
  const editor = second.getByLabel("Edit your question");
  assert.equal(await editor.inputValue(), "average price of the barcelona apartments", "the editor starts from the question");
  await editor.fill("average price by neighbourhood");
  await page.screenshot({ path: join(shots, "22-editing.png") });
  await second.getByRole("button", { name: "Resend" }).click();

  await page.waitForURL((url) => /^th_/.test(url.searchParams.get("thread") ?? "") && url.searchParams.get("thread") !== original);
  const fork = threadOf(page);
  const edited = page.locator(".turn").nth(1);
  await edited.locator(".question").getByText("average price by neighbourhood").waitFor();
  await finished(edited);
  assert.deepEqual(await page.locator(".turn .question").allInnerTexts(), ["what are my files?", "average price by neighbourhood"], "the history before the edited question, then it");
  assert.equal(await edited.getAttribute("data-status"), "SUCCEEDED");
  assert.match(await edited.locator(".result thead").innerText(), /neighbourhood\s+\w+\s+avg_price_eur/, "its own answer");
  await page.screenshot({ path: join(shots, "22b-forked.png") });

  const panel = await conversations(page);
  const forkRow = panel.locator(`li.thread[data-thread-id="${fork}"]`);
  assert.equal(await forkRow.getAttribute("aria-current"), "true");
  assert.equal(await forkRow.locator(".thread-title").innerText(), "what are my files? (edited)");
  const originalRow = panel.locator(`li.thread[data-thread-id="${original}"]`);
  assert.equal(await originalRow.locator(".thread-title").innerText(), "what are my files?", "the original is still listed");
  await originalRow.locator(".open-thread").click();
  await page.locator(".turn .question").getByText("average price of the barcelona apartments").waitFor();
  assert.equal(threadOf(page), original);
  assert.deepEqual(await page.locator(".turn .question").allInnerTexts(), ["what are my files?", "average price of the barcelona apartments"], "the original keeps its message");
  assert.match(await page.locator(".turn").nth(1).locator(".answer").innerText(), /The average price of apartments is €/);
  await page.screenshot({ path: join(shots, "22c-original.png") });
  await context.close();
});

test("👍 on an answer is kept: after a reload it is still selected, with its reason", async () => {
  const { context, page } = await open();
  const turn = await ask(page, "what are my files?");
  await finished(turn);
  const up = turn.getByRole("button", { name: "Good answer" });
  const down = turn.getByRole("button", { name: "Bad answer" });
  assert.deepEqual([await up.getAttribute("aria-pressed"), await down.getAttribute("aria-pressed")], ["false", "false"]);
  await up.click();
  await turn.locator('button[aria-label="Good answer"][aria-pressed="true"]').waitFor();
  await turn.getByLabel("Why? (optional)").fill("clear and complete");
  await turn.getByRole("button", { name: "Add", exact: true }).click();
  await turn.getByText("“clear and complete”").waitFor();
  await page.screenshot({ path: join(shots, "23-feedback.png") });
  await page.reload();
  const again = page.locator(".turn").first();
  await again.getByText("“clear and complete”").waitFor();
  assert.equal(await again.getByRole("button", { name: "Good answer" }).getAttribute("aria-pressed"), "true", "👍 is still selected");
  assert.equal(await again.getByRole("button", { name: "Bad answer" }).getAttribute("aria-pressed"), "false");
  await page.screenshot({ path: join(shots, "23b-feedback-reloaded.png") });
  await context.close();
});

test("'remember that …' in chat shows up on the Memory page; a fact is added there and forgotten", async () => {
  const { context, page } = await open();
  const turn = await ask(page, "remember that our fiscal year starts in April");
  await finished(turn);
  assert.match(await turn.locator(".memory-note").innerText(), /^Remembered: “our fiscal year starts in April”/);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Memory" }).click();
  await page.getByRole("heading", { name: "Memory", level: 1 }).waitFor();
  const facts = page.getByRole("list", { name: "Remembered facts" });
  const fact = facts.getByRole("listitem").filter({ hasText: "our fiscal year starts in April" });
  await fact.waitFor();
  assert.match(await fact.innerText(), /saved today, \d\d:\d\d · from a conversation/);
  assert.match(await fact.getByRole("link", { name: "from a conversation" }).getAttribute("href"), /^\/runs\/run_/);
  await page.getByLabel("A fact to remember").fill("revenue is in EUR");
  await page.getByRole("button", { name: "Remember", exact: true }).click();
  await facts.getByText("revenue is in EUR").waitFor();
  assert.match(await facts.getByRole("listitem").first().innerText(), /^revenue is in EUR\s+saved today, \d\d:\d\d · added by you/, "newest first");
  await page.screenshot({ path: join(shots, "24-memory.png") });
  await fact.getByRole("button", { name: "Forget “our fiscal year starts in April”" }).click();
  await fact.waitFor({ state: "detached" });
  assert.deepEqual(await facts.locator(".memory-text").allInnerTexts(), ["revenue is in EUR"]);
  await page.screenshot({ path: join(shots, "24b-memory-forgotten.png") });
  await page.reload();
  await facts.getByText("revenue is in EUR").waitFor();
  assert.equal(await facts.getByText("our fiscal year starts in April").count(), 0, "forgotten for good");
  await facts.getByRole("button", { name: "Forget “revenue is in EUR”" }).click();
  await page.getByText("Nothing remembered yet.").waitFor();
  await context.close();
});

/** The scripted model's imports: each names its files, as a model following the tool's schema does. */
const IMPORTS = {
  replies: [
    ["import the sales files", ["sales_q1.csv", "sales_q2.csv", "customers.csv"]],
    ["import the customers file", ["customers.csv"]],
    ["import the regions file", ["regions.csv"]],
  ].map(([when, paths]) => ({
    when,
    turns: [{ tool_calls: [{ name: "import_files", arguments: { root: "downloads", paths } }] }, { chunks: ["Done."] }],
  })),
};

test("an import card lists its files: unticked ones are not imported; 'Allow for 5 minutes' shows under 'Allowed for now' until revoked", async () => {
  const downloads = join(dataDir, "downloads");
  mkdirSync(downloads, { recursive: true });
  writeFileSync(join(downloads, "sales_q1.csv"), "region,amount\nnorth,120\nsouth,80\n");
  writeFileSync(join(downloads, "sales_q2.csv"), "region,amount\nnorth,90\nwest,60\n");
  writeFileSync(join(downloads, "customers.csv"), "id,name\n1,Ana\n2,Joan\n");
  writeFileSync(join(downloads, "regions.csv"), "region,country\nnorth,ES\n");
  const script = join(dataDir, "imports.json");
  writeFileSync(script, JSON.stringify(IMPORTS));
  const server = await startServer("imports", { AWARE_AGENT__MODEL: "script", AWARE_AGENT__SCRIPT: script }, ["--files-root", `downloads=${downloads}`]);
  const { context, page } = await open("/datasets", { server });
  const listed = page.locator("main table.datasets");

  let turn = await ask(page, "import the sales files");
  let card = turn.locator(".card.standard");
  const files = card.getByRole("group", { name: "Files to import" });
  await files.waitFor();
  const boxes = files.getByRole("checkbox");
  assert.deepEqual(await boxes.evaluateAll((all) => all.map((b) => [b.parentElement.textContent.trim(), b.checked])), [
    ["sales_q1.csv", true],
    ["sales_q2.csv", true],
    ["customers.csv", true],
  ]);
  await files.getByLabel("customers.csv").uncheck();
  await page.screenshot({ path: join(shots, "25-import-checklist.png") });
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await card.getByText("Allowed").waitFor();
  await finished(turn);
  assert.deepEqual(await turn.locator(".import-report li").allInnerTexts(), ["✓ sales_q1.csv → sales_q1 (2 rows)", "✓ sales_q2.csv → sales_q2 (2 rows)"]);
  await listed.getByText("sales_q2.csv").waitFor();
  assert.equal(await listed.getByText("sales_q1.csv").count(), 1);
  assert.equal(await listed.getByText("customers.csv").count(), 0, "the unticked file was not imported");
  await page.screenshot({ path: join(shots, "25b-imported.png") });

  turn = await ask(page, "import the customers file");
  card = turn.locator(".card.standard");
  await card.getByRole("button", { name: "Allow for 5 minutes" }).click();
  await card.getByText("Allowed for 5 minutes").waitFor();
  await finished(turn);
  await listed.getByText("customers.csv").waitFor();
  // Within those minutes the next import from that folder asks nothing, and says why.
  turn = await ask(page, "import the regions file");
  await finished(turn);
  assert.equal(await turn.locator(".card").count(), 0, "no card");
  await turn.getByText("Allowed without asking: you allowed this for a while").waitFor();
  await listed.getByText("regions.csv").waitFor();
  await page.screenshot({ path: join(shots, "25c-allowed-without-asking.png") });

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Memory" }).click();
  const grants = page.getByRole("list", { name: "Allowed for now" });
  const grant = grants.getByRole("listitem");
  await grant.waitFor();
  assert.match(await grant.innerText(), /^Import files · files:downloads\s+until /);
  await page.screenshot({ path: join(shots, "25d-grants.png") });
  await grant.getByRole("button", { name: "Revoke Import files on files:downloads" }).click();
  await page.getByText("Nothing is allowed without asking.").waitFor();
  assert.equal(await grants.count(), 0);
  await page.screenshot({ path: join(shots, "25e-revoked.png") });
  // Revoked: the next import asks again.
  turn = await ask(page, "import the regions file");
  card = turn.locator(".card.standard");
  await card.waitFor();
  await card.getByRole("button", { name: "Deny" }).click();
  await finished(turn);
  await context.close();
});

/** One server for the curation and admin tests (its own sample datasets, tools without delay), started by the first. */
let curationServer;
const curation = () => (curationServer ??= startServer("curation", {}));

/** The TypeScript client as built by scripts/test (clients/ts/dist), on `server`. */
async function apiClient(server) {
  const { createAwareClient } = await import(pathToFileURL(join(here, "..", "..", "clients", "ts", "dist", "src", "index.js")).href);
  return createAwareClient({ baseUrl: server, source: "api" });
}

test("the Admin page: a user is created, re-roled, deactivated and back; a key's token shows once and the key is revoked after a second click; the audit log filters and pages", async () => {
  const server = await curation();
  const { context, page } = await open("/datasets", { server });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
  await page.getByRole("heading", { name: "Admin", level: 1 }).waitFor();
  const users = page.getByRole("table", { name: "Users" });
  await users.waitFor();

  const newUser = page.getByRole("form", { name: "New user" });
  await newUser.getByLabel("Name").fill("dana@example.com");
  await newUser.getByLabel("Role of the new user").selectOption({ label: "viewer" });
  await newUser.getByRole("button", { name: "Create user" }).click();
  const dana = users.getByRole("row").filter({ hasText: "dana@example.com" });
  await dana.waitFor();
  assert.equal(await dana.getByLabel("Role of dana@example.com").inputValue(), "1", "viewer");
  assert.equal(await newUser.getByLabel("Name").inputValue(), "", "the form is ready for the next one");
  await dana.getByLabel("Role of dana@example.com").selectOption({ label: "analyst" });
  await dana.getByRole("button", { name: "Deactivate dana@example.com" }).click();
  await dana.getByText(/^deactivated today, \d\d:\d\d$/).waitFor();
  assert.equal(await dana.getByLabel("Role of dana@example.com").inputValue(), "2", "the role change was kept");
  await dana.getByRole("button", { name: "Reactivate dana@example.com" }).click();
  await dana.getByRole("cell", { name: "active", exact: true }).waitFor();
  // An admin cannot demote themselves: the server says so, and the page keeps the role as it is.
  await users.getByLabel("Role of local").selectOption({ label: "viewer" });
  await page.getByRole("alert").getByText("you cannot demote or deactivate yourself; another admin can").waitFor();
  assert.equal(await users.getByLabel("Role of local").inputValue(), "3");

  const newKey = page.getByRole("form", { name: "New API key" });
  await newKey.getByLabel("For").selectOption({ label: "dana@example.com" });
  await newKey.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("region", { name: "New API key token" });
  const token = await shown.getByLabel("API key token").inputValue();
  assert.match(token, /^aw_[0-9a-f]{32,}$/);
  assert.match(await shown.innerText(), /Copy it now: you will not see it again/);
  await shown.getByRole("button", { name: "Copy" }).click();
  await shown.getByRole("status").getByText("Copied").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
  const keys = page.getByRole("table", { name: "API keys" });
  const row = keys.locator(`tr[data-prefix="${token.slice(0, 11)}"]`);
  assert.match(await row.innerText(), /^aw_[0-9a-f]{8}…\s+dana@example.com\s+today, \d\d:\d\d\s+never\s+active/);
  assert.ok(!(await keys.innerText()).includes(token), "the list shows the prefix, never the token");
  await page.screenshot({ path: join(shots, "26-admin-new-key.png") });
  await shown.getByRole("button", { name: "Done" }).click();
  await shown.waitFor({ state: "detached" });
  assert.ok(!(await page.content()).includes(token), "gone from the page once dismissed");

  await row.getByRole("button", { name: `Revoke ${token.slice(0, 11)}` }).click();
  const confirm = page.getByRole("alertdialog", { name: /^Revoke aw_[0-9a-f]{8}… of dana@example\.com\?$/ });
  assert.match(await confirm.innerText(), /This cannot be undone/);
  // (The table is behind the dialog, hidden from roles meanwhile: its row found by its key.)
  assert.equal(await page.locator(`tr[data-prefix="${token.slice(0, 11)}"] .key-status`).innerText(), "active", "nothing is revoked before the second click");
  await page.screenshot({ path: join(shots, "26b-admin-revoke-confirm.png") });
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await row.locator(".key-status").getByText(/^revoked today/).waitFor();
  assert.equal(await row.getByRole("button").count(), 0, "a revoked key has nothing left to revoke");

  const audit = page.getByRole("table", { name: "Audit entries" });
  const filters = page.getByRole("form", { name: "Filter the audit log" });
  await filters.getByLabel("Source").selectOption("web");
  const actions = () => audit.locator("td.action").allInnerTexts();
  await audit.locator("td.action").first().getByText("api_key.revoke").waitFor();
  assert.deepEqual((await actions()).slice(0, 6), ["api_key.revoke", "api_key.create", "user.reactivate", "user.deactivate", "user.role", "user.create"]);
  assert.deepEqual([...new Set(await audit.locator("td.source").allInnerTexts())], ["web"]);
  assert.match(await audit.getByRole("row").filter({ hasText: "user.create" }).innerText(), /name dana@example.com · role viewer\s+succeeded$/);
  await page.screenshot({ path: join(shots, "26c-audit-web.png") });
  await filters.getByLabel("Action").fill("api_key.");
  await filters.getByLabel("Action").press("Enter");
  await audit.locator("td.action").getByText("user.create").waitFor({ state: "detached" });
  assert.deepEqual(await actions(), ["api_key.revoke", "api_key.create"]);
  await filters.getByLabel("Source").selectOption("cli");
  await page.getByText("No entries match.").waitFor();

  // A longer log comes a page at a time.
  const api = await apiClient(server);
  for (let i = 0; i < 24; i++) await api.admin.createUser({ name: `load${i}@example.com`, role: 1 });
  await filters.getByRole("button", { name: "Clear filters" }).click();
  await filters.getByLabel("Source").selectOption("api");
  await audit.getByText("name load23@example.com · role viewer").waitFor();
  assert.equal(await audit.locator("tbody tr").count(), 20, "one page");
  await page.getByRole("button", { name: "Load more" }).click();
  await audit.getByText("name load0@example.com · role viewer").waitFor();
  assert.equal(await audit.locator("tbody tr").count(), 24, "the rest, once each");
  assert.equal(await page.getByRole("button", { name: "Load more" }).count(), 0, "nothing more to load");
  await context.close();
});

test("a dataset's page renames and describes it: a bad table name is refused in words; the new names, description and units show, also after a reload", async () => {
  const server = await curation();
  const { context, page } = await open("/datasets", { server });
  await page.getByRole("link", { name: "support_tickets.csv" }).click();
  await page.getByRole("heading", { name: "support_tickets.csv" }).waitFor();
  await page.getByRole("button", { name: "Rename or describe" }).click();
  const form = page.getByRole("form", { name: "Rename or describe the dataset" });
  await form.getByLabel("Table name").fill("Tickets 2026!");
  await form.getByRole("button", { name: "Save" }).click();
  assert.equal(await form.getByRole("alert").innerText(), "\"Tickets 2026!\" is not a table name; try \"tickets_2026\" (lower-case letters, digits and _)");
  await form.getByLabel("Table name").fill("tickets_2026");
  await form.getByLabel("Display name").fill("Support tickets 2026");
  await form.getByLabel("Description").fill("Help-desk tickets, one row per ticket");
  await form.getByLabel("Meaning of resolution_hours").fill("time from opening to resolution");
  await form.getByLabel("Unit of resolution_hours").fill("hours");
  await page.screenshot({ path: join(shots, "27-edit-dataset.png") });
  await form.getByRole("button", { name: "Save" }).click();
  await form.waitFor({ state: "detached" });
  const check = async () => {
    await page.getByRole("heading", { name: "Support tickets 2026", level: 1 }).waitFor();
    assert.equal(await page.locator("main .description").innerText(), "Help-desk tickets, one row per ticket");
    assert.match(await page.locator("main").innerText(), /table tickets_2026 · ready/);
    assert.equal(await page.locator(".schema li", { hasText: "resolution_hours" }).innerText(), "resolution_hours DOUBLE — time from opening to resolution hours");
  };
  await check();
  await page.screenshot({ path: join(shots, "27b-described.png") });
  await page.reload();
  await check();
  await page.getByRole("link", { name: "Datasets" }).click();
  const listed = page.locator("main table.datasets tr", { hasText: "Support tickets 2026" });
  assert.match(await listed.innerText(), /tickets_2026/);
  await context.close();
});

test("a STANDARD card renames a dataset from the assistant; a result saved as a dataset shows its lineage; a verified query is listed with the datasets and deleted there", async () => {
  const server = await curation();
  const { context, page } = await open("/datasets", { server });
  const listed = page.locator("main table.datasets");
  await listed.getByText("customer_churn.csv").waitFor();
  let turn = await ask(page, "rename the customer churn dataset to churn_2026");
  let card = turn.locator(".card.standard");
  await card.waitFor();
  assert.match(await card.innerText(), /Rename the dataset “customer_churn.csv” \(table customer_churn\) to churn_2026/);
  assert.equal(await card.locator(".caution").count(), 0, "a contained change is not a warning");
  assert.deepEqual(await card.evaluate((e) => [getComputedStyle(e).borderTopColor, getComputedStyle(e).backgroundColor]), ["rgb(53, 88, 214)", "rgba(0, 0, 0, 0)"], "bordered, plain");
  await page.screenshot({ path: join(shots, "28-standard-card.png") });
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await finished(turn);
  assert.equal(await turn.locator(".change").innerText(), "Renamed: it is now “churn_2026”, table churn_2026. Open it");
  await listed.getByRole("link", { name: "churn_2026" }).waitFor();
  assert.equal(await listed.getByText("customer_churn.csv").count(), 0);

  turn = await ask(page, "average price by neighbourhood");
  await finished(turn);
  turn = await ask(page, "save that as a dataset called top_neighbourhoods");
  card = turn.locator(".card.standard");
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await finished(turn);
  assert.equal(await turn.locator(".change").innerText(), "Saved as the new dataset top_neighbourhoods: 8 rows, 2 columns, from barcelona_apartments. Open it");
  await turn.getByRole("link", { name: "Open it" }).click();
  await page.getByRole("heading", { name: "top_neighbourhoods", level: 1 }).waitFor();
  const lineage = page.getByRole("region", { name: "Where it came from" });
  const source = lineage.getByRole("link", { name: "barcelona_apartments" });
  assert.match(await source.getAttribute("href"), /^\/datasets\/ds_/);
  assert.match(await lineage.getByLabel("The query", { exact: true }).innerText(), /avg\("price_eur"\).*FROM "barcelona_apartments"/s);
  assert.match(await lineage.getByRole("link", { name: "The run that computed it" }).getAttribute("href"), /^\/runs\/run_/);
  assert.match(await page.locator("main").innerText(), /8 rows · saved from a query/);
  await page.screenshot({ path: join(shots, "28b-lineage.png") });

  turn = await ask(page, "remember this query as 'average price by neighbourhood'");
  card = turn.locator(".card.standard");
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await finished(turn);
  assert.match(await turn.locator(".change").innerText(), /^Kept as a verified query: “average price by neighbourhood”\. Asked “average price by neighbourhood”, the assistant answers with this SQL/);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Datasets" }).click();
  const verified = page.getByRole("list", { name: "Verified queries" }).getByRole("listitem");
  await verified.waitFor();
  assert.match(await verified.innerText(), /^average price by neighbourhood · saved today, \d\d:\d\d\s+Answers “average price by neighbourhood” with:\s+SELECT "neighbourhood"/);
  await page.screenshot({ path: join(shots, "28c-verified-queries.png") });
  await verified.getByRole("button", { name: "Delete “average price by neighbourhood”" }).click();
  await page.getByRole("alertdialog", { name: "Delete the verified query “average price by neighbourhood”?" }).getByRole("button", { name: "Delete query" }).click();
  await page.getByText("No verified queries yet.").waitFor();
  await context.close();
});

test("an ELEVATED card creates an account: it is a warning, and once allowed the user is on the Admin page; a key made in chat shows its token once, not after a reload", async () => {
  const server = await curation();
  const { context, page } = await open("/datasets", { server });
  let turn = await ask(page, "create an analyst account for bob@example.com");
  let card = turn.locator(".card.elevated");
  await card.waitFor();
  assert.match(await card.innerText(), /^⚠ Caution: this changes who can use aware, and what they may do\s+Create the user “bob@example.com” with the role analyst/);
  assert.deepEqual(await card.evaluate((e) => [getComputedStyle(e).borderTopColor, getComputedStyle(e).backgroundColor]), ["rgb(180, 35, 24)", "rgb(255, 245, 244)"], "the warning style");
  assert.equal(await card.getByRole("button", { name: "Allow for 5 minutes" }).count(), 0, "never allowed for a while");
  await page.screenshot({ path: join(shots, "29-elevated-account-card.png") });
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await finished(turn);
  assert.equal(await turn.locator(".change").innerText(), "Created the user bob@example.com with the role analyst. They have no API key yet (Admin).");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
  const bob = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: "bob@example.com" });
  await bob.waitFor();
  assert.equal(await bob.getByLabel("Role of bob@example.com").inputValue(), "2", "an analyst");

  turn = await ask(page, "create an api key for bob@example.com");
  card = turn.locator(".card.elevated");
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await finished(turn);
  const shown = turn.getByRole("region", { name: "New API key token" });
  const token = await shown.getByLabel("API key token").inputValue();
  assert.match(token, /^aw_[0-9a-f]{32,}$/);
  assert.match(await shown.innerText(), /The new API key for bob@example.com[\s\S]*Copy it now: you will not see it again/);
  await page.screenshot({ path: join(shots, "29b-key-in-chat.png") });
  await page.reload();
  const replayed = page.locator(".turn").nth(1);
  await replayed.locator(".change").waitFor();
  assert.match(await replayed.locator(".change").innerText(), /^Created the API key aw_[0-9a-f]{8}… for bob@example.com\. Its token was shown once, when it was made, and is kept nowhere/);
  assert.equal(await page.getByRole("region", { name: "New API key token" }).count(), 0);
  assert.ok(!(await page.content()).includes(token), "the token is not on the page after a reload");
  await page.screenshot({ path: join(shots, "29c-key-replayed.png") });
  await context.close();
});

test("an imported dataset's page says which file it came from; 'Refresh from file' says what happened and shows the new rows, or the server's reason; the assistant's refresh card words it too", async () => {
  const folder = join(dataDir, "refresh-downloads");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, "sales.csv");
  writeFileSync(file, "region,amount\nnorth,120\nsouth,80\nwest,60\n");
  const server = await startServer("refresh", {}, ["--files-root", `downloads=${folder}`]);
  const api = await apiClient(server);
  const { report } = await api.files.importFiles({ root: "downloads", paths: ["sales.csv"] });
  const id = report.files[0].dataset.id;
  const { context, page } = await open(`/datasets/${id}`, { server });
  const main = page.locator("main");
  const origin = main.locator(".imported-from");
  await page.getByRole("heading", { name: "sales.csv", level: 1 }).waitFor();
  assert.match(await origin.innerText(), /^Imported from downloads:sales\.csv · Refresh from file$/);
  assert.match(await main.innerText(), /table sales · ready · 3 rows ·/);
  const refresh = origin.getByRole("button", { name: "Refresh from file" });

  await refresh.click();
  assert.equal(await origin.getByRole("status").innerText(), "Unchanged: the file holds the same content.");

  writeFileSync(file, "region,amount,channel\nnorth,120,web\nsouth,80,shop\nwest,60,web\neast,45,shop\n");
  await refresh.click();
  await origin.getByRole("status").getByText("Refreshed: 3 rows before, 4 now; new column: channel.").waitFor();
  assert.match(await main.innerText(), /table sales · ready · 4 rows ·/, "the page has the new row count");
  const preview = main.locator('.table-scroll[aria-label="sales"]');
  await preview.getByRole("cell", { name: "east" }).waitFor();
  assert.equal(await preview.locator("tbody tr").count(), 4, "the preview shows the new rows");
  assert.deepEqual(await preview.locator("th .col-name").allInnerTexts(), ["region", "amount", "channel"]);
  await main.locator(".schema li", { hasText: "channel" }).waitFor();
  await page.screenshot({ path: join(shots, "30-refreshed-from-file.png") });

  rmSync(file);
  await refresh.click();
  assert.match(await origin.getByRole("alert").innerText(), /^downloads:sales\.csv could not be read again: .+; sales is unchanged$/);
  assert.equal(await origin.getByRole("status").count(), 0, "the last outcome is not left standing beside the error");
  assert.match(await main.innerText(), /· 4 rows ·/);

  // From the assistant: a STANDARD card, then the change in words; the page follows.
  writeFileSync(file, "region,amount,channel\nnorth,120,web\nsouth,80,shop\nwest,60,web\neast,45,shop\ncentre,30,web\n");
  let turn = await ask(page, "refresh the sales dataset");
  let card = turn.locator(".card.standard");
  await card.waitFor();
  assert.match(await card.innerText(), /Read “sales\.csv” \(table sales, 4 rows\) again from downloads:sales\.csv/);
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await finished(turn);
  assert.equal(await turn.locator(".change").innerText(), "Refreshed sales from downloads:sales.csv: it now has 5 rows and 3 columns. Open it");
  await main.getByText(/· 5 rows ·/).waitFor();
  await preview.getByRole("cell", { name: "centre" }).waitFor();
  assert.equal(await origin.getByRole("alert").count(), 0, "the failure before is not left standing beside the new content");
  turn = await ask(page, "refresh the sales dataset");
  card = turn.locator(".card.standard");
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await finished(turn);
  assert.equal(await turn.locator(".change").innerText(), "Unchanged: downloads:sales.csv holds the same content as sales already has (5 rows), so nothing was done. Open it");
  await page.screenshot({ path: join(shots, "30b-refresh-in-chat.png") });
  await context.close();
});

/** A table's body as text, row by row. */
const bodyRows = (table) => table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.innerText)));

test("an answer whose data changed since says so, naming the dataset, at once and after a reload; Rerun shows the true rows added and removed and the new result, and says the answer is unchanged; in the inspector too; a deleted dataset is named deleted", async () => {
  const folder = join(dataDir, "stale-downloads");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, "sales.csv");
  writeFileSync(file, "region,amount\nnorth,120\nsouth,80\nwest,60\n");
  const server = await startServer("stale", {}, ["--files-root", `downloads=${folder}`]);
  const api = await apiClient(server);
  const { report } = await api.files.importFiles({ root: "downloads", paths: ["sales.csv"] });
  const id = report.files[0].dataset.id;
  const { context, page } = await open(`/datasets/${id}`, { server });
  let turn = await ask(page, "total amount by region in sales");
  await finished(turn);
  const answer = await turn.locator(".answer").innerText();
  assert.match(answer, /north 120, south 80, west 60/);
  // Just answered, its data is as it read it: the capsule the badge reads is the one Details shows.
  await turn.getByRole("button", { name: "Details" }).click();
  assert.match(await page.getByRole("dialog", { name: "Run details" }).locator("dt:text-is('Data') + dd").innerText(), /^sales @ \w{12}$/);
  await page.getByRole("button", { name: "Close details" }).click();
  assert.equal(await turn.locator(".stale-badge").count(), 0, "a fresh answer is not stale");
  assert.equal(await turn.getByRole("button", { name: "Rerun" }).count(), 0, "nothing to rerun on a fresh answer");
  // The inspector of a run that ran a query reruns it whatever: over the same data, the same result.
  await turn.getByRole("button", { name: "Details" }).click();
  await page.getByRole("dialog", { name: "Run details" }).locator("dd.id a").click();
  const inspector = page.locator("main .inspector");
  await inspector.getByRole("button", { name: "Rerun" }).click();
  const same = inspector.getByRole("group", { name: "Computed again" });
  await same.waitFor();
  assert.equal(await same.locator(".rerun-verdict").innerText(), "Same result as before");
  assert.equal(await same.getByRole("region", { name: "Rows added and removed" }).count(), 0);
  assert.equal(await inspector.locator(".stale-badge").count(), 0);
  await page.goBack();
  await page.getByRole("heading", { name: "sales.csv", level: 1 }).waitFor();

  // The file changes (south 80 → 95, east 45 is new) and the dataset is refreshed from it: the
  // answer on screen says so at once.
  writeFileSync(file, "region,amount\nnorth,120\nsouth,95\nwest,60\neast,45\n");
  await page.locator("main .imported-from").getByRole("button", { name: "Refresh from file" }).click();
  await page.locator("main .imported-from").getByRole("status").getByText(/^Refreshed: 3 rows before, 4 now/).waitFor();
  await turn.locator(".stale-badge").waitFor();
  assert.equal(await turn.locator(".stale-badge").innerText(), "Data changed since this answer: sales");

  // And after a reload; the answer is the one it gave.
  await page.reload();
  turn = page.locator(".turn").first();
  const badge = turn.locator(".stale-badge");
  await badge.waitFor();
  assert.equal(await badge.innerText(), "Data changed since this answer: sales");
  assert.equal(await turn.locator(".answer").innerText(), answer);
  const runId = await turn.getAttribute("data-run-id");
  const thread = threadOf(page);

  // Rerun: the counts are the true ones — the old rows against the new, as a multiset — and what the
  // server's RerunQuery says.
  const before = ["north|120", "south|80", "west|60"];
  const now = ["north|120", "south|95", "west|60", "east|45"];
  const added = now.filter((r) => !before.includes(r));
  const removed = before.filter((r) => !now.includes(r));
  const byApi = (await api.rerunQuery(runId)).queries;
  assert.equal(byApi.length, 1);
  assert.deepEqual([byApi[0].addedRows.length, byApi[0].removedRows.length], [added.length, removed.length]);
  await turn.getByRole("button", { name: "Rerun" }).click();
  const again = turn.getByRole("group", { name: "Computed again" });
  await again.waitFor();
  assert.equal(await again.locator(".rerun-note").innerText(), "Computed again now; the answer above is unchanged.");
  assert.equal(await again.locator(".rerun-verdict strong").innerText(), `${added.length} rows added, ${removed.length} removed`);
  assert.equal(await again.locator(".rerun-verdict").innerText(), "2 rows added, 1 removed · 2 rows unchanged");
  const diff = again.getByRole("region", { name: "Rows added and removed" });
  assert.deepEqual(await bodyRows(diff), [["added", "east", "45"], ["added", "south", "95"], ["removed", "south", "80"]]);
  assert.deepEqual(await diff.locator("th .col-name").allInnerTexts(), ["change", "region", "sum_amount"]);
  // The new result on demand, with the SQL that ran.
  await again.getByText("New result · 4 rows").click();
  assert.deepEqual(await bodyRows(again.getByRole("region", { name: "New result" })), [["east", "45"], ["north", "120"], ["south", "95"], ["west", "60"]]);
  assert.match(await again.locator("pre.sql").innerText(), /sum\("amount"\)/);
  assert.equal(await turn.locator(".answer").innerText(), answer, "the answer on screen is unchanged");
  assert.deepEqual(await accessibilityProblems(page, "1440 stale and rerun"), []);
  await badge.evaluate((el) => el.scrollIntoView({ block: "center" }));
  await page.screenshot({ path: join(shots, "stale-rerun.png") });

  // On a phone, in the drawer: the badge and the rows fit its width.
  const phone = await browser.newContext({ viewport: PHONE });
  const small = await phone.newPage();
  await small.goto(`${server}/datasets?thread=${thread}&hb=1500`);
  await small.getByRole("button", { name: "Ask the assistant" }).click();
  const t = small.locator(".turn").first();
  await t.getByRole("button", { name: "Rerun" }).click();
  await t.getByRole("group", { name: "Computed again" }).locator(".rerun-verdict").getByText("2 rows added, 1 removed").waitFor();
  for (const part of [".stale-badge", ".rerun-bar", ".rerun-result"]) {
    const box = await t.locator(part).boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `${part} fits the phone: ${JSON.stringify(box)}`);
  }
  // The badge at the top of the log, the rows under it.
  await t.locator(".stale-badge").evaluate((el) => el.scrollIntoView({ block: "start" }));
  assert.deepEqual(await accessibilityProblems(small, "390 stale and rerun"), []);
  await small.emulateMedia({ colorScheme: "dark" });
  assert.deepEqual(await accessibilityProblems(small, "390 dark stale and rerun"), []);
  await small.emulateMedia({ colorScheme: "light" });
  await small.screenshot({ path: join(shots, "stale-rerun-phone.png") });
  await phone.close();

  // The run inspector says it under the title, and reruns under the answer.
  await page.goto(`${server}/runs/${runId}?hb=1500`);
  const main = page.locator("main");
  await main.locator(".stale-badge").waitFor();
  assert.equal(await main.locator(".stale-badge").innerText(), "Data changed since this answer: sales");
  await main.getByRole("button", { name: "Rerun" }).click();
  const inspected = main.getByRole("group", { name: "Computed again" });
  await inspected.waitFor();
  assert.equal(await inspected.locator(".rerun-verdict strong").innerText(), "2 rows added, 1 removed");
  assert.deepEqual(await bodyRows(inspected.getByRole("region", { name: "Rows added and removed" })), [["added", "east", "45"], ["added", "south", "95"], ["removed", "south", "80"]]);
  await page.screenshot({ path: join(shots, "stale-rerun-inspector.png") });

  // Deleted: the badge says so, and a rerun says why it cannot compute it.
  await api.datasets.deleteDataset({ datasetId: id });
  await page.goto(`${server}/datasets?thread=${thread}&hb=1500`);
  turn = page.locator(".turn").first();
  await turn.locator(".stale-badge").getByText("sales (deleted)").waitFor();
  assert.equal(await turn.locator(".stale-badge").innerText(), "Data changed since this answer: sales (deleted)");
  await turn.getByRole("button", { name: "Rerun" }).click();
  assert.match(await turn.getByRole("alert").innerText(), /^Could not compute it again: sales was deleted since, so there is nothing to compute it over/);
  await page.screenshot({ path: join(shots, "stale-deleted.png") });
  await context.close();
});

test("a new conversation suggests questions about the open dataset, each answered as written; an answer offers follow-ups answered in the same conversation", async () => {
  const { context, page } = await open();
  await page.getByRole("link", { name: "barcelona_apartments.csv" }).click();
  const panel = assistant(page);
  const offered = panel.getByRole("group", { name: "Questions about barcelona_apartments" });
  await offered.getByRole("button").first().waitFor();
  const questions = await offered.getByRole("button").allInnerTexts();
  assert.ok(questions.length >= 2, `a few questions: ${questions}`);
  assert.ok(questions.some((q) => /neighbourhood/.test(q)), `written from its columns: ${questions}`);
  await page.screenshot({ path: join(shots, "suggested-questions.png") });
  await offered.getByRole("button", { name: questions[0] }).click();
  const turn = page.locator(".turn").first();
  await finished(turn);
  assert.equal(await turn.locator(".question").innerText(), questions[0], "sent as written");
  assert.equal(await turn.locator(".outcome").innerText(), "answered");
  assert.equal(await offered.count(), 0, "the suggestions make way for the conversation");
  const next = turn.getByRole("group", { name: "Ask next" });
  const follow = await next.getByRole("button").allInnerTexts();
  assert.ok(follow.includes("and by month?"), `follow-ups: ${follow}`);
  await next.getByRole("button", { name: "and by month?" }).click();
  const second = page.locator(".turn").nth(1);
  await finished(second);
  assert.equal(await second.locator(".question").innerText(), "and by month?");
  assert.equal(await second.locator(".outcome").innerText(), "answered");
  assert.match(await second.locator(".answer").innerText(), /^Average price by month: highest \w+ 2024 /, "the same question, by month");
  assert.equal(await next.count(), 0, "only the newest answer offers follow-ups: the assistant reads them after it");
  await page.screenshot({ path: join(shots, "follow-ups.png") });
  await context.close();
});

test("'not understood' offers Try again, which asks the same question again in the same conversation without retyping it; an answered question offers none; it is back after a reload", async () => {
  const { context, page } = await open();
  const question = "what's the weather in Paris tomorrow?";
  const first = await ask(page, question);
  await finished(first);
  assert.equal(await first.locator(".outcome").innerText(), "not understood");
  const retry = first.getByRole("button", { name: "Try again" });
  assert.equal(await retry.getAttribute("aria-label"), `Try again: ask “${question}” once more`);
  assert.equal(await retry.innerText(), "Try again");
  const thread = threadOf(page);
  await retry.click();
  const second = page.locator(".turn").nth(1);
  await second.waitFor();
  assert.equal(await second.locator(".question").innerText(), question);
  await finished(second);
  assert.equal(await second.locator(".outcome").innerText(), "not understood");
  assert.equal(await page.getByRole("button", { name: "Try again" }).count(), 1, "only the newest turn offers it");
  assert.equal(threadOf(page), thread, "the same conversation");
  assert.equal(await page.getByLabel("Message").inputValue(), "", "nothing was put in the message box");
  const answered = await ask(page, "what are my files?");
  await finished(answered);
  assert.equal(await answered.locator(".outcome").innerText(), "answered");
  assert.equal(await answered.getByRole("button", { name: "Try again" }).count(), 0, "an answer offers no Try again");
  await page.screenshot({ path: join(shots, "try-again.png") });
  await page.reload();
  await page.locator(".turn").nth(2).locator("table.datasets-result").waitFor();
  assert.deepEqual(await page.locator(".turn .question").allInnerTexts(), [question, question, "what are my files?"]);
  assert.equal(await page.getByRole("button", { name: "Try again" }).count(), 0, "after an answer, no older turn offers it — also after a reload");
  await context.close();
});

/** A server that asks before a query reading more than 300 rows (the churn sample has 500, the
 *  apartments 240), started once for the tests that need it. */
let costly;
const costlyServer = () => (costly ??= startServer("costly", { AWARE_SANDBOX__CONFIRM_SCAN_ROWS: "300" }));

test("a question whose query reads more than the server runs without asking shows what it reads on a card: Deny runs nothing and the answer says so; Allow answers with its table", async () => {
  const server = await costlyServer();
  const { context, page } = await open("/datasets", { server });
  let turn = await ask(page, "average monthly charges by plan");
  let card = turn.locator(".card.standard");
  await card.waitFor();
  assert.match(await card.innerText(), /Query customer_churn\.csv\? It reads about 500 rows \([\d.]+ KB\), more than the 300 rows this server runs without asking\./);
  await page.screenshot({ path: join(shots, "cost-card.png") });
  await card.getByRole("button", { name: "Deny" }).click();
  await finished(turn);
  assert.match(await turn.innerText(), /I did not run that query/);
  assert.equal(await turn.locator("table").count(), 0, "nothing ran, no table");
  turn = await ask(page, "average monthly charges by plan");
  card = turn.locator(".card.standard");
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await finished(turn);
  await turn.locator("table").first().waitFor();
  assert.match(await turn.innerText(), /monthly charges/i);
  const small = await ask(page, "how many apartments are there?");
  await finished(small);
  assert.equal(await small.locator(".card").count(), 0, "240 rows: no card");
  await context.close();
});

test("the SQL page runs a query and shows its table, a chart of it and its run; one over the cost limit says what it would read and runs on 'Run it'; refused SQL says why; the query is kept across pages", async () => {
  const server = await costlyServer();
  for (const viewport of [DESKTOP, PHONE]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(`${server}/datasets?hb=1500`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "SQL" }).click();
    await page.getByRole("heading", { name: "SQL", level: 1 }).waitFor();
    assert.match(await page.locator("main").innerText(), /Your tables: barcelona_apartments, customer_churn, support_tickets/);
    const box = page.getByLabel("SQL query");
    await box.fill("SELECT plan, round(avg(monthly_charges), 2) AS avg_charges FROM customer_churn GROUP BY plan ORDER BY plan");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const large = page.getByRole("group", { name: "This query is large" });
    await large.waitFor();
    assert.match(await large.innerText(), /would read about 500 rows \([\d.]+ KB\), more than this server runs without asking\. Nothing has run yet\./);
    assert.equal(await page.locator("main table").count(), 0, "nothing ran");
    if (viewport === DESKTOP) await page.screenshot({ path: join(shots, "sql-cost.png") });
    await large.getByRole("button", { name: "Run it" }).click();
    const result = page.locator("main .sql-result");
    await result.locator("table").first().waitFor();
    assert.match(await result.innerText(), /Ran in [\d,]+ ms · Open the run\n+3 rows/);
    assert.match(await result.innerText(), /premium/);
    assert.equal(await large.count(), 0, "the card is gone once it ran");
    await result.getByRole("button", { name: "Chart" }).click();
    await result.locator("figure.chart-figure figcaption").getByText("avg_charges by plan").waitFor();
    if (viewport === DESKTOP) await page.screenshot({ path: join(shots, "sql-result.png") });
    else {
      await page.screenshot({ path: join(shots, "sql-phone.png") });
      const sideways = await page.locator("main").evaluate((m) => m.scrollWidth - m.clientWidth);
      assert.ok(sideways <= 1, `the page does not scroll sideways on a phone (${sideways} px)`);
    }

    await box.fill("SELECT count(*) AS apartments FROM barcelona_apartments WHERE price_eur > 1000");
    await box.press("Control+Enter");
    await result.locator("thead").getByText("apartments").waitFor();
    assert.equal(await result.locator("tbody tr").count(), 1, "the new result replaced the old");
    await box.fill("SELECT * FROM read_csv('/etc/passwd')");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    assert.match(await page.getByRole("alert").innerText(), /read_csv/);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs" }).click();
    await page.getByRole("heading", { name: "Runs", level: 1 }).waitFor();
    await page.goBack();
    assert.equal(await page.getByLabel("SQL query").inputValue(), "SELECT * FROM read_csv('/etc/passwd')", "the query is kept");
    await context.close();
  }
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${server}/sql?hb=1500`);
  await page.getByLabel("SQL query").fill("SELECT neighbourhood, count(*) AS n FROM barcelona_apartments GROUP BY 1");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await page.locator("main .sql-result").getByRole("link", { name: "Open the run" }).click();
  await page.waitForURL(/\/runs\/run_/);
  await page.locator("main").getByText("SELECT neighbourhood").first().waitFor();
  await context.close();
});

test("an answer's numbers show where they came from: grounded ones are underlined with their source, also after a reload; an invented one is marked and counted", async () => {
  const { context, page } = await open();
  const turn = await ask(page, "average price by neighbourhood");
  await finished(turn);
  const answer = turn.locator(".answer");
  const grounded = answer.locator("span.grounded");
  await grounded.first().waitFor();
  const title = await grounded.first().getAttribute("title");
  assert.match(title, /^From \w+, .+: .+$/, "it names the tool, the place in its result and the value there");
  assert.match(await grounded.first().innerText(), /^[€$]?\d[\d,.]*(%|k|M)?$/, "the mark is the number as written");
  const marked = await grounded.count();
  assert.equal(await answer.locator("span.ungrounded").count(), 0, "the offline planner's numbers all come from its results");
  assert.equal(await turn.locator(".ungrounded-note").count(), 0);
  await page.screenshot({ path: join(shots, "31-grounded-numbers.png") });
  // A reopened conversation is rebuilt from the run's events: the same marks.
  await page.reload();
  const again = page.locator(".turn").first();
  await finished(again);
  await again.locator(".answer span.grounded").first().waitFor();
  assert.equal(await again.locator(".answer span.grounded").count(), marked);
  assert.equal(await again.locator(".answer span.grounded").first().getAttribute("title"), title);
  // A year is part of a date, not a figure: the count is marked, "2024" is not.
  const dated = await ask(page, "how many apartments were listed in 2024?");
  await finished(dated);
  await dated.locator(".answer span.grounded").first().waitFor();
  assert.match(await dated.locator(".answer").innerText(), /2024/);
  assert.deepEqual(await dated.locator(".answer span.grounded").allInnerTexts(), ["158"]);
  await context.close();

  // A model that writes numbers no tool gave: each is marked, and the answer says how many.
  const script = join(dataDir, "invented.json");
  // Numbers in running text, in bold, in a list item and in a table cell: each is marked there.
  const invented = "About 4,321 customers churned, **12%** of them in **March**:\n\n- 77 in the north\n\n| region | churned |\n|---|---|\n| south | *1,234* |\n";
  writeFileSync(script, JSON.stringify({ replies: [{ when: "churn", turns: [{ chunks: [invented.slice(0, 40), invented.slice(40)], input_tokens: 40, output_tokens: 12 }] }] }));
  const inventing = await startServer("invented", { AWARE_AGENT__MODEL: "script", AWARE_AGENT__SCRIPT: script });
  const other = await open("/datasets", { server: inventing });
  const made = await ask(other.page, "how many customers churn?");
  await finished(made);
  const wrong = made.locator(".answer span.ungrounded");
  await wrong.first().waitFor();
  assert.deepEqual(await wrong.allInnerTexts(), ["4,321", "12%", "77", "1,234"]);
  for (const title of await wrong.evaluateAll((spans) => spans.map((s) => s.title))) assert.equal(title, "No tool result of this run holds this number");
  assert.deepEqual(await made.locator(".answer strong").allInnerTexts(), ["12%", "March"], "Markdown still renders around the marks");
  assert.equal(await made.locator(".answer strong span.ungrounded").innerText(), "12%", "a number in bold is marked inside it");
  assert.equal(await made.locator(".answer li span.ungrounded").innerText(), "77", "and in a list item");
  assert.equal(await made.locator(".answer td em span.ungrounded").innerText(), "1,234", "and in a table cell");
  const wavy = await made.locator(".answer li span.ungrounded").evaluate((s) => getComputedStyle(s).textDecorationStyle);
  assert.equal(wavy, "wavy", "drawn as an ungrounded number");
  assert.equal(await made.locator(".ungrounded-note").innerText(), "4 numbers in this answer could not be traced to a result.");
  await other.page.screenshot({ path: join(shots, "31b-ungrounded-numbers.png") });
  await other.page.reload();
  await finished(made);
  await made.locator(".answer td em span.ungrounded").waitFor();
  assert.deepEqual(await made.locator(".answer span.ungrounded").allInnerTexts(), ["4,321", "12%", "77", "1,234"], "the same marks after a reload");
  // The run's steps count them too, with the tokens the model used.
  await made.getByRole("button", { name: "Details" }).click();
  await other.page.getByRole("dialog", { name: "Run details" }).locator("dd.id a").click();
  const steps = other.page.getByRole("region", { name: "Steps" });
  await steps.getByText("Numbers checked: 0 of 4 traced to a result").waitFor();
  assert.match(await steps.locator("li").last().innerText(), /Ended answered after \d+ ms · .*40.*12/);
  await other.context.close();
});

test("a dataset delete's card says what it touches: its rows and size, the verified queries that read it, and that the approval holds for this version only", async () => {
  const server = await startServer("blast", {});
  const { context, page } = await open("/datasets", { server });
  let turn = await ask(page, "how many customers churned?");
  await finished(turn);
  turn = await ask(page, "remember this query as 'churned customers'");
  let card = turn.locator(".card.standard");
  await card.getByRole("button", { name: "Allow", exact: true }).click();
  await finished(turn);
  assert.match(await turn.locator(".change").innerText(), /^Kept as a verified query: “churned customers”/);

  turn = await ask(page, "delete the customer_churn dataset");
  card = turn.locator(".card.elevated");
  await card.waitFor();
  const blast = card.locator(".blast-radius");
  assert.match(await blast.innerText(), /^It holds 500 rows \(\d+(\.\d)? (B|KB|MB)\)\./);
  // The card's own words and the app's figure use the same unit.
  const [said] = (await blast.innerText()).match(/\d+(\.\d)? (B|KB|MB)/);
  const description = await card.locator(".md").first().innerText();
  assert.ok(description.includes(said), `the description says ${said} too: ${description}`);
  assert.match(await blast.innerText(), /Verified queries that read it: churned customers/);
  assert.equal(await blast.getByText("Saved datasets computed from it").count(), 0, "no empty list");
  assert.match(await blast.innerText(), /Approval applies to this version only; if the dataset changes first, nothing is done\.$/);
  await page.screenshot({ path: join(shots, "32-blast-radius.png") });
  await card.getByRole("button", { name: "Deny" }).click();
  await card.getByText("Denied — nothing changed").waitFor();
  await finished(turn);
  assert.equal(await page.locator("main table.datasets").getByText("customer_churn.csv").count(), 1, "nothing deleted");
  await context.close();
});

/** A grpc-web frame of `SubmitClarificationRequest{clarification_id, choice}` (protobuf by hand:
 *  two short strings). */
function clarificationFrame(id, choice) {
  const field = (tag, text) => Buffer.concat([Buffer.from([tag, Buffer.byteLength(text)]), Buffer.from(text)]);
  const message = Buffer.concat([field(0x0a, id), field(0x12, choice)]);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

test("a question back: 'average price' over price_eur and price_usd shows both with their figures; 'None of these' computes nothing; a refused answer says why and leaves it open; the remembered choice answers with its average, is rebuilt after a reload and is not asked again", async () => {
  const server = await startServer("clarify", {});
  const { context, page } = await open("/datasets", { server });
  // price_eur averages 125, price_usd 137.5.
  const csv = "item,price_eur,price_usd\nlamp,40,44\ndesk,250,275\nchair,90,99\nshelf,120,132\n";
  await page.getByLabel("Choose a file to upload as a dataset").setInputFiles({ name: "gadgets.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("link", { name: "gadgets.csv" }).click();
  await page.getByRole("heading", { name: "gadgets.csv" }).waitFor();
  const question = "“price” could mean the column price_eur or the column price_usd. Which one do you mean?";
  const labels = ["price_eur (BIGINT): 40 to 250, none empty", "price_usd (BIGINT): 44 to 275, none empty"];

  let turn = await ask(page, "average price");
  let card = turn.getByRole("group", { name: question });
  await card.waitFor();
  assert.deepEqual(await card.getByRole("group", { name: "Options" }).getByRole("button").allInnerTexts(), labels);
  assert.equal(await turn.locator(".chip").innerText(), "Waiting for your answer", "a question, not an approval");
  assert.equal(await turn.locator(".outcome").innerText(), "Waiting for your answer");
  await card.getByRole("button", { name: "None of these" }).click();
  await card.getByText("Dismissed — none of these").waitFor();
  await finished(turn);
  assert.equal(await card.getByRole("button").count(), 0, "answered once");
  assert.equal(await turn.locator(".chip").innerText(), "Not answered — nothing computed");
  assert.equal(await turn.locator(".outcome").innerText(), "Not answered — nothing computed");
  assert.match(await turn.locator(".answer").innerText(), /^Without knowing which one you meant I did not compute anything\./);

  turn = await ask(page, "average price");
  card = turn.getByRole("group", { name: question });
  await card.waitFor();
  await page.screenshot({ path: join(shots, "clarification.png") });
  // A choice the server refuses (the request is changed on its way: the card only offers the
  // options) is said on the card, which stays open.
  await page.route("**/aware.v1.ChatService/SubmitClarification", (route) => {
    const sent = route.request().postDataBuffer();
    return route.continue({ postData: clarificationFrame(sent.subarray(7, 7 + sent[6]).toString(), "item") });
  }, { times: 1 });
  await card.getByRole("button", { name: labels[1] }).click();
  assert.equal(await card.getByRole("alert").innerText(), "“item” is not one of the options: price_eur, price_usd");
  assert.equal(await card.getByRole("group", { name: "Options" }).getByRole("button", { disabled: false }).count(), 2, "still open");
  // By keyboard: Space ticks "Remember", Enter picks price_eur.
  await card.getByLabel("Remember this for the dataset").press("Space");
  assert.ok(await card.getByLabel("Remember this for the dataset").isChecked());
  await card.getByRole("button", { name: labels[0] }).press("Enter");
  const chosen = "You chose price_eur — kept as a rule for gadgets.csv";
  await card.getByText(chosen).waitFor();
  assert.equal(await card.getByRole("alert").count(), 0, "the error went with the answer");
  assert.ok(await card.locator(".resolved").evaluate((e) => e === document.activeElement), "focus follows to the answer");
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED", "the same run went on");
  assert.equal(await turn.locator(".answer").innerText(), "The average price of gadgets is €125.");
  assert.equal(await turn.locator(".outcome").innerText(), "answered");
  await page.getByText("“price” means price_eur.").first().waitFor(); // the dataset's description, on its page
  await page.screenshot({ path: join(shots, "clarification-answered.png") });

  // Rebuilt from the run's events after a reload, as it ended.
  await page.reload();
  const reopened = page.locator(".turn");
  await finished(reopened.nth(1));
  assert.equal(await reopened.nth(0).locator(".card.clarification .resolved").innerText(), "Dismissed — none of these");
  assert.equal(await reopened.nth(1).locator(".card.clarification .resolved").innerText(), chosen);
  assert.equal(await reopened.locator(".card.clarification button").count(), 0);
  assert.equal(await reopened.nth(1).locator(".answer").innerText(), "The average price of gadgets is €125.");

  // The rule settles the words: no question, the same answer.
  turn = await ask(page, "average price");
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  assert.equal(await turn.locator(".card.clarification").count(), 0, "not asked again");
  assert.equal(await turn.locator(".answer").innerText(), "The average price of gadgets is €125.");
  await context.close();
});

test("a question back about a value shows how many rows hold it in each column; left unanswered it expires and says so", async () => {
  const { context, page } = await open("/datasets", { server: scripted });
  const turn = await ask(page, "customers in the north region");
  const card = turn.getByRole("group", { name: "“north” is in region and plan. Which one do you mean?" });
  await card.waitFor();
  assert.deepEqual(await card.getByRole("group", { name: "Options" }).getByRole("button").allInnerTexts(), ["region (VARCHAR): “north” in 112 rows", "plan (VARCHAR): “north” in 0 rows"]);
  await card.getByText("Expired — no answer came in time").waitFor({ timeout: 20_000 });
  await finished(turn);
  assert.equal(await card.getByRole("button").count(), 0);
  assert.equal(await turn.locator(".chip").innerText(), "Expired — nothing computed");
  assert.equal(await turn.locator(".outcome").innerText(), "Expired — nothing computed");
  assert.equal(await turn.locator(".answer").innerText(), "Nothing was computed: no column was chosen.");
  await page.screenshot({ path: join(shots, "clarification-expired.png") });
  await context.close();
});

/** A staff guide in Markdown: its refund rule is in a section of its own, past the first passage;
 *  nothing in it is about parental leave. */
const HANDBOOK = readFileSync(join(here, "..", "..", "tests", "corpus", "staff-guide.md"), "utf8");

/** The chunk ids an answer's text cites, each once, in order (`[handbook::003]`, `[a::001, b::002]`). */
function citedIds(text) {
  const ids = [...text.matchAll(/\[\s*([a-z0-9_]+::\d{3,}(?:\s*[,;]\s*[a-z0-9_]+::\d{3,})*)\s*\]/g)].flatMap((m) => m[1].split(/[,;]/).map((id) => id.trim()));
  return [...new Set(ids)];
}

test("a Markdown handbook uploads from the page as a document of passages; an answer from it lists the passages it cites under Sources — title, chunk id, heading, the passage on demand — its citations open them, also after a reload; a question it does not cover says no sources were used", async () => {
  const server = await startServer("knowledge", {});
  const { context, page } = await open("/datasets", { server });
  await page.getByLabel("Choose a file to upload as a dataset").setInputFiles({ name: "handbook.md", mimeType: "text/markdown", buffer: Buffer.from(HANDBOOK) });
  const row = page.locator("main table.datasets tr", { hasText: "handbook.md" });
  await row.waitFor();
  assert.match(await row.innerText(), /Markdown document/);
  assert.match(await row.innerText(), /\b\d+ passages\b/, "counted in passages, not rows");
  await row.getByRole("link", { name: "handbook.md" }).click();
  await page.getByRole("heading", { name: "handbook.md", level: 1 }).waitFor();
  assert.match(await page.locator("main").innerText(), /table handbook · ready · Markdown document · \d+ passages ·/);
  await page.getByRole("heading", { name: "Passages", level: 2 }).waitFor();
  assert.equal(await page.getByRole("heading", { name: "Statistics" }).count(), 0, "a document has no statistics to show");
  await page.locator(".search-state").getByText(/^search: words/).waitFor({ timeout: 30_000 });

  let turn = await ask(page, "what does the handbook say about refunds?");
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  // The search's passages in the steps: the query's words marked, markup never run.
  const hits = turn.getByTestId("knowledge-hits");
  await hits.waitFor();
  assert.ok((await hits.locator("mark").allInnerTexts()).some((m) => /^refunds?$/i.test(m)), await hits.innerText());
  assert.match(await hits.locator("li").first().innerText(), /^Acme Staff Guide · handbook::\d{3,}/);

  const answer = await turn.locator(".answer").innerText();
  const cited = citedIds(answer);
  assert.ok(cited.length >= 1 && cited.every((id) => /^handbook::\d{3,}$/.test(id)), `the answer cites the handbook: ${answer}`);
  const sources = turn.getByRole("region", { name: "Sources" });
  await sources.waitFor();
  assert.equal(await sources.getAttribute("data-status"), "CITED");
  assert.equal(await turn.getByTestId("citation-warning").count(), 0);
  const listed = sources.getByRole("listitem");
  assert.deepEqual(await listed.evaluateAll((lis) => lis.map((li) => li.dataset.chunkId)), cited, "each cited passage, in cited order");
  // The refund passage: titled by the document, with its chunk id; its text behind a disclosure.
  const refund = listed.filter({ hasText: "Refunds are issued within 14 days" }).first();
  const id = await refund.getAttribute("data-chunk-id");
  assert.ok(cited.includes(id), `the refund passage is cited: ${cited.join(", ")}`);
  const summary = refund.locator("summary");
  assert.match(await summary.innerText(), new RegExp(`^Acme Staff Guide ${id}( · (Working hours|Refunds))?$`));
  const passage = refund.locator(".passage");
  assert.equal(await passage.isVisible(), false, "closed until asked for");
  await summary.click();
  await passage.waitFor();
  assert.match(await passage.innerText(), /Refunds are issued within 14 days of the request, to the original payment method\./);
  await sources.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "sources.png") });

  // A citation in the answer is a link to its source: it opens it.
  await summary.click();
  assert.equal(await passage.isVisible(), false);
  const link = turn.locator(".answer").getByRole("link", { name: new RegExp(`^Open the source: Acme Staff Guide.* \\(${id}\\)$`) }).first();
  assert.match(await link.innerText(), new RegExp(`\\[${id}`));
  await link.click();
  await passage.waitFor();
  assert.ok(await refund.locator("summary").evaluate((e) => e === document.activeElement), "focus moves to the source");

  // Rebuilt from the run's events after a reload: the same sources.
  await page.reload();
  const again = page.locator(".turn").first();
  await finished(again);
  const reopened = again.getByRole("region", { name: "Sources" });
  await reopened.waitFor();
  assert.deepEqual(await reopened.getByRole("listitem").evaluateAll((lis) => lis.map((li) => li.dataset.chunkId)), cited);

  // Nothing in the handbook is about parental leave: no passage retrieved, none cited, and it says so.
  turn = await ask(page, "what does the handbook say about parental leave?");
  await finished(turn);
  assert.equal(await turn.getAttribute("data-status"), "SUCCEEDED");
  const none = turn.getByRole("region", { name: "Sources" });
  await none.getByText("No sources were used for this answer.").waitFor();
  assert.equal(await none.getAttribute("data-status"), "NO_EVIDENCE");
  assert.equal(await none.getByRole("listitem").count(), 0);
  assert.equal(await turn.getByTestId("citation-warning").count(), 0);
  assert.deepEqual(citedIds(await turn.locator(".answer").innerText()), []);
  assert.match(await turn.getByTestId("knowledge-hits").innerText(), /^No passage of your \d+ documents? matches/);
  await page.screenshot({ path: join(shots, "sources-none.png") });
  await context.close();
});

test("an answer that does not cite what it retrieved, or cites a passage it never retrieved, is flagged under Sources in words", async () => {
  const script = join(dataDir, "knowledge-script.json");
  const search = { tool_calls: [{ name: "search_knowledge", arguments: { query: "refunds" } }], input_tokens: 200, output_tokens: 10 };
  writeFileSync(script, JSON.stringify({
    replies: [
      { when: "refund deadline", turns: [search, { chunks: ["Refunds are issued within 14 days."], input_tokens: 400, output_tokens: 9 }] },
      { when: "refund window", turns: [search, { chunks: ["Refunds are issued within 14 days [handbook::999]."], input_tokens: 400, output_tokens: 12 }] },
    ],
  }));
  const server = await startServer("knowledge-script", { AWARE_AGENT__MODEL: "script", AWARE_AGENT__SCRIPT: script });
  const api = await apiClient(server);
  const doc = await api.uploadDocument("handbook.md", HANDBOOK);
  assert.equal(doc.tableName, "handbook");
  const { context, page } = await open(`/datasets/${doc.id}`, { server });
  await page.locator(".search-state").getByText(/^search: words/).waitFor({ timeout: 30_000 });

  let turn = await ask(page, "what does the handbook say about the refund deadline?");
  await finished(turn);
  let sources = turn.getByRole("region", { name: "Sources" });
  await sources.waitFor();
  assert.equal(await sources.getAttribute("data-status"), "MISSING_CITATIONS");
  const retrieved = await turn.getByTestId("knowledge-hits").locator("li").count();
  assert.ok(retrieved >= 1, "the search found the refund passage");
  const n = retrieved === 1 ? "1 passage" : `${retrieved} passages`;
  assert.equal(await sources.getByTestId("citation-warning").innerText(), `⚠ This answer cites none of the ${n} it retrieved — it is not backed by your documents.`);
  assert.equal(await sources.getByRole("listitem").count(), 0);
  await page.screenshot({ path: join(shots, "sources-missing.png") });

  turn = await ask(page, "what does the handbook say about the refund window?");
  await finished(turn);
  sources = turn.getByRole("region", { name: "Sources" });
  await sources.waitFor();
  assert.equal(await sources.getAttribute("data-status"), "INVALID_CITATION");
  assert.equal(await sources.getByTestId("citation-warning").innerText(), "⚠ This answer cites handbook::999, which was never retrieved — that claim is not backed by your documents.");
  const bad = turn.locator(".answer .citation.invalid");
  assert.equal(await bad.innerText(), "[handbook::999]");
  assert.equal(await bad.getAttribute("title"), "Source: handbook::999 (never retrieved)");
  assert.equal(await turn.locator(".answer").getByRole("link").count(), 0, `a citation of nothing links nowhere: ${await turn.locator(".answer").evaluateAll((a) => a.map((e) => e.outerHTML).join("\n"))}`);
  await page.screenshot({ path: join(shots, "sources-invalid.png") });
  await context.close();
});

const axeSource = readFileSync(join(here, "..", "node_modules", "axe-core", "axe.min.js"), "utf8");

/** axe-core's serious and critical findings on the page as it is now, a line each. */
async function accessibilityProblems(page, state) {
  // Evaluated, not added as a <script>: the server's CSP refuses inline scripts, as it should.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () =>
    (await window.axe.run(document, { resultTypes: ["violations"] })).violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      where: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
    })),
  );
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${state}: ${v.impact} ${v.id} — ${v.help} — at ${v.where.join(" | ")}`);
}

test("every page passes an axe-core scan with no serious or critical finding, on a laptop and on a phone, light and dark: the lists, a dataset, an answer with its chart, an approval card, runs, the inspector, SQL, memory, settings and admin", async () => {
  // Its own server: the approval card is denied, but nothing here may touch the other tests' data.
  const server = await startServer("a11y", {});
  const problems = [];
  for (const [viewport, colorScheme] of [[DESKTOP, "light"], [PHONE, "light"], [DESKTOP, "dark"], [PHONE, "dark"]]) {
    const size = `${viewport.width}×${viewport.height}${colorScheme === "dark" ? " dark" : ""}`;
    const context = await browser.newContext({ viewport, colorScheme });
    await context.addInitScript(recordPolicyViolations);
    const page = await context.newPage();
    await page.goto(`${server}/datasets?hb=1500`);
    await page.getByRole("table").first().waitFor();
    const scan = async (state) => {
      problems.push(...(await accessibilityProblems(page, `${size} ${state}`)));
      // The server's CSP holds on every page: nothing the app does is blocked by it.
      problems.push(...(await page.evaluate(() => window.__violations.splice(0))).map((v) => `${size} ${state}: CSP blocked ${v}`));
      await page.screenshot({ path: join(shots, `a11y-${viewport.width}-${colorScheme}-${state.replace(/\W+/g, "-")}.png`) });
    };
    await scan("datasets");

    if (viewport === PHONE) await page.getByRole("button", { name: "Ask the assistant" }).click();
    let turn = await ask(page, "average price by neighbourhood");
    await finished(turn);
    await turn.locator("figure.chart-figure svg g.mark-rect.role-mark path").first().waitFor();
    await scan("an answer with its table and chart");
    await turn.getByRole("button", { name: "Details" }).click();
    await page.getByRole("dialog", { name: "Run details" }).locator("pre.sql .hljs-keyword").first().waitFor();
    await scan("the run's details with its SQL");
    await page.getByRole("button", { name: "Close details" }).click();
    turn = await ask(page, "delete the customer churn dataset");
    const card = turn.locator(".card.elevated");
    await card.waitFor();
    await scan("an approval card");
    await card.getByRole("button", { name: "Deny" }).click();
    await finished(turn);
    if (viewport === PHONE) await page.getByRole("button", { name: "Close the assistant" }).click();

    // Every dataset's page: their previews differ (one has nulls, one is documents).
    const datasets = await page.locator("main table.datasets a").evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute("href")]));
    assert.ok(datasets.length >= 3, "the sample datasets are listed");
    for (const [name, href] of datasets) {
      await page.goto(`${server}${href}`);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await page.locator("main table").first().waitFor();
      await scan(`the page of ${name}`);
    }

    await page.goto(`${server}/runs?hb=1500`);
    const chat = page.locator("table.runs tbody.chat-run").first();
    await chat.waitFor();
    await scan("runs");
    await chat.getByRole("link").first().click();
    await page.locator("main .inspector .transcript").waitFor();
    await scan("the run inspector");

    for (const [route, heading] of [["sql", "SQL"], ["memory", "Memory"], ["settings", "Settings"], ["admin", "Admin"]]) {
      await page.goto(`${server}/${route}?hb=1500`);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState("networkidle");
      await scan(route);
    }
    await context.close();
  }
  assert.deepEqual(problems, [], `accessibility problems:\n${problems.join("\n")}`);
});

test("a new page takes the keyboard focus: after a menu link, Tab goes on inside the page, not in the menu", async () => {
  const { context, page } = await open();
  const focused = () => page.evaluate(() => document.activeElement?.tagName);
  assert.notEqual(await focused(), "MAIN", "not on the first load");
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Memory" }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Memory", level: 1 }).waitFor();
  await page.waitForFunction(() => document.activeElement?.tagName === "MAIN");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.querySelector("main")?.contains(document.activeElement)), true, "Tab stays in the page");
  await context.close();
});

test("every page has a URL: opened directly and reloaded it is restored with the conversation; Back and Forward move between pages; an old #/ link lands on its path; a reload mid-run on another page resumes the answer once", async () => {
  const { context, page } = await open();
  const turn = await ask(page, "what are my files?");
  await finished(turn);
  const thread = threadOf(page);
  const runId = await turn.getAttribute("data-run-id");
  const datasetPath = new URL(await page.locator("main table.datasets").getByRole("link", { name: "barcelona_apartments.csv" }).getAttribute("href"), base).pathname;
  assert.match(datasetPath, /^\/datasets\/ds_/);
  const nav = page.getByRole("navigation", { name: "Main" });
  // Each page: its path, the heading it shows, and the menu entry it belongs to.
  const pages = [
    ["/datasets", "Datasets", "Datasets"],
    [datasetPath, "barcelona_apartments.csv", "Datasets"],
    ["/sql", "SQL", "SQL"],
    ["/runs", "Runs", "Runs"],
    [`/runs/${runId}`, "what are my files?", "Runs"],
    ["/memory", "Memory", "Memory"],
    ["/settings", "Settings", "Settings"],
    ["/admin", "Admin", "Admin"],
  ];
  for (const [path, heading, menu] of pages) {
    await page.goto(`${base}${path}?hb=1500&thread=${thread}`);
    const title = page.getByRole("heading", { level: 1, name: heading, exact: true });
    for (const loaded of ["opened", "reloaded"]) {
      if (loaded === "reloaded") await page.reload();
      await title.waitFor();
      assert.equal(new URL(page.url()).pathname, path, `${path} ${loaded}`);
      assert.equal(threadOf(page), thread, `${path} ${loaded}: the URL still names the conversation`);
      assert.equal(await nav.getByRole("link", { name: menu }).getAttribute("aria-current"), "page", `${path} ${loaded}: the menu marks ${menu}`);
      assert.equal(await page.title(), `${heading} · aware`, `${path} ${loaded}: the window's title names the page`);
      await assistant(page).locator(".turn .question").getByText("what are my files?").waitFor();
      await page.waitForFunction(() => !document.querySelector("main")?.textContent?.includes("Loading…"));
    }
    await page.screenshot({ path: join(shots, `33-url-${path.split("/").filter(Boolean).join("-").replace(/_.*/, "_id")}.png`) });
  }

  // Links keep the conversation; Back and Forward move between the pages and leave it as it is.
  await page.goto(`${base}/datasets?hb=1500&thread=${thread}`);
  await nav.getByRole("link", { name: "Runs" }).click();
  await page.getByRole("heading", { level: 1, name: "Runs" }).waitFor();
  await nav.getByRole("link", { name: "Memory" }).click();
  await page.getByRole("heading", { level: 1, name: "Memory" }).waitFor();
  assert.equal(threadOf(page), thread, "a menu link keeps the conversation");
  await page.goBack();
  await page.getByRole("heading", { level: 1, name: "Runs" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/runs");
  await page.goBack();
  await page.getByRole("heading", { level: 1, name: "Datasets" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/datasets");
  await page.goForward();
  await page.getByRole("heading", { level: 1, name: "Runs" }).waitFor();
  assert.equal(threadOf(page), thread);
  assert.equal(await page.locator(".turn").count(), 1, "the conversation stayed as it was");

  // A bookmark from before path URLs lands on its page's path; "/" is the datasets; an unknown path says so.
  await page.goto(`${base}/?hb=1500#/runs/${runId}`);
  await page.getByRole("heading", { level: 1, name: "what are my files?" }).waitFor();
  const landed = new URL(page.url());
  assert.deepEqual([landed.pathname, landed.hash, landed.searchParams.get("hb")], [`/runs/${runId}`, "", "1500"]);
  await page.goto(`${base}/?hb=1500`);
  await page.getByRole("heading", { level: 1, name: "Datasets" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/datasets");
  await page.goto(`${base}/no/such/page?hb=1500`);
  await page.getByRole("heading", { level: 1, name: "No such page" }).waitFor();
  await page.getByRole("link", { name: "Go to your datasets" }).click();
  await page.getByRole("heading", { level: 1, name: "Datasets" }).waitFor();

  // A reload while a run is working, on another page: the page and the conversation come back,
  // and the answer resumes from the last event read — every part of it once.
  await page.goto(`${base}/memory?hb=1500&thread=${thread}`);
  await page.locator(".turn").first().waitFor();
  const going = await ask(page, "what are my files?");
  await going.locator(".chip.active").waitFor();
  await page.reload();
  await page.getByRole("heading", { level: 1, name: "Memory" }).waitFor();
  assert.equal(threadOf(page), thread);
  const resumed = page.locator(".turn").nth(1);
  await finished(resumed);
  assert.equal(await resumed.getAttribute("data-status"), "SUCCEEDED");
  const answer = await resumed.locator(".answer").innerText();
  assert.match(answer, /^You have \d+ datasets?/);
  assert.equal(answer.split("You have").length - 1, 1, `the answer once: ${answer}`);
  assert.equal(await resumed.locator(".chip").count(), 1, "one tool chip");
  assert.equal(await resumed.locator("table.datasets-result").count(), 1, "one result table");
  await page.screenshot({ path: join(shots, "33-reloaded-mid-run-on-memory.png") });
  await context.close();
});

test("a dataset's Delete asks in a dialog: its way back has the focus, Esc keeps the dataset and gives the focus back; deleting goes to the list, which no longer has it, and its URL then says it is gone", async () => {
  const { context, page } = await open();
  const list = page.locator("main table.datasets");
  await page.getByLabel("Choose a file to upload as a dataset").setInputFiles({ name: "doomed.csv", mimeType: "text/csv", buffer: Buffer.from("a,b\n1,2\n3,4\n") });
  await list.getByRole("link", { name: "doomed.csv" }).click();
  await page.getByRole("heading", { level: 1, name: "doomed.csv" }).waitFor();
  const path = new URL(page.url()).pathname;
  const remove = page.getByRole("button", { name: "Delete dataset" });
  await remove.click();
  const dialog = page.getByRole("alertdialog", { name: "Delete doomed?" });
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /Its 2 rows and everything computed only from it go for good\. This cannot be undone\./);
  await hasFocus(dialog.getByRole("button", { name: "Keep it" }), "the way back");
  await page.screenshot({ path: join(shots, "34-delete-dialog.png") });
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  await hasFocus(remove, "Esc kept the dataset: back on Delete dataset");
  assert.equal(new URL(page.url()).pathname, path, "nothing happened");

  await remove.click();
  await dialog.getByRole("button", { name: "Delete dataset" }).click();
  await page.getByRole("heading", { level: 1, name: "Datasets" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/datasets");
  await list.getByRole("link", { name: "barcelona_apartments.csv" }).waitFor();
  assert.equal(await list.getByText("doomed.csv").count(), 0, "the list was read again without it");
  await page.goBack();
  await page.getByText("This dataset does not exist (any more).").waitFor();
  assert.equal(new URL(page.url()).pathname, path);
  await page.screenshot({ path: join(shots, "34b-deleted-dataset-url.png") });
  await context.close();
});

/** Records the page's layout shifts from now on, as Cumulative Layout Shift counts them: each
 *  shift's score, except those right after an input (a click, a key). */
async function watchLayoutShifts(page) {
  await page.evaluate(() => {
    window.__shifts = [];
    const since = performance.now();
    new PerformanceObserver((entries) => {
      for (const e of entries.getEntries()) {
        if (e.hadRecentInput || e.startTime < since) continue;
        const moved = (e.sources ?? []).map((s) => (s.node instanceof Element ? `${s.node.tagName.toLowerCase()}.${[...s.node.classList].join(".")}` : s.node?.nodeName ?? "?"));
        window.__shifts.push({ value: e.value, moved });
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  return async () => {
    const shifts = await page.evaluate(() => window.__shifts);
    return { total: shifts.reduce((sum, s) => sum + s.value, 0), shifts };
  };
}

test("nothing on screen moves while a streamed answer with a table and a chart arrives: its Cumulative Layout Shift stays under 0.1, beside the page and in the phone drawer", async (t) => {
  for (const viewport of [DESKTOP, PHONE]) {
    const { context, page } = await open("/datasets", { viewport });
    if (viewport === PHONE) await page.getByRole("button", { name: "Ask the assistant" }).click();
    const shifted = await watchLayoutShifts(page);
    const turn = await ask(page, "average price by neighbourhood");
    await turn.locator(".chip.active").waitFor();
    await finished(turn);
    await turn.locator("figure.chart-figure svg g.mark-rect.role-mark path").first().waitFor();
    await turn.locator(".answer").waitFor();
    await page.waitForTimeout(500); // anything the last paint still moves
    const { total, shifts } = await shifted();
    const where = `${viewport.width}×${viewport.height}`;
    t.diagnostic(`${where}: layout shift ${total.toFixed(4)}`);
    assert.ok(total < 0.1, `${where}: layout shift ${total.toFixed(3)}:\n${shifts.map((s) => `${s.value.toFixed(4)} ${s.moved.join(", ")}`).join("\n")}`);
    await page.screenshot({ path: join(shots, `35-no-layout-shift-${viewport.width}.png`) });
    await context.close();
  }
});

test("the theme follows the system, or the one picked in Settings, which a reload keeps", async () => {
  const context = await browser.newContext({ viewport: DESKTOP, colorScheme: "dark" });
  const page = await context.newPage();
  const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  await page.goto(`${base}/settings?hb=1500`);
  const picker = page.getByRole("group", { name: "Theme" });
  await picker.waitFor();
  assert.equal(await picker.getByLabel("As the system").isChecked(), true);
  assert.equal(await background(), "rgb(18, 21, 28)", "a dark system gets the dark theme");
  await picker.getByLabel("Light").check();
  assert.equal(await background(), "rgb(246, 247, 251)");
  await page.reload();
  await picker.waitFor();
  assert.equal(await picker.getByLabel("Light").isChecked(), true, "kept after a reload");
  assert.equal(await background(), "rgb(246, 247, 251)");
  await picker.getByLabel("Dark").check();
  await page.goto(`${base}/datasets?hb=1500`);
  await page.getByRole("table").first().waitFor();
  assert.equal(await background(), "rgb(18, 21, 28)");
  const turn = await ask(page, "average price by neighbourhood");
  const bar = turn.locator("figure.chart-figure svg g.mark-rect.role-mark path").first();
  await bar.waitFor();
  assert.equal(await bar.getAttribute("fill"), "rgb(143, 168, 255)", "the chart takes the dark theme's accent");
  await page.screenshot({ path: join(shots, "31-dark.png") });
  await page.goto(`${base}/settings?hb=1500`);
  await picker.getByLabel("As the system").check();
  await page.reload();
  await picker.waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme ?? "none"), "none", "back to the system's");
  await context.close();
});
