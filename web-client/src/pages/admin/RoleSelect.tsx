// A role to pick: viewer, analyst or admin.
import type { UserRole } from "@aware/client";
import { ROLES, roleName } from "../../lib/roles";

export function RoleSelect({ label, value, disabled, onChange }: { label: string; value: UserRole; disabled?: boolean; onChange: (r: UserRole) => void }) {
  return (
    <select aria-label={label} value={value} disabled={disabled} onChange={(e) => onChange(Number(e.target.value) as UserRole)}>
      {ROLES.map((r) => <option key={r} value={r}>{roleName(r)}</option>)}
    </select>
  );
}
