// The app shell: routes (Datasets — tables and knowledge documents — with the verified queries,
// Dataset detail with rename, describe, lineage and a refresh from the file it was imported from,
// Runs, Run inspector, Memory, Settings, and Admin for admins) and the assistant panel on every
// page (beside the page on wide screens, a drawer on narrow ones). Every route change, dataset
// selection, upload and delete sends a StateSnapshot for the conversation on screen, so aware
// knows where the user is. That conversation's thread is in the URL (`?thread=`), so a reload
// reopens it.
import { useCallback, useEffect, useRef, useState } from "react";
import { AdminPage } from "./Admin";
import { Approvals } from "./Approvals";
import {
  timestampDate,
  ConfirmationTier,
  DatasetFormat,
  DatasetStatus,
  RunKind,
  RunStatus,
  SearchIndexState,
  type Dataset,
  type SearchIndex,
  type DatasetStatistics,
  type GetCapabilitiesResponse,
  type ToolInfo,
  type Run,
  type Span,
  type Table,
} from "@aware/client";
import { aware, errorText, loadCapabilities, searchText, statusText } from "./api";
import { Assistant } from "./Assistant";
import { EditDataset, ImportedFrom, SavedFrom, SavedQueries, Schema } from "./Curation";
import { count, formatBytes } from "./format";
import { Markdown } from "./Markdown";
import { MemoryPage } from "./Memory";
import { ResultTable, ScrollBox } from "./ResultTable";
import { outcomeText, replay, StatisticsTable, TranscriptItems, usageText, type Transcript } from "./RunView";
import { documentKind, isDocument, passagesText } from "./Sources";
import { SqlBlock } from "./SqlBlock";
import { applyTheme, savedTheme, type Theme } from "./theme";
import { RunSteps, steps, type Step } from "./Steps";

function currentRoute(): string {
  const h = window.location.hash.replace(/^#/, "");
  return h.startsWith("/") ? h : "/datasets";
}

function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return route;
}

const params = new URLSearchParams(window.location.search);
const HEARTBEAT_TIMEOUT_MS = Number(params.get("hb") ?? 15_000);

/** What a StateSnapshot says besides its thread and version. */
interface Place {
  currentRoute: string;
  activeDatasetId: string;
  datasets: { id: string; name: string; rowCount: bigint; status: DatasetStatus }[];
}

