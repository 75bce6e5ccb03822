import { afterAll, describe, expect, it } from "vitest";
import { JOB_NAMES } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { seedInstallation } from "@switchboard/db/seed/catalogue";
import { closeJobs } from "@switchboard/runtime/jobs";
import { httpFields, queuedJobs, seedHttpTemplate, teamWithMember } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

/** A remote installation where the admin and the member both filled in their key and label. */
async function installedForTwo() {
  const people = await teamWithMember();
  const template = await seedHttpTemplate(people.team.id);
  const memberValues = {
    [people.admin.userId]: { "X-Api-Key": "admin-key-000000001", "X-Label": "admin-label" },
    [people.member.userId]: { "X-Api-Key": "member-key-00000002", "X-Label": "member-label" },
  };
  const installation = await seedInstallation(getDb(), {
    template,
    teamValues: { "X-Team-Key": "team-secret-value-0001" },
    memberValues,
  });
  const valuesOf = async (userId: string) => {
    const instance = await getDb().instance.findFirstOrThrow({
      where: { installationId: installation.id, userId },
      include: { values: true },
    });
    return Object.fromEntries(
      instance.values.map((v) => [v.key, v.encrypted ? getCipher().decrypt(v.value) : v.value]),
    );
  };
  const base = {
    slug: template.slug,
    name: template.name,
    transport: "streamable_http" as const,
    url: "http://127.0.0.1:9/mcp",
    fields: httpFields,
  };
  return { ...people, template, installation, valuesOf, base };
}

const configChangedFor = async (installationId: string) =>
  (await queuedJobs(JOB_NAMES.configChanged)).filter((j) => j.installationId === installationId).length;

