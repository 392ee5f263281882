// Users: create one with a role, change a role, deactivate and reactivate. The server refuses
// what it must (an admin demoting themselves) and says why; the list shows what is true.
import { useState } from "react";
import { UserActivation, UserRole, type User } from "@aware/client";
import { aware, errorText } from "../../lib/api";
import { useAdminChange } from "../../lib/queries/admin";
import { ScrollBox } from "../../results/ScrollBox";
import { RoleSelect } from "./RoleSelect";
import { at } from "./when";

type UserChange = Parameters<typeof aware.admin.updateUser>[0];

export function Users({ users }: { users: User[] }) {
  const create = useAdminChange((u: { name: string; role: UserRole }) => aware.admin.createUser(u));
  const update = useAdminChange((change: UserChange) => aware.admin.updateUser(change));
  const [name, setName] = useState("");
  const [role, setRole] = useState(UserRole.ANALYST);
  const busy = create.isPending || update.isPending;
  const failed = create.error ?? update.error;
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      <form
        className="inline-form"
        aria-label="New user"
        onSubmit={(e) => {
          e.preventDefault();
          update.reset();
          create.mutate({ name: name.trim(), role }, { onSuccess: () => setName("") });
        }}
      >
        <label>Name <input value={name} maxLength={100} placeholder="e.g. ana@example.com" onChange={(e) => setName(e.target.value)} /></label>
        <label>Role <RoleSelect label="Role of the new user" value={role} onChange={setRole} /></label>
        <button type="submit" disabled={busy || !name.trim()}>Create user</button>
      </form>
      {failed && <p className="error" role="alert">{errorText(failed)}</p>}
      <ScrollBox label="Users" className="page-table">
        <table className="users" aria-label="Users">
          <thead><tr><th>Name</th><th>Role</th><th>Status</th><th>Created</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.userId} className={u.deactivatedAt ? "inactive" : ""}>
                <td>{u.name}</td>
                <td>
                  <RoleSelect
                    label={`Role of ${u.name}`}
                    value={u.role}
                    disabled={busy}
                    onChange={(r) => {
                      create.reset();
                      update.mutate({ userId: u.userId, role: r });
                    }}
                  />
                </td>
                <td>{u.deactivatedAt ? `deactivated ${at(u.deactivatedAt)}` : "active"}</td>
                <td>{at(u.createdAt)}</td>
                <td>
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => {
                      create.reset();
                      update.mutate({ userId: u.userId, activation: u.deactivatedAt ? UserActivation.REACTIVATE : UserActivation.DEACTIVATE });
                    }}
                  >
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