export function App() {
  const route = useRoute();
  // A new page takes the focus (not on the first load): a keyboard continues from its top and a
  // screen reader announces it, instead of staying on the link in the menu that opened it.
  const main = useRef<HTMLElement>(null);
  const firstRoute = useRef(route);
  useEffect(() => {
    if (route === firstRoute.current) return;
    firstRoute.current = "";
    main.current?.scrollTo({ top: 0 });
    main.current?.focus({ preventScroll: true });
  }, [route]);
  const [datasets, setDatasets] = useState<Dataset[] | null>(null);
  const [loadError, setLoadError] = useState("");
  const [assistantOpen, setAssistantOpen] = useState(false);
  // The conversation on screen ("" = a new one, whose thread the first snapshot opens).
  const [conversation, setConversation] = useState(() => params.get("thread") ?? "");
  const conversationNow = useRef(conversation);
  /** The last snapshot's thread (a promise: the server names a new one), and whose it was. */
  const thread = useRef<{ of: string; id: Promise<string> } | null>(null);
  const place = useRef<Place | null>(null);
  const version = useRef(BigInt(Date.now()) * 1000n);
  // The caller's role ("" until known): the Admin link, and reading a dataset's file again, are
  // for admins only.
  const [role, setRole] = useState("");

  useEffect(() => void loadCapabilities().then((caps) => setRole(caps.role)), []);

  const refresh = useCallback(async () => {
    try {
      setDatasets((await aware.datasets.listDatasets({})).datasets);
      setLoadError("");
    } catch (e) {
      setLoadError(errorText(e));
    }
  }, []);
  useEffect(() => void refresh(), [refresh]);
  // A dataset still being ingested turns ready or failed on its own: follow it.
  const processing = datasets?.some((d) => d.status === DatasetStatus.PROCESSING) ?? false;
  useEffect(() => {
    if (!processing) return;
    const t = setInterval(() => void refresh(), 1000);
    return () => clearInterval(t);
  }, [processing, refresh]);

  const activeDatasetId = route.startsWith("/datasets/") ? route.slice("/datasets/".length) : "";

  // The snapshot: where the user is and what they see, for the conversation on screen. A new
  // conversation's first snapshot opens its thread; the next ones wait for it and reuse it.
  const snapshot = useCallback((of: string) => {
    const where = place.current;
    if (!where) return;
    version.current += 1n;
    const uiStateVersion = version.current;
    const previous = thread.current?.of === of ? thread.current.id : null;
    thread.current = {
      of,
      id: (async () => {
        const threadId = of || (previous ? await previous.catch(() => "") : "");
        return (await aware.updateState({ ...where, uiStateVersion, threadId })).threadId;
      })(),
    };
  }, []);
  useEffect(() => {
    if (datasets === null) return;
    place.current = {
      currentRoute: route,
      activeDatasetId,
      datasets: datasets.map((d) => ({ id: d.id, name: d.tableName, rowCount: d.rowCount, status: d.status })),
    };
    snapshot(conversationNow.current);
  }, [route, activeDatasetId, datasets, snapshot]);
  const threadId = useCallback(async () => (thread.current ? thread.current.id : conversationNow.current), []);
  // Switching conversations tells aware at once where the user is in the one now on screen.
  const switchConversation = useCallback((id: string) => {
    conversationNow.current = id;
    setConversation(id);
    snapshot(id);
  }, [snapshot]);
  useEffect(() => {
    const url = new URL(window.location.href);
    if (conversation) url.searchParams.set("thread", conversation);
    else url.searchParams.delete("thread");
    window.history.replaceState(window.history.state, "", url);
  }, [conversation]);

  const open = (path: string) => {
    window.location.hash = path;
  };
  const openDataset = (id: string) => {
    setAssistantOpen(false);
    open(`/datasets/${id}`);
  };
  let page;
  if (route.startsWith("/datasets/")) page = <DatasetDetail id={activeDatasetId} datasets={datasets} canRefresh={role === "admin"} onChanged={refresh} onDeleted={() => { void refresh(); open("/datasets"); }} />;
  else if (route.startsWith("/runs/")) page = <RunInspector runId={route.slice("/runs/".length)} openDataset={openDataset} />;
  else if (route === "/runs") page = <Runs />;
  else if (route === "/memory") page = <MemoryPage />;
  else if (route === "/settings") page = <Settings />;
  else if (route === "/admin") page = <AdminPage role={role} />;
  else page = <Datasets datasets={datasets} error={loadError} onUploaded={refresh} />;

  return (
    <div className={`app ${assistantOpen ? "assistant-open" : ""}`}>
      <nav aria-label="Main">
        <span className="brand">aware</span>
        <a href="#/datasets" aria-current={route.startsWith("/datasets") ? "page" : undefined}>Datasets</a>
        <a href="#/runs" aria-current={route.startsWith("/runs") ? "page" : undefined}>Runs</a>
        <a href="#/memory" aria-current={route === "/memory" ? "page" : undefined}>Memory</a>
        <a href="#/settings" aria-current={route === "/settings" ? "page" : undefined}>Settings</a>
        {role === "admin" && <a href="#/admin" aria-current={route === "/admin" ? "page" : undefined}>Admin</a>}
      </nav>
      {/* Focusable: a page longer than the window scrolls here, also by keyboard. */}
      <main tabIndex={0} ref={main}>
        <Approvals onAnswered={refresh} />
        {page}
      </main>
      <button type="button" className="open-assistant" aria-expanded={assistantOpen} onClick={() => setAssistantOpen(true)}>
        Ask the assistant
      </button>
      <Assistant
        current={conversation}
        onThread={switchConversation}
        threadId={threadId}
        heartbeatTimeoutMs={HEARTBEAT_TIMEOUT_MS}
        onChange={refresh}
        openDataset={openDataset}
        open={assistantOpen}
        onClose={() => setAssistantOpen(false)}
        onAttention={() => setAssistantOpen(true)}
      />
    </div>
  );
}

