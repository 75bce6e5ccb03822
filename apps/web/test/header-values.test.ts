/**
 * Header and query values are checked when they are saved (template defaults, an installation's team values, a
 * member's personal settings), with a message naming the field, so an instance never fails later on a value
 * that cannot be sent.
 */
import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { seedHttpTemplate, seedInstalled, teamWithMember } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const remote = (fields: unknown[]) => ({
  slug: `hv-${Math.random().toString(36).slice(2, 8)}`,
  name: "Header values",
  transport: "streamable_http" as const,
  url: "https://mcp.example.test/mcp",
  fields,
});

describe("header and query values on save", () => {
  it("refuses a template whose header default has a line break or a non-Latin-1 character, or whose header name is not a token", async () => {
    const { admin, team } = await teamWithMember();
    const cases = [
      [
        { key: "X-Region", tier: "team", kind: "header", defaultValue: "eu\r\nX-Admin: 1" },
        "fields.0.defaultValue",
        /The default cannot contain line breaks/,
      ],
      [{ key: "X-Region", tier: "team", kind: "header", defaultValue: "€uro" }, "fields.0.defaultValue", /Latin-1/],
      [
        { key: "region", tier: "team", kind: "query", defaultValue: "eu\u0007" },
        "fields.0.defaultValue",
        /control characters: it is sent in the server's URL/,
      ],
      [{ key: "X Region", tier: "team", kind: "header" }, "fields.0.key", /not a valid HTTP header name/],
    ] as const;
    for (const [f, path, message] of cases) {
      const err = await admin.caller.catalogue
        .create({ teamId: team.id, template: remote([f]) as never })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "BAD_REQUEST" });
      const fieldErrors =
        (err as { cause?: { issues?: Array<{ path: unknown[]; message: string }> } }).cause?.issues ?? [];
      expect(fieldErrors.find((i) => i.path.join(".") === `template.${path}`)?.message).toMatch(message);
    }
    await expect(
      admin.caller.catalogue.create({
        teamId: team.id,
        template: remote([{ key: "X-Region", tier: "team", kind: "header", defaultValue: "eu-west" }]) as never,
      }),
    ).resolves.toMatchObject({ id: expect.any(String) });
  });

  it("refuses CR/LF in an installation's team header value, at install and on update, naming the field", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    await expect(
      admin.caller.installation.create({
        teamId: team.id,
        templateId: template.id,
        slug: "hv-install",
        name: "HV",
        values: { "X-Team-Key": "secret\r\nX-Evil: 1" },
      }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "X-Team-Key cannot contain line breaks or control characters: it is sent in an HTTP header.",
    });
    const installed = await admin.caller.installation.create({
      teamId: team.id,
      templateId: template.id,
      slug: "hv-install",
      name: "HV",
      values: { "X-Team-Key": "secret" },
    });
    await expect(
      admin.caller.installation.updateTeamValues({
        teamId: team.id,
        installationId: installed.id,
        values: { "X-Region": "eu\nus" },
      }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/^X-Region cannot contain line breaks/),
    });
    await expect(
      admin.caller.installation.updateTeamValues({
        teamId: team.id,
        installationId: installed.id,
        values: { "X-Region": "ünï" },
      }),
    ).resolves.toMatchObject({ id: installed.id });
    await expect(
      admin.caller.installation.updateTeamValues({
        teamId: team.id,
        installationId: installed.id,
        values: { "X-Region": "東京" },
      }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "X-Region cannot contain “東”: HTTP header values take Latin-1 characters only.",
    });
  });

  it("refuses a control character in a member's personal header value and keeps what was stored", async () => {
    const { member, team } = await teamWithMember();
    const { installation } = await seedInstalled(team.id, { [member.userId]: { "X-Api-Key": "good-key" } });
    const instance = await getDb().instance.findFirstOrThrow({
      where: { installationId: installation.id, userId: member.userId },
    });
    await expect(
      member.caller.instance.saveMyValues({
        teamId: team.id,
        instanceId: instance.id,
        values: { "X-Api-Key": "key\u001b[31m" },
      }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "X-Api-Key cannot contain line breaks or control characters: it is sent in an HTTP header.",
    });
    const fields = (
      await member.caller.instance.saveMyValues({
        teamId: team.id,
        instanceId: instance.id,
        values: { "X-Label": "mine" },
      })
    ).fields;
    expect(fields.find((f) => f.key === "X-Api-Key")).toMatchObject({ set: true });
    expect(fields.find((f) => f.key === "X-Label")).toMatchObject({ masked: "mine" });
  });
});
