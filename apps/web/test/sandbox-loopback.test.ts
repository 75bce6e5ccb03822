import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_NAMES } from "@switchboard/core/contracts";
import { portOfUrl } from "@switchboard/core/sandbox";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { changeSandboxLoopbackPorts } from "@switchboard/db/queries/deployment";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { makeUser } from "@switchboard/db/testing";
import { closeJobs } from "@switchboard/runtime/jobs";
import { env } from "@switchboard/runtime/env";
import { signedInCaller } from "./support/caller";
import { queuedJobs, teamWithMember } from "./support/console";

// The deployment has its owner already: the accounts these tests sign up are not the first one.
beforeAll(async () => {
  await makeUser(getDb(), { deploymentOwner: true });
});

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

/** A port no other test of the run names (the deployment's list is the whole run's). */
const uniquePort = () => 20_000 + (randomBytes(2).readUInt16BE() % 20_000);

async function deploymentOwner() {
  const owner = await signedInCaller("deployment-owner");
  await getDb().user.update({ where: { id: owner.userId }, data: { deploymentOwner: true } });
  return owner;
}

/** A team with its owner, a plain admin and a stdio installation. */
async function stdioInstallation() {
  const { admin: owner, team } = await teamWithMember();
  const admin = await signedInCaller("team-admin");
  const invitation = await owner.caller.team.invite({ teamId: team.id, email: admin.email, role: "admin" });
  await admin.caller.invitation.accept({ invitationId: invitation.id });
  const template = await seedTemplate(getDb(), {
    teamId: team.id,
    slug: `local-${randomBytes(3).toString("hex")}`,
    name: "Local",
    transport: "stdio",
    command: "mcp-server-everything",
  });
  const installation = await seedInstallation(getDb(), { template });
  return { owner, admin, team, installationId: installation.id };
}

/** PostgreSQL's, Redis's, the bridge's and the console's ports as this deployment has them, and the defaults. */
function switchboardPorts(): number[] {
  const e = env();
  return [
    ...new Set([
      5432,
      6379,
      portOfUrl(e.DATABASE_URL, 5432)!,
      portOfUrl(e.REDIS_URL, 6379)!,
      portOfUrl(e.BRIDGE_URL, 80)!,
      e.PORT,
    ]),
  ];
}

describe("host loopback ports of a sandbox", () => {
  it("refuses a team owner's and a team admin's request for PostgreSQL's, Redis's, the bridge's and the console's ports, even ones the deployment's stored list names", async () => {
    const { owner, admin, team, installationId } = await stdioInstallation();
    const ports = switchboardPorts();
    expect(ports).toEqual(expect.arrayContaining([5432, 6379, 7410, 3000]));
    // A list written before the console refused them (straight in the database): still no way in.
    await changeSandboxLoopbackPorts(getDb(), { userId: "test", change: (current) => [...current, ...ports] });
    try {
      for (const who of [owner, admin]) {
        await expect(
          who.caller.installation.updateSandbox({
            teamId: team.id,
            installationId,
            settings: { outbound: true, loopbackPorts: [5432, 6379, 7410, 3000] },
          }),
        ).rejects.toMatchObject({
          code: "FORBIDDEN",
          message: expect.stringMatching(/never reachable from a sandbox/),
        });
        for (const port of ports) {
          await expect(
            who.caller.installation.updateSandbox({
              teamId: team.id,
              installationId,
              settings: { outbound: true, loopbackPorts: [port] },
            }),
          ).rejects.toMatchObject({
            code: "FORBIDDEN",
            message: expect.stringContaining(`Port ${port} belongs to`),
          });
        }
      }
      expect((await getDb().installation.findUniqueOrThrow({ where: { id: installationId } })).sandbox).toEqual({});
      // Nor are they offered.
      const view = await admin.caller.installation.get({ teamId: team.id, installationId });
      for (const port of ports) expect(view.sandbox?.loopback.allowed).not.toContain(port);
    } finally {
      await changeSandboxLoopbackPorts(getDb(), {
        userId: "test",
        change: (current) => current.filter((p) => !ports.includes(p)),
      });
    }
  });

  it("refuses a deployment owner's request for Switchboard's own ports", async () => {
    const owner = await deploymentOwner();
    for (const port of switchboardPorts()) {
      await expect(owner.caller.deployment.addSandboxLoopbackPort({ port })).rejects.toMatchObject({
        code: "FORBIDDEN",
        message: expect.stringContaining(`Port ${port} belongs to`),
      });
    }
    const settings = await owner.caller.deployment.settings();
    expect(settings.sandboxLoopback.reserved.map((r) => r.port)).toEqual(expect.arrayContaining(switchboardPorts()));
    for (const port of switchboardPorts()) expect(settings.sandboxLoopback.ports).not.toContain(port);
  });

  it("lets a team admin pick only a port a deployment owner allowed, and restarts its instances when it is taken back", async () => {
    const { admin, team, installationId } = await stdioInstallation();
    const owner = await deploymentOwner();
    const port = uniquePort();
    const request = { teamId: team.id, installationId, settings: { outbound: true, loopbackPorts: [port] } };
    await expect(admin.caller.installation.updateSandbox(request)).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringMatching(/not among the host services this deployment lets sandboxes reach/),
    });
    // A team admin cannot allow it themselves.
    await expect(admin.caller.deployment.addSandboxLoopbackPort({ port })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });

    expect((await owner.caller.deployment.addSandboxLoopbackPort({ port })).sandboxLoopback.ports).toContain(port);
    await expect(owner.caller.deployment.addSandboxLoopbackPort({ port })).rejects.toMatchObject({ code: "CONFLICT" });
    const saved = await admin.caller.installation.updateSandbox(request);
    expect(saved.sandbox?.settings).toEqual({ outbound: true, loopbackPorts: [port] });
    expect(saved.sandbox?.loopback).toMatchObject({ notInEffect: [] });
    expect(saved.sandbox?.loopback.allowed).toContain(port);

    // Taken back: the installation restarts without it, and its page says the stored port is not in effect.
    const restarts = async () =>
      (await queuedJobs(JOB_NAMES.configChanged)).filter((j) => j.installationId === installationId).length;
    const before = await restarts();
    await owner.caller.deployment.removeSandboxLoopbackPort({ port });
    expect(await restarts()).toBe(before + 1);
    const view = await admin.caller.installation.get({ teamId: team.id, installationId });
    expect(view.sandbox?.loopback.allowed).not.toContain(port);
    expect(view.sandbox?.loopback.notInEffect).toEqual([
      { port, reason: expect.stringMatching(/not among the host services/) },
    ]);
    await expect(owner.caller.deployment.removeSandboxLoopbackPort({ port })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});
