// A run as people see it, built from its events alone — the same for a run streaming in the
// assistant, one reopened with its conversation and one in the run inspector: answer text
// (Markdown), a chip per tool call saying where it is, rich results, confirmation cards (with
// "Allow for 5 minutes", an import's file checklist and what a dataset change would touch),
// questions back with their options (`Clarification.tsx`), what went into or out of memory, where
// the answer's numbers came from, the documents' passages it cites (`Sources.tsx`), and an outcome
// in plain words.
import { Fragment, useEffect, useId, useRef, useState } from "react";
import {
  ConfirmationResolution,
  ConfirmationTier,
  DatasetFormat,
  EntryKind,
  RunStatus,
  ToolPhase,
  timestampDate,
  type ClarificationRequired,
  type ConfirmationRequired,
  type BlastRadius,
  type DatasetStatistics,
  type GroundedNumber,
  type Grounding,
  type ServerEvent,
  type SubmitConfirmationResponse,
  type ToolProvenance,
  type ToolResult,
  type Usage,
} from "@aware/client";
import { activityOf, aware, errorText, shownInAssistant, statusText } from "./api";
import { AccountChangeResult, DatasetChangeResult, SavedQueryChangeResult } from "./Changes";
import { ClarificationCard, UNANSWERED, type ClarificationEnd } from "./Clarification";
import { cellText, columnUnit, count, formatBytes, formatNumber, type Unit } from "./format";
import { Markdown, type TextMark } from "./Markdown";
import { ResultTable, ScrollBox } from "./ResultTable";
import { citationHandlers, citationMarks, documentKind, KnowledgeResult, passagesOf, passagesText, Snippet, Sources, useCitationLinks } from "./Sources";

export type Item =
  | { kind: "text"; id: string; text: string }
  | { kind: "tool"; id: string; name: string; title: string; phase: ToolPhase; from?: string }
  | { kind: "result"; id: string; result: ToolResult }
  | { kind: "denied"; id: string; reason: string; from?: string }
  | { kind: "confirm"; id: string; c: ConfirmationRequired; resolution?: ConfirmationResolution }
  /** A question back: which column (or value, or date) the words meant. */
  | { kind: "clarify"; id: string; q: ClarificationRequired; ended?: ClarificationEnd }
  /** A call a session grant allowed: no card was shown. */
  | { kind: "granted"; id: string }
  | { kind: "memory"; id: string; text: string; saved: boolean }
  /** Where the numbers of the run's answer (its last text) came from; it comes after that text. */
  | { kind: "grounding"; id: string; grounding: Grounding };

export interface Transcript {
  items: Item[];
  status: RunStatus;
  error?: string;
}

