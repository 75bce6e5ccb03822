import path from "node:path";
import { deleteMatching } from "@switchboard/testing/redis";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeJobs } from "@switchboard/runtime/jobs";
import { redis, subscriberConnection } from "@switchboard/runtime/redis";
import { forgetLocalSessions } from "../src/mcp/sessions";
import { env } from "@switchboard/runtime/env";
import { redisKeys } from "@switchboard/core/contracts";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { makeAccessToken } from "@switchboard/db/testing";
import { connectClient, routeBase, startRouteWithBridge, stopRoute } from "./support/mcp";
import { installEverythingStdio } from "./support/stdio-everything";
import { startWorkerProcess } from "@switchboard/testing/worker-process";

const FIXTURES = path.resolve(import.meta.dirname, "fixtures");
let worker: Awaited<ReturnType<typeof startWorkerProcess>>;
let token: string;
/** Another token of the same member (another device). */
let desktopToken: string;
let instanceId: string;
/** The member's instance of a server whose tool elicits (fixtures/eliciting-stdio-server.mjs). */
let asksInstanceId: string;
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  const { bridgeSecret, bridgePort } = await startRouteWithBridge();
  const db = getDb();
  let userId: string;
  let teamId: string;
  ({ instanceId, token, userId, teamId } = await installEverythingStdio("stdio", [
    { kind: "executable", name: process.execPath },
  ]));
  const asks = await seedTemplate(db, {
    teamId,
    slug: "asks",
    name: "Asks",
    transport: "stdio",
    command: process.execPath,
    args: [path.join(FIXTURES, "eliciting-stdio-server.mjs")],
  });
  asksInstanceId = (await seedInstallation(db, { template: asks })).instances[0]!.id;
  desktopToken = (await makeAccessToken(db, { userId, teamId, name: "desktop" })).token;
  // The worker reconciles on start: the provisioning instances are discovered over stdio and go online. The
  // eliciting server's script is a fixture of this test: its sandbox may read that directory.
  worker = await startWorkerProcess({ bridgeSecret, bridgePort, readOnlyPaths: [FIXTURES] });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await stopRoute();
  await forgetLocalSessions();
  await worker?.stop();
  await closeJobs();
  await deleteMatching(redis(), redisKeys.everything(env().REDIS_PREFIX));
  redis().disconnect();
  subscriberConnection().disconnect();
  await disconnectDb();
});

