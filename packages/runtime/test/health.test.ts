import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isHealthPath, Readiness, startHealthServer } from "../src/health";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

describe("readiness", () => {
  it("answers with the check's sentence when a check never settles, instead of waiting for it", async () => {
    const readiness = new Readiness(
      [
        { name: "stuck", failure: "Stuck is not reachable", run: () => new Promise<void>(() => {}) },
        { name: "fine", failure: "never", run: async () => {} },
      ],
      { timeoutMs: 50 },
    );
    expect(await readiness.report()).toEqual({
      ready: false,
      status: "not_ready",
      checks: { stuck: "Stuck is not reachable (no answer within 50 ms)", fine: "ok" },
      reason: "Stuck is not reachable (no answer within 50 ms)",
    });
  });

  it("keeps an error's own text out of the answer and shares one run between concurrent callers", async () => {
    let runs = 0;
    const readiness = new Readiness([
      {
        name: "db",
        failure: "PostgreSQL is not reachable",
        run: async () => {
          runs++;
          throw new Error("password authentication failed for user secret-user at 10.0.0.5");
        },
      },
    ]);
    const [a, b] = await Promise.all([readiness.report(), readiness.report()]);
    expect(runs).toBe(1);
    expect(a).toBe(b);
    expect(JSON.stringify(a)).not.toContain("secret-user");
    expect(a.checks).toEqual({ db: "PostgreSQL is not reachable" });
  });

  it("is draining from the moment it is told, whatever the checks say", async () => {
    const readiness = new Readiness([{ name: "fine", failure: "never", run: async () => {} }]);
    expect((await readiness.report()).ready).toBe(true);
    readiness.drain();
    expect(await readiness.report()).toMatchObject({ ready: false, status: "draining" });
  });
});

describe("the health endpoints over HTTP", () => {
  it("serves /healthz 200 and /readyz 503 with a JSON reason, and 404 elsewhere", async () => {
    const readiness = new Readiness([
      { name: "redis", failure: "Redis is not reachable", run: async () => "Redis is down." },
    ]);
    const server = await startHealthServer({ host: "127.0.0.1", port: 0, readiness });
    servers.push(server);
    const base = `http://127.0.0.1:${server.port}`;
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      status: "not_ready",
      checks: { redis: "Redis is down." },
      reason: "Redis is down.",
    });
    expect((await fetch(`${base}/other`)).status).toBe(404);
  });

  it("refuses a taken port with a sentence naming the variable", async () => {
    const taken = createServer();
    servers.push(taken);
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    await expect(startHealthServer({ host: "127.0.0.1", port, readiness: new Readiness([]) })).rejects.toThrow(
      /WORKER_HEALTH_PORT/,
    );
  });

  it("recognises only its two paths", () => {
    expect(isHealthPath("/readyz?x=1")).toBe(true);
    expect(isHealthPath("/healthz")).toBe(true);
    expect(isHealthPath("/readyzz")).toBe(false);
    expect(isHealthPath("/api/mcp")).toBe(false);
  });
});
