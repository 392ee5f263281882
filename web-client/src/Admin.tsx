// The Admin page (the server answers admins only): users — create with a role, change a role,
// deactivate and reactivate —, API keys — create (the token is shown here once: the server keeps
// only its hash and first characters), revoke after a second click — and the audit log, filtered
// by who, from where, what and when, newest first, a page at a time. Every change made here is
// read back from the server, so the page shows what is true, audit entries included.
import { useCallback, useEffect, useRef, useState } from "react";
import { timestampDate, timestampFromDate, UserActivation, UserRole, type ApiKey, type AuditEntry, type User } from "@aware/client";
import { aware, errorText } from "./api";
import { ConfirmInline } from "./Confirm";
import { whenText } from "./format";
import { ScrollBox } from "./ResultTable";

const ROLES = [UserRole.VIEWER, UserRole.ANALYST, UserRole.ADMIN];

/** A role as people say it: "viewer", "analyst" or "admin". */
export function roleName(role: UserRole): string {
  return role === UserRole.UNSPECIFIED ? "no role" : UserRole[role].toLowerCase();
}

type Moment = User["createdAt"];
const millis = (t: Moment) => (t ? timestampDate(t).getTime() : 0);
const at = (t: Moment) => (t ? whenText(timestampDate(t)) : "");

/** One change at a time: its error in words, and `after` once it is done (to read the lists again). */
function useAction(after: () => void) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const run = async <T,>(call: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError("");
    try {
      return await call();
    } catch (e) {
      setError(errorText(e));
      return undefined;
    } finally {
      setBusy(false);
      after();
    }
  };
  return { run, error, busy };
}

export function AdminPage({ role }: { role: string }) {
  const [users, setUsers] = useState<User[] | null>(null);
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState("");
  // Counts the changes made here: the audit log reads its first page again after each.
  const [changes, setChanges] = useState(0);
  const load = useCallback(async () => {
    try {
      const [u, k] = await Promise.all([aware.admin.listUsers({}), aware.admin.listApiKeys({})]);
      setUsers(u.users);
      setKeys(k.keys);
      setError("");
    } catch (e) {
      setError(errorText(e));
    }
  }, []);
  const changed = useCallback(() => {
    setChanges((n) => n + 1);
    void load();
  }, [load]);
  useEffect(() => void load(), [load]);
  if (role && role !== "admin") {
    return (
      <section aria-labelledby="admin-title">
        <h1 id="admin-title">Admin</h1>
        <p className="empty">Users, API keys and the audit log are for admins; your role is {role}.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="admin-title" className="admin-page">
      <h1 id="admin-title">Admin</h1>
      {error && <p className="error" role="alert">{error}</p>}
      {!users && !error && <p className="muted">Loading…</p>}
      {users && keys && (
        <>
          <Users users={users} onChanged={changed} />
          <ApiKeys keys={keys} users={users} onChanged={changed} />
          <AuditLog users={users} changes={changes} />
        </>
      )}
    </section>
  );
}

function RoleSelect({ label, value, disabled, onChange }: { label: string; value: UserRole; disabled?: boolean; onChange: (r: UserRole) => void }) {
  return (
    <select aria-label={label} value={value} disabled={disabled} onChange={(e) => onChange(Number(e.target.value) as UserRole)}>
      {ROLES.map((r) => <option key={r} value={r}>{roleName(r)}</option>)}
    </select>
  );
}

function Users({ users, onChanged }: { users: User[]; onChanged: () => void }) {
  const { run, error, busy } = useAction(onChanged);
  const [name, setName] = useState("");
  const [role, setRole] = useState(UserRole.ANALYST);
  const create = async () => {
    if (await run(() => aware.admin.createUser({ name: name.trim(), role }))) setName("");
  };
  const setActive = (u: User, active: boolean) =>
    run(() => aware.admin.updateUser({ userId: u.userId, activation: active ? UserActivation.REACTIVATE : UserActivation.DEACTIVATE }));
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      <form className="inline-form" aria-label="New user" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <label>Name <input value={name} maxLength={100} placeholder="e.g. ana@example.com" onChange={(e) => setName(e.target.value)} /></label>
        <label>Role <RoleSelect label="Role of the new user" value={role} onChange={setRole} /></label>
        <button type="submit" disabled={busy || !name.trim()}>Create user</button>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      <ScrollBox label="Users" className="page-table">
        <table className="users" aria-label="Users">
          <thead><tr><th>Name</th><th>Role</th><th>Status</th><th>Created</th><th /></tr></thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.userId} className={u.deactivatedAt ? "inactive" : ""}>
                <td>{u.name}</td>
                <td><RoleSelect label={`Role of ${u.name}`} value={u.role} disabled={busy} onChange={(r) => void run(() => aware.admin.updateUser({ userId: u.userId, role: r }))} /></td>
                <td>{u.deactivatedAt ? `deactivated ${at(u.deactivatedAt)}` : "active"}</td>
                <td>{at(u.createdAt)}</td>
                <td>
                  <button type="button" disabled={busy} onClick={() => void setActive(u, Boolean(u.deactivatedAt))}>
                    {u.deactivatedAt ? "Reactivate" : "Deactivate"}<span className="sr-only"> {u.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </section>
  );
}

