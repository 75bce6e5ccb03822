/**
 * Worker benchmark: N online instances with health schedules against cheap local upstreams (bench/cheap-upstream.mjs,
 * in their own process). Prints the worker's memory, Redis memory per instance and health jobs processed per
 * second, against what the production interval (120 s) needs for the same N, measured in the same run; and a
 * probe-only baseline (the same pings without BullMQ or PostgreSQL) to show what the job machinery costs.
 *
 *   npx tsx bench/health-scale.ts                 # 10,000 instances (the scenario, ~2 min)
 *   BENCH_INSTANCES=1000 npx tsx bench/health-scale.ts
 *
 * `npm run bench` (BENCH_ONLY=worker) runs it as the worker ships: bundled like dist/main.js, in a process of its own.
 *
 * Knobs: BENCH_SECONDS (measurement window, 30), BENCH_HEALTH_INTERVAL_MS (5000: shorter than production so the
 * schedule asks more than the worker can do and the window measures capacity), BENCH_UPSTREAMS (4),
 * BENCH_CONCURRENCY (the worker default, 100), BENCH_WARMUP_SECONDS (deadline for every instance's first
 * probe, 120), BENCH_HEAP_SNAPSHOT (a file to write the worker's heap snapshot to after the window), REDIS_URL. Needs PostgreSQL (TEST_DATABASE_ADMIN_URL) and Redis, like the tests; everything it
 * creates is removed.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { writeHeapSnapshot } from "node:v8";
import { Redis } from "ioredis";
import pino from "pino";
import { HEALTH_POLICY } from "@switchboard/core/policies";
import { limitHeapGrowth } from "@switchboard/runtime/heap";
import { createDb } from "@switchboard/db/client";
import { createTestDatabase } from "@switchboard/db/testing";
import { startWorkerApp } from "../src/app";
import { parseWorkerEnv } from "../src/env";

function num(name: string, fallback: number): number {
  const raw = process.env[name];
  return raw ? Number(raw) : fallback;
}

async function redisUsedMemory(redis: Redis): Promise<number> {
  const info = await redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const round1 = (x: number) => Math.round(x * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startUpstreams(count: number) {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "cheap-upstream.mjs"), String(count)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.stdout.once("data", (d: Buffer) => resolve(d.toString()));
  });
  const { ports } = JSON.parse(line) as { ports: number[] };
  return { urls: ports.map((p) => `http://127.0.0.1:${p}/mcp`), stop: () => void child.stdin.end() };
}

export async function run(): Promise<Record<string, number>> {
  const n = num("BENCH_INSTANCES", 10_000);
  const seconds = num("BENCH_SECONDS", 30);
  const intervalMs = num("BENCH_HEALTH_INTERVAL_MS", 5_000);
  const upstreamCount = num("BENCH_UPSTREAMS", 4);
  // The worker's defaults, as main.ts reads them (HEAP_GROWING_PERCENT from this environment too).
  const defaults = parseWorkerEnv({
    DATABASE_URL: "postgres://x",
    SWITCHBOARD_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    HEAP_GROWING_PERCENT: process.env.HEAP_GROWING_PERCENT,
  });
  // What main.ts does at start: this process is the worker here.
  limitHeapGrowth(defaults.HEAP_GROWING_PERCENT);
  const concurrency = num("BENCH_CONCURRENCY", defaults.WORKER_CONCURRENCY);
  const warmupDeadlineMs = num("BENCH_WARMUP_SECONDS", 120) * 1_000;
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  process.env.SWITCHBOARD_ENCRYPTION_KEY ??= randomBytes(32).toString("base64");
  const prefix = `sbbench-${Date.now().toString(36)}`;
  const requiredAtProduction = n / (HEALTH_POLICY.intervalMs / 1_000);

  console.log(
    `worker bench: ${n} instances, health every ~${intervalMs} ms (production ${HEALTH_POLICY.intervalMs} ms), ` +
      `${upstreamCount} cheap upstreams in a separate process, concurrency ${concurrency}, ${seconds} s window`,
  );
  const database = await createTestDatabase("bench");
  const db = createDb(database.url, 20);
  const redis = new Redis(redisUrl);
  const upstreams = await startUpstreams(upstreamCount);
  let app: Awaited<ReturnType<typeof startWorkerApp>> | undefined;

  try {
    // Seed: one team and one user; members do not matter to health.
    const userId = `bench_${randomBytes(4).toString("hex")}`;
    await db.user.create({ data: { id: userId, name: "Bench", email: `${userId}@bench.test` } });
    const teamId = `team_${userId}`;
    await db.team.create({ data: { id: teamId, name: "Bench", slug: teamId.replaceAll("_", "-") } });
    const templates = upstreams.urls.map((url, i) => ({
      id: `tpl_${i}`,
      teamId,
      slug: `tpl${i}`,
      name: `Upstream ${i}`,
      transport: "streamable_http" as const,
      url,
    }));
    await db.serverTemplate.createMany({ data: templates });
    for (let i = 0; i < n; i += 1_000) {
      const ids = Array.from({ length: Math.min(1_000, n - i) }, (_, j) => i + j);
      await db.installation.createMany({
        data: ids.map((k) => ({
          id: `inst_${k}`,
          teamId,
          templateId: `tpl_${k % upstreamCount}`,
          slug: `srv${k}`,
          name: `srv${k}`,
        })),
      });
      await db.instance.createMany({
        data: ids.map((k) => ({ id: `i_inst_${k}`, installationId: `inst_${k}`, userId, status: "online" as const })),
      });
    }

    const xacts = async () =>
      Number(
        (
          await db.$queryRawUnsafe<{ x: bigint }[]>(
            "SELECT xact_commit AS x FROM pg_stat_database WHERE datname = current_database()",
          )
        )[0]?.x ?? 0,
      );
    const redisBefore = await redisUsedMemory(redis);
    const started = Date.now();
    app = await startWorkerApp({
      db,
      logger: pino({ level: "warn" }),
      // The cheap upstreams listen on loopback, on ports picked at start.
      egress: { allowPrivate: false, allow: [{ host: "127.0.0.1", port: "*" }] },
      redisUrl,
      prefix,
      concurrency,
      tunables: { healthIntervalMs: intervalMs, healthTimeoutMs: 10_000 },
    });
    const reconcileMs = Date.now() - started;
    const schedulers = await app.queue.getJobSchedulersCount();
    const redisPerInstance = Math.max(0, (await redisUsedMemory(redis)) - redisBefore) / n;

    // Warm-up: every instance's first probe opens its MCP session (initialize); measure the steady state after.
    let completed = 0;
    app.worker.on("completed", () => void completed++);
    const warmStart = Date.now();
    let probedOnce = 0;
    while (Date.now() - warmStart < warmupDeadlineMs) {
      probedOnce = await db.instance.count({ where: { lastHealthCheckAt: { not: null } } });
      if (probedOnce >= n) break;
      await sleep(1_000);
    }
    const warmupMs = Date.now() - warmStart;

    completed = 0;
    const xactBefore = await xacts();
    const cpuBefore = process.cpuUsage();
    const windowStart = Date.now();
    await sleep(seconds * 1_000);
    const elapsed = (Date.now() - windowStart) / 1_000;
    const jobs = completed;
    const cpu = process.cpuUsage(cpuBefore);
    await sleep(1_000); // PostgreSQL publishes its counters about once a second
    const dbTransactionsPerJob = ((await xacts()) - xactBefore) / Math.max(1, jobs);
    const jobsPerSecond = jobs / elapsed;
    const mem = process.memoryUsage();
    // BENCH_HEAP_SNAPSHOT=file.heapsnapshot: what holds the memory, for Chrome's DevTools (Memory tab).
    if (process.env.BENCH_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT);

    // Baseline in the same run: the same pings over the same connections, round-robin over every instance like
    // the schedule, with the same concurrency, without BullMQ or PostgreSQL.
    await app.worker.pause();
    const ids = Array.from({ length: n }, (_, k) => `i_inst_${k}`);
    let pings = 0;
    const pingStart = Date.now();
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        for (let k = w; Date.now() - pingStart < 5_000; k += concurrency) {
          await (await app!.deps.connections.get(ids[k % ids.length]!)).ping({ timeout: 10_000 });
          pings++;
        }
      }),
    );
    const pingsPerSecond = pings / ((Date.now() - pingStart) / 1_000);

    const figures = {
      instances: n,
      schedulers,
      reconcileMs,
      warmupMs,
      configuredIntervalMs: intervalMs,
      jobsPerSecond: round1(jobsPerSecond),
      askedJobsPerSecond: round1((n / intervalMs) * 1_000),
      requiredJobsPerSecondAt120s: round1(requiredAtProduction),
      headroomAt120s: round1(jobsPerSecond / requiredAtProduction),
      probeOnlyPingsPerSecond: round1(pingsPerSecond),
      workerCpuPercent: round1(((cpu.user + cpu.system) / 1_000 / (elapsed * 1_000)) * 100),
      dbTransactionsPerJob: Math.round(dbTransactionsPerJob * 100) / 100,
      workerRssBytes: mem.rss,
      workerHeapUsedBytes: mem.heapUsed,
      redisBytesPerInstance: Math.round(redisPerInstance),
      openConnections: app.deps.connections.size,
    };
    console.log(
      `  schedulers upserted at start-up : ${schedulers} in ${reconcileMs} ms; every instance probed once after ${warmupMs} ms (${probedOnce}/${n})`,
    );
    console.log(
      `  health jobs processed           : ${figures.jobsPerSecond}/s at a ${intervalMs} ms interval (the schedule asks ${figures.askedJobsPerSecond}/s)`,
    );
    console.log(
      `  needed at the 120 s interval    : ${figures.requiredJobsPerSecondAt120s}/s -> headroom x${figures.headroomAt120s}`,
    );
    console.log(
      `  probe-only baseline             : ${figures.probeOnlyPingsPerSecond} pings/s (same connections, no queue/DB) -> jobs reach ${Math.round((jobsPerSecond / pingsPerSecond) * 100)}% of it`,
    );
    console.log(
      `  worker CPU in the window        : ${figures.workerCpuPercent}% of one core; ${figures.dbTransactionsPerJob} PostgreSQL transactions per job`,
    );
    console.log(
      `  worker memory                   : rss ${mb(mem.rss)}, heap used ${mb(mem.heapUsed)} of ${mb(mem.heapTotal)}, external ${mb(mem.external)} (${figures.openConnections} open upstream connections; HEAP_GROWING_PERCENT ${defaults.HEAP_GROWING_PERCENT || "off"})`,
    );
    console.log(
      `  Redis memory per instance       : ${figures.redisBytesPerInstance} bytes (scheduler + next delayed job)`,
    );
    return figures;
  } finally {
    await app?.close();
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 1_000) await redis.del(...keys.slice(i, i + 1_000));
    await redis.quit();
    upstreams.stop();
    await db.$disconnect();
    await database.drop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
