import { afterAll, describe, expect, it } from "vitest";
import type { DiscoveryResult } from "@switchboard/core/discovery";
import { disconnectDb, getDb } from "../src/client";
import { countCatalogue, deleteCatalogue, replaceCatalogue } from "../src/queries/catalogue";
import { getInstanceRef, listInstanceRefsOfMember } from "../src/queries/instance";
import { listInstanceEvents } from "../src/queries/instance-events";
import { allocateSandboxUid, recordHealthCheck, transitionInstanceStatus } from "../src/queries/instance-lifecycle";
import { createInstance, getInstallationForProvisioning } from "../src/queries/installation";
import { makeInstallation, makeTeamWithMember } from "../src/testing/factories";

afterAll(() => disconnectDb());

async function installation() {
  const db = getDb();
  const { owner, member, team } = await makeTeamWithMember(db);
  const { installation: inst } = await makeInstallation(db, team);
  return { db, owner, member, team, installation: inst };
}

/** The member's instance of a fresh installation. */
async function memberInstance() {
  const { db, member, installation: inst } = await installation();
  const created = await createInstance(db, {
    installationId: inst.id,
    userId: member.id,
    status: "provisioning",
    at: new Date(),
  });
  return { db, instanceId: created!.id };
}

function discovery(tools: Array<{ name: string; description?: string }>): DiscoveryResult {
  return {
    slug: "demo",
    tools: tools.map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: { type: "object" } })),
    resources: [{ uri: "demo://a", name: "a" }],
    resourceTemplates: [{ uriTemplate: "demo://{x}", name: "x" }],
    prompts: [{ name: "p" }],
    tokens: { perTool: tools.map((t) => ({ name: t.name, tokens: 5 })), total: tools.length * 5 },
    longToolNames: [],
    capabilities: { tools: {} },
    serverInfo: { name: "demo", version: "1" },
    protocolVersion: "2025-06-18",
    instructions: null,
    discoveredAt: new Date().toISOString(),
    durationMs: 3,
  };
}

describe("instance queries", () => {
  it("creates one instance per member with a status_changed event from null, and only once", async () => {
    const { db, member, installation: inst } = await installation();
    const at = new Date();
    const created = await createInstance(db, {
      installationId: inst.id,
      userId: member.id,
      status: "provisioning",
      at,
    });
    expect(created).toMatchObject({ status: "provisioning", teamId: inst.teamId });
    expect(
      await createInstance(db, { installationId: inst.id, userId: member.id, status: "provisioning", at }),
    ).toBeNull();
    const events = await listInstanceEvents(db, { instanceId: created!.id });
    expect(events.map((e) => e.payload)).toEqual([{ from: null, to: "provisioning" }]);
    const loaded = await getInstallationForProvisioning(db, inst.id);
    expect(loaded?.team.memberships).toHaveLength(2);
    expect(await listInstanceRefsOfMember(db, { teamId: inst.teamId, userId: member.id })).toHaveLength(1);
  });

  it("writes legal transitions with their time and event, and refuses illegal ones", async () => {
    const { db, instanceId } = await memberInstance();
    const at = new Date("2030-01-01T00:00:00Z");
    const moved = await transitionInstanceStatus(db, { instanceId, to: "command_received", at });
    expect(moved).toMatchObject({ outcome: "changed", from: "provisioning", to: "command_received" });
    const row = await db.instance.findUniqueOrThrow({ where: { id: instanceId } });
    expect(row.statusChangedAt.toISOString()).toBe(at.toISOString());

    expect(await transitionInstanceStatus(db, { instanceId, to: "online", at })).toMatchObject({
      outcome: "illegal",
    });
    expect(await transitionInstanceStatus(db, { instanceId, to: "command_received", at })).toMatchObject({
      outcome: "unchanged",
    });
    expect(
      await transitionInstanceStatus(db, { instanceId, to: "connecting", at, onlyFrom: ["offline"] }),
    ).toMatchObject({ outcome: "illegal" });
    expect(await transitionInstanceStatus(db, { instanceId: "nope", to: "connecting", at })).toEqual({
      outcome: "missing",
    });
    expect((await getInstanceRef(db, instanceId))?.status).toBe("command_received");
  });

  it("writes a health check's result only over the failure count and flag that check read", async () => {
    const { db, instanceId } = await memberInstance();
    const healthy = { consecutiveFailures: 0, degraded: false };
    const failedOnce = { consecutiveFailures: 1, degraded: false };
    const at = new Date("2030-01-01T00:00:00Z");
    expect(await recordHealthCheck(db, { instanceId, ok: false, from: healthy, ...failedOnce, at })).toBe(true);
    // A second check that read the same healthy row: the row has moved on, nothing is written.
    const later = new Date("2030-01-01T00:00:01Z");
    expect(await recordHealthCheck(db, { instanceId, ok: false, from: healthy, ...failedOnce, at: later })).toBe(false);
    expect(await db.instance.findUniqueOrThrow({ where: { id: instanceId } })).toMatchObject({
      healthConsecutiveFailures: 1,
      healthDegraded: false,
      lastHealthCheckAt: at,
    });
    expect(await recordHealthCheck(db, { instanceId, ok: true, from: failedOnce, ...healthy, at: later })).toBe(true);
    expect(await db.instance.findUniqueOrThrow({ where: { id: instanceId } })).toMatchObject({
      healthConsecutiveFailures: 0,
      lastHealthyAt: later,
    });
  });

  it("replaces the whole catalogue in one go and reports which tools changed", async () => {
    const { db, instanceId: id } = await memberInstance();
    expect(await replaceCatalogue(db, id, discovery([{ name: "a" }, { name: "b" }]))).toEqual({
      added: ["a", "b"],
      removed: [],
      changed: [],
    });
    expect(await replaceCatalogue(db, id, discovery([{ name: "b", description: "new" }, { name: "c" }]))).toEqual({
      added: ["c"],
      removed: ["a"],
      changed: ["b"],
    });
    expect(await countCatalogue(db, id)).toEqual({ tools: 2, resources: 1, resourceTemplates: 1, prompts: 1 });
    const row = await db.instance.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ toolCount: 2, totalTokens: 10, protocolVersion: "2025-06-18" });

    await deleteCatalogue(db, [id]);
    expect(await countCatalogue(db, id)).toEqual({ tools: 0, resources: 0, resourceTemplates: 0, prompts: 0 });
  });

  it("reports no change when the same tools are discovered again, whatever order jsonb keeps their keys in", async () => {
    const { db, member, installation: inst } = await installation();
    const id = (await createInstance(db, {
      installationId: inst.id,
      userId: member.id,
      status: "provisioning",
      at: new Date(),
    }))!.id;
    // jsonb stores object keys shorter-first; a server sends them in its own order.
    const schema = {
      type: "object",
      properties: { message: { type: "string", description: "text" }, n: { type: "integer" } },
      required: ["message"],
      additionalProperties: false,
    };
    const result = discovery([{ name: "echo" }]);
    result.tools[0]!.inputSchema = schema as never;
    result.tools[0]!.outputSchema = {
      type: "object",
      properties: { zeta: { type: "string" }, a: { type: "number" } },
    } as never;
    expect((await replaceCatalogue(db, id, result)).added).toEqual(["echo"]);
    expect(await replaceCatalogue(db, id, structuredClone(result))).toEqual({ added: [], removed: [], changed: [] });
  });
});