/** How long a new key lasts, in days (0: until revoked). */
const EXPIRIES = [0, 30, 90, 365];

function ApiKeys({ keys, users, onChanged }: { keys: ApiKey[]; users: User[]; onChanged: () => void }) {
  const { run, error, busy } = useAction(onChanged);
  const [owner, setOwner] = useState("");
  const [days, setDays] = useState(0);
  const [created, setCreated] = useState<{ token: string; prefix: string; owner: string } | null>(null);
  const nameOf = (id: string) => users.find((u) => u.userId === id)?.name ?? id;
  const create = async () => {
    const expiresAt = days ? timestampFromDate(new Date(Date.now() + days * 86_400_000)) : undefined;
    const r = await run(() => aware.admin.createApiKey({ userId: owner, expiresAt }));
    if (r?.key) setCreated({ token: r.token, prefix: r.key.prefix, owner: nameOf(owner) });
  };
  const newestFirst = [...keys].sort((a, b) => millis(b.createdAt) - millis(a.createdAt));
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p className="muted">A key signs a program or the CLI in as its user. Only its first characters are kept, to tell keys apart.</p>
      <form className="inline-form" aria-label="New API key" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <label>
          For{" "}
          <select value={owner} onChange={(e) => setOwner(e.target.value)}>
            <option value="">choose a user…</option>
            {users.map((u) => <option key={u.userId} value={u.userId}>{u.name}</option>)}
          </select>
        </label>
        <label>
          Expires{" "}
          <select value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {EXPIRIES.map((d) => <option key={d} value={d}>{d ? `in ${d} days` : "never"}</option>)}
          </select>
        </label>
        <button type="submit" disabled={busy || !owner}>Create key</button>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      {created && <OneTimeToken {...created} onDone={() => setCreated(null)} />}
      {keys.length === 0 ? (
        <p className="empty">No API keys yet.</p>
      ) : (
        <ScrollBox label="API keys" className="page-table">
          <table className="keys" aria-label="API keys">
            <thead><tr><th>Key</th><th>User</th><th>Created</th><th>Expires</th><th>Status</th><th /></tr></thead>
            <tbody>
              {newestFirst.map((k) => <KeyRow key={k.keyId} apiKey={k} owner={nameOf(k.userId)} busy={busy} revoke={() => run(() => aware.admin.revokeApiKey({ keyId: k.keyId }))} />)}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}

function KeyRow({ apiKey: k, owner, busy, revoke }: { apiKey: ApiKey; owner: string; busy: boolean; revoke: () => Promise<unknown> }) {
  const [confirming, setConfirming] = useState(false);
  const expired = k.expiresAt !== undefined && millis(k.expiresAt) <= Date.now();
  const status = k.revokedAt ? `revoked ${at(k.revokedAt)}` : expired ? "expired" : "active";
  return (
    <tr data-prefix={k.prefix} className={status === "active" ? "" : "inactive"}>
      <td><code>{k.prefix}…</code></td>
      <td>{owner}</td>
      <td>{at(k.createdAt)}</td>
      <td>{k.expiresAt ? at(k.expiresAt) : "never"}</td>
      <td className="key-status">{status}</td>
      <td>
        {status !== "active" ? null : confirming ? (
          <ConfirmInline
            label="Confirm revoke"
            question={`Revoke ${k.prefix}… of ${owner}? Anything using it stops working at once. This cannot be undone.`}
            action="Revoke key"
            busy={busy}
            onConfirm={() => void revoke()}
            onCancel={() => setConfirming(false)}
          />
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>Revoke<span className="sr-only"> {k.prefix}</span></button>
        )}
      </td>
    </tr>
  );
}

/** A new key's token, shown this once: the server stores only its hash and first characters. */
export function OneTimeToken({ token, prefix, owner, onDone }: { token: string; prefix: string; owner: string; onDone?: () => void }) {
  const [copied, setCopied] = useState("");
  const field = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied("Copied");
    } catch {
      // No clipboard (an insecure page, or permission refused): the person copies it themselves.
      field.current?.select();
      setCopied("Selected: press Ctrl+C (⌘C on a Mac) to copy");
    }
  };
  return (
    <div className="one-time-token" role="region" aria-label="New API key token">
      <p><strong>The new API key for {owner}</strong></p>
      <div className="token-row">
        <input ref={field} readOnly value={token} aria-label="API key token" spellCheck={false} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>Copy</button>
        <span role="status">{copied}</span>
      </div>
      <p className="warning">
        ⚠ Copy it now: you will not see it again. aware keeps only its first characters ({prefix}…), so a lost key can be
        revoked, never shown.
      </p>
      {onDone && <button type="button" onClick={onDone}>Done</button>}
    </div>
  );
}

