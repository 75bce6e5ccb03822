import { HEALTH_POLICY } from "./health";

/** FNV-1a over the id, mapped to [0, 1): a stable "random" per instance. */
export function stableFraction(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 0x1_0000_0000;
}

/**
 * Health schedule of one instance: every 120 s ± 10% and a first-run offset inside that interval, both derived
 * from the instance id. Spread: 10,000 instances do not probe in step. Stable: a restarted worker upserting the
 * schedule again computes the same values, so reconciliation changes nothing.
 */
export function healthSchedule(
  instanceId: string,
  intervalMs: number = HEALTH_POLICY.intervalMs,
): { everyMs: number; offsetMs: number } {
  const jitter = intervalMs * HEALTH_POLICY.jitter * (stableFraction(instanceId) * 2 - 1);
  const everyMs = Math.max(1, Math.round(intervalMs + jitter));
  const offsetMs = Math.floor(stableFraction(`${instanceId}#offset`) * everyMs);
  return { everyMs, offsetMs };
}
