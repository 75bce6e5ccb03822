import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { buildLaunch, getInstanceLaunchContext } from "@switchboard/db/launch";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { closeJobs } from "@switchboard/runtime/jobs";
import { teamWithMember } from "./support/console";
import { allowStdio } from "./support/deployment";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

async function stdioInstallation(teamId: string) {
  const template = await seedTemplate(getDb(), {
    teamId,
    slug: `files-${Math.random().toString(36).slice(2, 8)}`,
    name: "Files",
    transport: "stdio",
    command: "mcp-server-filesystem",
    args: ["{{folder}}"],
    fields: [
      { key: "folder", label: "Folder", tier: "user", kind: "arg" },
      { key: "extra", label: "Extra folder", tier: "user", kind: "arg", optionValues: "after_separator" },
    ],
  });
  return seedInstallation(getDb(), { template });
}

describe("member argument values", () => {
  it("refuses a personal value starting with '-' when it is saved, with a sentence naming the setting", async () => {
    const { member, team } = await teamWithMember();
    const installation = await stdioInstallation(team.id);
    const instance = await getDb().instance.findFirstOrThrow({
      where: { installationId: installation.id, userId: member.userId },
    });

    const err = await member.caller.instance
      .saveMyValues({ teamId: team.id, instanceId: instance.id, values: { folder: "--evil" } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "BAD_REQUEST",
      message:
        'Folder cannot start with "-", because the server would read it as an option; remove the dash or ask an admin to change this setting.',
    });
    expect(await getDb().instanceConfigValue.count({ where: { instanceId: instance.id } })).toBe(0);
  });

  it("keeps a value starting with '-' of an after_separator field, and launches it after '--'", async () => {
    const { member, team } = await teamWithMember();
    const installation = await stdioInstallation(team.id);
    const instance = await getDb().instance.findFirstOrThrow({
      where: { installationId: installation.id, userId: member.userId },
    });

    await member.caller.instance.saveMyValues({
      teamId: team.id,
      instanceId: instance.id,
      values: { folder: "/home/me", extra: "--evil" },
    });
    const ctx = await getInstanceLaunchContext(getDb(), instance.id);
    expect(buildLaunch(ctx!, getCipher())).toMatchObject({
      command: "mcp-server-filesystem",
      args: ["/home/me", "--", "--evil"],
    });
  });

  it("lets an admin choose the setting per argument field when saving a template", async () => {
    const { admin, team } = await teamWithMember();
    await allowStdio(team.id, [{ kind: "executable", name: "mcp-server-filesystem" }]);
    const created = await admin.caller.catalogue.create({
      teamId: team.id,
      template: {
        slug: "files",
        name: "Files",
        transport: "stdio",
        command: "mcp-server-filesystem",
        fields: [
          { key: "dir", tier: "user", kind: "arg", optionValues: "after_separator" },
          { key: "other", tier: "user", kind: "arg" },
        ],
      },
    });
    expect(created.fields.map((f) => [f.key, f.optionValues])).toEqual([
      ["dir", "after_separator"],
      ["other", "refuse"],
    ]);
  });
});
