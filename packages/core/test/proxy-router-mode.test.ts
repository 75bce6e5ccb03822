import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { countCatalogueTokens } from "../src/tokens";
import { ROUTER_TOOLS, routerModeTokenCost, searchTools } from "../src/proxy";
import { demoServer } from "./fixtures/demo-server";
import type { HttpFixture } from "./fixtures/http-fixture";
import { createHarness, type Harness } from "./fixtures/proxy-harness";
import { startStreamableHttpServer } from "./fixtures/streamable-http-server";
import { toolsOnlyServer } from "./fixtures/tools-only-server";

let harness: Harness;
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await harness?.close();
  await Promise.all(fixtures.splice(0).map((f) => f.stop()));
});

async function upstream(create: () => McpServer | Server = demoServer()): Promise<HttpFixture> {
  const f = await startStreamableHttpServer(create);
  fixtures.push(f);
  return f;
}

const json = (result: unknown) => JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text);

describe("router mode", () => {
  it("lists only the four meta-tools, whatever the catalogue", async () => {
    harness = createHarness();
    await harness.install("alice", "a1", "demo", await upstream());
    const { client } = await harness.connectMember("alice", { toolMode: "router" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_tools", "call_tool", "list_resources", "read_resource"]);
  });

  it("searches by keyword among online instances only, before applying the limit", async () => {
    harness = createHarness();
    const up = await upstream();
    // The offline instance comes first in catalogue order, so without status filtering it would win the limit.
    await harness.install("alice", "a2", "alpha", up);
    await harness.install("alice", "a1", "demo", up);
    harness.app.get("a2").status = "offline";
    const { client } = await harness.connectMember("alice", { toolMode: "router" });
    const found = json(await client.callTool({ name: "search_tools", arguments: { query: "echo", limit: 1 } }));
    // Both instances have an echo tool; the offline one is filtered out first, so the one result is the online one.
    expect(found.tools).toEqual([
      expect.objectContaining({ name: "demo-echo", inputSchema: expect.objectContaining({ type: "object" }) }),
    ]);
    const none = json(await client.callTool({ name: "search_tools", arguments: { query: "zzzz-nothing" } }));
    expect(none.tools).toEqual([]);
  });

  it("calls a tool by its namespaced name through the same path, recorded like a direct call", async () => {
    harness = createHarness();
    await harness.install("alice", "a1", "demo", await upstream());
    await harness.install("alice", "a2", "other", await upstream(toolsOnlyServer()));
    const { client } = await harness.connectMember("alice", { toolMode: "router" });
    const result = await client.callTool({
      name: "call_tool",
      arguments: { name: "demo-echo", arguments: { text: "via router" } },
    });
    expect(JSON.stringify(result.content)).toContain("echo: via router");
    expect(harness.app.records.at(-1)).toMatchObject({
      instanceId: "a1",
      target: "echo",
      requested: "demo-echo",
      outcome: "success",
    });
    const unknown = await client.callTool({ name: "call_tool", arguments: { name: "nope" } }).catch((e: unknown) => e);
    expect(String(unknown)).toContain("Unknown tool: nope");
  });

  it("lists and reads resources through meta-tools", async () => {
    harness = createHarness();
    await harness.install("alice", "a1", "demo", await upstream());
    const { client } = await harness.connectMember("alice", { toolMode: "router" });
    const listed = json(await client.callTool({ name: "list_resources", arguments: {} }));
    expect(listed.resources.map((r: { uri: string }) => r.uri)).toEqual(["ui://demo/demo/app.html"]);
    const read = await client.callTool({ name: "read_resource", arguments: { uri: "ui://demo/demo/app.html" } });
    expect(read.content).toEqual([
      expect.objectContaining({ type: "resource", resource: expect.objectContaining({ uri: "ui://demo/app.html" }) }),
    ]);
  });

  it("costs a constant, small number of tokens", () => {
    expect(routerModeTokenCost()).toBe(countCatalogueTokens(ROUTER_TOOLS).total);
    expect(routerModeTokenCost()).toBeGreaterThan(50);
    expect(routerModeTokenCost()).toBeLessThan(600);
  });
});

describe("searchTools", () => {
  const tools = [
    { name: "gh-create-issue", description: "Create a GitHub issue", inputSchema: { type: "object" as const } },
    { name: "gh-list-issues", description: "List issues", inputSchema: { type: "object" as const } },
    {
      name: "slack-post",
      description: "Post a message; mentions issue links",
      inputSchema: { type: "object" as const },
    },
  ];
  it("ranks name hits above description hits and keeps catalogue order on ties", () => {
    expect(searchTools(tools, "issue").map((t) => t.name)).toEqual(["gh-create-issue", "gh-list-issues", "slack-post"]);
    expect(searchTools(tools, "create issue").map((t) => t.name)[0]).toBe("gh-create-issue");
    expect(searchTools(tools, "issue", 2)).toHaveLength(2);
  });
});
