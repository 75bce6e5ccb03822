import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { createGroupMapping } from "@switchboard/db/queries/identity-groups";
import { closeJobs } from "@switchboard/runtime/jobs";
import { applyIdentityGroups } from "~/server/services/identity-groups.service";
import { signedInCaller } from "./support/caller";
import { queuedJobs, seedInstalled, teamWithInstances, teamWithMember } from "./support/console";
import { scim, scimUser } from "./support/scim";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const suffix = () => Math.random().toString(36).slice(2, 8);

/** A provider of its own per test, so that no other test's mappings count. */
function provider() {
  return `oidc-${suffix()}`;
}

async function map(
  providerId: string,
  groupName: string,
  teamId: string,
  role: "owner" | "admin" | "member",
  by: string,
) {
  await createGroupMapping(getDb(), { providerId, groupName, teamId, role, createdById: by });
}

async function roleIn(teamId: string, userId: string) {
  const m = await getDb().membership.findUnique({ where: { teamId_userId: { teamId, userId } } });
  return m?.role ?? null;
}

describe("applyIdentityGroups", () => {
  it("adds the member to a mapped team with the highest role their groups give, and starts their instances", async () => {
    const { admin, team } = await teamWithMember();
    const { member: newcomer } = await teamWithMember();
    const { installation } = await seedInstalled(team.id);
    const p = provider();
    await map(p, "Engineering", team.id, "member", admin.userId);
    await map(p, "Eng Leads", team.id, "admin", admin.userId);

    const outcome = await applyIdentityGroups({
      userId: newcomer.userId,
      providerId: p,
      groups: ["engineering", "Eng Leads"],
    });
    expect(outcome.add).toEqual([{ teamId: team.id, role: "admin" }]);
    expect(await roleIn(team.id, newcomer.userId)).toBe("admin");
    expect(await queuedJobs("installation.created")).toContainEqual(
      expect.objectContaining({ installationId: installation.id }),
    );
    const audit = await getDb().auditEvent.findFirst({
      where: { teamId: team.id, action: "identity_groups.member_added", targetId: newcomer.userId },
    });
    expect(audit).toMatchObject({ actorLabel: `identity provider ${p}` });
  });

  it("changes the role when the groups change, both ways", async () => {
    const { admin, member, team } = await teamWithMember();
    const p = provider();
    await map(p, "staff", team.id, "member", admin.userId);
    await map(p, "leads", team.id, "admin", admin.userId);
    await applyIdentityGroups({ userId: member.userId, providerId: p, groups: ["staff", "leads"] });
    expect(await roleIn(team.id, member.userId)).toBe("admin");
    await applyIdentityGroups({ userId: member.userId, providerId: p, groups: ["staff"] });
    expect(await roleIn(team.id, member.userId)).toBe("member");
    expect(await getDb().auditEvent.count({ where: { teamId: team.id, action: "identity_groups.role_changed" } })).toBe(
      2,
    );
  });

  it("removes a member no group gives the mapped team any more, with the clean-up of a removal", async () => {
    const { admin, member, team, membersInstance, adminsInstance, db } = await teamWithInstances();
    const p = provider();
    await map(p, "staff", team.id, "member", admin.userId);
    const { id: tokenId } = await member.caller.token.create({ teamId: team.id, name: "laptop" });

    const outcome = await applyIdentityGroups({ userId: member.userId, providerId: p, groups: ["sales"] });
    expect(outcome.remove).toEqual([{ teamId: team.id, role: "member" }]);
    expect(await roleIn(team.id, member.userId)).toBeNull();
    expect(await db.personalAccessToken.findUnique({ where: { id: tokenId } })).toBeNull();
    expect(await db.instance.findUnique({ where: { id: membersInstance.id } })).toBeNull();
    expect(await queuedJobs("member.removed")).toContainEqual(
      expect.objectContaining({ teamId: team.id, userId: member.userId, instanceIds: [membersInstance.id] }),
    );
    // Only the member's part goes: the owner's instance stays.
    expect(await db.instance.findUnique({ where: { id: adminsInstance.id } })).not.toBeNull();
  });

  it("keeps the last owner of a mapped team in it, and leaves teams without mappings alone", async () => {
    const { admin, member, team } = await teamWithMember();
    const { admin: otherOwner, team: manualTeam } = await teamWithMember();
    const p = provider();
    await map(p, "staff", team.id, "member", otherOwner.userId);
    const outcome = await applyIdentityGroups({ userId: admin.userId, providerId: p, groups: [] });
    expect(outcome.kept).toEqual([{ teamId: team.id, reason: "last owner" }]);
    expect(await roleIn(team.id, admin.userId)).toBe("owner");
    // The member of the mapped team leaves; the owner's membership of a team nobody mapped stays.
    await applyIdentityGroups({ userId: member.userId, providerId: p, groups: [] });
    expect(await roleIn(team.id, member.userId)).toBeNull();
    await applyIdentityGroups({ userId: otherOwner.userId, providerId: p, groups: [] });
    expect(await roleIn(manualTeam.id, otherOwner.userId)).toBe("owner");
  });

  it("changes nothing for a provider without mappings", async () => {
    const { member, team } = await teamWithMember();
    const outcome = await applyIdentityGroups({ userId: member.userId, providerId: provider(), groups: ["x"] });
    expect(outcome).toEqual({ add: [], change: [], remove: [], kept: [] });
    expect(await roleIn(team.id, member.userId)).toBe("member");
  });
});

