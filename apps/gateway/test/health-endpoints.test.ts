import { randomBytes } from "node:crypto";
import pg from "pg";
import { adminUrl, migrate } from "@switchboard/db/testing";
import { PrivateRedis } from "@switchboard/testing/private-redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOtherRoute, type OtherRoute } from "./support/other-route";

/**
 * `/healthz` and `/readyz` of a real gateway process (the public server server.ts runs), on a database and a
 * Redis of this file's own: a fresh database nobody migrated yet, then migrated; a private redis-server that is
 * killed and started again. Readiness follows each; liveness never moves.
 */
const database = `sb_health_${randomBytes(4).toString("hex")}`;
let databaseUrl: string;
let redisServer: PrivateRedis;
let gateway: OtherRoute;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await admin(`CREATE DATABASE "${database}"`);
  const url = new URL(adminUrl());
  url.pathname = `/${database}`;
  databaseUrl = url.toString();
  redisServer = await PrivateRedis.start();
  gateway = await startOtherRoute({ env: { DATABASE_URL: databaseUrl, REDIS_URL: redisServer.url } });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await redisServer?.kill();
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
});

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gateway.base}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("the gateway's health endpoints", () => {
  it("is not ready on a database without the migrations this build ships, and ready once they are applied", async () => {
    const before = await get("/readyz");
    expect(before.status).toBe(503);
    expect(before.body).toMatchObject({
      status: "not_ready",
      checks: { postgres: "ok", redis: "ok", migrations: expect.stringMatching(/^\d+ migrations are not applied/) },
    });
    expect(before.body.reason).toBe((before.body.checks as Record<string, string>).migrations);
    expect((await get("/healthz")).status).toBe(200);

    await migrate(databaseUrl);
    await expect
      .poll(() => get("/readyz"), { timeout: 10_000, interval: 200 })
      .toEqual({ status: 200, body: { status: "ready", checks: { postgres: "ok", migrations: "ok", redis: "ok" } } });
  }, 60_000);

  it("answers 503 within its bound while Redis is unreachable, stays alive, and is ready again when Redis is back", async () => {
    await redisServer.kill();
    await expect
      .poll(() => get("/readyz"), { timeout: 15_000, interval: 200 })
      .toMatchObject({
        status: 503,
        body: { status: "not_ready", checks: { postgres: "ok", redis: expect.stringMatching(/^Redis/) } },
      });
    expect(await get("/healthz")).toEqual({ status: 200, body: { status: "ok" } });

    await redisServer.restart();
    await expect.poll(() => get("/readyz").then((r) => r.status), { timeout: 20_000, interval: 200 }).toBe(200);
  }, 60_000);

  it("needs no token, and is served by the gateway itself on the public port", async () => {
    const res = await fetch(`${gateway.base}/readyz?probe=1`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect((await fetch(`${gateway.base}/readyz`, { method: "POST" })).status).toBe(405);
  });
});
