/**
 * Worker benchmark: N online instances with health schedules against cheap local upstreams.
 * Prints the worker's memory, Redis memory per instance and health jobs processed per second.
 *
 *   npx tsx bench/health-scale.ts                 # 1,000 instances
 *   BENCH_INSTANCES=10000 npx tsx bench/health-scale.ts
 *
 * Other knobs: BENCH_SECONDS (measurement window, 20), BENCH_HEALTH_INTERVAL_MS (3000: the production 120 s
 * would need a 2-minute window per round), BENCH_UPSTREAMS (4), BENCH_CONCURRENCY (50), REDIS_URL.
 * Needs PostgreSQL (TEST_DATABASE_ADMIN_URL) and Redis, like the tests; everything it creates is removed.
 */
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import pino from "pino";
import { createDb } from "@switchboard/db/client";
import { createTestDatabase } from "@switchboard/db/testing";
import { startWorkerApp } from "../src/app";
import { TestUpstream } from "../test/support/upstream";

function num(name: string, fallback: number): number {
  const raw = process.env[name];
  return raw ? Number(raw) : fallback;
}

async function redisUsedMemory(redis: Redis): Promise<number> {
  const info = await redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function run(): Promise<Record<string, number>> {
  const n = num("BENCH_INSTANCES", 1_000);
  const seconds = num("BENCH_SECONDS", 20);
  const intervalMs = num("BENCH_HEALTH_INTERVAL_MS", 3_000);
  const upstreamCount = num("BENCH_UPSTREAMS", 4);
  const concurrency = num("BENCH_CONCURRENCY", 50);
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  process.env.SWITCHBOARD_ENCRYPTION_KEY ??= randomBytes(32).toString("base64");
  const prefix = `sbbench-${Date.now().toString(36)}`;

  console.log(`worker bench: ${n} instances, health every ~${intervalMs} ms, ${upstreamCount} upstreams, ${seconds} s window`);
  const database = await createTestDatabase("bench");
  const db = createDb(database.url, 20);
  const redis = new Redis(redisUrl);
  const upstreams = await Promise.all(Array.from({ length: upstreamCount }, () => TestUpstream.start(["echo"])));
  let app: Awaited<ReturnType<typeof startWorkerApp>> | undefined;

  try {
    // Seed: one team, one user per instance would be realistic but slow; members do not matter to health.
    const userId = `bench_${randomBytes(4).toString("hex")}`;
    await db.user.create({ data: { id: userId, name: "Bench", email: `${userId}@bench.test` } });
    const teamId = `team_${userId}`;
    await db.team.create({ data: { id: teamId, name: "Bench", slug: teamId.replaceAll("_", "-") } });
    const installations = [];
    for (let i = 0; i < n; i++) {
      const u = upstreams[i % upstreamCount]!;
      installations.push({ id: `inst_${i}`, slug: `srv${i}`, url: u.url });
    }
    const templates = upstreams.map((u, i) => ({ id: `tpl_${i}`, teamId, slug: `tpl${i}`, name: `Upstream ${i}`, transport: "streamable_http" as const, url: u.url }));
    await db.serverTemplate.createMany({ data: templates });
    for (let i = 0; i < n; i += 1_000) {
      const chunk = installations.slice(i, i + 1_000);
      await db.installation.createMany({
        data: chunk.map((x, j) => ({ id: x.id, teamId, templateId: `tpl_${(i + j) % upstreamCount}`, slug: x.slug, name: x.slug })),
      });
      await db.instance.createMany({
        data: chunk.map((x) => ({ id: `i_${x.id}`, installationId: x.id, userId, status: "online" as const })),
      });
    }

    const redisBefore = await redisUsedMemory(redis);
    const started = Date.now();
    app = await startWorkerApp({
      db,
      logger: pino({ level: "warn" }),
      redisUrl,
      prefix,
      concurrency,
      tunables: { healthIntervalMs: intervalMs, healthTimeoutMs: 10_000 },
    });
    const reconcileMs = Date.now() - started;
    const schedulers = await app.queue.getJobSchedulersCount();
    const redisPerInstance = (Math.max(0, (await redisUsedMemory(redis)) - redisBefore)) / n;

    // Warm-up: every instance's first probe opens its session; measure the steady state after one interval.
    let completed = 0;
    app.worker.on("completed", () => void completed++);
    await new Promise((r) => setTimeout(r, intervalMs * 1.5));
    completed = 0;
    const windowStart = Date.now();
    await new Promise((r) => setTimeout(r, seconds * 1_000));
    const elapsed = (Date.now() - windowStart) / 1_000;
    const jobsPerSecond = completed / elapsed;
    const mem = process.memoryUsage();
    const healthy = await db.instance.count({ where: { lastHealthyAt: { not: null } } });

    const figures = {
      instances: n,
      schedulers,
      reconcileMs,
      jobsPerSecond: Math.round(jobsPerSecond * 10) / 10,
      expectedJobsPerSecond: Math.round((n / intervalMs) * 1_000 * 10) / 10,
      healthyInstances: healthy,
      workerRssBytes: mem.rss,
      workerHeapUsedBytes: mem.heapUsed,
      redisBytesPerInstance: Math.round(redisPerInstance),
      openConnections: app.deps.connections.size,
    };
    console.log(`  schedulers upserted at start-up : ${schedulers} in ${reconcileMs} ms`);
    console.log(`  health jobs processed           : ${figures.jobsPerSecond}/s (schedule asks ${figures.expectedJobsPerSecond}/s)`);
    console.log(`  instances probed healthy        : ${healthy}/${n}`);
    console.log(`  worker memory                   : rss ${mb(mem.rss)}, heap used ${mb(mem.heapUsed)} (same process as the upstreams)`);
    console.log(`  Redis memory per instance       : ${figures.redisBytesPerInstance} bytes (scheduler + next delayed job)`);
    return figures;
  } finally {
    await app?.close();
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 1_000) await redis.del(...keys.slice(i, i + 1_000));
    await redis.quit();
    await Promise.all(upstreams.map((u) => u.stop()));
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