/** Folds one event into a run's transcript (events are de-duplicated upstream by seq). */
export function apply<T extends Transcript>(t: T, e: ServerEvent): T {
  const items = [...t.items];
  const p = e.payload;
  const tool = (id: string) => items.findIndex((x) => x.kind === "tool" && x.id === id);
  switch (p.case) {
    case "textDelta": {
      const last = items.findIndex((i) => i.kind === "text" && i.id === p.value.messageId);
      if (last >= 0) {
        const text = items[last] as Extract<Item, { kind: "text" }>;
        items[last] = { ...text, text: text.text + p.value.delta };
      } else items.push({ kind: "text", id: p.value.messageId, text: p.value.delta });
      break;
    }
    case "toolCallStarted":
      items.push({ kind: "tool", id: p.value.toolCallId, name: p.value.toolName, title: p.value.title, phase: ToolPhase.QUEUED, from: origin(p.value.provenance) });
      break;
    case "toolStatus": {
      const i = tool(p.value.toolCallId);
      if (i >= 0) items[i] = { ...(items[i] as Extract<Item, { kind: "tool" }>), phase: p.value.phase };
      break;
    }
    case "toolResult": {
      const i = tool(p.value.toolCallId);
      if (i >= 0) {
        const chip = items[i] as Extract<Item, { kind: "tool" }>;
        // A result replayed after a restart comes without its status event.
        if (!FINAL_PHASES.has(chip.phase)) items[i] = { ...chip, phase: p.value.isError ? ToolPhase.FAILED : ToolPhase.SUCCEEDED };
      }
      items.push({ kind: "result", id: p.value.toolCallId, result: p.value });
      break;
    }
    case "toolDenied":
      items.push({ kind: "denied", id: p.value.toolCallId, reason: p.value.reason, from: origin(p.value.provenance) });
      break;
    case "confirmationRequired":
      items.push({ kind: "confirm", id: p.value.confirmationId, c: p.value });
      break;
    case "confirmationResolved": {
      const i = items.findIndex((x) => x.kind === "confirm" && x.id === p.value.confirmationId);
      if (i >= 0) items[i] = { ...(items[i] as Extract<Item, { kind: "confirm" }>), resolution: p.value.resolution };
      else if (p.value.grantId) items.push({ kind: "granted", id: p.value.confirmationId });
      break;
    }
    case "clarificationRequired":
      items.push({ kind: "clarify", id: p.value.clarificationId, q: p.value });
      break;
    case "clarificationResolved": {
      const i = items.findIndex((x) => x.kind === "clarify" && x.id === p.value.clarificationId);
      const { resolution, choice, remembered } = p.value;
      if (i >= 0) items[i] = { ...(items[i] as Extract<Item, { kind: "clarify" }>), ended: { resolution, choice, remembered } };
      break;
    }
    case "memorySaved":
      items.push({ kind: "memory", id: `${p.value.memoryId}+`, text: p.value.text, saved: true });
      break;
    case "memoryForgotten":
      items.push({ kind: "memory", id: `${p.value.memoryId}-`, text: p.value.text, saved: false });
      break;
    case "grounding":
      items.push({ kind: "grounding", id: String(e.seq), grounding: p.value });
      break;
    case "runCompleted":
      return { ...t, items, status: p.value.status, error: p.value.error?.message };
  }
  return { ...t, items };
}

/** A run's transcript rebuilt from its event log (read page by page), the events it was built
 * from, and the last seq read. */
export async function replay(runId: string): Promise<{ transcript: Transcript; events: ServerEvent[]; lastSeq: bigint }> {
  const events: ServerEvent[] = [];
  let lastSeq = 0n;
  for (;;) {
    const page = await aware.runs.listRunEvents({ runId, afterSeq: lastSeq, limit: 1000 });
    events.push(...page.events);
    if (page.events.length === 0) break;
    lastSeq = page.events[page.events.length - 1].seq;
    if (lastSeq >= page.lastSeq) break;
  }
  return { transcript: events.reduce(apply, { items: [], status: RunStatus.UNSPECIFIED } as Transcript), events, lastSeq };
}

/** Where an external server's tool comes from, in words ("from everything · scope demo.read");
 *  nothing for aware's own tools. */
export function origin(p: ToolProvenance | undefined): string | undefined {
  if (!p || p.source !== "external") return undefined;
  return `from ${p.serverId}${p.scope ? ` · scope ${p.scope}` : ""}`;
}

const FINAL_PHASES = new Set([ToolPhase.SUCCEEDED, ToolPhase.FAILED, ToolPhase.DENIED, ToolPhase.EXPIRED, ToolPhase.CANCELLED]);

export function isActive(status: RunStatus): boolean {
  return status === RunStatus.RUNNING || status === RunStatus.AWAITING_CONFIRMATION || status === RunStatus.QUEUED;
}

/** A tool call's chip: where it is, in words that are true at that moment. A question back
 *  (`asks`) waits for an answer, not an approval, and a dismissed one denied nothing. */
