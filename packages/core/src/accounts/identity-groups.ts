import { TEAM_ROLES, type TeamRole } from "./roles";

/**
 * Groups to teams and roles: a deployment owner maps an identity provider's group names to a team and a role,
 * and the provider's word on which groups a person is in decides their membership of every mapped team. Teams
 * no mapping names keep manual membership (invitations, removal by an admin) untouched.
 */

/** One mapping: members of `groupName` belong to `teamId` with `role`. */
export interface IdentityGroupMapping {
  groupName: string;
  teamId: string;
  role: TeamRole;
}

export interface IdentityGroupMembership {
  teamId: string;
  role: string;
}

export interface IdentityGroupPlan {
  add: Array<{ teamId: string; role: TeamRole }>;
  change: Array<{ teamId: string; from: string; to: TeamRole }>;
  remove: Array<{ teamId: string; role: string }>;
}

export const GROUP_NAME_MAX = 256;

/**
 * Providers disagree on case and stray spaces (Entra's display names, Okta's group names typed by hand): a group
 * is the same group whatever its case or surrounding whitespace.
 */
export function normalizeGroupName(name: string): string {
  return name.trim().toLowerCase();
}

export function groupNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return "Enter the group's name as the identity provider sends it.";
  if (trimmed.length > GROUP_NAME_MAX) return `A group name has at most ${GROUP_NAME_MAX} characters.`;
  return null;
}

/** owner > admin > member; a stored role outside the three ranks below member. */
export function roleRank(role: string): number {
  const i = (TEAM_ROLES as readonly string[]).indexOf(role);
  return i < 0 ? -1 : TEAM_ROLES.length - i;
}

/** The teams `groups` give and the role in each: when several groups map to one team, the highest role wins. */
export function teamsForGroups(
  mappings: readonly IdentityGroupMapping[],
  groups: readonly string[],
): Map<string, TeamRole> {
  const inGroup = new Set(groups.map(normalizeGroupName));
  const teams = new Map<string, TeamRole>();
  for (const m of mappings) {
    if (!inGroup.has(normalizeGroupName(m.groupName))) continue;
    const held = teams.get(m.teamId);
    if (!held || roleRank(m.role) > roleRank(held)) teams.set(m.teamId, m.role);
  }
  return teams;
}

/**
 * What to change so that a person's memberships follow their groups: join the mapped teams a group gives them,
 * take the role their groups give (up or down), and leave the mapped teams no group of theirs gives any more.
 * `mappings` are all of one provider's mappings; memberships of teams none of them names are left alone.
 */
export function identityGroupPlan({
  mappings,
  groups,
  memberships,
}: {
  mappings: readonly IdentityGroupMapping[];
  groups: readonly string[];
  memberships: readonly IdentityGroupMembership[];
}): IdentityGroupPlan {
  const mappedTeams = new Set(mappings.map((m) => m.teamId));
  const wanted = teamsForGroups(mappings, groups);
  const current = new Map(memberships.map((m) => [m.teamId, m.role]));
  const plan: IdentityGroupPlan = { add: [], change: [], remove: [] };
  for (const [teamId, role] of wanted) {
    const held = current.get(teamId);
    if (held === undefined) plan.add.push({ teamId, role });
    else if (held !== role) plan.change.push({ teamId, from: held, to: role });
  }
  for (const { teamId, role } of memberships) {
    if (mappedTeams.has(teamId) && !wanted.has(teamId)) plan.remove.push({ teamId, role });
  }
  return plan;
}
