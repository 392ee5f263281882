// The Memory page: the facts aware keeps for this person (from "remember that …" in a
// conversation, or added here), each with when and where it came from, to add or forget; and
// "Allowed for now", the session grants ("Allow for 5 minutes") still in force, to revoke.
import { useCallback, useEffect, useState } from "react";
import { timestampDate, type Grant, type Memory } from "@aware/client";
import { aware, errorText, toolTitle } from "./api";
import { whenText } from "./format";

export function MemoryPage() {
  const [memories, setMemories] = useState<Memory[] | null>(null);
  const [grants, setGrants] = useState<Grant[] | null>(null);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState("");

  const load = useCallback(async () => {
    try {
      const [m, g] = await Promise.all([aware.memory.listMemories({}), aware.chat.listGrants({})]);
      setMemories(m.memories);
      setGrants(g.grants);
    } catch (e) {
      setError(errorText(e));
    }
  }, []);
  useEffect(() => void load(), [load]);

  const act = async (call: () => Promise<unknown>) => {
    setError("");
    try {
      await call();
    } catch (e) {
      setError(errorText(e));
    }
    await load();
  };

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
          void act(() => aware.memory.addMemory({ text }));
        }}
      >
        <label htmlFor="new-memory">A fact to remember</label>
        <input id="new-memory" value={draft} maxLength={500} onChange={(e) => setDraft(e.target.value)} placeholder="e.g. our fiscal year starts in April" />
        <button type="submit" disabled={!draft.trim()}>Remember</button>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      {memories === null && !error && <p className="muted">Loading…</p>}
      {memories?.length === 0 && <p className="empty">Nothing remembered yet.</p>}
      {memories && memories.length > 0 && (
        <ul className="memories" aria-label="Remembered facts">
          {memories.map((m) => (
            <li key={m.memoryId}>
              <div>
                <p className="memory-text">{m.text}</p>
                <p className="muted">
                  {m.createdAt ? `saved ${whenText(timestampDate(m.createdAt))}` : "saved"} ·{" "}
                  {m.sourceRunId ? <a href={`#/runs/${m.sourceRunId}`}>from a conversation</a> : "added by you"} ·{" "}
                  {m.lastUsedAt ? `last used ${whenText(timestampDate(m.lastUsedAt))}` : "not used yet"}
                </p>
              </div>
              <button type="button" className="danger" aria-label={`Forget “${m.text}”`} onClick={() => void act(() => aware.memory.deleteMemory({ memoryId: m.memoryId }))}>
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
      {grants?.length === 0 && <p className="empty">Nothing is allowed without asking.</p>}
      {grants && grants.length > 0 && (
        <ul className="grants" aria-labelledby="grants-title">
          {grants.map((g) => (
            <li key={g.grantId}>
              <div>
                <strong>{toolTitle(g.toolName)}</strong> · <code>{g.resourceClass}</code>
                <p className="muted">{g.expiresAt ? `until ${whenText(timestampDate(g.expiresAt))}` : ""}</p>
              </div>
              <button type="button" aria-label={`Revoke ${toolTitle(g.toolName)} on ${g.resourceClass}`} onClick={() => void act(() => aware.chat.revokeGrant({ grantId: g.grantId }))}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
