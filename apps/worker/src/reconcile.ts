import { IN_PROGRESS_STATUSES, RETRYING_STATUSES, type InstanceStatus } from "@switchboard/core/status";
import { type InstanceRef, listInstanceRefsByStatus } from "@switchboard/db/queries/instance";
import { getInstanceState } from "@switchboard/db/queries/instance-lifecycle";
import type { WorkerDeps } from "./deps";
import { startReconnectLoop } from "./reconnect-schedule";

async function eachPage(
  deps: WorkerDeps,
  statuses: readonly InstanceStatus[],
  fn: (ref: InstanceRef) => Promise<void>,
) {
  let afterId: string | undefined;
  for (;;) {
    const page = await listInstanceRefsByStatus(deps.db, { statuses, afterId, take: 500 });
    if (page.length === 0) return;
    // Bounded parallelism: 10,000 schedules upsert in seconds without opening thousands of requests at once.
    for (let i = 0; i < page.length; i += 50) await Promise.all(page.slice(i, i + 50).map(fn));
    afterId = page.at(-1)?.id;
  }
}

/**
 * Brings Redis in line with PostgreSQL at start-up (the demo seed, a restarted worker, a flushed Redis).
 * Idempotent: discovery jobs and reconnect jobs have deterministic ids, health schedulers are upserted
 * under a per-instance id with per-instance values, so running it twice adds nothing. The housekeeping
 * schedulers (fixed ids) are upserted here too, so a Redis that lost its data gets them back.
 */
export async function reconcile(deps: WorkerDeps): Promise<{ discover: number; health: number; reconnect: number }> {
  const counts = { discover: 0, health: 0, reconnect: 0 };
  await deps.jobs.upsertMaintenance();
  await eachPage(deps, IN_PROGRESS_STATUSES, async (ref) => {
    await deps.jobs.enqueueDiscover(ref.id, "reconcile");
    counts.discover++;
  });
  await eachPage(deps, ["online"], async (ref) => {
    await deps.jobs.upsertHealth(ref.id);
    counts.health++;
  });
  await eachPage(deps, RETRYING_STATUSES, async (ref) => {
    if (await deps.jobs.hasReconnect(ref.id)) return;
    const state = await getInstanceState(deps.db, ref.id);
    if (!state) return;
    // Keep the backoff where it was: wait what was left of the recorded delay.
    const added =
      state.reconnectAttempt > 0 && state.nextRetryAt
        ? await deps.jobs.scheduleReconnect(ref.id, Math.max(0, state.nextRetryAt.getTime() - deps.clock().getTime()))
        : await startReconnectLoop(
            deps,
            ref.id,
            state.lastError ?? state.statusMessage ?? "Unreachable when the worker started",
          );
    if (added) counts.reconnect++;
  });
  deps.logger.info(counts, "reconciled instances from the database");
  return counts;
}
