// The assistant panel: streamed answers, live tool activity, inline results, confirmation cards,
// a details drawer per run, "Reconnecting…" while the stream is down, and cancel.
import { useEffect, useRef, useState } from "react";
import {
  ConfirmationResolution,
  ConfirmationTier,
  DatasetFormat,
  EntryKind,
  RunStatus,
  timestampDate,
  type ConfirmationRequired,
  type Run,
  type ServerEvent,
  type ToolResult,
} from "@aware/client";
import { aware, errorText, formatBytes, statusText } from "./api";
import { ResultTable } from "./ResultTable";

type Item =
  | { kind: "text"; id: string; text: string }
  | { kind: "tool"; id: string; name: string; title: string; done: boolean; failed: boolean }
  | { kind: "result"; id: string; result: ToolResult }
  | { kind: "denied"; id: string; reason: string }
  | { kind: "confirm"; id: string; c: ConfirmationRequired; resolution?: ConfirmationResolution };

interface Turn {
  question: string;
  runId: string;
  items: Item[];
  status: RunStatus;
  error?: string;
}

/** What a running tool shows, by tool. */
const ACTIVITY: Record<string, string> = {
  list_datasets: "Looking up your datasets…",
  get_dataset_detail: "Reading the dataset's schema…",
  preview_rows: "Reading rows…",
  run_sql_query: "Running SQL…",
  execute_query_plan: "Running SQL…",
  get_dataset_statistics: "Profiling the data…",
  get_system_status: "Checking the system…",
  get_run_status: "Looking up the run…",
  delete_dataset: "Deleting the dataset…",
  list_directory: "Looking in the folder…",
  import_files: "Importing files…",
};

function apply(turn: Turn, e: ServerEvent): Turn {
  const items = [...turn.items];
  const p = e.payload;
  switch (p.case) {
    case "textDelta": {
      const last = items.findIndex((i) => i.kind === "text" && i.id === p.value.messageId);
      if (last >= 0) {
        const t = items[last] as Extract<Item, { kind: "text" }>;
        items[last] = { ...t, text: t.text + p.value.delta };
      } else items.push({ kind: "text", id: p.value.messageId, text: p.value.delta });
      break;
    }
    case "toolCallStarted":
      items.push({ kind: "tool", id: p.value.toolCallId, name: p.value.toolName, title: p.value.title, done: false, failed: false });
      break;
    case "toolResult": {
      const i = items.findIndex((x) => x.kind === "tool" && x.id === p.value.toolCallId);
      if (i >= 0) items[i] = { ...(items[i] as Extract<Item, { kind: "tool" }>), done: true, failed: p.value.isError };
      items.push({ kind: "result", id: p.value.toolCallId, result: p.value });
      break;
    }
    case "toolDenied":
      items.push({ kind: "denied", id: p.value.toolCallId, reason: `${p.value.toolName}: ${p.value.reason}` });
      break;
    case "confirmationRequired":
      items.push({ kind: "confirm", id: p.value.confirmationId, c: p.value });
      break;
    case "confirmationResolved": {
      const i = items.findIndex((x) => x.kind === "confirm" && x.id === p.value.confirmationId);
      if (i >= 0) items[i] = { ...(items[i] as Extract<Item, { kind: "confirm" }>), resolution: p.value.resolution };
      break;
    }
    case "runCompleted":
      return { ...turn, items, status: p.value.status, error: p.value.error?.message };
  }
  return { ...turn, items };
}

