import { parseAllowList, type AllowedCommand, type SignupMode } from "@switchboard/core/deployment";
import type { Db, DbTx } from "../client";
import { pageQuery, toPage, type PageArgs } from "../pagination";

/** The settings row; the migration inserts it, the upsert only guards against a hand-emptied table. */
async function settingsRow(db: DbTx) {
  return db.deploymentSettings.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
}

export async function getDeploymentSettings(db: DbTx): Promise<{
  signupMode: SignupMode;
  allowList: AllowedCommand[];
  sandboxLoopbackPorts: number[];
  updatedAt: Date | null;
}> {
  const row = await db.deploymentSettings.findUnique({ where: { id: 1 } });
  // Without the row (removed by hand) the defaults apply: invite-only, nothing allowed.
  if (!row) return { signupMode: "invite_only", allowList: [], sandboxLoopbackPorts: [], updatedAt: null };
  return {
    signupMode: row.signupMode,
    allowList: parseAllowList(row.commandAllowList),
    sandboxLoopbackPorts: row.sandboxLoopbackPorts,
    updatedAt: row.updatedAt,
  };
}

export async function setSignupMode(db: DbTx, { mode, userId }: { mode: SignupMode; userId: string }) {
  await db.deploymentSettings.upsert({
    where: { id: 1 },
    create: { id: 1, signupMode: mode, updatedById: userId },
    update: { signupMode: mode, updatedById: userId },
  });
}

/**
 * Replaces the allow-list under a row lock, through `change` (add or remove one entry): two owners editing at
 * once both keep their change.
 */
export async function changeCommandAllowList(
  db: Db,
  { userId, change }: { userId: string; change: (current: AllowedCommand[]) => AllowedCommand[] },
) {
  return db.$transaction(async (tx) => {
    await settingsRow(tx);
    const [locked] = await tx.$queryRaw<
      Array<{ commandAllowList: unknown }>
    >`SELECT "commandAllowList" FROM "deployment_settings" WHERE "id" = 1 FOR UPDATE`;
    const next = change(parseAllowList(locked?.commandAllowList));
    await tx.deploymentSettings.update({ where: { id: 1 }, data: { commandAllowList: next, updatedById: userId } });
    return next;
  });
}

/** The host loopback ports the deployment owners allow sandboxes (read afresh for every launch). */
export async function getSandboxLoopbackPorts(db: DbTx): Promise<number[]> {
  const row = await db.deploymentSettings.findUnique({ where: { id: 1 }, select: { sandboxLoopbackPorts: true } });
  return row?.sandboxLoopbackPorts ?? [];
}

/**
 * Changes the owners' loopback ports under a row lock, through `change` (add or remove one): two owners editing
 * at once both keep their change. Returns the list before and after.
 */
export async function changeSandboxLoopbackPorts(
  db: Db,
  { userId, change }: { userId: string; change: (current: number[]) => number[] },
): Promise<{ before: number[]; after: number[] }> {
  return db.$transaction(async (tx) => {
    await settingsRow(tx);
    const [locked] = await tx.$queryRaw<
      Array<{ sandboxLoopbackPorts: number[] | null }>
    >`SELECT "sandboxLoopbackPorts" FROM "deployment_settings" WHERE "id" = 1 FOR UPDATE`;
    const before = locked?.sandboxLoopbackPorts ?? [];
    const after = [...new Set(change(before))].sort((a, b) => a - b);
    await tx.deploymentSettings.update({
      where: { id: 1 },
      data: { sandboxLoopbackPorts: after, updatedById: userId },
    });
    return { before, after };
  });
}

export async function deploymentHasOwner(db: DbTx): Promise<boolean> {
  return (await db.user.count({ where: { deploymentOwner: true } })) > 0;
}

export async function isDeploymentOwner(db: DbTx, userId: string): Promise<boolean> {
  return (await db.user.count({ where: { id: userId, deploymentOwner: true } })) > 0;
}

/**
 * Makes the user the deployment's owner if it has none yet. A transaction-scoped advisory lock serialises
 * two first sign-ups, so only one of them becomes owner. Returns whether this user did.
 */
