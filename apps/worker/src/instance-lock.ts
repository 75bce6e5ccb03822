import type { JobContext, WorkerDeps } from "./deps";

export type LockDeps = Pick<WorkerDeps, "locks" | "tunables">;
export type StopDeps = Pick<WorkerDeps, "jobs" | "connections">;

/** Runs `fn` holding the instance's lock; when another job holds it, this job goes back to sleep briefly. */
export async function withInstanceLock<T>(
  deps: LockDeps,
  ctx: JobContext,
  instanceId: string,
  fn: () => Promise<T>,
): Promise<T> {
  const release = await deps.locks.tryAcquire(instanceId);
  if (!release) {
    ctx.logger.debug({ instanceId }, "instance busy, retrying shortly");
    return ctx.rescheduleSelf(deps.tunables.lockRetryMs + Math.floor(Math.random() * deps.tunables.lockRetryMs));
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}

/** Stops everything the worker runs for an instance: its jobs, its health schedule, its connection/process. */
export async function stopInstanceRuntime(deps: StopDeps, instanceId: string): Promise<void> {
  await deps.jobs.cancelReconnect(instanceId);
  await deps.jobs.cancelDiscover(instanceId);
  await deps.jobs.removeHealth(instanceId);
  await deps.connections.evict(instanceId);
}
