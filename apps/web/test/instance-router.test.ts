import { afterAll, describe, expect, it } from "vitest";
import { JOB_NAMES } from "@switchboard/core/contracts";
import { routerModeTokenCost } from "@switchboard/core/proxy";
import { countToolTokens } from "@switchboard/core/tokens";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { closeJobs } from "@switchboard/runtime/jobs";
import { queuedJobs, seedInstalled, strangerWithTeam, teamWithMember } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const MEMBER_KEY = "sk-member-personal-9876";

async function instanceOf(installationId: string, userId: string) {
  return getDb().instance.findFirstOrThrow({ where: { installationId, userId } });
}

describe("instance router", () => {
  it("shows admins every member's cell in the matrix, and a member only their own row", async () => {
    const { admin, member, team } = await teamWithMember();
    const { installation } = await seedInstalled(team.id, { [admin.userId]: { "X-Api-Key": "sk-admin-1234567" } });

    const full = await admin.caller.instance.matrix({ teamId: team.id });
    expect(full.installations.map((i) => i.id)).toEqual([installation.id]);
    expect(full.rows.map((r) => r.user.id).sort()).toEqual([admin.userId, member.userId].sort());
    const memberRow = full.rows.find((r) => r.user.id === member.userId)!;
    expect(memberRow.cells[installation.id]).toMatchObject({ status: "awaiting_user_config" });
    expect(full.rows.find((r) => r.user.id === admin.userId)!.cells[installation.id]).toMatchObject({
      status: "provisioning",
    });

    const own = await member.caller.instance.matrix({ teamId: team.id });
    expect(own.rows.map((r) => r.user.id)).toEqual([member.userId]);

    // A status filter keeps the members who have such an instance (rows, not blanked cells); search matches emails.
    const filtered = await admin.caller.instance.matrix({ teamId: team.id, statuses: ["awaiting_user_config"] });
    expect(filtered.rows.map((r) => r.user.id)).toEqual([member.userId]);
    const found = await admin.caller.instance.matrix({ teamId: team.id, search: member.email.toUpperCase() });
    expect(found.rows.map((r) => r.user.id)).toEqual([member.userId]);
  });

  it("saves a member's personal secret encrypted, answers it masked and asks the worker to apply it", async () => {
    const { member, team } = await teamWithMember();
    const { installation } = await seedInstalled(team.id);
    const instance = await instanceOf(installation.id, member.userId);

    const mine = await member.caller.instance.mine({ teamId: team.id });
    const before = mine.items.find((i) => i.id === instance.id)!;
    expect(before.status).toBe("awaiting_user_config");
    expect(before.fields.map((f) => [f.key, f.required, f.set])).toEqual([
      ["X-Api-Key", true, false],
      ["X-Label", false, false],
    ]);

    const saved = await member.caller.instance.saveMyValues({
      teamId: team.id,
      instanceId: instance.id,
      values: { "X-Api-Key": MEMBER_KEY, "X-Label": "laptop" },
    });
    expect(saved.fields.find((f) => f.key === "X-Api-Key")).toMatchObject({ set: true, masked: "••••••9876" });
    expect(JSON.stringify(saved)).not.toContain(MEMBER_KEY);
    const stored = await getDb().instanceConfigValue.findFirstOrThrow({
      where: { instanceId: instance.id, key: "X-Api-Key" },
    });
    expect(stored.encrypted).toBe(true);
    expect(getCipher().decrypt(stored.value)).toBe(MEMBER_KEY);
    expect(await queuedJobs(JOB_NAMES.configChanged)).toContainEqual({
      installationId: installation.id,
      userId: member.userId,
    });

    // Leaving the secret empty keeps it; clearing a plain value removes it.
    const again = await member.caller.instance.saveMyValues({
      teamId: team.id,
      instanceId: instance.id,
      values: { "X-Api-Key": "", "X-Label": "" },
    });
    expect(again.fields.map((f) => [f.key, f.set])).toEqual([
      ["X-Api-Key", true],
      ["X-Label", false],
    ]);
  });

  it("lets nobody save values on someone else's instance, not even an admin", async () => {
    const { admin, member, team } = await teamWithMember();
    const { installation } = await seedInstalled(team.id);
    const membersInstance = await instanceOf(installation.id, member.userId);
    await expect(
      admin.caller.instance.saveMyValues({
        teamId: team.id,
        instanceId: membersInstance.id,
        values: { "X-Api-Key": "x" },
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    const { stranger, team: otherTeam } = await strangerWithTeam();
    await expect(
      stranger.caller.instance.saveMyValues({ teamId: otherTeam.id, instanceId: membersInstance.id, values: {} }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("lists tools with namespaced names, token counts and an over-long name flag, with the schema on demand", async () => {
    const { admin, member, team } = await teamWithMember();
    const { installation } = await seedInstalled(team.id);
    const instance = await instanceOf(installation.id, member.userId);
    const long = "x".repeat(70);
    await getDb().instanceTool.createMany({
      data: [
        {
          instanceId: instance.id,
          name: "echo",
          description: "Echoes",
          inputSchema: { type: "object", properties: { message: { type: "string" } } },
          tokenCount: 42,
          position: 0,
        },
        { instanceId: instance.id, name: long, inputSchema: { type: "object" }, tokenCount: 8, position: 1 },
      ],
    });
    await getDb().instance.update({
      where: { id: instance.id },
      data: { status: "online", toolCount: 2, totalTokens: 50 },
    });

    const echoTokens = countToolTokens({
      name: "echo",
      description: "Echoes",
      inputSchema: { type: "object", properties: { message: { type: "string" } } },
    });
    const longTokens = countToolTokens({ name: long, description: "", inputSchema: { type: "object" } });
    const tools = await admin.caller.instance.tools({ teamId: team.id, instanceId: instance.id });
    // Counted with the one estimator, over what the installation serves, not the numbers stored at discovery.
    const all = { toolCount: 2, tokens: echoTokens + longTokens };
    expect(tools).toMatchObject({ served: all, offered: all });
    expect(tools.items.map((t) => [t.exposedName, t.tokenCount, t.nameTooLong, t.served])).toEqual([
      [`${installation.slug}-echo`, echoTokens, false, true],
      [`${installation.slug}-${long}`, longTokens, true, true],
    ]);
    const schema = await member.caller.instance.toolSchema({
      teamId: team.id,
      instanceId: instance.id,
      toolId: tools.items[0]!.id,
    });
    expect(schema.inputSchema).toEqual({ type: "object", properties: { message: { type: "string" } } });

    const page1 = await admin.caller.instance.tools({ teamId: team.id, instanceId: instance.id, limit: 1 });
    const page2 = await admin.caller.instance.tools({
      teamId: team.id,
      instanceId: instance.id,
      limit: 1,
      cursor: page1.nextCursor,
    });
    expect([...page1.items, ...page2.items].map((t) => t.name)).toEqual(["echo", long]);

    // The admin turns the long one off and renames echo: the tab follows what the installation serves.
    await admin.caller.governance.save({
      teamId: team.id,
      installationId: installation.id,
      tools: [
        { name: long, enabled: false },
        { name: "echo", exposedName: "say", exposedDescription: "Says it back" },
      ],
    });
    const sayTokens = countToolTokens({
      name: "say",
      description: "Says it back",
      inputSchema: { type: "object", properties: { message: { type: "string" } } },
    });
    const governed = await member.caller.instance.tools({ teamId: team.id, instanceId: instance.id });
    expect(governed).toMatchObject({
      served: { toolCount: 1, tokens: sayTokens },
      offered: { toolCount: 2, tokens: echoTokens + longTokens },
    });
    expect(governed.items.map((t) => [t.exposedName, t.description, t.tokenCount, t.served])).toEqual([
      [`${installation.slug}-say`, "Says it back", sayTokens, true],
      [`${installation.slug}-${long}`, "", longTokens, false],
    ]);
  });

  it("keeps a member out of a teammate's instance details while admins may look", async () => {
    const { admin, member, team } = await teamWithMember();
    const { installation } = await seedInstalled(team.id);
    const adminsInstance = await instanceOf(installation.id, admin.userId);
    await expect(
      member.caller.instance.events({ teamId: team.id, instanceId: adminsInstance.id }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      member.caller.instance.tools({ teamId: team.id, instanceId: adminsInstance.id }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    const membersInstance = await instanceOf(installation.id, member.userId);
    await expect(admin.caller.instance.get({ teamId: team.id, instanceId: membersInstance.id })).resolves.toMatchObject(
      { userId: member.userId },
    );
    const ofInstallation = await member.caller.instance.ofInstallation({
      teamId: team.id,
      installationId: installation.id,
    });
    expect(ofInstallation.items.map((i) => i.userId)).toEqual([member.userId]);
  });

  it("pages through an instance's events newest first", async () => {
    const { admin, team } = await teamWithMember();
    const { installation } = await seedInstalled(team.id, { [admin.userId]: { "X-Api-Key": "k" } });
    const instance = await instanceOf(installation.id, admin.userId);
    const t0 = Date.now();
    await getDb().instanceEvent.createMany({
      data: [
        {
          instanceId: instance.id,
          type: "server_disconnected",
          payload: { reason: "gone", wasIntentional: false },
          createdAt: new Date(t0),
        },
        {
          instanceId: instance.id,
          type: "server_reconnecting",
          payload: { attempt: 1, nextRetryMs: 1000 },
          createdAt: new Date(t0 + 1),
        },
        {
          instanceId: instance.id,
          type: "server_reconnected",
          payload: { attemptsTaken: 1, capabilities: {} },
          createdAt: new Date(t0 + 2),
        },
      ],
    });
    const first = await admin.caller.instance.events({ teamId: team.id, instanceId: instance.id, limit: 2 });
    expect(first.items.map((e) => e.type)).toEqual(["server_reconnected", "server_reconnecting"]);
    const rest = await admin.caller.instance.events({
      teamId: team.id,
      instanceId: instance.id,
      limit: 2,
      cursor: first.nextCursor,
    });
    expect(rest.items.map((e) => e.type)).toEqual(["server_disconnected"]);
  });

  it("totals what the member's clients see over online instances, after governance and their own hidden tools", async () => {
    const { admin, member, team } = await teamWithMember();
    const a = await seedInstalled(team.id, { [member.userId]: { "X-Api-Key": "k" } });
    const b = await seedInstalled(team.id, { [member.userId]: { "X-Api-Key": "k" } });
    const definition = (name: string) => ({
      name,
      description: `The ${name} tool`,
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
    });
    const names = ["search", "read", "delete", "export"];
    for (const [{ installation }, status] of [
      [a, "online"],
      [b, "offline"],
    ] as const) {
      const instance = await instanceOf(installation.id, member.userId);
      await getDb().instanceTool.createMany({
        data: names.map((name, position) => ({
          instanceId: instance.id,
          ...definition(name),
          tokenCount: countToolTokens(definition(name)),
          position,
        })),
      });
      // Discovery's stored totals: what the server offers.
      await getDb().instance.update({
        where: { id: instance.id },
        data: { status, toolCount: 4, totalTokens: 999 },
      });
    }
    await admin.caller.governance.save({
      teamId: team.id,
      installationId: a.installation.id,
      tools: [
        { name: "delete", enabled: false },
        { name: "search", exposedName: "find" },
      ],
    });
    await member.caller.governance.setHidden({
      teamId: team.id,
      installationId: a.installation.id,
      toolName: "export",
      hidden: true,
    });

    const seen = countToolTokens(definition("read")) + countToolTokens({ ...definition("search"), name: "find" });
    const cost = await member.caller.instance.myCost({ teamId: team.id });
    expect(cost.allTools).toEqual({ toolCount: 2, tokens: seen });
    expect(cost.routerMode).toEqual({ toolCount: 4, tokens: routerModeTokenCost() });
    expect(cost.servers.map((s) => [s.status, s.toolCount])).toEqual(
      expect.arrayContaining([
        ["online", 2],
        ["offline", 4],
      ]),
    );
    // The server cards and the My tools list say the same.
    const mine = await member.caller.instance.mine({ teamId: team.id, limit: 25 });
    const card = mine.items.find((i) => i.installation.id === a.installation.id)!;
    expect(card.clientTools).toEqual({ toolCount: 2, tokens: seen });
    const listed = await member.caller.governance.myTools({ teamId: team.id });
    const shown = listed
      .filter((s) => s.status === "online")
      .flatMap((s) => s.tools.filter((t) => !t.hidden))
      .map((t) => [t.exposedName, t.tokens]);
    expect(shown).toEqual([
      [`${a.installation.slug}-find`, countToolTokens({ ...definition("search"), name: "find" })],
      [`${a.installation.slug}-read`, countToolTokens(definition("read"))],
    ]);
  });
});
