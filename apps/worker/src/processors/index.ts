import { UnrecoverableError } from "bullmq";
import { parseJob, type ParsedJob } from "@switchboard/core/contracts";
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

function run(job: ParsedJob, ctx: JobContext, deps: WorkerDeps): Promise<unknown> {
  switch (job.name) {
    case "instance.discover":
      return processDiscover(job.payload, ctx, deps);
    case "instance.reconnect":
      return processReconnect(job.payload, ctx, deps);
    case "instance.health":
      return processHealth(job.payload, ctx, deps);
    case "instance.force-reconnect":
      return processForceReconnect(job.payload, ctx, deps);
    case "instance.restart":
      return processRestart(job.payload, ctx, deps);
    case "instance.call-failed":
      return processCallFailed(job.payload, ctx, deps);
    case "instance.crashed":
      return processCrashed(job.payload, ctx, deps);
    case "installation.created":
      return processInstallationCreated(job.payload, ctx, deps);
    case "config.changed":
      return processConfigChanged(job.payload, ctx, deps);
    case "installation.removed":
      return processInstallationRemoved(job.payload, ctx, deps);
    case "member.removed":
      return processMemberRemoved(job.payload, ctx, deps);
    case "instance.oauth-authorized":
      return processOAuthAuthorized(job.payload, ctx, deps);
    case "instance.oauth-refresh":
      return processOAuthRefresh(job.payload, ctx, deps);
    case "maintenance.oauth-flow-cleanup":
      return processOAuthFlowCleanup(job.payload, ctx, deps);
    case "maintenance.activity-rollup":
      return processActivityRollup(job.payload, ctx, deps);
    case "maintenance.retention-prune":
      return processRetentionPrune(job.payload, ctx, deps);
    case "connection.test":
      return processConnectionTest(job.payload, ctx, deps);
    case "instance.catalogue-refresh":
      return processCatalogueRefresh(job.payload, ctx, deps);
  }
}

/**
 * Re-parses the payload with the core contract and runs its processor. An unknown name or an invalid payload
 * is an UnrecoverableError: BullMQ fails the job once, without retry, and the worker logs it.
 */
export async function dispatch(name: string, data: unknown, ctx: JobContext, deps: WorkerDeps): Promise<unknown> {
  const parsed = parseJob(name, data);
  if (!parsed.success) throw new UnrecoverableError(parsed.error);
  return run(parsed.job, ctx, deps);
}
