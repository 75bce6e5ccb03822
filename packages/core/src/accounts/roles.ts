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
 * Whose rows a member of a team sees where "admins see all, members see their own" (instances, the request log,
 * activity, held calls, live updates): `undefined` (everyone's) for an owner or admin, else the member's own id.
 * Pass it as a query's `userId` filter.
 */
export function memberScope(actor: { userId: string; role: string }): string | undefined {
  return isTeamAdminRole(actor.role) ? undefined : actor.userId;
}

/**
 * Whether a member's change would leave their team without an owner: an owner becoming something else (`to`), or
 * leaving it (`to` null), while the team has one owner. `owners` (the team's count of owners) is asked only when
 * the member is an owner giving the role up. Every way a role changes or a membership ends asks this first: the
 * console, SCIM and sign-in mappings alike.
 */
export async function leavesTeamWithoutOwner(
  change: { from: string; to: string | null },
  owners: () => Promise<number>,
): Promise<boolean> {
  if (change.from !== "owner" || change.to === "owner") return false;
  return (await owners()) <= 1;
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