describe("editing an installation in place", () => {
  it("points it at a new URL, keeps every member's values, and restarts its instances through the worker", async () => {
    const { admin, team, installation, valuesOf, base, member } = await installedForTwo();
    const input = {
      teamId: team.id,
      installationId: installation.id,
      name: "Remote, moved",
      template: { ...base, url: "http://127.0.0.1:9/v2/mcp" },
    };

    const impact = await admin.caller.installation.editImpact(input);
    expect(impact).toMatchObject({ restarts: true, restarting: 2, awaiting: 0, dropped: [], newlyRequired: [] });
    expect(impact.installations).toEqual([expect.objectContaining({ id: installation.id, members: 2, awaiting: 0 })]);
    expect(await configChangedFor(installation.id)).toBe(0); // the impact writes nothing

    await admin.caller.installation.edit(input);
    const after = await admin.caller.installation.get({ teamId: team.id, installationId: installation.id });
    expect(after).toMatchObject({
      id: installation.id,
      slug: installation.slug,
      name: "Remote, moved",
      template: { target: "http://127.0.0.1:9/v2/mcp" },
    });
    expect(after.teamFields.find((f) => f.key === "X-Team-Key")).toMatchObject({ set: true });
    expect(await valuesOf(member.userId)).toEqual({ "X-Api-Key": "member-key-00000002", "X-Label": "member-label" });
    expect(await configChangedFor(installation.id)).toBe(1);
  });

  it("drops the stored values of a removed field and keeps the others", async () => {
    const { admin, team, installation, valuesOf, base, member } = await installedForTwo();
    const impact = await admin.caller.installation.edit({
      teamId: team.id,
      installationId: installation.id,
      name: installation.name,
      template: { ...base, fields: httpFields.filter((f) => f.key !== "X-Label") },
    });
    expect(impact.dropped).toEqual(["X-Label"]);
    expect(await valuesOf(member.userId)).toEqual({ "X-Api-Key": "member-key-00000002" });
    expect(await valuesOf(admin.userId)).toEqual({ "X-Api-Key": "admin-key-000000001" });
    expect(
      (await admin.caller.installation.get({ teamId: team.id, installationId: installation.id })).memberFields.map(
        (f) => f.key,
      ),
    ).toEqual(["X-Api-Key"]);
  });

  it("counts only the members who lack a new required field as waiting for it", async () => {
    const { admin, team, installation, base } = await installedForTwo();
    // The admin's label is set, the member's is not: making X-Label required leaves only the member waiting.
    await getDb().instanceConfigValue.deleteMany({
      where: { key: "X-Label", instance: { installationId: installation.id, userId: { not: admin.userId } } },
    });
    const fields = httpFields.map((f) => (f.key === "X-Label" ? { ...f, required: true } : f));
    const impact = await admin.caller.installation.edit({
      teamId: team.id,
      installationId: installation.id,
      name: installation.name,
      template: { ...base, fields },
    });
    expect(impact).toMatchObject({ restarts: true, restarting: 1, awaiting: 1, newlyRequired: ["X-Label"] });
    expect(impact.installations[0]).toMatchObject({ members: 2, awaiting: 1 });
    expect(await configChangedFor(installation.id)).toBe(1);
  });

  it("refuses a new required team setting without a value, and takes it in the same edit", async () => {
    const { admin, team, installation, base } = await installedForTwo();
    const fields = [...httpFields, { key: "X-Tenant", tier: "team" as const, kind: "header" as const, required: true }];
    const input = {
      teamId: team.id,
      installationId: installation.id,
      name: installation.name,
      template: { ...base, fields },
    };
    await expect(admin.caller.installation.edit(input)).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/X-Tenant/),
    });
    await admin.caller.installation.edit({ ...input, values: { "X-Tenant": "acme" } });
    const after = await admin.caller.installation.get({ teamId: team.id, installationId: installation.id });
    expect(after.teamFields.find((f) => f.key === "X-Tenant")).toMatchObject({ set: true, masked: "acme" });
  });

  it("seals stored values when a field becomes secret, and renames without restarting anything", async () => {
    const { admin, team, installation, base, member } = await installedForTwo();
    const fields = httpFields.map((f) => (f.key === "X-Label" ? { ...f, secret: true } : f));
    await admin.caller.installation.edit({
      teamId: team.id,
      installationId: installation.id,
      name: installation.name,
      template: { ...base, fields },
    });
    const row = await getDb().instanceConfigValue.findFirstOrThrow({
      where: { key: "X-Label", instance: { installationId: installation.id, userId: member.userId } },
    });
    expect(row.encrypted).toBe(true);
    expect(getCipher().decrypt(row.value)).toBe("member-label");

    const before = await configChangedFor(installation.id);
    const renamed = await admin.caller.installation.edit({
      teamId: team.id,
      installationId: installation.id,
      name: "Just a new name",
      template: { ...base, fields },
    });
    expect(renamed).toMatchObject({ restarts: false, restarting: 0 });
    expect(await configChangedFor(installation.id)).toBe(before);
  });

  it("refuses a URL the egress rules refuse, and changes nothing", async () => {
    const { admin, team, installation, base } = await installedForTwo();
    await expect(
      admin.caller.installation.edit({
        teamId: team.id,
        installationId: installation.id,
        name: installation.name,
        template: { ...base, url: "http://169.254.169.254/mcp" },
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(
      (await admin.caller.installation.get({ teamId: team.id, installationId: installation.id })).template.target,
    ).toBe("http://127.0.0.1:9/mcp");
  });
});

describe("editing a catalogue template", () => {
  it("says which installations use it and restarts each of them", async () => {
    const { admin, team, template, installation, base } = await installedForTwo();
    const second = await seedInstallation(getDb(), {
      template,
      slug: `second-${installation.slug}`,
      name: "Second",
      teamValues: { "X-Team-Key": "team-secret-value-0002" },
    });
    const got = await admin.caller.catalogue.get({ teamId: team.id, templateId: template.id });
    expect(got.installations.map((i) => i.id).sort()).toEqual([installation.id, second.id].sort());

    const input = {
      teamId: team.id,
      templateId: template.id,
      template: { ...base, name: "Renamed template", url: "http://127.0.0.1:9/v3/mcp" },
    };
    const impact = await admin.caller.catalogue.updateImpact(input);
    expect(impact.installations.map((i) => i.name).sort()).toEqual(["Second", installation.name].sort());
    await admin.caller.catalogue.update(input);
    expect((await admin.caller.catalogue.get({ teamId: team.id, templateId: template.id })).url).toBe(
      "http://127.0.0.1:9/v3/mcp",
    );
    expect(await configChangedFor(installation.id)).toBe(1);
    expect(await configChangedFor(second.id)).toBe(1);
  });
});