export function Assistant({
  threadId,
  heartbeatTimeoutMs,
  onChange,
  openDataset,
}: {
  threadId: () => Promise<string>;
  heartbeatTimeoutMs: number;
  /** Called when a run may have changed the user's data (a delete, an upload). */
  onChange: () => void;
  openDataset: (id: string) => void;
}) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState("");
  const [reconnecting, setReconnecting] = useState(false);
  const [error, setError] = useState("");
  const [details, setDetails] = useState<Run | null>(null);
  const log = useRef<HTMLDivElement>(null);
  const busy = turns.some((t) => t.status === RunStatus.RUNNING || t.status === RunStatus.AWAITING_CONFIRMATION || t.status === RunStatus.QUEUED);

  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [turns]);

  const update = (runId: string, f: (t: Turn) => Turn) => setTurns((all) => all.map((t) => (t.runId === runId ? f(t) : t)));

  async function send(text: string) {
    setError("");
    try {
      const sent = await aware.sendMessage(text, { threadId: await threadId() });
      setTurns((all) => [...all, { question: text, runId: sent.runId, items: [], status: RunStatus.RUNNING }]);
      for await (const item of aware.runStream(sent.runId, { heartbeatTimeoutMs })) {
        if (item.kind === "reconnecting") setReconnecting(true);
        if (item.kind === "event" || item.kind === "heartbeat") setReconnecting(false);
        if (item.kind !== "event") continue;
        update(sent.runId, (t) => apply(t, item.event));
        if (item.event.payload.case === "toolResult" && item.event.payload.value.rich.case === "deletedDataset") onChange();
      }
      onChange();
    } catch (e) {
      setReconnecting(false);
      setError(errorText(e));
    }
  }

  return (
    <aside className="assistant" aria-label="Assistant">
      <header>
        <h2>Assistant</h2>
        {busy && (
          <button type="button" className="cancel" onClick={() => turns.filter((t) => t.status === RunStatus.RUNNING || t.status === RunStatus.AWAITING_CONFIRMATION).forEach((t) => aware.cancel(t.runId))}>
            Cancel
          </button>
        )}
      </header>
      {reconnecting && (
        <div className="banner" role="status">
          Reconnecting…
        </div>
      )}
      <div className="log" ref={log} aria-live="polite">
        {turns.length === 0 && <p className="empty">Ask about your data: “what are my files?”, “average price by neighbourhood”, “what am I looking at?”.</p>}
        {turns.map((t) => (
          <TurnView key={t.runId} turn={t} openDataset={openDataset} showDetails={async () => setDetails((await aware.runs.getRun({ runId: t.runId })).run ?? null)} />
        ))}
        {error && <p className="error" role="alert">{error}</p>}
      </div>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const text = draft.trim();
          if (!text) return;
          setDraft("");
          void send(text);
        }}
      >
        <label htmlFor="ask" className="sr-only">Message</label>
        <input id="ask" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Ask about your data…" autoComplete="off" />
        <button type="submit" disabled={!draft.trim()}>Send</button>
      </form>
      {details && <Details run={details} close={() => setDetails(null)} />}
    </aside>
  );
}

function TurnView({ turn, openDataset, showDetails }: { turn: Turn; openDataset: (id: string) => void; showDetails: () => void }) {
  const running = turn.status === RunStatus.RUNNING || turn.status === RunStatus.AWAITING_CONFIRMATION;
  return (
    <section className="turn" data-run-id={turn.runId} data-status={RunStatus[turn.status]}>
      <p className="question">{turn.question}</p>
      {turn.items.map((item) => {
        switch (item.kind) {
          case "text":
            return <p key={"t" + item.id} className="answer">{item.text}</p>;
          case "tool":
            return (
              <span key={"c" + item.id} className={`chip ${item.done ? (item.failed ? "failed" : "done") : "active"}`}>
                {item.done ? `${item.failed ? "✗" : "✓"} ${item.title}` : ACTIVITY[item.name] ?? `${item.title}…`}
              </span>
            );
          case "result":
            return <RichResult key={"r" + item.id} result={item.result} openDataset={openDataset} />;
          case "denied":
            return <p key={"d" + item.id} className="denied">Not allowed — {item.reason}</p>;
          case "confirm":
            return <ConfirmCard key={"k" + item.id} c={item.c} resolution={item.resolution} />;
        }
      })}
      <footer>
        {running ? <span className="muted">working…</span> : <span className="muted">{RunStatus[turn.status].toLowerCase()}{turn.error ? ` — ${turn.error}` : ""}</span>}
        <button type="button" className="link" onClick={showDetails}>Details</button>
      </footer>
    </section>
  );
}