describe("a stdio server hosted by the worker, through the hosted MCP route", () => {
  it("lists and calls its namespaced tools over the worker's bridge", async () => {
    await expect
      .poll(async () => (await getDb().instance.findUniqueOrThrow({ where: { id: instanceId } })).status, {
        timeout: 45_000,
        interval: 500,
      })
      .toBe("online");
    const { client } = await connectClient(token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("everything-echo");
    const result = await client.callTool({ name: "everything-echo", arguments: { message: "over the bridge" } });
    expect(JSON.stringify(result.content)).toContain("over the bridge");
    // A long call's progress crosses both hops (route and bridge) under the client's own token.
    const progress: number[] = [];
    const long = await client.callTool(
      { name: "everything-trigger-long-running-operation", arguments: { duration: 0.6, steps: 3 } },
      undefined,
      {
        onprogress: (p) => void progress.push(p.progress),
      },
    );
    expect(long.isError).not.toBe(true);
    // The server sends its last step right before the result; the SDK client drops a progress notification
    // that arrives in the same read as its response (directly over stdio too), so only the earlier steps count.
    expect(progress.slice(0, 2)).toEqual([1, 2]);
    await client.close();
    // One process for the instance: the worker holds its lease.
    const lease = await redis().get(redisKeys.stdioLease(process.env.REDIS_PREFIX!, instanceId));
    expect(lease).toContain("http://127.0.0.1:");
  }, 60_000);

  it("relays what the stdio server asks (sampling, elicitation, roots) across the bridge to the calling client", async () => {
    await expect
      .poll(async () => (await getDb().instance.findUniqueOrThrow({ where: { id: instanceId } })).status, {
        timeout: 45_000,
        interval: 500,
      })
      .toBe("online");
    const asked: string[] = [];
    const client = new Client(
      { name: "capable", version: "1.0.0" },
      { capabilities: { sampling: {}, elicitation: {}, roots: {} } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push("sampling");
      return { model: "test-model", role: "assistant", content: { type: "text", text: "sampled over stdio" } };
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked.push("elicitation");
      return { action: "accept", content: { name: "Ada" } };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push("roots");
      return { roots: [{ uri: "file:///projects/stdio-root", name: "stdio-root" }] };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      // Discovery listed on a process offered them, so the server's capable-client-only tools are in the catalogue
      // and listed to this client, whose calls go to the instance's process for exactly its capabilities.
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "everything-trigger-sampling-request",
          "everything-trigger-elicitation-request",
          "everything-get-roots-list",
        ]),
      );
      const sampled = await client.callTool({
        name: "everything-trigger-sampling-request",
        arguments: { prompt: "hi" },
      });
      expect(JSON.stringify(sampled.content)).toContain("sampled over stdio");
      const elicited = await client.callTool({ name: "everything-trigger-elicitation-request", arguments: {} });
      expect(JSON.stringify(elicited.content)).toContain("Ada");
      const roots = await client.callTool({ name: "everything-get-roots-list", arguments: {} });
      expect(roots.isError).not.toBe(true);
      expect(asked).toEqual(expect.arrayContaining(["sampling", "elicitation"]));

      // A client that declared none of it is served by the instance's main process, offered nothing: it neither
      // sees those tools nor can call them (a clean "unknown tool", not a hang), and its other calls work.
      const { client: plain } = await connectClient(token);
      const plainNames = (await plain.listTools()).tools.map((t) => t.name);
      expect(plainNames).toContain("everything-echo");
      for (const name of [
        "everything-trigger-sampling-request",
        "everything-trigger-elicitation-request",
        "everything-get-roots-list",
      ]) {
        expect(plainNames).not.toContain(name);
      }
      await expect(
        plain.callTool({ name: "everything-trigger-sampling-request", arguments: { prompt: "hi" } }),
      ).rejects.toThrow(/Unknown tool/);
      expect(
        JSON.stringify((await plain.callTool({ name: "everything-echo", arguments: { message: "plain" } })).content),
      ).toContain("plain");
      await plain.close();
    } finally {
      await client.close();
    }
  }, 60_000);

  it("serves SDK v2 clients at 2026-07-28 (eliciting through input_required) and at 2025-11-25", async () => {
    await expect
      .poll(async () => (await getDb().instance.findUniqueOrThrow({ where: { id: instanceId } })).status, {
        timeout: 45_000,
        interval: 500,
      })
      .toBe("online");
    const url = new URL("/api/mcp", routeBase());
    const headers = { authorization: `Bearer ${token}` };
    const rev2026 = new ClientV2(
      { name: "v2-rev2026", version: "1.0.0" },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    rev2026.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Lin" } }));
    await rev2026.connect(new TransportV2(url, { requestInit: { headers } }));
    try {
      const names = (await rev2026.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["everything-echo", "everything-trigger-elicitation-request"]));
      const echoed = await rev2026.callTool({ name: "everything-echo", arguments: { message: "stateless stdio" } });
      expect(JSON.stringify(echoed.content)).toContain("stateless stdio");
      // The stdio server asks over the bridge; the route turns that into an input_required round.
      const elicited = await rev2026.callTool({ name: "everything-trigger-elicitation-request", arguments: {} });
      expect(JSON.stringify(elicited.content)).toContain("Lin");
    } finally {
      await rev2026.close();
    }
    const legacy = new ClientV2({ name: "v2-legacy", version: "1.0.0" });
    await legacy.connect(new TransportV2(url, { requestInit: { headers } }));
    try {
      expect(legacy.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      const echoed = await legacy.callTool({ name: "everything-echo", arguments: { message: "session stdio" } });
      expect(JSON.stringify(echoed.content)).toContain("session stdio");
    } finally {
      await legacy.close();
    }
  }, 60_000);
});

const statusOf = async (id: string) => (await getDb().instance.findUniqueOrThrow({ where: { id } })).status;
/** Concurrent calls per session: the finding was 16 of 60 misdelivered with two sessions of 30. */
const CALLS = 30;

