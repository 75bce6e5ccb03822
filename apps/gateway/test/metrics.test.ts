import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { demoServer } from "@switchboard/core/testing/demo-server";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb } from "@switchboard/db/client";
import { replaceTeamToolQuotas } from "@switchboard/db/queries/quota";
import type { MetricsServer } from "@switchboard/runtime/metrics-server";
import { scrapeMetrics, type Scrape } from "@switchboard/testing/metrics";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startGatewayMetricsServer } from "../src/metrics";
import { connectClient, installDiscovered, routeBase, teardownRoute } from "./support/mcp";
import { startRouteTeam, type RouteTeam } from "./support/route-team";

/**
 * The gateway's /metrics after real calls through the route to real upstreams: each counter moved by exactly what
 * the calls did, with installation slugs and revisions as labels and nothing about the member.
 */

const TOKEN = vi.hoisted(() => {
  const token = "metrics-test-token-0123456789";
  process.env.METRICS_TOKEN = token;
  process.env.METRICS_PORT = "0";
  return token;
});

let team: RouteTeam;
let gone: StreamableHttpFixture;
let metrics: MetricsServer;
let url: string;
let token: string;

beforeAll(async () => {
  const demo = demoServer();
  team = await startRouteTeam(() => {
    const server = demo();
    // A 2025 tool that asks its client for a name (a relayed elicitation).
    server.registerTool("ask", { description: "Asks the client for a name" }, async (extra) => {
      const named = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message: "Your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } } },
          },
        },
        ElicitResultSchema,
      );
      return { content: [{ type: "text", text: `hello ${String(named.content?.name)}` }] };
    });
    return server;
  });
  // A second installation whose server is gone by the time it is called: every attempt fails.
  gone = await startStreamableHttpServer(demoServer());
  await installDiscovered({
    teamId: team.team.id,
    slug: "gone",
    name: "Gone",
    url: gone.url("/mcp"),
    userIds: [team.alice.id],
  });
  await gone.stop();
  // One call an hour to `fail`: the first test's call takes it, the last test's is refused by the quota.
  await replaceTeamToolQuotas(team.db, {
    teamId: team.team.id,
    quotas: [
      {
        installationId: team.installation.id,
        toolName: "fail",
        subject: "member",
        window: "hour",
        max: 1,
        writeMax: null,
      },
    ],
  });
  token = await team.newToken("metrics");
  metrics = (await startGatewayMetricsServer())!;
  url = `http://127.0.0.1:${metrics.port}/metrics`;
}, 60_000);

afterAll(async () => {
  await metrics?.close();
  await teardownRoute();
  await team?.upstream.stop();
  await disconnectDb();
});

const scrape = () => scrapeMetrics(url, TOKEN);
/** How much each sample moved between two scrapes. */
const moved =
  (before: Scrape, after: Scrape) =>
  (name: string, labels: Record<string, string> = {}) =>
    after.value(name, labels) - before.value(name, labels);

