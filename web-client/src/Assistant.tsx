// The assistant panel: streamed answers, live tool activity, inline results, confirmation cards,
// a details drawer per run, "Reconnecting…" while the stream is down, and cancel. On narrow
// screens it is a drawer over the page (opened from the shell), kept mounted so runs go on.
import { useEffect, useRef, useState } from "react";
import { RunStatus, timestampDate, type Run } from "@aware/client";
import { aware, errorText } from "./api";
import { apply, isActive, outcomeText, TranscriptItems, usageText, type Transcript } from "./RunView";

interface Turn extends Transcript {
  question: string;
  runId: string;
}

export function Assistant({
  threadId,
  heartbeatTimeoutMs,
  onChange,
  openDataset,
  open,
  onClose,
  onAttention,
}: {
  threadId: () => Promise<string>;
  heartbeatTimeoutMs: number;
  /** Called when a run may have changed the user's data (a delete, an upload). */
  onChange: () => void;
  openDataset: (id: string) => void;
  /** Shown as a drawer (narrow screens only; wide screens always show the panel). */
  open: boolean;
  onClose: () => void;
  /** A run needs the person (a confirmation): the shell brings the panel into view. */
  onAttention: () => void;
}) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState("");
  const [reconnecting, setReconnecting] = useState(false);
  const [error, setError] = useState("");
  const [details, setDetails] = useState<Run | null>(null);
  const log = useRef<HTMLDivElement>(null);
  const busy = turns.some((t) => isActive(t.status));

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
        const p = item.event.payload;
        if (p.case === "confirmationRequired") onAttention();
        if (p.case === "toolResult" && p.value.rich.case === "deletedDataset") onChange();
      }
      onChange();
    } catch (e) {
      setReconnecting(false);
      setError(errorText(e));
    }
  }

  return (
    <aside className={`assistant ${open ? "open" : ""}`} aria-label="Assistant">
      <header>
        <h2>Assistant</h2>
        <span className="header-actions">
          {busy && (
            <button type="button" className="cancel" onClick={() => turns.filter((t) => isActive(t.status)).forEach((t) => aware.cancel(t.runId))}>
              Cancel
            </button>
          )}
          <button type="button" className="close-assistant" onClick={onClose} aria-label="Close the assistant">×</button>
        </span>
      </header>
      {reconnecting && (
        <div className="banner" role="status">
          Reconnecting…
        </div>
      )}
      <div className="log" ref={log} aria-live="polite">
        {turns.length === 0 && <p className="empty">Ask about your data: “what are my files?”, “average price by neighbourhood”, “what am I looking at?”.</p>}
        {turns.map((t) => (
          <section key={t.runId} className="turn" data-run-id={t.runId} data-status={RunStatus[t.status]}>
            <p className="question">{t.question}</p>
            <TranscriptItems items={t.items} openDataset={openDataset} />
            <footer>
              <span className="muted outcome">{outcomeText(t)}</span>
              <button type="button" className="link" onClick={async () => setDetails((await aware.runs.getRun({ runId: t.runId })).run ?? null)}>Details</button>
            </footer>
          </section>
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

/** A JSON text laid out for reading (the plan as the server stored it when it is not JSON). */
function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function Details({ run, close }: { run: Run; close: () => void }) {
  const started = run.createdAt ? timestampDate(run.createdAt).getTime() : 0;
  const ended = run.completedAt ? timestampDate(run.completedAt).getTime() : 0;
  const usage = usageText(run.usage);
  return (
    <div className="drawer" role="dialog" aria-label="Run details">
      <header>
        <h3>Run details</h3>
        <button type="button" onClick={close} aria-label="Close details">×</button>
      </header>
      <dl>
        <dt>Run</dt><dd className="id"><a href={`#/runs/${run.runId}`}>{run.runId}</a></dd>
        <dt>Status</dt><dd>{RunStatus[run.status].toLowerCase()}</dd>
        <dt>Runtime</dt><dd>{ended ? `${ended - started} ms` : "running"}</dd>
        <dt>Model</dt><dd>{run.model || "—"}</dd>
        {usage && <><dt>Usage</dt><dd className="usage">{usage}</dd></>}
        <dt>Data</dt><dd>{run.datasets.map((d) => `${d.tableName} @ ${d.versionHash.slice(0, 12)}`).join(", ") || "—"}</dd>
        <dt>Plan</dt><dd><pre className="plan">{run.planJson ? pretty(run.planJson) : "—"}</pre></dd>
        <dt>SQL</dt><dd><pre className="sql">{run.compiledSql || "—"}</pre></dd>
        <dt>Result</dt><dd>{run.resultSummary || "—"}</dd>
      </dl>
    </div>
  );
}
