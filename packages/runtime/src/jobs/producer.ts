import { Queue, type JobsOptions, type RedisOptions } from "bullmq";
import { INSTANCE_QUEUE, jobIds, JOB_NAMES, jobPayload, type JobName, type JobPayload, redisConnectionFromUrl } from "@switchboard/core/jobs";

/**
 * The console's side of the worker's queue: one function per trigger, each validating its payload with the
 * core contract before it is queued (the worker validates again). Triggers are retried a few times on
 * infrastructure errors; rediscovery is deduplicated per instance like the worker's own discovery jobs.
 */
const TRIGGER: JobsOptions = {
  attempts: 5,
  backoff: { type: "exponential", delay: 1_000 },
  removeOnComplete: { count: 1_000 },
  removeOnFail: { count: 5_000 },
};

export interface JobProducer {
  enqueueInstallationCreated(input: JobPayload<"installation.created">): Promise<void>;
  /** Team values changed (no userId) or one member's values changed / were filled in (userId). */
  enqueueConfigChanged(input: JobPayload<"config.changed">): Promise<void>;
  enqueueForceReconnect(input: JobPayload<"instance.force-reconnect">): Promise<void>;
  enqueueRestart(input: JobPayload<"instance.restart">): Promise<void>;
  /** Read the instance ids before deleting the installation: the rows may be gone when the worker runs. */
  enqueueInstallationRemoved(input: JobPayload<"installation.removed">): Promise<void>;
  enqueueMemberRemoved(input: JobPayload<"member.removed">): Promise<void>;
  /** Proxy recovery (core RediscoveryTrigger) or tools/list_changed from an upstream. */
  requestRediscovery(input: { instanceId: string }): Promise<void>;
  /** Proxy call failure after retries (core StatusSink.callFailed). */
  reportCallFailed(input: JobPayload<"instance.call-failed">): Promise<void>;
  /**
   * OAuth: `authorized` (tokens stored by the callback: reconnect, and make sure the refresh loop runs with the
   * new expiry) or `unauthorized` (the route got a 401 with the stored token: refresh now).
   */
  enqueueOAuth(input: { instanceId: string; event: "authorized" | "unauthorized" }): Promise<void>;
  close(): Promise<void>;
}

export function createJobProducer(queue: Queue): JobProducer {
  const add = async <N extends JobName>(name: N, data: JobPayload<N>, opts: JobsOptions = TRIGGER) => {
    await queue.add(name, jobPayload(name, data), opts);
  };
  return {
    enqueueInstallationCreated: (input) => add(JOB_NAMES.installationCreated, input),
    enqueueConfigChanged: (input) => add(JOB_NAMES.configChanged, input),
    enqueueForceReconnect: (input) => add(JOB_NAMES.forceReconnect, input),
    enqueueRestart: (input) => add(JOB_NAMES.restart, input),
    enqueueInstallationRemoved: (input) => add(JOB_NAMES.installationRemoved, input),
    enqueueMemberRemoved: (input) => add(JOB_NAMES.memberRemoved, input),
    requestRediscovery: ({ instanceId }) =>
      add(
        JOB_NAMES.discover,
        { instanceId, reason: "rediscovery" },
        { jobId: jobIds.discover(instanceId), removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: "exponential", delay: 1_000 } },
      ),
    reportCallFailed: (input) => add(JOB_NAMES.callFailed, input),
    enqueueOAuth: async ({ instanceId, event }) => {
      const once = { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: "exponential", delay: 1_000 } } as const;
      if (event === "unauthorized") {
        await add(JOB_NAMES.oauthRefresh, { instanceId, reason: "unauthorized" }, { ...once, jobId: jobIds.oauthUnauthorized(instanceId) });
        return;
      }
      await add(JOB_NAMES.oauthAuthorized, { instanceId });
      // The loop sleeps until the old token's refresh time: wake it so it plans from the new expiry.
      const loop = await queue.getJob(jobIds.oauthRefresh(instanceId));
      if (loop && (await loop.isDelayed())) await loop.promote().catch(() => {});
      else if (!loop) await add(JOB_NAMES.oauthRefresh, { instanceId, reason: "scheduled" }, { ...once, jobId: jobIds.oauthRefresh(instanceId) });
    },
    close: () => queue.close(),
  };
}

/** Connection options for a producer: fail a request after a few retries instead of hanging a tRPC call. */
export function producerConnection(redisUrl: string): RedisOptions {
  return {
    ...redisConnectionFromUrl(redisUrl),
    maxRetriesPerRequest: 3,
    connectionName: "switchboard-web-producer",
  };
}

export function createInstanceQueueProducer(opts: { redisUrl: string; prefix: string }): JobProducer {
  return createJobProducer(new Queue(INSTANCE_QUEUE, { connection: producerConnection(opts.redisUrl), prefix: opts.prefix }));
}
