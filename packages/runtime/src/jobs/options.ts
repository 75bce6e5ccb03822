import type { JobsOptions } from "bullmq";
import {
  JOB_DEFINITIONS,
  jobIds,
  JOB_OPTION_PRESETS,
  type JobName,
  type JobOptions,
} from "@switchboard/core/contracts";

/**
 * Core's plain job options as BullMQ takes them, plus what one call adds. They are a subset of `JobsOptions` under
 * the same names, so the mapping is the assignment itself: a core field BullMQ does not have fails the `Pick`, and a
 * value BullMQ does not take fails the assignment, at typecheck rather than being dropped at run time.
 */
export function bullOptions(options: JobOptions, extra: JobsOptions = {}): JobsOptions {
  const mapped: Pick<JobsOptions, keyof JobOptions> = options;
  return { ...mapped, ...extra };
}

/** The options a job is added with, from its definition, plus what this one call adds (its id, a delay). */
export function jobOptions(name: JobName, extra?: JobsOptions): JobsOptions {
  return bullOptions(JOB_DEFINITIONS[name].options, extra);
}

/** Core's presets for the callers that add a job with other options than its definition's. */
export const JOB_OPTIONS = JOB_OPTION_PRESETS satisfies Record<string, JobsOptions>;

/**
 * The options of one instance's catalogue refresh, whoever heard the list_changed (the gateway's route or the
 * worker's own connection). Deduplicated, not a job id: a notice that arrives while the refresh runs (it may have
 * listed already) must still lead to one more refresh after it, which a job id would swallow.
 */
export function catalogueRefreshOptions(instanceId: string): JobsOptions {
  return jobOptions("instance.catalogue-refresh", {
    deduplication: { id: jobIds.catalogueRefresh(instanceId), keepLastIfActive: true },
  });
}
