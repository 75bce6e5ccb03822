import type { DbTx, Tx } from "../client";
import { isUniqueViolation } from "../errors";

/** A saved version of a team's policies; `text` null is a return to the defaults. */
export interface TeamPolicyVersion {
  version: number;
  text: string | null;
  hash: string;
  savedByLabel: string;
  createdAt: Date;
}

const SELECT = { version: true, text: true, hash: true, savedByLabel: true, createdAt: true } as const;

/** The team's policies in force (its highest version), or null when it never saved any. */
export async function currentTeamPolicySet(
  db: DbTx,
  { teamId }: { teamId: string },
): Promise<TeamPolicyVersion | null> {
  return db.teamPolicySet.findFirst({ where: { teamId }, orderBy: { version: "desc" }, select: SELECT });
}

/** The team's saved versions, newest first. */
export async function listTeamPolicyVersions(
  db: DbTx,
  { teamId, limit }: { teamId: string; limit: number },
): Promise<TeamPolicyVersion[]> {
  return db.teamPolicySet.findMany({ where: { teamId }, orderBy: { version: "desc" }, take: limit, select: SELECT });
}

/** Someone saved a version since the editor loaded `expected`: the save would silently drop their change. */
export class PolicyVersionConflict extends Error {
  constructor(readonly current: number | null) {
    super(`The team's policies are at version ${current ?? "default"}`);
  }
}

/**
 * Saves a new version (the next number) when the version in force is still `expectedVersion` (null: the team
 * has none yet); PolicyVersionConflict otherwise. Two concurrent saves cannot both win: the pair (team, version)
 * is unique.
 */
export async function saveTeamPolicySet(
  db: Tx,
  input: {
    teamId: string;
    text: string | null;
    hash: string;
    savedById: string | null;
    savedByLabel: string;
    expectedVersion: number | null;
  },
): Promise<TeamPolicyVersion> {
  const { teamId, expectedVersion, ...data } = input;
  return db.$transaction(async (tx) => {
    const current = await tx.teamPolicySet.findFirst({
      where: { teamId },
      orderBy: { version: "desc" },
      select: { version: true },
    });
    const at = current?.version ?? null;
    if (at !== expectedVersion) throw new PolicyVersionConflict(at);
    try {
      return await tx.teamPolicySet.create({ data: { ...data, teamId, version: (at ?? 0) + 1 }, select: SELECT });
    } catch (err) {
      if (isUniqueViolation(err)) throw new PolicyVersionConflict(at);
      throw err;
    }
  });
}

/** Who a member is to the team's policies: their role, email and identity-provider groups. Null: not a member. */
export async function policySubject(
  db: DbTx,
  { teamId, userId }: { teamId: string; userId: string },
): Promise<{ role: string; email: string; groups: string[] } | null> {
  const membership = await db.membership.findUnique({
    where: { teamId_userId: { teamId, userId } },
    select: {
      role: true,
      user: { select: { email: true, scimGroups: { select: { group: { select: { displayName: true } } } } } },
    },
  });
  if (!membership) return null;
  return {
    role: membership.role,
    email: membership.user.email,
    groups: membership.user.scimGroups.map((g) => g.group.displayName).sort(),
  };
}

/** Whether a token id is a personal access token ("token") or else an OAuth grant ("oauth"). */
export async function tokenKind(db: DbTx, { tokenId }: { tokenId: string }): Promise<"token" | "oauth"> {
  const found = await db.personalAccessToken.findUnique({ where: { id: tokenId }, select: { id: true } });
  return found ? "token" : "oauth";
}

/** A tool as team policies see it: its upstream name, annotations and whether an admin marked it for approval. */
export interface PolicyPanelTool {
  name: string;
  annotations: Record<string, unknown> | null;
  requiresApproval: boolean;
}

/**
 * What the "what would happen" panel offers: the team's members and installations with their tools (from the
 * governance rows discovery writes).
 */
export async function policyPanelChoices(db: DbTx, { teamId }: { teamId: string }) {
  const [members, installations] = await Promise.all([
    db.membership.findMany({
      where: { teamId },
      orderBy: { createdAt: "asc" },
      select: { userId: true, role: true, user: { select: { name: true, email: true } } },
    }),
    db.installation.findMany({
      where: { teamId },
      orderBy: { slug: "asc" },
      select: {
        id: true,
        slug: true,
        name: true,
        itemSettings: {
          where: { kind: "tool" },
          orderBy: { name: "asc" },
          select: { name: true, definition: true, requiresApproval: true },
        },
      },
    }),
  ]);
  return {
    members: members.map((m) => ({ userId: m.userId, role: m.role, name: m.user.name, email: m.user.email })),
    installations: installations.map((i) => ({
      id: i.id,
      slug: i.slug,
      name: i.name,
      tools: i.itemSettings.map((t): PolicyPanelTool => ({
        name: t.name,
        annotations: annotationsOf(t.definition),
        requiresApproval: t.requiresApproval,
      })),
    })),
  };
}

function annotationsOf(definition: unknown): Record<string, unknown> | null {
  const annotations = (definition as { annotations?: unknown } | null)?.annotations;
  return annotations && typeof annotations === "object" ? (annotations as Record<string, unknown>) : null;
}
