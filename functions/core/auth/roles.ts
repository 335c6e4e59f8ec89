/**
 * Roles, weakest first. A user has an organization role; a workspace membership may give a different
 * role in that workspace. Owners and admins act in every workspace with their organization role.
 * What each may do is in docs/decisions.md ("Roles").
 */
export const ROLES = ["viewer", "solver", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

export const roleRank = (role: string): number => ROLES.indexOf(role as Role);
export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/** True when `role` is at least `required`. */
export const roleAtLeast = (role: string, required: Role): boolean => roleRank(role) >= roleRank(required);

export function effectiveWorkspaceRole(orgRole: Role, membershipRole: Role | null): Role {
  if (orgRole === "owner" || orgRole === "admin") return orgRole;
  return membershipRole ?? orgRole;
}
