// Confirmations waiting for this person that no card in the conversation on screen shows: asked
// for by an MCP client's call (Claude Desktop, an IDE, another agent) or a chat in another tab.
// Each gets the same card as in the assistant; the first answer from anywhere wins. Polled while
// the app is open (ListPendingConfirmations). Once one leaves the list (answered here or
// elsewhere, or expired), its run is followed to its end, so what its tool changed is read again.
import { useEffect, useRef } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { PendingConfirmation } from "@aware/client";
import { aware } from "../lib/api";
import { AppLink } from "../lib/links";
import { invalidateAsRunGoes } from "../lib/queries/changes";
import { keys } from "../lib/queryKeys";
import { useConversation } from "../conversation/ConversationContext";
import { ConfirmCard } from "./ConfirmCard";

const POLL_MS = 2000;

export function Approvals() {
  const client = useQueryClient();
  const { confirmationIds } = useConversation();
  const { data } = useQuery({
    queryKey: keys.pendingConfirmations,
    queryFn: async () => (await aware.chat.listPendingConfirmations({})).confirmations,
    refetchInterval: POLL_MS,
  });
  const pending = (data ?? []).filter((c) => !confirmationIds.has(c.confirmationId));

  // The runs of the ones that left the list, followed until the page goes.
  const listed = useRef(new Map<string, PendingConfirmation>());
  const following = useRef<AbortController | null>(null);
  useEffect(() => {
    const stop = new AbortController();
    following.current = stop;
    return () => stop.abort();
  }, []);
  useEffect(() => {
    const signal = following.current?.signal;
    if (!data || !signal) return;
    const now = new Map(data.map((c) => [c.confirmationId, c]));
    for (const [id, c] of listed.current) {
      // The conversation on screen streams its own runs.
      if (!now.has(id) && !confirmationIds.has(id)) void invalidateAsRunGoes(client, c.runId, signal);
    }
    listed.current = now;
  }, [data, client, confirmationIds]);

  if (pending.length === 0) return null;
  return (
    <section className="approvals" aria-label="Waiting for your approval">
      <h2>Waiting for your approval</h2>
      {pending.map((c) => (
        <div key={c.confirmationId} className="approval">
          <p className="muted">
            {c.toolName} · asked in <AppLink to={`/runs/${c.runId}`}>run {c.runId}</AppLink>
          </p>
          <ConfirmCard c={c} />
        </div>
      ))}
    </section>
  );
}
