/**
 * The single BullMQ queue every instance job goes through. One queue keeps one ordered view of an instance's
 * work (discovery, reconnect, health, triggers) and one worker pool; job names tell the processors apart.
 *
 * The braces are a Redis Cluster hash tag: BullMQ's scripts touch several keys of a queue at once
 * (`<prefix>:{instances}:wait`, `...:active`, `...:<jobId>`), and a cluster runs a script only when all its keys
 * hash to one slot. Redis hashes only the part in braces, so every key of the queue lands in one slot.
 */
export const INSTANCE_QUEUE = "{instances}";

/** Job names, as the producer (web) and the worker spell them. */
export const JOB_NAMES = {
  /** Connect and run a full discovery of one instance (provisioning ... online). */
  discover: "instance.discover",
  /** One delayed reconnect loop per instance (offline / error), with the core backoff. */
  reconnect: "instance.reconnect",
  /** Health probe of one instance, produced by its job scheduler. */
  health: "instance.health",
  /** Ops: cancel the scheduled retry and try now; close and reopen an online connection. */
  forceReconnect: "instance.force-reconnect",
  /** Ops: restart an instance, e.g. out of permanently_failed (clears the crash history). */
  restart: "instance.restart",
  /**
   * The proxy's call to an instance failed after its retries (core StatusSink.callFailed), or its health checks
   * failed three times in a row, or the gateway found the worker running it gone: the worker writes the
   * classified status and, for offline / error, starts the reconnect loop.
   */
  callFailed: "instance.call-failed",
  /** A stdio process the worker hosts exited without being asked to (applies the crash policy). */
  crashed: "instance.crashed",
  /** An installation was created: one instance per member. */
  installationCreated: "installation.created",
  /** Team values (userId absent) or one member's values (userId set) of an installation changed. */
  configChanged: "config.changed",
  /** An installation was removed: stop every job, schedule and process of its instances. */
  installationRemoved: "installation.removed",
  /** A member left a team: same as removal, for that member's instances. */
  memberRemoved: "member.removed",
  /**
   * A member finished an OAuth authorization in the console and their tokens are stored: the worker moves the
   * instance (out of requires_reauth, if it was there) to connecting and re-discovers.
   */
  oauthAuthorized: "instance.oauth-authorized",
  /**
   * Refresh an instance's OAuth access token. `scheduled`: the per-instance loop that refreshes shortly before
   * expiry and puts itself back to sleep; `unauthorized`: the proxy got a 401 with the stored token.
   */
  oauthRefresh: "instance.oauth-refresh",
  /** Housekeeping every 15 minutes: delete expired and used OAuth pending flows (OAUTH_FLOW_CLEANUP). */
  oauthFlowCleanup: "maintenance.oauth-flow-cleanup",
  /** Every minute: the activity roll-ups read the request log written since their watermark (ACTIVITY_ROLLUP). */
  activityRollup: "maintenance.activity-rollup",
  /** Housekeeping every hour: delete request log and audit records past each team's retention (RETENTION_PRUNE). */
  retentionPrune: "maintenance.retention-prune",
  /**
   * "Test connection" of a local command before it is installed: start it once in the sandbox, list its tools,
   * stop it. The console waits for the job's return value (core ConnectionTestResult).
   */
  connectionTest: "connection.test",
  /**
   * An online instance's upstream said a list changed (notifications/{tools,prompts,resources}/list_changed):
   * list again and sync the catalogue without leaving online (a discovery would walk the status machine).
   */
  catalogueRefresh: "instance.catalogue-refresh",
} as const;

export type JobName = (typeof JOB_NAMES)[keyof typeof JOB_NAMES];

const NAME_SET: ReadonlySet<string> = new Set(Object.values(JOB_NAMES));

export function isJobName(name: string): name is JobName {
  return NAME_SET.has(name);
}