function Datasets({ datasets, error, onUploaded }: { datasets: Dataset[] | null; error: string; onUploaded: () => void }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [uploadError, setUploadError] = useState("");
  const [dragging, setDragging] = useState(false);
  const upload = async (file: File) => {
    setUploadError("");
    setProgress(0);
    try {
      await aware.uploadFile(file.name, new Uint8Array(await file.arrayBuffer()), { onProgress: (sent, total) => setProgress(sent / total) });
    } catch (e) {
      setUploadError(errorText(e));
    } finally {
      setProgress(null);
      // A file that fails ingestion is listed too, with its reason.
      onUploaded();
    }
  };
  return (
    <section aria-labelledby="datasets-title">
      <h1 id="datasets-title">Datasets</h1>
      <div
        className={`dropzone ${dragging ? "dragging" : ""}`}
        onDragOver={(e) => { e.preventDefault(); setDragging(true); }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => { e.preventDefault(); setDragging(false); const f = e.dataTransfer.files[0]; if (f) void upload(f); }}
      >
        <label>
          Drop a CSV, TSV, Parquet, JSON or NDJSON file — or a Markdown or text document (.md, .txt) for the assistant to cite — here, or{" "}
          <input type="file" aria-label="Upload a dataset file" onChange={(e) => { const f = e.target.files?.[0]; if (f) void upload(f); e.target.value = ""; }} />
        </label>
        {progress !== null && <progress value={progress} max={1} aria-label="Upload progress" />}
        {uploadError && <p className="error" role="alert">{uploadError}</p>}
      </div>
      {error && <p className="error" role="alert">Cannot load datasets: {error}</p>}
      {datasets === null && !error && <p className="muted">Loading…</p>}
      {datasets?.length === 0 && <p className="empty">No datasets yet — upload a file to start.</p>}
      {datasets && datasets.length > 0 && (
        <ScrollBox label="Datasets" className="page-table">
          <table className="datasets">
            <thead>
              <tr><th>Name</th><th>Table</th><th>Status</th><th className="num">Rows</th><th className="num">Columns</th><th className="num">Size</th></tr>
            </thead>
            <tbody>
              {datasets.map((d) => (
                <tr key={d.id}>
                  <td>
                    <a href={`#/datasets/${d.id}`}>{d.name}</a>
                    {documentKind(d.format) && <span className="badge document-kind">{documentKind(d.format)}</span>}
                  </td>
                  <td><code>{d.tableName}</code></td>
                  <td className={`status ${statusText(d)}`}>
                    {statusText(d)}
                    {d.status === DatasetStatus.ERROR && d.error && <span className="reason">{d.error}</span>}
                  </td>
                  <td className="num">{d.status !== DatasetStatus.READY ? "—" : isDocument(d.format) ? passagesText(d.rowCount) : count(d.rowCount)}</td>
                  <td className="num">{d.status === DatasetStatus.READY && !isDocument(d.format) ? d.columnCount : "—"}</td>
                  <td className="num">{d.format === DatasetFormat.DERIVED ? <span title="saved from a query">—</span> : formatBytes(d.sizeBytes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {datasets && <SavedQueries refreshKey={datasets} />}
    </section>
  );
}

function DatasetDetail({ id, datasets, canRefresh, onChanged, onDeleted }: { id: string; datasets: Dataset[] | null; canRefresh: boolean; onChanged: () => Promise<void>; onDeleted: () => void }) {
  const dataset = datasets?.find((d) => d.id === id);
  const ready = dataset?.status === DatasetStatus.READY;
  // A knowledge document is shown as its passages: it has no schema or statistics to speak of.
  const isDoc = dataset ? isDocument(dataset.format) : false;
  // New content (a refresh, from this page or the assistant) has a new version: the preview,
  // statistics and search index below are read again for it.
  const version = dataset?.versionHash ?? "";
  const [editing, setEditing] = useState(false);
  useEffect(() => setEditing(false), [id]);
  const [preview, setPreview] = useState<Table | null>(null);
  const [previewError, setPreviewError] = useState("");
  const [stats, setStats] = useState<DatasetStatistics | null>(null);
  const [statsError, setStatsError] = useState("");
  const [error, setError] = useState("");
  const [index, setIndex] = useState<SearchIndex | undefined>(undefined);
  // The search index is built in the background: follow it until it settles.
  useEffect(() => {
    setIndex(undefined);
    if (!id || !ready) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const poll = async () => {
      try {
        const d = (await aware.datasets.getDataset({ datasetId: id, sampleRows: 0 })).dataset;
        if (stopped) return;
        setIndex(d?.searchIndex);
        const settling = [SearchIndexState.UNSPECIFIED, SearchIndexState.INDEXING, SearchIndexState.EMBEDDING];
        if (d?.status === DatasetStatus.READY && settling.includes(d.searchIndex?.state ?? SearchIndexState.UNSPECIFIED)) {
          timer = setTimeout(poll, 1000);
        }
      } catch {
        /* the page shows the list's copy */
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id, ready, version]);
  useEffect(() => {
    setPreview(null);
    setStats(null);
    setPreviewError("");
    setStatsError("");
    setError("");
    if (!id || !ready) return;
    // An answer for another dataset or an older version, arriving late, is dropped.
    let current = true;
    const only = <T,>(f: (v: T) => void) => (v: T) => { if (current) f(v); };
    aware.datasets.previewRows({ datasetId: id, limit: 20 }).then(only((r) => setPreview(r.table ?? null)), only((e) => setPreviewError(errorText(e))));
    if (!isDoc) aware.datasets.getDatasetStatistics({ datasetId: id }).then(only((r) => setStats(r.statistics ?? null)), only((e) => setStatsError(errorText(e))));
    return () => {
      current = false;
    };
  }, [id, ready, version, isDoc]);
  if (datasets && !dataset) return <p className="error">This dataset does not exist (any more). <a href="#/datasets">Back to datasets</a></p>;
  if (!dataset) return <p className="muted">Loading…</p>;
  const remove = async () => {
    if (!window.confirm(`Delete ${dataset.tableName} (${count(dataset.rowCount)} rows)? This cannot be undone.`)) return;
    try {
      await aware.datasets.deleteDataset({ datasetId: dataset.id });
      onDeleted();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const shownIndex = index ?? dataset.searchIndex;
  return (
    <section aria-labelledby="dataset-title">
      <h1 id="dataset-title">{dataset.name}</h1>
      {dataset.description && <p className="description">{dataset.description}</p>}
      <p className="muted">
        table <code>{dataset.tableName}</code> · {statusText(dataset)}
        {isDoc && <> · {documentKind(dataset.format)}</>}
        {ready && <> · {isDoc ? passagesText(dataset.rowCount) : `${count(dataset.rowCount)} rows`}</>}
        {dataset.format === DatasetFormat.DERIVED ? <> · saved from a query</> : <> · {formatBytes(dataset.sizeBytes)}</>}
        {ready && shownIndex ? <> · <span className="search-state">search: {searchText(shownIndex)}</span></> : null}
        {ready && !editing && <>{" · "}<button type="button" onClick={() => setEditing(true)}>Rename or describe</button></>}
        {" · "}<button type="button" className="danger" onClick={remove}>Delete dataset</button>
      </p>
      <ImportedFrom key={dataset.id} dataset={dataset} canRefresh={canRefresh && ready} onRefreshed={onChanged} />
      {error && <p className="error" role="alert">{error}</p>}
      {editing && <EditDataset dataset={dataset} onCancel={() => setEditing(false)} onSaved={async () => { await onChanged(); setEditing(false); }} />}
      {dataset.status === DatasetStatus.ERROR && (
        <div className="load-failed" role="alert">
          <strong>This file could not be loaded.</strong>
          <p>{dataset.error || "The server recorded no reason."}</p>
          <p className="muted">It has no schema, preview or statistics. Fix the file and upload it again, or delete this entry.</p>
        </div>
      )}
      {dataset.status === DatasetStatus.PROCESSING && <p className="muted" role="status">Still loading the file… this page updates when it is ready.</p>}
      {ready && (
        <>
          {dataset.lineage && datasets && <SavedFrom lineage={dataset.lineage} datasets={datasets} />}
          {isDoc ? (
            <p className="muted">The assistant searches this document’s passages and cites them by their chunk id (<code>{dataset.tableName}::NNN</code>).</p>
          ) : (
            <>
              <h2>Schema</h2>
              <Schema dataset={dataset} />
            </>
          )}
          <h2>{isDoc ? "Passages" : "Preview"}</h2>
          {preview ? <ResultTable table={preview} caption={dataset.tableName} /> : previewError ? <p className="error">{previewError}</p> : <p className="muted">Loading…</p>}
          {!isDoc && (
            <>
              <h2>Statistics</h2>
              {stats ? <StatisticsTable stats={stats} /> : statsError ? <p className="error">{statsError}</p> : <p className="muted">Loading…</p>}
            </>
          )}
        </>
      )}
    </section>
  );
}

const millis = (t: Run["createdAt"]) => (t ? timestampDate(t).getTime() : 0);

/** A query run's question in words: the plan's dataset and columns, or the SQL itself. */
function queryTitle(r: Run): string {
  if (r.kind !== RunKind.QUERY_PLAN) return r.question;
  try {
    const plan = JSON.parse(r.question) as { dataset?: string; select?: { column?: string; aggregate?: string }[]; group_by?: string[] };
    const select = (plan.select ?? []).map((s) => (s.aggregate ? `${s.aggregate.replace(/^AGGREGATE_/, "").toLowerCase()}(${s.column || "*"})` : s.column)).join(", ");
    const by = plan.group_by?.length ? ` by ${plan.group_by.join(", ")}` : "";
    return `${plan.dataset ?? "?"}: ${select || "*"}${by}`;
  } catch {
    return r.question;
  }
}

interface RunGroup {
  run: Run;
  queries: Run[];
}

/**
 * Chat runs with the query runs their tools ran under them (a run's `parentRunId`); queries sent
 * straight to QueryService (ExecuteSql, the CLI, other services) — or whose chat run is not on
 * this page — stand on their own.
 */
export function groupRuns(runs: Run[]): RunGroup[] {
  const queries = new Map<string, Run[]>(runs.filter((r) => r.kind === RunKind.CHAT).map((c) => [c.runId, []]));
  const top: Run[] = [];
  for (const r of runs) {
    const siblings = r.kind === RunKind.CHAT ? undefined : queries.get(r.parentRunId);
    if (siblings) siblings.unshift(r);
    else top.push(r);
  }
  return top.map((run) => ({ run, queries: queries.get(run.runId) ?? [] }));
}

function runStatus(r: Run): string {
  return RunStatus[r.status].toLowerCase().replace("_", " ");
}

function Runs() {
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [next, setNext] = useState("");
  const [error, setError] = useState("");
  const load = useCallback(async (pageToken: string) => {
    try {
      const r = await aware.runs.listRuns({ pageSize: 100, pageToken });
      setRuns((all) => [...(pageToken ? all ?? [] : []), ...r.runs]);
      setNext(r.nextPageToken);
    } catch (e) {
      setError(errorText(e));
    }
  }, []);
  useEffect(() => void load(""), [load]);
  const groups = runs ? groupRuns(runs) : [];
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      {error && <p className="error" role="alert">{error}</p>}
      {runs?.length === 0 && <p className="empty">No runs yet — ask the assistant something.</p>}
      {groups.length > 0 && (
        <ScrollBox label="Runs" className="page-table">
          <table className="runs">
            <colgroup><col className="when" /><col /><col className="state" /></colgroup>
            <thead><tr><th>When</th><th>Question</th><th>Status</th></tr></thead>
            {groups.map(({ run, queries }) => (
              <tbody key={run.runId} className={run.kind === RunKind.CHAT ? "chat-run" : "query-run"}>
                <tr>
                  <td>{run.createdAt ? timestampDate(run.createdAt).toLocaleString() : ""}</td>
                  <td className="title">
                    {run.kind === RunKind.CHAT ? (
                      <>
                        <a href={`#/runs/${run.runId}`} title={run.question}>{run.question}</a>
                        {usageText(run.usage) && <span className="run-usage">{usageText(run.usage)}</span>}
                      </>
                    ) : (
                      <a href={`#/runs/${run.runId}`} title={run.question}><span className="badge">{run.kind === RunKind.SQL ? "SQL" : "plan"}</span> <code>{queryTitle(run)}</code></a>
                    )}
                  </td>
                  <td className={`run-status ${RunStatus[run.status].toLowerCase()}`}>{runStatus(run)}</td>
                </tr>
                {queries.map((q) => (
                  <tr key={q.runId} className="nested">
                    <td />
                    <td className="title">
                      <a href={`#/runs/${q.runId}`} title={q.question}>↳ <span className="badge">{q.kind === RunKind.SQL ? "SQL" : "plan"}</span> <code>{queryTitle(q)}</code></a>
                    </td>
                    <td className={`run-status ${RunStatus[q.status].toLowerCase()}`}>{runStatus(q)}</td>
                  </tr>
                ))}
              </tbody>
            ))}
          </table>
        </ScrollBox>
      )}
      {next && <p><button type="button" onClick={() => void load(next)}>Load older runs</button></p>}
    </section>
  );
}

function RunInspector({ runId, openDataset }: { runId: string; openDataset: (id: string) => void }) {
  const [run, setRun] = useState<Run | null>(null);
  const [transcript, setTranscript] = useState<Transcript | null>(null);
  const [runSteps, setRunSteps] = useState<Step[] | null>(null);
  const [stepsError, setStepsError] = useState("");
  const [spans, setSpans] = useState<Span[]>([]);
  const [error, setError] = useState("");
  useEffect(() => {
    setRun(null);
    setTranscript(null);
    setRunSteps(null);
    setStepsError("");
    setSpans([]);
    setError("");
    aware.runs.getRun({ runId }).then((r) => setRun(r.run ?? null), (e) => setError(errorText(e)));
    aware.runs.getRunTrace({ runId }).then((r) => setSpans(r.spans), () => {});
    // The run's rich results and its steps come from its event log, read once.
    replay(runId).then(
      ({ transcript, events }) => {
        setTranscript(transcript);
        setRunSteps(steps(events));
      },
      (e) => {
        setTranscript({ items: [], status: RunStatus.UNSPECIFIED });
        setStepsError(errorText(e));
      },
    );
  }, [runId]);
  if (error) return <p className="error" role="alert">{error}</p>;
  if (!run) return <p className="muted">Loading…</p>;
  const chat = run.kind === RunKind.CHAT;
  const t = (s: Span, which: "start" | "end") => millis(which === "start" ? s.startTime : s.endTime);
  const t0 = Math.min(...spans.map((s) => t(s, "start")));
  const t1 = Math.max(...spans.map((s) => t(s, "end")));
  const width = Math.max(1, t1 - t0);
  const usage = usageText(run.usage);
  const shown = transcript && transcript.items.length > 0;
  return (
    <section aria-labelledby="run-title" className="inspector">
      <h1 id="run-title" className="run-question">{chat ? run.question : run.kind === RunKind.SQL ? "SQL query" : `Query plan — ${queryTitle(run)}`}</h1>
      <p className="muted">
        run <code>{run.runId}</code> · {run.createdAt ? timestampDate(run.createdAt).toLocaleString() : ""} ·{" "}
        <strong>{transcript && chat ? outcomeText({ ...transcript, status: run.status }) : runStatus(run)}</strong>
        {run.model ? <> · {run.model}</> : null}
        {usage ? <> · <span className="usage">{usage}</span></> : null}
      </p>
      {!chat && <SqlBlock sql={run.question} />}
      {chat && shown && (
        <div className="transcript">
          <TranscriptItems items={transcript.items} openDataset={openDataset} />
        </div>
      )}
      {chat && transcript && !shown && run.finalText && <Markdown className="answer" text={run.finalText} />}
      {!chat && run.resultSummary && <p>{run.resultSummary}</p>}
      {run.error && <p className="error">{run.error.message}</p>}
      {chat && stepsError && <p className="error" role="alert">Cannot read the run's steps: {stepsError}</p>}
      {chat && runSteps && <RunSteps list={runSteps} />}
      {spans.length > 0 && (
        <>
          <h2>Trace</h2>
          <ol className="timeline">
            {spans.map((s) => (
              <li key={s.spanId}>
                <span className="span-name">{s.kind} · {s.name}</span>
                <span className="span-bar" style={{ marginLeft: `${((t(s, "start") - t0) / width) * 100}%`, width: `${Math.max(0.5, ((t(s, "end") - t(s, "start")) / width) * 100)}%` }} />
                <span className="muted">{t(s, "end") - t(s, "start")} ms</span>
              </li>
            ))}
          </ol>
        </>
      )}
      {run.compiledSql && run.compiledSql !== run.question && (<><h2>SQL</h2><SqlBlock sql={run.compiledSql} /></>)}
    </section>
  );
}

function Settings() {
  const [caps, setCaps] = useState<GetCapabilitiesResponse | null>(null);
  const [error, setError] = useState("");
  const [theme, setTheme] = useState<Theme>(savedTheme);
  useEffect(() => {
    aware.chat.getCapabilities({}).then(setCaps, (e) => setError(errorText(e)));
  }, []);
  const pick = (t: Theme) => {
    setTheme(t);
    applyTheme(t, true);
  };
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <fieldset className="theme-picker">
        <legend>Theme</legend>
        {(["system", "light", "dark"] as const).map((t) => (
          <label key={t}>
            <input type="radio" name="theme" value={t} checked={theme === t} onChange={() => pick(t)} />
            {t === "system" ? "As the system" : t === "light" ? "Light" : "Dark"}
          </label>
        ))}
      </fieldset>
      {error && <p className="error" role="alert">{error}</p>}
      {!caps && !error && <p className="muted">Loading…</p>}
      {caps && (
        <>
          <dl>
            <dt>Server</dt><dd>aware {caps.serverVersion}</dd>
            <dt>Mode</dt><dd>{caps.mode}</dd>
            <dt>Sign-in</dt><dd>{caps.authMode}, role {caps.role}</dd>
            <dt>Model</dt><dd>{caps.modelProvider}</dd>
            <dt>Largest upload</dt><dd>{formatBytes(caps.maxUploadBytes)}</dd>
          </dl>
          <ToolsSettings caps={caps} />
        </>
      )}
    </section>
  );
}

/** What a tool may do, in words, from the server's policy: read only, or a change — asked first
 * (with a warning for the elevated tier) or not — and whether it can be undone. */
function toolRisk(t: ToolInfo): string {
  const r = t.risk;
  if (!r || r.readOnly) return "reads only";
  const asks = r.requiresConfirmation ? (r.tier === ConfirmationTier.ELEVATED ? "asks first, with a warning" : "asks first") : "changes without asking";
  return r.destructive ? `${asks} · cannot be undone` : asks;
}

/** The tools this caller's assistant may use, aware's own and each external MCP server's (with
 * the server's state and the scope each tool is granted under). */
function ToolsSettings({ caps }: { caps: GetCapabilitiesResponse }) {
  const builtin = caps.tools.filter((t) => t.provenance?.source !== "external");
  const row = (t: ToolInfo) => (
    <li key={t.name}>
      <strong>{t.title}</strong> <code>{t.name}</code> <span className="badge">{toolRisk(t)}</span>
      {t.provenance?.scope && <> <span className="badge">scope {t.provenance.scope}</span></>}
      <span className="tool-description"> — {t.description}</span>
    </li>
  );
  return (
    <>
      <h2>aware’s tools the assistant may use</h2>
      <ul className="tools">{builtin.map(row)}</ul>
      <h2 id="mcp-servers-title">External MCP servers</h2>
      {caps.externalServers.length === 0 && <p className="empty">None registered (<code>[[mcp.servers]]</code> in the configuration).</p>}
      {caps.externalServers.map((s) => {
        const tools = caps.tools.filter((t) => t.provenance?.source === "external" && t.provenance.serverId === s.id);
        return (
          <section key={s.id} className="mcp-server" aria-label={`MCP server ${s.id}`}>
            <h3>
              {s.id} <span className={`badge server-state ${s.state}`}>{s.state}</span>{" "}
              <span className="muted">{s.tools === 1 ? "1 tool" : `${s.tools} tools`}, {tools.length} for you</span>
            </h3>
            {s.detail && <p className="error">{s.detail}</p>}
            {tools.length > 0 && <ul className="tools">{tools.map(row)}</ul>}
          </section>
        );
      })}
    </>
  );
}
