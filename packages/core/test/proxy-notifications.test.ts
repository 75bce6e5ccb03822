import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { demoServer } from "./fixtures/demo-server";
import type { HttpFixture } from "./fixtures/http-fixture";
import { createHarness, type Harness } from "./fixtures/proxy-harness";
import { startStreamableHttpServer } from "./fixtures/streamable-http-server";

let harness: Harness;
let fixture: HttpFixture | undefined;
afterEach(async () => {
  await harness?.close();
  await fixture?.stop();
});

describe("proxy notifications", () => {
  it("forwards upstream progress and log messages of a call to the client that made it", async () => {
    harness = createHarness();
    fixture = await startStreamableHttpServer(demoServer());
    await harness.install("alice", "a1", "demo", fixture);
    const { client } = await harness.connectMember("alice");
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    const progress: { progress: number; total?: number }[] = [];

    const result = await client.callTool({ name: "demo-progress", arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push({ progress: p.progress, total: p.total }),
    });

    expect(result.content).toEqual([{ type: "text", text: "done 3" }]);
    expect(progress).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    await expect.poll(() => logs).toEqual(["step 1", "step 2", "step 3"]);
  });

  it("tells the connected client that the tool list changed when asked to", async () => {
    harness = createHarness();
    const { client, proxy } = await harness.connectMember("alice");
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    await proxy.notifyCatalogueChanged(["tools"]);
    await expect.poll(() => changed).toBe(1);
  });

  it("shows a newly online instance after the change notification", async () => {
    harness = createHarness();
    fixture = await startStreamableHttpServer(demoServer());
    await harness.install("alice", "a1", "demo", fixture);
    harness.app.get("a1").status = "connecting";
    const { client, proxy } = await harness.connectMember("alice");
    expect((await client.listTools()).tools).toEqual([]);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    harness.app.get("a1").status = "online";
    await proxy.notifyCatalogueChanged();
    await expect.poll(() => changed).toBe(1);
    expect((await client.listTools()).tools).toHaveLength(3);
  });
});
