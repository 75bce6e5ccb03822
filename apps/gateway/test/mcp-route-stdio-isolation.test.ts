import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { allowCommands, makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { subscriberConnection } from "@switchboard/runtime/redis";
import { freePort } from "@switchboard/testing/net";
import { waitUntil } from "@switchboard/testing/wait";
import { startWorkerProcess } from "@switchboard/testing/worker-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeBase, startRoute, teardownRoute } from "./support/mcp";

const FIXTURES = path.resolve(import.meta.dirname, "fixtures");
/** Concurrent calls per session: the finding was 16 of 60 misdelivered with two sessions of 30. */
const CALLS = 30;

let worker: Awaited<ReturnType<typeof startWorkerProcess>>;
let instanceId: string;
let tokens: [string, string];
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  await startRoute();
  const bridgePort = await freePort();
  const bridgeSecret = randomBytes(24).toString("hex");
  process.env.BRIDGE_SECRET = bridgeSecret;
  process.env.BRIDGE_URL = `http://127.0.0.1:${bridgePort}`;
  const db = getDb();
  const member = await makeUser(db, { name: "two-clients" });
  const team = await makeTeam(db, member);
  await allowCommands(db, [{ kind: "executable", name: process.execPath }]);
  const template = await seedTemplate(db, {
    teamId: team.id,
    slug: "asks",
    name: "Asks",
    transport: "stdio",
    command: process.execPath,
    args: [path.join(FIXTURES, "eliciting-stdio-server.mjs")],
  });
  instanceId = (await seedInstallation(db, { template })).instances[0]!.id;
  tokens = [
    (await makeAccessToken(db, { userId: member.id, teamId: team.id, name: "laptop" })).token,
    (await makeAccessToken(db, { userId: member.id, teamId: team.id, name: "desktop" })).token,
  ];
  worker = await startWorkerProcess({ bridgeSecret, bridgePort, readOnlyPaths: [FIXTURES] });
  await waitUntil(
    async () => (await db.instance.findUniqueOrThrow({ where: { id: instanceId } })).status === "online",
    "the eliciting stdio server to be discovered",
    45_000,
    250,
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await teardownRoute();
  await worker?.stop();
  subscriberConnection().disconnect();
  await disconnectDb();
});

/** A 2025-11-25 session that declares elicitation and answers every elicitation with its own name. */
async function session(token: string, name: string) {
  const client = new Client({ name, version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { who: name } }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
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

const answer = (result: unknown) =>
  JSON.parse(((result as CallToolResult).content[0] as { text: string }).text) as { mark: string; who: string };

/**
 * The sessions call the eliciting tool CALLS times each, all at once and interleaved; a process asks once all of
 * them are in it (or no more come), so a process shared by both sessions asks while calls of both are in
 * progress. Returns the calls whose answer came from another session.
 */
async function misdelivered(sessions: Array<Awaited<ReturnType<typeof session>>>): Promise<string[]> {
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
    const oneToken = await misdelivered([await session(tokens[0], "first"), await session(tokens[0], "second")]);
    const twoTokens = await misdelivered([await session(tokens[0], "laptop"), await session(tokens[1], "desktop")]);
    expect({ oneToken, twoTokens }).toEqual({ oneToken: [], twoTokens: [] });
  }, 60_000);

  it("never reaches a client that did not declare elicitation, at 2025-11-25 or 2026-07-28", async () => {
    // Busy capable sessions of the same member at the same time: what they are asked must stay theirs.
    const capable = await session(tokens[0], "capable");
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
        requestInit: { headers: { authorization: `Bearer ${tokens[1]}` } },
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
    const modern = new ClientV2(
      { name: "plain-2026", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(
      new TransportV2(new URL("/api/mcp", routeBase()), {
        fetch: recording,
        requestInit: { headers: { authorization: `Bearer ${tokens[1]}` } },
      }),
    );
    clients.push(modern);
    expect(await refused(modern.callTool({ name: "asks-whose", arguments: { mark: "plain-2026" } }))).toBe(true);
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.filter((b) => b.includes("input_required") || b.includes("elicitation/create"))).toEqual([]);

    expect((await busy).map((r) => answer(r).who)).toEqual(Array(5).fill("capable"));
    expect(asked).toEqual([]);
  }, 60_000);
});
