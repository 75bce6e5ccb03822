import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type ClientCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { askingServers } from "@switchboard/core/testing/asking-server";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { startSseServer } from "@switchboard/core/testing/sse-server";
import type { HttpFixture } from "@switchboard/core/testing/http-fixture";
import { getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { makeAccessToken, makeTeamWithMember } from "@switchboard/db/testing";
import { afterAll, describe, expect, it } from "vitest";
import { redis } from "@switchboard/runtime/redis";
import { env } from "@switchboard/runtime/env";
import { redisChannels } from "@switchboard/core/contracts";
import { createLiveEvent } from "@switchboard/core/events";
import { discoverInto, installDiscovered, routeBase, routeForFile } from "./support/mcp";
import { startOtherRoute } from "./support/other-route";

/** What the route relays beyond tools, resources and prompts, with an upstream that asks its client things. */
const asking = askingServers();
let upstream: StreamableHttpFixture;
let sseUpstream: HttpFixture;

async function setup() {
  const db = getDb();
  // Alice owns the team, Bob is a member.
  const { owner: alice, member: bob, team } = await makeTeamWithMember(db);
  const { installation, instances } = await installDiscovered({
    teamId: team.id,
    slug: "asking",
    name: "Asking",
    url: upstream.url("/mcp"),
    userIds: [alice.id, bob.id],
  });
  // The same server over the legacy SSE transport, for Alice only.
  const sseTemplate = await seedTemplate(db, {
    teamId: team.id,
    slug: "asking-sse",
    name: "Asking over SSE",
    transport: "sse",
    url: sseUpstream.url("/sse"),
  });
  const sseInstallation = await seedInstallation(db, { template: sseTemplate });
  await db.instance.deleteMany({ where: { installationId: sseInstallation.id, userId: bob.id } });
  const sseInstance = await db.instance.findFirstOrThrow({
    where: { installationId: sseInstallation.id, userId: alice.id },
  });
  await discoverInto(sseInstance.id, "asking-sse", upstream.url("/mcp"));
  await db.instance.update({ where: { id: sseInstance.id }, data: { status: "online" } });
  const aliceToken = (await makeAccessToken(db, { userId: alice.id, teamId: team.id })).token;
  const bobToken = (await makeAccessToken(db, { userId: bob.id, teamId: team.id })).token;
  return {
    aliceToken,
    bobToken,
    installationId: installation.id,
    aliceInstance: instances[0]!,
    teamId: team.id,
    teamSlug: team.slug,
    aliceId: alice.id,
  };
}

const ctx = routeForFile({
  start: async () => [
    (upstream = await startStreamableHttpServer(asking.create)),
    (sseUpstream = await startSseServer(asking.create)),
  ],
  setup,
});

const clients: Client[] = [];

/** An SDK client on the route, with the given capabilities; handlers are set by the caller. */
async function connect(
  token: string,
  capabilities: ClientCapabilities = {},
  setHandlers?: (client: Client) => void,
  scope?: string,
) {
  const url = new URL(scope ? `/api/mcp/servers/${scope}` : "/api/mcp", routeBase());
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "protocol-test", version: "1.0.0" }, { capabilities });
  setHandlers?.(client);
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: Record<string, unknown>) =>
  (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("");

describe("server-to-client requests through the route", () => {
  it("relays an upstream's elicitation to the client that made the call and its answer back to the upstream", async () => {
    const asked: string[] = [];
    const client = await connect(ctx.aliceToken, { elicitation: {} }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return { action: "accept", content: { answer: "blue" } };
      }),
    );
    const result = await client.callTool({ name: "asking-ask", arguments: { question: "Favourite colour?" } });
    expect(textOf(result)).toBe('accept: {"answer":"blue"}');
    expect(asked).toEqual(["Favourite colour?"]);
  });

  it("relays sampling and roots requests to a client that declared them", async () => {
    const client = await connect(ctx.aliceToken, { sampling: {}, roots: { listChanged: true } }, (c) => {
      c.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
        model: "test-model",
        role: "assistant",
        content: { type: "text", text: `echo ${(request.params.messages[0]!.content as { text: string }).text}` },
      }));
      c.setRequestHandler(ListRootsRequestSchema, async () => ({
        roots: [{ uri: "file:///work/a", name: "a" }, { uri: "file:///work/b" }],
      }));
    });
    expect(textOf(await client.callTool({ name: "asking-sample", arguments: { prompt: "hi" } }))).toBe(
      "model test-model said: echo hi",
    );
    expect(textOf(await client.callTool({ name: "asking-roots", arguments: {} }))).toBe(
      "file:///work/a,file:///work/b",
    );
  });

  it("gives two members calling the same eliciting tool at once each only their own question", async () => {
    const seen = { alice: [] as string[], bob: [] as string[] };
    const member = (name: "alice" | "bob", token: string) =>
      connect(token, { elicitation: {} }, (c) =>
        c.setRequestHandler(ElicitRequestSchema, async (request) => {
          seen[name].push(request.params.message);
          return { action: "accept", content: { answer: `${name}'s answer` } };
        }),
      );
    const [alice, bob] = await Promise.all([member("alice", ctx.aliceToken), member("bob", ctx.bobToken)]);
    const [a, b] = await Promise.all([
      alice.callTool({ name: "asking-ask", arguments: { question: "question for alice" } }),
      bob.callTool({ name: "asking-ask", arguments: { question: "question for bob" } }),
    ]);
    expect(textOf(a)).toBe(`accept: {"answer":"alice's answer"}`);
    expect(textOf(b)).toBe(`accept: {"answer":"bob's answer"}`);
    expect(seen).toEqual({ alice: ["question for alice"], bob: ["question for bob"] });
  });

  it("keeps two sessions of one member apart: each session's call is asked on its own client", async () => {
    const seen: Record<string, string[]> = { first: [], second: [] };
    const session = (label: string) =>
      connect(ctx.aliceToken, { elicitation: {} }, (c) =>
        c.setRequestHandler(ElicitRequestSchema, async (request) => {
          seen[label]!.push(request.params.message);
          return { action: "decline" };
        }),
      );
    const [first, second] = await Promise.all([session("first"), session("second")]);
    await Promise.all([
      first.callTool({ name: "asking-ask", arguments: { question: "to first" } }),
      second.callTool({ name: "asking-ask", arguments: { question: "to second" } }),
    ]);
    expect(seen).toEqual({ first: ["to first"], second: ["to second"] });
  });

  it("answers the upstream with an error, not a hang, when the client cannot answer", async () => {
    const client = await connect(ctx.aliceToken);
    const result = await client.callTool({ name: "asking-ask", arguments: { question: "anyone?" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^failed: .*does not support .*elicitation/i);
    // A client with elicitation but no sampling is refused sampling, the same way.
    const partial = await connect(ctx.aliceToken, { elicitation: {} }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "cancel" })),
    );
    const sampled = await partial.callTool({ name: "asking-sample", arguments: { prompt: "hi" } });
    expect(sampled.isError).toBe(true);
    // The upstream asked anyway (its SDK does not check): the connection offers no sampling, so it answers -32601.
    expect(textOf(sampled)).toMatch(/^failed: .*(sampling|Method not found)/i);
  });

  it("passes URL-mode elicitation and -32042 (URL elicitation required) through untouched", async () => {
    const seen: unknown[] = [];
    const client = await connect(ctx.aliceToken, { elicitation: { form: {}, url: {} } }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, async (request) => {
        seen.push(request.params);
        return { action: "accept" };
      }),
    );
    expect(textOf(await client.callTool({ name: "asking-open_page", arguments: {} }))).toBe("url elicitation: accept");
    expect(seen).toEqual([
      {
        mode: "url",
        url: "https://auth.example.test/connect?state=s1",
        elicitationId: "el-1",
        message: "Connect your account",
      },
    ]);
    const error = (await client.callTool({ name: "asking-needs_url", arguments: {} }).catch((e: unknown) => e)) as {
      code?: number;
      message?: string;
      data?: unknown;
    };
    expect(error.code).toBe(-32042);
    expect(error.data).toEqual({
      elicitations: [
        { mode: "url", url: "https://auth.example.test/authorize", elicitationId: "el-2", message: "Authorize first" },
      ],
    });
    // Exactly what a client connected to the upstream directly gets (its SDK already prefixes the message on the wire).
    const direct = new Client(
      { name: "direct", version: "1.0.0" },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    await direct.connect(new StreamableHTTPClientTransport(new URL(upstream.url("/mcp"))));
    clients.push(direct);
    const directError = (await direct.callTool({ name: "needs_url", arguments: {} }).catch((e: unknown) => e)) as {
      code?: number;
      message?: string;
      data?: unknown;
    };
    expect({ code: error.code, message: error.message, data: error.data }).toEqual({
      code: directError.code,
      message: directError.message,
      data: directError.data,
    });
    // A client with form mode only is not offered URL mode upstream: the upstream's SDK refuses before asking.
    const formOnly = await connect(ctx.aliceToken, { elicitation: { form: {} } }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept" })),
    );
    const refused = await formOnly.callTool({ name: "asking-open_page", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/url elicitation/i);
  });

  it("answers the upstream with an error at once when the asking client has no stream open to receive the question", async () => {
    // A client that declared elicitation but reads JSON answers only and opened no GET stream.
    const post = async (body: unknown, session?: string) =>
      fetch(new URL("/api/mcp", routeBase()), {
        method: "POST",
        headers: {
          authorization: `Bearer ${ctx.aliceToken}`,
          "content-type": "application/json",
          accept: "application/json",
          ...(session ? { "mcp-session-id": session } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: {} },
        clientInfo: { name: "json-only", version: "1" },
      },
    });
    const session = init.headers.get("mcp-session-id")!;
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
    const answer = (await (
      await post(
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "asking-ask", arguments: { question: "q" } } },
        session,
      )
    ).json()) as { result: Record<string, unknown> };
    expect(answer.result.isError).toBe(true);
    expect(textOf(answer.result)).toMatch(/cannot be reached for elicitation\/create/);
  });

  it("relays the client's error answer to the upstream", async () => {
    const client = await connect(ctx.aliceToken, { sampling: {} }, (c) =>
      c.setRequestHandler(CreateMessageRequestSchema, async () => {
        throw new Error("the user refused to sample");
      }),
    );
    const result = await client.callTool({ name: "asking-sample", arguments: { prompt: "hi" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("the user refused to sample");
  });

  it("relays from an SSE upstream as from a Streamable HTTP one", async () => {
    const client = await connect(ctx.aliceToken, { elicitation: {}, sampling: {} }, (c) => {
      c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { answer: "over sse" } }));
      c.setRequestHandler(CreateMessageRequestSchema, async () => ({
        model: "m",
        role: "assistant",
        content: { type: "text", text: "sampled over sse" },
      }));
    });
    expect(textOf(await client.callTool({ name: "asking-sse-ask", arguments: { question: "q" } }))).toBe(
      'accept: {"answer":"over sse"}',
    );
    expect(textOf(await client.callTool({ name: "asking-sse-sample", arguments: { prompt: "p" } }))).toBe(
      "model m said: sampled over sse",
    );
  });

  it("cancels the question it relayed when the client cancels the call", async () => {
    let questionSignal: AbortSignal | undefined;
    let markAsked = () => {};
    const asked = new Promise<void>((resolve) => (markAsked = resolve));
    const client = await connect(ctx.aliceToken, { elicitation: {} }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
        questionSignal = extra.signal;
        markAsked();
        // A person who never answers.
        return new Promise(() => {});
      }),
    );
    const call = new AbortController();
    const pending = client.callTool({ name: "asking-ask", arguments: { question: "never answered" } }, undefined, {
      signal: call.signal,
    });
    await asked;
    call.abort("changed my mind");
    await expect(pending).rejects.toThrow();
    await expect.poll(() => questionSignal?.aborted).toBe(true);
  });

  it("cancels the question at the client when the upstream stops waiting for it", async () => {
    let questionSignal: AbortSignal | undefined;
    const client = await connect(ctx.aliceToken, { elicitation: {} }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
        questionSignal = extra.signal;
        return new Promise(() => {});
      }),
    );
    const result = await client.callTool({ name: "asking-ask_briefly", arguments: {} });
    expect(textOf(result)).toMatch(/^gave up: .*timed out/i);
    await expect.poll(() => questionSignal?.aborted).toBe(true);
  });

  it("completes a call held by one gateway process with the answer the client posted to another", async () => {
    const other = await startOtherRoute();
    const port = other.port;
    try {
      // A load balancer without sticky sessions: the client's answers (POSTs of JSON-RPC responses only) land on the other process.
      let answeredElsewhere = 0;
      const split: typeof fetch = async (input, init) => {
        if (init?.method === "POST" && typeof init.body === "string") {
          const body = JSON.parse(init.body) as Record<string, unknown>;
          if (!("method" in body) && "id" in body) {
            answeredElsewhere++;
            const url = new URL(String(input));
            url.host = `127.0.0.1:${port}`;
            return fetch(url, init);
          }
        }
        return fetch(input, init);
      };
      const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
        fetch: split,
        requestInit: { headers: { authorization: `Bearer ${ctx.aliceToken}` } },
      });
      const client = new Client({ name: "split", version: "1.0.0" }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, async () => ({
        action: "accept",
        content: { answer: "from afar" },
      }));
      await client.connect(transport);
      clients.push(client);
      const result = await client.callTool({ name: "asking-ask", arguments: { question: "where?" } });
      expect(textOf(result)).toBe('accept: {"answer":"from afar"}');
      expect(answeredElsewhere).toBe(1);
    } finally {
      await other.stop();
    }
  }, 60_000);

  it("works on the per-server route too, under the upstream's own names", async () => {
    const client = await connect(
      ctx.aliceToken,
      { elicitation: {} },
      (c) =>
        c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { answer: "scoped" } })),
      "asking",
    );
    expect(textOf(await client.callTool({ name: "ask", arguments: { question: "q" } }))).toBe(
      'accept: {"answer":"scoped"}',
    );
  });
});

