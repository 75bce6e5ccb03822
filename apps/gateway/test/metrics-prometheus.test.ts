import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { disconnectDb } from "@switchboard/db/client";
import type { MetricsServer } from "@switchboard/runtime/metrics-server";
import { freePort } from "@switchboard/testing/net";
import { waitUntil } from "@switchboard/testing/wait";
import { startWorkerProcess, type WorkerProcess } from "@switchboard/testing/worker-process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startGatewayMetricsServer } from "../src/metrics";
import { workerJobs } from "../src/mcp/worker-jobs";
import { connectClient, teardownRoute } from "./support/mcp";
import { startRouteTeam, type RouteTeam } from "./support/route-team";

/**
 * Debian's Prometheus (`/usr/bin/prometheus`, apt package prometheus) scraping the gateway's and the worker's
 * /metrics with a bearer token, from a scrape configuration written here, and answering a counter through its
 * HTTP query API: the exposition and the scrape setup docs/metrics.md shows are real. And promtool checks the
 * shipped alert rules and runs their unit tests.
 */

const run = promisify(execFile);
const DEPLOY_DIR = path.resolve(import.meta.dirname, "../../../deploy");
const RULES_DIR = path.join(DEPLOY_DIR, "prometheus");
const TOKEN = vi.hoisted(() => {
  const token = "prometheus-test-token-0123456789";
  process.env.METRICS_TOKEN = token;
  process.env.METRICS_PORT = "0";
  return token;
});

let team: RouteTeam;
let gatewayMetrics: MetricsServer;
let worker: WorkerProcess;
let prometheus: ChildProcess | undefined;
let promUrl: string;
const dir = mkdtempSync(path.join(os.tmpdir(), "sb-prometheus-"));

beforeAll(async () => {
  team = await startRouteTeam();
  gatewayMetrics = (await startGatewayMetricsServer())!;
  const workerPort = await freePort();
  worker = await startWorkerProcess({ env: { WORKER_METRICS_PORT: String(workerPort), METRICS_TOKEN: TOKEN } });
  const job = (name: string, port: number) => [
    `  - job_name: ${name}`,
    `    authorization: { credentials: "${TOKEN}" }`,
    `    static_configs: [{ targets: ["127.0.0.1:${port}"] }]`,
  ];
  writeFileSync(
    path.join(dir, "prometheus.yml"),
    [
      "global: { scrape_interval: 1s, evaluation_interval: 1s }",
      "scrape_configs:",
      ...job("switchboard-gateway", gatewayMetrics.port),
      ...job("switchboard-worker", workerPort),
      "",
    ].join("\n"),
  );
  const promPort = await freePort();
  promUrl = `http://127.0.0.1:${promPort}`;
  let output = "";
  prometheus = spawn(
    "prometheus",
    [
      `--config.file=${path.join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  prometheus.stderr?.on("data", (d: Buffer) => void (output += d.toString()));
  await waitUntil(
    async () => {
      if (prometheus?.exitCode !== null) throw new Error(`prometheus exited:\n${output}`);
      return (await fetch(`${promUrl}/-/ready`).catch(() => null))?.status === 200;
    },
    "Prometheus to be ready",
    30_000,
    200,
  );
}, 90_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.once("exit", resolve));
    prometheus.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
  await worker?.stop();
  await gatewayMetrics?.close();
  await teardownRoute();
  await team?.upstream.stop();
  await disconnectDb();
});

/** One instant query through Prometheus's HTTP API: the first sample's value, or null when there is none. */
async function query(expr: string): Promise<number | null> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; data: { result: Array<{ value: [number, string] }> } };
  if (body.status !== "success") throw new Error(`query ${expr}: ${JSON.stringify(body)}`);
  const first = body.data.result[0];
  return first ? Number(first.value[1]) : null;
}

describe("Prometheus against the gateway and the worker", () => {
  it("scrapes both with the token and answers the route's counter and the worker's jobs", async () => {
    await expect
      .poll(() => query('sum(up{job=~"switchboard-gateway|switchboard-worker"})'), { timeout: 20_000, interval: 500 })
      .toBe(2);
    const { client } = await connectClient(await team.newToken("prometheus"));
    for (let i = 0; i < 4; i++) await client.callTool({ name: "my-demo-echo", arguments: { text: `p${i}` } });
    await client.close();
    await expect
      .poll(() => query('sum(switchboard_proxy_requests_total{installation="my-demo",outcome="success"})'), {
        timeout: 20_000,
        interval: 500,
      })
      .toBe(4);
    // A real job the gateway asks of the worker: its duration is counted under its name.
    await workerJobs().requestDiscovery(team.instance.id, "rediscovery");
    await expect
      .poll(() => query('sum(switchboard_job_duration_seconds_count{job_name="instance.discover"})'), {
        timeout: 30_000,
        interval: 500,
      })
      .toBeGreaterThanOrEqual(1);
    expect(await query("max(switchboard_workers_alive)")).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it("accepts every query of the Grafana dashboard", async () => {
    const dashboard = JSON.parse(readFileSync(path.join(DEPLOY_DIR, "grafana/switchboard.json"), "utf8")) as {
      panels: Array<{ targets?: Array<{ expr: string }> }>;
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    expect(exprs.length).toBeGreaterThan(10);
    for (const expr of exprs) {
      // Grafana's variables as it would fill them: every installation, a one-minute rate window.
      await query(expr.replaceAll("$__rate_interval", "1m").replaceAll("$installation", ".*"));
    }
  });

  it("ships alert rules promtool accepts, whose unit tests pass", async () => {
    const checked = await run("promtool", ["check", "rules", "alerts.yml"], { cwd: RULES_DIR });
    expect(checked.stdout).toMatch(/SUCCESS: \d+ rules found/);
    const tested = await run("promtool", ["test", "rules", "alerts.test.yml"], { cwd: RULES_DIR });
    expect(tested.stdout).toContain("SUCCESS");
  });
});