/** A 2025-11-25 session that declares elicitation and answers every elicitation with its own name. */
async function eliciting(bearer: string, name: string) {
  const client = new Client({ name, version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { who: name } }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
      requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    }),
  );
  clients.push(client);
  return { name, client };
}

/** True when the call failed cleanly: an error result, or a JSON-RPC error. */
const refused = (call: Promise<unknown>) =>
  call.then(
    (result) => (result as { isError?: boolean }).isError === true,
    () => true,
  );

/** What the eliciting tool answered (a failed call fails the test with its text). */
function answer(result: unknown): { mark: string; who: string } {
  const { isError, content } = result as CallToolResult;
  const text = (content[0] as { text: string }).text;
  if (isError) throw new Error(`the call failed: ${text}`);
  return JSON.parse(text) as { mark: string; who: string };
}

/**
 * The sessions call the eliciting tool CALLS times each, all at once and interleaved; a process asks once all of
 * them are in it (or no more come), so a process shared by both sessions asks while calls of both are in
 * progress. Returns the calls whose answer came from another session.
 */
async function misdelivered(sessions: Array<Awaited<ReturnType<typeof eliciting>>>): Promise<string[]> {
  // One call each first, so that no call of the burst waits for a process to start.
  for (const { name, client } of sessions)
    expect(answer(await client.callTool({ name: "asks-whose", arguments: { mark: name } }))).toEqual({
      mark: name,
      who: name,
    });
  const calls = Array.from({ length: CALLS }, (_, i) => sessions.map((s) => ({ ...s, mark: `${s.name}-${i}` }))).flat();
  const results = await Promise.all(
    calls.map(async ({ name, client, mark }) => {
      const { who, mark: echoed } = answer(
        await client.callTool({ name: "asks-whose", arguments: { mark, together: calls.length } }),
      );
      expect(echoed).toBe(mark);
      return who === name ? [] : [`${mark} answered by ${who}`];
    }),
  );
  return results.flat();
}

describe("what a hosted stdio server asks, with one member's two clients calling at once", () => {
  it("reaches the session whose call raised it, for two sessions of one token and of two tokens", async () => {
    await expect.poll(() => statusOf(asksInstanceId), { timeout: 45_000, interval: 250 }).toBe("online");
    const oneToken = await misdelivered([await eliciting(token, "first"), await eliciting(token, "second")]);
    const twoTokens = await misdelivered([await eliciting(token, "laptop"), await eliciting(desktopToken, "desktop")]);
    expect({ oneToken, twoTokens }).toEqual({ oneToken: [], twoTokens: [] });
  }, 60_000);

  it("never reaches a client that did not declare elicitation, at 2025-11-25 or 2026-07-28", async () => {
    await expect.poll(() => statusOf(asksInstanceId), { timeout: 45_000, interval: 250 }).toBe("online");
    // Busy capable sessions of the same member at the same time: what they are asked must stay theirs.
    const capable = await eliciting(token, "capable");
    const busy = Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        capable.client.callTool({ name: "asks-whose", arguments: { mark: `capable-${i}` } }),
      ),
    );
    const asked: string[] = [];
    const plain = new Client({ name: "plain", version: "1" });
    plain.fallbackRequestHandler = async (request) => {
      asked.push(request.method);
      return {};
    };
    await plain.connect(
      new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${desktopToken}` } },
      }),
    );
    clients.push(plain);
    expect(await refused(plain.callTool({ name: "asks-whose", arguments: { mark: "plain" } }))).toBe(true);

    // A 2026-07-28 client is asked through input_required results: it must never get one for elicitation.
    const bodies: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      bodies.push(await response.clone().text());
      return response;
    };
    const rev2026 = new ClientV2(
      { name: "plain-2026", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await rev2026.connect(
      new TransportV2(new URL("/api/mcp", routeBase()), {
        fetch: recording,
        requestInit: { headers: { authorization: `Bearer ${desktopToken}` } },
      }),
    );
    clients.push(rev2026);
    expect(await refused(rev2026.callTool({ name: "asks-whose", arguments: { mark: "plain-2026" } }))).toBe(true);
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.filter((b) => b.includes("input_required") || b.includes("elicitation/create"))).toEqual([]);

    expect((await busy).map((r) => answer(r).who)).toEqual(Array(5).fill("capable"));
    expect(asked).toEqual([]);
  }, 60_000);
});