export async function claimDeploymentOwnership(db: Db, userId: string): Promise<boolean> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('switchboard:deployment-owner'))`;
    if (await deploymentHasOwner(tx)) return false;
    await tx.user.update({ where: { id: userId }, data: { deploymentOwner: true } });
    return true;
  });
}

/** An invitation that still lets this address in: pending and not expired (emails compared case-insensitively). */
export async function hasPendingInvitation(
  db: DbTx,
  { email, now = new Date() }: { email: string; now?: Date },
): Promise<boolean> {
  const count = await db.invitation.count({
    where: { email: { equals: email, mode: "insensitive" }, status: "pending", expiresAt: { gt: now } },
  });
  return count > 0;
}

export async function listTeamsWithStdioPermission(db: DbTx, { cursor, limit }: PageArgs) {
  const rows = await db.team.findMany({
    select: {
      id: true,
      name: true,
      slug: true,
      stdioAllowed: true,
      createdAt: true,
      // One owner is enough to know the team has one (an identity provider can leave a team with none).
      memberships: { where: { role: "owner" }, select: { id: true }, take: 1 },
      _count: { select: { memberships: true, installations: { where: { template: { transport: "stdio" } } } } },
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  const page = toPage(rows, limit);
  return {
    ...page,
    items: page.items.map((t) => ({
      id: t.id,
      name: t.name,
      slug: t.slug,
      stdioAllowed: t.stdioAllowed,
      memberCount: t._count.memberships,
      hasOwner: t.memberships.length > 0,
      stdioInstallationCount: t._count.installations,
    })),
  };
}

/** Returns false when the team does not exist. */
export async function setTeamStdioAllowed(
  db: DbTx,
  { teamId, allowed }: { teamId: string; allowed: boolean },
): Promise<boolean> {
  const { count } = await db.team.updateMany({ where: { id: teamId }, data: { stdioAllowed: allowed } });
  return count > 0;
}

/** What decides whether a team's stdio server may start (core checkStdioCommand): read afresh for every launch. */
export async function getStdioPolicy(
  db: DbTx,
  teamId: string,
): Promise<{ teamStdioAllowed: boolean; allowList: AllowedCommand[] }> {
  const [team, settings] = await Promise.all([
    db.team.findUnique({ where: { id: teamId }, select: { stdioAllowed: true } }),
    getDeploymentSettings(db),
  ]);
  return { teamStdioAllowed: team?.stdioAllowed ?? false, allowList: settings.allowList };
}

export async function listDeploymentOwners(db: DbTx) {
  return db.user.findMany({
    where: { deploymentOwner: true },
    select: { id: true, name: true, email: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
}

/** Makes the account with this email a deployment owner; null when there is no such account. */
export async function grantDeploymentOwner(db: DbTx, email: string) {
  const user = await db.user.findFirst({
    where: { email: { equals: email, mode: "insensitive" } },
    select: { id: true },
  });
  if (!user) return null;
  return db.user.update({
    where: { id: user.id },
    data: { deploymentOwner: true },
    select: { id: true, name: true, email: true },
  });
}

/**
 * Takes the role away, never from the last owner (under the same lock as the first sign-up's claim, so two
 * owners removing each other at once cannot leave the deployment without one).
 */
export async function revokeDeploymentOwner(db: Db, userId: string): Promise<"revoked" | "not_owner" | "last_owner"> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('switchboard:deployment-owner'))`;
    if (!(await isDeploymentOwner(tx, userId))) return "not_owner";
    if ((await tx.user.count({ where: { deploymentOwner: true } })) <= 1) return "last_owner";
    await tx.user.update({ where: { id: userId }, data: { deploymentOwner: false } });
    return "revoked";
  });
}

/**
 * The stdio installations of one team (or of every team) with what the stdio policy judges (command, arguments,
 * environment keys) and their instances' statuses.
 */
export async function listStdioInstallationsForPolicy(db: DbTx, where: { teamId?: string }) {
  return db.installation.findMany({
    where: { ...where, template: { transport: "stdio" } },
    select: {
      id: true,
      teamId: true,
      template: { select: { command: true, args: true, fields: { where: { kind: "env" }, select: { key: true } } } },
      instances: { select: { status: true, statusMessage: true } },
    },
  });
}