function RichResult({ result, openDataset }: { result: ToolResult; openDataset: (id: string) => void }) {
  const r = result.rich;
  switch (r.case) {
    case "table":
      return <ResultTable table={r.value} caption={result.toolName} />;
    case "datasetList":
      return (
        <div className="table-scroll">
          <table className="datasets-result">
            <thead>
              <tr><th>Dataset</th><th className="num">Rows</th><th className="num">Columns</th><th /></tr>
            </thead>
            <tbody>
              {r.value.datasets.map((d) => (
                <tr key={d.id}>
                  <td>{d.tableName}</td>
                  <td className="num">{d.rowCount.toLocaleString()}</td>
                  <td className="num">{d.columnCount}</td>
                  <td><button type="button" className="link" onClick={() => openDataset(d.id)}>Preview</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case "datasetDetail":
      return r.value.sample ? <ResultTable table={r.value.sample} caption={r.value.dataset?.tableName} /> : null;
    case "statistics":
      return (
        <div className="table-scroll">
          <table>
            <thead><tr><th>Column</th><th>Type</th><th className="num">Missing</th><th className="num">Distinct</th><th className="num">Mean</th></tr></thead>
            <tbody>
              {r.value.columns.map((c) => (
                <tr key={c.name}><td>{c.name}</td><td>{c.type}</td><td className="num">{String(c.nullCount)}</td><td className="num">{String(c.distinctCount)}</td><td className="num">{c.mean?.toFixed(2) ?? ""}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case "directoryListing":
      return (
        <div className="table-scroll">
          <table className="listing-result">
            <thead><tr><th>Name</th><th>Kind</th><th className="num">Size</th><th>Imports as</th></tr></thead>
            <tbody>
              {r.value.entries.map((e) => (
                <tr key={e.path}>
                  <td>{e.path}</td>
                  <td>{EntryKind[e.kind].toLowerCase()}</td>
                  <td className="num">{e.kind === EntryKind.FILE ? formatBytes(e.sizeBytes) : ""}</td>
                  <td>{e.importableFormat ? DatasetFormat[e.importableFormat].toLowerCase() : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case "importReport":
      return (
        <ul className="import-report">
          {r.value.files.map((f) => (
            <li key={f.path} className={f.error ? "error" : ""}>
              {f.dataset ? <>✓ {f.path} → <button type="button" className="link" onClick={() => openDataset(f.dataset!.id)}>{f.dataset.tableName}</button> ({f.dataset.rowCount.toLocaleString()} rows)</> : <>✗ {f.path}: {f.error?.message}</>}
            </li>
          ))}
        </ul>
      );
    case "searchHits":
      return (
        <div className="search-hits">
          <p className="muted">{r.value.hits.length} hit(s) · {r.value.mode} search{r.value.note ? ` · ${r.value.note}` : ""}</p>
          <ol>
            {r.value.hits.map((h) => (
              <li key={`${h.datasetId}:${h.rowId}`}>
                <button type="button" className="link" onClick={() => openDataset(h.datasetId)}>{h.tableName}</button>
                <span className="muted"> row {String(h.rowId)} · {h.column}{h.sameTextRows ? ` · +${h.sameTextRows} rows with the same text` : ""}</span>
                <p className="snippet"><Snippet html={h.snippet} /></p>
              </li>
            ))}
          </ol>
        </div>
      );
    case "deletedDataset":
      return <p className="muted">Deleted {r.value.tableName} ({statusText(r.value)}, {formatBytes(r.value.sizeBytes)}).</p>;
    case "systemStatus":
      return <p className="muted">aware {r.value.version} · {r.value.mode} mode · model {r.value.modelProvider} · {r.value.datasetCount} datasets</p>;
    default:
      return result.isError ? <p className="error">{result.llmSummary}</p> : null;
  }
}

/** A search snippet: escaped text with `<mark>` around matched words. Rendered as text nodes and
 *  <mark> elements, never as HTML, so nothing in a dataset can inject markup. */
function Snippet({ html }: { html: string }) {
  const unescape = (t: string) =>
    t.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
  const parts = html.split(/<mark>(.*?)<\/mark>/g);
  return <>{parts.map((p, i) => (i % 2 === 1 ? <mark key={i}>{unescape(p)}</mark> : <span key={i}>{unescape(p)}</span>))}</>;
}

function ConfirmCard({ c, resolution }: { c: ConfirmationRequired; resolution?: ConfirmationResolution }) {
  const elevated = c.tier === ConfirmationTier.ELEVATED;
  const expires = c.expiresAt ? timestampDate(c.expiresAt).getTime() : Date.now();
  const [now, setNow] = useState(Date.now());
  const [sending, setSending] = useState(false);
  const [local, setLocal] = useState<ConfirmationResolution | undefined>();
  const decided = resolution ?? local;
  useEffect(() => {
    if (decided !== undefined) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [decided]);
  const left = Math.max(0, Math.ceil((expires - now) / 1000));
  const decide = async (approved: boolean) => {
    setSending(true);
    try {
      setLocal((await aware.confirm(c.confirmationId, approved)).resolution);
    } finally {
      setSending(false);
    }
  };
  return (
    <div className={`card ${elevated ? "elevated" : "standard"}`} role="group" aria-label={elevated ? "Confirmation required (caution)" : "Confirmation required"}>
      {elevated && <strong className="caution">⚠ Caution: this cannot be undone</strong>}
      <p>{c.description}</p>
      {decided === undefined ? (
        <div className="actions">
          <button type="button" className="deny" disabled={sending} onClick={() => decide(false)}>Deny</button>
          <button type="button" className={elevated ? "danger" : "allow"} disabled={sending} onClick={() => decide(true)}>Allow</button>
          <span className="muted" aria-live="off">expires in {left}s</span>
        </div>
      ) : (
        <p className="resolved">{ConfirmationResolution[decided] === "APPROVED" ? "Allowed" : ConfirmationResolution[decided] === "DENIED" ? "Denied" : ConfirmationResolution[decided].toLowerCase()}</p>
      )}
    </div>
  );
}

function Details({ run, close }: { run: Run; close: () => void }) {
  const started = run.createdAt ? timestampDate(run.createdAt).getTime() : 0;
  const ended = run.completedAt ? timestampDate(run.completedAt).getTime() : 0;
  return (
    <div className="drawer" role="dialog" aria-label="Run details">
      <header>
        <h3>Run details</h3>
        <button type="button" onClick={close} aria-label="Close details">×</button>
      </header>
      <dl>
        <dt>Run</dt><dd><a href={`#/runs/${run.runId}`}>{run.runId}</a></dd>
        <dt>Status</dt><dd>{RunStatus[run.status].toLowerCase()}</dd>
        <dt>Runtime</dt><dd>{ended ? `${ended - started} ms` : "running"}</dd>
        <dt>Model</dt><dd>{run.model || "—"}</dd>
        <dt>Usage</dt><dd>{run.usage ? `${run.usage.inputTokens} in / ${run.usage.outputTokens} out tokens, ${run.usage.modelCalls} calls` : "—"}</dd>
        <dt>Data</dt><dd>{run.datasets.map((d) => `${d.tableName} @ ${d.versionHash.slice(0, 12)}`).join(", ") || "—"}</dd>
        <dt>Plan</dt><dd><pre className="plan">{run.planJson || "—"}</pre></dd>
        <dt>SQL</dt><dd><pre className="sql">{run.compiledSql || "—"}</pre></dd>
        <dt>Result</dt><dd>{run.resultSummary || "—"}</dd>
      </dl>
    </div>
  );
}
