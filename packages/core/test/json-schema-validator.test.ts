import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { LazyJsonSchemaValidator, UpstreamConnection } from "../src/upstream";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const OUTPUT = {
  type: "object",
  properties: { total: { type: "number" } },
  required: ["total"],
} as const;

describe("LazyJsonSchemaValidator", () => {
  it("accepts what a schema allows and says why it refuses the rest", () => {
    const check = new LazyJsonSchemaValidator().getValidator<{ total: number }>(OUTPUT);
    expect(check({ total: 3 })).toEqual({ valid: true, data: { total: 3 }, errorMessage: undefined });
    const refused = check({ total: "three" });
    expect(refused.valid).toBe(false);
    expect(refused.errorMessage).toMatch(/total.*number/);
  });

  it("still lets an upstream connection refuse structured content that breaks the tool's output schema", async () => {
    // A low-level server, since McpServer checks its own output before sending it.
    const server = new Server({ name: "sum", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: "sum", inputSchema: { type: "object" }, outputSchema: OUTPUT }],
    }));
    let total: unknown = 3;
    server.setRequestHandler(CallToolRequestSchema, async () => ({
      content: [{ type: "text", text: String(total) }],
      structuredContent: { total },
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const connection = new UpstreamConnection({ instanceId: "sum", connector: async () => clientSide });
    cleanups.push(() => connection.close());

    await connection.listTools();
    expect((await connection.callTool({ name: "sum", arguments: {} })).structuredContent).toEqual({ total: 3 });
    total = "three";
    await expect(connection.callTool({ name: "sum", arguments: {} })).rejects.toThrow(/output schema/i);
  });
});
