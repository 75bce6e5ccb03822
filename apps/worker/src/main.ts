import { createDb } from "@switchboard/db/client";
import { useProcessEnv } from "@switchboard/db/env";
import { startWorkerApp } from "./app";
import { InvalidEnvError, parseWorkerEnv, type WorkerEnv } from "./env";
import { SecretRegistry } from "@switchboard/core/config";
import { createLogger } from "@switchboard/runtime/logger";
import { installProcessGuard } from "@switchboard/runtime/process-guard";
import { limitHeapGrowth } from "@switchboard/runtime/heap";
import { startTracing, stopTracing } from "@switchboard/runtime/telemetry";
import { StdioSandbox } from "./sandbox";
import { startWorkerHealth } from "./health-server";
import { reservedLoopbackPorts } from "@switchboard/core/sandbox";
import { workerMetrics } from "@switchboard/runtime/metrics";
import { metricsExposureProblem, startMetricsServer, type MetricsServer } from "@switchboard/runtime/metrics-server";

function loadEnv(): WorkerEnv {
  try {
    const env = parseWorkerEnv();
    // Parsed once, the key with the rest (a malformed one fails here, not at the first secret): db reads this.
    useProcessEnv(env);
    const exposed = metricsExposureProblem({
      port: env.WORKER_METRICS_PORT,
      host: env.METRICS_HOST,
      token: env.METRICS_TOKEN,
    });
    if (exposed) throw new Error(exposed);
    return env;
  } catch (error) {
    const message = error instanceof InvalidEnvError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`switchboard worker cannot start.\n${message}\n`);
    process.exit(1);
  }
}

async function main() {
  const env = loadEnv();
  // Its upstream connections are held for long while jobs leave garbage behind: keep RSS near the live data.
  limitHeapGrowth(env.HEAP_GROWING_PERCENT);
  // OpenTelemetry tracing when the operator configured it (OTEL_*), before the queue and the bridge are built.
  startTracing("switchboard-worker", env);
  const logSecrets = new SecretRegistry();
  const logger = createLogger("worker", env.LOG_LEVEL, logSecrets);
  const db = createDb(env.DATABASE_URL, env.DATABASE_POOL_MAX);
  // Whatever escapes (a bug of ours, a library's stray throw) is logged; what cannot be survived stops the worker
  // cleanly (its stdio process groups killed, its leases released for another worker) rather than where it stood.
  let app: Awaited<ReturnType<typeof startWorkerApp>> | undefined;
  // /healthz and /readyz for the orchestrator's probes, from the start (ready once the worker takes jobs).
  const health = await startWorkerHealth({ env, db, logger, started: () => app !== undefined });
  let metricsServer: MetricsServer | undefined;
  let stopping = false;
  const shutdown = (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    health?.readiness.drain();
    logger.info({ reason, graceMs: env.SHUTDOWN_GRACE_MS }, "shutting down: finishing in-flight jobs");
    // Jobs past the grace period are handed back; stopping what is left must not keep the process forever.
    const force = setTimeout(() => {
      logger.error("shutdown timed out; exiting");
      process.exit(1);
    }, env.SHUTDOWN_GRACE_MS + 15_000);
    force.unref();
    void metricsServer?.close();
    void (app ? app.close({ graceMs: env.SHUTDOWN_GRACE_MS }) : Promise.resolve())
      .then(() => health?.close())
      .then(() => db.$disconnect())
      .then(() => stopTracing().catch(() => undefined))
      .then(() => process.exit(exitCode))
      .catch((err) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      });
  };
  installProcessGuard({ logger, shutdown });
  const sandbox = await StdioSandbox.start({
    mode: env.STDIO_SANDBOX,
    dataDir: env.STDIO_SANDBOX_DIR,
    readOnlyPaths: env.STDIO_SANDBOX_READONLY_PATHS,
    defaults: {
      outbound: env.STDIO_SANDBOX_OUTBOUND === "on",
      memoryMb: env.STDIO_SANDBOX_MEMORY_MB,
      processes: env.STDIO_SANDBOX_PROCESSES,
      openFiles: env.STDIO_SANDBOX_OPEN_FILES,
      cpuSeconds: env.STDIO_SANDBOX_CPU_SECONDS,
      diskMb: env.STDIO_SANDBOX_DISK_MB,
    },
    maxDiskMb: env.STDIO_SANDBOX_DISK_MAX_MB,
    seccompProfile: env.STDIO_SANDBOX_SECCOMP_PROFILE,
    lang: env.LANG,
    loopback: {
      operatorPorts: env.STDIO_SANDBOX_LOOPBACK_PORTS,
      reserved: reservedLoopbackPorts({
        databaseUrl: env.DATABASE_URL,
        redisUrl: env.REDIS_URL,
        bridgePorts: [env.BRIDGE_PORT],
        consolePorts: [env.PORT],
      }),
    },
    logger: logger.child({ component: "sandbox" }),
  }).catch((error: unknown) => {
    process.stderr.write(
      `switchboard worker cannot start.\n${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
  // Only when the operator asked for them: an unscraped registry is work for nothing.
  const metrics = env.WORKER_METRICS_PORT !== undefined ? workerMetrics() : undefined;
  app = await startWorkerApp({
    metrics,
    sandbox,
    db,
    logger,
    logSecrets,
    redisUrl: env.REDIS_URL,
    prefix: env.REDIS_PREFIX,
    concurrency: env.WORKER_CONCURRENCY,
    lockDurationMs: env.WORKER_LOCK_DURATION_MS,
    heartbeatMs: env.WORKER_HEARTBEAT_MS,
    tunables: { healthIntervalMs: env.HEALTH_INTERVAL_MS },
    egress: { allowPrivate: env.EGRESS_ALLOW_PRIVATE, allow: env.EGRESS_ALLOW },
    bridge: env.BRIDGE_SECRET
      ? { host: env.BRIDGE_HOST, port: env.BRIDGE_PORT, secret: env.BRIDGE_SECRET, publicUrl: env.BRIDGE_PUBLIC_URL }
      : undefined,
  });
  if (metrics) {
    metricsServer = await startMetricsServer({
      registry: metrics.registry,
      host: env.METRICS_HOST,
      port: env.WORKER_METRICS_PORT!,
      token: env.METRICS_TOKEN,
    });
    logger.info({ port: metricsServer.port }, "metrics listening");
  }
  if (!env.BRIDGE_SECRET) {
    logger.warn("BRIDGE_SECRET is not set: stdio servers run here but the proxy cannot reach them through the bridge");
  }

  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

// A start that fails (Redis or PostgreSQL unreachable) is fatal; the guard above would only log the rejection.
main().catch((error: unknown) => {
  process.stderr.write(`switchboard worker cannot start.\n${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