describe("an instance that needs its member", () => {
  const setStatus = async (status: "online" | "requires_reauth" | "awaiting_user_config") => {
    const instance = await getDb().instance.update({
      where: { id: ctx.aliceInstance },
      data: { status },
      include: { installation: true },
    });
    const event = createLiveEvent(
      "status_changed",
      { teamId: ctx.teamId, installationId: instance.installationId, instanceId: instance.id, userId: ctx.aliceId },
      { from: "online", to: status } as never,
      new Date(),
    );
    await redis().publish(redisChannels.member(env().REDIS_PREFIX, ctx.aliceId), JSON.stringify(event));
    // Until the event arrives, the route may still serve its cached catalogue.
    const probe = await connect(ctx.aliceToken);
    await expect
      .poll(async () => (await probe.listTools()).tools.some((t) => t.name === "asking-ask"))
      .toBe(status === "online");
  };

  for (const status of ["requires_reauth", "awaiting_user_config"] as const) {
    it(`sends a client that supports URL elicitation to the page that fixes a ${status} instance, and others the readable message`, async () => {
      await setStatus(status);
      try {
        const capable = await connect(ctx.aliceToken, { elicitation: { form: {}, url: {} } }, (c) =>
          c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "cancel" })),
        );
        const error = await capable.callTool({ name: "asking-ask", arguments: { question: "q" } }).then(
          () => undefined,
          (e: unknown) =>
            e as { code?: number; data?: { elicitations?: Array<{ mode: string; url: string; message: string }> } },
        );
        expect(error?.code).toBe(-32042);
        const [elicitation] = error?.data?.elicitations ?? [];
        expect(elicitation?.mode).toBe("url");
        expect(elicitation?.url).toBe(
          new URL(`/t/${ctx.teamSlug}/my-servers#my-${ctx.aliceInstance}`, process.env.APP_URL).href,
        );
        expect(elicitation?.message).toMatch(
          status === "requires_reauth" ? /re-authenticate/ : /fill in your settings/,
        );

        const plain = await connect(ctx.aliceToken, { elicitation: {} }, (c) =>
          c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "cancel" })),
        );
        const result = await plain.callTool({ name: "asking-ask", arguments: { question: "q" } });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(status === "requires_reauth" ? /re-authenticate/ : /fill in your settings/);
      } finally {
        await setStatus("online");
      }
    });
  }
});

