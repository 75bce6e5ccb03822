import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import {
  completable as completableV2,
  McpServer as McpServerV2,
  ResourceTemplate as TemplateV2,
} from "@modelcontextprotocol/server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CompleteRequest } from "@modelcontextprotocol/sdk/types.js";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb } from "@switchboard/db/client";
import { Upstream2026 } from "@switchboard/testing/upstream-2026";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { routeBase, teardownRoute } from "./support/mcp";
import { startRouteWith } from "./support/route-team";

/**
 * `completion/complete` through the route, for clients of both revisions, from upstreams of both revisions: one on
 * SDK 1.x (2025-11-25 sessions), one on SDK v2 speaking 2026-07-28 only, and one like it whose `server/discover`
 * leaves `completions` out while serving them (as the conformance repository's reference server does).
 */
const COLOURS = ["red", "green", "blue", "grey"];
const pick = (value: string) => COLOURS.filter((c) => c.startsWith(value));

function server2026(): McpServerV2 {
  const mcp = new McpServerV2({ name: "rev2026-completions", version: "2.0.0" });
  mcp.registerPrompt(
    "paint",
    { description: "Paints", argsSchema: z.object({ colour: completableV2(z.string(), (v) => pick(v)) }) },
    async ({ colour }) => ({ messages: [{ role: "user", content: { type: "text", text: colour } }] }),
  );
  mcp.registerResource(
    "swatch",
    new TemplateV2("swatch://{colour}", { list: undefined, complete: { colour: (v) => pick(v) } }),
    {},
    async (uri) => ({ contents: [{ uri: uri.toString(), text: "swatch" }] }),
  );
  return mcp;
}

/** The same prompt without completions: the server neither declares nor serves them. */
function plainServer(): McpServerV2 {
  const mcp = new McpServerV2({ name: "plain", version: "2.0.0" });
  mcp.registerPrompt("paint", { description: "Paints", argsSchema: z.object({ colour: z.string() }) }, async () => ({
    messages: [],
  }));
  return mcp;
}

function server2025(): McpServer {
  const mcp = new McpServer({ name: "legacy-completions", version: "1.0.0" });
  mcp.registerPrompt(
    "paint",
    { description: "Paints", argsSchema: { colour: completable(z.string(), (v) => pick(v)) } },
    async ({ colour }) => ({ messages: [{ role: "user", content: { type: "text", text: colour } }] }),
  );
  mcp.registerResource(
    "swatch",
    new ResourceTemplate("swatch://{colour}", { list: undefined, complete: { colour: (v) => pick(v) } }),
    {},
    async (uri) => ({ contents: [{ uri: uri.toString(), text: "swatch" }] }),
  );
  return mcp;
}

let rev2026: Upstream2026;
let undeclared: Upstream2026;
let plain: Upstream2026;
let legacy: StreamableHttpFixture;
let token: string;
const SLUGS = ["rev2026", "undeclared", "legacy"] as const;

beforeAll(async () => {
  rev2026 = await Upstream2026.start({ server: server2026 });
  undeclared = await Upstream2026.start({ server: server2026, undeclared: ["completions"] });
  plain = await Upstream2026.start({ server: plainServer });
  legacy = await startStreamableHttpServer(server2025);
  const urls = { rev2026: rev2026.url, undeclared: undeclared.url, legacy: legacy.url("/mcp"), plain: plain.url };
  ({ token } = await startRouteWith([...SLUGS, "plain" as const].map((slug) => ({ slug, url: urls[slug] }))));
});

afterAll(async () => {
  await teardownRoute();
  await rev2026?.stop();
  await undeclared?.stop();
  await plain?.stop();
  await legacy?.stop();
  await disconnectDb();
});

const V = "2026-07-28";
const at = (path: string) => new URL(path, routeBase());
const requestInit = () => ({ headers: { authorization: `Bearer ${token}` } });

