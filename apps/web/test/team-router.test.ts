import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedInstallation } from "@switchboard/db/seed/catalogue";
import { seedHttpTemplate, teamWithMember } from "./support/console";
import { anonymousCaller, signedInCaller } from "./support/caller";

afterAll(() => disconnectDb());

describe("team router", () => {
  it("refuses anonymous callers with UNAUTHORIZED", async () => {
    const anon = await anonymousCaller();
    await expect(anon.team.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("creates a team whose creator is its owner", async () => {
    const alice = await signedInCaller("alice");
    const team = await alice.caller.team.create({ name: "Acme Platform" + Math.random().toString(36).slice(2, 6) });
    const list = await alice.caller.team.list();
    expect(list).toEqual([expect.objectContaining({ id: team.id, role: "owner", memberCount: 1 })]);
  });

  it("rejects a duplicate team URL with a readable CONFLICT", async () => {
    const alice = await signedInCaller("alice");
    const slug = `dup-${Math.random().toString(36).slice(2, 8)}`;
    await alice.caller.team.create({ name: "First", slug });
    await expect(alice.caller.team.create({ name: "Second", slug })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining(slug),
    });
  });

  it("validates input with readable messages", async () => {
    const alice = await signedInCaller("alice");
    await expect(alice.caller.team.create({ name: "x" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(alice.caller.team.create({ name: "Valid", slug: "Bad Slug!" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("answers NOT_FOUND for another team's resources, for reads and writes alike", async () => {
    const alice = await signedInCaller("alice");
    const mallory = await signedInCaller("mallory");
    const team = await alice.caller.team.create({ name: `Secret team ${Math.random().toString(36).slice(2, 8)}` });
    await expect(mallory.caller.team.get({ teamId: team.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(mallory.caller.team.members({ teamId: team.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(mallory.caller.team.invite({ teamId: team.id, email: "x@example.test" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(mallory.caller.team.get({ teamId: "does-not-exist" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("lets an invited member join through the link, and keeps admin actions for admins", async () => {
    const alice = await signedInCaller("alice");
    const team = await alice.caller.team.create({ name: `Invites ${Math.random().toString(36).slice(2, 8)}` });
    const bob = await signedInCaller("bob");
    const invitation = await alice.caller.team.invite({ teamId: team.id, email: bob.email });
    expect(invitation.url).toMatch(new RegExp(`/invite/${invitation.id}$`));

    const view = await bob.caller.invitation.get({ invitationId: invitation.id });
    expect(view).toMatchObject({ teamName: team.name, status: "pending", forYou: true });
    await expect(bob.caller.invitation.accept({ invitationId: invitation.id })).resolves.toEqual({
      teamSlug: team.slug,
    });
    await expect(bob.caller.team.get({ teamId: team.id })).resolves.toMatchObject({ role: "member" });

    // A member is not an admin.
    await expect(bob.caller.team.invite({ teamId: team.id, email: "carol@example.test" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(bob.caller.team.invitations({ teamId: team.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // The link works once.
    await expect(bob.caller.invitation.accept({ invitationId: invitation.id })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    // Inviting someone already in the team is a conflict.
    await expect(alice.caller.team.invite({ teamId: team.id, email: bob.email })).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });

  it("refuses an invitation to somebody signed in with another address", async () => {
    const alice = await signedInCaller("alice");
    const team = await alice.caller.team.create({ name: `Wrong person ${Math.random().toString(36).slice(2, 8)}` });
    const invitation = await alice.caller.team.invite({ teamId: team.id, email: "intended@example.test" });
    const eve = await signedInCaller("eve");
    await expect(eve.caller.invitation.accept({ invitationId: invitation.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(eve.caller.team.get({ teamId: team.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("lists members with when they joined and their last call to the team's servers, searchable by name or email", async () => {
    const { admin, member, team } = await teamWithMember();
    const installation = await seedInstallation(getDb(), { template: await seedHttpTemplate(team.id) });
    const lastCall = new Date(Date.now() - 3600_000);
    for (const createdAt of [new Date(Date.now() - 7200_000), lastCall]) {
      await getDb().toolCallLog.create({
        data: {
          teamId: team.id,
          installationId: installation.id,
          userId: member.userId,
          method: "tools/call",
          target: "echo",
          durationMs: 1,
          outcome: "success",
          createdAt,
        },
      });
    }
    // A call in another team does not make them active in this one.
    const other = await admin.caller.team.create({ name: `Elsewhere ${Math.random().toString(36).slice(2, 8)}` });
    const elsewhere = await seedInstallation(getDb(), { template: await seedHttpTemplate(other.id) });
    await getDb().toolCallLog.create({
      data: {
        teamId: other.id,
        installationId: elsewhere.id,
        userId: admin.userId,
        method: "tools/call",
        target: "echo",
        durationMs: 1,
        outcome: "success",
      },
    });

    const { items } = await member.caller.team.members({ teamId: team.id });
    const byEmail = new Map(items.map((m) => [m.user.email, m]));
    expect(byEmail.get(member.email)!.lastActiveAt).toEqual(lastCall);
    expect(byEmail.get(admin.email)!.lastActiveAt).toBeNull();
    expect(byEmail.get(admin.email)!.joinedAt.getTime()).toBeLessThanOrEqual(
      byEmail.get(member.email)!.joinedAt.getTime(),
    );

    const found = async (search: string) =>
      (await admin.caller.team.members({ teamId: team.id, search })).items.map((m) => m.user.email);
    expect(await found(member.email.toUpperCase())).toEqual([member.email]);
    expect(await found("admin-")).toEqual([admin.email]);
    expect(await found("no such person")).toEqual([]);
  });

  it("keeps at least one owner and removes a member with their instances", async () => {
    const alice = await signedInCaller("alice");
    const team = await alice.caller.team.create({ name: `Owners ${Math.random().toString(36).slice(2, 8)}` });
    const members = await alice.caller.team.members({ teamId: team.id });
    const aliceMembership = members.items[0]!;
    await expect(
      alice.caller.team.changeRole({ teamId: team.id, memberId: aliceMembership.id, role: "member" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });

    const bob = await signedInCaller("bob");
    const inv = await alice.caller.team.invite({ teamId: team.id, email: bob.email });
    await bob.caller.invitation.accept({ invitationId: inv.id });
    const bobMembership = (await alice.caller.team.members({ teamId: team.id })).items.find(
      (m) => m.user.email === bob.email,
    )!;
    await alice.caller.team.removeMember({ teamId: team.id, memberId: bobMembership.id });
    await expect(bob.caller.team.get({ teamId: team.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("lets only an owner make someone an owner: an admin's attempt is refused on the server, whatever the page offers", async () => {
    const alice = await signedInCaller("alice");
    const team = await alice.caller.team.create({ name: `Owner rule ${Math.random().toString(36).slice(2, 8)}` });
    const bob = await signedInCaller("bob");
    const carol = await signedInCaller("carol");
    for (const [who, role] of [
      [bob, "admin"],
      [carol, "member"],
    ] as const) {
      const inv = await alice.caller.team.invite({ teamId: team.id, email: who.email, role });
      await who.caller.invitation.accept({ invitationId: inv.id });
    }
    const carolMembership = (await alice.caller.team.members({ teamId: team.id })).items.find(
      (m) => m.user.email === carol.email,
    )!;
    await expect(
      bob.caller.team.changeRole({ teamId: team.id, memberId: carolMembership.id, role: "owner" }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      carol.caller.team.changeRole({ teamId: team.id, memberId: carolMembership.id, role: "admin" }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(
      (await alice.caller.team.members({ teamId: team.id })).items.find((m) => m.id === carolMembership.id)?.role,
    ).toBe("member");
    await alice.caller.team.changeRole({ teamId: team.id, memberId: carolMembership.id, role: "owner" });
    expect(
      (await alice.caller.team.members({ teamId: team.id })).items.find((m) => m.id === carolMembership.id)?.role,
    ).toBe("owner");
  });

  it("paginates members with a cursor", async () => {
    const alice = await signedInCaller("alice");
    const team = await alice.caller.team.create({ name: `Pages ${Math.random().toString(36).slice(2, 8)}` });
    for (let i = 0; i < 3; i++) {
      const m = await signedInCaller(`m${i}`);
      const inv = await alice.caller.team.invite({ teamId: team.id, email: m.email });
      await m.caller.invitation.accept({ invitationId: inv.id });
    }
    const first = await alice.caller.team.members({ teamId: team.id, limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.nextCursor).not.toBeNull();
    const second = await alice.caller.team.members({ teamId: team.id, limit: 3, cursor: first.nextCursor });
    expect(second.items).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    expect(new Set([...first.items, ...second.items].map((m) => m.id)).size).toBe(4);
  });
});
