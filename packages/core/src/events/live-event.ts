import { z } from "zod";

import { EVENT_PAYLOAD_SCHEMAS, type EventPayload, type InstanceEventType } from "./event-types";

const envelope = {
  teamId: z.string().min(1),
  installationId: z.string().min(1),
  instanceId: z.string().min(1),
  userId: z.string().min(1),
  at: z.iso.datetime({ offset: true }),
};

function variant<T extends InstanceEventType>(type: T) {
  return z.object({ ...envelope, type: z.literal(type), payload: EVENT_PAYLOAD_SCHEMAS[type] });
}

/** The envelope every live event travels in, discriminated on `type` so the payload is typed. */
export const liveEventSchema = z.discriminatedUnion("type", [
  variant("status_changed"),
  variant("server_disconnected"),
  variant("server_reconnecting"),
  variant("server_reconnected"),
  variant("server_health_degraded"),
  variant("server_health_restored"),
  variant("server_crashed"),
  variant("server_permanently_failed"),
  variant("server_restarted"),
  variant("reconnect_requested"),
  variant("discovery_completed"),
  variant("discovery_failed"),
  variant("tools_changed"),
  variant("catalogue_changed"),
  variant("tool_review_pending"),
  variant("tool_review_decided"),
  variant("approval_requested"),
]);

export type LiveEvent = z.infer<typeof liveEventSchema>;
export type LiveEventOf<T extends InstanceEventType> = Extract<LiveEvent, { type: T }>;

export type ParseLiveEventResult = { success: true; event: LiveEvent } | { success: false; error: string };

/**
 * Parses a message from the bus (a JSON string or an already decoded value). Never throws: a subscriber drops
 * and logs a malformed or unknown event instead of dying on it.
 */
export function parseLiveEvent(json: unknown): ParseLiveEventResult {
  let value: unknown = json;
  if (typeof json === "string") {
    try {
      value = JSON.parse(json);
    } catch (e) {
      return { success: false, error: `Invalid JSON: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  const parsed = liveEventSchema.safeParse(value);
  if (!parsed.success) return { success: false, error: z.prettifyError(parsed.error) };
  return { success: true, event: parsed.data };
}

/** Builds and validates an event for publishing; throws on an invalid payload (a bug in the publisher). */
export function createLiveEvent<T extends InstanceEventType>(
  type: T,
  ids: { teamId: string; installationId: string; instanceId: string; userId: string },
  payload: EventPayload<T>,
  at: Date = new Date(),
): LiveEventOf<T> {
  return liveEventSchema.parse({ ...ids, type, payload, at: at.toISOString() }) as LiveEventOf<T>;
}
