import type { TeamRole } from "./roles";

/** A member as the succession rule sees them: `since` is when they joined; a deactivated account is not `active`. */
export interface SuccessionMember {
  userId: string;
  role: TeamRole;
  since: Date;
  active: boolean;
}

export type OwnerSuccession =
  /** An active owner remains: nothing to do. */
  | { kind: "owned" }
  /** Nobody else may run the team: make this member its owner. */
  | { kind: "promote"; userId: string; from: Exclude<TeamRole, "owner"> }
  /** Nobody active is left: the team has no owner and the deployment owners must step in. */
  | { kind: "ownerless" };

const bySeniority = (a: SuccessionMember, b: SuccessionMember) =>
  a.since.getTime() - b.since.getTime() || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0);

/**
 * Who owns a team once `leaving` is gone (deleted or deactivated by the identity provider, which cannot be told
 * "no" as a person in the console can). An active owner who stays keeps the team; otherwise the longest-standing
 * active admin becomes owner, else the longest-standing active member; with nobody active left the team is
 * ownerless.
 */
export function ownerSuccession(members: readonly SuccessionMember[], leaving: string): OwnerSuccession {
  const staying = members.filter((m) => m.userId !== leaving && m.active);
  if (staying.some((m) => m.role === "owner")) return { kind: "owned" };
  for (const role of ["admin", "member"] as const) {
    const next = staying.filter((m) => m.role === role).sort(bySeniority)[0];
    if (next) return { kind: "promote", userId: next.userId, from: role };
  }
  return { kind: "ownerless" };
}
