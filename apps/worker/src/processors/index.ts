import { UnrecoverableError } from "bullmq";
import { JOB_NAMES, parseJob, type JobName, type JobPayload } from "@switchboard/core/contracts";
import type { JobContext, WorkerDeps } from "../deps";
import { processCallFailed } from "./call-failed";
import { processConfigChanged } from "./config-changed";
import { processCrashed } from "./crashed";
import { processDiscover } from "./discover";
import { processForceReconnect } from "./force-reconnect";
import { processHealth } from "./health";
import { processInstallationCreated } from "./installation-created";
import { processActivityRollup } from "./activity-rollup";
import { processOAuthFlowCleanup, processRetentionPrune } from "./maintenance";
import { processOAuthAuthorized, processOAuthRefresh } from "./oauth";
import { processReconnect } from "./reconnect";
import { processInstallationRemoved, processMemberRemoved } from "./removal";
import { processRestart } from "./restart";
import { processConnectionTest } from "./connection-test";
import { processCatalogueRefresh } from "./catalogue-refresh";

/**
 * A job's handler. Each processor declares the part of `WorkerDeps` it uses (a `Pick`), which a function of the
 * whole bag accepts.
 */
export type Handler<N extends JobName> = (
  payload: JobPayload<N>,
  ctx: JobContext,
  deps: WorkerDeps,
) => Promise<unknown>;

/**
 * Every job's handler, by the name of its core definition (`JOBS`). A job without a handler, or a handler
 * without a job, fails to typecheck.
 */
export const HANDLERS = {
  [JOB_NAMES.discover]: processDiscover,
  [JOB_NAMES.reconnect]: processReconnect,
  [JOB_NAMES.health]: processHealth,
  [JOB_NAMES.forceReconnect]: processForceReconnect,
  [JOB_NAMES.restart]: processRestart,
  [JOB_NAMES.callFailed]: processCallFailed,
  [JOB_NAMES.crashed]: processCrashed,
  [JOB_NAMES.installationCreated]: processInstallationCreated,
  [JOB_NAMES.configChanged]: processConfigChanged,
  [JOB_NAMES.installationRemoved]: processInstallationRemoved,
  [JOB_NAMES.memberRemoved]: processMemberRemoved,
  [JOB_NAMES.oauthAuthorized]: processOAuthAuthorized,
  [JOB_NAMES.oauthRefresh]: processOAuthRefresh,
  [JOB_NAMES.oauthFlowCleanup]: processOAuthFlowCleanup,
  [JOB_NAMES.activityRollup]: processActivityRollup,
  [JOB_NAMES.retentionPrune]: processRetentionPrune,
  [JOB_NAMES.connectionTest]: processConnectionTest,
  [JOB_NAMES.catalogueRefresh]: processCatalogueRefresh,
} as const satisfies { readonly [N in JobName]: Handler<N> };

const handlers: { readonly [N in JobName]: Handler<N> } = HANDLERS;

function run<N extends JobName>(name: N, payload: JobPayload<N>, ctx: JobContext, deps: WorkerDeps): Promise<unknown> {
  return handlers[name](payload, ctx, deps);
}

/**
 * Re-parses the payload with the core contract and runs its handler. An unknown name or an invalid payload
 * is an UnrecoverableError: BullMQ fails the job once, without retry, and the worker logs it.
 */
export async function dispatch(name: string, data: unknown, ctx: JobContext, deps: WorkerDeps): Promise<unknown> {
  const parsed = parseJob(name, data);
  if (!parsed.success) throw new UnrecoverableError(parsed.error);
  return run(parsed.job.name, parsed.job.payload, ctx, deps);
}
