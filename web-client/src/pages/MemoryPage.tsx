// The Memory page: the facts aware keeps for this person (from "remember that …" in a
// conversation, or added here), each with when and where it came from, to add or forget; and
// "Allowed for now", the session grants ("Allow for 5 minutes") still in force, to revoke.
import { useState } from "react";
import { timestampDate } from "@aware/client";
import { errorText } from "../lib/api";
import { whenText } from "../lib/format";
import { AppLink } from "../lib/links";
import { usePageTitle } from "../lib/pageTitle";
import { useToolWords } from "../lib/queries/capabilities";
import { useAddMemory, useForgetMemory, useGrants, useMemories, useRevokeGrant } from "../lib/queries/memory";

export function MemoryPage() {
  usePageTitle("Memory");
  const memories = useMemories();
  const grants = useGrants();
  const add = useAddMemory();
  const forget = useForgetMemory();
  const revoke = useRevokeGrant();
  const tools = useToolWords();
  const [draft, setDraft] = useState("");
  const failed = [memories, grants, add, forget, revoke].find((q) => q.isError)?.error;

  return (
    <section aria-labelledby="memory-title" className="memory-page">
      <h1 id="memory-title">Memory</h1>
      <p className="muted">
        Facts the assistant keeps for you and reads before it answers. Say “remember that …” in a conversation, or add one here.
      </p>
      <form
        className="add-memory"
        onSubmit={(e) => {
          e.preventDefault();
          const text = draft.trim();
          if (!text) return;
          setDraft("");
          add.mutate(text);
        }}
      >
        <label htmlFor="new-memory">A fact to remember</label>
        <input id="new-memory" value={draft} maxLength={500} onChange={(e) => setDraft(e.target.value)} placeholder="e.g. our fiscal year starts in April" />
        <button type="submit" disabled={!draft.trim()}>Remember</button>
      </form>
      {failed && <p className="error" role="alert">{errorText(failed)}</p>}
      {memories.isPending && <p className="muted">Loading…</p>}
      {memories.data?.length === 0 && <p className="empty">Nothing remembered yet.</p>}
      {memories.data && memories.data.length > 0 && (
        <ul className="memories" aria-label="Remembered facts">
          {memories.data.map((m) => (
            <li key={m.memoryId}>
              <div>
                <p className="memory-text">{m.text}</p>
                <p className="muted">
                  {m.createdAt ? `saved ${whenText(timestampDate(m.createdAt))}` : "saved"} ·{" "}
                  {m.sourceRunId ? <AppLink to={`/runs/${m.sourceRunId}`}>from a conversation</AppLink> : "added by you"} ·{" "}
                  {m.lastUsedAt ? `last used ${whenText(timestampDate(m.lastUsedAt))}` : "not used yet"}
                </p>
              </div>
              <button type="button" className="danger" aria-label={`Forget “${m.text}”`} onClick={() => forget.mutate(m.memoryId)}>
                Forget
              </button>
            </li>
          ))}
        </ul>
      )}

      <h2 id="grants-title">Allowed for now</h2>
      <p className="muted">
        What you allowed for a while (“Allow for 5 minutes”): the assistant does it again without asking until the time is up. Revoke to be asked next time.
      </p>
      {grants.data?.length === 0 && <p className="empty">Nothing is allowed without asking.</p>}
      {grants.data && grants.data.length > 0 && (
        <ul className="grants" aria-labelledby="grants-title">
          {grants.data.map((g) => (
            <li key={g.grantId}>
              <div>
                <strong>{tools.title(g.toolName)}</strong> · <code>{g.resourceClass}</code>
                <p className="muted">{g.expiresAt ? `until ${whenText(timestampDate(g.expiresAt))}` : ""}</p>
              </div>
              <button type="button" aria-label={`Revoke ${tools.title(g.toolName)} on ${g.resourceClass}`} onClick={() => revoke.mutate(g.grantId)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
