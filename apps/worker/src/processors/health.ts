import type { JobPayload } from "@switchboard/core/contracts";
import {
  applyHealthResult,
  classifyError,
  healthRecheckDelay,
  type ErrorClassification,
} from "@switchboard/core/policies";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { recordHealthCheck } from "@switchboard/db/queries/instance-lifecycle";
import type { UpstreamConnection } from "@switchboard/core/upstream";
import type { JobContext, WorkerDeps } from "../deps";
import { ExpiringSet } from "../expiring-set";
import { healthWrite } from "../health-store";

export type HealthDeps = Pick<
  WorkerDeps,
  "db" | "clock" | "health" | "connections" | "jobs" | "recorder" | "secrets" | "tunables" | "metrics"
>;

/**
 * Probe choice: `ping` first. It is part of the base protocol, costs the server nothing and returns nothing,
 * whereas tools/list can be large and slow on a big server. A 2026-07-28 upstream has no ping: the connection
 * sends it `server/discover` instead, as cheap and as telling. A server that answers ping with MethodNotFound
 * (some do not implement it) is probed with tools/list instead, and remembered for the next rounds: for an hour
 * (the server may learn ping after an upgrade), for at most 10,000 instances (the oldest entry is forgotten
 * first, which costs that instance one MethodNotFound answer).
 */
const pingUnsupported = new ExpiringSet({ max: 10_000, ttlMs: 60 * 60_000 });

async function probe(connection: UpstreamConnection, instanceId: string, timeoutMs: number): Promise<void> {
  if (!pingUnsupported.has(instanceId)) {
    try {
      await connection.ping({ timeout: timeoutMs });
      return;
    } catch (error) {
      if (!(error instanceof McpError && error.code === ErrorCode.MethodNotFound)) throw error;
      pingUnsupported.add(instanceId);
    }
  }
  await connection.listTools(undefined, { timeout: timeoutMs });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`health check timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One health check of an online instance. A failed check queues an early re-check (core healthRecheckDelay), so
 * the three failures in a row that mean "down" fall within one interval; one or two failures change nothing else
 * (a slow or briefly unreachable server keeps its connection). The third -> server_health_degraded once, and the
 * instance is reported unreachable: the call-failed job takes the connection down to the status the error
 * classifies as (offline, error) and starts the reconnect loop, which brings it back online when the upstream
 * answers again. offline / error instances are probed by their reconnect loop, not here.
 *
 * This is the hot path (10,000 instances every 120 s), so it is cheap: no instance lock (it writes only the
 * health columns and never the status: taking the instance down is a job of its own), the state comes from a
 * batched read, and an unchanged success writes nothing or joins a batched refresh (see healthWrite). Without a lock, two checks of one instance overlap
 * (BullMQ queues the schedule's next run when this one starts, so a check slower than the interval meets it) and
 * discovery resets the health columns when it brings the instance online: the write is conditional on the state
 * this check read (recordHealthCheck), and only the check whose write lands reports the event.
 */
export async function processHealth(payload: JobPayload<"instance.health">, ctx: JobContext, deps: HealthDeps) {
  const { instanceId } = payload;
  const state = await deps.health.load(instanceId);
  if (!state) {
    await deps.jobs.removeHealth(instanceId);
    return { skipped: "instance not found" };
  }
  if (state.status !== "online") return { skipped: state.status };
  // An idle-stopped stdio server is not started again just to be probed; the next call starts it.
  if (state.transport === "stdio" && !deps.connections.isConnected(instanceId)) return { skipped: "stdio idle" };

  let ok = true;
  let failure: ErrorClassification | undefined;
  const startedAt = Date.now();
  try {
    const timeoutMs = deps.tunables.healthTimeoutMs;
    await withTimeout((async () => probe(await deps.connections.get(instanceId), instanceId, timeoutMs))(), timeoutMs);
  } catch (error) {
    ok = false;
    // The classified message: an egress refusal reads as the policy's sentence, not a transport wrapper's.
    failure = classifyError(error);
  }
  deps.metrics?.healthCheck(ok ? "ok" : "failed");
  const lastError = failure?.message;
  const before = { consecutiveFailures: state.healthConsecutiveFailures, degraded: state.healthDegraded };
  const { state: next, event, down } = applyHealthResult(before, ok);
  const now = deps.clock();
  const write = healthWrite(
    { ...before, lastCheckAt: state.lastHealthCheckAt?.getTime() ?? null },
    next,
    ok,
    now.getTime(),
    deps.tunables.healthWriteEveryMs,
  );
  if (write === "record") {
    // Another check of this instance, or discovery's reset, wrote since this one read the state: this result
    // is stale, and that write stands with its event.
    if (!(await recordHealthCheck(deps.db, { instanceId, ok, from: before, ...next, at: now }))) {
      return { ok, skipped: "state changed during the check" };
    }
  } else if (write === "touch") deps.health.touch(instanceId);

  if (event?.type === "server_health_degraded") {
    ctx.logger.warn({ consecutiveFailures: event.consecutiveFailures, lastError }, "instance health degraded");
    await deps.recorder.event(state, "server_health_degraded", {
      consecutiveFailures: event.consecutiveFailures,
      lastError,
    });
  } else if (event?.type === "server_health_restored") {
    ctx.logger.info("instance health restored");
    await deps.recorder.event(state, "server_health_restored", { failuresBeforeRestore: event.failuresBeforeRestore });
  }
  if (failure && down) {
    // Redacted before it is queued (the payload sits in Redis), as the route does with a failed call's message.
    const message = (await deps.secrets.text(instanceId, failure.message)).slice(0, 2_000);
    await deps.jobs.enqueueCallFailed({ instanceId, status: failure.status, message });
  } else if (failure) {
    const delayMs = healthRecheckDelay(deps.tunables.healthIntervalMs) - (Date.now() - startedAt);
    await deps.jobs.scheduleHealthRecheck(instanceId, next.consecutiveFailures, Math.max(0, delayMs));
  }
  return { ok, ...(down ? { down } : {}) };
}
