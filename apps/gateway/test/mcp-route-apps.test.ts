import { getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";
import { registerAppResource, registerAppTool, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { demoServer } from "@switchboard/core/testing/demo-server";
import { setToolHidden } from "@switchboard/db/queries/toolset";
import { makeAccessToken } from "@switchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invalidateMemberCatalogue } from "../src/mcp/catalogue-cache";
import { connectClient } from "./support/mcp";
import { startRouteTeam, stopRouteTeam, usePolicies, type RouteTeam } from "./support/route-team";

/**
 * MCP Apps (the ext-apps extension) through the aggregate route: a server made with the extension's own helpers
 * links a tool to its `ui://` view; a host lists the tools, follows the link the way the extension's host SDK
 * does and reads the view, at 2025-11-25 and 2026-07-28; the view of a tool hidden from the member is hidden too.
 */

const CHART_HTML = "<!doctype html><html><body><div id=chart>chart view</div></body></html>";
const BOARD_HTML = "<!doctype html><html><body>board view</body></html>";

function appServer(): () => McpServer {
  const demo = demoServer();
  return () => {
    const server = demo();
    const app = server as unknown as Parameters<typeof registerAppTool>[0];
    for (const [name, uri, html] of [
      ["show-chart", "ui://charts/view.html", CHART_HTML],
      ["show-board", "ui://charts/board.html", BOARD_HTML],
    ] as const) {
      registerAppTool(app, name, { description: `Shows the ${name}`, _meta: { ui: { resourceUri: uri } } }, () => ({
        content: [
          { type: "text", text: `${name} shown` },
          // A result may link its view in its content too (a resource link the host follows).
          { type: "resource_link", uri, name: `${name} view`, mimeType: RESOURCE_MIME_TYPE },
        ],
        // A result may name its view too; the host then reads it back through us.
        _meta: { ui: { resourceUri: uri } },
      }));
      registerAppResource(
        app as unknown as Parameters<typeof registerAppResource>[0],
        `${name} view`,
        uri,
        { description: `The ${name} view` },
        () => ({ contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: html }] }),
      );
    }
    return server;
  };
}

let ctx: RouteTeam;

beforeAll(async () => {
  ctx = await startRouteTeam(appServer());
  // Alice is an ordinary member here, so that member policies apply to her.
  await ctx.db.membership.update({
    where: { teamId_userId: { teamId: ctx.team.id, userId: ctx.alice.id } },
    data: { role: "member" },
  });
}, 60_000);

afterAll(async () => {
  await stopRouteTeam(ctx?.upstream);
});

/** The upstream's own answer to a read, straight from it (no gateway). */
async function readDirect(uri: string) {
  const client = new Client({ name: "direct", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(ctx.upstream.url("/mcp"))));
  try {
    return await client.readResource({ uri });
  } finally {
    await client.close();
  }
}

/** The view a host renders for a tool, found as the extension's host SDK finds it. */
function uiLink(tool: { _meta?: Record<string, unknown> } | undefined): string | undefined {
  return getToolUiResourceUri({ _meta: tool?._meta } as Parameters<typeof getToolUiResourceUri>[0]);
}

async function refusal(run: () => Promise<unknown>): Promise<McpError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error("the request was not refused");
}

const V2026 = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": V2026,
  "io.modelcontextprotocol/clientInfo": { name: "host-2026", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One stateless 2026-07-28 request, as a conforming client sends it. */
async function post2026(token: string, method: string, params: Record<string, unknown> = {}) {
  const name = (params.name ?? params.uri) as string | undefined;
  const res = await fetch(new URL("/api/mcp", ctx.base), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V2026,
      "mcp-method": method,
      ...(name !== undefined ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } }),
  });
  const text = await res.text();
  const body = (res.headers.get("content-type") ?? "").includes("text/event-stream")
    ? (JSON.parse(
        text
          .split("\n")
          .find((l) => l.startsWith("data: "))!
          .slice(6),
      ) as Record<string, unknown>)
    : (JSON.parse(text) as Record<string, unknown>);
  return body as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

async function hideBoard(hidden: boolean) {
  await setToolHidden(ctx.db, {
    userId: ctx.alice.id,
    installationId: ctx.installation.id,
    toolName: "show-board",
    hidden,
  });
  invalidateMemberCatalogue(ctx.alice.id);
}

const HIDE_BOARD = `@id("all")\npermit(principal, action, resource);\n
@id("hide-board")
forbid(principal, action, resource == Switchboard::Tool::"my-demo/show-board");
`;

