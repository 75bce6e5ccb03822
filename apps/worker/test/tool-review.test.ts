import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";
import { TestUpstream } from "@switchboard/testing/upstream";

const db = getDb();
let h: Harness;
let u: TestUpstream;

beforeAll(async () => {
  h = await createHarness("tool-review");
  u = await TestUpstream.start(["echo", "add"]);
});
afterAll(async () => {
  await h?.close();
  await u?.stop();
  await disconnectDb();
});

const discovered = async (instanceId: string, count: number) =>
  expect
    .poll(async () => (await listInstanceEvents(db, { instanceId, types: ["discovery_completed"] })).length, {
      timeout: 15_000,
    })
    .toBe(count);

describe("discovery on a pinned installation", () => {
  it("approves the first discovery's tools and puts a later new tool on the timeline as awaiting review", async () => {
    const { instance, installation } = await makeInstance(db, { url: u.url });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await discovered(instance.id, 1);
    const first = await db.installationItemSetting.findMany({
      where: { installationId: installation.id },
      orderBy: { name: "asc" },
    });
    expect(first.map((r) => [r.name, r.enabled, r.approvedHash === r.definitionHash])).toEqual([
      ["add", true, true],
      ["echo", true, true],
    ]);

    await db.installation.update({ where: { id: installation.id }, data: { pinTools: true } });
    u.tools = ["echo", "add", "exfiltrate"];
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "config_changed" });
    // Recorded right after discovery_completed, before the instance is online again.
    await expect
      .poll(
        async () =>
          (await listInstanceEvents(db, { instanceId: instance.id, types: ["tool_review_pending"] })).map(
            (e) => e.payload,
          ),
        { timeout: 15_000 },
      )
      .toEqual([{ tools: ["exfiltrate"] }]);
    await expect
      .poll(() => h.live.filter((e) => e.instanceId === instance.id && e.type === "tool_review_pending").length)
      .toBe(1);
    const row = await db.installationItemSetting.findUniqueOrThrow({
      where: { installationId_kind_name: { installationId: installation.id, kind: "tool", name: "exfiltrate" } },
    });
    expect(row.approvedHash).toBeNull();
  });
});
