import type dns from "node:dns";
import type { Queue, Worker } from "bullmq";
import { ACTIVITY_ROLLUP } from "@switchboard/core/activity";
import type { SecretRegistry } from "@switchboard/core/config";
import { OAUTH_FLOW_CLEANUP } from "@switchboard/core/contracts";
import type { EgressPolicy } from "@switchboard/core/egress";
import { HEALTH_POLICY, nextReconnectDelay } from "@switchboard/core/policies";
import type { Db } from "@switchboard/db/client";
import type { EventPublisher } from "@switchboard/runtime/instance-events";
import type { Logger } from "@switchboard/runtime/logger";
import type { WorkerMetrics } from "@switchboard/runtime/metrics";
import type { StdioLeases } from "./bridge/leases";
import type { StdioBridge } from "./bridge/server";
import type { Tunables, WorkerDeps } from "./deps";
import type { reconcile } from "./reconcile";
import type { StdioSandbox } from "./sandbox";

/* What `startWorkerApp` (app.ts) is given and what it hands back, with the defaults it fills in. */

export interface WorkerAppOptions {
  db: Db;
  logger: Logger;
  redisUrl: string;
  prefix: string;
  concurrency: number;
  /** BullMQ job lock (default 60 s); stalled jobs are checked every half of it, instance locks last twice it. */
  lockDurationMs?: number;
  clock?: () => Date;
  tunables?: Partial<Tunables>;
  /** Replace the Redis publisher (tests may collect events in memory; the default publishes). */
  publisher?: EventPublisher;
  /** The secrets the logger's stream redacts (createLogger's registry); the worker fills it per instance. */
  logSecrets?: SecretRegistry;
  /**
   * How often this worker renews its heartbeat (default WORKER_HEARTBEAT, 5 s; valid three times as long): the
   * gateway takes a worker whose heartbeat ran out for gone and its stdio instances for lost.
   */
  heartbeatMs?: number;
  /** This worker's id in heartbeats and leases (default: pid and a random suffix). */
  workerId?: string;
  /** Reconcile from PostgreSQL before taking jobs (default true). */
  reconcileOnStart?: boolean;
  /** Stop a hosted stdio server after this long without use (default IDLE_POLICY, 3 minutes). */
  idleStopMs?: number;
  /**
   * The sandbox every stdio server runs in (StdioSandbox.start probes it). Absent: servers run unconfined, as
   * with STDIO_SANDBOX=off (core tests and benches do this; main.ts always passes one).
   */
  sandbox?: StdioSandbox;
  /**
   * Where remote servers (and the OAuth endpoints they name) may be reached: checked on the address each
   * connection goes to. Connections to other workers' bridges are ours and are not subject to it.
   */
  egress: EgressPolicy;
  /** Replaces the system resolver for configured URLs (tests: a hosts-style table they control). */
  egressResolve?: typeof dns.lookup;
  /** Prometheus metrics to fill (main.ts makes them when WORKER_METRICS_PORT is set); nothing is measured without. */
  metrics?: WorkerMetrics;
  /** Internal Streamable HTTP bridge for hosted stdio servers, with Redis leases. Off when absent. */
  bridge?: {
    host: string;
    port: number;
    secret: string;
    /** How others reach this bridge; defaults to http://host:port. */
    publicUrl?: string;
    /** Same as `workerId` (kept for harnesses that name the worker with its bridge). */
    workerId?: string;
    leaseTtlMs?: number;
  };
}

export interface WorkerApp {
  deps: WorkerDeps;
  queue: Queue;
  worker: Worker;
  reconcile(): Promise<Awaited<ReturnType<typeof reconcile>>>;
  /** Stops idle stdio servers now (the supervisor also does it on its timers); `now` may be in the future. */
  sweepIdle(now?: number): Promise<string[]>;
  bridge: StdioBridge | undefined;
  leases: StdioLeases | undefined;
  /** Base URL of this worker's bridge, when it runs one. */
  bridgeUrl: string | undefined;
  /**
   * Idempotent: stops taking jobs, lets in-flight ones finish (within `graceMs`, default: no limit; what is still
   * running then goes back to the queue for another worker), kills every stdio process group, releases its
   * locks and leases, leaves the workers' list and closes Redis.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

export const DEFAULT_TUNABLES: Tunables = {
  reconnectDelay: (attemptIndex) => nextReconnectDelay(attemptIndex),
  healthTimeoutMs: HEALTH_POLICY.timeoutMs,
  healthIntervalMs: HEALTH_POLICY.intervalMs,
  lockRetryMs: 250,
  healthWriteEveryMs: 10 * 60_000,
  oauthFlowCleanupEveryMs: OAUTH_FLOW_CLEANUP.everyMs,
  activityRollupEveryMs: ACTIVITY_ROLLUP.everyMs,
};

/** BullMQ's job lock: 60 s, stalled check every 30 s (BullMQ's default), instance locks 120 s. */
export const DEFAULT_LOCK_DURATION_MS = 60_000;
