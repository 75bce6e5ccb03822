import type { InstanceEventType } from "./event-types";

/**
 * Raw detail in event payloads that only admins see: a process's stderr tail and an upstream's error text as
 * it came (redacted of secrets, but still another party's words, paths and hosts). Members get the event
 * without them: its type and counts, and the status message the instance shows them.
 */
export const ADMIN_ONLY_EVENT_DETAIL: Readonly<Partial<Record<InstanceEventType, readonly string[]>>> = Object.freeze({
  server_crashed: ["stderrTail"],
  server_reconnecting: ["lastError"],
  server_health_degraded: ["lastError"],
  server_disconnected: ["reason"],
  discovery_failed: ["error"],
});

/** The payload as a plain member may see it (admins: unchanged). */
export function eventPayloadForViewer(type: string, payload: Record<string, unknown>, viewer: { admin: boolean }): Record<string, unknown> {
  if (viewer.admin) return payload;
  const hidden = ADMIN_ONLY_EVENT_DETAIL[type as InstanceEventType];
  if (!hidden) return payload;
  return Object.fromEntries(Object.entries(payload).filter(([k]) => !hidden.includes(k)));
}