/** An SDK 1.x client (2025-11-25, a session) or an SDK v2 client pinned to 2026-07-28 (stateless) on `path`. */
async function connect(revision: "2025-11-25" | typeof V, path: string) {
  if (revision === V) {
    const client = new ClientV2(
      { name: "v2-completions", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: V } } },
    );
    await client.connect(new TransportV2(at(path), { requestInit: requestInit() }));
    expect(client.getNegotiatedProtocolVersion()).toBe(V);
    return {
      capabilities: () => client.getServerCapabilities(),
      complete: (params: CompleteRequest["params"]) => client.complete(params as never),
      prompts: async () => (await client.listPrompts()).prompts,
      templates: async () => (await client.listResourceTemplates()).resourceTemplates,
      close: () => client.close(),
    };
  }
  const client = new Client({ name: "v1-completions", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(at(path), { requestInit: requestInit() }));
  return {
    capabilities: () => client.getServerCapabilities(),
    complete: (params: CompleteRequest["params"]) => client.complete(params),
    prompts: async () => (await client.listPrompts()).prompts,
    templates: async () => (await client.listResourceTemplates()).resourceTemplates,
    close: () => client.close(),
  };
}

const REVISIONS = ["2025-11-25", V] as const;
const cases = REVISIONS.flatMap((revision) => SLUGS.map((slug) => [revision, slug] as const));

describe("completion/complete through /api/mcp/servers/{slug}", () => {
  it.each(cases)("a %s client gets the %s upstream's completions", async (revision, slug) => {
    const client = await connect(revision, `/api/mcp/servers/${slug}`);
    try {
      expect(client.capabilities()?.completions).toBeDefined();
      const prompt = await client.complete({
        ref: { type: "ref/prompt", name: "paint" },
        argument: { name: "colour", value: "g" },
      });
      expect(prompt.completion.values).toEqual(["green", "grey"]);
      const template = await client.complete({
        ref: { type: "ref/resource", uri: "swatch://{colour}" },
        argument: { name: "colour", value: "b" },
      });
      expect(template.completion.values).toEqual(["blue"]);
    } finally {
      await client.close();
    }
  });
});

describe("completion/complete through the aggregate route", () => {
  it.each(REVISIONS)(
    "a %s client completes each upstream's namespaced prompt and template, mapped back to the upstream's names",
    async (revision) => {
      const client = await connect(revision, "/api/mcp");
      try {
        const prompts = await client.prompts();
        const templates = await client.templates();
        for (const slug of SLUGS) {
          const before = slug === "legacy" ? 0 : (slug === "rev2026" ? rev2026 : undeclared).seen.length;
          const prompt = prompts.find((p) => p.name !== "paint" && p.name.includes(slug) && p.name.endsWith("paint"));
          const template = templates.find((t) => t.uriTemplate !== "swatch://{colour}" && t.uriTemplate.includes(slug));
          expect(prompt, slug).toBeDefined();
          expect(template, slug).toBeDefined();
          const fromPrompt = await client.complete({
            ref: { type: "ref/prompt", name: prompt!.name },
            argument: { name: "colour", value: "r" },
          });
          expect(fromPrompt.completion.values).toEqual(["red"]);
          const fromTemplate = await client.complete({
            ref: { type: "ref/resource", uri: template!.uriTemplate },
            argument: { name: "colour", value: "gr" },
          });
          expect(fromTemplate.completion.values).toEqual(["green", "grey"]);
          if (slug === "legacy") continue;
          // The 2026-07-28 upstream was asked under its own names.
          const asked = (slug === "rev2026" ? rev2026 : undeclared).seen
            .slice(before)
            .filter((r) => r.method === "completion/complete")
            .map((r) => (r.body as { params: { ref: unknown } }).params.ref);
          expect(asked).toEqual([
            { type: "ref/prompt", name: "paint" },
            { type: "ref/resource", uri: "swatch://{colour}" },
          ]);
        }
      } finally {
        await client.close();
      }
    },
  );
});

describe("a 2026-07-28 upstream that neither declares nor serves completions", () => {
  it("is asked once at discovery, and the route offers no completions for it", async () => {
    expect(plain.methods.filter((m) => m === "completion/complete")).toHaveLength(1);
    const client = await connect(V, "/api/mcp/servers/plain");
    try {
      expect(client.capabilities()?.completions).toBeUndefined();
      await expect(
        client.complete({ ref: { type: "ref/prompt", name: "paint" }, argument: { name: "colour", value: "g" } }),
      ).rejects.toThrow(/Method not found/);
    } finally {
      await client.close();
    }
  });
});
