import { DelayedError, Job, UnrecoverableError, Worker, type Queue } from "bullmq";
import { INSTANCE_QUEUE } from "@switchboard/core/contracts";
import type { Logger } from "@switchboard/runtime/logger";
import type { WorkerMetrics } from "@switchboard/runtime/metrics";
import { queueConnection } from "@switchboard/runtime/redis-client";
import { queueTelemetry } from "@switchboard/runtime/telemetry";
import type { JobContext, WorkerDeps } from "./deps";
import { dispatch } from "./processors";

interface ActiveJob {
  job: Job;
  token: string | undefined;
  done: Promise<unknown>;
}

/**
 * The BullMQ worker of the instance queue: each job dispatched to its processor with a context of its own, timed
 * for the metrics, and tracked while it runs, so a stop that cannot wait for every job hands the rest back to
 * the queue (with their lock token) instead of leaving them to the stalled-job check.
 */
export class JobRunner {
  readonly worker: Worker;
  private readonly active = new Map<string, ActiveJob>();
  private activeChanged: (() => void) | undefined;

  constructor(
    private readonly options: {
      redisUrl: string;
      prefix: string;
      concurrency: number;
      /** A worker killed mid-job: its lock expires and another worker picks the job up again (stalled check). */
      lockDurationMs: number;
      logger: Logger;
      metrics?: WorkerMetrics;
      /** Filled in before the first job runs (`worker.run()` comes after the app's wiring). */
      deps: () => WorkerDeps;
    },
  ) {
    this.worker = new Worker(
      INSTANCE_QUEUE,
      async (job: Job, token?: string) => {
        const key = `${job.id}:${token}`;
        let settle!: () => void;
        this.active.set(key, { job, token, done: new Promise<void>((resolve) => (settle = resolve)) });
        try {
          return await this.process(job, token);
        } finally {
          this.active.delete(key);
          settle();
          this.activeChanged?.();
        }
      },
      {
        connection: queueConnection(options.redisUrl, "worker", "worker"),
        prefix: options.prefix,
        telemetry: queueTelemetry(),
        concurrency: options.concurrency,
        autorun: false,
        lockDuration: options.lockDurationMs,
        stalledInterval: Math.round(options.lockDurationMs / 2),
        maxStalledCount: 2,
      },
    );
  }

  private async process(job: Job, token?: string) {
    const { logger, metrics } = this.options;
    const data = (job.data ?? {}) as Record<string, unknown>;
    const ctx: JobContext = {
      jobId: job.id,
      logger: logger.child({
        jobId: job.id,
        job: job.name,
        instanceId: data.instanceId,
        installationId: data.installationId,
        attemptsMade: job.attemptsMade,
      }),
      rescheduleSelf: async (delayMs) => {
        await job.moveToDelayed(Date.now() + Math.max(0, Math.round(delayMs)), token);
        throw new DelayedError();
      },
    };
    const started = performance.now();
    let failed = true;
    try {
      const result = await dispatch(job.name, job.data, ctx, this.options.deps());
      failed = false;
      return result;
    } catch (err) {
      // Moved back to the delayed set on purpose (the reconnect loop's next attempt): not a failure.
      if (err instanceof DelayedError) failed = false;
      throw err;
    } finally {
      metrics?.jobEnded(job.name, (performance.now() - started) / 1000, failed);
    }
  }

  /** Logs the worker's errors, stalled jobs and failures; `onFailed` hears every failure first. */
  watch(onFailed: (err: Error) => void): void {
    const { logger } = this.options;
    this.worker.on("error", (err) => logger.error({ err }, "worker error"));
    // Its worker died mid-job (lock expired): BullMQ moved it back to waiting and it runs again.
    this.worker.on("stalled", (jobId) => logger.warn({ jobId }, "job stalled; handed to a worker again"));
    this.worker.on("failed", (job, err) => {
      onFailed(err);
      const unrecoverable = err instanceof UnrecoverableError || err.name === "UnrecoverableError";
      logger[unrecoverable ? "error" : "warn"](
        { jobId: job?.id, job: job?.name, err: err.message, attemptsMade: job?.attemptsMade, unrecoverable },
        unrecoverable ? "job rejected without retry" : "job failed",
      );
    });
  }

  /** Resolves true once no job runs here, false when `ms` passed first. */
  async finished(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.active.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1_000));
        this.activeChanged = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.activeChanged = undefined;
    }
    return true;
  }

  /**
   * After a forced close: what did not finish goes back to the queue now, for another worker (no attempt counted,
   * nothing lost), instead of waiting out its lock and the stalled-job check. Returns those jobs.
   */
  async handBack(queue: Queue): Promise<ActiveJob[]> {
    const { logger } = this.options;
    const handedBack = [...this.active.values()];
    for (const { job, token } of handedBack) {
      await Job.fromId(queue, job.id!)
        .then((current) => current?.moveToWait(token))
        .then(() => logger.info({ jobId: job.id, job: job.name }, "job handed back to the queue"))
        .catch((err: unknown) =>
          logger.warn({ err, jobId: job.id }, "could not hand a job back; it is retried once its lock expires"),
        );
    }
    return handedBack;
  }
}
