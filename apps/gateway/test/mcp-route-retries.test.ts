import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connectClient, discoverInto, startRoute, teardownRoute } from "./support/mcp";

// A short per-attempt timeout, read when the route builds its first session; put back in afterAll.
const saved = vi.hoisted(() => {
  const before = process.env.MCP_CALL_TIMEOUT_MS;
  process.env.MCP_CALL_TIMEOUT_MS = "1000";
  return before;
});

/** How often each tool ran upstream; every tool stalls on its first run (past the call timeout), then answers. */
const runs = new Map<string, number>();
const never = new Promise<never>(() => {});
function stallingServer() {
  const mcp = new McpServer({ name: "stalling", version: "1.0.0" });
  const tool = (name: string, annotations: Record<string, boolean>) =>
    mcp.registerTool(name, { description: `${name}s something`, annotations }, async () => {
      const n = (runs.get(name) ?? 0) + 1;
      runs.set(name, n);
      if (n === 1) await never;
      return { content: [{ type: "text" as const, text: `${name} ran ${n} times` }] };
    });
  tool("send_payment", {});
  tool("get_balance", { readOnlyHint: true });
  tool("set_limit", { idempotentHint: true });
  return mcp;
}

let stalling: StreamableHttpFixture;
let down: StreamableHttpFixture;
let token: string;
const db = getDb();

beforeAll(async () => {
  stalling = await startStreamableHttpServer(stallingServer);
  down = await startStreamableHttpServer(stallingServer);
  await startRoute();
  const alice = await makeUser(db, { name: "alice" });
  const team = await makeTeam(db, alice);
  for (const [slug, fixture] of [
    ["stalling", stalling],
    ["down", down],
  ] as const) {
    const template = await seedTemplate(db, {
      teamId: team.id,
      slug,
      name: slug === "down" ? "Down" : "Stalling",
      transport: "streamable_http",
      url: fixture.url("/mcp"),
    });
    const installation = await seedInstallation(db, { template });
    const instance = await db.instance.findFirstOrThrow({
      where: { installationId: installation.id, userId: alice.id },
    });
    await discoverInto(instance.id, slug, fixture.url("/mcp"));
  }
  token = (await makeAccessToken(db, { userId: alice.id, teamId: team.id, name: "retries" })).token;
});

afterAll(async () => {
  await teardownRoute();
  await Promise.all([stalling?.stop(), down?.stop()]);
  await disconnectDb();
  if (saved === undefined) delete process.env.MCP_CALL_TIMEOUT_MS;
  else process.env.MCP_CALL_TIMEOUT_MS = saved;
});

const textOf = (result: Record<string, unknown>) =>
  (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("");
const logOf = async (target: string) => {
  await expect.poll(() => db.toolCallLog.count({ where: { target } })).toBe(1);
  return db.toolCallLog.findFirstOrThrow({ where: { target } });
};

describe("retries of proxied calls", () => {
  it("retries a call whose upstream refused the connection: the request never reached it", async () => {
    const { client } = await connectClient(token);
    await down.stop();
    const result = await client.callTool({ name: "down-send_payment", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Down failed: .*ECONNREFUSED/);
    expect(await logOf("send_payment")).toMatchObject({
      instanceId: expect.any(String),
      outcome: "error",
      attempts: 3,
    });
    await client.close();
  });

  it("does not retry a timed-out call of a tool without read-only or idempotent annotations, and says why", async () => {
    const { client } = await connectClient(token);
    const result = await client.callTool({ name: "stalling-send_payment", arguments: {} }, undefined, {
      timeout: 30_000,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^Stalling failed during stalling-send_payment \(.*\) and it was not retried, because it may already have run/,
    );
    expect(runs.get("send_payment")).toBe(1);
    // The other send_payment log is the refused call's (another server of the same tool name), after 3 attempts.
    const attempts = async () =>
      (await db.toolCallLog.findMany({ where: { target: "send_payment", outcome: "error" } }))
        .map((l) => l.attempts)
        .sort();
    await expect.poll(attempts).toEqual([1, 3]);
    await client.close();
  });

  it.each([
    ["get_balance", "readOnlyHint"],
    ["set_limit", "idempotentHint"],
  ])("retries a timed-out call of %s (%s): running it twice is harmless", async (tool) => {
    const { client } = await connectClient(token);
    const result = await client.callTool({ name: `stalling-${tool}`, arguments: {} }, undefined, { timeout: 30_000 });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(`${tool} ran 2 times`);
    expect(await logOf(tool)).toMatchObject({ outcome: "success", attempts: 2 });
    await client.close();
  });
});
