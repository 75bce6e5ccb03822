import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { allowStdio } from "./support/deployment";
import { teamWithMember } from "./support/console";
import { freePort } from "@switchboard/testing/net";
import { startWorkerProcess } from "@switchboard/testing/worker-process";

const fixture = (name: string) =>
  readFileSync(new URL(`../../../packages/core/test/fixtures/server-json/${name}`, import.meta.url), "utf8");

let worker: Awaited<ReturnType<typeof startWorkerProcess>>;
let registry: Server;
let registryUrl: string;

beforeAll(async () => {
  worker = await startWorkerProcess({ bridgeSecret: randomBytes(24).toString("hex"), bridgePort: await freePort() });
  // A registry on this host, answering like the official one: GET /v0/servers/{name}/versions/latest.
  registry = createServer((req, res) => {
    if (req.url === `/v0/servers/${encodeURIComponent("com.example/issues")}/versions/latest`) {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ server: JSON.parse(fixture("remote-with-headers.json")), _meta: {} }));
      return;
    }
    if (req.url?.startsWith("/wrong")) {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<!doctype html><html><head><title>Home</title></head><body>${"<p>marketing</p>".repeat(3000)}</body></html>`,
        );
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ title: "Not Found" }));
  });
  await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await new Promise((resolve) => registry?.close(resolve));
  await closeJobs();
  await disconnectDb();
});

describe("registry import", () => {
  it("turns a pasted server.json into a prefilled draft with a required personal secret", async () => {
    const { admin, team } = await teamWithMember();
    const { draft } = await admin.caller.registry.importDocument({
      teamId: team.id,
      document: fixture("weather-npm.json"),
    });
    expect(draft).toMatchObject({ slug: "weather", transport: "stdio", command: "npx" });
    expect(draft.fields.find((f) => f.key === "WEATHER_API_KEY")).toMatchObject({
      tier: "user",
      required: true,
      secret: true,
    });
  });

  it("answers a readable error for what is not a server.json", async () => {
    const { admin, team } = await teamWithMember();
    await expect(
      admin.caller.registry.importDocument({ teamId: team.id, document: "{not json" }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "This is not valid JSON: paste the whole server.json file.",
    });
    await expect(
      admin.caller.registry.importDocument({ teamId: team.id, document: fixture("docker-only.json") }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/cannot run this server's packages/),
    });
  });

  it("fetches a server by name from a registry's base URL, and says when the name is unknown", async () => {
    const { admin, team } = await teamWithMember();
    const { draft } = await admin.caller.registry.importFromRegistry({
      teamId: team.id,
      baseUrl: registryUrl,
      name: "com.example/issues",
    });
    expect(draft).toMatchObject({ slug: "issues", transport: "streamable_http", url: "http://127.0.0.1:3999/mcp" });
    await expect(
      admin.caller.registry.importFromRegistry({ teamId: team.id, baseUrl: registryUrl, name: "com.example/nope" }),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "The registry has no server named “com.example/nope”.",
    });
  });

  it("lists the built-in presets, the reference servers first", async () => {
    const { admin, team } = await teamWithMember();
    const presets = await admin.caller.registry.presets({ teamId: team.id });
    expect(presets.map((p) => p.draft.slug)).toEqual(
      expect.arrayContaining(["everything", "filesystem", "memory", "sequential-thinking", "fetch", "git", "time"]),
    );
  });
});

describe("test connection", () => {
  it("reads a URL that answers with a web page as one sentence, with the page behind the detail", async () => {
    const { admin, team } = await teamWithMember();
    const result = await admin.caller.catalogue.testConnection({
      teamId: team.id,
      template: { slug: "wrong", name: "Wrong", transport: "streamable_http", url: `${registryUrl}/wrong` },
    });
    expect(result).toMatchObject({ ok: false, transport: null });
    expect(result.message).toMatch(/web page, not MCP/);
    expect(result.detail!.length).toBeLessThanOrEqual(2000);
  });

  it("starts a local command once through the worker, with the team values, and lists its tools", async () => {
    const { admin, team } = await teamWithMember();
    await allowStdio(team.id, [{ kind: "executable", name: "mcp-server-everything" }]);
    const result = await admin.caller.catalogue.testConnection({
      teamId: team.id,
      template: {
        slug: "everything",
        name: "Everything",
        transport: "stdio",
        command: "mcp-server-everything",
        fields: [{ key: "DEMO_TOKEN", tier: "team", kind: "env", secret: true }],
      },
      values: { DEMO_TOKEN: "team-secret-value-0042" },
    });
    expect(result).toMatchObject({ ok: true, transport: "stdio" });
    expect(result.toolCount).toBeGreaterThan(5);
    expect(result.totalTokens).toBeGreaterThan(0);
    expect(result.serverName).toBeTruthy();
  });

  it("refuses a command the deployment does not allow, before anything runs", async () => {
    const { admin, team } = await teamWithMember();
    await expect(
      admin.caller.catalogue.testConnection({
        teamId: team.id,
        template: { slug: "nope", name: "Nope", transport: "stdio", command: "definitely-not-allowed" },
      }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
