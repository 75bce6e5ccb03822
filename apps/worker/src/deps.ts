import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ResolvedLaunch } from "@switchboard/core/config";
import type { ConnectionTestResult } from "@switchboard/core/probe";
import type { Db } from "@switchboard/db/client";
import type { DiscoveryReason, JobPayload } from "@switchboard/core/contracts";
import type { Logger } from "@switchboard/runtime/logger";
import type { InstanceConnections } from "./connections";
import type { HealthStore } from "./health-store";
import type { InstanceLocks } from "./locks";
import type { EventPublisher } from "@switchboard/runtime/instance-events";
import type { PendingListings } from "./pending-listings";
import type { InstanceRecorder } from "./recorder";
import type { InstanceSecrets } from "./secrets";
import type { WorkerMetrics } from "@switchboard/runtime/metrics";

/** What processors may do with the queue, without knowing BullMQ. */
export interface JobScheduling {
  enqueueDiscover(instanceId: string, reason: DiscoveryReason): Promise<void>;
  /** An upstream's list_changed on the worker's own connection: refresh the catalogue (one pending per instance). */
  requestCatalogueRefresh(input: JobPayload<"instance.catalogue-refresh">): Promise<void>;
  /** Adds the instance's reconnect job unless one exists; false when one already did. */
  scheduleReconnect(instanceId: string, delayMs: number): Promise<boolean>;
  hasReconnect(instanceId: string): Promise<boolean>;
  /** "active" when it is running right now and cannot be removed (it is trying already). */
  cancelReconnect(instanceId: string): Promise<"removed" | "active" | "none">;
  cancelDiscover(instanceId: string): Promise<void>;
  upsertHealth(instanceId: string): Promise<void>;
  removeHealth(instanceId: string): Promise<void>;
  /** One early health check after the instance's `failures`-th failure in a row (one per step). */
  scheduleHealthRecheck(instanceId: string, failures: number, delayMs: number): Promise<void>;
  /** Upserts the housekeeping schedulers (fixed ids: upserting again changes nothing). */
  upsertMaintenance(): Promise<void>;
  /**
   * A failure the worker saw itself (a stdio server stopped for breaking a limit, an instance that stopped
   * answering its health checks), queued like the route's report of a failed call, which takes the connection
   * down under the instance's lock and starts the reconnect loop.
   */
  enqueueCallFailed(input: JobPayload<"instance.call-failed">): Promise<void>;
  enqueueCrashed(
    instanceId: string,
    exit: { exitCode: number | null; signal: string | null; stderrTail?: string },
  ): Promise<void>;
}

export interface Tunables {
  /** Delay before reconnect attempt index `i` (0-based): core nextReconnectDelay unless a test injects a faster one. */
  reconnectDelay: (attemptIndex: number) => number;
  /** The max-delay threshold for event throttling follows the same attempt index (core atMaxDelay). */
  healthTimeoutMs: number;
  /** Base interval of health schedules (120 s; tests shorten it). */
  healthIntervalMs: number;
  /** How long another job waits for an instance that is busy. */
  lockRetryMs: number;
  /** An unchanged healthy check refreshes lastHealthCheckAt / lastHealthyAt at most this often (10 minutes). */
  healthWriteEveryMs: number;
  /** How often stale OAuth pending flows are deleted (15 minutes; tests shorten it). */
  oauthFlowCleanupEveryMs: number;
  /** How often the activity roll-ups catch up with the request log (every minute; tests shorten it). */
  activityRollupEveryMs: number;
}

/** Starts a local command once in the sandbox for "Test connection" and reports what it offers. */
export type StdioProbe = (input: {
  teamId: string;
  launch: ResolvedLaunch;
  envKeys: string[];
}) => Promise<ConnectionTestResult>;

/**
 * Everything the worker's jobs need, passed in so tests can drive them. A processor declares the part it uses
 * (`Pick<WorkerDeps, ...>`, or the helper types it combines such as `LockDeps`), and is handed the whole.
 */
export interface WorkerDeps {
  db: Db;
  clock: () => Date;
  publisher: EventPublisher;
  recorder: InstanceRecorder;
  /** Each instance's secrets, redacted from whatever is recorded about it. */
  secrets: InstanceSecrets;
  /** Batched reads and writes of the health path. */
  health: HealthStore;
  connections: InstanceConnections;
  /** Discoveries connecting here and not listed yet: a list_changed heard meanwhile needs no refresh. */
  listings: PendingListings;
  /** The egress-checked fetch for configured URLs outside a connection (OAuth token refresh). */
  upstreamFetch: FetchLike;
  jobs: JobScheduling;
  locks: InstanceLocks;
  tunables: Tunables;
  logger: Logger;
  /** Absent in harnesses that do not test connections. */
  probeStdio?: StdioProbe;
  /** Opens what the console sealed with the deployment's key. */
  unseal?: (sealed: string) => string;
  /** Prometheus metrics (WORKER_METRICS_PORT); nothing is measured without them. */
  metrics?: WorkerMetrics;
}

/** Per job: its logger and a way to put the job itself back to sleep. */
export interface JobContext {
  logger: Logger;
  jobId: string | undefined;
  /** Moves this very job back to the delayed set (same id) and ends the current run. Never returns. */
  rescheduleSelf(delayMs: number): Promise<never>;
}
