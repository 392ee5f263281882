// The assistant panel: the conversation's title, Cancel while an answer is being written, the
// conversations list, "Reconnecting…" while a stream is down, the turns (streamed answers, live
// tool activity, results, cards, a details sheet per run, 👍 / 👎) and the message box. The shell
// puts it beside the page (`AssistantAside`) or in a drawer over it (`AssistantDrawer`); its
// state is the conversation's (`ConversationProvider`), so either can come and go.
import { useEffect, useRef, useState, type ReactNode } from "react";
import * as Dialog from "@radix-ui/react-dialog";
import { useQuery } from "@tanstack/react-query";
import { threadQuery } from "../lib/queries/threads";
import { Tip } from "../ui/Tooltip";
import { useConversation } from "./ConversationContext";
import { ConversationsList } from "./ConversationsList";
import { MessageBox } from "./MessageBox";
import { SuggestedQuestions } from "./Suggestions";
import { Turn } from "./Turn";

export function AssistantPanel({ heading, close }: { heading: ReactNode; close?: ReactNode }) {
  const c = useConversation();
  const title = useQuery({ ...threadQuery(c.threadId), enabled: c.threadId !== "", select: (r) => r.thread?.title ?? "" }).data;
  // The turn whose question is being edited.
  const [editing, setEditing] = useState<string | null>(null);
  useEffect(() => setEditing(null), [c.threadId]);
  const log = useRef<HTMLDivElement>(null);
  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [c.turns]);
  const shownTitle = c.threadId ? (title ?? "") : "New conversation";
  return (
    <Dialog.Root modal={false} open={c.listOpen} onOpenChange={c.setListOpen}>
      <header className="assistant-header">
        <div className="heading">
          {heading}
          <span className="muted current-title" title={shownTitle}>{shownTitle}</span>
        </div>
        <span className="header-actions">
          {c.busy && (
            <Tip text="Stop the answer (Esc)">
              <button type="button" className="cancel" onClick={c.stop}>Cancel</button>
            </Tip>
          )}
          <Dialog.Trigger className="conversations-toggle">Conversations</Dialog.Trigger>
          {close}
        </span>
      </header>
      <div className="log-area">
        {/* Over the log, not above it: the turns do not move when it comes and goes. */}
        {c.reconnecting && <div className="banner" role="status">Reconnecting…</div>}
        <div className="log" ref={log} aria-live="polite" aria-busy={c.loading}>
          {c.loading && <p className="muted">Opening the conversation…</p>}
          {!c.loading && c.turns.length === 0 && (
            <>
              <p className="empty">Ask about your data: “what are my files?”, “what am I looking at?”, or a question of your own.</p>
              <SuggestedQuestions busy={c.busy} ask={c.send} />
            </>
          )}
          {c.turns.map((t, i) => (
            <Turn
              key={t.runId}
              turn={t}
              latest={i === c.turns.length - 1}
              editing={editing === t.runId}
              busy={c.busy}
              onEdit={(on) => setEditing(on ? t.runId : null)}
              onResend={(text) => c.resend(t.runId, text)}
              onRetry={() => c.send(t.question)}
              onAsk={c.send}
            />
          ))}
          {c.error && <p className="error" role="alert">{c.error}</p>}
        </div>
        {c.listOpen && <ConversationsList />}
      </div>
      <MessageBox />
    </Dialog.Root>
  );
}
