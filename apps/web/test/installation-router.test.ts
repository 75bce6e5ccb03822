import { afterAll, describe, expect, it } from "vitest";
import { JOB_NAMES, redisKeys } from "@switchboard/core/contracts";
import { describeSandboxEnforcement } from "@switchboard/core/sandbox";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { closeJobs } from "@switchboard/runtime/jobs";
import { redis } from "@switchboard/runtime/redis";
import { env } from "@switchboard/runtime/env";
import { queuedJobs, seedHttpTemplate, strangerWithTeam, teamWithMember } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const TEAM_SECRET = "team-secret-value-0001";

describe("installation router", () => {
  it("installs a template with encrypted team secrets, masks them in the answer and asks the worker to create instances", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    const created = await admin.caller.installation.create({
      teamId: team.id,
      templateId: template.id,
      slug: "remote",
      name: "Remote",
      values: { "X-Team-Key": TEAM_SECRET, "X-Region": "us" },
    });

    expect(created.teamFields.find((f) => f.key === "X-Team-Key")).toEqual(
      expect.objectContaining({ set: true, secret: true, masked: "••••••0001" }),
    );
    expect(created.teamFields.find((f) => f.key === "X-Region")).toEqual(
      expect.objectContaining({ set: true, masked: "us" }),
    );
    expect(JSON.stringify(created)).not.toContain(TEAM_SECRET);
    expect(created.memberFields.map((f) => f.key)).toEqual(["X-Api-Key", "X-Label"]);

    const stored = await getDb().installationConfigValue.findUniqueOrThrow({
      where: { installationId_key: { installationId: created.id, key: "X-Team-Key" } },
    });
    expect(stored.encrypted).toBe(true);
    expect(stored.value).not.toContain(TEAM_SECRET);
    expect(getCipher().decrypt(stored.value)).toBe(TEAM_SECRET);

    // The worker creates the instances; the console only writes the installation.
    expect(await getDb().instance.count({ where: { installationId: created.id } })).toBe(0);
    expect(await queuedJobs(JOB_NAMES.installationCreated)).toContainEqual({ installationId: created.id });
  });

  it("refuses a second installation with the same slug in the team with a readable conflict", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    const input = {
      teamId: team.id,
      templateId: template.id,
      slug: "dup",
      name: "Dup",
      values: { "X-Team-Key": TEAM_SECRET },
    };
    await admin.caller.installation.create(input);
    await expect(admin.caller.installation.create(input)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/already installed/),
    });
  });

  it("installs a server defined in the wizard, saving its definition to the catalogue only with the installation", async () => {
    const { admin, team } = await teamWithMember();
    const template = {
      slug: "wiki",
      name: "Wiki",
      transport: "streamable_http" as const,
      url: "https://wiki.example.com/mcp",
      fields: [{ key: "X-Team-Key", tier: "team" as const, kind: "header" as const, required: true, secret: true }],
    };
    const base = { teamId: team.id, template, slug: "wiki", name: "Wiki" };
    // Refused (a required team value missing): no catalogue entry is left behind...
    await expect(admin.caller.installation.create({ ...base, values: {} })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/X-Team-Key/),
    });
    expect(await getDb().serverTemplate.count({ where: { teamId: team.id } })).toBe(0);
    // ...so defining the same server again works, and installs it from the new catalogue entry.
    const created = await admin.caller.installation.create({ ...base, values: { "X-Team-Key": TEAM_SECRET } });
    const saved = await getDb().serverTemplate.findMany({ where: { teamId: team.id } });
    expect(saved.map((t) => [t.slug, t.url])).toEqual([["wiki", "https://wiki.example.com/mcp"]]);
    expect(created.template.id).toBe(saved[0]!.id);
  });

  it("takes either a catalogue template or a definition, never neither", async () => {
    const { admin, team } = await teamWithMember();
    await expect(
      admin.caller.installation.create({ teamId: team.id, slug: "none", name: "None", values: {} }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("requires every required team setting and validates values by type", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id, [
      { key: "X-Team-Key", tier: "team", kind: "header", secret: true, required: true },
      { key: "limit", tier: "team", kind: "query", type: "number" },
    ]);
    const base = { teamId: team.id, templateId: template.id, slug: "strict", name: "Strict" };
    await expect(admin.caller.installation.create({ ...base, values: {} })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/X-Team-Key/),
    });
    await expect(
      admin.caller.installation.create({ ...base, values: { "X-Team-Key": "k", limit: "ten" } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/must be a number/) });
    await expect(
      admin.caller.installation.create({ ...base, values: { "X-Team-Key": "k", nope: "1" } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("lets only admins install, edit and remove; members read; other teams see nothing", async () => {
    const { admin, member, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    const input = {
      teamId: team.id,
      templateId: template.id,
      slug: "roles",
      name: "Roles",
      values: { "X-Team-Key": TEAM_SECRET },
    };
    await expect(member.caller.installation.create(input)).rejects.toMatchObject({ code: "FORBIDDEN" });
    const created = await admin.caller.installation.create(input);
    await expect(
      member.caller.installation.get({ teamId: team.id, installationId: created.id }),
    ).resolves.toMatchObject({ slug: "roles" });
    await expect(
      member.caller.installation.remove({ teamId: team.id, installationId: created.id }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });

    const { stranger, team: otherTeam } = await strangerWithTeam();
    await expect(
      stranger.caller.installation.get({ teamId: otherTeam.id, installationId: created.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      stranger.caller.installation.remove({ teamId: otherTeam.id, installationId: created.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      stranger.caller.installation.get({ teamId: team.id, installationId: created.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("keeps a secret left empty when the team settings are edited, and tells the worker to restart the instances", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    const created = await admin.caller.installation.create({
      teamId: team.id,
      templateId: template.id,
      slug: "edit",
      name: "Edit",
      values: { "X-Team-Key": TEAM_SECRET },
    });

    const updated = await admin.caller.installation.updateTeamValues({
      teamId: team.id,
      installationId: created.id,
      values: { "X-Team-Key": "", "X-Region": "ap" },
    });
    expect(updated.teamFields.find((f) => f.key === "X-Team-Key")?.masked).toBe("••••••0001");
    expect(updated.teamFields.find((f) => f.key === "X-Region")?.masked).toBe("ap");
    expect(await queuedJobs(JOB_NAMES.configChanged)).toContainEqual({ installationId: created.id });

    await expect(
      admin.caller.installation.updateTeamValues({
        teamId: team.id,
        installationId: created.id,
        clear: ["X-Team-Key"],
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("turns request logging off and on", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    const created = await admin.caller.installation.create({
      teamId: team.id,
      templateId: template.id,
      slug: "logs",
      name: "Logs",
      values: { "X-Team-Key": TEAM_SECRET },
    });
    expect(created.requestLogging).toBe(true);
    const off = await admin.caller.installation.updateSettings({
      teamId: team.id,
      installationId: created.id,
      requestLogging: false,
    });
    expect(off.requestLogging).toBe(false);
  });

  it("removes an installation with its instances and hands their ids to the worker", async () => {
    const { admin, member, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    const created = await admin.caller.installation.create({
      teamId: team.id,
      templateId: template.id,
      slug: "gone",
      name: "Gone",
      values: { "X-Team-Key": TEAM_SECRET },
    });
    const db = getDb();
    const instances = await Promise.all(
      [admin.userId, member.userId].map((userId) =>
        db.instance.create({ data: { installationId: created.id, userId, status: "online" } }),
      ),
    );

    await admin.caller.installation.remove({ teamId: team.id, installationId: created.id });
    expect(await db.installation.count({ where: { id: created.id } })).toBe(0);
    expect(await db.instance.count({ where: { installationId: created.id } })).toBe(0);
    const removal = (await queuedJobs(JOB_NAMES.installationRemoved)).find((j) => j.installationId === created.id);
    expect(removal).toMatchObject({ teamId: team.id });
    expect((removal!.instanceIds as string[]).sort()).toEqual(instances.map((i) => i.id).sort());
  });

  it("lists installations a page at a time", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    for (const slug of ["one", "two", "three"]) {
      await admin.caller.installation.create({
        teamId: team.id,
        templateId: template.id,
        slug,
        name: slug,
        values: { "X-Team-Key": TEAM_SECRET },
      });
    }
    const first = await admin.caller.installation.list({ teamId: team.id, limit: 2 });
    expect(first.items).toHaveLength(2);
    const second = await admin.caller.installation.list({ teamId: team.id, limit: 2, cursor: first.nextCursor });
    expect(second.items).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    expect(new Set([...first.items, ...second.items].map((i) => i.slug))).toEqual(new Set(["one", "two", "three"]));
  });

  it("searches installations by a piece of their name or slug, in any case", async () => {
    const { member, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    await seedInstallation(getDb(), { template, slug: "docs", name: "Team Docs" });
    await seedInstallation(getDb(), { template, slug: "tickets", name: "Support Desk" });
    const found = async (search: string) =>
      (await member.caller.installation.list({ teamId: team.id, search })).items.map((i) => i.slug).sort();
    expect(await found("DOC")).toEqual(["docs"]);
    expect(await found("tick")).toEqual(["tickets"]);
    expect(await found("nothing like it")).toEqual([]);
    expect(await found("  ")).toEqual(["docs", "tickets"]);
  });

  it("lets an admin set a stdio installation's sandbox limits and network, validated, and restarts its instances", async () => {
    const { admin, member, team } = await teamWithMember();
    const template = await seedTemplate(getDb(), {
      teamId: team.id,
      slug: "local",
      name: "Local",
      transport: "stdio",
      command: "mcp-server-everything",
    });
    const installation = await seedInstallation(getDb(), { template });
    const installationId = installation.id;
    const before = await admin.caller.installation.get({ teamId: team.id, installationId });
    expect(before.sandbox?.settings).toEqual({});

    // The worker reports that its operator allows sandboxes 8080 (STDIO_SANDBOX_LOOPBACK_PORTS) and that its
    // bridge listens on 7999: the admin may pick the first, never the second.
    await redis().set(
      redisKeys.sandboxStatus(env().REDIS_PREFIX),
      JSON.stringify({
        mode: "on",
        available: true,
        outbound: true,
        loopback: { operatorPorts: [8080], reserved: [{ port: 7999, service: "the worker's stdio bridge" }] },
        reportedAt: new Date().toISOString(),
      }),
    );
    try {
      const saved = await admin.caller.installation.updateSandbox({
        teamId: team.id,
        installationId,
        settings: { memoryMb: 512, processes: 64, outbound: true, loopbackPorts: [8080] },
      });
      expect(saved.sandbox?.settings).toEqual({ memoryMb: 512, processes: 64, outbound: true, loopbackPorts: [8080] });
      expect(saved.sandbox?.loopback.allowed).toContain(8080);
      expect((await getDb().installation.findUniqueOrThrow({ where: { id: installationId } })).sandbox).toEqual({
        memoryMb: 512,
        processes: 64,
        outbound: true,
        loopbackPorts: [8080],
      });
      expect(await queuedJobs(JOB_NAMES.configChanged)).toContainEqual({ installationId });
      await expect(
        admin.caller.installation.updateSandbox({
          teamId: team.id,
          installationId,
          settings: { outbound: true, loopbackPorts: [7999] },
        }),
      ).rejects.toMatchObject({
        code: "FORBIDDEN",
        message: expect.stringMatching(/^Port 7999 belongs to the worker's/),
      });
    } finally {
      await redis().del(redisKeys.sandboxStatus(env().REDIS_PREFIX));
    }

    const settings = { teamId: team.id, installationId };
    await expect(
      admin.caller.installation.updateSandbox({ ...settings, settings: { loopbackPorts: [5432] } }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/outbound/),
    });
    await expect(
      admin.caller.installation.updateSandbox({ ...settings, settings: { memoryMb: 1 } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(member.caller.installation.updateSandbox({ ...settings, settings: {} })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });

    const remote = await admin.caller.installation.create({
      teamId: team.id,
      templateId: (await seedHttpTemplate(team.id)).id,
      slug: "remote-sbx",
      name: "Remote",
      values: { "X-Team-Key": TEAM_SECRET },
    });
    expect(remote.sandbox).toBeNull();
    await expect(
      admin.caller.installation.updateSandbox({ teamId: team.id, installationId: remote.id, settings: {} }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("holds an admin's disk quota to the operator's maximum and shows what the host enforces", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedTemplate(getDb(), {
      teamId: team.id,
      slug: "local-disk",
      name: "Local",
      transport: "stdio",
      command: "mcp-server-everything",
    });
    const installation = await seedInstallation(getDb(), { template });
    const enforcement = describeSandboxEnforcement({
      cgroup: { reason: "the worker's cgroup v2 is not delegated to its user." },
      diskQuota: { ok: true },
      seccomp: { profile: "/usr/share/containers/seccomp.json" },
    });
    await redis().set(
      redisKeys.sandboxStatus(env().REDIS_PREFIX),
      JSON.stringify({
        mode: "on",
        available: true,
        outbound: true,
        maxDiskMb: 2_048,
        enforcement,
        reportedAt: new Date().toISOString(),
      }),
    );
    try {
      const settings = { teamId: team.id, installationId: installation.id };
      await expect(
        admin.caller.installation.updateSandbox({ ...settings, settings: { diskMb: 4_096 } }),
      ).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: "The disk quota can be at most 2048 MB on this deployment.",
      });
      const saved = await admin.caller.installation.updateSandbox({ ...settings, settings: { diskMb: 2_048 } });
      expect(saved.sandbox?.settings).toEqual({ diskMb: 2_048 });
      expect(saved.sandbox?.host).toMatchObject({ maxDiskMb: 2_048, enforcement });
      expect(saved.sandbox?.host?.enforcement?.memory.detail).toMatch(/Each process .* not delegated/);
    } finally {
      await redis().del(redisKeys.sandboxStatus(env().REDIS_PREFIX));
    }
  });

  it("shows on stdio installations (page and list) how the worker reported it runs stdio servers", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedTemplate(getDb(), {
      teamId: team.id,
      slug: "local-off",
      name: "Local",
      transport: "stdio",
      command: "mcp-server-everything",
    });
    const installation = await seedInstallation(getDb(), { template });
    await redis().set(
      redisKeys.sandboxStatus(env().REDIS_PREFIX),
      JSON.stringify({
        mode: "off",
        available: false,
        outbound: false,
        reason: "The operator turned the sandbox off.",
        reportedAt: new Date().toISOString(),
      }),
    );
    try {
      const view = await admin.caller.installation.get({ teamId: team.id, installationId: installation.id });
      expect(view.sandbox?.host).toMatchObject({ mode: "off", available: false });
      expect((await admin.caller.installation.list({ teamId: team.id, limit: 25 })).sandbox).toEqual({
        mode: "off",
        available: false,
      });
    } finally {
      await redis().del(redisKeys.sandboxStatus(env().REDIS_PREFIX));
    }
  });
});
