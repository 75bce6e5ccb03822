import { afterEach, describe, expect, it } from "vitest";
import { demoServer } from "./fixtures/demo-server";
import type { HttpFixture } from "./fixtures/http-fixture";
import { createHarness, type Harness } from "./fixtures/proxy-harness";
import { startStreamableHttpServer } from "./fixtures/streamable-http-server";
import { toolsOnlyServer } from "./fixtures/tools-only-server";

let harness: Harness;
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await harness?.close();
  await Promise.all(fixtures.splice(0).map((f) => f.stop()));
});

async function serve(createServer: Parameters<typeof startStreamableHttpServer>[0] = demoServer()) {
  const fixture = await startStreamableHttpServer(createServer);
  fixtures.push(fixture);
  return fixture;
}

const text = (result: unknown) => JSON.stringify((result as { content?: unknown }).content);

describe("recovery detection", () => {
  it("returns the result of a call to an offline instance, then moves it to connecting and re-discovers", async () => {
    harness = createHarness();
    await harness.install("alice", "a1", "demo", await serve());
    harness.app.get("a1").status = "offline";
    let release!: () => void;
    harness.app.gate = new Promise((resolve) => (release = resolve));
    const { client, proxy } = await harness.connectMember("alice");

    // The re-discovery is held open: the tool result must not wait for it.
    const result = await client.callTool({ name: "demo-echo", arguments: { text: "back?" } });
    expect(text(result)).toContain("echo: back?");
    expect(harness.app.get("a1").status).toBe("connecting");
    expect(proxy.recovery.isRecovering("a1")).toBe(true);

    release();
    await proxy.recovery.idle();
    expect(harness.app.get("a1").status).toBe("online");
    expect(harness.app.statusLog.map((s) => s.status)).toEqual(["connecting", "discovering_tools", "online"]);
    expect(harness.app.rediscoveries).toBe(1);
  });

  it("starts a single re-discovery when concurrent calls all detect recovery", async () => {
    harness = createHarness();
    await harness.install("alice", "a1", "demo", await serve());
    harness.app.get("a1").status = "error";
    let release!: () => void;
    harness.app.gate = new Promise((resolve) => (release = resolve));
    const { client, proxy } = await harness.connectMember("alice");
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => client.callTool({ name: "demo-echo", arguments: { text: `c${i}` } })),
    );
    expect(results.every((r) => r.isError !== true)).toBe(true);
    release();
    await proxy.recovery.idle();
    expect(harness.app.rediscoveries).toBe(1);
  });

  it("keeps the cached tools when re-discovery fails", async () => {
    harness = createHarness();
    const listing = { broken: false };
    await harness.install("alice", "a1", "half", await serve(toolsOnlyServer({ listing })));
    const cached = harness.app.get("a1").tools;
    expect(cached.map((t) => t.name)).toEqual(["only"]);
    harness.app.get("a1").status = "offline";
    listing.broken = true;
    const { client, proxy } = await harness.connectMember("alice");

    const result = await client.callTool({ name: "half-only", arguments: {} });
    expect(text(result)).toContain("only ok");
    await proxy.recovery.idle();
    expect(harness.app.rediscoveries).toBe(1);
    expect(harness.app.get("a1").status).toBe("error");
    expect(harness.app.get("a1").tools).toEqual(cached);
    // The instance is still reachable through its cached tools, and the next success tries again.
    listing.broken = false;
    await client.callTool({ name: "half-only", arguments: {} });
    await proxy.recovery.idle();
    expect(harness.app.get("a1").status).toBe("online");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["half-only"]);
  });

  it("does not detect recovery on calls to an online instance", async () => {
    harness = createHarness();
    await harness.install("alice", "a1", "demo", await serve());
    const { client, proxy } = await harness.connectMember("alice");
    await client.callTool({ name: "demo-echo", arguments: { text: "x" } });
    await proxy.recovery.idle();
    expect(harness.app.rediscoveries).toBe(0);
    expect(harness.app.statusLog).toEqual([]);
  });

  it("uses a server restarted mid-session again without restarting the engine", async () => {
    harness = createHarness();
    const up = await serve();
    await harness.install("alice", "a1", "demo", up);
    const { client } = await harness.connectMember("alice");
    await client.callTool({ name: "demo-echo", arguments: { text: "before" } });
    await up.restart();
    const result = await client.callTool({ name: "demo-echo", arguments: { text: "after" } });
    expect(text(result)).toContain("echo: after");
    // The kept-alive connection the restart cut is replaced and the forgotten session opened anew within the
    // first attempt: the call is logged as one.
    expect(harness.app.records.at(-1)).toMatchObject({ outcome: "success", attempts: 1 });
    expect(harness.app.statusLog).toEqual([]);
  });
});
