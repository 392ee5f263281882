// The app shell: routes (Datasets, Dataset detail, Runs, Run inspector, Settings) and the assistant
// panel on every page. Every route change, dataset selection, upload and delete sends a
// StateSnapshot, so aware knows where the user is.
import { useCallback, useEffect, useRef, useState } from "react";
import {
  timestampDate,
  DatasetStatus,
  SearchIndexState,
  type Dataset,
  type SearchIndex,
  type DatasetStatistics,
  type GetCapabilitiesResponse,
  type Run,
  type Span,
  type Table,
} from "@aware/client";
import { aware, errorText, formatBytes, searchText, statusText } from "./api";
import { Assistant } from "./Assistant";
import { ResultTable } from "./ResultTable";
import { RunStatus } from "@aware/client";

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

export function App() {
  const route = useRoute();
  const [datasets, setDatasets] = useState<Dataset[] | null>(null);
  const [loadError, setLoadError] = useState("");
  const thread = useRef<Promise<string> | null>(null);
  const version = useRef(BigInt(Date.now()) * 1000n);

  const refresh = useCallback(async () => {
    try {
      setDatasets((await aware.datasets.listDatasets({})).datasets);
      setLoadError("");
    } catch (e) {
      setLoadError(errorText(e));
    }
  }, []);
  useEffect(() => void refresh(), [refresh]);

  const activeDatasetId = route.startsWith("/datasets/") ? route.slice("/datasets/".length) : "";

  // The snapshot: where the user is and what they see. The first one opens the thread.
  useEffect(() => {
    if (datasets === null) return;
    version.current += 1n;
    const snapshot = {
      uiStateVersion: version.current,
      currentRoute: route,
      activeDatasetId,
      datasets: datasets.map((d) => ({ id: d.id, name: d.tableName, rowCount: d.rowCount, status: d.status })),
    };
    const previous = thread.current;
    thread.current = (async () => {
      const threadId = previous ? await previous.catch(() => "") : "";
      const r = await aware.updateState({ ...snapshot, threadId });
      return r.threadId;
    })();
  }, [route, activeDatasetId, datasets]);
  const threadId = useCallback(async () => (thread.current ? thread.current : ""), []);

  const open = (path: string) => {
    window.location.hash = path;
  };
  let page;
  if (route.startsWith("/datasets/")) page = <DatasetDetail id={activeDatasetId} datasets={datasets} onDeleted={() => { void refresh(); open("/datasets"); }} />;
  else if (route.startsWith("/runs/")) page = <RunInspector runId={route.slice("/runs/".length)} />;
  else if (route === "/runs") page = <Runs />;
  else if (route === "/settings") page = <Settings />;
  else page = <Datasets datasets={datasets} error={loadError} onUploaded={refresh} />;

  return (
    <div className="app">
      <nav aria-label="Main">
        <span className="brand">aware</span>
        <a href="#/datasets" aria-current={route.startsWith("/datasets") ? "page" : undefined}>Datasets</a>
        <a href="#/runs" aria-current={route.startsWith("/runs") ? "page" : undefined}>Runs</a>
        <a href="#/settings" aria-current={route === "/settings" ? "page" : undefined}>Settings</a>
      </nav>
      <main>{page}</main>
      <Assistant threadId={threadId} heartbeatTimeoutMs={HEARTBEAT_TIMEOUT_MS} onChange={refresh} openDataset={(id) => open(`/datasets/${id}`)} />
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
      onUploaded();
    } catch (e) {
      setUploadError(errorText(e));
    } finally {
      setProgress(null);
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
          Drop a CSV, TSV, Parquet, JSON or NDJSON file here, or{" "}
          <input type="file" aria-label="Upload a dataset file" onChange={(e) => { const f = e.target.files?.[0]; if (f) void upload(f); e.target.value = ""; }} />
        </label>
        {progress !== null && <progress value={progress} max={1} aria-label="Upload progress" />}
        {uploadError && <p className="error" role="alert">{uploadError}</p>}
      </div>
      {error && <p className="error" role="alert">Cannot load datasets: {error}</p>}
      {datasets === null && !error && <p className="muted">Loading…</p>}
      {datasets?.length === 0 && <p className="empty">No datasets yet — upload a file to start.</p>}
      {datasets && datasets.length > 0 && (
        <table className="datasets">
          <thead>
            <tr><th>Name</th><th>Table</th><th>Status</th><th className="num">Rows</th><th className="num">Columns</th><th className="num">Size</th></tr>
          </thead>
          <tbody>
            {datasets.map((d) => (
              <tr key={d.id}>
                <td><a href={`#/datasets/${d.id}`}>{d.name}</a></td>
                <td><code>{d.tableName}</code></td>
                <td className={`status ${statusText(d)}`}>{statusText(d)}</td>
                <td className="num">{d.rowCount.toLocaleString()}</td>
                <td className="num">{d.columnCount}</td>
                <td className="num">{formatBytes(d.sizeBytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function DatasetDetail({ id, datasets, onDeleted }: { id: string; datasets: Dataset[] | null; onDeleted: () => void }) {
  const dataset = datasets?.find((d) => d.id === id);
  const [preview, setPreview] = useState<Table | null>(null);
  const [stats, setStats] = useState<DatasetStatistics | null>(null);
  const [error, setError] = useState("");
  const [index, setIndex] = useState<SearchIndex | undefined>(undefined);
  // The search index is built in the background: follow it until it settles.
  useEffect(() => {
    setIndex(undefined);
    if (!id) return;
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
  }, [id]);
  useEffect(() => {
    setPreview(null);
    setStats(null);
    setError("");
    if (!id) return;
    aware.datasets.previewRows({ datasetId: id, limit: 20 }).then((r) => setPreview(r.table ?? null), (e) => setError(errorText(e)));
    aware.datasets.getDatasetStatistics({ datasetId: id }).then((r) => setStats(r.statistics ?? null), () => {});
  }, [id]);
  if (datasets && !dataset) return <p className="error">This dataset does not exist (any more). <a href="#/datasets">Back to datasets</a></p>;
  if (!dataset) return <p className="muted">Loading…</p>;
  const remove = async () => {
    if (!window.confirm(`Delete ${dataset.tableName} (${dataset.rowCount} rows)? This cannot be undone.`)) return;
    try {
      await aware.datasets.deleteDataset({ datasetId: dataset.id });
      onDeleted();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <section aria-labelledby="dataset-title">
      <h1 id="dataset-title">{dataset.name}</h1>
      <p className="muted">
        table <code>{dataset.tableName}</code> · {statusText(dataset)} · {dataset.rowCount.toLocaleString()} rows · {formatBytes(dataset.sizeBytes)}
        {(index ?? dataset.searchIndex) ? <> · <span className="search-state">search: {searchText((index ?? dataset.searchIndex)!)}</span></> : null}
        {" · "}<button type="button" className="danger" onClick={remove}>Delete dataset</button>
      </p>
      {error && <p className="error" role="alert">{error}</p>}
      <h2>Schema</h2>
      <ul className="schema">{dataset.columns.map((c) => <li key={c.name}><code>{c.name}</code> <span className="muted">{c.type}</span></li>)}</ul>
      <h2>Preview</h2>
      {preview ? <ResultTable table={preview} caption={dataset.tableName} /> : <p className="muted">Loading…</p>}
      <h2>Statistics</h2>
      {stats ? (
        <div className="table-scroll">
          <table>
            <thead><tr><th>Column</th><th>Type</th><th className="num">Missing</th><th className="num">Distinct</th><th className="num">Mean</th></tr></thead>
            <tbody>{stats.columns.map((c) => <tr key={c.name}><td>{c.name}</td><td>{c.type}</td><td className="num">{String(c.nullCount)}</td><td className="num">{String(c.distinctCount)}</td><td className="num">{c.mean?.toFixed(2) ?? ""}</td></tr>)}</tbody>
          </table>
        </div>
      ) : <p className="muted">Loading…</p>}
    </section>
  );
}

function Runs() {
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    aware.runs.listRuns({ pageSize: 50 }).then((r) => setRuns(r.runs), (e) => setError(errorText(e)));
  }, []);
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      {error && <p className="error" role="alert">{error}</p>}
      {runs?.length === 0 && <p className="empty">No runs yet — ask the assistant something.</p>}
      {runs && runs.length > 0 && (
        <table>
          <thead><tr><th>When</th><th>Question</th><th>Status</th></tr></thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.runId}>
                <td>{r.createdAt ? timestampDate(r.createdAt).toLocaleString() : ""}</td>
                <td><a href={`#/runs/${r.runId}`}>{r.question}</a></td>
                <td>{RunStatus[r.status].toLowerCase()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function RunInspector({ runId }: { runId: string }) {
  const [run, setRun] = useState<Run | null>(null);
  const [spans, setSpans] = useState<Span[]>([]);
  const [error, setError] = useState("");
  useEffect(() => {
    aware.runs.getRun({ runId }).then((r) => setRun(r.run ?? null), (e) => setError(errorText(e)));
    aware.runs.getRunTrace({ runId }).then((r) => setSpans(r.spans), () => {});
  }, [runId]);
  if (error) return <p className="error" role="alert">{error}</p>;
  if (!run) return <p className="muted">Loading…</p>;
  const t = (s: Span, which: "start" | "end") => (s[which === "start" ? "startTime" : "endTime"] ? timestampDate(s[which === "start" ? "startTime" : "endTime"]!).getTime() : 0);
  const t0 = Math.min(...spans.map((s) => t(s, "start")));
  const t1 = Math.max(...spans.map((s) => t(s, "end")));
  const width = Math.max(1, t1 - t0);
  return (
    <section aria-labelledby="run-title">
      <h1 id="run-title">Run {run.runId}</h1>
      <p>{run.question} — <strong>{RunStatus[run.status].toLowerCase()}</strong></p>
      {run.finalText && <blockquote>{run.finalText}</blockquote>}
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
      {run.compiledSql && (<><h2>SQL</h2><pre className="sql">{run.compiledSql}</pre></>)}
    </section>
  );
}

function Settings() {
  const [caps, setCaps] = useState<GetCapabilitiesResponse | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    aware.chat.getCapabilities({}).then(setCaps, (e) => setError(errorText(e)));
  }, []);
  if (error) return <p className="error" role="alert">{error}</p>;
  if (!caps) return <p className="muted">Loading…</p>;
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <dl>
        <dt>Server</dt><dd>aware {caps.serverVersion}</dd>
        <dt>Mode</dt><dd>{caps.mode}</dd>
        <dt>Sign-in</dt><dd>{caps.authMode}, role {caps.role}</dd>
        <dt>Model</dt><dd>{caps.modelProvider}</dd>
        <dt>Largest upload</dt><dd>{formatBytes(caps.maxUploadBytes)}</dd>
      </dl>
      <h2>Tools the assistant may use</h2>
      <ul>{caps.tools.map((t) => <li key={t.name}><strong>{t.title}</strong> — {t.description}</li>)}</ul>
    </section>
  );
}
