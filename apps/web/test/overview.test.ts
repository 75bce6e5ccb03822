import { afterAll, describe, expect, it } from "vitest";
import { JOB_NAMES } from "@switchboard/core/contracts";
import { disconnectDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { queuedJobs, teamWithInstances } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const setup = teamWithInstances;

describe("team overview", () => {
  it("counts instances by status and lists who has to act, most urgent first, in words for the reader", async () => {
    const { admin, member, team, installation, adminsInstance, membersInstance, db } = await setup();
    await db.instance.update({ where: { id: adminsInstance.id }, data: { status: "permanently_failed" } });
    await db.instance.update({ where: { id: membersInstance.id }, data: { status: "awaiting_user_config" } });

    const seen = await admin.caller.instance.overview({ teamId: team.id });
    expect(seen.totals).toEqual({ permanently_failed: 1, awaiting_user_config: 1 });
    expect(seen.attention.map((a) => a.status)).toEqual(["permanently_failed", "awaiting_user_config"]);
    const waiting = seen.attention[1]!;
    expect(waiting.label).toBe("Waiting for the member's settings");
    expect(waiting.nextStep).toBe(`${waiting.user.name} has to fill in their settings.`);
    expect(seen.servers).toEqual([
      expect.objectContaining({ id: installation.id, counts: { permanently_failed: 1, awaiting_user_config: 1 } }),
    ]);
    expect(seen.members).toHaveLength(2);
    expect(seen.stoppedCount).toBe(1);

    // A member sees their own instance only, addressed to them.
    const own = await member.caller.instance.overview({ teamId: team.id });
    expect(own.instanceCount).toBe(1);
    expect(own.members).toHaveLength(1);
    expect(own.attention).toEqual([
      expect.objectContaining({
        instanceId: membersInstance.id,
        label: "Needs your settings",
        nextStep: "Fill in your settings on My servers.",
      }),
    ]);
  });

  it("reconnects every failing instance and restarts every stopped one for an admin, saying how many, and refuses a member", async () => {
    const { admin, member, team, installation, adminsInstance, membersInstance, db } = await setup();
    await db.instance.update({ where: { id: adminsInstance.id }, data: { status: "error" } });
    await db.instance.update({ where: { id: membersInstance.id }, data: { status: "offline" } });

    await expect(member.caller.ops.reconnectFailing({ teamId: team.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await admin.caller.ops.reconnectFailing({ teamId: team.id })).toEqual({ count: 2 });
    const reconnects = await queuedJobs(JOB_NAMES.forceReconnect);
    expect(reconnects).toContainEqual({ instanceId: adminsInstance.id, requestedBy: admin.userId });
    expect(reconnects).toContainEqual({ instanceId: membersInstance.id, requestedBy: admin.userId });

    await db.instance.update({ where: { id: membersInstance.id }, data: { status: "permanently_failed" } });
    expect(await admin.caller.ops.restartStopped({ teamId: team.id, installationId: installation.id })).toEqual({
      count: 1,
    });
    expect(await queuedJobs(JOB_NAMES.restart)).toContainEqual({
      instanceId: membersInstance.id,
      requestedBy: admin.userId,
    });
    await expect(member.caller.ops.restartStopped({ teamId: team.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
