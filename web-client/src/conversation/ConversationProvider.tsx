// Keeps the conversation on screen for the whole app: streamed answers folded into turns, live
// tool activity, "Reconnecting…" while a stream is down, cancel, and what runs change in the
// server state (each event invalidates the queries it made stale). A conversation lasts: its
// thread is in the URL (`?thread=`), so a reload reopens it — its turns rebuilt from their event
// logs, a run still going followed again from its last seq (no event twice). The URL follows the
// conversation, not the other way round: Back and Forward move between pages and leave the
// conversation as it is.
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useLocation, useNavigate } from "react-router";
import { useQueryClient } from "@tanstack/react-query";
import { RunStatus } from "@aware/client";
import { aware, errorText, HEARTBEAT_TIMEOUT_MS, isNotFound } from "../lib/api";
import { invalidateAfter } from "../lib/queries/changes";
import { threadQuery, useForkThread } from "../lib/queries/threads";
import { keys } from "../lib/queryKeys";
import { apply, isActive, replay } from "../lib/transcript";
import { ConversationContext, type Conversation, type Turn } from "./ConversationContext";
import { useSnapshots } from "./useSnapshots";

export function ConversationProvider({ onAttention, children }: { onAttention: () => void; children: ReactNode }) {
  const client = useQueryClient();
  const location = useLocation();
  const navigate = useNavigate();
  // The conversation on screen ("" = a new one), first as the URL names it.
  const [current, setCurrent] = useState(() => new URLSearchParams(location.search).get("thread") ?? "");
  const currentNow = useRef(current);
  const { snapshot, threadId } = useSnapshots(currentNow);
  const fork = useForkThread();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [loading, setLoading] = useState(false);
  const [reconnecting, setReconnecting] = useState(false);
  const [error, setError] = useState("");
  const [draft, setDraft] = useState("");
  const [listOpen, setListOpen] = useState(false);
  /** The thread the turns show (null before the first), and what stops following its runs. */
  const shown = useRef<string | null>(null);
  const view = useRef(new AbortController());
  const attention = useRef(onAttention);
  attention.current = onAttention;
  const busy = turns.some((t) => isActive(t.status));

  // The URL names the conversation on screen: after a switch, and after a navigation that left
  // it out (Back to a page visited during another conversation).
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    if ((params.get("thread") ?? "") === current) return;
    if (current) params.set("thread", current);
    else params.delete("thread");
    const search = params.toString();
    navigate({ pathname: location.pathname, search: search ? `?${search}` : "", hash: location.hash }, { replace: true, state: location.state, preventScrollReset: true });
  }, [current, location, navigate]);

  // Switching conversations tells aware at once where the user is in the one now on screen.
  const open = useCallback(
    (id: string) => {
      currentNow.current = id;
      setCurrent(id);
      snapshot(id);
    },
    [snapshot],
  );

  const update = (runId: string, f: (t: Turn) => Turn) => setTurns((all) => all.map((t) => (t.runId === runId ? f(t) : t)));

  /** Empties the turns for `id` and stops following the runs shown before; the signal ends with the view. */
  function show(id: string): AbortSignal {
    shown.current = id;
    view.current.abort();
    view.current = new AbortController();
    setTurns([]);
    setError("");
    setReconnecting(false);
    setLoading(false);
    return view.current.signal;
  }

  /** Follows a run to its end, folding its events into its turn (until the view changes). */
  async function follow(runId: string, afterSeq: bigint, signal: AbortSignal) {
    try {
      for await (const item of aware.runStream(runId, { heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS, afterSeq, signal })) {
        if (item.kind === "reconnecting") setReconnecting(true);
        if (item.kind === "event" || item.kind === "heartbeat") setReconnecting(false);
        if (item.kind !== "event") continue;
        update(runId, (t) => apply(t, item.event));
        invalidateAfter(client, item.event);
        const p = item.event.payload;
        if (p.case === "confirmationRequired" || p.case === "clarificationRequired") attention.current();
      }
    } catch (e) {
      if (signal.aborted) return;
      setReconnecting(false);
      setError(errorText(e));
    }
  }

  /** A conversation's turns, each rebuilt from its run's event log; a run still going is followed. */
  async function load(id: string, signal: AbortSignal) {
    setLoading(true);
    try {
      const got = await client.fetchQuery(threadQuery(id));
      const rebuilt = await Promise.all(
        got.turns.map(async (t) => {
          const { transcript, lastSeq } = await replay(t.runId);
          // Until its RunCompleted, a run's status is the one GetThread read.
          const status = transcript.status === RunStatus.UNSPECIFIED ? t.status : transcript.status;
          return { turn: { ...transcript, status, question: t.userText, runId: t.runId, feedback: t.feedback }, lastSeq };
        }),
      );
      if (signal.aborted) return;
      setTurns(rebuilt.map((r) => r.turn));
      for (const r of rebuilt) if (isActive(r.turn.status)) void follow(r.turn.runId, r.lastSeq, signal);
    } catch (e) {
      // A thread named by an old link that is gone: the conversation starts empty.
      if (!signal.aborted && !isNotFound(e)) setError(errorText(e));
    } finally {
      if (!signal.aborted) setLoading(false);
    }
  }

  useEffect(() => {
    if (current === shown.current) return;
    const signal = show(current);
    if (current) void load(current, signal);
  }, [current]);

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
        open(sent.threadId);
      }
      void client.invalidateQueries({ queryKey: keys.threads.all });
      await follow(sent.runId, 0n, signal);
    } catch (e) {
      if (signal.aborted) return;
      setReconnecting(false);
      setError(errorText(e));
    }
  }

  async function resend(runId: string, text: string) {
    setError("");
    try {
      const id = await fork.mutateAsync(runId);
      const signal = show(id);
      open(id);
      await load(id, signal);
      if (!signal.aborted) await send(text);
    } catch (e) {
      setError(errorText(e));
    }
  }

  const stop = useCallback(() => turns.filter((t) => isActive(t.status)).forEach((t) => void aware.cancel(t.runId)), [turns]);

  // ⌘K / Ctrl+K opens the conversations at their search box, from anywhere; Esc in the message
  // box (or with nothing focused) stops the answer being written.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() === "k" && (e.metaKey || e.ctrlKey) && !e.altKey) {
        e.preventDefault();
        attention.current();
        setListOpen(true);
        // Already open: take the focus back to the search box.
        document.querySelector<HTMLInputElement>(".conversations input[type=search]")?.focus();
      } else if (e.key === "Escape" && busy && !e.defaultPrevented) {
        const target = e.target as HTMLElement | null;
        if (target === document.body || target?.id === "ask") stop();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [busy, stop]);

  const confirmationIds = useMemo(
    () => new Set(turns.flatMap((t) => t.items.flatMap((i) => (i.kind === "confirm" ? [i.id] : [])))),
    [turns],
  );

  const value: Conversation = {
    threadId: current,
    turns,
    loading,
    reconnecting,
    error,
    busy,
    draft,
    setDraft,
    send: (text) => void send(text),
    resend: (runId, text) => void resend(runId, text),
    stop,
    open,
    listOpen,
    setListOpen,
    confirmationIds,
  };
  return <ConversationContext.Provider value={value}>{children}</ConversationContext.Provider>;
}
