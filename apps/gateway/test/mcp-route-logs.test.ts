import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { LoggingMessageNotificationSchema, type LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb } from "@switchboard/db/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeBase, teardownRoute } from "./support/mcp";
import { startRouteWith } from "./support/route-team";

/**
 * An upstream's log messages sent outside any call (here: on demand, from the test) reach the member's 2025-11-25
 * client on its standalone GET stream, at the level the client set; those of a call stay related to the call.
 */
const servers = new Set<McpServer>();
function loggingServer(): McpServer {
  const mcp = new McpServer({ name: "chatty", version: "1.0.0" }, { capabilities: { logging: {} } });
  mcp.registerTool("ping", { description: "Answers pong and logs a line while it runs" }, async (extra) => {
    await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: "in the call" } });
    return { content: [{ type: "text", text: "pong" }] };
  });
  servers.add(mcp);
  return mcp;
}
/** Every open upstream session logs `data` at `level`, unrelated to any request. */
async function logEverywhere(level: LoggingLevel, data: string) {
  await Promise.all([...servers].map((s) => s.server.sendLoggingMessage({ level, data }).catch(() => {})));
}

let upstream: StreamableHttpFixture;
let token: string;
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startStreamableHttpServer(loggingServer);
  ({ token } = await startRouteWith([{ slug: "chatty", name: "Chatty", url: upstream.url("/mcp") }]));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await teardownRoute();
  await upstream?.stop();
  await disconnectDb();
});

async function listening() {
  const client = new Client({ name: "listener", version: "1.0.0" });
  const logs: Array<{ level: string; data: unknown }> = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp/servers/chatty", routeBase()), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return { client, logs };
}

describe("upstream log messages outside a call, for a 2025-11-25 client", () => {
  it("arrive on the standalone stream, at the client's level; a call's own stay related to the call", async () => {
    const { client, logs } = await listening();
    const result = await client.callTool({ name: "ping", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "pong" }]);
    await expect.poll(() => logs.map((l) => l.data)).toEqual(["in the call"]);
    logs.splice(0);

    // Until the standalone stream is open, a message has nowhere to go: log until one arrives.
    await expect
      .poll(async () => (await logEverywhere("warning", "outside"), logs.length), { interval: 100 })
      .toBeGreaterThan(0);
    expect(logs[0]).toMatchObject({ level: "warning", data: "outside" });

    await client.setLoggingLevel("error");
    logs.splice(0);
    await logEverywhere("info", "too quiet");
    await logEverywhere("error", "loud");
    await expect.poll(() => logs.map((l) => l.data)).toContain("loud");
    expect(logs.map((l) => l.data)).not.toContain("too quiet");
  });

  it("reach a listening session that never used the instance, on the connection another of the member's opened", async () => {
    const { client: idle, logs } = await listening();
    // The idle session only lists; the busy one calls, on the member's shared connection.
    await idle.listTools();
    const { client: busy } = await listening();
    await busy.callTool({ name: "ping", arguments: {} });
    // (The busy session's own line may reach it too: the SDK does not say which request a notification is of.)
    const outside = () => logs.filter((l) => l.data === "to everyone");
    await expect
      .poll(async () => (await logEverywhere("warning", "to everyone"), outside().length), { interval: 100 })
      .toBeGreaterThan(0);
    expect(outside()[0]).toMatchObject({ level: "warning", data: "to everyone" });
  });
});
