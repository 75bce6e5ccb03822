import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { askingServers } from "@switchboard/core/testing/asking-server";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb } from "@switchboard/db/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { routeBase, teardownRoute } from "./support/mcp";
import { startRouteWith } from "./support/route-team";

// A short call timeout and a short bound on relayed requests, read when the route builds its first session.
// A forked test worker may run other files after this one: both are put back in afterAll.
const saved = vi.hoisted(() => {
  const before = { call: process.env.MCP_CALL_TIMEOUT_MS, client: process.env.MCP_CLIENT_REQUEST_TIMEOUT_MS };
  process.env.MCP_CALL_TIMEOUT_MS = "1000";
  process.env.MCP_CLIENT_REQUEST_TIMEOUT_MS = "2500";
  return before;
});

const asking = askingServers();
let upstream: StreamableHttpFixture;
let token: string;
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startStreamableHttpServer(asking.create);
  ({ token } = await startRouteWith([{ slug: "asking", name: "Asking", url: upstream.url("/mcp") }]));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await teardownRoute();
  await upstream?.stop();
  await disconnectDb();
  for (const [name, value] of [
    ["MCP_CALL_TIMEOUT_MS", saved.call],
    ["MCP_CLIENT_REQUEST_TIMEOUT_MS", saved.client],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** A client on the route that answers elicitations with `answer`, counting the questions it was asked. */
async function connect(answer: () => Promise<ElicitResult>) {
  const asked = { count: 0 };
  const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "timeout-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => {
    asked.count++;
    return answer();
  });
  await client.connect(transport);
  clients.push(client);
  return { client, asked };
}

const textOf = (result: Record<string, unknown>) =>
  (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("");
/** A person who takes this long to fill in the form: well past the 1 s call timeout, within the 2.5 s bound. */
const slowly = (ms: number) =>
  new Promise<ElicitResult>((resolve) =>
    setTimeout(() => resolve({ action: "accept", content: { answer: "late" } }), ms),
  );

describe("the call timeout while the client answers the upstream", () => {
  it("completes a call whose elicitation the person answers after the call timeout would have expired", async () => {
    const { client, asked } = await connect(() => slowly(2000));
    const result = await client.callTool({ name: "asking-ask", arguments: { question: "Take your time" } }, undefined, {
      timeout: 60_000,
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('accept: {"answer":"late"}');
    expect(asked.count).toBe(1);
  });

  it("ends a call whose client never answers with a clean error once the relayed request's bound has passed", async () => {
    const { client, asked } = await connect(() => new Promise<ElicitResult>(() => {}));
    const result = await client.callTool({ name: "asking-ask", arguments: { question: "Anyone there?" } }, undefined, {
      timeout: 60_000,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^failed: .*timed out/i);
    expect(asked.count).toBe(1);
  });

  it("times the call out again once answered, without sending it to the upstream a second time", async () => {
    const { client, asked } = await connect(async () => ({ action: "accept", content: {} }));
    const result = await client.callTool({ name: "asking-ask_then_stall", arguments: {} }, undefined, {
      timeout: 60_000,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/timed out/i);
    // A retry would have run the tool again, and the upstream would have asked again.
    expect(asked.count).toBe(1);
  });
});
