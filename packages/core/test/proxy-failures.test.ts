import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { createProxyServer } from "../src/proxy";
import { markNotSent } from "../src/policies";
import { NO_WORKER_MESSAGE, WORKER_HANDOVER_MESSAGE } from "../src/status";
import { PermanentlyFailedError, WorkerHandoverError, WorkerUnavailableError } from "../src/stdio";
import { demoServer } from "./fixtures/demo-server";
import type { HttpFixture } from "./fixtures/http-fixture";
import { createHarness, type Harness } from "./fixtures/proxy-harness";
import { startStreamableHttpServer } from "./fixtures/streamable-http-server";

let harness: Harness;
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await harness?.close();
  await Promise.all(fixtures.splice(0).map((f) => f.stop()));
});

async function serve(counter?: { count: number }) {
  const fixture = await startStreamableHttpServer(demoServer({ calls: counter }));
  fixtures.push(fixture);
  return fixture;
}

const text = (result: unknown) => JSON.stringify((result as { content?: unknown }).content);

describe("blocked calls", () => {
  it("blocks a call to a requires_reauth instance, naming the server and pointing to the dashboard", async () => {
    harness = createHarness();
    const calls = { count: 0 };
    await harness.install("alice", "a1", "demo", await serve(calls));
    harness.app.get("a1").status = "requires_reauth";
    const { client } = await harness.connectMember("alice");
    const result = await client.callTool({ name: "demo-echo", arguments: { text: "x" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Server demo");
    expect(text(result)).toMatch(/re-authenticate/);
    expect(text(result)).toMatch(/dashboard/);
    expect(calls.count).toBe(0);
    expect(harness.app.records).toEqual([expect.objectContaining({ outcome: "blocked", attempts: 0 })]);
  });

  it("blocks a call to an instance awaiting the member's configuration", async () => {
    harness = createHarness();
    await harness.install("alice", "a1", "demo", await serve());
    harness.app.get("a1").status = "awaiting_user_config";
    const { client } = await harness.connectMember("alice");
    const result = await client.callTool({ name: "demo-echo", arguments: { text: "x" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Server demo.*configure|settings/);
    expect(text(result)).toMatch(/dashboard/);
    const read = await client.readResource({ uri: "ui://demo/demo/app.html" }).catch((e: unknown) => e);
    expect(String(read)).toMatch(/dashboard/);
  });
});

describe("failed calls", () => {
  it("marks the instance offline after the retries when the server is down", async () => {
    harness = createHarness();
    const up = await serve();
    await harness.install("alice", "a1", "demo", up);
    const { client } = await harness.connectMember("alice");
    await up.stop();
    const result = await client.callTool({ name: "demo-echo", arguments: { text: "x" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Server demo");
    expect(harness.app.get("a1").status).toBe("offline");
    expect(harness.app.records.at(-1)).toMatchObject({ outcome: "error", attempts: 3 });
  });

  it("marks the instance requires_reauth at once on a 401", async () => {
    harness = createHarness();
    const up = await serve();
    await harness.install("alice", "a1", "demo", up);
    await harness.pool.evict("a1"); // the next call opens a new session, which the server now refuses
    up.mode = "unauthorized";
    const { client } = await harness.connectMember("alice");
    const result = await client.callTool({ name: "demo-echo", arguments: { text: "x" } });
    expect(result.isError).toBe(true);
    expect(harness.app.statusLog.at(-1)).toMatchObject({ status: "requires_reauth" });
    expect(harness.app.records.at(-1)).toMatchObject({ outcome: "error", attempts: 1 });
  });

  it("times out a hung server and reports it offline", async () => {
    harness = createHarness({ requestTimeoutMs: 200 });
    const up = await serve();
    await harness.install("alice", "a1", "demo", up);
    up.mode = "hang";
    const { client } = await harness.connectMember("alice");
    const result = await client.callTool({ name: "demo-echo", arguments: { text: "x" } });
    expect(result.isError).toBe(true);
    expect(harness.app.statusLog.at(-1)?.classification).toMatchObject({ status: "offline", kind: "timeout" });
  });

  it("does not overwrite permanently_failed with error when the supervisor refuses to start the server", async () => {
    harness = createHarness();
    harness.targets.set("s1", {
      connector: async () => {
        throw new PermanentlyFailedError("s1");
      },
    });
    harness.app.add("alice", {
      instanceId: "s1",
      slug: "crashy",
      name: "Crashy",
      tools: [{ name: "t", inputSchema: { type: "object" } }],
    });
    harness.app.get("s1").status = "error"; // a stale status that still admits calls
    const { client } = await harness.connectMember("alice");
    const result = await client.callTool({ name: "crashy-t", arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Crashy crashed repeatedly/);
    expect(harness.app.statusLog).toEqual([]);
  });

  /** A call to alice's stdio server "Files", whose every connect fails with `error` (where the workers stand). */
  async function callWhileWorkers(error: () => Error) {
    harness = createHarness();
    let connects = 0;
    harness.targets.set("s1", {
      connector: async () => {
        connects++;
        throw error();
      },
    });
    harness.app.add("alice", {
      instanceId: "s1",
      slug: "files",
      name: "Files",
      tools: [{ name: "read", inputSchema: { type: "object" } }],
    });
    const { client } = await harness.connectMember("alice");
    const result = await client.callTool({ name: "files-read", arguments: {} });
    return { result, connects };
  }

  it("answers at once, in the route's one sentence, when no worker runs stdio servers, and reports no failure", async () => {
    const { result, connects } = await callWhileWorkers(() => new WorkerUnavailableError());
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: `Files: ${NO_WORKER_MESSAGE}` }] });
    expect(connects).toBe(1);
    // The status is the worker sweep's to write; a call-failed report would be applied late by the next worker.
    expect(harness.app.statusLog).toEqual([]);
    expect(harness.app.records.at(-1)).toMatchObject({ outcome: "error", attempts: 1 });
  });

  it("sends a call again on a fresh connection when the one it was given closed before it left", async () => {
    harness = createHarness();
    const calls = { count: 0 };
    await harness.install("alice", "a1", "demo", await serve(calls));
    const { client } = await harness.connectMember("alice");
    // The race a configuration change or a restarted process makes: the pool hands out its connection, and it is
    // evicted (closed) before the call goes out on it.
    const { pool } = harness;
    const get = pool.get.bind(pool);
    let raced = false;
    pool.get = async (instanceId) => {
      const connection = await get(instanceId);
      if (!raced) {
        raced = true;
        await pool.evict(instanceId);
      }
      return connection;
    };
    const result = await client.callTool({ name: "demo-echo", arguments: { text: "again" } });
    expect(raced).toBe(true);
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("again");
    expect(calls.count).toBe(1);
    expect(harness.app.records.at(-1)).toMatchObject({ outcome: "success", attempts: 2 });
    expect(harness.app.statusLog).toEqual([]);
  });

  it("retries a worker's handover, then answers its sentence and leaves the status to the workers", async () => {
    const { result, connects } = await callWhileWorkers(() => markNotSent(new WorkerHandoverError()));
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: `Files: ${WORKER_HANDOVER_MESSAGE}` }],
    });
    expect(connects).toBe(3);
    // The worker taking the instance over writes its status; one report per failed call took it down again.
    expect(harness.app.statusLog).toEqual([]);
    expect(harness.app.records.at(-1)).toMatchObject({ outcome: "error", attempts: 3 });
  });

  it("passes a JSON-RPC error through as is, without retrying or changing the status", async () => {
    harness = createHarness();
    await harness.install("alice", "a1", "demo", await serve());
    const { client } = await harness.connectMember("alice");
    const error = await client.getPrompt({ name: "demo-greet", arguments: {} }).catch((e: unknown) => e);
    expect(String(error)).toMatch(/-32602|Invalid/);
    expect(harness.app.statusLog).toEqual([]);
    expect(harness.app.records.at(-1)).toMatchObject({ kind: "prompt", outcome: "tool_error", attempts: 1 });
  });

  it("calls for two members go over two connections, each with its own headers", async () => {
    harness = createHarness();
    const up = await serve();
    await harness.install("alice", "a1", "demo", up, { authorization: "Bearer alice" });
    await harness.install("bob", "b1", "demo", up, { authorization: "Bearer bob" });
    const alice = await harness.connectMember("alice");
    const bob = await harness.connectMember("bob");
    await Promise.all([
      alice.client.callTool({ name: "demo-echo", arguments: { text: "a" } }),
      bob.client.callTool({ name: "demo-echo", arguments: { text: "b" } }),
    ]);
    const sessionsOf = (auth: string) =>
      new Set(
        up.requests
          .filter((r) => r.headers.authorization === auth)
          .map((r) => r.headers["mcp-session-id"])
          .filter(Boolean),
      );
    const a = sessionsOf("Bearer alice");
    const b = sessionsOf("Bearer bob");
    expect(a.size).toBe(1);
    expect(b.size).toBe(1);
    expect([...a][0]).not.toBe([...b][0]);
    expect(
      up.requests.every((r) => r.headers.authorization === "Bearer alice" || r.headers.authorization === "Bearer bob"),
    ).toBe(true);
  });
});

describe("a catalogue that cannot be read", () => {
  it("answers lists and calls with a generic error and hands the store's own error to the host", async () => {
    const reported: unknown[] = [];
    const storeError = new Error('invalid byte sequence for encoding "UTF8": 0x00 (relation "Instance")');
    const proxy = createProxyServer({
      member: { userId: "alice" },
      catalogue: { list: async () => Promise.reject(storeError) },
      upstreams: { get: async () => Promise.reject(new Error("not reached")) },
      status: { recoveryDetected: () => {}, callFailed: () => {} },
      rediscovery: { request: async () => {} },
      calls: { record: () => {} },
      onCatalogueError: (error) => reported.push(error),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await proxy.server.connect(serverSide);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(clientSide);
    try {
      for (const attempt of [() => client.listTools(), () => client.callTool({ name: "demo-echo", arguments: {} })]) {
        const error = String(await attempt().catch((e: unknown) => e));
        expect(error).toMatch(/could not be loaded right now/);
        expect(error).not.toMatch(/byte sequence|relation/);
      }
      expect(reported).toEqual([storeError, storeError]);
    } finally {
      await client.close();
    }
  });
});