describe("allocateSandboxUid", () => {
  /** The owner's and the member's instance of one installation. */
  async function twoInstances() {
    const { db, owner, member, installation: inst } = await installation();
    const [a, b] = await Promise.all(
      [owner, member].map((u) =>
        createInstance(db, { installationId: inst.id, userId: u.id, status: "provisioning", at: new Date() }),
      ),
    );
    return { db, a: a!, b: b! };
  }

  it("gives every instance a uid no other instance holds, keeps it, and picks again when one is taken", async () => {
    const { db, a, b } = await twoInstances();
    // A uid well away from other tests' (each run shares one database).
    const base = 900_000 + Math.floor(Math.random() * 90_000);
    const picks = [base, base, base, base + 1];
    const pick = () => picks.shift() ?? base + 2;

    expect(await allocateSandboxUid(db, a.id, pick)).toBe(base);
    // b draws the taken uid twice before a free one.
    expect(await allocateSandboxUid(db, b.id, pick)).toBe(base + 1);
    expect(picks).toEqual([]);
    // Kept: no new pick for an instance that has one.
    expect(await allocateSandboxUid(db, a.id, () => base + 50)).toBe(base);
    expect(await allocateSandboxUid(db, "no-such-instance", pick)).toBeNull();
  });

  it("hands two launches of one instance racing each other the same uid", async () => {
    const { db, a: instance } = await twoInstances();
    const base = 800_000 + Math.floor(Math.random() * 90_000);
    let next = base;
    const uids = await Promise.all(Array.from({ length: 5 }, () => allocateSandboxUid(db, instance.id, () => next++)));
    expect(new Set(uids).size).toBe(1);
    expect((await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).sandboxUid).toBe(uids[0]);
  });

  it("gives up with a readable error when every pick is taken", async () => {
    const { db, a, b } = await twoInstances();
    const taken = 700_000 + Math.floor(Math.random() * 90_000);
    await allocateSandboxUid(db, a.id, () => taken);
    await expect(allocateSandboxUid(db, b.id, () => taken, 3)).rejects.toThrow(/No free sandbox user/);
  });
});
