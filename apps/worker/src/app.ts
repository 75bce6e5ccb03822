import { probeStdioOnce } from "./stdio-probe";
import { INSTANCE_QUEUE, WORKER_HEARTBEAT } from "@switchboard/core/contracts";
import { IDLE_POLICY } from "@switchboard/core/policies";
import { egressFetch } from "@switchboard/core/upstream";
import { getCipher } from "@switchboard/db/crypto";
import { allocateSandboxUid, getInstanceState } from "@switchboard/db/queries/instance-lifecycle";
import { getSandboxLoopbackPorts } from "@switchboard/db/queries/deployment";
import { bridgePath, StdioBridge } from "./bridge/server";
import { StdioLeases } from "./bridge/leases";
import { InstanceConnections } from "./connections";
import { HealthStore } from "./health-store";
import type { Tunables, WorkerDeps } from "./deps";
import { loadInstanceLaunch } from "@switchboard/db/launch";
import { assertStdioLaunchAllowed } from "./stdio-policy";
import { InstanceLocks } from "./locks";
import { RedisEventPublisher } from "@switchboard/runtime/instance-events";
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
import { SecretRegistry } from "@switchboard/core/config";
import { InstanceSecrets } from "./secrets";
import { publishSandboxStatus } from "./sandbox/status";
import { reservedLoopbackPorts } from "@switchboard/core/sandbox";
import { pickSandboxUid, SandboxRefusedError } from "./sandbox";
import { CommandNotAllowedError } from "@switchboard/core/deployment";
import { countInstancesByStatus } from "@switchboard/db/queries/instance";

import { DEFAULT_LOCK_DURATION_MS, DEFAULT_TUNABLES, type WorkerApp, type WorkerAppOptions } from "./app-options";
import { JobRunner } from "./job-runner";
import { supervisorEvents } from "./stdio-events";

export type { WorkerApp, WorkerAppOptions } from "./app-options";

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
  // No process runs here any more: another worker may take the instance, and bridge sessions on it are over.
  const releaseStdio = (instanceId: string, reason?: string) => {
    // Its main process stops while a process for capable clients still runs here (or the other way round).
    if (connections.hasLocalProcess(instanceId)) return;
    void leases?.release(instanceId);
    void bridge?.closeInstance(instanceId, reason);
  };
  const onSupervisorEvent = supervisorEvents({ logger, secrets, jobs, releaseStdio });
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

  const runner = new JobRunner({
    redisUrl: options.redisUrl,
    prefix,
    concurrency: options.concurrency,
    lockDurationMs,
    logger,
    metrics: options.metrics,
    deps: () => deps,
  });
  const worker = runner.worker;
  const dbRecovery = new DatabaseRecoveryWatcher({
    probe: () => deps.db.$queryRaw`SELECT 1`,
    reconcile: () => reconcile(deps),
    logger,
  });
  runner.watch((err) => {
    if (isDatabaseUnavailable(err)) dbRecovery.unavailable();
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

  let closing: Promise<void> | undefined;
  const close = (closeOptions: { graceMs?: number } = {}) => {
    closing ??= (async () => {
      dataLoss.close();
      dbRecovery.close();
      // No new job from here on; those running get the grace period to finish.
      await worker.pause(true).catch((err) => logger.warn({ err }, "pausing the worker failed"));
      await runner.finished(closeOptions.graceMs ?? Number.POSITIVE_INFINITY);
      // Forced: no fetching any more (a paused worker's blocking read can still take a job), and the processors
      // of jobs still running may no longer write an outcome: those jobs are handed back below.
      await worker.close(true).catch((err) => logger.warn({ err }, "worker close failed"));
      // What did not finish goes back to the queue now, for another worker.
      const handedBack = await runner.handBack(queue);
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
