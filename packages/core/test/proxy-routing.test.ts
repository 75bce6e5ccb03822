import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
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

async function upstream(createServer: () => McpServer | Server = demoServer()): Promise<HttpFixture> {
  const fixture = await startStreamableHttpServer(createServer);
  fixtures.push(fixture);
  return fixture;
}

const install = (userId: string, instanceId: string, slug: string, fixture: HttpFixture) =>
  harness.install(userId, instanceId, slug, fixture);

const text = (result: unknown) => JSON.stringify((result as { content?: unknown }).content);

describe("proxy listing", () => {
  it("lists the tools, resources, templates and prompts of online instances only, namespaced", async () => {
    harness = createHarness();
    const up = await upstream();
    await install("alice", "a1", "demo", up);
    await install("alice", "a2", "other", await upstream(toolsOnlyServer()));
    await install("alice", "a3", "down", up);
    harness.app.get("a3").status = "offline";
    const { client } = await harness.connectMember("alice");

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["demo-echo", "demo-fail", "demo-progress", "other-only"]);
    const echo = tools.find((t) => t.name === "demo-echo");
    expect(echo?._meta).toEqual({ ui: { resourceUri: "ui://demo/demo/app.html" } });
    expect(echo?.inputSchema).toMatchObject({ properties: { text: { type: "string" } } });

    const { resources } = await client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({ uri: "ui://demo/demo/app.html", _meta: { ui: { csp: "self" } } }),
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["demo|demo://items/{id}"]);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["demo-greet"]);
  });

  it("shows a member only their own instances", async () => {
    harness = createHarness();
    const up = await upstream();
    await install("alice", "a1", "demo", up);
    await install("bob", "b1", "bobs", up);
    const { client } = await harness.connectMember("bob");
    const { tools } = await client.listTools();
    expect(tools.every((t) => t.name.startsWith("bobs-"))).toBe(true);
    const call = await client.callTool({ name: "demo-echo", arguments: { text: "x" } }).catch((e: unknown) => e);
    expect(String(call)).toContain("Unknown tool");
  });

  it("exposes original names in single-server mode", async () => {
    harness = createHarness();
    await install("alice", "a1", "demo", await upstream());
    await install("alice", "a2", "other", await upstream(toolsOnlyServer()));
    const { client } = await harness.connectMember("alice", { mode: { single: "a1" } });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["echo", "fail", "progress"]);
    expect(tools.find((t) => t.name === "echo")?._meta).toEqual({ ui: { resourceUri: "ui://demo/app.html" } });
    const result = await client.callTool({ name: "echo", arguments: { text: "single" } });
    expect(text(result)).toContain("echo: single");
    const read = await client.readResource({ uri: "ui://demo/app.html" });
    expect(read.contents[0]?.uri).toBe("ui://demo/app.html");
  });
});

describe("proxy routing", () => {
  it("routes a tool of a slug with dashes by lookup, next to a slug that is its prefix", async () => {
    harness = createHarness();
    // "my-server" + "only" and "my" + "server-only" would be one name; give them distinct tools instead.
    await install("alice", "long", "my-server", await upstream(toolsOnlyServer({ toolName: "get-data" })));
    await install("alice", "short", "my", await upstream(toolsOnlyServer({ toolName: "server-get" })));
    const { client } = await harness.connectMember("alice");
    const long = await client.callTool({ name: "my-server-get-data", arguments: {} });
    expect(text(long)).toContain("get-data ok");
    const short = await client.callTool({ name: "my-server-get", arguments: {} });
    expect(text(short)).toContain("server-get ok");
    expect(harness.app.records.map((r) => [r.instanceId, r.target])).toEqual([
      ["long", "get-data"],
      ["short", "server-get"],
    ]);
  });

  it("reads resource content from the upstream on every read and routes templates", async () => {
    harness = createHarness();
    await install("alice", "a1", "demo", await upstream());
    const { client } = await harness.connectMember("alice");
    const first = await client.readResource({ uri: "ui://demo/demo/app.html" });
    const second = await client.readResource({ uri: "ui://demo/demo/app.html" });
    expect(first.contents[0]).toMatchObject({ text: "<p>read 1</p>" });
    expect(second.contents[0]).toMatchObject({ text: "<p>read 2</p>" });
    const item = await client.readResource({ uri: "demo|demo://items/42" });
    expect(item.contents[0]).toMatchObject({ text: "item 42" });
  });

  it("routes prompts/get", async () => {
    harness = createHarness();
    await install("alice", "a1", "demo", await upstream());
    const { client } = await harness.connectMember("alice");
    const prompt = await client.getPrompt({ name: "demo-greet", arguments: { who: "Ada" } });
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "Hello Ada" });
  });

  it("records every call with member, instance, tool, arguments, outcome, attempts and result size", async () => {
    harness = createHarness();
    await install("alice", "a1", "demo", await upstream());
    const { client } = await harness.connectMember("alice");
    await client.callTool({ name: "demo-echo", arguments: { text: "logged" } });
    const failed = await client.callTool({ name: "demo-fail", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(harness.app.records).toEqual([
      expect.objectContaining({
        userId: "alice",
        instanceId: "a1",
        installationId: "inst-of-demo",
        kind: "tool",
        target: "echo",
        requested: "demo-echo",
        arguments: { text: "logged" },
        outcome: "success",
        attempts: 1,
        resultBytes: expect.any(Number),
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({ target: "fail", outcome: "tool_error", attempts: 1 }),
    ]);
    expect(harness.app.records[0]?.resultBytes).toBeGreaterThan(10);
    // Tokens of the result as the console estimates every count (one function for tool costs and results).
    expect(harness.app.records[0]?.resultTokens).toBeGreaterThan(2);
    expect(harness.app.records[0]?.resultTokens).toBeLessThan(harness.app.records[0]!.resultBytes);
  });

  it("uses one upstream connection for all calls of an instance", async () => {
    harness = createHarness();
    const up = await upstream();
    await install("alice", "a1", "demo", up);
    const { client } = await harness.connectMember("alice");
    await Promise.all(["1", "2", "3"].map((t) => client.callTool({ name: "demo-echo", arguments: { text: t } })));
    const sessions = new Set(up.requests.map((r) => r.headers["mcp-session-id"]).filter(Boolean));
    expect(sessions.size).toBe(1);
  });
});

describe("what the proxy declares beyond tools, resources and prompts", () => {
  it("declares completions and resource subscriptions only when told an upstream offers them, and answers -32601 otherwise", async () => {
    harness = createHarness();
    await install("alice", "a1", "demo", await upstream());
    const { client: plain } = await harness.connectMember("alice");
    expect(plain.getServerCapabilities()?.completions).toBeUndefined();
    expect(plain.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
    await expect(
      plain.complete({ ref: { type: "ref/prompt", name: "demo-greet" }, argument: { name: "x", value: "y" } }),
    ).rejects.toMatchObject({ code: -32601 });
    await expect(plain.subscribeResource({ uri: "demo|demo://greeting" })).rejects.toMatchObject({ code: -32601 });

    const { client: offered } = await harness.connectMember("alice", {
      offers: { completions: true, resourceSubscribe: true },
    });
    expect(offered.getServerCapabilities()?.completions).toEqual({});
    expect(offered.getServerCapabilities()?.resources?.subscribe).toBe(true);
  });
});
