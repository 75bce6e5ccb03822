import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpParams } from "@switchboard/core/param-headers";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { invalidHeaderServer2026 } from "@switchboard/testing/conformance-2026";
import { INVALID_MIRRORED_TOOL, MIRRORED_PARAM_TOOL } from "@switchboard/testing/conformance-data";
import { Upstream2026 } from "@switchboard/testing/upstream-2026";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installDiscovered, routeBase, startRoute, teardownRoute } from "./support/mcp";

/**
 * `Mcp-Param-*` headers (2026-07-28, SEP-2243) through the route: a tool whose input schema annotates `region` with
 * `x-mcp-header: Region` is listed with the annotation under the name clients see; a 2026-07-28 call's header must
 * say what its body says (else 400 and -32020), and the call reaches the upstream with the header it asks for.
 * The upstream (SDK v2's server) refuses a call whose header is missing or wrong, as the revision requires.
 */
let upstream: Upstream2026;
let token: string;
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  upstream = await Upstream2026.start({ server: invalidHeaderServer2026 });
  await startRoute();
  const db = getDb();
  const alice = await makeUser(db, { name: "param-headers" });
  const team = await makeTeam(db, alice);
  await installDiscovered({
    teamId: team.id,
    slug: "regions",
    name: "Regions",
    url: upstream.url,
    userIds: [alice.id],
  });
  // The same server again, its tool exposed under another name by the team's admin.
  const renamed = await installDiscovered({
    teamId: team.id,
    slug: "renamed",
    name: "Renamed",
    url: upstream.url,
    userIds: [alice.id],
  });
  const exposed = await db.installationItemSetting.updateMany({
    where: { installationId: renamed.installation.id, kind: "tool", name: MIRRORED_PARAM_TOOL.name },
    data: { exposedName: RENAMED },
  });
  expect(exposed.count).toBe(1);
  token = (await makeAccessToken(db, { userId: alice.id, teamId: team.id })).token;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await teardownRoute();
  await upstream?.stop();
  await disconnectDb();
});

const RENAMED = "run_in_region";
const ROUTES = {
  hosted: "/api/mcp/servers/regions",
  aggregate: "/api/mcp",
  "renamed tool's": "/api/mcp/servers/renamed",
} as const;
const isOurs = (name: string) => name.endsWith(MIRRORED_PARAM_TOOL.name) || name === RENAMED;
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The tool's name as a route lists it (the aggregate route namespaces it by the installation). */
async function listedName(path: string): Promise<string> {
  const client = new ClientV2({ name: "v2-client", version: "1.0.0" });
  await client.connect(
    new TransportV2(new URL(path, routeBase()), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  clients.push(client);
  const { tools } = await client.listTools();
  return tools.find((t) => isOurs(t.name))!.name;
}

async function call(path: string, name: string, args: Record<string, unknown>, headers: Record<string, string>) {
  const res = await fetch(new URL(path, routeBase()), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name, arguments: args, _meta: META },
    }),
  });
  const text = await res.text();
  const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "null");
  return {
    status: res.status,
    body: JSON.parse(json) as { result?: { content: { text: string }[] }; error?: unknown },
  };
}

const calledWith = () =>
  upstream.seen.filter((r) => r.method === "tools/call").map((r) => r.headers["mcp-param-region"]);

describe("Mcp-Param-* headers on the MCP route", () => {
  it.each(Object.entries(ROUTES))(
    "lists the tool on the %s route with its x-mcp-header annotation valid under the name clients see",
    async (_route, path) => {
      const client = new ClientV2({ name: "v2-client", version: "1.0.0" });
      await client.connect(
        new TransportV2(new URL(path, routeBase()), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      clients.push(client);
      const tool = (await client.listTools()).tools.find((t) => isOurs(t.name))!;
      if (path === ROUTES["renamed tool's"]) expect(tool.name).toBe(RENAMED);
      // A tool whose annotation is invalid is left out of our catalogue, as the revision asks of a client.
      expect((await client.listTools()).tools.map((t) => t.name).filter((n) => n.includes("invalid_mirrored"))).toEqual(
        [],
      );
      // The upstream does list it.
      const listed = await fetch(upstream.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/list",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }),
      });
      expect(await listed.text()).toContain(INVALID_MIRRORED_TOOL.name);
      expect(tool.inputSchema.properties).toEqual(MIRRORED_PARAM_TOOL.inputSchema.properties);
      expect(mcpParams(tool.inputSchema)).toEqual({ params: [{ path: ["region"], name: "Region" }] });
    },
  );

  it.each(Object.entries(ROUTES))(
    "refuses a 2026-07-28 call on the %s route whose Mcp-Param header is missing, wrong or malformed (400, -32020)",
    async (_route, path) => {
      const name = await listedName(path);
      const before = calledWith().length;
      const refused = (message: string) => ({
        status: 400,
        body: { jsonrpc: "2.0", id: 9, error: { code: -32020, message } },
      });
      expect(await call(path, name, { region: "us-west1" }, {})).toEqual(
        refused("Header mismatch: the Mcp-Param-Region header is required, as the body has a value for it"),
      );
      expect(await call(path, name, { region: "us-west1" }, { "mcp-param-region": "eu-north1" })).toEqual(
        refused("Header mismatch: Mcp-Param-Region header value 'eu-north1' does not match body value 'us-west1'"),
      );
      const padding = await call(path, name, { region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" });
      expect(padding.status).toBe(400);
      expect(padding.body.error).toEqual({
        code: -32020,
        message: "Header mismatch: the Mcp-Param-Region header is malformed",
      });
      // Refused before anything reached the upstream.
      expect(calledWith().length).toBe(before);
    },
  );

  it.each(Object.entries(ROUTES))(
    "serves a 2026-07-28 call on the %s route whose header matches, and the upstream receives the header",
    async (_route, path) => {
      const name = await listedName(path);
      const plain = await call(path, name, { region: "us-west1" }, { "mcp-param-region": "us-west1" });
      expect(plain.status).toBe(200);
      expect(plain.body.result?.content[0]?.text).toBe("region: us-west1");
      expect(calledWith().at(-1)).toBe("us-west1");
      const encoded = `=?base64?${Buffer.from("Hello, 世界").toString("base64")}?=`;
      const unicode = await call(path, name, { region: "Hello, 世界" }, { "mcp-param-region": encoded });
      expect(unicode.body.result?.content[0]?.text).toBe("region: Hello, 世界");
      expect(calledWith().at(-1)).toBe(encoded);
    },
  );

  it("sends the header to the upstream for a 2025-11-25 session's call, which carries none", async () => {
    const client = new Client({ name: "sdk1-client", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(ROUTES.hosted, routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    const result = await client.callTool({ name: MIRRORED_PARAM_TOOL.name, arguments: { region: " padded " } });
    expect(result.isError).toBeFalsy();
    expect((result.content as { text: string }[])[0]?.text).toBe("region:  padded ");
    expect(calledWith().at(-1)).toBe(`=?base64?${Buffer.from(" padded ").toString("base64")}?=`);
  });
});