describe("group mappings in the console", () => {
  it("a deployment owner maps a SCIM group; its members follow at once, and a removed mapping lowers their role", async () => {
    const { admin, team } = await teamWithMember();
    const owner = await signedInCaller("owner");
    await getDb().user.update({ where: { id: owner.userId }, data: { deploymentOwner: true } });
    const person = await scim("POST", "/Users", scimUser(`mapped-${suffix()}@example.test`));
    const userId = person.body!.id as string;
    const leads = `leads-${suffix()}`;
    await scim("POST", "/Groups", { displayName: leads, members: [{ value: userId }] });
    await scim("POST", "/Groups", { displayName: `${leads}-all`, members: [{ value: userId }] });

    await owner.caller.identity.addGroupMapping({
      providerId: "scim",
      groupName: `${leads}-all`,
      teamId: team.id,
      role: "member",
    });
    const { id } = await owner.caller.identity.addGroupMapping({
      providerId: "scim",
      groupName: ` ${leads.toUpperCase()} `,
      teamId: team.id,
      role: "admin",
    });
    expect(await roleIn(team.id, userId)).toBe("admin");
    await expect(
      owner.caller.identity.addGroupMapping({ providerId: "scim", groupName: leads, teamId: team.id, role: "owner" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    expect((await owner.caller.identity.groupMappings()).filter((m) => m.team.id === team.id)).toHaveLength(2);

    await expect(
      owner.caller.identity.removeGroupMapping({ teamId: admin.userId, mappingId: id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await owner.caller.identity.removeGroupMapping({ teamId: team.id, mappingId: id });
    expect(await roleIn(team.id, userId)).toBe("member");
    // The mapping changes are in the team's audit trail, with who made them.
    const actions = await getDb().auditEvent.findMany({
      where: { teamId: team.id, action: { startsWith: "identity." } },
      select: { action: true, actorId: true },
    });
    expect(actions).toEqual(
      expect.arrayContaining([
        { action: "identity.addGroupMapping", actorId: owner.userId },
        { action: "identity.removeGroupMapping", actorId: owner.userId },
      ]),
    );
    // Anyone else (the run's first account may be a deployment owner, so a fresh one) does not see them.
    const someone = await signedInCaller("someone");
    await expect(someone.caller.identity.groupMappings()).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("shows the SCIM token once, keeps only its hash, and a rotation ends the old one", async () => {
    const owner = await signedInCaller("owner");
    await getDb().user.update({ where: { id: owner.userId }, data: { deploymentOwner: true } });
    const first = await owner.caller.identity.createScimToken();
    expect(first.token).toMatch(/^sbscim_/);
    expect(await owner.caller.identity.scimToken()).toMatchObject({ prefix: first.prefix });
    expect(JSON.stringify(await getDb().scimToken.findMany())).not.toContain(first.token);
    expect((await scim("GET", "/Users", undefined, { bearer: first.token })).status).toBe(200);
    const second = await owner.caller.identity.createScimToken();
    expect((await scim("GET", "/Users", undefined, { bearer: first.token })).status).toBe(401);
    expect((await scim("GET", "/Users", undefined, { bearer: second.token })).status).toBe(200);
    await owner.caller.identity.revokeScimToken();
    expect((await scim("GET", "/Users", undefined, { bearer: second.token })).status).toBe(401);
    expect(await owner.caller.identity.scimToken()).toBeNull();
  });
});
