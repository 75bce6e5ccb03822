import type dns from "node:dns";
import { probeStdioOnce } from "./stdio-probe";
import { DelayedError, Job, UnrecoverableError, Worker, type Queue } from "bullmq";
import type { EgressPolicy } from "@switchboard/core/egress";
import { INSTANCE_QUEUE, OAUTH_FLOW_CLEANUP, WORKER_HEARTBEAT } from "@switchboard/core/contracts";
import { ACTIVITY_ROLLUP } from "@switchboard/core/activity";
import { HEALTH_POLICY, IDLE_POLICY, nextReconnectDelay } from "@switchboard/core/policies";
import type { SupervisorEvent } from "@switchboard/core/stdio";
import { egressFetch } from "@switchboard/core/upstream";
import type { Db } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { allocateSandboxUid, getInstanceState } from "@switchboard/db/queries/instance-lifecycle";
import { getSandboxLoopbackPorts } from "@switchboard/db/queries/deployment";
import { bridgePath, StdioBridge } from "./bridge/server";
import { StdioLeases } from "./bridge/leases";
import { InstanceConnections } from "./connections";
import { HealthStore } from "./health-store";
import type { JobContext, Tunables, WorkerDeps } from "./deps";
import { loadInstanceLaunch } from "@switchboard/db/launch";
import { assertStdioLaunchAllowed } from "./stdio-policy";
import { InstanceLocks } from "./locks";
import type { Logger } from "@switchboard/runtime/logger";
import { dispatch } from "./processors";
import { RedisEventPublisher, type EventPublisher } from "@switchboard/runtime/instance-events";
import { BullJobScheduling, createInstanceQueue } from "@switchboard/runtime/jobs/scheduling";
import { oauthTransportOptions } from "./oauth/refresh";
import { PendingListings } from "./pending-listings";
import { reconcile } from "./reconcile";
import { InstanceRecorder } from "./recorder";
import { RedisDataLossWatcher } from "./redis-recovery";
import { DatabaseRecoveryWatcher } from "./db-recovery";
import { isDatabaseUnavailable } from "@switchboard/db/errors";
import { createRedis, queueConnection, type RedisClient as Redis } from "@switchboard/runtime/redis-client";
import { WorkerRegistry } from "@switchboard/runtime/workers";
import { queueTelemetry } from "@switchboard/runtime/telemetry";
import { SecretRegistry } from "@switchboard/core/config";
import { InstanceSecrets } from "./secrets";
import { publishSandboxStatus } from "./sandbox/status";
import { reservedLoopbackPorts } from "@switchboard/core/sandbox";
import { pickSandboxUid, SandboxRefusedError, type StdioSandbox } from "./sandbox";
import type { WorkerMetrics } from "@switchboard/runtime/metrics";
import { CommandNotAllowedError } from "@switchboard/core/deployment";
import { countInstancesByStatus } from "@switchboard/db/queries/instance";

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
  /** Internal Streamable HTTP bridge for hosted stdio servers, with Redis leases. Off when absent. */
  /** Prometheus metrics to fill (main.ts makes them when WORKER_METRICS_PORT is set); nothing is measured without. */
  metrics?: WorkerMetrics;
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

const DEFAULT_TUNABLES: Tunables = {
  reconnectDelay: (attemptIndex) => nextReconnectDelay(attemptIndex),
  healthTimeoutMs: HEALTH_POLICY.timeoutMs,
  healthIntervalMs: HEALTH_POLICY.intervalMs,
  lockRetryMs: 250,
  healthWriteEveryMs: 10 * 60_000,
  oauthFlowCleanupEveryMs: OAUTH_FLOW_CLEANUP.everyMs,
  activityRollupEveryMs: ACTIVITY_ROLLUP.everyMs,
};

/** BullMQ's job lock: 60 s, stalled check every 30 s (BullMQ's default), instance locks 120 s. */
const DEFAULT_LOCK_DURATION_MS = 60_000;

