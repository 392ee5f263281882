// API keys: create one for a user, with an expiry (the token is shown here once: the server keeps
// only its hash and first characters), and revoke one after a confirmation.
import { useState } from "react";
import { timestampFromDate, type ApiKey, type User } from "@aware/client";
import { aware, errorText } from "../../lib/api";
import { useAdminChange } from "../../lib/queries/admin";
import { OneTimeToken } from "../../cards/OneTimeToken";
import { ScrollBox } from "../../results/ScrollBox";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { at, millis } from "./when";

/** How long a new key lasts, in days (0: until revoked). */
const EXPIRIES = [0, 30, 90, 365];

export function ApiKeys({ keys, users }: { keys: ApiKey[]; users: User[] }) {
  const create = useAdminChange((k: { userId: string; days: number }) =>
    aware.admin.createApiKey({ userId: k.userId, expiresAt: k.days ? timestampFromDate(new Date(Date.now() + k.days * 86_400_000)) : undefined }),
  );
  const revoke = useAdminChange((keyId: string) => aware.admin.revokeApiKey({ keyId }));
  const [owner, setOwner] = useState("");
  const [days, setDays] = useState(0);
  const [created, setCreated] = useState<{ token: string; prefix: string; owner: string } | null>(null);
  const nameOf = (id: string) => users.find((u) => u.userId === id)?.name ?? id;
  const newestFirst = [...keys].sort((a, b) => millis(b.createdAt) - millis(a.createdAt));
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p className="muted">A key signs a program or the CLI in as its user. Only its first characters are kept, to tell keys apart.</p>
      <form
        className="inline-form"
        aria-label="New API key"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(
            { userId: owner, days },
            { onSuccess: (r) => r.key && setCreated({ token: r.token, prefix: r.key.prefix, owner: nameOf(owner) }) },
          );
        }}
      >
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
        <button type="submit" disabled={create.isPending || !owner}>Create key</button>
      </form>
      {create.isError && <p className="error" role="alert">{errorText(create.error)}</p>}
      {created && <OneTimeToken {...created} onDone={() => setCreated(null)} />}
      {keys.length === 0 ? (
        <p className="empty">No API keys yet.</p>
      ) : (
        <ScrollBox label="API keys" className="page-table">
          <table className="keys" aria-label="API keys">
            <thead><tr><th>Key</th><th>User</th><th>Created</th><th>Expires</th><th>Status</th><th><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {newestFirst.map((k) => (
                <KeyRow key={k.keyId} apiKey={k} owner={nameOf(k.userId)} revoke={() => revoke.mutateAsync(k.keyId)} />
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}

function KeyRow({ apiKey: k, owner, revoke }: { apiKey: ApiKey; owner: string; revoke: () => Promise<unknown> }) {
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
        {status === "active" && (
          <ConfirmDialog
            trigger={<button type="button">Revoke<span className="sr-only"> {k.prefix}</span></button>}
            title={`Revoke ${k.prefix}… of ${owner}?`}
            description="Anything using it stops working at once. This cannot be undone."
            action="Revoke key"
            onConfirm={revoke}
          />
        )}
      </td>
    </tr>
  );
}
