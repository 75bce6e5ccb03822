import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { deleteMatching } from "@switchboard/testing/redis";
import { afterAll, beforeAll } from "vitest";
import { demoServer } from "@switchboard/core/testing/demo-server";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { getDb } from "@switchboard/db/client";
import { makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { redis } from "@switchboard/runtime/redis";
import { liveEventsReady } from "@switchboard/runtime/live-events";
import { forgetLocalSessions } from "../../src/mcp/sessions";
import { env } from "@switchboard/runtime/env";
import { redisKeys } from "@switchboard/core/contracts";
import { installDiscovered, routeBase, startRoute, stopRoute } from "./mcp";

/**
 * The MCP route on a real HTTP server with one team: a member with one installation (`my-demo`, a real
 * Streamable HTTP upstream, discovered and online; the demo server unless another is given) and tokens to call
 * it with.
 */
export async function startRouteTeam(server: () => McpServer = demoServer()) {
  const upstream: StreamableHttpFixture = await startStreamableHttpServer(server);
  await startRoute();
  const db = getDb();
  const alice = await makeUser(db, { name: "alice" });
  const team = await makeTeam(db, alice);
  const { installation, instances } = await installDiscovered({
    teamId: team.id,
    slug: "my-demo",
    name: "Demo",
    url: upstream.url("/mcp"),
    userIds: [alice.id],
  });
  const instance = await db.instance.findUniqueOrThrow({ where: { id: instances[0]! } });
  await liveEventsReady();
  const newToken = async (name = "test") =>
    (await makeAccessToken(db, { userId: alice.id, teamId: team.id, name })).token;
  return { db, upstream, alice, team, installation, instance, newToken, base: routeBase() };
}

export type RouteTeam = Awaited<ReturnType<typeof startRouteTeam>>;

/**
 * The route team of one test file: started before its tests, stopped after them. The object is filled in when
 * the file's tests start, so read its fields inside tests and hooks only.
 */
export function routeTeamForFile(): RouteTeam {
  const team = {} as RouteTeam;
  beforeAll(async () => {
    Object.assign(team, await startRouteTeam());
  });
  afterAll(async () => {
    await stopRouteTeam(team.upstream);
  });
  return team;
}

export async function stopRouteTeam(upstream: StreamableHttpFixture | undefined): Promise<void> {
  await stopRoute();
  await forgetLocalSessions();
  await deleteMatching(redis(), redisKeys.everything(env().REDIS_PREFIX));
  await upstream?.stop();
}

export const ACCEPT = "application/json, text/event-stream";

/** An initialize request as a client sends it. */
export function initializeBody(id: string | number = 0, name = "route-test"): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name, version: "1.0.0" } },
  };
}

/** A session opened with plain HTTP: initialize, then notifications/initialized. Returns its id. */
export async function openRawSession(base: string, token: string, path = "/api/mcp"): Promise<string> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: ACCEPT };
  const init = await fetch(new URL(path, base), { method: "POST", headers, body: JSON.stringify(initializeBody()) });
  if (init.status !== 200) throw new Error(`initialize answered ${init.status}: ${await init.text()}`);
  await init.text();
  const sessionId = init.headers.get("mcp-session-id")!;
  const ack = await fetch(new URL(path, base), {
    method: "POST",
    headers: { ...headers, "mcp-session-id": sessionId },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await ack.text();
  return sessionId;
}

/** One JSON-RPC request in an open session over plain HTTP, with its status and parsed answer. */
export async function sessionRequest<Result = unknown>(
  base: string,
  token: string,
  sessionId: string,
  method: string,
): Promise<{ status: number; body: { result?: Result; error?: { code: number; message: string } } }> {
  const response = await fetch(`${base}/api/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: ACCEPT,
      "mcp-session-id": sessionId,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method }),
  });
  return { status: response.status, body: (await response.json()) as never };
}
