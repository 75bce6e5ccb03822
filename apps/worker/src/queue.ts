import { Queue, type JobsOptions, type RedisOptions } from "bullmq";
import { INSTANCE_QUEUE, jobIds, JOB_NAMES, OAUTH_FLOW_CLEANUP, type DiscoveryReason } from "@switchboard/core/contracts";
import { healthSchedule } from "@switchboard/core/policies";
import type { JobScheduling } from "./deps";

/**
 * Jobs with a deterministic id are removed when they finish (completed or failed): a finished job kept under
 * its id would make the queue ignore the next one with the same id.
 */
const SINGLETON: JobsOptions = { removeOnComplete: true, removeOnFail: true };
/**
 * A job failing on infrastructure (PostgreSQL restarting) is retried after 1, 2, 4 and 8 s: ~15 s of outage
 * pass without losing the discovery or the reconnect loop. A longer outage exhausts them; the next
 * reconciliation (worker start, Redis data loss) starts them again from the statuses in PostgreSQL.
 */
const INFRA_RETRY: JobsOptions = { attempts: 5, backoff: { type: "exponential", delay: 1_000 } };
/** Triggers are retried a few times on infrastructure errors (database restarting). */
export const TRIGGER_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: "exponential", delay: 1_000 },
  removeOnComplete: { count: 1_000 },
  removeOnFail: { count: 5_000 },
};

export function createInstanceQueue(connection: RedisOptions, prefix: string): Queue {
  return new Queue(INSTANCE_QUEUE, { connection, prefix });
}

export class BullJobScheduling implements JobScheduling {
  constructor(
    private readonly queue: Queue,
    private readonly healthIntervalMs: number,
    private readonly oauthFlowCleanupEveryMs: number = OAUTH_FLOW_CLEANUP.everyMs,
  ) {}

  async enqueueDiscover(instanceId: string, reason: DiscoveryReason): Promise<void> {
    await this.queue.add(JOB_NAMES.discover, { instanceId, reason }, {
      ...SINGLETON,
      jobId: jobIds.discover(instanceId),
      ...INFRA_RETRY,
    });
  }

  async scheduleReconnect(instanceId: string, delayMs: number): Promise<boolean> {
    const id = jobIds.reconnect(instanceId);
    if (await this.queue.getJob(id)) return false;
    const job = await this.queue.add(JOB_NAMES.reconnect, { instanceId }, { ...SINGLETON, ...INFRA_RETRY, jobId: id, delay: delayMs });
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
      { name: JOB_NAMES.health, data: { instanceId }, opts: { removeOnComplete: true, removeOnFail: { count: 100 } } },
    );
  }

  async upsertMaintenance(): Promise<void> {
    await this.queue.upsertJobScheduler(
      OAUTH_FLOW_CLEANUP.schedulerId,
      { every: this.oauthFlowCleanupEveryMs },
      { name: JOB_NAMES.oauthFlowCleanup, data: {}, opts: { removeOnComplete: true, removeOnFail: { count: 100 } } },
    );
  }

  async removeHealth(instanceId: string): Promise<void> {
    await this.queue.removeJobScheduler(jobIds.healthScheduler(instanceId));
  }

  async enqueueCrashed(instanceId: string, exit: { exitCode: number | null; signal: string | null; stderrTail?: string }): Promise<void> {
    await this.queue.add(JOB_NAMES.crashed, { instanceId, at: new Date().toISOString(), ...exit }, TRIGGER_OPTIONS);
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
