// The assistant panel: streamed answers, live tool activity, inline results, confirmation cards,
// a details drawer per run, "Reconnecting…" while the stream is down, and cancel. A conversation
// lasts: the shell keeps its thread in the URL, so a reload reopens it (its turns rebuilt from
// their event logs, a run still going followed again); the conversations panel lists, opens,
// renames and deletes them; a past question can be edited and resent on a copy of the
// conversation up to there (a fork; the original stays); each finished answer takes 👍 / 👎. On
// narrow screens the panel is a drawer over the page (opened from the shell), kept mounted so runs
// go on.
import { useCallback, useEffect, useRef, useState } from "react";
import { Code, ConnectError, RunStatus, timestampDate, type Feedback, type Run, type Thread } from "@aware/client";
import { aware, errorText } from "./api";
import { Conversations } from "./Conversations";
import { FeedbackButtons } from "./Feedback";
import { apply, isActive, outcomeText, replay, TranscriptItems, usageText, type Transcript } from "./RunView";
import { SqlBlock } from "./SqlBlock";

interface Turn extends Transcript {
  question: string;
  runId: string;
  feedback?: Feedback;
}

export function Assistant({
  current,
  onThread,
  threadId,
  heartbeatTimeoutMs,
  onChange,
  openDataset,
  open,
  onClose,
  onAttention,
}: {
  /** The conversation to show: its thread id, or "" for a new one. */
  current: string;
  /** Switches the shell to another conversation ("" starts a new one). */
  onThread: (threadId: string) => void;
  /** The thread the next message goes to (the shell's snapshot opens a new one). */
  threadId: () => Promise<string>;
  heartbeatTimeoutMs: number;
  /** Called when a run may have changed the user's data (a delete, an upload). */
  onChange: () => void;
  openDataset: (id: string) => void;
  /** Shown as a drawer (narrow screens only; wide screens always show the panel). */
  open: boolean;
  onClose: () => void;
  /** A run needs the person (a confirmation, a question back): the shell brings the panel into view. */
  onAttention: () => void;
}) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState("");
  const [reconnecting, setReconnecting] = useState(false);
  const [error, setError] = useState("");
  const [details, setDetails] = useState<Run | null>(null);
  const [loading, setLoading] = useState(false);
  const [loadedTitle, setLoadedTitle] = useState("");
  const [listOpen, setListOpen] = useState(false);
  const [threads, setThreads] = useState<Thread[] | null>(null);
  const [query, setQuery] = useState("");
  const [nextPage, setNextPage] = useState("");
  const [editing, setEditing] = useState<{ runId: string; text: string } | null>(null);
  const log = useRef<HTMLDivElement>(null);
  const listToggle = useRef<HTMLButtonElement>(null);
  const composer = useRef<HTMLFormElement>(null);
  /** The thread the log shows (null before the first), and what stops following its runs. */
  const shown = useRef<string | null>(null);
  const view = useRef(new AbortController());
  const busy = turns.some((t) => isActive(t.status));
  const title = threads?.find((t) => t.threadId === current)?.title || loadedTitle;

  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [turns]);

  const update = (runId: string, f: (t: Turn) => Turn) => setTurns((all) => all.map((t) => (t.runId === runId ? f(t) : t)));

  /** The first page of threads for `search`, or the next page of the list shown. A page that
   * arrives after the search changed is dropped. */
  const asked = useRef("");
  async function listThreads(pageToken = "", search = asked.current) {
    asked.current = search;
    try {
      const r = await aware.threads.listThreads({ pageSize: 50, pageToken, query: search });
      if (asked.current !== search) return;
      setThreads((all) => [...(pageToken ? all ?? [] : []), ...r.threads]);
      setNextPage(r.nextPageToken);
    } catch (e) {
      setError(errorText(e));
    }
  }

  /** Empties the log for `id` and stops following the runs shown before; `signal` ends with the view. */
  function show(id: string): AbortSignal {
    shown.current = id;
    view.current.abort();
    view.current = new AbortController();
    setTurns([]);
    setLoadedTitle("");
    setError("");
    setEditing(null);
    setReconnecting(false);
    setLoading(false);
    return view.current.signal;
  }

  /** A conversation's turns, each rebuilt from its run's event log; a run still going is followed. */
  async function load(id: string, signal: AbortSignal) {
    setLoading(true);
    try {
      const got = await aware.threads.getThread({ threadId: id });
      const rebuilt = await Promise.all(
        got.turns.map(async (t) => {
          const { transcript, lastSeq } = await replay(t.runId);
          // Until its RunCompleted, a run's status is the one GetThread read.
          const status = transcript.status === RunStatus.UNSPECIFIED ? t.status : transcript.status;
          return { turn: { ...transcript, status, question: t.userText, runId: t.runId, feedback: t.feedback }, lastSeq };
        }),
      );
      if (signal.aborted) return;
      setLoadedTitle(got.thread?.title ?? "");
      setTurns(rebuilt.map((r) => r.turn));
      for (const r of rebuilt) if (isActive(r.turn.status)) void follow(r.turn.runId, r.lastSeq, signal);
    } catch (e) {
      // A thread named by an old link that is gone: the conversation starts empty.
      if (!signal.aborted && ConnectError.from(e).code !== Code.NotFound) setError(errorText(e));
    } finally {
      if (!signal.aborted) setLoading(false);
    }
  }

  useEffect(() => {
    if (current === shown.current) return;
    const signal = show(current);
    if (current) void load(current, signal);
  }, [current]);

  useEffect(() => {
    if (listOpen) void listThreads("", query);
  }, [listOpen, query]);

  // ⌘K / Ctrl+K opens the conversations at their search box; Esc in the message box (or with
  // nothing focused) stops the answer being written.
  const stop = useCallback(() => turns.filter((t) => isActive(t.status)).forEach((t) => void aware.cancel(t.runId)), [turns]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() === "k" && (e.metaKey || e.ctrlKey) && !e.altKey) {
        e.preventDefault();
        onAttention();
        setListOpen(true);
        // Already open: take focus back to the search box.
        document.querySelector<HTMLInputElement>(".conversations input[type=search]")?.focus();
      } else if (e.key === "Escape" && busy && !e.defaultPrevented) {
        const target = e.target as HTMLElement | null;
        if (target === document.body || target?.id === "ask") stop();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [busy, stop, onAttention]);

  /** Follows a run to its end, folding its events into its turn (until the view changes). */
  async function follow(runId: string, afterSeq: bigint, signal: AbortSignal) {
    try {
      for await (const item of aware.runStream(runId, { heartbeatTimeoutMs, afterSeq, signal })) {
        if (item.kind === "reconnecting") setReconnecting(true);
        if (item.kind === "event" || item.kind === "heartbeat") setReconnecting(false);
        if (item.kind !== "event") continue;
        update(runId, (t) => apply(t, item.event));
        const p = item.event.payload;
        if (p.case === "confirmationRequired" || p.case === "clarificationRequired") onAttention();
        if (p.case === "toolResult" && p.value.rich.case === "deletedDataset") onChange();
      }
      if (signal.aborted) return;
      onChange();
      void listThreads();
    } catch (e) {
      if (signal.aborted) return;
      setReconnecting(false);
      setError(errorText(e));
    }
  }

  async function send(text: string) {
    setError("");
    const signal = view.current.signal;
    try {
      const sent = await aware.sendMessage(text, { threadId: await threadId() });
      if (signal.aborted) return;
      setTurns((all) => [...all, { question: text, runId: sent.runId, items: [], status: RunStatus.RUNNING }]);
      if (shown.current !== sent.threadId) {
        // The first message of a new conversation: the URL names its thread from now on.
        shown.current = sent.threadId;
        onThread(sent.threadId);
      }
      void listThreads();
      await follow(sent.runId, 0n, signal);
    } catch (e) {
      if (signal.aborted) return;
      setReconnecting(false);
      setError(errorText(e));
    }
  }

  /** Edit and resend: a copy of the conversation before `runId` gets the edited question. */
  async function resend(runId: string, text: string) {
    setError("");
    try {
      const fork = await aware.threads.forkThread({ runId });
      const id = fork.thread?.threadId;
      if (!id) throw new Error("the server made the copy but did not name it");
      const signal = show(id);
      onThread(id);
      await load(id, signal);
      if (!signal.aborted) await send(text);
    } catch (e) {
      setError(errorText(e));
    }
  }

  const closeList = () => {
    setListOpen(false);
    setQuery("");
    listToggle.current?.focus();
  };
  const openThread = (id: string) => {
    closeList();
    onThread(id);
  };

  return (
    <aside className={`assistant ${open ? "open" : ""}`} aria-label="Assistant">
      <header>
        <div className="heading">
          <h2>Assistant</h2>
          {title && <span className="muted current-title" title={title}>{title}</span>}
        </div>
        <span className="header-actions">
          {busy && (
            <button type="button" className="cancel" onClick={stop} title="Stop the answer (Esc)">
              Cancel
            </button>
          )}
          <button type="button" ref={listToggle} aria-expanded={listOpen} onClick={() => setListOpen((o) => !o)}>
            Conversations
          </button>
          <button type="button" className="close-assistant" onClick={onClose} aria-label="Close the assistant">×</button>
        </span>
      </header>
      {reconnecting && (
        <div className="banner" role="status">
          Reconnecting…
        </div>
      )}
      <div className="log" ref={log} aria-live="polite" aria-busy={loading}>
        {loading && <p className="muted">Opening the conversation…</p>}
        {!loading && turns.length === 0 && <p className="empty">Ask about your data: “what are my files?”, “average price by neighbourhood”, “what am I looking at?”.</p>}
        {turns.map((t) => (
          <section key={t.runId} className="turn" data-run-id={t.runId} data-status={RunStatus[t.status]}>
            {editing?.runId === t.runId ? (
              <form
                className="edit-question"
                onSubmit={(e) => {
                  e.preventDefault();
                  const text = editing.text.trim();
                  if (text) void resend(t.runId, text);
                }}
                onKeyDown={(e) => e.key === "Escape" && setEditing(null)}
              >
                <label htmlFor={`edit-${t.runId}`}>Edit your question</label>
                <textarea
                  id={`edit-${t.runId}`}
                  value={editing.text}
                  rows={2}
                  autoFocus
                  onChange={(e) => setEditing({ runId: t.runId, text: e.target.value })}
                  onKeyDown={(e) => {
                    if (e.key === "Enter" && !e.shiftKey) {
                      e.preventDefault();
                      e.currentTarget.form?.requestSubmit();
                    }
                  }}
                />
                <p className="muted">Sent in a copy of this conversation up to here; the original stays as it is.</p>
                <div className="actions">
                  <button type="button" onClick={() => setEditing(null)}>Cancel</button>
                  <button type="submit" className="allow" disabled={!editing.text.trim()}>Resend</button>
                </div>
              </form>
            ) : (
              <div className="question-row">
                {!isActive(t.status) && (
                  <button type="button" className="link edit" aria-label={`Edit and resend “${t.question}”`} onClick={() => setEditing({ runId: t.runId, text: t.question })}>
                    Edit
                  </button>
                )}
                <p className="question">{t.question}</p>
              </div>
            )}
            <TranscriptItems items={t.items} openDataset={openDataset} />
            <footer>
              <span className="muted outcome">{outcomeText(t)}</span>
              <span className="footer-actions">
                {!isActive(t.status) && <FeedbackButtons runId={t.runId} initial={t.feedback} />}
                <button type="button" className="link" onClick={async () => setDetails((await aware.runs.getRun({ runId: t.runId })).run ?? null)}>Details</button>
              </span>
            </footer>
          </section>
        ))}
        {error && <p className="error" role="alert">{error}</p>}
      </div>
      <form
        ref={composer}
        onSubmit={(e) => {
          e.preventDefault();
          const text = draft.trim();
          if (!text) return;
          setDraft("");
          void send(text);
        }}
      >
        <label htmlFor="ask" className="sr-only">Message</label>
        {/* Enter sends; Shift+Enter starts a new line (and Enter while an input method composes
            a word is the composition's). The box grows with its lines, up to six. */}
        <textarea
          id="ask"
          rows={Math.min(6, Math.max(1, draft.split("\n").length))}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              composer.current?.requestSubmit();
            }
          }}
          placeholder="Ask about your data…"
          title="Enter sends; Shift+Enter starts a new line"
          autoComplete="off"
        />
        <button type="submit" disabled={!draft.trim()}>Send</button>
      </form>
      {listOpen && (
        <Conversations
          threads={threads}
          more={nextPage !== ""}
          current={current}
          query={query}
          onSearch={setQuery}
          onOpen={openThread}
          onNew={() => openThread("")}
          onMore={() => void listThreads(nextPage, query)}
          onChanged={() => void listThreads()}
          onDeleted={(id) => {
            if (id === current) onThread("");
            void listThreads();
          }}
          onClose={closeList}
        />
      )}
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
        <dt>Run</dt><dd className="id"><a href={`#/runs/${run.runId}`} onClick={close}>{run.runId}</a></dd>
        <dt>Status</dt><dd>{RunStatus[run.status].toLowerCase()}</dd>
        <dt>Runtime</dt><dd>{ended ? `${ended - started} ms` : "running"}</dd>
        <dt>Model</dt><dd>{run.model || "—"}</dd>
        {usage && <><dt>Usage</dt><dd className="usage">{usage}</dd></>}
        <dt>Data</dt><dd>{run.datasets.map((d) => `${d.tableName} @ ${d.versionHash.slice(0, 12)}`).join(", ") || "—"}</dd>
        <dt>Plan</dt><dd><pre className="plan">{run.planJson ? pretty(run.planJson) : "—"}</pre></dd>
        <dt>SQL</dt><dd>{run.compiledSql ? <SqlBlock sql={run.compiledSql} /> : "—"}</dd>
        <dt>Result</dt><dd>{run.resultSummary || "—"}</dd>
      </dl>
    </div>
  );
}
