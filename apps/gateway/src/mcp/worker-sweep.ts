import { statusChangeEvents } from "@switchboard/core/events";
import { afterWorkerLost, WORKER_LOST_MESSAGE } from "@switchboard/core/status";
import { getDb } from "@switchboard/db/client";
import { getInstanceRef } from "@switchboard/db/queries/instance";
import { RECONNECT_RESET, transitionInstanceStatus } from "@switchboard/db/queries/instance-lifecycle";
import { env } from "@switchboard/runtime/env";
import { RedisEventPublisher } from "@switchboard/runtime/instance-events";
import { logger } from "@switchboard/runtime/logger";
import { redis } from "@switchboard/runtime/redis";
import { WorkerRegistry } from "@switchboard/runtime/workers";
import { workerJobs } from "./worker-jobs";

/** The workers' heartbeats, read with this process's Redis connection. */
export function workerRegistry(): WorkerRegistry {
  return new WorkerRegistry(redis(), env().REDIS_PREFIX);
}

/**
 * Takes back the stdio instances of workers that stopped without leaving (their heartbeat ran out: SIGKILL, out
 * of memory, a lost host), so that nothing shows online that nothing runs. A worker cannot notice its own death,
 * and with one worker there is nobody else: the gateway, which reads the heartbeats anyway, does it.
 * - Another worker is alive: each instance is reported like a failed call (offline, WORKER_LOST_MESSAGE); that
 *   worker applies it and its reconnect loop starts the server again on a live worker right away.
 * - No worker is alive: the gateway writes the status itself (offline, the same message, and the live events),
 *   and the next worker's reconciliation starts the reconnect loops.
 * The dead worker's leases are dropped first, so the next worker takes the instances over without waiting for
 * the leases to expire. One sweeper claims each gone worker; what a sweep cut short leaves goes back to the next
 * one (every step is idempotent). A worker that was only paused finds itself no longer counted at its next beat
 * and reconciles, which restarts what the sweep took down.
 */
export async function sweepLostWorkers(): Promise<{ workers: number; instances: number }> {
  const registry = workerRegistry();
  const { live, gone } = await registry.members();
  let workers = 0;
  let instances = 0;
  for (const workerId of gone) {
    const held = await registry.claim(workerId);
    if (!held) continue;
    workers++;
    for (const [i, instanceId] of held.entries()) {
      try {
        await registry.dropLease(instanceId, workerId);
        if (live.length > 0) await workerJobs().reportCallFailed(instanceId, "offline", WORKER_LOST_MESSAGE);
        else await markLost(instanceId);
        instances++;
      } catch (error) {
        // PostgreSQL or Redis away: what is left goes back to the next sweep.
        await registry.unclaim(workerId, held.slice(i));
        throw error;
      }
    }
    logger.warn(
      { workerId, instances: held.length, liveWorkers: live.length },
      "worker gone; its stdio servers taken back",
    );
  }
  return { workers, instances };
}

async function markLost(instanceId: string): Promise<void> {
  const db = getDb();
  const ref = await getInstanceRef(db, instanceId);
  const to = ref && afterWorkerLost(ref.status);
  if (!ref || !to) return;
  const at = new Date();
  const result = await transitionInstanceStatus(db, {
    instanceId,
    to,
    at,
    message: WORKER_LOST_MESSAGE,
    onlyFrom: [ref.status],
    data: { ...RECONNECT_RESET, lastError: WORKER_LOST_MESSAGE },
  });
  if (result.outcome !== "changed") return;
  const publisher = new RedisEventPublisher(redis(), env().REDIS_PREFIX, (err) =>
    logger.warn({ err, instanceId }, "publish failed"),
  );
  const ids = { teamId: ref.teamId, installationId: ref.installationId, instanceId, userId: ref.userId };
  for (const e of statusChangeEvents({ from: result.from, to: result.to, message: WORKER_LOST_MESSAGE }))
    await publisher.publish(e.type, ids, e.payload, at);
}

/**
 * Sweeps every WORKER_HEARTBEAT_MS, one gateway process per tick (a Redis lock that expires by itself). Returns
 * the function that stops it.
 */
export function startWorkerSweep(): () => void {
  const everyMs = env().WORKER_HEARTBEAT_MS;
  let failing = false;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      if (await workerRegistry().trySweepLock(everyMs)) await sweepLostWorkers();
      failing = false;
    } catch (err) {
      // Redis or PostgreSQL away: said once per outage; the next tick tries again.
      if (!failing) logger.warn({ err }, "could not sweep lost workers");
      failing = true;
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
