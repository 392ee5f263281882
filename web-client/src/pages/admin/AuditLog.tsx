// The audit log, filtered by who, from where, what and when, newest first, a page at a time. A
// change made on the Admin page reads it again (its first pages), so the change is there.
import { useState } from "react";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { AuditEntry, User } from "@aware/client";
import { errorText } from "../../lib/api";
import { auditQuery } from "../../lib/queries/admin";
import type { AuditFilterKey } from "../../lib/queryKeys";
import { ScrollBox } from "../../results/ScrollBox";
import { at } from "./when";

/** The sources an entry can come from, as the filter offers them. */
const SOURCES: [string, string][] = [
  ["web", "the web app"],
  ["cli", "the CLI"],
  ["api", "the API"],
  ["ai_assistant", "the assistant"],
  ["mcp", "an MCP client"],
  ["system", "the server itself"],
];

/** datetime-local values ("2026-11-24T09:30") bound `since` and `until`, in the browser's time
 *  zone; "" for no bound. */
const NO_FILTER: AuditFilterKey = { userId: "", source: "", action: "", since: "", until: "" };

export function AuditLog({ users }: { users: User[] }) {
  const [filter, setFilter] = useState(NO_FILTER);
  // The action as typed; it filters once the person presses Enter or leaves the field.
  const [action, setAction] = useState("");
  const log = useInfiniteQuery(auditQuery(filter));
  const entries = log.data?.pages.flatMap((p) => p.entries);
  const set = (part: Partial<AuditFilterKey>) => setFilter((f) => ({ ...f, ...part }));
  const nameOf = (id: string) => users.find((u) => u.userId === id)?.name ?? id;
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <form className="inline-form filters" aria-label="Filter the audit log" onSubmit={(e) => { e.preventDefault(); set({ action }); }}>
        <label>
          User{" "}
          <select value={filter.userId} onChange={(e) => set({ userId: e.target.value })}>
            <option value="">everyone</option>
            {users.map((u) => <option key={u.userId} value={u.userId}>{u.name}</option>)}
          </select>
        </label>
        <label>
          Source{" "}
          <select value={filter.source} onChange={(e) => set({ source: e.target.value })}>
            <option value="">anywhere</option>
            {SOURCES.map(([value, words]) => <option key={value} value={value}>{value} — {words}</option>)}
          </select>
        </label>
        <label>
          Action{" "}
          <input value={action} placeholder="e.g. dataset. or user.create" onChange={(e) => setAction(e.target.value)} onBlur={() => set({ action })} />
        </label>
        <label>Since <input type="datetime-local" value={filter.since} onChange={(e) => set({ since: e.target.value })} /></label>
        <label>Until <input type="datetime-local" value={filter.until} onChange={(e) => set({ until: e.target.value })} /></label>
        <button type="button" disabled={filter === NO_FILTER} onClick={() => { setAction(""); setFilter(NO_FILTER); }}>Clear filters</button>
      </form>
      {log.isError && <p className="error" role="alert">{errorText(log.error)}</p>}
      {entries?.length === 0 && <p className="empty">No entries match.</p>}
      {entries && entries.length > 0 && (
        <ScrollBox label="Audit entries" className="page-table">
          <table className="audit" aria-label="Audit entries">
            <thead><tr><th>When</th><th>User</th><th>Source</th><th>Action</th><th>About</th><th>Outcome</th></tr></thead>
            <tbody>
              {entries.map((e) => (
                <tr key={String(e.entryId)}>
                  <td>{at(e.at)}</td>
                  <td>{nameOf(e.userId)}</td>
                  <td className="source">{e.source}</td>
                  <td className="action"><code>{e.action}</code></td>
                  <td className="about" title={e.detailsJson}>{aboutText(e, nameOf)}</td>
                  <td className={`outcome ${e.outcome}`}>{e.outcome}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {log.hasNextPage && <p><button type="button" disabled={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>Load more</button></p>}
    </section>
  );
}

/** An entry's details in a line, users by their names: "name bob@example.com · role analyst" (the
 *  JSON is the cell's tooltip). */
function aboutText(e: AuditEntry, nameOf: (userId: string) => string): string {
  let details: Record<string, unknown>;
  try {
    details = JSON.parse(e.detailsJson || "{}") as Record<string, unknown>;
  } catch {
    return e.detailsJson;
  }
  const value = (v: unknown) =>
    typeof v === "string" && v.startsWith("usr_") ? nameOf(v) : Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : String(v);
  const parts = Object.entries(details)
    .filter(([, v]) => v !== null && v !== "" && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k.replace(/_id$/, "").replace(/_/g, " ")} ${value(v)}`);
  // A change to a user says whose, unless its details name them already.
  if (e.resourceType === "user" && !("name" in details)) parts.unshift(nameOf(e.resourceId));
  return parts.length ? parts.join(" · ") : `${e.resourceType} ${e.resourceId}`;
}
