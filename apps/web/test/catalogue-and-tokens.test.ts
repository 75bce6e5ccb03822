import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { redis, subscriberConnection } from "@switchboard/runtime/redis";
import { activeToken } from "./support/tokens";
import { signedInCaller } from "./support/caller";
import { allowStdio } from "./support/deployment";

afterAll(async () => {
  redis().disconnect();
  subscriberConnection().disconnect();
  await disconnectDb();
});

async function teamWithMember() {
  const admin = await signedInCaller("admin");
  const team = await admin.caller.team.create({ name: `Catalogue ${Math.random().toString(36).slice(2, 8)}` });
  await allowStdio(team.id, [{ kind: "executable", name: "mcp-server-everything" }]);
  const member = await signedInCaller("member");
  const inv = await admin.caller.team.invite({ teamId: team.id, email: member.email });
  await member.caller.invitation.accept({ invitationId: inv.id });
  return { admin, member, team };
}

const stdioTemplate = {
  slug: "everything",
  name: "Everything",
  transport: "stdio" as const,
  command: "mcp-server-everything",
  args: ["--mode", "{{mode}}"],
  fields: [
    { key: "mode", tier: "team" as const, kind: "arg" as const, defaultValue: "full" },
    { key: "API_KEY", tier: "user" as const, kind: "env" as const, required: true, secret: true },
  ],
};

describe("catalogue router", () => {
  it("lets an admin add a stdio template with its configuration fields, visible to members", async () => {
    const { admin, member, team } = await teamWithMember();
    const created = await admin.caller.catalogue.create({ teamId: team.id, template: stdioTemplate });
    expect(created).toMatchObject({ slug: "everything", transport: "stdio", url: null, installationCount: 0 });
    expect(created.fields.map((f) => [f.key, f.tier, f.kind, f.required, f.secret])).toEqual([
      ["mode", "team", "arg", false, false],
      ["API_KEY", "user", "env", true, true],
    ]);
    const seen = await member.caller.catalogue.list({ teamId: team.id });
    expect(seen.items.map((t) => t.id)).toEqual([created.id]);
  });

  it("refuses members, duplicates and invalid templates with readable errors", async () => {
    const { admin, member, team } = await teamWithMember();
    await expect(member.caller.catalogue.create({ teamId: team.id, template: stdioTemplate })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await admin.caller.catalogue.create({ teamId: team.id, template: stdioTemplate });
    await expect(admin.caller.catalogue.create({ teamId: team.id, template: stdioTemplate })).rejects.toMatchObject({
      code: "CONFLICT",
    });

    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...stdioTemplate, slug: "no-command", command: undefined }, /needs a command/],
      [{ slug: "remote", name: "Remote", transport: "streamable_http", url: "ftp://x" }, /http:\/\/ or https:\/\//],
      [{ slug: "remote2", name: "Remote", transport: "sse" }, /needs a URL/],
      [
        { ...stdioTemplate, slug: "hdr", fields: [{ key: "X-Key", tier: "team", kind: "header" }] },
        /takes arg or env fields/,
      ],
      [
        {
          ...stdioTemplate,
          slug: "dupe",
          fields: [
            { key: "A", tier: "team", kind: "env" },
            { key: "A", tier: "user", kind: "env" },
          ],
        },
        /used twice/,
      ],
      [
        { ...stdioTemplate, slug: "bad-env", fields: [{ key: "1BAD", tier: "team", kind: "env" }] },
        /environment variable name/,
      ],
      [
        {
          ...stdioTemplate,
          slug: "secret-default",
          fields: [{ key: "K", tier: "team", kind: "env", secret: true, defaultValue: "x" }],
        },
        /cannot have a default/,
      ],
    ];
    for (const [template, message] of cases) {
      const err = await admin.caller.catalogue
        .create({ teamId: team.id, template: template as never })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "BAD_REQUEST" });
      expect(JSON.stringify((err as { cause?: unknown }).cause ?? err) + String((err as Error).message)).toMatch(
        message,
      );
    }
  });

  it("hides another team's templates", async () => {
    const { admin, team } = await teamWithMember();
    const t = await admin.caller.catalogue.create({ teamId: team.id, template: stdioTemplate });
    const other = await signedInCaller("other");
    const otherTeam = await other.caller.team.create({ name: `Other ${Math.random().toString(36).slice(2, 8)}` });
    await expect(other.caller.catalogue.get({ teamId: otherTeam.id, templateId: t.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(other.caller.catalogue.remove({ teamId: otherTeam.id, templateId: t.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(admin.caller.catalogue.get({ teamId: team.id, templateId: t.id })).resolves.toMatchObject({
      id: t.id,
    });
  });
});

describe("personal access tokens", () => {
  it("shows the token once, stores only its hash, and authenticates it until revoked", async () => {
    const { member, team } = await teamWithMember();
    const created = await member.caller.token.create({ teamId: team.id, name: "Claude Desktop" });
    expect(created.token).toMatch(/^sbp_[0-9A-Za-z]{40}$/);
    expect(created.prefix).toBe(created.token.slice(0, 10));

    const stored = await getDb().personalAccessToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(JSON.stringify(stored)).not.toContain(created.token);
    const listed = await member.caller.token.list({ teamId: team.id });
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(listed[0]).toMatchObject({ id: created.id, lastUsedAt: null, revokedAt: null });

    await expect(activeToken(created.token)).resolves.toMatchObject({
      userId: member.userId,
      teamId: team.id,
      mode: "all",
    });
    // Last use is recorded by the gateway when it authenticates the token (tests/integration/test/token-cache.test.ts).
    // One character off (never the same one: a token ending in "x" made this a 1-in-62 false failure).
    const altered = created.token.slice(0, -1) + (created.token.endsWith("x") ? "y" : "x");
    await expect(activeToken(altered)).resolves.toBeNull();

    await member.caller.token.revoke({ teamId: team.id, tokenId: created.id });
    await expect(activeToken(created.token)).resolves.toBeNull();
    await expect(member.caller.token.revoke({ teamId: team.id, tokenId: created.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("keeps tokens private to their owner, even from admins", async () => {
    const { admin, member, team } = await teamWithMember();
    const created = await member.caller.token.create({ teamId: team.id, name: "Cursor", mode: "router" });
    expect(await admin.caller.token.list({ teamId: team.id })).toEqual([]);
    await expect(admin.caller.token.revoke({ teamId: team.id, tokenId: created.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(activeToken(created.token)).resolves.toMatchObject({ mode: "router" });
  });

  it("stops authenticating a token whose member left the team", async () => {
    const { admin, member, team } = await teamWithMember();
    const created = await member.caller.token.create({ teamId: team.id, name: "VS Code" });
    const membership = (await admin.caller.team.members({ teamId: team.id })).items.find(
      (m) => m.user.id === member.userId,
    )!;
    await admin.caller.team.removeMember({ teamId: team.id, memberId: membership.id });
    await expect(activeToken(created.token)).resolves.toBeNull();
  });
});
