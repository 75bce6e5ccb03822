import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { deleteMatching } from "@switchboard/testing/redis";
import { afterAll, beforeAll } from "vitest";
import { demoServer } from "@switchboard/core/testing/demo-server";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { getDb } from "@switchboard/db/client";
import { makeAccessToken, makeTeam, makeTeamWithMember, makeUser } from "@switchboard/db/testing";
import { redis } from "@switchboard/runtime/redis";
import { liveEventsReady } from "@switchboard/runtime/live-events";
import { forgetLocalSessions } from "../../src/mcp/sessions";
import { env } from "@switchboard/runtime/env";
import { redisKeys } from "@switchboard/core/contracts";
import { policyTextHash } from "@switchboard/core/team-policies";
import { currentTeamPolicySet, saveTeamPolicySet } from "@switchboard/db/queries/policy";
import { forgetTeamPolicies } from "../../src/mcp/team-policies";
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

/** A remote server to install: its slug, its name (the slug when omitted), its URL, and whether the member has it too. */
export interface RouteServer {
  slug: string;
  name?: string;
  url: string;
  forMember?: boolean;
}

/**
 * The MCP route on a real HTTP server with one team (an owner and a member) and the given remote servers
 * installed and discovered: each for the owner, and for the member where asked. Returns a token for each person
 * and each installation with its instances (the owner's first). Tests that need the demo upstream started for
 * them use `startRouteTeam`.
 */
export async function startRouteWith(servers: readonly RouteServer[]) {
  await startRoute();
  const db = getDb();
  const { owner, member, team } = await makeTeamWithMember(db);
  const installed: Record<string, Awaited<ReturnType<typeof installDiscovered>>> = {};
  for (const { slug, name = slug, url, forMember = false } of servers) {
    const userIds = forMember ? [owner.id, member.id] : [owner.id];
    installed[slug] = await installDiscovered({ teamId: team.id, slug, name, url, userIds });
  }
  const token = (await makeAccessToken(db, { userId: owner.id, teamId: team.id })).token;
  const memberToken = (await makeAccessToken(db, { userId: member.id, teamId: team.id, name: "member" })).token;
  return { db, owner, member, team, installed, token, memberToken };
}

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

/** Saves the team's policies as its owner would (`null` removes them) and drops the route's cached copy. */
export async function usePolicies(ctx: Pick<RouteTeam, "db" | "team" | "alice">, text: string | null): Promise<void> {
  const current = await currentTeamPolicySet(ctx.db, { teamId: ctx.team.id });
  await saveTeamPolicySet(ctx.db, {
    teamId: ctx.team.id,
    text,
    hash: text ? policyTextHash(text) : "",
    savedById: ctx.alice.id,
    savedByLabel: "alice",
    expectedVersion: current?.version ?? null,
  });
  forgetTeamPolicies(ctx.team.id);
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
