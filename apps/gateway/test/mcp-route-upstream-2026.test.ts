import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { Upstream2026 } from "@switchboard/testing/upstream-2026";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeBase, teardownRoute } from "./support/mcp";
import { startRouteWith } from "./support/route-team";
import { createUpstreamTransport, nodeFetch, UpstreamConnection } from "@switchboard/core/upstream";

/** The route in front of an upstream that speaks 2026-07-28 only, called by SDK 1.x clients (2025-11-25). */
let upstream: Upstream2026;
/** One that asks its client whatever it declared. */
let pushy: Upstream2026;
let token: string;
/** Another member of the team, with the same server installed: a requestState of Alice's is not Bob's to use. */
let bobToken: string;
let instanceId: string;
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await Upstream2026.start();
  pushy = await Upstream2026.start({ ignoreClientCapabilities: true });
  const route = await startRouteWith([
    { slug: "rev2026", name: "At 2026", url: upstream.url, forMember: true },
    { slug: "pushy", name: "Pushy", url: pushy.url },
  ]);
  ({ token, memberToken: bobToken } = route);
  instanceId = route.installed.rev2026!.instances[0]!;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await teardownRoute();
  await upstream?.stop();
  await pushy?.stop();
  await disconnectDb();
});

async function connect(onElicit?: (message: string) => { action: "accept" | "decline"; content?: object }) {
  const transport = new StreamableHTTPClientTransport(new URL("/api/mcp/servers/rev2026", routeBase()), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: "sdk1-client", version: "1.0.0" },
    { capabilities: onElicit ? { elicitation: {} } : {} },
  );
  if (onElicit)
    client.setRequestHandler(ElicitRequestSchema, async (request) => onElicit(request.params.message) as never);
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: Record<string, unknown>) =>
  (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("");

/** The latest subscriptions/listen the upstream received (what its open stream carries). */
function lastListen() {
  return upstream.seen.filter((r) => r.method === "subscriptions/listen").at(-1);
}

describe("a 2026-07-28 upstream behind the route", () => {
  it("is discovered over server/discover and stored as speaking 2026-07-28", async () => {
    const row = await getDb().instance.findUniqueOrThrow({ where: { id: instanceId } });
    expect(row.protocolVersion).toBe("2026-07-28");
    expect(upstream.methods).not.toContain("initialize");
  });

  // On /api/mcp/servers/{slug} the tools keep their upstream names.
  it("lists and calls its tools for an SDK 1.x client, statelessly, with the required headers", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["echo", "add", "work", "confirm"]);
    const before = upstream.seen.length;
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("echo:hi");
    const calls = upstream.seen.slice(before).filter((r) => r.method === "tools/call");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers).toMatchObject({
      "mcp-method": "tools/call",
      "mcp-name": "echo",
      "mcp-protocol-version": "2026-07-28",
    });
    expect(calls[0]?.headers["mcp-session-id"]).toBeUndefined();
    expect(upstream.methods).not.toContain("initialize");
  });

  it("relays a call's progress and log line from the upstream to the calling 1.x client", async () => {
    const client = await connect();
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    const progress: number[] = [];
    const result = await client.callTool({ name: "work", arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(textOf(result)).toBe("done");
    expect(progress).toEqual([1, 2]);
    expect(logs).toEqual(["working"]);
  });

  it("turns the upstream's input_required into an elicitation of the 1.x client, and retries with its answer", async () => {
    const asked: string[] = [];
    const client = await connect((message) => {
      asked.push(message);
      return { action: "accept", content: { confirm: true } };
    });
    const before = upstream.seen.length;
    expect(textOf(await client.callTool({ name: "confirm", arguments: { text: "deploy" } }))).toBe("confirmed:deploy");
    expect(asked).toEqual(["Confirm deploy?"]);
    // Two rounds on the upstream: the first answered input_required, the retry carried the answer.
    const rounds = upstream.seen.slice(before).filter((r) => r.method === "tools/call");
    expect(rounds).toHaveLength(2);
    expect(JSON.stringify(rounds[1]?.body)).toContain("inputResponses");

    const declining = await connect(() => ({ action: "decline" }));
    expect(textOf(await declining.callTool({ name: "confirm", arguments: { text: "x" } }))).toBe("declined");
  });
});

/**
 * A reopened listen stream replaces the old one: the upstream sees the old one close when its socket does, within
 * tens of milliseconds (a few hundred with both cores busy); the deadline leaves room for a loaded CI machine. A
 * stream that outlives this was the fixture missing its client's disconnect (see `upstream-2026-fixture.test.ts`).
 */
const LISTEN_SETTLES = { timeout: 10_000 };