function chip(item: Extract<Item, { kind: "tool" }>, asks = false): { text: string; className: string } {
  if (asks) {
    switch (item.phase) {
      case ToolPhase.AWAITING_CONFIRMATION:
        return { text: "Waiting for your answer", className: "waiting" };
      case ToolPhase.DENIED:
        return { text: UNANSWERED[ConfirmationResolution.DENIED]!, className: "stopped" };
      case ToolPhase.EXPIRED:
        return { text: UNANSWERED[ConfirmationResolution.EXPIRED]!, className: "stopped" };
    }
  }
  switch (item.phase) {
    case ToolPhase.AWAITING_CONFIRMATION:
      return { text: "Waiting for your approval", className: "waiting" };
    case ToolPhase.DENIED:
      return { text: "Denied — nothing changed", className: "stopped" };
    case ToolPhase.EXPIRED:
      return { text: "Expired — nothing changed", className: "stopped" };
    case ToolPhase.CANCELLED:
      return { text: "Cancelled", className: "stopped" };
    case ToolPhase.FAILED:
      return { text: `✗ ${item.title}`, className: "failed" };
    case ToolPhase.SUCCEEDED:
      return { text: `✓ ${item.title}`, className: "done" };
    default:
      return { text: activityOf(item.name) ?? `${item.title}…`, className: "active" };
  }
}

const RESOLVED: Record<ConfirmationResolution, string> = {
  [ConfirmationResolution.UNSPECIFIED]: "Answered",
  [ConfirmationResolution.APPROVED]: "Allowed",
  [ConfirmationResolution.DENIED]: "Denied — nothing changed",
  [ConfirmationResolution.EXPIRED]: "Expired — nothing changed",
  [ConfirmationResolution.CANCELLED]: "Cancelled — nothing changed",
  [ConfirmationResolution.SUPERSEDED]: "Superseded — nothing changed",
};

/** How a finished run ended, in words: a declined or lapsed confirmation, or a question back left
 *  unanswered, says so, not "succeeded". */
export function outcomeText(t: Transcript): string {
  if (isActive(t.status)) {
    if (t.items.some((i) => i.kind === "clarify" && i.ended === undefined)) return "Waiting for your answer";
    const waiting = t.status === RunStatus.AWAITING_CONFIRMATION || t.items.some((i) => i.kind === "tool" && i.phase === ToolPhase.AWAITING_CONFIRMATION);
    return waiting ? "Waiting for your approval" : "working…";
  }
  const confirms = t.items.filter((i): i is Extract<Item, { kind: "confirm" }> => i.kind === "confirm");
  const last = confirms[confirms.length - 1]?.resolution;
  if (t.status === RunStatus.SUCCEEDED && last !== undefined && last !== ConfirmationResolution.APPROVED) return RESOLVED[last];
  // A question back left unanswered, and no tool ran after it: the run computed nothing.
  const asked = t.items.map((i) => i.kind).lastIndexOf("clarify");
  const question = t.items[asked];
  const unanswered = question?.kind === "clarify" && question.ended ? UNANSWERED[question.ended.resolution] : undefined;
  if (t.status === RunStatus.SUCCEEDED && unanswered && !t.items.slice(asked + 1).some((i) => i.kind === "tool")) return unanswered;
  const status = RunStatus[t.status].toLowerCase().replace("_", " ");
  return t.error ? `${status} — ${t.error}` : status;
}

/** Token usage, only when a model was used (the offline planner calls none). */
export function usageText(u: Usage | undefined): string | undefined {
  if (!u) return undefined;
  const tokens = u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  if (u.modelCalls === 0 && tokens === 0n) return undefined;
  const calls = `${u.modelCalls} model call${u.modelCalls === 1 ? "" : "s"}`;
  return `${calls} · ${count(u.inputTokens)} in / ${count(u.outputTokens)} out tokens${u.partial ? " (estimated)" : ""}`;
}

/** Tool calls that ended without acting: their chip says so, and their result adds nothing. */
const STOPPED = new Set([ToolPhase.DENIED, ToolPhase.EXPIRED, ToolPhase.CANCELLED]);

