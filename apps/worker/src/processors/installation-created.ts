import type { JobPayload } from "@switchboard/core/contracts";
import { createInstance, getInstallationForProvisioning } from "@switchboard/db/queries/installation";
import type { JobContext, WorkerDeps } from "../deps";
import { configFields, missingUserFields } from "@switchboard/db/launch";
import { eventIds } from "../recorder";

export type InstallationCreatedDeps = Pick<WorkerDeps, "db" | "clock" | "jobs" | "publisher">;

/**
 * One instance per member: provisioning (and a discovery job) when the member's required fields are all
 * there, awaiting_user_config otherwise (no process is started for those). Idempotent: members who already
 * have an instance are skipped, provisioning ones get their (deduplicated) discovery job again.
 */
export async function processInstallationCreated(
  payload: JobPayload<"installation.created">,
  ctx: JobContext,
  deps: InstallationCreatedDeps,
) {
  const installation = await getInstallationForProvisioning(deps.db, payload.installationId);
  if (!installation) return { skipped: "installation not found" };
  const fields = configFields(installation.template.fields);
  const existing = new Map(installation.instances.map((i) => [i.userId, i]));
  let created = 0;

  for (const { userId } of installation.team.memberships) {
    const current = existing.get(userId);
    if (current) {
      if (current.status === "provisioning") await deps.jobs.enqueueDiscover(current.id, "provisioned");
      continue;
    }
    const missing = missingUserFields(fields, installation.values, []);
    const status = missing.length > 0 ? "awaiting_user_config" : "provisioning";
    const message = missing.length > 0 ? `Waiting for your settings: ${missing.join(", ")}` : undefined;
    const at = deps.clock();
    const instance = await createInstance(deps.db, { installationId: installation.id, userId, status, message, at });
    if (!instance) continue;
    created++;
    await deps.publisher.publish(
      "status_changed",
      eventIds(instance),
      { from: null, to: status, ...(message ? { message } : {}) },
      at,
    );
    if (status === "provisioning") await deps.jobs.enqueueDiscover(instance.id, "provisioned");
  }
  ctx.logger.info({ created, members: installation.team.memberships.length }, "instances created");
  return { created };
}
