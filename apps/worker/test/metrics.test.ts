import { Queue } from "bullmq";
import { INSTANCE_QUEUE, JOB_NAMES } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { setTeamStdioAllowed } from "@switchboard/db/queries/deployment";
import { queueConnection } from "@switchboard/runtime/redis-client";
import { scrapeMetrics, type Scrape } from "@switchboard/testing/metrics";
import { freePort } from "@switchboard/testing/net";
import { TestUpstream } from "@switchboard/testing/upstream";
import { startWorkerProcess, type WorkerProcess } from "@switchboard/testing/worker-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeInstance } from "./support/fixtures";
import { REDIS_URL, testPrefix } from "./support/harness";

/**
 * The worker's /metrics (WORKER_METRICS_PORT) after real jobs in the real worker process: job durations and
 * failures per job name, health results, queue depth, instances by status and refused stdio launches.
 */

const TOKEN = "worker-metrics-token-0123456789";
const db = getDb();
const prefix = testPrefix("metrics");
let worker: WorkerProcess;
let queue: Queue;
let upstream: TestUpstream;
let url: string;

beforeAll(async () => {
  upstream = await TestUpstream.start();
  const port = await freePort();
  url = `http://127.0.0.1:${port}/metrics`;
  worker = await startWorkerProcess({
    prefix,
    env: {
      WORKER_METRICS_PORT: String(port),
      METRICS_TOKEN: TOKEN,
      // Scheduled checks an hour apart: after the first, only the test's own health jobs run.
      HEALTH_INTERVAL_MS: "3600000",
    },
  });
  queue = new Queue(INSTANCE_QUEUE, { connection: queueConnection(REDIS_URL, "producer", "metrics-test"), prefix });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await upstream?.stop();
  await disconnectDb();
});

const scrape = () => scrapeMetrics(url, TOKEN);
const moved =
  (before: Scrape, after: Scrape) =>
  (name: string, labels: Record<string, string> = {}) =>
    after.value(name, labels) - before.value(name, labels);
const statusOf = async (id: string) => (await db.instance.findUniqueOrThrow({ where: { id } })).status;

describe("worker /metrics", () => {
  it("answers only with the token", async () => {
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url.replace("/metrics", "/other"))).status).toBe(404);
  });

  it("counts jobs by name, health results and failures, and reports the queue and the instances", async () => {
    const { instance } = await makeInstance(db, { url: upstream.url });
    await queue.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 20_000 }).toBe("online");
    // Its scheduled checks are an hour apart (the first one too): only the test's own health jobs run here.
    await expect
      .poll(async () => (await scrape()).value("switchboard_queue_jobs", { state: "active" }), { timeout: 10_000 })
      .toBe(0);

    const before = await scrape();
    for (let i = 0; i < 3; i++) {
      const job = await queue.add(JOB_NAMES.health, { instanceId: instance.id });
      await expect.poll(async () => (await queue.getJobState(job.id!)) === "completed", { timeout: 20_000 }).toBe(true);
    }
    // A payload its contract refuses: the job fails once, without retry.
    const bad = await queue.add(JOB_NAMES.health, { nope: true });
    await expect.poll(async () => queue.getJobState(bad.id!), { timeout: 20_000 }).toBe("failed");
    // One job for later: the queue's depth grows by it.
    await queue.add(JOB_NAMES.health, { instanceId: instance.id }, { delay: 3_600_000 });

    const after = await scrape();
    const d = moved(before, after);
    expect(d("switchboard_health_checks_total", { result: "ok" })).toBe(3);
    expect(d("switchboard_health_checks_total", { result: "failed" })).toBe(0);
    expect(d("switchboard_job_duration_seconds_count", { job_name: "instance.health" })).toBe(4);
    expect(d("switchboard_job_failures_total", { job_name: "instance.health" })).toBe(1);
    // The depth is the queue's at the scrape. Not compared with the scrape before: the worker's own schedulers'
    // delayed jobs come and go in between (three of them were promoted in one CI run, and the delta read -3).
    await expect
      .poll(
        async () => {
          const [metric, counts] = await Promise.all([scrape(), queue.getJobCounts("delayed")]);
          return metric.value("switchboard_queue_jobs", { state: "delayed" }) === counts.delayed;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(after.value("switchboard_queue_jobs", { state: "delayed" })).toBeGreaterThanOrEqual(1);
    expect(d("switchboard_queue_jobs", { state: "failed" })).toBe(1);
    // Instances by status: what PostgreSQL holds at the scrape.
    const online = await db.instance.count({ where: { status: "online" } });
    expect(after.value("switchboard_instances", { status: "online" })).toBe(online);
    expect(online).toBeGreaterThanOrEqual(1);

    // The upstream stops answering: the next check fails.
    await upstream.stop();
    const failing = await queue.add(JOB_NAMES.health, { instanceId: instance.id });
    await expect.poll(async () => queue.getJobState(failing.id!), { timeout: 20_000 }).toBe("completed");
    expect(moved(after, await scrape())("switchboard_health_checks_total", { result: "failed" })).toBe(1);
  });

  it("counts a stdio launch the deployment's policy refuses", async () => {
    const before = await scrape();
    const { instance, team } = await makeInstance(db, { stdio: { command: "/bin/cat", args: [] } });
    await setTeamStdioAllowed(db, { teamId: team.id, allowed: false });
    await queue.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 20_000 }).toBe("error");
    await expect
      .poll(async () =>
        moved(before, await scrape())("switchboard_stdio_refusals_total", { reason: "command_not_allowed" }),
      )
      .toBeGreaterThanOrEqual(1);
    expect((await scrape()).value("switchboard_stdio_processes")).toBe(0);
  });
});