describe("MCP Apps through the aggregate route", () => {
  it("a 2025-11-25 host follows a tool's UI link to its view and reads it as the server serves it", async () => {
    const { client } = await connectClient(await ctx.newToken("apps-2025"));
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === "my-demo-show-chart");
      const uri = uiLink(tool);
      expect(uri).toBe("ui://my-demo/charts/view.html");
      // The older flat key names the same resource.
      expect(tool?._meta?.["ui/resourceUri"]).toBe(uri);
      const listed = (await client.listResources()).resources.find((r) => r.uri === uri);
      expect(listed).toMatchObject({ mimeType: RESOURCE_MIME_TYPE });
      const read = await client.readResource({ uri: uri! });
      const direct = await readDirect("ui://charts/view.html");
      expect(read.contents).toEqual(direct.contents);
      expect(read.contents[0]).toMatchObject({ mimeType: RESOURCE_MIME_TYPE, text: CHART_HTML });
      // A result that names its view names it as the host reads it.
      const called = await client.callTool({ name: "my-demo-show-chart", arguments: {} });
      expect(called._meta).toMatchObject({ ui: { resourceUri: uri } });
      // So does a resource link in its content, which the host reads back through us.
      const link = (called.content as Array<{ type: string; uri?: string }>).find((c) => c.type === "resource_link");
      expect(link?.uri).toBe(uri);
      expect((await client.readResource({ uri: link!.uri! })).contents).toEqual(direct.contents);
    } finally {
      await client.close();
    }
  });

  it("a 2026-07-28 host follows the same link without a session", async () => {
    const token = await ctx.newToken("apps-2026");
    const listed = await post2026(token, "tools/list");
    const tools = (listed.result?.tools ?? []) as Tool[];
    const uri = uiLink(tools.find((t) => t.name === "my-demo-show-chart"));
    expect(uri).toBe("ui://my-demo/charts/view.html");
    const resources = await post2026(token, "resources/list");
    expect(resources.result?.resources).toEqual(
      expect.arrayContaining([expect.objectContaining({ uri, mimeType: RESOURCE_MIME_TYPE })]),
    );
    const read = await post2026(token, "resources/read", { uri });
    expect(read.result?.contents).toEqual((await readDirect("ui://charts/view.html")).contents);
    const called = await post2026(token, "tools/call", { name: "my-demo-show-chart", arguments: {} });
    expect(called.result?._meta).toMatchObject({ ui: { resourceUri: uri } });
    const content = called.result?.content as Array<{ type: string; uri?: string }>;
    expect(content.find((c) => c.type === "resource_link")?.uri).toBe(uri);
  });

  it("hides the view of a tool the member hid, and refuses reading it as an unknown resource", async () => {
    await hideBoard(true);
    const token = await ctx.newToken("apps-hidden");
    const { client } = await connectClient(token);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("my-demo-show-board");
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      expect(uris).toContain("ui://my-demo/charts/view.html");
      expect(uris).not.toContain("ui://my-demo/charts/board.html");
      const hidden = await refusal(() => client.readResource({ uri: "ui://my-demo/charts/board.html" }));
      const missing = await refusal(() => client.readResource({ uri: "ui://my-demo/charts/none.html" }));
      expect(hidden.code).toBe(missing.code);
      expect(hidden.message.replace("board", "X")).toBe(missing.message.replace("none", "X"));
      // The same at 2026-07-28.
      const listed = await post2026(token, "resources/list");
      expect((listed.result?.resources as Array<{ uri: string }>).map((r) => r.uri)).not.toContain(
        "ui://my-demo/charts/board.html",
      );
      const read = await post2026(token, "resources/read", { uri: "ui://my-demo/charts/board.html" });
      expect(read.error?.code).toBe(missing.code);
    } finally {
      await client.close();
      await hideBoard(false);
    }
    // Shown again, its view is back.
    const { client: again } = await connectClient(token);
    try {
      const read = await again.readResource({ uri: "ui://my-demo/charts/board.html" });
      expect(read.contents[0]).toMatchObject({ text: BOARD_HTML });
    } finally {
      await again.close();
    }
  });

  it("hides the view of a tool a team policy hides, and refuses reading it as an unknown resource", async () => {
    await usePolicies(ctx, HIDE_BOARD);
    const token = await ctx.newToken("apps-policy");
    const { client } = await connectClient(token);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("my-demo-show-board");
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      expect(uris).toContain("ui://my-demo/charts/view.html");
      expect(uris).not.toContain("ui://my-demo/charts/board.html");
      const hidden = await refusal(() => client.readResource({ uri: "ui://my-demo/charts/board.html" }));
      const missing = await refusal(() => client.readResource({ uri: "ui://my-demo/charts/none.html" }));
      expect(hidden.code).toBe(missing.code);
      expect(hidden.message.replace("board", "X")).toBe(missing.message.replace("none", "X"));
      const read = await post2026(token, "resources/read", { uri: "ui://my-demo/charts/board.html" });
      expect(read.error?.code).toBe(missing.code);
      // The view of a tool it does not hide still reads.
      expect((await client.readResource({ uri: "ui://my-demo/charts/view.html" })).contents[0]).toMatchObject({
        text: CHART_HTML,
      });
      // Router mode's list_resources lists what resources/list does.
      const { token: routerToken } = await makeAccessToken(ctx.db, {
        userId: ctx.alice.id,
        teamId: ctx.team.id,
        name: "apps-policy-router",
        mode: "router",
      });
      const { client: routed } = await connectClient(routerToken);
      try {
        const listed = await routed.callTool({ name: "list_resources", arguments: {} });
        const text = (listed.content as Array<{ text: string }>)[0]!.text;
        const routedUris = (JSON.parse(text) as { resources: Array<{ uri: string }> }).resources.map((r) => r.uri);
        expect(routedUris).toContain("ui://my-demo/charts/view.html");
        expect(routedUris).not.toContain("ui://my-demo/charts/board.html");
      } finally {
        await routed.close();
      }
    } finally {
      await client.close();
      await usePolicies(ctx, null);
    }
  });
});
