import {
  CALL_METHOD,
  type CallRecord,
  type CallSink,
  type RediscoveryTrigger,
  type StatusSink,
} from "@switchboard/core/proxy";
import type { ListKind } from "@switchboard/core/upstream";
import { boundDetail } from "@switchboard/core/errors";
import { countLoggedCalls } from "@switchboard/core/events";
import { getBulkPool } from "@switchboard/db/client";
import { logger } from "@switchboard/runtime/logger";
import { insertCallLogs } from "@switchboard/db/queries/call-log";
import { announceCallsLogged } from "@switchboard/runtime/live-events";
import { instanceRedactor } from "./secrets";

/** What the route asks of the worker. Statuses are the worker's to write; the route only reports. */
export interface WorkerJobs {
  requestDiscovery(instanceId: string, reason: "recovery" | "rediscovery"): Promise<void>;
  /**
   * `startedAt`: when the failed call started, ms since the epoch (the worker ignores it if the instance has
   * reconnected since). Absent (the sweep of a lost worker): applied to whatever connection the instance holds.
   */
  reportCallFailed(
    instanceId: string,
    status: "offline" | "error" | "requires_reauth",
    message: string,
    startedAt?: number,
  ): Promise<void>;
  /** The upstream said a list changed on a pooled connection: the worker refreshes the catalogue (online stays). */
  requestCatalogueRefresh(instanceId: string, kind: ListKind): Promise<void>;
}

export function statusSink(jobs: WorkerJobs): StatusSink {
  return {
    // The worker moves the instance to `connecting` and re-discovers; the tool result is not held up by it.
    recoveryDetected: (instanceId) => jobs.requestDiscovery(instanceId, "recovery"),
    // The message becomes the status message and events: redacted before it leaves for the worker's queue.
    callFailed: async (instanceId, c, startedAt) =>
      jobs.reportCallFailed(instanceId, c.status, (await instanceRedactor(instanceId)).text(c.message), startedAt),
  };
}

export function rediscoveryTrigger(jobs: WorkerJobs): RediscoveryTrigger {
  return { request: (instanceId) => jobs.requestDiscovery(instanceId, "rediscovery") };
}

type LogRow = Parameters<typeof insertCallLogs>[1][number];

/**
 * Request-log rows are written in batches (every 250 ms, or 200 rows), off the call's path: a busy member's
 * calls cost one INSERT per batch instead of one per call. A failed write is logged, never surfaced to a call.
 * Once written, the batch is announced (counts per team, installation and member) so open request logs refresh.
 */
class CallLogWriter {
  private rows: LogRow[] = [];
  private timer: NodeJS.Timeout | undefined;

  add(row: LogRow) {
    this.rows.push(row);
    if (this.rows.length >= 200) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), 250);
  }

  async flush() {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.rows.splice(0);
    if (batch.length === 0) return;
    try {
      await insertCallLogs(getBulkPool(), batch);
    } catch (err) {
      logger.error({ err, rows: batch.length }, "could not write the request log");
      return;
    }
    await announceCallsLogged(countLoggedCalls(batch));
  }
}

let writer: CallLogWriter | undefined;

export function callLogWriter(): CallLogWriter {
  writer ??= new CallLogWriter();
  return writer;
}

/**
 * One request-log row per call, with the instance's secrets (core `Redactor`) taken out of the arguments, the
 * result summary and the error message, unless the installation turned request logging off. The result itself
 * is not stored (only its size).
 */
export function callLogSink(opts: {
  teamId: string;
  tokenId: string | null;
  loggingEnabled: (installationId: string) => boolean;
}): CallSink {
  const writer = callLogWriter();
  return {
    async record(entry: CallRecord) {
      if (!opts.loggingEnabled(entry.installationId)) return;
      try {
        const redactor = await instanceRedactor(entry.instanceId);
        const message = entry.message ? redactor.text(entry.message) : null;
        writer.add({
          teamId: opts.teamId,
          installationId: entry.installationId,
          instanceId: entry.instanceId,
          userId: entry.userId,
          tokenId: opts.tokenId,
          method: CALL_METHOD[entry.kind],
          // A resource URI may carry a key (`leak://<key>`): the target is text like the rest.
          target: redactor.text(entry.target),
          requested: redactor.text(entry.requested),
          arguments: redactor.value(entry.arguments ?? null),
          resultSummary: message ? message.slice(0, 500) : null,
          resultBytes: entry.resultBytes,
          resultTokens: entry.resultTokens,
          durationMs: Math.round(entry.durationMs),
          attempts: entry.attempts,
          outcome: entry.outcome,
          // Bounded like every raw detail (an upstream's error can be a whole HTML page); the console humanizes it.
          errorMessage: entry.outcome === "success" || message === null ? null : boundDetail(message),
          startedAt: entry.startedAt,
          guardrailFindings: entry.guardrailFindings ?? null,
        });
      } catch (err) {
        logger.error({ err, instanceId: entry.instanceId }, "could not prepare the request log row");
      }
    },
  };
}
