import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { discover } from "../src/discovery";
import { countToolTokens } from "../src/tokens";
import { UpstreamConnection, createUpstreamTransport } from "../src/upstream";
import { demoServer } from "./fixtures/demo-server";
import { everythingBin } from "./fixtures/everything";
import { pagedServer } from "./fixtures/paged-server";
import { startStreamableHttpServer } from "./fixtures/streamable-http-server";
import { toolsOnlyServer } from "./fixtures/tools-only-server";
import { fixtureFetch } from "./helpers/egress";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connectHttp(createServer: () => McpServer | Server): Promise<UpstreamConnection> {
  const fixture = await startStreamableHttpServer(createServer);
  cleanups.push(() => fixture.stop());
  const connection = new UpstreamConnection({
    instanceId: "i",
    connector: () =>
      createUpstreamTransport(
        { transport: "streamable_http", url: fixture.url("/mcp"), headers: {} },
        { fetch: fixtureFetch },
      ),
  });
  cleanups.push(() => connection.close());
  await connection.connect();
  return connection;
}

describe("discover", () => {
  it("returns tools, resources, templates, prompts, token counts and server facts as plain data", async () => {
    const connection = await connectHttp(demoServer());
    const at = new Date("2026-01-02T03:04:05.000Z");
    const result = await discover(connection, { slug: "demo", now: () => at });

    expect(result.tools.map((t) => t.name).sort()).toEqual(["echo", "fail", "progress"]);
    expect(result.tools.find((t) => t.name === "echo")?._meta).toEqual({ ui: { resourceUri: "ui://demo/app.html" } });
    expect(result.resources.map((r) => r.uri)).toEqual(["ui://demo/app.html"]);
    expect(result.resourceTemplates.map((t) => t.uriTemplate)).toEqual(["demo://items/{id}"]);
    expect(result.prompts.map((p) => p.name)).toEqual(["greet"]);
    expect(result.serverInfo).toEqual({ name: "demo", version: "1.2.3" });
    expect(result.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {}, logging: {} });
    expect(result.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(result.instructions).toBe("demo instructions");
    expect(result.discoveredAt).toBe(at.toISOString());
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it("counts tokens per tool over name, description and input schema, and totals them", async () => {
    const connection = await connectHttp(demoServer());
    const result = await discover(connection, { slug: "demo" });
    for (const tool of result.tools) {
      const counted = result.tokens.perTool.find((t) => t.name === tool.name);
      expect(counted?.tokens).toBe(countToolTokens(tool));
      expect(counted?.tokens).toBeGreaterThan(0);
    }
    expect(result.tokens.total).toBe(result.tokens.perTool.reduce((sum, t) => sum + t.tokens, 0));
  });

  it("follows nextCursor to the last page of every list", async () => {
    const connection = await connectHttp(pagedServer({ tools: 7, pageSize: 3 }));
    const result = await discover(connection, { slug: "paged" });
    const names = Array.from({ length: 7 }, (_, i) => `tool_${i}`);
    expect(result.tools.map((t) => t.name)).toEqual(names);
    expect(result.resources).toHaveLength(7);
    expect(result.resourceTemplates).toHaveLength(7);
    expect(result.prompts.map((p) => p.name)).toEqual(names.map((n) => n.replace("tool", "prompt")));
  });

  it("treats a server without resources and prompts as having none", async () => {
    const connection = await connectHttp(toolsOnlyServer());
    const result = await discover(connection, { slug: "plain" });
    expect(result.tools.map((t) => t.name)).toEqual(["only"]);
    expect(result).toMatchObject({ resources: [], resourceTemplates: [], prompts: [] });
  });

  it("tolerates MethodNotFound from a server that claims resources and prompts it does not serve", async () => {
    const connection = await connectHttp(toolsOnlyServer({ claimResources: true }));
    const result = await discover(connection, { slug: "liar" });
    expect(result.tools).toHaveLength(1);
    expect(result).toMatchObject({ resources: [], resourceTemplates: [], prompts: [] });
  });

  it("flags tool names longer than 64 characters once namespaced", async () => {
    const toolName = "a_tool_name_that_is_already_quite_long_on_its_own_x";
    const connection = await connectHttp(toolsOnlyServer({ toolName }));
    const result = await discover(connection, { slug: "a-rather-long-slug" });
    expect(result.longToolNames).toEqual([
      { name: toolName, namespaced: `a-rather-long-slug-${toolName}`, length: 19 + toolName.length },
    ]);
    const short = await discover(connection, { slug: "s" });
    expect(short.longToolNames).toEqual([]);
  });

  it("rejects when the server is unreachable, so the caller keeps its cached catalogue", async () => {
    const fixture = await startStreamableHttpServer(demoServer());
    const connection = new UpstreamConnection({
      instanceId: "i",
      connector: () =>
        createUpstreamTransport(
          { transport: "streamable_http", url: fixture.url("/mcp"), headers: {} },
          { fetch: fixtureFetch },
        ),
    });
    cleanups.push(() => connection.close());
    await connection.connect();
    await fixture.stop();
    await expect(discover(connection, { slug: "demo" })).rejects.toBeDefined();
  });

  it("works with a bare SDK client too (in-memory)", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await demoServer()().connect(serverSide);
    const client = new Client({ name: "t", version: "0" });
    await client.connect(clientSide);
    cleanups.push(() => client.close());
    const result = await discover(client, { slug: "mem" });
    expect(result.tools).toHaveLength(3);
    expect(result.protocolVersion).toBeNull();
  });

  it("discovers mcp-server-everything over stdio", async () => {
    const connection = new UpstreamConnection({
      instanceId: "everything",
      connector: () => createUpstreamTransport({ transport: "stdio", command: everythingBin(), args: [], env: {} }),
    });
    cleanups.push(() => connection.close());
    const result = await discover(connection, { slug: "everything" });
    expect(result.tools.map((t) => t.name)).toContain("echo");
    expect(result.resources.length).toBeGreaterThan(0);
    expect(result.prompts.length).toBeGreaterThan(0);
    expect(result.tokens.total).toBeGreaterThan(0);
  });
});