describe("gateway /metrics", () => {
  it("refuses a scrape without the token, and with a wrong one", async () => {
    expect((await fetch(url)).status).toBe(401);
    const wrong = await fetch(url, { headers: { authorization: "Bearer not-the-token-at-all" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain("switchboard_");
  });

  it("counts proxied calls by installation, method, outcome and revision, with their latencies", async () => {
    const before = await scrape();
    const { client } = await connectClient(token);
    for (let i = 0; i < 3; i++) await client.callTool({ name: "my-demo-echo", arguments: { text: `n${i}` } });
    expect(await client.callTool({ name: "my-demo-fail", arguments: {} })).toMatchObject({ isError: true });
    // The same member on 2026-07-28: a stateless request, its own revision label.
    const rev2026 = new ClientV2(
      { name: "v2-rev2026", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await rev2026.connect(
      new TransportV2(new URL("/api/mcp", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    await rev2026.callTool({ name: "my-demo-echo", arguments: { text: "rev2026" } });
    const after = await scrape();
    const d = moved(before, after);
    const legacy = { installation: "my-demo", method: "tools/call", revision: "2025-11-25" };
    expect(d("switchboard_proxy_requests_total", { ...legacy, outcome: "success" })).toBe(3);
    expect(d("switchboard_proxy_requests_total", { ...legacy, outcome: "tool_error" })).toBe(1);
    expect(d("switchboard_proxy_requests_total", { ...legacy, revision: "2026-07-28", outcome: "success" })).toBe(1);
    expect(d("switchboard_proxy_request_duration_seconds_count", legacy)).toBe(4);
    expect(d("switchboard_proxy_request_duration_seconds_count", { ...legacy, revision: "2026-07-28" })).toBe(1);
    expect(d("switchboard_proxy_request_duration_seconds_sum", legacy)).toBeGreaterThan(0);
    expect(d("switchboard_upstream_attempts_total", { installation: "my-demo" })).toBe(5);
    expect(d("switchboard_proxy_retries_total")).toBe(0);
    expect(after.value("switchboard_mcp_sessions", { revision: "2025-11-25" })).toBeGreaterThanOrEqual(1);
    // No member, token or instance in any label.
    for (const id of [team.alice.id, team.instance.id, team.team.id]) expect(after.text).not.toContain(id);
    await client.close();
    await rev2026.close();
  });

  it("counts each failed attempt at a gone upstream by class, and the retries", async () => {
    const before = await scrape();
    const { client } = await connectClient(token);
    const result = await client.callTool({ name: "gone-echo", arguments: { text: "anyone?" } });
    expect(result).toMatchObject({ isError: true });
    const after = await scrape();
    const d = moved(before, after);
    const attempts = d("switchboard_upstream_attempts_total", { installation: "gone" });
    expect(attempts).toBeGreaterThan(1); // refused before sending: retried
    expect(d("switchboard_upstream_errors_total", { installation: "gone" })).toBe(attempts);
    expect(d("switchboard_upstream_errors_total", { installation: "gone", class: "connection_refused" })).toBe(
      attempts,
    );
    expect(d("switchboard_proxy_retries_total", { installation: "gone", method: "tools/call" })).toBe(attempts - 1);
    expect(
      d("switchboard_proxy_requests_total", { installation: "gone", method: "tools/call", outcome: "error" }),
    ).toBe(1);
    await client.close();
  });

  it("counts relayed server-to-client requests", async () => {
    const before = await scrape();
    const client = new Client(
      { name: "capable", version: "1.0.0" },
      { capabilities: { elicitation: {}, sampling: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Ada" } }));
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      throw new Error("not used");
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect(await client.callTool({ name: "my-demo-ask", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "hello Ada" }],
    });
    const d = moved(before, await scrape());
    expect(
      d("switchboard_relayed_client_requests_total", {
        method: "elicitation/create",
        outcome: "answered",
        revision: "2025-11-25",
      }),
    ).toBe(1);
    await client.close();
  });

  it("counts refused credentials by reason", async () => {
    const before = await scrape();
    const post = (authorization?: string) =>
      fetch(new URL("/api/mcp", routeBase()), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    expect((await post()).status).toBe(401);
    expect((await post("Bearer sb_pat_nope")).status).toBe(401);
    expect((await post("Bearer sb_pat_still_nope")).status).toBe(401);
    const d = moved(before, await scrape());
    expect(d("switchboard_auth_failures_total", { reason: "missing" })).toBe(1);
    expect(d("switchboard_auth_failures_total", { reason: "invalid" })).toBe(2);
  });

  it("counts calls refused before forwarding by cause, each also a blocked request", async () => {
    const before = await scrape();
    const { client } = await connectClient(token);
    // The first test's call to `fail` used the hour's one call.
    await expect(client.callTool({ name: "my-demo-fail", arguments: {} })).rejects.toMatchObject({ code: -32029 });
    const d = moved(before, await scrape());
    const labels = { installation: "my-demo", method: "tools/call", revision: "2025-11-25" };
    expect(d("switchboard_calls_refused_total", { ...labels, cause: "quota" })).toBe(1);
    expect(d("switchboard_calls_refused_total")).toBe(1);
    expect(d("switchboard_proxy_requests_total", { ...labels, outcome: "blocked" })).toBe(1);
    await client.close();
  });
});