describe("a 2026-07-28 upstream's notifications, which arrive only on a subscriptions/listen stream", () => {
  it("reach a 1.x client subscribed to the resource: resources/subscribe becomes the stream's subscription", async () => {
    const client = await connect();
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    await client.subscribeResource({ uri: "status://now" });
    try {
      // The route's pool listens for list changes from the first connect: the subscription reopens that one stream.
      const listens = upstream.seen.filter((r) => r.method === "subscriptions/listen");
      expect(listens.at(-1)?.body).toMatchObject({
        params: { notifications: { resourceSubscriptions: ["status://now"] } },
      });
      expect(upstream.methods).not.toContain("resources/subscribe");
      upstream.updateResource("status://now");
      upstream.updateResource("status://other");
      await expect.poll(() => updates).toEqual(["status://now"]);
      await expect.poll(() => upstream.openListens, LISTEN_SETTLES).toBe(1);
      // The last subscriber leaves: the upstream's stream no longer carries the URI (it stays open for the pool's
      // list changes, the only stream of the connection).
      await client.unsubscribeResource({ uri: "status://now" });
      await expect.poll(() => JSON.stringify(lastListen()?.body)).not.toContain("status://now");
      await expect.poll(() => upstream.openListens, LISTEN_SETTLES).toBe(1);
    } finally {
      // Once more if an assertion above failed first: the URI left on the pool's stream would fail the next test too.
      await client.unsubscribeResource({ uri: "status://now" }).catch(() => {});
    }
  });

  it("reach a 2026-07-28 client on the route's subscriptions/listen", async () => {
    const client = new ClientV2({ name: "v2-listen", version: "1.0.0" }, { versionNegotiation: { mode: { pin: V } } });
    const updates: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (n) => void updates.push(n.params.uri));
    await client.connect(
      new TransportV2(new URL("/api/mcp/servers/rev2026", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const subscription = await client.listen({ resourceSubscriptions: ["status://now"] });
      expect(subscription.honoredFilter.resourceSubscriptions).toEqual(["status://now"]);
      upstream.updateResource("status://now");
      await expect.poll(() => updates).toEqual(["status://now"]);
      await subscription.close();
      // The route's pool still listens for list changes on the one stream, without the URI.
      await expect.poll(() => JSON.stringify(lastListen()?.body)).not.toContain("status://now");
      await expect.poll(() => upstream.openListens, LISTEN_SETTLES).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("reach the connection's list-changed listeners, and the stream is opened again after it drops", async () => {
    const connection = new UpstreamConnection({
      instanceId: "listening",
      connector: () =>
        createUpstreamTransport({ transport: "streamable_http", url: upstream.url, headers: {} }, { fetch: nodeFetch }),
    });
    const kinds: string[] = [];
    try {
      await connection.ping();
      // The route's pool keeps its own listen stream open on the upstream (see the test above).
      const openBefore = upstream.openListens;
      const off = connection.onListChanged((kind) => void kinds.push(kind));
      await expect.poll(() => upstream.methods.filter((m) => m === "subscriptions/listen").length).toBeGreaterThan(0);
      const listensBefore = upstream.methods.filter((m) => m === "subscriptions/listen").length;
      // The listen stream is registered on the upstream before the change is published.
      await expect.poll(() => upstream.openListens, LISTEN_SETTLES).toBeGreaterThan(openBefore);
      upstream.setTools(["echo", "add", "extra"]);
      await expect.poll(() => kinds).toEqual(["tools"]);
      expect(await connection.listTools()).toMatchObject({
        tools: expect.arrayContaining([expect.objectContaining({ name: "extra" })]),
      });
      // The upstream ends every open stream (as on a restart): the connection listens again and hears the next change.
      upstream.dropConnections();
      await expect
        .poll(() => upstream.methods.filter((m) => m === "subscriptions/listen").length, { timeout: 5_000 })
        .toBeGreaterThan(listensBefore);
      // Changes until one is heard: the new stream registers on the upstream a moment after its request arrives.
      await expect
        .poll(
          () => {
            upstream.setTools(kinds.length % 2 ? ["echo", "add"] : ["echo"]);
            return kinds.length;
          },
          { timeout: 5_000, interval: 100 },
        )
        .toBeGreaterThan(1);
      off();
    } finally {
      upstream.setTools(["echo", "add"]);
      await connection.close();
    }
  });
});

describe("the upstream connection to a 2026-07-28 upstream, for a caller that speaks 2026-07-28 itself", () => {
  it("hands input_required back untouched when asked, and the caller's retry with requestState completes", async () => {
    const connection = new UpstreamConnection({
      instanceId: "direct",
      connector: () =>
        createUpstreamTransport({ transport: "streamable_http", url: upstream.url, headers: {} }, { fetch: nodeFetch }),
      capabilities: { elicitation: {} },
      onServerRequest: async () => {
        throw new Error("not relayed: the caller answers input_required itself");
      },
    });
    try {
      const first = (await connection.callTool(
        { name: "confirm", arguments: { text: "ship" } },
        { passInputRequired: true },
      )) as Record<string, unknown>;
      expect(connection.getProtocolVersion()).toBe("2026-07-28");
      expect(first.resultType).toBe("input_required");
      expect(first.inputRequests).toMatchObject({
        confirm: { method: "elicitation/create", params: { message: "Confirm ship?" } },
      });
      const retry = await connection.callTool(
        {
          name: "confirm",
          arguments: { text: "ship" },
          inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
          ...(typeof first.requestState === "string" ? { requestState: first.requestState } : {}),
        },
        { passInputRequired: true },
      );
      expect(textOf(retry)).toBe("confirmed:ship");
    } finally {
      await connection.close();
    }
  });
});

const V = "2026-07-28";

/** One 2026-07-28 tools/call POST to the route, as a client that can answer elicitations sends it (by default). */
async function call2026(
  params: Record<string, unknown>,
  id: string,
  bearer = token,
  clientCapabilities: Record<string, unknown> = { elicitation: {} },
  server = "rev2026",
) {
  const res = await fetch(new URL(`/api/mcp/servers/${server}`, routeBase()), {
    method: "POST",
    headers: {
      authorization: `Bearer ${bearer}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": "tools/call",
      "mcp-name": String(params.name),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": clientCapabilities,
        },
      },
    }),
  });
  const body = (await res.json()) as {
    id: string;
    result: { resultType?: string; inputRequests: Record<string, unknown>; requestState?: unknown; content?: unknown };
    error?: { code: number };
  };
  return { status: res.status, body };
}

describe("a 2026-07-28 upstream's input_required, for a 2026-07-28 client of the route", () => {
  it("passes to the client as it came, under a requestState of ours that only this member's retry may use", async () => {
    const before = upstream.seen.length;
    const call = { name: "confirm", arguments: { text: "launch" } };
    const first = await call2026(call, "c1");
    expect(first.status).toBe(200);
    expect(first.body.id).toBe("c1");
    // The upstream's own key and request, not one of ours; no content the upstream did not send.
    expect(first.body.result).toMatchObject({
      resultType: "input_required",
      inputRequests: { confirm: { method: "elicitation/create", params: { message: "Confirm launch?" } } },
    });
    expect(Object.keys(first.body.result.inputRequests)).toEqual(["confirm"]);
    expect(first.body.result.content).toBeUndefined();
    const state = first.body.result.requestState as string;
    expect(typeof state).toBe("string");

    const answer = { confirm: { action: "accept", content: { confirm: true } } };
    const tampered = await call2026({ ...call, inputResponses: answer, requestState: `${state.slice(0, -2)}xx` }, "c2");
    expect(tampered).toMatchObject({ status: 400, body: { id: "c2", error: { code: -32602 } } });
    const bobs = await call2026({ ...call, inputResponses: answer, requestState: state }, "c3", bobToken);
    expect(bobs).toMatchObject({ status: 400, body: { id: "c3", error: { code: -32602 } } });
    const elsewhere = await call2026(
      { name: "echo", arguments: {}, inputResponses: answer, requestState: state },
      "c4",
    );
    expect(elsewhere).toMatchObject({ status: 400, body: { id: "c4", error: { code: -32602 } } });
    // None of the refused retries reached the upstream.
    expect(upstream.seen.slice(before).filter((r) => r.method === "tools/call")).toHaveLength(1);

    const done = await call2026({ ...call, inputResponses: answer, requestState: state }, "c5");
    expect(done.body).toMatchObject({
      id: "c5",
      result: { resultType: "complete", content: [{ type: "text", text: "confirmed:launch" }] },
    });
    const rounds = upstream.seen.slice(before).filter((r) => r.method === "tools/call");
    expect(rounds).toHaveLength(2);
    const retried = (rounds[1]?.body as { params: Record<string, unknown> }).params;
    expect(retried.inputResponses).toEqual(answer);
    expect(retried.name).toBe("confirm");
  });

  it("never reaches a client that did not declare what it asks, even from a server that asks anyway", async () => {
    const before = pushy.seen.length;
    for (const [id, capabilities] of [
      ["n1", {}],
      ["n2", { sampling: {}, roots: {} }],
    ] as const) {
      const { status, body } = await call2026(
        { name: "confirm", arguments: { text: "x" } },
        id,
        token,
        capabilities,
        "pushy",
      );
      expect(status).toBe(200);
      expect(body.result?.resultType).not.toBe("input_required");
      expect(JSON.stringify(body)).not.toContain("inputRequests");
      expect(body.result).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "The client using this connection cannot answer elicitation/create" }],
      });
    }
    // The server did ask (it was told the client could answer): the route held it back.
    expect(pushy.seen.slice(before).filter((r) => r.method === "tools/call")).toHaveLength(2);
    // A client that declared elicitation still gets it.
    const { body } = await call2026({ name: "confirm", arguments: { text: "x" } }, "n3", token, undefined, "pushy");
    expect(body.result).toMatchObject({ resultType: "input_required" });
  });

  it("lets an SDK v2 client pinned to 2026-07-28 answer it through its own handler", async () => {
    const client = new ClientV2(
      { name: "v2-rev2026", version: "1.0.0" },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: V } } },
    );
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String(request.params.message));
      return { action: "accept", content: { confirm: true } };
    });
    await client.connect(
      new TransportV2(new URL("/api/mcp/servers/rev2026", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V);
      expect(await client.callTool({ name: "confirm", arguments: { text: "v2" } })).toMatchObject({
        content: [{ type: "text", text: "confirmed:v2" }],
      });
      expect(asked).toEqual(["Confirm v2?"]);
    } finally {
      await client.close();
    }
  });
});