/** A grounded number's tooltip: the tool result, the place in it and the value there. */
function sourceText(n: GroundedNumber): string {
  const s = n.source;
  if (!s) return "No tool result of this run holds this number";
  // The question (seq 0) is no tool's result: it has no tool name.
  return `From ${s.toolName ? `${s.toolName}, ` : ""}${s.location}: ${s.value}`;
}

/** The answer's numbers as marks on its text, grounded or not. Each is checked against the text it
 *  claims to be at, so a map that does not fit the text marks nothing rather than the wrong place. */
function numberMarks(text: string, g: Grounding | undefined): TextMark[] | undefined {
  if (!g) return undefined;
  const points = Array.from(text);
  return g.numbers
    .filter((n) => points.slice(n.start, n.end).join("") === n.text)
    .map((n) => ({ start: n.start, end: n.end, className: n.source ? "grounded" : "ungrounded", title: sourceText(n) }));
}

export function TranscriptItems({ items, openDataset }: { items: Item[]; openDataset: (id: string) => void }) {
  const stopped = new Set(items.filter((i) => i.kind === "tool" && STOPPED.has(i.phase)).map((i) => i.id));
  const asks = new Set(items.flatMap((i) => (i.kind === "clarify" ? [i.q.toolCallId] : [])));
  // The grounding's offsets are into the run's final answer: the last text.
  const grounding = items.find((i): i is Extract<Item, { kind: "grounding" }> => i.kind === "grounding")?.grounding;
  const answer = items.map((i) => i.kind).lastIndexOf("text");
  // The passages the run's document searches returned: its answer's sources and citations.
  const results = items.flatMap((i) => (i.kind === "result" ? [i.result] : []));
  const searched = results.some((r) => r.rich.case === "knowledge") || grounding?.citations !== undefined;
  const passages = passagesOf(results);
  const prefix = useId();
  const cited = useRef<HTMLDivElement>(null);
  useCitationLinks(cited);
  return (
    <>
      {items.map((item, at) => {
        if (item.kind === "result" && stopped.has(item.id) && item.result.rich.case === undefined) return null;
        switch (item.kind) {
          case "text": {
            if (at !== answer) return <Markdown key={"t" + item.id} className="answer" text={item.text} />;
            const citations = searched ? citationMarks(item.text, passages, grounding?.citations) : [];
            const marks = [...(numberMarks(item.text, grounding) ?? []), ...citations];
            const shown = <Markdown key={"t" + item.id} className="answer" text={item.text} marks={grounding || citations.length ? marks : undefined} />;
            // An answer citing passages: its citations open their sources below it.
            return citations.length ? (
              <div key={"t" + item.id} className="cited-answer" ref={cited} {...citationHandlers(prefix)}>{shown}</div>
            ) : shown;
          }
          case "grounding":
            return (
              <Fragment key={"n" + item.id}>
                {item.grounding.ungrounded > 0 && (
                  <p className="note ungrounded-note">
                    {item.grounding.ungrounded} number{item.grounding.ungrounded === 1 ? "" : "s"} in this answer could not be traced to a result.
                  </p>
                )}
                {item.grounding.citations && <Sources check={item.grounding.citations} passages={passages} prefix={prefix} openDataset={openDataset} />}
              </Fragment>
            );
          case "tool": {
            const c = chip(item, asks.has(item.id));
            return (
              <span key={"c" + item.id} className={`chip ${c.className}`}>
                {c.text}
                {item.from && <span className="provenance"> · {item.from}</span>}
              </span>
            );
          }
          case "result":
            return <RichResult key={"r" + item.id} result={item.result} openDataset={openDataset} />;
          case "denied":
            return (
              <p key={"d" + item.id} className="denied">
                Not allowed — {item.reason}
                {item.from && <span className="provenance"> ({item.from})</span>}
              </p>
            );
          case "confirm":
            return <RunConfirmCard key={"k" + item.id} c={item.c} resolution={item.resolution} />;
          case "clarify":
            return <ClarificationCard key={"q" + item.id} q={item.q} ended={item.ended} />;
          case "granted":
            return (
              <p key={"g" + item.id} className="note">
                Allowed without asking: you allowed this for a while (<a href="#/memory">Allowed for now</a>).
              </p>
            );
          case "memory":
            return (
              <p key={"m" + item.id} className="note memory-note">
                {item.saved ? "Remembered" : "Forgotten"}: “{item.text}” · <a href="#/memory">Memory</a>
              </p>
            );
        }
      })}
    </>
  );
}

