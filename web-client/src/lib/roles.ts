// Roles as people say them.
import { UserRole } from "@aware/client";

/** The roles an admin can give, least first. */
export const ROLES = [UserRole.VIEWER, UserRole.ANALYST, UserRole.ADMIN];

/** A role as people say it: "viewer", "analyst" or "admin". */
export function roleName(role: UserRole): string {
  return role === UserRole.UNSPECIFIED ? "no role" : UserRole[role].toLowerCase();
}
