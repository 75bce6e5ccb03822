import { z } from "zod";

import { INSTANCE_STATUSES } from "../status/statuses";

const count = z.number().int().nonnegative();
const statusSchema = z.enum(INSTANCE_STATUSES);

/** Payload schema per instance event type. Published by the worker, consumed by the console and the gateway. */
export const EVENT_PAYLOAD_SCHEMAS = {
  status_changed: z.object({
    /** null when the instance is created. */
    from: statusSchema.nullable(),
    to: statusSchema,
    message: z.string().optional(),
    /** The raw failure text behind the message (bounded, cleaned; admins only). */
    detail: z.string().optional(),
  }),
  server_disconnected: z.object({ reason: z.string(), wasIntentional: z.boolean() }),
  server_reconnecting: z.object({ attempt: count, nextRetryMs: count, lastError: z.string().optional() }),
  server_reconnected: z.object({ attemptsTaken: count, capabilities: z.record(z.string(), z.unknown()) }),
  server_health_degraded: z.object({ consecutiveFailures: count, lastError: z.string().optional() }),
  server_health_restored: z.object({ failuresBeforeRestore: count }),
  server_crashed: z.object({
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    crashesInWindow: count,
    stderrTail: z.string().optional(),
  }),
  server_permanently_failed: z.object({ crashesInWindow: count, message: z.string() }),
  /** Someone pressed Reconnect (or an admin's "Reconnect all failing"): who, and from which status. */
  reconnect_requested: z.object({ requestedBy: z.string().nullable(), from: statusSchema }),
  server_restarted: z.object({
    reason: z.enum(["config_changed", "manual", "reauthenticated", "recovery"]),
    requestedBy: z.string().nullable().optional(),
  }),
  discovery_completed: z.object({
    toolCount: count,
    resourceCount: count,
    resourceTemplateCount: count,
    promptCount: count,
    totalTokens: count,
    durationMs: count,
  }),
  discovery_failed: z.object({
    error: z.string(),
    /** True when the previously discovered tools stay in the catalogue (re-discovery failure keeps the cache). */
    keptCachedTools: z.boolean(),
  }),
  tools_changed: z.object({ added: z.array(z.string()), removed: z.array(z.string()), changed: z.array(z.string()) }),
  /** The member's visible catalogue changed (tools of this instance appeared or disappeared). */
  catalogue_changed: z.object({ reason: z.string().optional() }),
  /** Pinned installation: a discovery found new or changed tool definitions, held back until an admin reviews them. */
  tool_review_pending: z.object({ tools: z.array(z.string()) }),
  /** An admin approved or rejected a held-back tool definition. */
  tool_review_decided: z.object({ tool: z.string(), decision: z.enum(["approved", "rejected"]), by: z.string() }),
  /**
   * A member's call to a tool that needs approval is held: a new request waits for an approver (the envelope's
   * `userId` is the caller). No arguments: the console reads the request through its own authorized query.
   */
  approval_requested: z.object({ approvalId: z.string(), tool: z.string() }),
} as const;

export type InstanceEventType = keyof typeof EVENT_PAYLOAD_SCHEMAS;

export const INSTANCE_EVENT_TYPES = Object.freeze(
  Object.keys(EVENT_PAYLOAD_SCHEMAS) as InstanceEventType[],
) as readonly InstanceEventType[];

export type EventPayload<T extends InstanceEventType> = z.infer<(typeof EVENT_PAYLOAD_SCHEMAS)[T]>;