export async function startWorkerApp(options: WorkerAppOptions): Promise<WorkerApp> {
  const { db, logger, prefix, sandbox } = options;
  const workerId =
    options.workerId ?? options.bridge?.workerId ?? `worker-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const clock = options.clock ?? (() => new Date());
  const tunables: Tunables = { ...DEFAULT_TUNABLES, ...options.tunables };
  const lockDurationMs = options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS;

  // Separate connections: the producer queue and our own clients must not wait behind the worker's blocking reads.
  const queue = createInstanceQueue(queueConnection(options.redisUrl, "producer", "worker"), prefix);
  queue.on("error", (err) => logger.error({ err }, "queue connection error"));
  const publisherRedis: Redis = createRedis(options.redisUrl, { name: "worker-publisher", logger });
  const lockRedis: Redis = createRedis(options.redisUrl, { name: "worker-locks", logger });

  const publisher =
    options.publisher ??
    new RedisEventPublisher(publisherRedis, prefix, (err) => logger.warn({ err }, "publish failed"));
  const jobs = new BullJobScheduling(
    queue,
    tunables.healthIntervalMs,
    tunables.oauthFlowCleanupEveryMs,
    tunables.activityRollupEveryMs,
  );
  const cipher = getCipher();
  const secrets = new InstanceSecrets({ db, cipher, registry: options.logSecrets ?? new SecretRegistry() });
  // The bridge's port may be 0 (tests): listen first, then advertise the real address in the leases.
  let bridge: StdioBridge | undefined;
  let leases: StdioLeases | undefined;
  let bridgeUrl: string | undefined;
  const leaseRedis: Redis | undefined = options.bridge
    ? createRedis(options.redisUrl, { name: "worker-leases", logger })
    : undefined;

  // One checked fetch for every request a configured URL leads to (MCP traffic, health, OAuth refresh).
  const upstreamFetch = egressFetch(options.egress, { resolve: options.egressResolve });
  const listings = new PendingListings();
  const connections: InstanceConnections = new InstanceConnections({
    upstreamFetch,
    httpAuth: (instanceId) =>
      oauthTransportOptions(
        {
          db,
          cipher,
          clock,
          fetch: upstreamFetch,
          onTokensChanged: (id) => secrets.forget(id),
          metrics: options.metrics,
        },
        instanceId,
      ),
    idleStopMs: options.idleStopMs ?? IDLE_POLICY.idleStopMs,
    resolveLaunch: async (instanceId) => {
      // Whatever this connection or process says next (errors, stderr, logs) is redacted with these values.
      await secrets.reload(instanceId);
      const loaded = await loadInstanceLaunch(db, cipher, instanceId);
      if (!loaded) throw new Error(`instance ${instanceId} not found`);
      await assertStdioLaunchAllowed(db, loaded.ctx, loaded.launch).catch((err: unknown) => {
        if (err instanceof CommandNotAllowedError) options.metrics?.stdioRefused("command_not_allowed");
        throw err;
      });
      return { launch: loaded.launch, sandbox: loaded.ctx.installation.sandbox };
    },
    // With several workers only the lease holder runs the process; the others talk to it through its bridge,
    // like the proxy route does.
    remoteStdio: async (instanceId) => {
      if (!leases || !options.bridge) return null;
      const lease = await leases.acquire(instanceId);
      if (lease.mine) return null;
      return {
        transport: "streamable_http",
        url: new URL(bridgePath(instanceId), lease.url).toString(),
        headers: { authorization: `Bearer ${options.bridge.secret}` },
      };
    },
    onSupervisorEvent: (event) => onSupervisorEvent(event),
    onListChanged: (instanceId, kind) => {
      if (listings.covers(instanceId)) return;
      void jobs
        .requestCatalogueRefresh({ instanceId, kind })
        .catch((err: unknown) => logger.warn({ err, instanceId, kind }, "catalogue refresh not queued"));
    },
    onClientProcessEvent: (event) => {
      // A process for capable clients: logged, never the instance's status; the lease goes with the last process.
      const log = logger.child({ instanceId: event.instanceId, processId: event.processId, component: "stdio" });
      if (event.type === "crashed" || event.type === "permanently_failed" || event.type === "faulted")
        log.warn(`stdio server for capable clients ${event.type.replace("_", " ")}`);
      else log.info(`stdio server for capable clients ${event.type.replace("_", " ")}`);
      if (event.type !== "started" && event.type !== "crashed") releaseStdio(event.instanceId);
    },
    wrapStdio: sandbox?.enabled
      ? async (instanceId, launch, settings) => {
          // Read with every launch, like the command allow-list: a port an owner takes back is gone at the next start.
          const deploymentLoopbackPorts = await getSandboxLoopbackPorts(db);
          // The host cannot give this server the sandbox it needs (no sandbox, no outbound): refused, and counted.
          const wrap = (uid?: number) => {
            try {
              return sandbox.wrap(instanceId, launch, settings, { uid, deploymentLoopbackPorts });
            } catch (err) {
              if (err instanceof SandboxRefusedError) options.metrics?.stdioRefused("sandbox_unavailable");
              throw err;
            }
          };
          if (!sandbox.runsAsOwnUser) return wrap();
          const uid = await allocateSandboxUid(db, instanceId, pickSandboxUid);
          if (uid === null) throw new Error(`instance ${instanceId} not found`);
          return wrap(uid);
        }
      : undefined,
    onRemoved: (instanceId) => sandbox?.removeInstance(instanceId),
  });
  const onSupervisorEvent = (event: SupervisorEvent) => {
    const log = logger.child({ instanceId: event.instanceId, component: "stdio" });
    switch (event.type) {
      case "started":
        log.info({ pid: event.pid }, "stdio server started");
        return;
      case "crashed":
        log.warn(
          {
            exitCode: event.exitCode,
            signal: event.signal,
            crashesInWindow: event.crashesInWindow,
            willRestart: event.willRestart,
          },
          "stdio server crashed",
        );
        // The crash job records it (history, event) and applies the status under the instance's lock.
        // The tail is redacted before it is queued (the job payload sits in Redis); it is cut first, so a secret
        // cut in half at its start is caught as well (bounded).
        void secrets
          .text(event.instanceId, event.stderrTail.slice(-16_384), { bounded: true })
          .catch(() => "")
          .then((stderrTail) =>
            jobs.enqueueCrashed(event.instanceId, { exitCode: event.exitCode, signal: event.signal, stderrTail }),
          )
          .catch((err) => log.error({ err }, "could not enqueue crash"));
        return;
      case "permanently_failed":
        log.error(
          { crashesInWindow: event.crashesInWindow },
          "stdio server crashed too often; not restarted until an explicit restart",
        );
        releaseStdio(event.instanceId);
        return;
      case "faulted":
        // What it wrote (or left unread) broke a limit: the supervisor stopped it. The instance goes to error
        // with the limit's sentence, as a failed call would put it (the reconnect loop starts a fresh process
        // on its backoff); the job applies it under the instance's lock.
        log.warn({ limit: event.limit }, `stdio server stopped: ${event.message}`);
        void jobs
          .enqueueCallFailed({ instanceId: event.instanceId, status: "error", message: event.message })
          .catch((err) => log.error({ err }, "could not enqueue the stop of a stdio server"));
        releaseStdio(event.instanceId, event.message);
        return;
      case "idle_stopped":
        log.info("stopped idle stdio server (status and tools kept)");
        releaseStdio(event.instanceId);
        return;
      case "stopped":
        releaseStdio(event.instanceId);
        return;
    }
  };
  // No process runs here any more: another worker may take the instance, and bridge sessions on it are over.
  const releaseStdio = (instanceId: string, reason?: string) => {
    // Its main process stops while a process for capable clients still runs here (or the other way round).
    if (connections.hasLocalProcess(instanceId)) return;
    void leases?.release(instanceId);
    void bridge?.closeInstance(instanceId, reason);
  };
  if (options.bridge) {
    bridge = new StdioBridge({
      secret: options.bridge.secret,
      connections,
      get leases() {
        return leases!;
      },
      isStdio: async (instanceId) => (await getInstanceState(db, instanceId))?.transport === "stdio",
      logger: logger.child({ component: "bridge" }),
      // A session idle as long as a process may be is over: one a route process left behind stops with it.
      idleSessionMs: options.idleStopMs ?? IDLE_POLICY.idleStopMs,
    });
    const bound = await bridge.listen(options.bridge.host, options.bridge.port);
    bridgeUrl =
      options.bridge.publicUrl ?? `http://${bound.host.includes(":") ? `[${bound.host}]` : bound.host}:${bound.port}`;
    // The port it actually got (BRIDGE_PORT may be 0) is never a sandbox's to reach.
    sandbox?.reserveLoopbackPorts(reservedLoopbackPorts({ bridgePorts: [bound.port] }));
    leases = new StdioLeases(
      leaseRedis!,
      prefix,
      { workerId, url: bridgeUrl },
      options.bridge.leaseTtlMs,
      (instanceId) => {
        logger.warn({ instanceId }, "stdio lease lost to another worker; stopping the local process");
        void connections.stop(instanceId);
      },
    );
    logger.info({ bridgeUrl, workerId }, "stdio bridge listening");
  }
  const deps: WorkerDeps = {
    db,
    clock,
    publisher,
    recorder: new InstanceRecorder({ db, publisher, clock, logger, secrets }),
    secrets,
    health: new HealthStore({ db, clock, logger }),
    connections,
    listings,
    upstreamFetch,
    jobs,
    locks: new InstanceLocks(lockRedis, prefix, 2 * lockDurationMs),
    tunables,
    logger,
    unseal: (sealed) => cipher.decrypt(sealed),
    probeStdio: (input) => probeStdioOnce({ db, sandbox, ...input }),
    metrics: options.metrics,
  };
  options.metrics?.observe({
    queue: () => queue.getJobCounts("waiting", "active", "delayed", "prioritized", "failed"),
    instances: () => countInstancesByStatus(db),
    stdioProcesses: () =>
      connections.supervisor.running().length + connections.clientProcesses.supervisor.running().length,
  });

  // Jobs running here, for a stop that cannot wait for them all: they go back to the queue with their lock token.
  const active = new Map<string, { job: Job; token: string | undefined; done: Promise<unknown> }>();
  let activeChanged: (() => void) | undefined;
  const worker = new Worker(
    INSTANCE_QUEUE,
    async (job: Job, token?: string) => {
      const key = `${job.id}:${token}`;
      let settle!: () => void;
      active.set(key, { job, token, done: new Promise<void>((resolve) => (settle = resolve)) });
      try {
        return await processJob(job, token);
      } finally {
        active.delete(key);
        settle();
        activeChanged?.();
      }
    },
    {
      connection: queueConnection(options.redisUrl, "worker", "worker"),
      prefix,
      telemetry: queueTelemetry(),
      concurrency: options.concurrency,
      autorun: false,
      // A worker killed mid-job: its lock expires and another worker picks the job up again (stalled check).
      lockDuration: lockDurationMs,
      stalledInterval: Math.round(lockDurationMs / 2),
      maxStalledCount: 2,
    },
  );
  async function processJob(job: Job, token?: string) {
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
      const result = await dispatch(job.name, job.data, ctx, deps);
      failed = false;
      return result;
    } catch (err) {
      // Moved back to the delayed set on purpose (the reconnect loop's next attempt): not a failure.
      if (err instanceof DelayedError) failed = false;
      throw err;
    } finally {
      options.metrics?.jobEnded(job.name, (performance.now() - started) / 1000, failed);
    }
  }
  worker.on("error", (err) => logger.error({ err }, "worker error"));
  // Its worker died mid-job (lock expired): BullMQ moved it back to waiting and it runs again.
  worker.on("stalled", (jobId) => logger.warn({ jobId }, "job stalled; handed to a worker again"));
  const dbRecovery = new DatabaseRecoveryWatcher({
    probe: () => deps.db.$queryRaw`SELECT 1`,
    reconcile: () => reconcile(deps),
    logger,
  });
  worker.on("failed", (job, err) => {
    if (isDatabaseUnavailable(err)) dbRecovery.unavailable();
    const unrecoverable = err instanceof UnrecoverableError || err.name === "UnrecoverableError";
    logger[unrecoverable ? "error" : "warn"](
      { jobId: job?.id, job: job?.name, err: err.message, attemptsMade: job?.attemptsMade, unrecoverable },
      unrecoverable ? "job rejected without retry" : "job failed",
    );
  });

  // The supervisor stops idle processes on its own timers; this is the same check on demand. Idle bridge sessions
  // end first (with their processes); processes for capable clients have ids `<instanceId>:client-<session>`.
  const sweepIdle = async (now?: number) => {
    await bridge?.sweepIdle(now);
    return [
      ...(await connections.supervisor.stopIdle(now)),
      ...(await connections.clientProcesses.supervisor.stopIdle(now)),
    ];
  };

  // Before reconciling: the console must know whether stdio servers are confined before any of them starts.
  await publishSandboxStatus(
    publisherRedis,
    prefix,
    sandbox?.status ?? { mode: "off", available: false, outbound: false },
    sandbox?.defaults,
    sandbox?.maxDiskMb,
    sandbox?.loopback,
  ).catch((err) => logger.warn({ err }, "could not report the stdio sandbox status"));
  // Alive before reconciling: from here on the gateway counts this worker, and its leases are found if it dies.
  const workers = new WorkerRegistry(lockRedis, prefix);
  const stopHeartbeat = await workers.keepAlive(workerId, options.heartbeatMs ?? WORKER_HEARTBEAT.everyMs, {
    onError: (err) => logger.warn({ err }, "could not renew the worker heartbeat"),
    // Taken for gone (a pause longer than the heartbeat): its instances were set offline; start them again.
    onRevived: () => {
      logger.warn("this worker's heartbeat had run out and its stdio servers were taken back; reconciling");
      void reconcile(deps).catch((err) => logger.error({ err }, "reconciliation after a lapsed heartbeat failed"));
    },
  });
  if (options.reconcileOnStart !== false) await reconcile(deps);
  const dataLoss = new RedisDataLossWatcher({ redis: lockRedis, prefix, reconcile: () => reconcile(deps), logger });
  await dataLoss.start();
  void worker.run().catch((err) => logger.error({ err }, "worker stopped"));
  await worker.waitUntilReady();
  logger.info({ queue: INSTANCE_QUEUE, prefix, concurrency: options.concurrency }, "worker started");

  /** Resolves true once no job runs here, false when `ms` passed first. */
  const jobsFinished = async (ms: number): Promise<boolean> => {
    const deadline = Date.now() + ms;
    while (active.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1_000));
        activeChanged = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      activeChanged = undefined;
    }
    return true;
  };

  let closing: Promise<void> | undefined;
  const close = (closeOptions: { graceMs?: number } = {}) => {
    closing ??= (async () => {
      dataLoss.close();
      dbRecovery.close();
      // No new job from here on; those running get the grace period to finish.
      await worker.pause(true).catch((err) => logger.warn({ err }, "pausing the worker failed"));
      await jobsFinished(closeOptions.graceMs ?? Number.POSITIVE_INFINITY);
      // Forced: no fetching any more (a paused worker's blocking read can still take a job), and the processors
      // of jobs still running may no longer write an outcome: those jobs are handed back below.
      await worker.close(true).catch((err) => logger.warn({ err }, "worker close failed"));
      const handedBack = [...active.values()];
      // What did not finish goes back to the queue now, for another worker (no attempt counted, nothing lost),
      // instead of waiting out its lock and the stalled-job check.
      for (const { job, token } of handedBack) {
        await Job.fromId(queue, job.id!)
          .then((current) => current?.moveToWait(token))
          .then(() => logger.info({ jobId: job.id, job: job.name }, "job handed back to the queue"))
          .catch((err: unknown) =>
            logger.warn({ err, jobId: job.id }, "could not hand a job back; it is retried once its lock expires"),
          );
      }
      await deps.health.close();
      await bridge?.close().catch((err) => logger.warn({ err }, "closing the bridge failed"));
      await connections.closeAll().catch((err) => logger.warn({ err }, "closing upstream connections failed"));
      try {
        sandbox?.close();
      } catch (err) {
        logger.warn({ err }, "releasing the sandboxes' file systems failed");
      }
      if (handedBack.length > 0) {
        // The handed-back jobs' own code may still hold instance locks: let it wind down briefly (its servers
        // are gone), then free the locks so the worker taking the jobs over does not wait for them to expire.
        await Promise.race([
          Promise.allSettled(handedBack.map((a) => a.done)),
          new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
        ]);
        const released = await deps.locks.releaseAll();
        logger.info(
          { jobs: handedBack.length, locks: released },
          "unfinished jobs handed back and their locks released",
        );
      }
      await leases?.close().catch(() => {});
      stopHeartbeat();
      // Its leases are released: nothing for a sweep to take back, and the route stops counting it.
      await workers.leave(workerId).catch((err) => logger.warn({ err }, "could not remove the worker heartbeat"));
      await leaseRedis?.quit().catch(() => {});
      await queue.close().catch(() => {});
      await Promise.all([publisherRedis.quit().catch(() => {}), lockRedis.quit().catch(() => {})]);
      logger.info("worker closed");
    })();
    return closing;
  };

  return { deps, queue, worker, reconcile: () => reconcile(deps), sweepIdle, close, bridge, leases, bridgeUrl };
}
