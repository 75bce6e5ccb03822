import type { JobsOptions, Queue } from "bullmq";
import { jobIds, JOB_NAMES, jobPayload, type JobName, type JobPayload } from "@switchboard/core/contracts";

import { bullOptions, catalogueRefreshOptions, JOB_OPTIONS, jobOptions } from "./options";
import { queueConnection } from "../redis-client";
import { createInstanceQueue } from "./scheduling";

/**
 * The console's and the gateway's side of the worker's queue: one function per trigger, each validating its
 * payload with the core contract before it is queued (the worker validates again), with the options of the job's
 * core definition unless the call names others.
 */

export interface JobProducer {
  enqueueInstallationCreated(input: JobPayload<"installation.created">): Promise<void>;
  /** Team values changed (no userId) or one member's values changed / were filled in (userId). */
  enqueueConfigChanged(input: JobPayload<"config.changed">): Promise<void>;
  enqueueForceReconnect(input: JobPayload<"instance.force-reconnect">): Promise<void>;
  enqueueRestart(input: JobPayload<"instance.restart">): Promise<void>;
  /** Read the instance ids before deleting the installation: the rows may be gone when the worker runs. */
  enqueueInstallationRemoved(input: JobPayload<"installation.removed">): Promise<void>;
  enqueueMemberRemoved(input: JobPayload<"member.removed">): Promise<void>;
  /** Proxy recovery (core RediscoveryTrigger). */
  requestRediscovery(input: { instanceId: string }): Promise<void>;
  /** An online instance's upstream said a list changed: refresh its catalogue (one pending per instance). */
  requestCatalogueRefresh(input: JobPayload<"instance.catalogue-refresh">): Promise<void>;
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
  const add = async <N extends JobName>(name: N, data: JobPayload<N>, opts: JobsOptions = jobOptions(name)) => {
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
        bullOptions(JOB_OPTIONS.singletonOnce, { jobId: jobIds.discover(instanceId) }),
      ),
    requestCatalogueRefresh: (input) =>
      add(JOB_NAMES.catalogueRefresh, input, catalogueRefreshOptions(input.instanceId)),
    reportCallFailed: (input) => add(JOB_NAMES.callFailed, input),
    enqueueOAuth: async ({ instanceId, event }) => {
      if (event === "unauthorized") {
        await add(
          JOB_NAMES.oauthRefresh,
          { instanceId, reason: "unauthorized" },
          jobOptions(JOB_NAMES.oauthRefresh, { jobId: jobIds.oauthUnauthorized(instanceId) }),
        );
        return;
      }
      await add(JOB_NAMES.oauthAuthorized, { instanceId });
      // The loop sleeps until the old token's refresh time: wake it so it plans from the new expiry.
      const loop = await queue.getJob(jobIds.oauthRefresh(instanceId));
      if (loop && (await loop.isDelayed())) await loop.promote().catch(() => {});
      else if (!loop)
        await add(
          JOB_NAMES.oauthRefresh,
          { instanceId, reason: "scheduled" },
          jobOptions(JOB_NAMES.oauthRefresh, { jobId: jobIds.oauthRefresh(instanceId) }),
        );
    },
    close: () => queue.close(),
  };
}

export function createInstanceQueueProducer(opts: { redisUrl: string; prefix: string }): JobProducer {
  return createJobProducer(createInstanceQueue(queueConnection(opts.redisUrl, "producer", "web"), opts.prefix));
}