describe("completions, subscriptions, logging and results through the route", () => {
  it("routes completion/complete for a namespaced prompt to its upstream under the original name", async () => {
    const client = await connect(ctx.aliceToken);
    expect(client.getServerCapabilities()?.completions).toBeDefined();
    const result = await client.complete({
      ref: { type: "ref/prompt", name: "asking-greet" },
      argument: { name: "who", value: "al" },
    });
    expect(result.completion.values).toEqual(["greet:al"]);
    await expect(
      client.complete({ ref: { type: "ref/prompt", name: "nobody-greet" }, argument: { name: "who", value: "x" } }),
    ).rejects.toThrow(/Unknown prompt/);
  });

  it("sends resource updates under the namespaced URI to the subscribed session only, and again after the upstream forgot the session", async () => {
    const updates = { subscriber: [] as string[], other: [] as string[] };
    const listen = (label: "subscriber" | "other") => (c: Client) =>
      c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates[label].push(n.params.uri));
    const subscriber = await connect(ctx.aliceToken, {}, listen("subscriber"));
    const other = await connect(ctx.aliceToken, {}, listen("other"));
    expect(subscriber.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const before = asking.subscribers("test://watched");
    await subscriber.subscribeResource({ uri: "asking|test://watched" });
    expect(asking.subscribers("test://watched")).toBe(before + 1);
    await asking.sendUpdated("test://watched");
    await expect.poll(() => updates.subscriber).toEqual(["asking|test://watched"]);

    // The upstream restarts and forgets every session: the next request reconnects and subscribes again.
    upstream.forgetSessions();
    await other.callTool({ name: "asking-log", arguments: {} });
    await expect.poll(() => asking.subscribers("test://watched")).toBeGreaterThanOrEqual(1);
    // The new connection's notification stream may open a moment after its subscribe: an update sent before
    // that is lost upstream, so the upstream sends until one arrives (each send is a real update).
    await expect
      .poll(async () => {
        if (updates.subscriber.length < 2) await asking.sendUpdated("test://watched");
        return updates.subscriber.length;
      })
      .toBeGreaterThanOrEqual(2);
    expect(new Set(updates.subscriber)).toEqual(new Set(["asking|test://watched"]));
    expect(updates.other).toEqual([]);

    // The worker reports that the server restarted: the route drops its connection and subscribes on the new one.
    const old = asking.subscribedSessions("test://watched");
    const event = createLiveEvent(
      "server_restarted",
      { teamId: ctx.teamId, installationId: ctx.installationId, instanceId: ctx.aliceInstance, userId: ctx.aliceId },
      { reason: "recovery" },
      new Date(),
    );
    await redis().publish(redisChannels.member(env().REDIS_PREFIX, ctx.aliceId), JSON.stringify(event));
    await expect.poll(() => asking.subscribedSessions("test://watched").some((s) => !old.includes(s))).toBe(true);
    const seen = updates.subscriber.length;
    await expect
      .poll(async () => {
        if (updates.subscriber.length <= seen) await asking.sendUpdated("test://watched");
        return updates.subscriber.length;
      })
      .toBeGreaterThan(seen);
    expect(new Set(updates.subscriber)).toEqual(new Set(["asking|test://watched"]));

    // (The session the upstream forgot still counts there: the fixture keeps it until it stops.)
    const during = asking.subscribers("test://watched");
    await subscriber.unsubscribeResource({ uri: "asking|test://watched" });
    await expect.poll(() => asking.subscribers("test://watched")).toBe(during - 1);
  });

  it("applies logging/setLevel to the session that set it only", async () => {
    const logs = { quiet: [] as string[], chatty: [] as string[] };
    const listen = (label: "quiet" | "chatty") => (c: Client) =>
      c.setNotificationHandler(
        LoggingMessageNotificationSchema,
        (n) => void logs[label].push(`${n.params.level}:${String(n.params.data)}`),
      );
    const quiet = await connect(ctx.aliceToken, {}, listen("quiet"));
    const chatty = await connect(ctx.aliceToken, {}, listen("chatty"));
    await quiet.setLoggingLevel("error");
    await chatty.setLoggingLevel("debug");
    // One after the other: log lines of a shared connection reach every call of the member in progress on it.
    await quiet.callTool({ name: "asking-log", arguments: {} });
    await chatty.callTool({ name: "asking-log", arguments: {} });
    expect(logs.quiet).toEqual(["error:an error line"]);
    expect(logs.chatty).toEqual(["info:an info line", "error:an error line"]);
  });

  it("passes structuredContent, annotations and _meta through unchanged, and names resource links as the route lists resources", async () => {
    const client = await connect(ctx.aliceToken);
    const tool = (await client.listTools()).tools.find((t) => t.name === "asking-rich");
    expect(tool?.outputSchema).toMatchObject({ type: "object", properties: { n: { type: "number" } } });
    const result = await client.callTool({ name: "asking-rich", arguments: {} });
    expect(result).toMatchObject({
      content: [
        { type: "text", text: "rich", annotations: { audience: ["user"], priority: 0.5 } },
        // Read back through this route, a link names the resource as resources/list does.
        { type: "resource_link", uri: "asking|test://linked", name: "linked", title: "Linked", mimeType: "text/plain" },
      ],
      structuredContent: { n: 42 },
      _meta: { "example.com/trace": "abc" },
    });
  });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
});
