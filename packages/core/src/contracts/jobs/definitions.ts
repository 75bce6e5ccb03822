import { z } from "zod";

import { FAILURE_STATUSES } from "../../status/groups";
import { JOB_OPTION_PRESETS as OPTIONS, type JobOptions } from "./options";

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

/**
 * One job: the name the producers and the worker spell (jobs already queued carry it, so it never changes), the
 * payload schema (the producer validates with it, the worker re-parses every payload with it before touching
 * anything) and the queue options it is added with unless its caller names others.
 */
export interface JobDefinition<N extends string = string, S extends z.ZodType = z.ZodType> {
  readonly name: N;
  readonly schema: S;
  readonly options: JobOptions;
}

const defineJob = <const N extends string, S extends z.ZodType>(definition: JobDefinition<N, S>) => definition;

/**
 * Every job, one definition each (formbricks `packages/jobs`). The worker pairs each name with its handler in
 * one table (`apps/worker/src/processors/index.ts`); adding a job is a definition here and its handler there.
 */
export const JOBS = {
  /** Connect and run a full discovery of one instance (provisioning ... online). */
  discover: defineJob({
    name: "instance.discover",
    schema: z.object({ instanceId: id, reason: z.enum(DISCOVERY_REASONS) }),
    options: OPTIONS.singleton,
  }),
  /** One delayed reconnect loop per instance (offline / error), with the core backoff. */
  reconnect: defineJob({
    name: "instance.reconnect",
    schema: z.object({ instanceId: id }),
    options: OPTIONS.singleton,
  }),
  /** Health probe of one instance, produced by its job scheduler. */
  health: defineJob({
    name: "instance.health",
    schema: z.object({ instanceId: id }),
    options: OPTIONS.repeated,
  }),
  /** Ops: cancel the scheduled retry and try now; close and reopen an online connection. */
  forceReconnect: defineJob({
    name: "instance.force-reconnect",
    schema: z.object({ instanceId: id, requestedBy }),
    options: OPTIONS.trigger,
  }),
  /** Ops: restart an instance, e.g. out of permanently_failed (clears the crash history). */
  restart: defineJob({
    name: "instance.restart",
    schema: z.object({ instanceId: id, requestedBy }),
    options: OPTIONS.trigger,
  }),
  /**
   * The proxy's call to an instance failed after its retries (core StatusSink.callFailed), or its health checks
   * failed three times in a row, or the gateway found the worker running it gone: the worker writes the
   * classified status and, for offline / error, starts the reconnect loop.
   */
  callFailed: defineJob({
    name: "instance.call-failed",
    schema: z.object({
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
    options: OPTIONS.trigger,
  }),
  /** A stdio process the worker hosts exited without being asked to (applies the crash policy). */
  crashed: defineJob({
    name: "instance.crashed",
    schema: z.object({
      instanceId: id,
      at: z.iso.datetime({ offset: true }),
      exitCode: z.number().int().nullable(),
      signal: z.string().nullable(),
      stderrTail: z.string().max(16_384).optional(),
    }),
    options: OPTIONS.trigger,
  }),
  /** An installation was created: one instance per member. */
  installationCreated: defineJob({
    name: "installation.created",
    schema: z.object({ installationId: id }),
    options: OPTIONS.trigger,
  }),
  /** Team values (userId absent) or one member's values (userId set) of an installation changed. */
  configChanged: defineJob({
    name: "config.changed",
    schema: z.object({ installationId: id, userId: id.optional() }),
    options: OPTIONS.trigger,
  }),
  /** An installation was removed: stop every job, schedule and process of its instances. */
  installationRemoved: defineJob({
    name: "installation.removed",
    // The console may delete the rows before the worker runs, so removal jobs carry the instance ids themselves.
    schema: z.object({ installationId: id, teamId: id, instanceIds: z.array(id) }),
    options: OPTIONS.trigger,
  }),
  /** A member left a team: same as removal, for that member's instances. */
  memberRemoved: defineJob({
    name: "member.removed",
    schema: z.object({ teamId: id, userId: id, instanceIds: z.array(id) }),
    options: OPTIONS.trigger,
  }),
  /**
   * A member finished an OAuth authorization in the console and their tokens are stored: the worker moves the
   * instance (out of requires_reauth, if it was there) to connecting and re-discovers.
   */
  oauthAuthorized: defineJob({
    name: "instance.oauth-authorized",
    schema: z.object({ instanceId: id }),
    options: OPTIONS.trigger,
  }),
  /**
   * Refresh an instance's OAuth access token. `scheduled`: the per-instance loop that refreshes shortly before
   * expiry and puts itself back to sleep; `unauthorized`: the proxy got a 401 with the stored token.
   */
  oauthRefresh: defineJob({
    name: "instance.oauth-refresh",
    schema: z.object({ instanceId: id, reason: z.enum(["scheduled", "unauthorized"]) }),
    options: OPTIONS.singletonOnce,
  }),
  /** Housekeeping every 15 minutes: delete expired and used OAuth pending flows (OAUTH_FLOW_CLEANUP). */
  oauthFlowCleanup: defineJob({
    name: "maintenance.oauth-flow-cleanup",
    schema: z.object({}),
    options: OPTIONS.repeated,
  }),
  /** Every minute: the activity roll-ups read the request log written since their watermark (ACTIVITY_ROLLUP). */
  activityRollup: defineJob({
    name: "maintenance.activity-rollup",
    schema: z.object({}),
    options: OPTIONS.repeated,
  }),
  /** Housekeeping every hour: delete request log and audit records past each team's retention (RETENTION_PRUNE). */
  retentionPrune: defineJob({
    name: "maintenance.retention-prune",
    schema: z.object({}),
    options: OPTIONS.repeated,
  }),
  /**
   * "Test connection" of a local command before it is installed: start it once in the sandbox, list its tools,
   * stop it. The console waits for the job's return value (core ConnectionTestResult).
   */
  connectionTest: defineJob({
    name: "connection.test",
    // The resolved launch is sealed with the deployment's key (its env may hold secrets; the payload sits in Redis).
    schema: z.object({
      teamId: id,
      sealedLaunch: z.string().min(1).max(200_000),
      envKeys: z.array(z.string().max(200)).max(100),
    }),
    options: OPTIONS.connectionTest,
  }),
  /**
   * An online instance's upstream said a list changed (notifications/{tools,prompts,resources}/list_changed):
   * list again and sync the catalogue without leaving online (a discovery would walk the status machine).
   */
  catalogueRefresh: defineJob({
    name: "instance.catalogue-refresh",
    // The list that said it changed first (later ones coalesce into the same job): the refresh lists them all.
    schema: z.object({ instanceId: id, kind: z.enum(LIST_KINDS) }),
    options: OPTIONS.catalogueRefresh,
  }),
} as const;

type Jobs = typeof JOBS;

/** Job names, as the producers and the worker spell them (`JOB_NAMES.discover` is "instance.discover"). */
export const JOB_NAMES = Object.fromEntries(Object.entries(JOBS).map(([key, job]) => [key, job.name])) as {
  readonly [K in keyof Jobs]: Jobs[K]["name"];
};

export type JobName = Jobs[keyof Jobs]["name"];

type JobsByName = { readonly [K in keyof Jobs as Jobs[K]["name"]]: Jobs[K] };

/** The registry: each definition under its job name. */
export const JOB_DEFINITIONS = Object.fromEntries(Object.values(JOBS).map((job) => [job.name, job])) as JobsByName;

export type JobPayload<N extends JobName> = z.infer<JobsByName[N]["schema"]>;

/** The definition of a job name (`undefined` for a name no definition has, e.g. from an old or foreign producer). */
export function jobDefinition(name: string): JobDefinition | undefined {
  return Object.hasOwn(JOB_DEFINITIONS, name) ? JOB_DEFINITIONS[name as JobName] : undefined;
}
