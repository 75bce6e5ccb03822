import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createProxyServer, type MemberInstance } from "../src/proxy";

const schema = { type: "object" as const };
const instance: MemberInstance = {
  instanceId: "i1",
  installationId: "inst-1",
  slug: "everything",
  name: "Everything",
  status: "online",
  tools: [
    { name: "echo", inputSchema: schema },
    { name: "trigger-sampling-request", inputSchema: schema },
  ],
  clientCapabilityTools: ["trigger-sampling-request"],
  resources: [],
  resourceTemplates: [],
  prompts: [],
};

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function connect(capabilities: ClientCapabilities, extra: { toolMode?: "all" | "router" } = {}) {
  const proxy = createProxyServer({
    member: { userId: "alice" },
    catalogue: { list: async () => [instance] },
    upstreams: { get: async () => Promise.reject(new Error("no upstream in this test")) },
    status: { callFailed: () => {}, recoveryDetected: () => {} },
    rediscovery: { request: async () => {} },
    calls: { record: () => {} },
    ...extra,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await proxy.server.connect(serverSide);
  const client = new Client({ name: "t", version: "0" }, { capabilities });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

describe("tools a server lists only to clients that can answer its requests", () => {
  it("lists them to a client that declared sampling, elicitation or roots", async () => {
    for (const capabilities of [{ sampling: {} }, { elicitation: {} }, { roots: {} }]) {
      expect(await names(await connect(capabilities))).toEqual([
        "everything-echo",
        "everything-trigger-sampling-request",
      ]);
    }
  });

  it("hides them from a client that declared none, which gets an unknown tool when it calls one", async () => {
    const client = await connect({});
    expect(await names(client)).toEqual(["everything-echo"]);
    await expect(client.callTool({ name: "everything-trigger-sampling-request", arguments: {} })).rejects.toThrow(
      /Unknown tool: everything-trigger-sampling-request/,
    );
  });

  it("leaves them out of router mode's search for a client that declared none", async () => {
    const search = async (client: Client) =>
      JSON.parse(
        (
          (await client.callTool({ name: "search_tools", arguments: { query: "sampling echo" } })).content as Array<{
            text: string;
          }>
        )[0]!.text,
      ).tools.map((t: { name: string }) => t.name);
    expect(await search(await connect({}, { toolMode: "router" }))).toEqual(["everything-echo"]);
    expect((await search(await connect({ sampling: {} }, { toolMode: "router" }))).sort()).toEqual([
      "everything-echo",
      "everything-trigger-sampling-request",
    ]);
  });
});
