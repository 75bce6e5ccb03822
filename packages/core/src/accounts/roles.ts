/** A team member's role. Exactly these strings; nothing else is a role (no lists such as `admin,member`). */
export const TEAM_ROLES = ["owner", "admin", "member"] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export function isTeamRole(value: unknown): value is TeamRole {
  return typeof value === "string" && (TEAM_ROLES as readonly string[]).includes(value);
}

export function isTeamAdminRole(role: string): boolean {
  return role === "owner" || role === "admin";
}

/**
 * Who may set `to` on a member who has `from`: only an owner grants or takes away the owner role; an admin may
 * move members between admin and member. Returns a sentence for the person when it is refused.
 */
export function roleChangeProblem({
  actor,
  from,
  to,
}: {
  actor: TeamRole;
  from: TeamRole;
  to: TeamRole;
}): string | null {
  if (!isTeamAdminRole(actor)) return "Only a team admin can change roles.";
  if ((to === "owner" || from === "owner") && actor !== "owner")
    return "Only an owner can grant or remove the owner role.";
  return null;
}
