/**
 * Worker heartbeats, which the workers write and the gateway reads (`redisKeys.workersAlive`): each worker
 * renews its own every `everyMs`, valid for `missedBeats` renewals, so a worker that stops without leaving
 * (SIGKILL, a lost host) is known to be gone `everyMs * missedBeats` later. `WORKER_HEARTBEAT_MS` sets `everyMs`.
 */
export const WORKER_HEARTBEAT = Object.freeze({ everyMs: 5_000, missedBeats: 3 });

/** How long one heartbeat keeps a worker alive. */
export function heartbeatTtlMs(everyMs: number = WORKER_HEARTBEAT.everyMs): number {
  return everyMs * WORKER_HEARTBEAT.missedBeats;
}
