import { Queue, type RedisOptions } from "bullmq";
import {
  INSTANCE_QUEUE,
  jobIds,
  JOB_NAMES,
  jobPayload,
  OAUTH_FLOW_CLEANUP,
  RETENTION_PRUNE,
  type DiscoveryReason,
  type JobPayload,
} from "@switchboard/core/contracts";
import { healthSchedule } from "@switchboard/core/policies";
import { queueTelemetry } from "../telemetry";
import { ACTIVITY_ROLLUP } from "@switchboard/core/activity";
import { bullOptions, catalogueRefreshOptions, JOB_OPTIONS, jobOptions } from "./options";

export function createInstanceQueue(connection: RedisOptions, prefix: string): Queue {
  // With tracing on, each job carries the context it was added in, and the worker's span continues it.
  return new Queue(INSTANCE_QUEUE, { connection, prefix, telemetry: queueTelemetry() });
}

/**
 * The worker's side of the instance queue: its own discovery, reconnect, health and maintenance jobs (it
 * implements the worker's `JobScheduling` port). Triggers from the console and the gateway go through
 * `createJobProducer` (producer.ts); both take their options from the jobs' core definitions.
 */
export class BullJobScheduling {
  constructor(
    private readonly queue: Queue,
    private readonly healthIntervalMs: number,
    private readonly oauthFlowCleanupEveryMs: number = OAUTH_FLOW_CLEANUP.everyMs,
    private readonly activityRollupEveryMs: number = ACTIVITY_ROLLUP.everyMs,
  ) {}

  async enqueueDiscover(instanceId: string, reason: DiscoveryReason): Promise<void> {
    await this.queue.add(
      JOB_NAMES.discover,
      { instanceId, reason },
      jobOptions(JOB_NAMES.discover, { jobId: jobIds.discover(instanceId) }),
    );
  }

  /** An upstream said a list changed on one of the worker's own connections (the same job the route queues). */
  async requestCatalogueRefresh(input: JobPayload<"instance.catalogue-refresh">): Promise<void> {
    await this.queue.add(JOB_NAMES.catalogueRefresh, input, catalogueRefreshOptions(input.instanceId));
  }

  async scheduleReconnect(instanceId: string, delayMs: number): Promise<boolean> {
    const id = jobIds.reconnect(instanceId);
    if (await this.queue.getJob(id)) return false;
    const job = await this.queue.add(
      JOB_NAMES.reconnect,
      { instanceId },
      jobOptions(JOB_NAMES.reconnect, { jobId: id, delay: delayMs }),
    );
    return job.id === id;
  }

  async hasReconnect(instanceId: string): Promise<boolean> {
    return (await this.queue.getJob(jobIds.reconnect(instanceId))) !== undefined;
  }

  async cancelReconnect(instanceId: string): Promise<"removed" | "active" | "none"> {
    return this.cancel(jobIds.reconnect(instanceId));
  }

  async cancelDiscover(instanceId: string): Promise<void> {
    await this.cancel(jobIds.discover(instanceId));
  }

  async upsertHealth(instanceId: string): Promise<void> {
    const { everyMs, offsetMs } = healthSchedule(instanceId, this.healthIntervalMs);
    await this.queue.upsertJobScheduler(
      jobIds.healthScheduler(instanceId),
      { every: everyMs, offset: offsetMs },
      { name: JOB_NAMES.health, data: { instanceId }, opts: jobOptions(JOB_NAMES.health) },
    );
  }

  async scheduleHealthRecheck(instanceId: string, failures: number, delayMs: number): Promise<void> {
    await this.queue.add(
      JOB_NAMES.health,
      { instanceId },
      bullOptions(JOB_OPTIONS.singleton, {
        attempts: 1,
        jobId: jobIds.healthRecheck(instanceId, failures),
        delay: delayMs,
      }),
    );
  }

  async upsertMaintenance(): Promise<void> {
    await this.queue.upsertJobScheduler(
      OAUTH_FLOW_CLEANUP.schedulerId,
      { every: this.oauthFlowCleanupEveryMs },
      { name: JOB_NAMES.oauthFlowCleanup, data: {}, opts: jobOptions(JOB_NAMES.oauthFlowCleanup) },
    );
    await this.queue.upsertJobScheduler(
      ACTIVITY_ROLLUP.schedulerId,
      { every: this.activityRollupEveryMs },
      { name: JOB_NAMES.activityRollup, data: {}, opts: jobOptions(JOB_NAMES.activityRollup) },
    );
    await this.queue.upsertJobScheduler(
      RETENTION_PRUNE.schedulerId,
      { every: RETENTION_PRUNE.everyMs },
      { name: JOB_NAMES.retentionPrune, data: {}, opts: jobOptions(JOB_NAMES.retentionPrune) },
    );
  }

  async removeHealth(instanceId: string): Promise<void> {
    await this.queue.removeJobScheduler(jobIds.healthScheduler(instanceId));
  }

  /** The same job the route queues when calls fail (`reportCallFailed`), for a failure the worker saw itself. */
  async enqueueCallFailed(input: JobPayload<"instance.call-failed">): Promise<void> {
    await this.queue.add(
      JOB_NAMES.callFailed,
      jobPayload(JOB_NAMES.callFailed, input),
      jobOptions(JOB_NAMES.callFailed),
    );
  }

  async enqueueCrashed(
    instanceId: string,
    exit: { exitCode: number | null; signal: string | null; stderrTail?: string },
  ): Promise<void> {
    await this.queue.add(
      JOB_NAMES.crashed,
      { instanceId, at: new Date().toISOString(), ...exit },
      jobOptions(JOB_NAMES.crashed),
    );
  }

  private async cancel(id: string): Promise<"removed" | "active" | "none"> {
    const job = await this.queue.getJob(id);
    if (!job) return "none";
    if (await job.isActive()) return "active";
    try {
      await job.remove();
      return "removed";
    } catch {
      // It became active between the two calls.
      return "active";
    }
  }
}
