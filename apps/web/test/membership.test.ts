import { afterAll, describe, expect, it } from "vitest";
import { JOB_NAMES } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getAuth } from "~/server/auth";
import { closeJobs } from "@switchboard/runtime/jobs";
import { liveEventsReady, onAuthInvalidation, type AuthInvalidation } from "@switchboard/runtime/live-events";
import { activeToken } from "./support/tokens";
import { signedInCaller } from "./support/caller";
import { queuedJobs, seedInstalled, teamWithMember } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const APP = process.env.APP_URL ?? "http://localhost:3000";

/** A request to Better Auth's HTTP handler as the browser would send it, with the caller's session cookie. */
function authRequest(path: string, headers: Headers, body: unknown) {
  return getAuth().handler(
    new Request(`${APP}/api/auth${path}`, {
      method: "POST",
      headers: { cookie: headers.get("cookie") ?? "", origin: APP, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

/** Messages every gateway process receives on the invalidation channel. */
async function listenForInvalidations() {
  const seen: AuthInvalidation[] = [];
  const stop = onAuthInvalidation((m) => seen.push(m));
  await liveEventsReady();
  return { seen, stop };
}

async function memberWithTokenAndInstance() {
  const { admin, member, team } = await teamWithMember();
  const { installation } = await seedInstalled(team.id);
  // seedInstalled creates every member's instance, as the worker would.
  const instance = await getDb().instance.findFirstOrThrow({
    where: { installationId: installation.id, userId: member.userId },
  });
  const { token } = await member.caller.token.create({ teamId: team.id, name: "laptop" });
  // Valid until the change below; the gateway caches it, and drops it when told (listenForInvalidations).
  await expect(activeToken(token)).resolves.toMatchObject({ userId: member.userId, teamId: team.id });
  const membershipId = (await admin.caller.team.members({ teamId: team.id })).items.find(
    (m) => m.user.email === member.email,
  )!.id;
  return { admin, member, team, installation, instance, token, membershipId };
}

describe("membership changes through Better Auth's own endpoints", () => {
  it("refuses remove-member, leave, delete and role updates over HTTP and leaves the team as it was", async () => {
    const { admin, member, team, token, membershipId } = await memberWithTokenAndInstance();
    const attempts: Array<[string, Headers, unknown]> = [
      ["/organization/remove-member", admin.headers, { memberIdOrEmail: member.email, organizationId: team.id }],
      [
        "/organization/update-member-role",
        admin.headers,
        { memberId: membershipId, role: "admin,member", organizationId: team.id },
      ],
      ["/organization/leave", member.headers, { organizationId: team.id }],
      ["/organization/delete", admin.headers, { organizationId: team.id }],
      ["/organization/update", admin.headers, { organizationId: team.id, data: { slug: "Odd Slug/../x?" } }],
      ["/organization/create", admin.headers, { name: "Sneaky", slug: "Odd Slug/../x?" }],
      [
        "/organization/invite-member",
        admin.headers,
        { email: "eve@example.test", role: "admin,member", organizationId: team.id },
      ],
      ["/organization/accept-invitation", member.headers, { invitationId: "any" }],
      ["/organization/set-active", member.headers, { organizationId: team.id }],
      ["/organization/list", member.headers, {}],
      ["//organization/leave", member.headers, { organizationId: team.id }],
      ["/Organization/leave", member.headers, { organizationId: team.id }],
      ["/organization%2Fleave", member.headers, { organizationId: team.id }],
    ];
    for (const [path, headers, body] of attempts) {
      const res = await authRequest(path, headers, body);
      expect(res.status, path).toBe(404);
    }
    const db = getDb();
    await expect(db.membership.findUnique({ where: { id: membershipId } })).resolves.toMatchObject({ role: "member" });
    await expect(db.team.findUnique({ where: { id: team.id } })).resolves.toMatchObject({ slug: team.slug });
    await expect(db.team.count({ where: { name: "Sneaky" } })).resolves.toBe(0);
    await expect(db.invitation.count({ where: { teamId: team.id, email: "eve@example.test" } })).resolves.toBe(0);
    await expect(activeToken(token)).resolves.toMatchObject({ userId: member.userId });
  });

  it("keeps in-process calls to the organization API to our roles and slug rule", async () => {
    const { admin, team } = await teamWithMember();
    await expect(
      getAuth().api.createInvitation({
        headers: admin.headers,
        body: { email: "x@example.test", role: "admin,member" as "admin", organizationId: team.id },
      }),
    ).rejects.toMatchObject({ body: { code: "INVALID_ROLE" } });
    await expect(
      getAuth().api.createInvitation({
        headers: admin.headers,
        body: { email: "x@example.test", role: "owner", organizationId: team.id },
      }),
    ).rejects.toMatchObject({ body: { code: "INVALID_ROLE" } });
    await expect(
      getAuth().api.createOrganization({ headers: admin.headers, body: { name: "Odd", slug: "Odd Slug/../x?" } }),
    ).rejects.toMatchObject({
      body: { code: "INVALID_SLUG" },
    });
  });
});

describe("membership changes through our services", () => {
  it("ends a removed member's token at once everywhere, removes their instances and hands them to the worker", async () => {
    const { admin, member, team, instance, token, membershipId } = await memberWithTokenAndInstance();
    const { seen, stop } = await listenForInvalidations();

    await admin.caller.team.removeMember({ teamId: team.id, memberId: membershipId });

    await expect(activeToken(token)).resolves.toBeNull();
    expect(await getDb().instance.count({ where: { id: instance.id } })).toBe(0);
    expect(await getDb().personalAccessToken.count({ where: { userId: member.userId, teamId: team.id } })).toBe(0);
    expect(await queuedJobs(JOB_NAMES.memberRemoved)).toContainEqual({
      teamId: team.id,
      userId: member.userId,
      instanceIds: [instance.id],
    });
    await expect.poll(() => seen).toContainEqual({ userId: member.userId, teamId: team.id });
    stop();
  });

  it("does the same cleanup when a member leaves, and keeps the last owner from leaving", async () => {
    const { admin, member, team, instance, token } = await memberWithTokenAndInstance();
    const { seen, stop } = await listenForInvalidations();

    await member.caller.team.leave({ teamId: team.id });

    await expect(activeToken(token)).resolves.toBeNull();
    expect(await getDb().instance.count({ where: { id: instance.id } })).toBe(0);
    expect(await queuedJobs(JOB_NAMES.memberRemoved)).toContainEqual({
      teamId: team.id,
      userId: member.userId,
      instanceIds: [instance.id],
    });
    await expect.poll(() => seen).toContainEqual({ userId: member.userId, teamId: team.id });
    stop();
    await expect(admin.caller.team.leave({ teamId: team.id })).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("gives a re-invited member none of their old tokens back", async () => {
    const { admin, member, team, token, membershipId } = await memberWithTokenAndInstance();
    await admin.caller.team.removeMember({ teamId: team.id, memberId: membershipId });
    const again = await admin.caller.team.invite({ teamId: team.id, email: member.email });
    await member.caller.invitation.accept({ invitationId: again.id });
    await expect(member.caller.team.get({ teamId: team.id })).resolves.toMatchObject({ role: "member" });
    await expect(activeToken(token)).resolves.toBeNull();
  });

  it("never revives a token of an earlier membership even if its row survived", async () => {
    const { member, team } = await teamWithMember();
    const { token } = await member.caller.token.create({ teamId: team.id, name: "old" });
    const db = getDb();
    // A membership younger than the token, as after leaving and joining again.
    await db.membership.updateMany({
      where: { teamId: team.id, userId: member.userId },
      data: { createdAt: new Date(Date.now() + 1_000) },
    });
    await expect(activeToken(token)).resolves.toBeNull();
  });

  it("lets only an owner make an owner", async () => {
    const { admin, member, team } = await teamWithMember();
    const carol = await signedInCaller("carol");
    const inv = await admin.caller.team.invite({ teamId: team.id, email: carol.email, role: "admin" });
    await carol.caller.invitation.accept({ invitationId: inv.id });
    const memberId = (await admin.caller.team.members({ teamId: team.id })).items.find(
      (m) => m.user.email === member.email,
    )!.id;

    await expect(carol.caller.team.changeRole({ teamId: team.id, memberId, role: "owner" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(carol.caller.team.changeRole({ teamId: team.id, memberId, role: "admin" })).resolves.toEqual({
      ok: true,
    });
    await expect(admin.caller.team.changeRole({ teamId: team.id, memberId, role: "owner" })).resolves.toEqual({
      ok: true,
    });
    // Roles are exactly ours.
    await expect(
      admin.caller.team.changeRole({ teamId: team.id, memberId, role: "admin,member" as "admin" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("deletes a team: every member's token ends at once and the worker is told to stop each installation's instances", async () => {
    const { admin, member, team, installation, instance, token } = await memberWithTokenAndInstance();
    const { token: adminToken } = await admin.caller.token.create({ teamId: team.id, name: "admin" });
    await expect(activeToken(adminToken)).resolves.toMatchObject({ teamId: team.id });
    const { seen, stop } = await listenForInvalidations();

    await expect(member.caller.team.delete({ teamId: team.id, confirmSlug: team.slug })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(admin.caller.team.delete({ teamId: team.id, confirmSlug: "not-it" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await admin.caller.team.delete({ teamId: team.id, confirmSlug: team.slug });

    await expect(activeToken(token)).resolves.toBeNull();
    await expect(activeToken(adminToken)).resolves.toBeNull();
    expect(await getDb().team.count({ where: { id: team.id } })).toBe(0);
    const removal = (await queuedJobs(JOB_NAMES.installationRemoved)).find((j) => j.installationId === installation.id);
    expect(removal).toMatchObject({ teamId: team.id });
    expect(removal!.instanceIds).toContain(instance.id);
    await expect.poll(() => seen).toContainEqual({ teamId: team.id });
    stop();
  });

  it("has the database refuse roles and slugs outside our rules, whatever path writes them", async () => {
    const { member, team } = await teamWithMember();
    const db = getDb();
    await expect(
      db.membership.updateMany({ where: { teamId: team.id, userId: member.userId }, data: { role: "admin,member" } }),
    ).rejects.toThrow();
    await expect(db.team.update({ where: { id: team.id }, data: { slug: "Odd Slug/../x?" } })).rejects.toThrow();
    await expect(db.membership.findFirst({ where: { teamId: team.id, userId: member.userId } })).resolves.toMatchObject(
      { role: "member" },
    );
  });

  it("refuses a team URL that breaks the slug rule", async () => {
    const alice = await signedInCaller("alice");
    for (const slug of ["Odd Slug/../x?", "a--b", "x"]) {
      await expect(alice.caller.team.create({ name: "Valid name", slug })).rejects.toMatchObject({
        code: "BAD_REQUEST",
      });
    }
  });
});
