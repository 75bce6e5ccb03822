import "server-only";
import { redactSecrets } from "@switchboard/core/config";
import type { CallRecord, CallSink, RediscoveryTrigger, StatusSink } from "@switchboard/core/proxy";
import type { Db } from "@switchboard/db/client";
import { insertCallLog } from "@switchboard/db/queries/member-catalogue";
import { logger } from "../logger";
import { secretValuesOf } from "./upstreams";

/** What the route asks of the worker. Statuses are the worker's to write; the route only reports. */
export interface WorkerJobs {
  requestDiscovery(instanceId: string, reason: "recovery" | "rediscovery"): Promise<void>;
  reportCallFailed(instanceId: string, status: "offline" | "error" | "requires_reauth", message: string): Promise<void>;
}

export function statusSink(jobs: WorkerJobs): StatusSink {
  return {
    // The worker moves the instance to `connecting` and re-discovers; the tool result is not held up by it.
    recoveryDetected: (instanceId) => jobs.requestDiscovery(instanceId, "recovery"),
    callFailed: (instanceId, c) => jobs.reportCallFailed(instanceId, c.status, c.message),
  };
}

export function rediscoveryTrigger(jobs: WorkerJobs): RediscoveryTrigger {
  return { request: (instanceId) => jobs.requestDiscovery(instanceId, "rediscovery") };
}

const METHOD = { tool: "tools/call", resource: "resources/read", prompt: "prompts/get" } as const;

/**
 * Writes one request-log row per call, with every secret configuration value of the instance redacted from the
 * arguments, unless the installation turned request logging off. Logging never fails a call.
 */
export function callLogSink(opts: { db: Db; teamId: string; tokenId: string | null; loggingEnabled: (installationId: string) => boolean }): CallSink {
  return {
    async record(entry: CallRecord) {
      if (!opts.loggingEnabled(entry.installationId)) return;
      try {
        const secrets = await secretValuesOf(entry.instanceId);
        await insertCallLog(opts.db, {
          teamId: opts.teamId,
          installationId: entry.installationId,
          instanceId: entry.instanceId,
          userId: entry.userId,
          tokenId: opts.tokenId,
          method: METHOD[entry.kind],
          target: entry.target,
          arguments: redactSecrets(entry.arguments ?? null, secrets),
          resultSummary: entry.message ? String(redactSecrets(entry.message, secrets)).slice(0, 500) : null,
          resultBytes: entry.resultBytes,
          durationMs: Math.round(entry.durationMs),
          attempts: entry.attempts,
          outcome: entry.outcome,
          errorMessage: entry.outcome === "success" ? null : (entry.message ?? null),
        });
      } catch (err) {
        logger.error({ err, instanceId: entry.instanceId }, "could not write the request log");
      }
    },
  };
}