/** The sources an entry can come from, as the filter offers them. */
const SOURCES: [string, string][] = [
  ["web", "the web app"],
  ["cli", "the CLI"],
  ["api", "the API"],
  ["ai_assistant", "the assistant"],
  ["mcp", "an MCP client"],
  ["system", "the server itself"],
];

interface AuditFilter {
  userId: string;
  source: string;
  action: string;
  /** datetime-local values ("2026-11-24T09:30"), in the browser's time zone; "" for no bound. */
  since: string;
  until: string;
}

const NO_FILTER: AuditFilter = { userId: "", source: "", action: "", since: "", until: "" };
const moment = (local: string) => (local ? timestampFromDate(new Date(local)) : undefined);

function AuditLog({ users, changes }: { users: User[]; changes: number }) {
  const [filter, setFilter] = useState(NO_FILTER);
  // The action as typed; it filters once the person presses Enter or leaves the field.
  const [action, setAction] = useState("");
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState("");
  const [error, setError] = useState("");
  const load = useCallback(
    async (pageToken: string) => {
      try {
        const r = await aware.audit.listAuditEntries({
          userId: filter.userId,
          source: filter.source,
          action: filter.action.trim(),
          since: moment(filter.since),
          until: moment(filter.until),
          pageSize: 20,
          pageToken,
        });
        setEntries((all) => [...(pageToken ? all ?? [] : []), ...r.entries]);
        setNext(r.nextPageToken);
        setError("");
      } catch (e) {
        setError(errorText(e));
      }
    },
    [filter],
  );
  useEffect(() => void load(""), [load, changes]);
  const set = (part: Partial<AuditFilter>) => setFilter((f) => ({ ...f, ...part }));
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
      {error && <p className="error" role="alert">{error}</p>}
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
      {next && <p><button type="button" onClick={() => void load(next)}>Load more</button></p>}
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
