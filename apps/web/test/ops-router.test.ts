import { afterAll, describe, expect, it } from "vitest";
import { createLiveEvent, type LiveEvent } from "@switchboard/core/events";
import { JOB_NAMES, redisChannels } from "@switchboard/core/contracts";
import { disconnectDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { liveEventsReady } from "@switchboard/runtime/live-events";
import { redis } from "@switchboard/runtime/redis";
import { env } from "@switchboard/runtime/env";
import { waitUntil } from "@switchboard/testing/wait";
import { queuedJobs, strangerWithTeam, teamWithInstances } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const setup = teamWithInstances;

function publish(event: LiveEvent) {
  return redis().publish(redisChannels.team(env().REDIS_PREFIX, event.teamId), JSON.stringify(event));
}

/** A server-side caller yields tracked() events as [id, data] tuples; the typed shape says { id, data }. */
function trackedData(value: unknown): unknown {
  return Array.isArray(value) ? value[1] : (value as { data?: unknown })?.data;
}

describe("ops router", () => {
  it("lets a member reconnect their own instance and an admin any, queued for the worker", async () => {
    const { admin, member, team, adminsInstance, membersInstance, db } = await setup();
    await db.instance.updateMany({
      where: { id: { in: [adminsInstance.id, membersInstance.id] } },
      data: { status: "offline" },
    });

    // The answer is the status the job starts from: the console reads the job's outcome against it.
    const before = await db.instance.findUniqueOrThrow({ where: { id: membersInstance.id } });
    expect(await member.caller.ops.reconnect({ teamId: team.id, instanceId: membersInstance.id })).toEqual({
      queued: true,
      status: "offline",
      statusChangedAt: before.statusChangedAt,
    });
    await expect(member.caller.ops.reconnect({ teamId: team.id, instanceId: adminsInstance.id })).rejects.toMatchObject(
      { code: "FORBIDDEN" },
    );
    await admin.caller.ops.reconnect({ teamId: team.id, instanceId: membersInstance.id });
    const jobs = await queuedJobs(JOB_NAMES.forceReconnect);
    expect(jobs).toContainEqual({ instanceId: membersInstance.id, requestedBy: member.userId });
    expect(jobs).toContainEqual({ instanceId: membersInstance.id, requestedBy: admin.userId });

    const { stranger, team: otherTeam } = await strangerWithTeam();
    await expect(
      stranger.caller.ops.reconnect({ teamId: otherTeam.id, instanceId: membersInstance.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses to reconnect an instance waiting for its settings, and restarts only a permanently failed one", async () => {
    const { admin, team, adminsInstance, db } = await setup();
    await db.instance.update({ where: { id: adminsInstance.id }, data: { status: "awaiting_user_config" } });
    await expect(admin.caller.ops.reconnect({ teamId: team.id, instanceId: adminsInstance.id })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await expect(admin.caller.ops.restart({ teamId: team.id, instanceId: adminsInstance.id })).rejects.toMatchObject({
      code: "CONFLICT",
    });

    const stoppedAt = new Date("2026-01-02T03:04:05Z");
    await db.instance.update({
      where: { id: adminsInstance.id },
      data: { status: "permanently_failed", statusChangedAt: stoppedAt },
    });
    expect(await admin.caller.ops.restart({ teamId: team.id, instanceId: adminsInstance.id })).toEqual({
      queued: true,
      status: "permanently_failed",
      statusChangedAt: stoppedAt,
    });
    expect(await queuedJobs(JOB_NAMES.restart)).toContainEqual({
      instanceId: adminsInstance.id,
      requestedBy: admin.userId,
    });
  });

  it("does not let a member's reconnect revive a permanently failed instance: only an admin's restart does", async () => {
    const { admin, member, team, membersInstance, db } = await setup();
    await db.instance.update({ where: { id: membersInstance.id }, data: { status: "permanently_failed" } });

    await expect(
      member.caller.ops.reconnect({ teamId: team.id, instanceId: membersInstance.id }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: "This server crashed repeatedly and was stopped. An admin must restart it.",
    });
    await expect(admin.caller.ops.reconnect({ teamId: team.id, instanceId: membersInstance.id })).rejects.toMatchObject(
      { code: "CONFLICT" },
    );
    await expect(member.caller.ops.restart({ teamId: team.id, instanceId: membersInstance.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const reconnects = await queuedJobs(JOB_NAMES.forceReconnect);
    expect(reconnects.filter((j) => (j as { instanceId: string }).instanceId === membersInstance.id)).toEqual([]);
    expect(await queuedJobs(JOB_NAMES.restart)).not.toContainEqual({
      instanceId: membersInstance.id,
      requestedBy: member.userId,
    });

    await admin.caller.ops.restart({ teamId: team.id, instanceId: membersInstance.id });
    expect(await queuedJobs(JOB_NAMES.restart)).toContainEqual({
      instanceId: membersInstance.id,
      requestedBy: admin.userId,
    });
  });

  it("shows admins every member's requests and a member only their own, with filters and a detail view", async () => {
    const { admin, member, team, installation, adminsInstance, membersInstance, db } = await setup();
    const row = (userId: string, instanceId: string, target: string, outcome: "success" | "error") => ({
      teamId: team.id,
      installationId: installation.id,
      instanceId,
      userId,
      method: "tools/call",
      target,
      arguments: { message: "hi" },
      durationMs: 12,
      outcome,
    });
    await db.toolCallLog.createMany({
      data: [
        row(admin.userId, adminsInstance.id, "echo", "success"),
        row(member.userId, membersInstance.id, "echo", "success"),
        row(member.userId, membersInstance.id, "add", "error"),
      ],
    });

    const all = await admin.caller.ops.teamRequestLog({ teamId: team.id, installationId: installation.id });
    expect(all.items).toHaveLength(3);
    const own = await member.caller.ops.teamRequestLog({ teamId: team.id, installationId: installation.id });
    expect(own.items.every((i) => i.user.id === member.userId)).toBe(true);
    expect(own.items).toHaveLength(2);
    const errors = await admin.caller.ops.teamRequestLog({
      teamId: team.id,
      installationId: installation.id,
      outcome: "error",
    });
    expect(errors.items.map((i) => i.target)).toEqual(["add"]);
    const paged = await admin.caller.ops.teamRequestLog({ teamId: team.id, installationId: installation.id, limit: 2 });
    expect(paged.nextCursor).not.toBeNull();

    const adminsCall = all.items.find((i) => i.user.id === admin.userId)!;
    await expect(admin.caller.ops.requestLogEntry({ teamId: team.id, callId: adminsCall.id })).resolves.toMatchObject({
      arguments: { message: "hi" },
    });
    await expect(member.caller.ops.requestLogEntry({ teamId: team.id, callId: adminsCall.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("streams the worker's events to the team's console, and only a member's own to that member, without raw errors", async () => {
    const { admin, member, team, installation, adminsInstance, membersInstance } = await setup();
    const adminStream = (await admin.caller.ops.live({ teamId: team.id }))[Symbol.asyncIterator]();
    const memberStream = (await member.caller.ops.live({ teamId: team.id }))[Symbol.asyncIterator]();
    const adminNext = adminStream.next();
    const memberNext = memberStream.next();
    await liveEventsReady();

    const ids = (instance: { id: string; userId: string }) => ({
      teamId: team.id,
      installationId: installation.id,
      instanceId: instance.id,
      userId: instance.userId,
    });
    const adminsEvent = createLiveEvent("status_changed", ids(adminsInstance), { from: "online", to: "offline" });
    const membersEvent = createLiveEvent("server_reconnecting", ids(membersInstance), {
      attempt: 2,
      nextRetryMs: 2000,
      lastError: "ECONNREFUSED 10.0.0.7:8443",
    });
    // Published until heard: the stream registers its listener a moment after the first next() (after its checks).
    let firstHeard = false;
    void adminNext.then(() => (firstHeard = true));
    await waitUntil(
      async () => {
        if (!firstHeard) await publish(adminsEvent);
        return firstHeard;
      },
      "the admin's stream to hear the first event",
      10_000,
      100,
    );
    expect(trackedData((await adminNext).value)).toMatchObject({
      type: "status_changed",
      instanceId: adminsInstance.id,
    });

    await publish(membersEvent);
    // The member hears about their own instance without the raw upstream error; the admin gets it.
    const heard = trackedData((await memberNext).value) as { payload: Record<string, unknown> };
    expect(heard).toMatchObject({
      type: "server_reconnecting",
      instanceId: membersInstance.id,
      payload: { attempt: 2 },
    });
    expect(heard.payload).not.toHaveProperty("lastError");
    let forAdmin = trackedData((await adminStream.next()).value) as { type: string; payload: Record<string, unknown> };
    while (forAdmin.type !== "server_reconnecting")
      forAdmin = trackedData((await adminStream.next()).value) as typeof forAdmin;
    expect(forAdmin.payload).toMatchObject({ lastError: "ECONNREFUSED 10.0.0.7:8443" });
    await adminStream.return?.(undefined);
    await memberStream.return?.(undefined);
  });

  it("tells a request log of new rows without their content, and a member only of their own calls", async () => {
    const { admin, member, team, installation } = await setup();
    const adminStream = (await admin.caller.ops.requestLogLive({ teamId: team.id }))[Symbol.asyncIterator]();
    const memberStream = (await member.caller.ops.requestLogLive({ teamId: team.id }))[Symbol.asyncIterator]();
    const adminNext = adminStream.next();
    const memberNext = memberStream.next();
    await liveEventsReady();
    const channel = redisChannels.teamCalls(env().REDIS_PREFIX, team.id);
    const announce = (calls: Array<{ userId: string; count: number }>) =>
      redis().publish(
        channel,
        JSON.stringify({
          teamId: team.id,
          calls: calls.map((c) => ({ installationId: installation.id, ...c })),
          at: new Date().toISOString(),
        }),
      );

    // The admin's own calls first: the member's stream must not hear of them.
    let firstHeard = false;
    void adminNext.then(() => (firstHeard = true));
    await waitUntil(
      async () => {
        if (!firstHeard) await announce([{ userId: admin.userId, count: 4 }]);
        return firstHeard;
      },
      "the admin's stream to hear the first announcement",
      10_000,
      100,
    );
    expect(trackedData((await adminNext).value)).toEqual({ installationIds: [installation.id], count: 4 });

    await announce([
      { userId: admin.userId, count: 1 },
      { userId: member.userId, count: 2 },
    ]);
    expect(trackedData((await memberNext).value)).toEqual({ installationIds: [installation.id], count: 2 });
    let forAdmin = trackedData((await adminStream.next()).value) as { count: number };
    while (forAdmin.count === 4) forAdmin = trackedData((await adminStream.next()).value) as typeof forAdmin;
    expect(forAdmin).toEqual({ installationIds: [installation.id], count: 3 });
    await adminStream.return?.(undefined);
    await memberStream.return?.(undefined);
  });

  it("does not let a stranger subscribe to another team's events", async () => {
    const { team } = await setup();
    const { stranger } = await strangerWithTeam();
    await expect(stranger.caller.ops.live({ teamId: team.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(stranger.caller.ops.requestLogLive({ teamId: team.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