export function RichResult({ result, openDataset }: { result: ToolResult; openDataset: (id: string) => void }) {
  const r = result.rich;
  switch (r.case) {
    case "table":
      return <ResultTable table={r.value} chart={result.chart} caption={result.toolName} expandable />;
    case "datasetList":
      return (
        <ScrollBox label="Datasets">
          <table className="datasets-result">
            <thead>
              <tr><th>Dataset</th><th className="num">Rows</th><th className="num">Columns</th><th /></tr>
            </thead>
            <tbody>
              {r.value.datasets.map((d) => (
                <tr key={d.id}>
                  <td>{d.tableName}{documentKind(d.format) && <span className="muted"> · {documentKind(d.format)}</span>}</td>
                  <td className="num">{documentKind(d.format) ? passagesText(d.rowCount) : count(d.rowCount)}</td>
                  <td className="num">{documentKind(d.format) ? "—" : d.columnCount}</td>
                  <td><button type="button" className="link" onClick={() => openDataset(d.id)}>Preview</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      );
    case "datasetDetail":
      return r.value.sample ? <ResultTable table={r.value.sample} chart={result.chart} caption={r.value.dataset?.tableName} expandable /> : null;
    case "statistics":
      return <StatisticsTable stats={r.value} />;
    case "external":
      return <ExternalResult serverId={r.value.serverId} tool={r.value.tool} json={r.value.resultJson} />;
    case "directoryListing":
      return (
        <ScrollBox label="Files">
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
        </ScrollBox>
      );
    case "importReport":
      return (
        <ul className="import-report">
          {r.value.files.map((f) => (
            <li key={f.path} className={f.error ? "error" : ""}>
              {f.dataset ? <>✓ {f.path} → <button type="button" className="link" onClick={() => openDataset(f.dataset!.id)}>{f.dataset.tableName}</button> ({count(f.dataset.rowCount)} rows)</> : <>✗ {f.path}: {f.error?.message}</>}
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
    case "datasetChange":
      return <DatasetChangeResult change={r.value} openDataset={openDataset} />;
    case "savedQueryChange":
      return <SavedQueryChangeResult change={r.value} />;
    case "accountChange":
      return <AccountChangeResult change={r.value} />;
    case "knowledge":
      return <KnowledgeResult hits={r.value} openDataset={openDataset} />;
    case "run":
      return <p className="muted">Run <a href={`#/runs/${r.value.runId}`}>{r.value.question || r.value.runId}</a> — {RunStatus[r.value.status].toLowerCase()}</p>;
    default:
      return result.isError && result.llmSummary ? <p className="error">{result.llmSummary}</p> : null;
  }
}

/** Every statistic the API gives, each number formatted for its column (money in its currency). */
export function StatisticsTable({ stats }: { stats: DatasetStatistics }) {
  const n = (x: number | undefined, unit: Unit) => (x === undefined ? "" : formatNumber(x, unit));
  return (
    <ScrollBox label={`statistics of ${stats.tableName}`}>
      <table className="statistics">
        <thead>
          <tr>
            <th scope="col">Column</th><th scope="col">Type</th><th scope="col" className="num">Missing</th><th scope="col" className="num">Distinct</th>
            <th scope="col" className="num">Min</th><th scope="col" className="num">Max</th><th scope="col" className="num">Mean</th><th scope="col" className="num">Median</th><th scope="col" className="num">Std dev</th>
          </tr>
        </thead>
        <tbody>
          {stats.columns.map((c) => {
            const unit = columnUnit(c.name);
            return (
              <tr key={c.name}>
                <td>{c.name}</td>
                <td>{c.type}</td>
                <td className="num">{count(c.nullCount)}</td>
                <td className="num">{count(c.distinctCount)}</td>
                <td className="num clip" title={c.min ? cellText(c.min) : ""}>{c.min ? cellText(c.min, unit) : ""}</td>
                <td className="num clip" title={c.max ? cellText(c.max) : ""}>{c.max ? cellText(c.max, unit) : ""}</td>
                <td className="num">{n(c.mean, unit)}</td>
                <td className="num">{n(c.median, unit)}</td>
                <td className="num">{n(c.stddev, unit)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollBox>
  );
}

/** A run's own card: the approvals list (`Approvals.tsx`) leaves it to this one. */
function RunConfirmCard({ c, resolution }: { c: ConfirmationRequired; resolution?: ConfirmationResolution }) {
  useEffect(() => void shownInAssistant.add(c.confirmationId), [c.confirmationId]);
  return <ConfirmCard c={c} resolution={resolution} />;
}

/** What a confirmation card needs: from a run's `ConfirmationRequired`, or a `PendingConfirmation`
 *  (which has no arguments). */
export type Confirmable = Pick<ConfirmationRequired, "confirmationId" | "description" | "tier" | "expiresAt" | "toolName" | "grantable"> &
  Partial<Pick<ConfirmationRequired, "argumentsJson" | "resolvedArgumentsJson" | "blastRadius">>;

/** The tools whose ELEVATED cards change who may use aware, and how. */
const ACCOUNT_TOOLS = new Set(["create_user", "change_user_role", "deactivate_user", "reactivate_user", "create_api_key"]);

/** An ELEVATED card's warning, true of what the call does: a delete or a revocation is final; an
 *  account change gives or takes away access. */
function caution(tool: string): string {
  if (tool.startsWith("delete_") || tool === "revoke_api_key") return "this cannot be undone";
  if (ACCOUNT_TOOLS.has(tool)) return "this changes who can use aware, and what they may do";
  return "read it carefully before you allow it";
}

/** How long "Allow for 5 minutes" lets calls of the same kind through without asking. */
const GRANT_MINUTES = 5;

/** An import's files when its card lists several (`{root, paths}`, as the server resolved the
 *  request — a folder and pattern become the files they list): the person may keep fewer. */
function importFiles(c: Confirmable): { root: string; paths: string[] } | undefined {
  const json = c.resolvedArgumentsJson || c.argumentsJson;
  if (c.toolName !== "import_files" || !json) return undefined;
  try {
    const args = JSON.parse(json) as { root?: unknown; paths?: unknown };
    const paths = Array.isArray(args.paths) && args.paths.every((p) => typeof p === "string") ? (args.paths as string[]) : [];
    return typeof args.root === "string" && paths.length > 1 ? { root: args.root, paths } : undefined;
  } catch {
    return undefined;
  }
}

export function ConfirmCard({ c, resolution }: { c: Confirmable; resolution?: ConfirmationResolution }) {
  const elevated = c.tier === ConfirmationTier.ELEVATED;
  const expires = c.expiresAt ? timestampDate(c.expiresAt).getTime() : Date.now();
  const [now, setNow] = useState(Date.now());
  const [sending, setSending] = useState(false);
  const [local, setLocal] = useState<ConfirmationResolution | undefined>();
  const [granted, setGranted] = useState(false);
  const [error, setError] = useState("");
  const files = importFiles(c);
  const [kept, setKept] = useState(() => new Set(files?.paths));
  const decided = resolution ?? local;
  useEffect(() => {
    if (decided !== undefined) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [decided]);
  const left = Math.max(0, Math.ceil((expires - now) / 1000));
  // Approving with files unticked sends only the kept ones; with all kept, the call as asked.
  const narrowed = files && kept.size < files.paths.length ? { root: files.root, paths: files.paths.filter((p) => kept.has(p)) } : undefined;
  const decide = async (answer: () => Promise<SubmitConfirmationResponse>) => {
    setSending(true);
    setError("");
    try {
      const r = await answer();
      setGranted(r.grantId !== "");
      setLocal(r.resolution);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setSending(false);
    }
  };
  const allow = () => (narrowed ? aware.approveWithEdits(c.confirmationId, narrowed) : aware.confirm(c.confirmationId, true));
  const toggle = (path: string) =>
    setKept((k) => {
      const next = new Set(k);
      if (!next.delete(path)) next.add(path);
      return next;
    });
  const none = files !== undefined && kept.size === 0;
  return (
    <div className={`card ${elevated ? "elevated" : "standard"}`} role="group" aria-label={elevated ? "Confirmation required (caution)" : "Confirmation required"}>
      {elevated && <strong className="caution">⚠ Caution: {caution(c.toolName)}</strong>}
      <Markdown text={c.description} />
      {c.blastRadius && <BlastRadiusNote b={c.blastRadius} />}
      {files && decided === undefined && (
        <fieldset className="files">
          <legend>Files to import</legend>
          {files.paths.map((p) => (
            <label key={p}>
              <input type="checkbox" checked={kept.has(p)} disabled={sending} onChange={() => toggle(p)} /> {p}
            </label>
          ))}
          {none && <p className="muted">Keep at least one file, or deny the import.</p>}
        </fieldset>
      )}
      {decided === undefined ? (
        <div className="actions">
          <button type="button" className="deny" disabled={sending} onClick={() => decide(() => aware.confirm(c.confirmationId, false))}>Deny</button>
          <button type="button" className={elevated ? "danger" : "allow"} disabled={sending || none} onClick={() => decide(allow)}>Allow</button>
          {c.grantable && (
            <button type="button" disabled={sending || none} onClick={() => decide(() => aware.allowFor(c.confirmationId, GRANT_MINUTES * 60, narrowed))}>
              Allow for {GRANT_MINUTES} minutes
            </button>
          )}
          <span className="muted" aria-live="off">{left > 0 ? `expires in ${left}s` : "expiring…"}</span>
        </div>
      ) : (
        <p className={`resolved ${decided === ConfirmationResolution.APPROVED ? "" : "stopped"}`}>
          {RESOLVED[decided]}
          {granted && decided === ConfirmationResolution.APPROVED && ` for ${GRANT_MINUTES} minutes`}
        </p>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </div>
  );
}

/** What approving a dataset change touches, as the server counted it when it asked. The approval is
 *  bound to that version, so the card says a changed dataset means nothing is done. */
function BlastRadiusNote({ b }: { b: BlastRadius }) {
  return (
    <div className="blast-radius">
      <p>
        It holds {count(b.rowCount)} row{b.rowCount === 1n ? "" : "s"} ({formatBytes(b.sizeBytes)}).
      </p>
      {b.savedQueries.length > 0 && <p>Verified queries that read it: {b.savedQueries.join(", ")}</p>}
      {b.derivedDatasets.length > 0 && <p>Saved datasets computed from it: {b.derivedDatasets.map((d) => d.displayName || d.id).join(", ")}</p>}
      <p className="muted">Approval applies to this version only; if the dataset changes first, nothing is done.</p>
    </div>
  );
}

/** An external MCP tool's result: its text content as text (never as HTML or Markdown: it is
 *  another server's data), anything else named by its kind. */
function ExternalResult({ serverId, tool, json }: { serverId: string; tool: string; json: string }) {
  let parts: string[] = [];
  try {
    const result = JSON.parse(json) as { content?: { type?: string; text?: string }[] };
    parts = (result.content ?? []).map((c) => (c.type === "text" ? (c.text ?? "") : `[${c.type ?? "content"}]`));
  } catch {
    parts = [json];
  }
  return (
    <figure className="external-result">
      <figcaption className="muted">{tool} · from the external server {serverId}</figcaption>
      <pre>{parts.join("\n")}</pre>
    </figure>
  );
}
