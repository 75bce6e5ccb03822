import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APPROVAL_REQUIRED_CODE,
  approvalArgumentsHash,
  approvalDecisionExpiry,
  approvalDeniedMessage,
  approvalExpiredMessage,
  approvalPath,
  approvalPendingMessage,
} from "@switchboard/core/governance";
import { demoServer } from "@switchboard/core/testing/demo-server";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { getDb } from "@switchboard/db/client";
import { addMember, makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { Upstream2026 } from "@switchboard/testing/upstream-2026";
import { env } from "@switchboard/runtime/env";
import { liveEventsReady, onTeamEvent } from "@switchboard/runtime/live-events";
import type { LiveEvent } from "@switchboard/core/events";
import { installDiscovered, routeBase, startRoute } from "./support/mcp";
import { stopRouteTeam } from "./support/route-team";

/**
 * Approvals through the route (issue 29): a call to a tool an admin marked as needing approval is held until an
 * approver approves exactly that call; the approval lets it through once, for that caller and those arguments,
 * before it expires. Per client: a 2025-11-25 client with URL elicitation gets -32042 pointing at the approval
 * page, a 2026-07-28 client an input_required result carrying the URL elicitation, any other client -32032 with
 * the page in the message. The approver's side is the console's (approved here by updating the row, as its
 * decide query does).
 */

const TOOL = "my-demo-echo";
const V2026 = "2026-07-28";
const calls = { count: 0 };

let upstream: StreamableHttpFixture;
/** An upstream that speaks 2026-07-28 only, installed as `rev2026`: what a retry sends it is checked. */
let rev2026: Upstream2026;
let db: ReturnType<typeof getDb>;
let team: { id: string; slug: string };
let alice: { id: string };
let bob: { id: string };
let installationId: string;
let aliceToken: string;
let bobToken: string;

beforeAll(async () => {
  upstream = await startStreamableHttpServer(demoServer({ calls }));
  await startRoute();
  db = getDb();
  alice = await makeUser(db, { name: "alice" });
  bob = await makeUser(db, { name: "bob" });
  team = await makeTeam(db, alice);
  await addMember(db, team, bob, "admin");
  const installed = await installDiscovered({
    teamId: team.id,
    slug: "my-demo",
    name: "Demo",
    url: upstream.url("/mcp"),
    userIds: [alice.id, bob.id],
  });
  installationId = installed.installation.id;
  const marked = await db.installationItemSetting.updateMany({
    where: { installationId, kind: "tool", name: "echo" },
    data: { requiresApproval: true },
  });
  expect(marked.count).toBe(1);
  rev2026 = await Upstream2026.start();
  const installed2026 = await installDiscovered({
    teamId: team.id,
    slug: "rev2026",
    name: "At 2026",
    url: rev2026.url,
    userIds: [alice.id],
  });
  await db.installationItemSetting.updateMany({
    where: { installationId: installed2026.installation.id, kind: "tool", name: "echo" },
    data: { requiresApproval: true },
  });
  aliceToken = (await makeAccessToken(db, { userId: alice.id, teamId: team.id })).token;
  bobToken = (await makeAccessToken(db, { userId: bob.id, teamId: team.id })).token;
  await liveEventsReady();
}, 60_000);

afterAll(async () => {
  await rev2026?.stop();
  await stopRouteTeam(upstream);
});

/** A 2025-11-25 session of the SDK 1.x client; `url: true` declares URL-mode elicitation. */
async function client2025(token: string, { url }: { url: boolean }) {
  const client = new Client(
    { name: "approvals-test", version: "1.0.0" },
    { capabilities: url ? { elicitation: { url: {} } } : {} },
  );
  if (url) client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "cancel" }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A tools/call's outcome: the text, or the JSON-RPC error's code, message and data. */
async function outcome(
  client: Client,
  args: Record<string, unknown>,
): Promise<{ text?: string; code?: number; message?: string; data?: Record<string, unknown> }> {
  try {
    const result = (await client.callTool({ name: TOOL, arguments: args })) as { content: Array<{ text: string }> };
    return { text: result.content[0]?.text };
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { code: error.code, message: error.message, data: error.data as Record<string, unknown> };
  }
}

/** The request an approval page URL names. */
const idOf = (url: unknown) => String(url).split("/").pop()!;

const pageOf = (id: string) => new URL(approvalPath(team.slug, id), env().APP_URL).href;

/** What the console's decide query does for an approver (the console helper's query; the row's fields here). */
async function decide(id: string, state: "approved" | "denied", comment: string | null = null) {
  const now = new Date();
  await db.toolApproval.update({
    where: { id },
    data: { state, decidedById: bob.id, decidedAt: now, comment, expiresAt: approvalDecisionExpiry(now) },
  });
}

const requestsOf = (callerId: string, text: string) =>
  db.toolApproval.findMany({
    where: { callerId, argumentsHash: approvalArgumentsHash({ text }) },
    orderBy: { createdAt: "asc" },
  });

describe("a 2025-11-25 client that supports URL elicitation", () => {
  it("is sent to the approval page (-32042), and once approved the call completes once; a replay is held again", async () => {
    const client = await client2025(aliceToken, { url: true });
    try {
      const before = calls.count;
      const held = await outcome(client, { text: "ship" });
      expect(held.code).toBe(-32042);
      const elicitation = (held.data?.elicitations as Array<Record<string, unknown>>)[0]!;
      const [request] = await requestsOf(alice.id, "ship");
      expect(request).toMatchObject({
        state: "pending",
        teamId: team.id,
        installationId,
        toolName: "echo",
        requested: TOOL,
        arguments: { text: "ship" },
        policyVersion: "default",
      });
      expect(elicitation).toMatchObject({ mode: "url", url: pageOf(request!.id) });
      expect(elicitation.message).toBe(approvalPendingMessage(pageOf(request!.id)));
      expect(calls.count).toBe(before);

      await decide(request!.id, "approved");
      expect(await outcome(client, { text: "ship" })).toEqual({ text: "echo: ship" });
      expect(calls.count).toBe(before + 1);
      expect((await db.toolApproval.findUniqueOrThrow({ where: { id: request!.id } })).state).toBe("used");

      // The same call again: the approval is spent, so it waits on a new request.
      const replay = await outcome(client, { text: "ship" });
      expect(replay.code).toBe(-32042);
      const again = (replay.data?.elicitations as Array<{ url: string }>)[0]!.url;
      expect(idOf(again)).not.toBe(request!.id);
      expect(calls.count).toBe(before + 1);

      const audit = await db.auditEvent.findMany({
        where: { teamId: team.id, targetId: request!.id },
        orderBy: { seq: "asc" },
      });
      expect(audit.map((a) => a.action)).toEqual(["approval.requested", "approval.used"]);
      expect(audit[0]).toMatchObject({ actorId: alice.id, targetType: "tool_approval", targetLabel: TOOL });
    } finally {
      await client.close();
    }
  });

  it("holds a call whose arguments differ in one value from the approved one", async () => {
    const client = await client2025(aliceToken, { url: true });
    try {
      await outcome(client, { text: "v1" });
      const [approved] = await requestsOf(alice.id, "v1");
      await decide(approved!.id, "approved");
      const before = calls.count;
      const changed = await outcome(client, { text: "v2" });
      expect(changed.code).toBe(-32042);
      expect(calls.count).toBe(before);
      expect((await requestsOf(alice.id, "v2")).map((r) => r.state)).toEqual(["pending"]);
      // The approval of the first call is still there for it.
      expect((await db.toolApproval.findUniqueOrThrow({ where: { id: approved!.id } })).state).toBe("approved");
    } finally {
      await client.close();
    }
  });

  it("refuses an approval past its expiry with one sentence, and asks again", async () => {
    const client = await client2025(aliceToken, { url: true });
    try {
      await outcome(client, { text: "late" });
      const [request] = await requestsOf(alice.id, "late");
      await decide(request!.id, "approved");
      await db.toolApproval.update({ where: { id: request!.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      const before = calls.count;
      const expired = await outcome(client, { text: "late" });
      const requests = await requestsOf(alice.id, "late");
      expect(requests.map((r) => r.state)).toEqual(["approved", "pending"]);
      expect(expired).toMatchObject({
        code: APPROVAL_REQUIRED_CODE,
        data: { state: "expired", url: pageOf(requests[1]!.id) },
      });
      expect(expired.message).toContain(approvalExpiredMessage(pageOf(requests[1]!.id)));
      expect(calls.count).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("does not let another member through on someone else's approval", async () => {
    const client = await client2025(aliceToken, { url: true });
    const bobs = await client2025(bobToken, { url: true });
    try {
      await outcome(client, { text: "shared" });
      const [alices] = await requestsOf(alice.id, "shared");
      await decide(alices!.id, "approved");
      const before = calls.count;
      expect((await outcome(bobs, { text: "shared" })).code).toBe(-32042);
      expect(calls.count).toBe(before);
      expect((await requestsOf(bob.id, "shared")).map((r) => r.state)).toEqual(["pending"]);
      expect((await db.toolApproval.findUniqueOrThrow({ where: { id: alices!.id } })).state).toBe("approved");
    } finally {
      await client.close();
      await bobs.close();
    }
  });

  it("lets exactly one of two concurrent retries use an approval", async () => {
    const one = await client2025(aliceToken, { url: true });
    const two = await client2025(aliceToken, { url: true });
    try {
      await outcome(one, { text: "race" });
      const [request] = await requestsOf(alice.id, "race");
      await decide(request!.id, "approved");
      const before = calls.count;
      const results = await Promise.all([outcome(one, { text: "race" }), outcome(two, { text: "race" })]);
      expect(results.filter((r) => r.text === "echo: race")).toHaveLength(1);
      expect(results.filter((r) => r.code === -32042)).toHaveLength(1);
      expect(calls.count).toBe(before + 1);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("keeps one request per call while it is pending, however often and however concurrently it is retried", async () => {
    const client = await client2025(aliceToken, { url: true });
    const events: LiveEvent[] = [];
    const off = onTeamEvent(team.id, (event) => void events.push(event));
    try {
      const answers = await Promise.all([1, 2, 3].map(() => outcome(client, { text: "dedupe" })));
      answers.push(await outcome(client, { text: "dedupe" }));
      const urls = answers.map((a) => (a.data?.elicitations as Array<{ url: string }>)[0]!.url);
      const requests = await requestsOf(alice.id, "dedupe");
      expect(requests).toHaveLength(1);
      expect(new Set(urls)).toEqual(new Set([pageOf(requests[0]!.id)]));
      const audited = await db.auditEvent.count({ where: { targetId: requests[0]!.id, action: "approval.requested" } });
      expect(audited).toBe(1);
      // The console's open list hears of it once, without the arguments.
      const announced = () => events.filter((e) => e.type === "approval_requested");
      await expect.poll(() => announced().length).toBe(1);
      expect(announced()[0]).toMatchObject({
        userId: alice.id,
        installationId,
        payload: { approvalId: requests[0]!.id, tool: "echo" },
      });
      expect(JSON.stringify(announced()[0])).not.toContain("dedupe");
    } finally {
      off();
      await client.close();
    }
  });

  it("tells a denied call the approver's comment; after the denial's window, calling again asks again", async () => {
    const client = await client2025(aliceToken, { url: true });
    try {
      await outcome(client, { text: "friday" });
      const [request] = await requestsOf(alice.id, "friday");
      await decide(request!.id, "denied", "not on a Friday");
      const denied = await outcome(client, { text: "friday" });
      expect(denied).toMatchObject({ code: APPROVAL_REQUIRED_CODE, data: { state: "denied" } });
      expect(denied.message).toContain(approvalDeniedMessage("not on a Friday"));
      expect(await requestsOf(alice.id, "friday")).toHaveLength(1);
      await db.toolApproval.update({ where: { id: request!.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expect((await outcome(client, { text: "friday" })).code).toBe(-32042);
      expect((await requestsOf(alice.id, "friday")).map((r) => r.state)).toEqual(["denied", "pending"]);
    } finally {
      await client.close();
    }
  });
});

describe("a client without URL elicitation", () => {
  it("gets -32032 saying where to ask, and succeeds on retry once approved", async () => {
    const client = await client2025(aliceToken, { url: false });
    try {
      const before = calls.count;
      const held = await outcome(client, { text: "plain" });
      const [request] = await requestsOf(alice.id, "plain");
      expect(held).toMatchObject({
        code: APPROVAL_REQUIRED_CODE,
        data: { state: "pending", url: pageOf(request!.id) },
      });
      expect(held.message).toContain(approvalPendingMessage(pageOf(request!.id)));
      await decide(request!.id, "approved");
      expect(await outcome(client, { text: "plain" })).toEqual({ text: "echo: plain" });
      expect(calls.count).toBe(before + 1);
    } finally {
      await client.close();
    }
  });
});

/** One raw 2026-07-28 tools/call POST. */
async function call2026(
  params: Record<string, unknown>,
  clientCapabilities: Record<string, unknown>,
  id = "1",
  name = TOOL,
) {
  const res = await fetch(new URL("/api/mcp", routeBase()), {
    method: "POST",
    headers: {
      authorization: `Bearer ${aliceToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V2026,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name,
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V2026,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": clientCapabilities,
        },
      },
    }),
  });
  return (await res.json()) as {
    result?: {
      resultType?: string;
      inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
      requestState?: string;
      content?: Array<{ text: string }>;
    };
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
}

describe("a 2026-07-28 client", () => {
  it("gets input_required carrying the URL elicitation; its retry waits until approved, then completes once", async () => {
    const caps = { elicitation: { url: {} } };
    const before = calls.count;
    const first = await call2026({ arguments: { text: "rev2026" } }, caps);
    expect(first.result?.resultType).toBe("input_required");
    const [request] = await requestsOf(alice.id, "rev2026");
    const [key, asked] = Object.entries(first.result!.inputRequests!)[0]!;
    expect(asked).toMatchObject({
      method: "elicitation/create",
      params: { mode: "url", url: pageOf(request!.id), message: approvalPendingMessage(pageOf(request!.id)) },
    });
    expect(typeof asked.params.elicitationId).toBe("string");
    const retry = {
      arguments: { text: "rev2026" },
      inputResponses: { [key]: { action: "accept" } },
      requestState: first.result!.requestState,
    };
    // Not approved yet: asked again, for the same request.
    const waiting = await call2026(retry, caps, "2");
    expect(waiting.result?.resultType).toBe("input_required");
    expect(Object.values(waiting.result!.inputRequests!)[0]!.params.url).toBe(pageOf(request!.id));
    expect(calls.count).toBe(before);

    await decide(request!.id, "approved");
    const done = await call2026(retry, caps, "3");
    expect(done.result?.content?.[0]?.text).toBe("echo: rev2026");
    expect(calls.count).toBe(before + 1);
    // The same retry again: the approval is spent.
    expect((await call2026(retry, caps, "4")).result?.resultType).toBe("input_required");
    expect(calls.count).toBe(before + 1);
  });

  it("keeps the answer to the approval's elicitation from a 2026-07-28 upstream, which gets the call as asked", async () => {
    const caps = { elicitation: { url: {} } };
    const first = await call2026({ arguments: { text: "upstream-2026" } }, caps, "m1", "rev2026-echo");
    expect(first.result?.resultType).toBe("input_required");
    const [request] = await requestsOf(alice.id, "upstream-2026");
    await decide(request!.id, "approved");
    const [key] = Object.keys(first.result!.inputRequests!);
    const before = rev2026.seen.length;
    const retry = {
      arguments: { text: "upstream-2026" },
      inputResponses: { [key!]: { action: "accept" } },
      requestState: first.result!.requestState,
    };
    expect((await call2026(retry, caps, "m2", "rev2026-echo")).result?.content?.[0]?.text).toBe("echo:upstream-2026");
    const sent = rev2026.seen.slice(before).filter((r) => r.method === "tools/call");
    expect(sent).toHaveLength(1);
    const params = (sent[0]!.body as { params: Record<string, unknown> }).params;
    expect(params).toMatchObject({ name: "echo", arguments: { text: "upstream-2026" } });
    expect(params.inputResponses).toBeUndefined();
    expect(params.requestState).toBeUndefined();
  });

  it("answers a client that declares no URL elicitation with -32032 and the page", async () => {
    const held = await call2026({ arguments: { text: "rev2026-plain" } }, { elicitation: {} });
    const [request] = await requestsOf(alice.id, "rev2026-plain");
    expect(held.error).toMatchObject({
      code: APPROVAL_REQUIRED_CODE,
      data: { state: "pending", url: pageOf(request!.id) },
    });
  });

  it("lets an SDK v2 client pinned to 2026-07-28 open the page through its handler and complete the call", async () => {
    const client = new ClientV2(
      { name: "v2-approvals", version: "1.0.0" },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: V2026 } } },
    );
    const opened: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { mode?: string; url?: string };
      expect(params.mode).toBe("url");
      opened.push(String(params.url));
      // The member opens the page; a second member approves it there.
      await decide(idOf(params.url), "approved");
      return { action: "accept" };
    });
    await client.connect(
      new TransportV2(new URL("/api/mcp", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${aliceToken}` } },
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V2026);
      const before = calls.count;
      expect(await client.callTool({ name: TOOL, arguments: { text: "sdk-v2" } })).toMatchObject({
        content: [{ type: "text", text: "echo: sdk-v2" }],
      });
      const [request] = await requestsOf(alice.id, "sdk-v2");
      expect(opened).toEqual([pageOf(request!.id)]);
      expect(request!.state).toBe("used");
      expect(calls.count).toBe(before + 1);
    } finally {
      await client.close();
    }
  });
});
