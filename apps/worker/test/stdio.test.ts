import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, jobIds, type Harness } from "./support/harness";
import { processesWith, serverProcesses } from "@switchboard/testing/processes";

const db = getDb();
let h: Harness;
const CRASHY = path.join(import.meta.dirname, "fixtures", "crashy-server.mjs");
/** On SDK v2: answers server/discover (2026-07-28) and the 2025 handshake alike. */
const SERVER_2026 = path.join(import.meta.dirname, "fixtures", "stdio-server-2026.mjs");
const EVERYTHING = path.resolve(import.meta.dirname, "../../../node_modules/.bin/mcp-server-everything");

beforeAll(async () => {
  h = await createHarness("stdio", { idleStopMs: 60_000 });
});
afterAll(async () => {
  await h?.close();
  await disconnectDb();
});

const statusOf = async (id: string) => (await db.instance.findUniqueOrThrow({ where: { id } })).status;

function crashy(marker: string, crashAfterMs: number) {
  return {
    stdio: { command: process.execPath, args: [CRASHY, marker] },
    fields: [{ key: "CRASH_AFTER_MS", tier: "team" as const, kind: "env" as const }],
    teamValues: { CRASH_AFTER_MS: { value: String(crashAfterMs) } },
  };
}

describe("stdio hosting", () => {
  it("runs mcp-server-everything over stdio in the worker and discovers its catalogue", async () => {
    const { instance } = await makeInstance(db, { stdio: { command: EVERYTHING, args: ["stdio"] } });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 30_000, interval: 200 }).toBe("online");
    const row = await db.instance.findUniqueOrThrow({
      where: { id: instance.id },
      include: { prompts: true, resources: true },
    });
    expect(row.toolCount).toBeGreaterThanOrEqual(10);
    expect(row.prompts.length).toBeGreaterThan(0);
    // On SDK 1.x, it refuses server/discover and is initialized.
    expect(row.protocolVersion).toBe("2025-11-25");
    expect(h.app.deps.connections.isConnected(instance.id)).toBe(true);
    await h.add(JOB_NAMES.installationRemoved, {
      installationId: instance.installationId,
      teamId: instance.teamId,
      instanceIds: [instance.id],
    });
    await expect.poll(() => h.app.deps.connections.isConnected(instance.id), { timeout: 10_000 }).toBe(false);
  });

  it("discovers a stdio server speaking 2026-07-28 over server/discover and stores its revision", async () => {
    const { instance } = await makeInstance(db, { stdio: { command: process.execPath, args: [SERVER_2026] } });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 30_000, interval: 200 }).toBe("online");
    const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(row).toMatchObject({ protocolVersion: "2026-07-28", toolCount: 2 });
    expect(row.serverInfo).toEqual({ name: "rev2026-stdio", version: "2.0.0" });
    // Removed again, so the idle sweep of a later test finds only its own instance.
    await h.add(JOB_NAMES.installationRemoved, {
      installationId: instance.installationId,
      teamId: instance.teamId,
      instanceIds: [instance.id],
    });
    await expect.poll(() => h.app.deps.connections.isConnected(instance.id), { timeout: 10_000 }).toBe(false);
  });

  it("stores and publishes a crash's stderr tail without the instance's secrets, even one the tail cut in half", async () => {
    const marker = `crashy-${randomBytes(4).toString("hex")}`;
    const key = `sk-live-${randomBytes(12).toString("hex")}`;
    const base = crashy(marker, 700);
    // The tail keeps the last 8 KiB: the key's first characters fall off, its last 12 stay at the start.
    const cut = `${key}${"x".repeat(8192 - 12)}`;
    const { instance } = await makeInstance(db, {
      ...base,
      fields: [
        ...base.fields,
        { key: "API_KEY", tier: "team", kind: "env", secret: true },
        { key: "CRASH_STDERR", tier: "team", kind: "env" },
      ],
      teamValues: { ...base.teamValues, API_KEY: { value: key, secret: true }, CRASH_STDERR: { value: cut } },
    });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect
      .poll(async () => (await listInstanceEvents(db, { instanceId: instance.id, types: ["server_crashed"] })).length, {
        timeout: 30_000,
        interval: 100,
      })
      .toBeGreaterThan(0);
    const [crash] = await listInstanceEvents(db, { instanceId: instance.id, types: ["server_crashed"] });
    const tail = (crash!.payload as { stderrTail: string }).stderrTail;
    expect(tail.startsWith("[redacted]xxxx")).toBe(true);
    expect(tail).not.toContain(key.slice(-12));
    const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(row.stderrTail?.startsWith("[redacted]xxxx")).toBe(true);
    const published = h.live.filter((e) => e.instanceId === instance.id && e.type === "server_crashed");
    expect(JSON.stringify(published)).not.toContain(key.slice(-12));
    await h.add(JOB_NAMES.installationRemoved, {
      installationId: instance.installationId,
      teamId: instance.teamId,
      instanceIds: [instance.id],
    });
  });

  it("restarts a crashed server and stops at permanently_failed after three crashes in five minutes, keeping the tools", async () => {
    const marker = `crashy-${randomBytes(4).toString("hex")}`;
    const { instance } = await makeInstance(db, crashy(marker, 700));
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 30_000, interval: 100 }).toBe("permanently_failed");

    // Discovery may see the supervisor refuse before the third crash's job has recorded it (processCrashed).
    const crashEvents = () => listInstanceEvents(db, { instanceId: instance.id, types: ["server_crashed"] });
    await expect.poll(async () => (await crashEvents()).length, { timeout: 10_000, interval: 100 }).toBe(3);
    const crashes = await crashEvents();
    expect(crashes.map((e) => (e.payload as { crashesInWindow: number }).crashesInWindow)).toEqual([1, 2, 3]);
    // The supervisor saw the real exit: the code the server exited with and what it wrote to stderr.
    for (const crash of crashes) {
      expect(crash.payload).toMatchObject({
        exitCode: 3,
        signal: null,
        stderrTail: expect.stringContaining("crashy: giving up after 700 ms"),
      });
    }
    expect(await h.eventTypes(instance.id)).toContain("server_permanently_failed");
    const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(row.crashHistory).toHaveLength(3);
    expect(row.stderrTail).toContain("crashy: giving up after 700 ms");
    expect(row.statusMessage).toMatch(/crashed 3 times in 5 minutes/);
    expect(row.toolCount).toBe(2);
    // No more restarts: no job, no schedule, no process.
    expect(await h.queue.getJob(jobIds.reconnect(instance.id))).toBeUndefined();
    expect(await h.queue.getJobScheduler(jobIds.healthScheduler(instance.id))).toBeUndefined();
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);

    // Only a restart leaves it: crash history cleared, provisioning again.
    await h.add(JOB_NAMES.restart, { instanceId: instance.id, requestedBy: "ops" });
    const failedCount = async () => (await h.statusesOf(instance.id)).filter((s) => s === "permanently_failed").length;
    await expect.poll(failedCount, { timeout: 30_000, interval: 100 }).toBe(2);
    const statuses = await h.statusesOf(instance.id);
    expect(
      statuses.slice(statuses.indexOf("permanently_failed") + 1, statuses.indexOf("permanently_failed") + 3),
    ).toEqual(["provisioning", "command_received"]);
    await h.add(JOB_NAMES.installationRemoved, {
      installationId: instance.installationId,
      teamId: instance.teamId,
      instanceIds: [instance.id],
    });
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
  });

  it("stops an idle stdio server without changing its status or tools, and starts it again on the next call", async () => {
    const marker = `idle-${randomBytes(4).toString("hex")}`;
    const { instance } = await makeInstance(db, crashy(marker, 0));
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 30_000, interval: 100 }).toBe("online");
    expect(serverProcesses(marker)).toHaveLength(1);

    // Three minutes later without a call (the sweep normally runs on a timer).
    // Other idle servers this file's worker still runs are stopped as well; this one must be among them.
    const stopped = await h.app.sweepIdle(Date.now() + 181_000);
    expect(stopped).toContain(instance.id);
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
    expect(await statusOf(instance.id)).toBe("online");
    expect((await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).toolCount).toBe(2);
    // An idle stop is not a crash.
    expect(await listInstanceEvents(db, { instanceId: instance.id, types: ["server_crashed"] })).toEqual([]);

    const connection = await h.app.deps.connections.get(instance.id);
    const result = await connection.callTool({ name: "calm", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "calm" }]);
    expect(serverProcesses(marker)).toHaveLength(1);
    await h.add(JOB_NAMES.installationRemoved, {
      installationId: instance.installationId,
      teamId: instance.teamId,
      instanceIds: [instance.id],
    });
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
  });
});
