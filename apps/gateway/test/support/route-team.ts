import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { demoServer } from "@switchboard/core/testing/demo-server";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { redis } from "@switchboard/runtime/redis";
import { liveEventsReady } from "@switchboard/runtime/live-events";
import { forgetLocalSessions } from "../../src/mcp/sessions";
import { signedInCaller } from "../../../web/test/support/caller";
import { env } from "@switchboard/runtime/env";
import { redisKeys } from "@switchboard/core/contracts";
import { discoverInto, routeBase, startRoute, stopRoute } from "./mcp";

/**
 * The MCP route on a real HTTP server with one team: a member with one installation (`my-demo`, a real
 * Streamable HTTP upstream, discovered and online; the demo server unless another is given) and tokens to call
 * it with.
 */
export async function startRouteTeam(server: () => McpServer = demoServer()) {
  const upstream: StreamableHttpFixture = await startStreamableHttpServer(server);
  await startRoute();
  const db = getDb();
  const alice = await signedInCaller("alice");
  const team = await alice.caller.team.create({ name: `Route ${Math.random().toString(36).slice(2, 8)}` });
  const { installation, instance } = await installDiscovered({
    teamId: team.id,
    userId: alice.userId,
    slug: "my-demo",
    name: "Demo",
    url: upstream.url("/mcp"),
  });
  await liveEventsReady();
  const newToken = async (name = "test") => (await alice.caller.token.create({ teamId: team.id, name })).token;
  return { db, upstream, alice, team, installation, instance, newToken, base: routeBase() };
}

/**
 * A team's Streamable HTTP installation of `url`, with the member's instance discovered and online, as the worker
 * would leave it.
 */
export async function installDiscovered(input: {
  teamId: string;
  userId: string;
  slug: string;
  name: string;
  url: string;
}) {
  const db = getDb();
  const template = await seedTemplate(db, {
    teamId: input.teamId,
    slug: input.slug,
    name: input.name,
    transport: "streamable_http",
    url: input.url,
  });
  const installation = await seedInstallation(db, { template });
  const instance = await db.instance.findFirstOrThrow({
    where: { installationId: installation.id, userId: input.userId },
  });
  await discoverInto(instance.id, input.slug, input.url);
  return { installation, instance };
}

export async function stopRouteTeam(upstream: StreamableHttpFixture | undefined): Promise<void> {
  await stopRoute();
  await forgetLocalSessions();
  const keys = await redis().keys(redisKeys.everything(env().REDIS_PREFIX));
  if (keys.length) await redis().del(...keys);
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
