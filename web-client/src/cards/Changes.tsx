// What the assistant's write tools did, in words for people: a dataset renamed, described, saved
// from a result or read again from its file; a verified query kept or dropped; an account or API
// key changed. A new key's token reaches the app in the live event only (the server never stores
// it): the card shows it once, and a replay — a reload, the run inspector — says it was shown and
// what to do if it was lost.
import { UserRole, type AccountChange, type Dataset, type DatasetChange, type SavedQueryChange } from "@aware/client";
import { count } from "../lib/format";
import { AppLink } from "../lib/links";
import { roleName } from "../lib/roles";
import { SqlBlock } from "../results/SqlBlock";
import { OneTimeToken } from "./OneTimeToken";

export function DatasetChangeResult({ change }: { change: DatasetChange }) {
  const d = change.dataset;
  if (!d) return null;
  const open = <AppLink to={`/datasets/${d.id}`}>Open it</AppLink>;
  switch (change.change) {
    case "renamed":
      return <p className="change">Renamed: it is now “{d.name}”, table <code>{d.tableName}</code>. {open}</p>;
    case "described":
      return (
        <div className="change">
          <p>Described <code>{d.tableName}</code>. {open}</p>
          {d.description && <p className="muted">{d.description}</p>}
          {d.columnNotes.length > 0 && (
            <ul>
              {d.columnNotes.map((n) => (
                <li key={n.column}><code>{n.column}</code>{n.description && ` — ${n.description}`}{n.unit && <> <span className="unit">{n.unit}</span></>}</li>
              ))}
            </ul>
          )}
        </div>
      );
    case "saved": {
      const from = d.lineage?.sources.map((s) => s.tableName).join(", ");
      return (
        <p className="change">
          Saved as the new dataset <code>{d.tableName}</code>: {count(d.rowCount)} rows, {d.columnCount} columns{from && <>, from {from}</>}. {open}
        </p>
      );
    }
    case "refreshed":
      return (
        <p className="change">
          Refreshed <code>{d.tableName}</code> from {fileOf(d)}: it now has {count(d.rowCount)} rows and {d.columnCount} columns. {open}
        </p>
      );
    case "unchanged":
      return (
        <p className="change">
          Unchanged: {fileOf(d)} holds the same content as <code>{d.tableName}</code> already has ({count(d.rowCount)} rows), so nothing was done. {open}
        </p>
      );
    default:
      return <p className="change">Changed <code>{d.tableName}</code>. {open}</p>;
  }
}

/** The file a dataset was imported from, as `root:path`. */
function fileOf(d: Dataset) {
  return d.origin ? <code>{d.origin.root}:{d.origin.path}</code> : "its file";
}

export function SavedQueryChangeResult({ change }: { change: SavedQueryChange }) {
  const q = change.query;
  if (!q) return null;
  if (change.change === "deleted") return <p className="change">Deleted the verified query “{q.name}”: that question is worked out from scratch again.</p>;
  return (
    <div className="change">
      <p>
        Kept as a verified query: “{q.name}”. Asked “{q.question}”, the assistant answers with this SQL (listed under{" "}
        <AppLink to="/datasets">Datasets</AppLink>):
      </p>
      <SqlBlock sql={q.sql} />
    </div>
  );
}

export function AccountChangeResult({ change: c }: { change: AccountChange }) {
  const who = c.user?.name ?? "the user";
  const admin = <AppLink to="/admin">Admin</AppLink>;
  switch (c.change) {
    case "user_created":
      return <p className="change">Created the user {who} with the role {roleName(c.user?.role ?? UserRole.UNSPECIFIED)}. They have no API key yet ({admin}).</p>;
    case "role_changed":
      return <p className="change">{who} is now {roleName(c.user?.role ?? UserRole.UNSPECIFIED)}, from their next request.</p>;
    case "deactivated":
      return <p className="change">Deactivated {who}: their keys are refused from now on. Their data stays; reactivate them to undo.</p>;
    case "reactivated":
      return <p className="change">Reactivated {who}: their keys work again.</p>;
    case "key_created": {
      const prefix = c.apiKey?.prefix ?? "";
      if (c.token) return <OneTimeToken token={c.token} prefix={prefix} owner={who} />;
      return (
        <p className="change">
          Created the API key <code>{prefix}…</code> for {who}. Its token was shown once, when it was made, and is kept nowhere; if it
          was lost, revoke this key and create another ({admin}).
        </p>
      );
    }
    case "key_revoked":
      return <p className="change">Revoked the API key <code>{c.apiKey?.prefix}…</code>: anything using it stops working.</p>;
    default:
      return <p className="change">Changed {who} ({admin}).</p>;
  }
}
