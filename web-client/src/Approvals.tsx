// Confirmations waiting for this person that no card on this page shows: asked for by an MCP
// client's call (Claude Desktop, an IDE, another agent) or a chat in another tab. Each gets the
// same card as in the assistant; the first answer from anywhere wins. Polled while the app is
// open (ListPendingConfirmations).
import { useEffect, useState } from "react";
import type { PendingConfirmation } from "@aware/client";
import { aware, shownInAssistant } from "./api";
import { ConfirmCard } from "./RunView";

const POLL_MS = 2000;

/** `onAnswered`: one left the list (answered here or elsewhere, or expired): what it acted on may
 *  have changed. */
export function Approvals({ onAnswered }: { onAnswered: () => void }) {
  const [pending, setPending] = useState<PendingConfirmation[]>([]);
  useEffect(() => {
    let stopped = false;
    let shown = new Set<string>();
    const load = async () => {
      try {
        const { confirmations } = await aware.chat.listPendingConfirmations({});
        if (stopped) return;
        const now = confirmations.filter((c) => !shownInAssistant.has(c.confirmationId));
        const ids = new Set(now.map((c) => c.confirmationId));
        if ([...shown].some((id) => !ids.has(id))) onAnswered();
        shown = ids;
        setPending(now);
      } catch {
        // the next poll tries again; the rest of the app shows connection problems
      }
    };
    void load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [onAnswered]);
  if (pending.length === 0) return null;
  return (
    <section className="approvals" aria-label="Waiting for your approval">
      <h2>Waiting for your approval</h2>
      {pending.map((c) => (
        <div key={c.confirmationId} className="approval">
          <p className="muted">
            {c.toolName} · asked in <a href={`#/runs/${c.runId}`}>run {c.runId}</a>
          </p>
          <ConfirmCard c={c} />
        </div>
      ))}
    </section>
  );
}
