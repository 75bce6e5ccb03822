import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverythingHttp, type EverythingHttp } from "./fixtures/everything";
import { createHarness, type Harness } from "./fixtures/proxy-harness";

describe("proxy in front of mcp-server-everything over Streamable HTTP", () => {
  let everything: EverythingHttp;
  let harness: Harness;
  beforeAll(async () => {
    everything = await startEverythingHttp();
    harness = createHarness();
    harness.targets.set("ev", { launch: { transport: "streamable_http", url: everything.url, headers: {} } });
    harness.app.add("alice", { instanceId: "ev", slug: "every-thing", name: "Everything" });
    await harness.app.discoverNow("ev");
  });
  afterAll(async () => {
    await harness?.close();
    await everything?.stop();
  });

  it("lists its tools, resources and prompts namespaced and forwards calls and reads", async () => {
    const { client } = await harness.connectMember("alice");
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.every((t) => t.name.startsWith("every-thing-"))).toBe(true);

    const echoed = await client.callTool({ name: "every-thing-echo", arguments: { message: "through the gateway" } });
    expect(JSON.stringify(echoed.content)).toContain("through the gateway");

    const { resources } = await client.listResources();
    const first = resources[0];
    expect(first?.uri.startsWith("every-thing|")).toBe(true);
    const read = await client.readResource({ uri: first?.uri ?? "" });
    expect(read.contents.length).toBeGreaterThan(0);

    const { prompts } = await client.listPrompts();
    expect(prompts.every((p) => p.name.startsWith("every-thing-"))).toBe(true);
  });
});
