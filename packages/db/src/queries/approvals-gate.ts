import type { Prisma } from "../generated/prisma/client";
import type { DbTx, Tx } from "../client";

/**
 * The gateway's side of approvals (core governance/approvals.ts holds the rules): use up a granted approval of
 * exactly this call, or find the request that is already waiting for it, or make one. Listing and deciding
 * requests are the console's, in their own file.
 */

/** What an approval binds to: who calls, which tool of which installation, the exact arguments, the policy. */
export interface ApprovalBinding {
  teamId: string;
  callerId: string;
  installationId: string;
  /** Upstream name of the tool. */
  toolName: string;
  argumentsHash: string;
  policyVersion: string;
}

const whereBinding = (b: ApprovalBinding) => ({
  teamId: b.teamId,
  callerId: b.callerId,
  installationId: b.installationId,
  toolName: b.toolName,
  argumentsHash: b.argumentsHash,
  policyVersion: b.policyVersion,
});

/**
 * Uses up an approval of exactly this call: one granted, unused and unexpired at `now` turns `used`. The guard is
 * the UPDATE's own WHERE (state approved, usedAt null, expiresAt after now), so of two calls racing for one
 * approval PostgreSQL lets exactly one through: the other finds the row already used and updates nothing.
 * Returns the approval's id, or null when there is none to use.
 */
export async function consumeApproval(
  db: DbTx,
  binding: ApprovalBinding,
  now: Date = new Date(),
): Promise<string | null> {
  const usable = { ...whereBinding(binding), state: "approved" as const, usedAt: null, expiresAt: { gt: now } };
  // Several grants of the same call (asked again before one was decided): the one that expires first goes first.
  const candidates = await db.toolApproval.findMany({
    where: usable,
    orderBy: [{ expiresAt: "asc" }, { id: "asc" }],
    select: { id: true },
    take: 3,
  });
  for (const { id } of candidates) {
    const used = await db.toolApproval.updateMany({
      where: { ...usable, id },
      data: { state: "used", usedAt: now },
    });
    if (used.count === 1) return id;
  }
  return null;
}

export interface ApprovalRow {
  id: string;
  state: "pending" | "approved" | "denied" | "used";
  comment: string | null;
  expiresAt: Date;
  createdAt: Date;
}

const ROW = { id: true, state: true, comment: true, expiresAt: true, createdAt: true } as const;

/** The newest request for exactly this call, whatever its state. */
export async function latestApproval(db: DbTx, binding: ApprovalBinding): Promise<ApprovalRow | null> {
  return db.toolApproval.findFirst({
    where: whereBinding(binding),
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: ROW,
  });
}

/**
 * The request the call waits on: the newest one for this binding while it is pending and unexpired, or a new
 * pending one. Calls of one binding queue on a transaction-scoped advisory lock, so two calls arriving together
 * make one request, not two. `created` says whether this call made it; `previous` is the newest request before.
 */
export async function findOrCreatePendingApproval(
  db: Tx,
  binding: ApprovalBinding,
  request: {
    requested: string;
    arguments: Record<string, unknown>;
    reason: string;
    policyId?: string | null;
    expiresAt: Date;
  },
  now: Date = new Date(),
): Promise<{ approval: ApprovalRow; created: boolean; previous: ApprovalRow | null }> {
  const key = `tool-approval:${JSON.stringify(whereBinding(binding))}`;
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
    const previous = await latestApproval(tx, binding);
    if (previous && previous.state === "pending" && previous.expiresAt > now)
      return { approval: previous, created: false, previous };
    const approval = await tx.toolApproval.create({
      data: {
        ...whereBinding(binding),
        requested: request.requested,
        arguments: request.arguments as Prisma.InputJsonValue,
        reason: request.reason,
        policyId: request.policyId ?? null,
        expiresAt: request.expiresAt,
        createdAt: now,
      },
      select: ROW,
    });
    return { approval, created: true, previous };
  });
}
