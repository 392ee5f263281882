// The Admin page (the server answers admins only): users, API keys and the audit log. Every
// change made here is read back from the server — the audit log included — so the page shows
// what is true.
import { errorText } from "../../lib/api";
import { usePageTitle } from "../../lib/pageTitle";
import { useUsers, useApiKeys } from "../../lib/queries/admin";
import { useCapabilities } from "../../lib/queries/capabilities";
import { ApiKeys } from "./ApiKeys";
import { AuditLog } from "./AuditLog";
import { Users } from "./Users";

export function AdminPage() {
  usePageTitle("Admin");
  const caps = useCapabilities();
  const role = caps.data?.role;
  if (role !== undefined && role !== "admin") {
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
      {/* Without the role (the server could not be asked) the lists are asked for anyway: the
          server decides. */}
      {caps.isPending ? <p className="muted">Loading…</p> : <AdminLists />}
    </section>
  );
}

function AdminLists() {
  const users = useUsers();
  const apiKeys = useApiKeys();
  const error = users.error ?? apiKeys.error;
  if (error && !(users.data && apiKeys.data)) return <p className="error" role="alert">{errorText(error)}</p>;
  if (!users.data || !apiKeys.data) return <p className="muted">Loading…</p>;
  return (
    <>
      <Users users={users.data} />
      <ApiKeys keys={apiKeys.data} users={users.data} />
      <AuditLog users={users.data} />
    </>
  );
}
