import type { JobPayload } from "@switchboard/core/contracts";
import { isLaunched } from "@switchboard/core/status";
import { getInstallationForProvisioning } from "@switchboard/db/queries/installation";
import { RECONNECT_RESET } from "@switchboard/db/queries/instance-lifecycle";
import type { JobContext, WorkerDeps } from "../deps";
import { stopInstanceRuntime, withInstanceLock, type LockDeps, type StopDeps } from "../instance-lock";
import { configFields, missingUserFields } from "@switchboard/db/launch";

export type ConfigChangedDeps = LockDeps & StopDeps & Pick<WorkerDeps, "db" | "secrets" | "recorder">;

/**
 * Team values (every instance of the installation) or one member's values changed:
 * - required member fields now complete on an awaiting_user_config instance: provisioning -> discovery;
 * - required member fields now missing: awaiting_user_config, everything stopped;
 * - a running (or retrying) instance: restarting -> reconnect with the new configuration -> discovery.
 * permanently_failed stays put: only an explicit restart leaves it.
 */
export async function processConfigChanged(
  payload: JobPayload<"config.changed">,
  ctx: JobContext,
  deps: ConfigChangedDeps,
) {
  const installation = await getInstallationForProvisioning(deps.db, payload.installationId);
  if (!installation) return { skipped: "installation not found" };
  const fields = configFields(installation.template.fields);
  const targets = installation.instances.filter((i) => payload.userId === undefined || i.userId === payload.userId);
  const results: Record<string, string> = {};

  for (const instance of targets) {
    deps.secrets.forget(instance.id);
    results[instance.id] = await withInstanceLock(deps, ctx, instance.id, async () => {
      const missing = missingUserFields(fields, installation.values, instance.values);
      const status = instance.status;
      if (missing.length > 0) {
        if (status === "awaiting_user_config") return "still awaiting";
        await stopInstanceRuntime(deps, instance.id);
        await deps.recorder.transition(instance.id, "awaiting_user_config", {
          message: `Waiting for your settings: ${missing.join(", ")}`,
          data: { ...RECONNECT_RESET },
        });
        return "awaiting_user_config";
      }
      if (status === "awaiting_user_config") {
        await deps.recorder.transition(instance.id, "provisioning", { message: null });
        await deps.jobs.enqueueDiscover(instance.id, "provisioned");
        return "provisioning";
      }
      if (status === "provisioning") {
        await deps.jobs.enqueueDiscover(instance.id, "provisioned");
        return "provisioning";
      }
      if (!isLaunched(status)) return `left ${status}`;
      await stopInstanceRuntime(deps, instance.id);
      await deps.recorder.transition(instance.id, "restarting", {
        message: "Configuration changed",
        data: { ...RECONNECT_RESET },
      });
      await deps.recorder.event(
        { id: instance.id, teamId: installation.teamId, installationId: installation.id, userId: instance.userId },
        "server_restarted",
        { reason: "config_changed" },
      );
      await deps.jobs.enqueueDiscover(instance.id, "config_changed");
      return "restarting";
    });
  }
  ctx.logger.info({ results }, "configuration change applied");
  return results;
}
