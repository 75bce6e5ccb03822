import type { InstanceStatus } from "@switchboard/core/status";
import type { DbTx, Tx } from "../client";

/** An installation with what provisioning needs: template fields, team values, members and their instances. */
export async function getInstallationForProvisioning(db: DbTx, installationId: string) {
  return db.installation.findUnique({
    where: { id: installationId },
    select: {
      id: true,
      teamId: true,
      slug: true,
      values: { select: { key: true, value: true, encrypted: true } },
      template: { select: { transport: true, fields: { orderBy: { position: "asc" } } } },
      team: { select: { memberships: { select: { userId: true } } } },
      instances: {
        select: {
          id: true,
          userId: true,
          status: true,
          values: { select: { key: true, value: true, encrypted: true } },
        },
      },
    },
  });
}

export type InstallationForProvisioning = NonNullable<Awaited<ReturnType<typeof getInstallationForProvisioning>>>;

/**
 * Creates a member's instance with its first status and a status_changed event (from null). Returns null when
 * the member already has one (idempotent: the trigger may run twice).
 */
export async function createInstance(
  db: Tx,
  input: { installationId: string; userId: string; status: InstanceStatus; message?: string; at: Date },
) {
  return db.$transaction(async (tx) => {
    const existing = await tx.instance.findUnique({
      where: { installationId_userId: { installationId: input.installationId, userId: input.userId } },
      select: { id: true },
    });
    if (existing) return null;
    const instance = await tx.instance.create({
      data: {
        installationId: input.installationId,
        userId: input.userId,
        status: input.status,
        statusMessage: input.message ?? null,
        statusChangedAt: input.at,
      },
      select: {
        id: true,
        installationId: true,
        userId: true,
        status: true,
        installation: { select: { teamId: true } },
      },
    });
    await tx.instanceEvent.create({
      data: {
        instanceId: instance.id,
        type: "status_changed",
        payload: { from: null, to: input.status, ...(input.message ? { message: input.message } : {}) },
        createdAt: input.at,
      },
    });
    return {
      id: instance.id,
      installationId: instance.installationId,
      userId: instance.userId,
      status: instance.status,
      teamId: instance.installation.teamId,
    };
  });
}
