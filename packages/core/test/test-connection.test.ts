import { afterEach, describe, expect, it } from "vitest";
import { testConnection } from "../src/probe";
import { HttpFixture } from "./fixtures/http-fixture";
import { startOAuthMcpServer } from "./fixtures/oauth-mcp-server";
import { startSseServer } from "./fixtures/sse-server";
import { startStreamableHttpServer } from "./fixtures/streamable-http-server";
import { toolsOnlyServer } from "./fixtures/tools-only-server";
import { fixtureFetch } from "./helpers/egress";
import { closedPort } from "./helpers/net";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const remote = (url: string) => ({ transport: "streamable_http" as const, url, headers: {} });

describe("testConnection", () => {
  it("finds a Streamable HTTP server with its name, protocol revision, tools and token cost", async () => {
    const fixture = await startStreamableHttpServer(toolsOnlyServer({ toolName: "echo" }));
    cleanups.push(() => fixture.stop());
    const result = await testConnection(remote(fixture.url("/mcp")), { fetch: fixtureFetch });
    expect(result).toMatchObject({
      ok: true,
      transport: "streamable_http",
      serverName: "tools-only",
      toolCount: 1,
      requiresOAuth: false,
    });
    expect(result.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(result.totalTokens).toBeGreaterThan(0);
    expect(result.message).toMatch(/^tools-only answered: 1 tool, \d+ tokens in a prompt\.$/);
  });

  it("falls back to legacy SSE when the URL speaks only that", async () => {
    const fixture = await startSseServer(toolsOnlyServer());
    cleanups.push(() => fixture.stop());
    const sse = fixture.requests; // the fixture records every request
    const result = await testConnection(remote(fixture.url("/sse")), { fetch: fixtureFetch });
    expect(result).toMatchObject({ ok: true, transport: "sse", toolCount: 1 });
    expect(sse.some((r) => r.method === "GET" && r.path === "/sse")).toBe(true);
  });

  it("says a server requires OAuth when it answers 401 and publishes OAuth metadata", async () => {
    const server = await startOAuthMcpServer();
    cleanups.push(() => server.close());
    const result = await testConnection(remote(server.mcpUrl), { fetch: fixtureFetch });
    expect(result).toMatchObject({ ok: false, requiresOAuth: true, transport: "streamable_http" });
    expect(result.message).toMatch(/requires OAuth/);
  });

  it("reads an HTML page as 'not MCP' with a one-line message and the page as bounded detail", async () => {
    const page = new HttpFixture(() => ({
      handle: (_req, res) =>
        void res
          .writeHead(200, { "content-type": "text/html" })
          .end(`<html><head><title>Welcome</title></head><body>${"<p>hi</p>".repeat(2000)}</body></html>`),
      close: async () => {},
    }));
    await page.start();
    cleanups.push(() => page.stop());
    const result = await testConnection(remote(page.url("/")), { fetch: fixtureFetch });
    expect(result.ok).toBe(false);
    expect(result.transport).toBeNull();
    expect(result.message).toMatch(/web page, not MCP/);
    expect(result.message.length).toBeLessThanOrEqual(300);
  });

  it("says nothing answers at a closed port", async () => {
    const result = await testConnection(remote(`http://127.0.0.1:${await closedPort()}/mcp`), { fetch: fixtureFetch });
    expect(result).toMatchObject({ ok: false, transport: null });
    expect(result.message).toMatch(/^Nothing answers at this address/);
  });

  it("gives up on a server that never answers within the bound", async () => {
    const silent = new HttpFixture(() => ({ handle: () => {}, close: async () => {} }));
    silent.mode = "hang";
    await silent.start();
    cleanups.push(() => silent.stop());
    const result = await testConnection(remote(silent.url("/mcp")), { fetch: fixtureFetch, timeoutMs: 1_000 });
    expect(result).toMatchObject({ ok: false });
    expect(result.message).toBe("The server did not answer in time.");
  });

  it("starts a stdio server once, lists its tools and stops it", async () => {
    const result = await testConnection({
      transport: "stdio",
      command: process.execPath,
      args: [require.resolve("@modelcontextprotocol/server-everything/dist/index.js")],
      env: {},
    });
    expect(result).toMatchObject({ ok: true, transport: "stdio" });
    expect(result.toolCount).toBeGreaterThan(5);
  });

  it("says which command was not found", async () => {
    const result = await testConnection({ transport: "stdio", command: "mcp-no-such-command", args: [], env: {} });
    expect(result).toMatchObject({ ok: false, transport: "stdio", message: "Command not found: mcp-no-such-command." });
  });
});
