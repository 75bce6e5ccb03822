import { z } from "zod";

import { FAILURE_STATUSES } from "../../status/groups";
import { JOB_NAMES, type JobName } from "./names";

const id = z.string().min(1).max(200);
const requestedBy = z.string().min(1).nullable().optional();

/** Why a discovery runs; it decides nothing, it is logged and kept in events for the console. */
export const DISCOVERY_REASONS = [
  "provisioned",
  "config_changed",
  "restart",
  "recovery",
  "rediscovery",
  "reconcile",
  "crash_restart",
  "oauth_authorized",
] as const;
export type DiscoveryReason = (typeof DISCOVERY_REASONS)[number];

/** The lists an upstream can say changed (notifications/{kind}/list_changed). */
export const LIST_KINDS = ["tools", "resources", "prompts"] as const;

/** Payload schema per job name. The worker re-parses every payload with these before touching anything. */
export const JOB_PAYLOAD_SCHEMAS = {
  [JOB_NAMES.discover]: z.object({ instanceId: id, reason: z.enum(DISCOVERY_REASONS) }),
  [JOB_NAMES.reconnect]: z.object({ instanceId: id }),
  [JOB_NAMES.health]: z.object({ instanceId: id }),
  [JOB_NAMES.forceReconnect]: z.object({ instanceId: id, requestedBy }),
  [JOB_NAMES.restart]: z.object({ instanceId: id, requestedBy }),
  [JOB_NAMES.callFailed]: z.object({
    instanceId: id,
    status: z.enum(FAILURE_STATUSES),
    message: z.string().max(2_000),
    /**
     * When the evidence began: the failed call's start (the route), or the last moment a lost worker was known
     * alive (the gateway's sweep). A report about a connection older than the instance's last status change is
     * stale and changes nothing (policy `callFailureApplies`). Absent: the worker's own evidence about the
     * current connection (a health check, a faulted process), applied as it comes.
     */
    startedAt: z.iso.datetime({ offset: true }).optional(),
  }),
  [JOB_NAMES.crashed]: z.object({
    instanceId: id,
    at: z.iso.datetime({ offset: true }),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    stderrTail: z.string().max(16_384).optional(),
  }),
  [JOB_NAMES.installationCreated]: z.object({ installationId: id }),
  [JOB_NAMES.configChanged]: z.object({ installationId: id, userId: id.optional() }),
  // The console may delete the rows before the worker runs, so removal jobs carry the instance ids themselves.
  [JOB_NAMES.installationRemoved]: z.object({ installationId: id, teamId: id, instanceIds: z.array(id) }),
  [JOB_NAMES.memberRemoved]: z.object({ teamId: id, userId: id, instanceIds: z.array(id) }),
  [JOB_NAMES.oauthAuthorized]: z.object({ instanceId: id }),
  [JOB_NAMES.oauthRefresh]: z.object({ instanceId: id, reason: z.enum(["scheduled", "unauthorized"]) }),
  [JOB_NAMES.oauthFlowCleanup]: z.object({}),
  [JOB_NAMES.activityRollup]: z.object({}),
  [JOB_NAMES.retentionPrune]: z.object({}),
  // The resolved launch is sealed with the deployment's key (its env may hold secrets; the payload sits in Redis).
  [JOB_NAMES.connectionTest]: z.object({
    teamId: id,
    sealedLaunch: z.string().min(1).max(200_000),
    envKeys: z.array(z.string().max(200)).max(100),
  }),
  // The list that said it changed first (later ones coalesce into the same job): the refresh lists them all.
  [JOB_NAMES.catalogueRefresh]: z.object({ instanceId: id, kind: z.enum(LIST_KINDS) }),
} as const satisfies Record<JobName, z.ZodType>;

export type JobPayload<N extends JobName> = z.infer<(typeof JOB_PAYLOAD_SCHEMAS)[N]>;

export type ParsedJob = { [N in JobName]: { name: N; payload: JobPayload<N> } }[JobName];

export type ParseJobResult =
  | { success: true; job: ParsedJob }
  | { success: false; reason: "unknown_job"; error: string }
  | { success: false; reason: "invalid_payload"; error: string };

/** Parses a job by name. Never throws: the worker turns a failure into a single non-retried failure. */
export function parseJob(name: string, data: unknown): ParseJobResult {
  if (!Object.hasOwn(JOB_PAYLOAD_SCHEMAS, name)) {
    return { success: false, reason: "unknown_job", error: `Unknown job name: ${name}` };
  }
  const schema = JOB_PAYLOAD_SCHEMAS[name as JobName];
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    return { success: false, reason: "invalid_payload", error: `${name}: ${z.prettifyError(parsed.error)}` };
  }
  return { success: true, job: { name, payload: parsed.data } as ParsedJob };
}

/** Validates a payload on the producer side; throws on a bug in the caller. */
export function jobPayload<N extends JobName>(name: N, data: JobPayload<N>): JobPayload<N> {
  return JOB_PAYLOAD_SCHEMAS[name].parse(data) as JobPayload<N>;
}
