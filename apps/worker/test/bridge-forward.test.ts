import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ConnectionPool } from "@switchboard/core/upstream";
import { createForwardingServer } from "../src/bridge/forward";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** A real SDK server per connect, numbered, so an answer says which process (connection) served it. */
function servers() {
  let started = 0;
  return async () => {
    const n = ++started;
    const server = new McpServer({ name: "echo", version: "1.0.0" });
    server.registerTool("echo", { inputSchema: { text: z.string() } }, ({ text }) => ({
      content: [{ type: "text", text: `${text} from ${n}` }],
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    cleanups.push(() => server.close());
    return clientSide;
  };
}

describe("the bridge's forwarding server", () => {
  it("sends a request again on the new connection when the one it got was replaced before the request left", async () => {
    const connector = servers();
    const pool = new ConnectionPool({ resolve: async () => ({ connector }) });
    cleanups.push(() => pool.closeAll());
    const first = await pool.get("instance");
    // The session gets the connection, then the process behind it faults and the pool replaces it (evicted,
    // closed) before the call is sent on it: the moment a call meets in a bridge session while a server restarts.
    let replaced = false;
    const forClient = async () => {
      const connection = await pool.get("instance");
      if (!replaced) {
        replaced = true;
        await pool.evict("instance");
      }
      return connection;
    };
    const forwarding = createForwardingServer(first, forClient);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await forwarding.connect(serverSide);
    const client = new Client({ name: "route", version: "1.0.0" });
    await client.connect(clientSide);
    cleanups.push(() => client.close());

    const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
    expect(result.content).toEqual([{ type: "text", text: "hello from 2" }]);
  });
});
