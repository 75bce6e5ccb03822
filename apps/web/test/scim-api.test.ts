/**
 * The SCIM 2.0 endpoint driven as an identity provider drives it (Okta's and Entra ID's request shapes), through
 * the console's route handler, against the real database and job queue.
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { createGroupMapping } from "@switchboard/db/queries/identity-groups";
import { closeJobs } from "@switchboard/runtime/jobs";
import { getAuth } from "~/server/auth";
import { signedInCaller, signIn } from "./support/caller";
import { queuedJobs, teamWithInstances, teamWithMember } from "./support/console";
import { GROUP_SCHEMA, patch, scim, scimToken, scimUser } from "./support/scim";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const email = () => `scim-${randomBytes(4).toString("hex")}@example.test`;
const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
const USER_URN = "urn:ietf:params:scim:schemas:core:2.0:User";

describe("SCIM users", () => {
  it("answers 401 in SCIM's error shape without the deployment's token, or with a wrong one", async () => {
    await scimToken();
    for (const bearer of [null, "sbscim_wrong", ""]) {
      const res = await scim("GET", "/Users", undefined, { bearer });
      expect(res.status).toBe(401);
      expect(res.contentType).toBe("application/scim+json");
      expect(res.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: "401" });
    }
  });

  it("provisions a user, finds them by userName, updates them with PATCH and PUT, and deletes them", async () => {
    const address = email();
    const created = await scim("POST", "/Users", scimUser(address));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ userName: address, active: true, displayName: "Ada Lovelace" });
    const id = created.body!.id as string;
    expect(await getDb().user.findUnique({ where: { id } })).toMatchObject({ email: address, emailVerified: true });

    const found = await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${address.toUpperCase()}"`)}`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id }] });

    expect((await scim("POST", "/Users", scimUser(address))).body).toMatchObject({
      status: "409",
      scimType: "uniqueness",
    });

    const patched = await scim(
      "PATCH",
      `/Users/${id}`,
      patch({ op: "Replace", path: "displayName", value: "Ada King" }),
    );
    expect(patched.body).toMatchObject({ displayName: "Ada King", active: true });

    const renamed = email();
    const put = await scim("PUT", `/Users/${id}`, scimUser(renamed, { displayName: "Countess" }));
    expect(put.body).toMatchObject({ userName: renamed, displayName: "Countess", emails: [{ value: renamed }] });

    expect((await scim("DELETE", `/Users/${id}`)).status).toBe(204);
    expect(await getDb().user.findUnique({ where: { id } })).toBeNull();
    expect((await scim("GET", `/Users/${id}`)).body).toMatchObject({ status: "404", schemas: [ERROR_SCHEMA] });
  });

  it("deactivation ends every session, token and grant of the person at once, stops their instances, and refuses their sign-in until reactivated", async () => {
    const { member, team, membersInstance, db } = await teamWithInstances();
    await member.caller.token.create({ teamId: team.id, name: "laptop" });
    // The provider takes over the existing account with this address.
    const linked = await scim("POST", "/Users", scimUser(member.email));
    expect(linked.body!.id).toBe(member.userId);
    expect(await db.session.count({ where: { userId: member.userId } })).toBeGreaterThan(0);

    // Entra ID's shape: a string boolean.
    const off = await scim(
      "PATCH",
      `/Users/${member.userId}`,
      patch({ op: "Replace", path: "active", value: "False" }),
    );
    expect(off.body).toMatchObject({ active: false });
    expect(await db.session.count({ where: { userId: member.userId } })).toBe(0);
    expect(await db.personalAccessToken.count({ where: { userId: member.userId } })).toBe(0);
    expect(await db.instance.findUnique({ where: { id: membersInstance.id } })).toBeNull();
    expect(await queuedJobs("member.removed")).toContainEqual(
      expect.objectContaining({ teamId: team.id, userId: member.userId, instanceIds: [membersInstance.id] }),
    );
    // The console's session cookie no longer opens anything.
    expect(await getAuth().api.getSession({ headers: member.headers })).toBeNull();
    await expect(signIn(member.email)).rejects.toThrow(/deactivated/);
    // The membership waits for the provider to reactivate them.
    expect(await db.membership.count({ where: { userId: member.userId, teamId: team.id } })).toBe(1);

    // Okta's shape: no path, an object value.
    const on = await scim("PATCH", `/Users/${member.userId}`, patch({ op: "replace", value: { active: true } }));
    expect(on.body).toMatchObject({ active: true });
    await expect(signIn(member.email)).resolves.toBeInstanceOf(Headers);
  });

  it("deleting a member removes the account and stops their instances", async () => {
    const { member, team, membersInstance } = await teamWithInstances();
    await scim("POST", "/Users", scimUser(member.email));
    expect((await scim("DELETE", `/Users/${member.userId}`)).status).toBe(204);
    expect(await getDb().user.findUnique({ where: { id: member.userId } })).toBeNull();
    expect(await queuedJobs("member.removed")).toContainEqual(
      expect.objectContaining({ teamId: team.id, userId: member.userId, instanceIds: [membersInstance.id] }),
    );
    await expect(
      getAuth().api.signInEmail({ body: { email: member.email, password: "correct-horse-battery" } }),
    ).rejects.toThrow();
  });

  it("answers bad input with a 4xx in SCIM's shape, never a 5xx", async () => {
    const cases: Array<[Awaited<ReturnType<typeof scim>>, number, string | undefined]> = [
      [await scim("POST", "/Users", undefined, { raw: "{not json" }), 400, "invalidSyntax"],
      [await scim("POST", "/Users", { userName: "no-address" }), 400, "invalidValue"],
      [await scim("POST", "/Users", { userName: 5 }), 400, "invalidValue"],
      [await scim("POST", "/Users", scimUser(email(), { displayName: "a\u0000b" })), 400, "invalidValue"],
      [await scim("POST", "/Users", []), 400, "invalidValue"],
      [await scim("GET", `/Users?filter=${encodeURIComponent('name.givenName co "x"')}`), 400, "invalidFilter"],
      [await scim("GET", "/Users?startIndex=abc&count=-4"), 200, undefined],
      [await scim("GET", "/Users/%00"), 404, undefined],
      [await scim("GET", "/Users/%E0%A4%A"), 404, undefined],
      [await scim("GET", "/Nope"), 404, undefined],
      [await scim("POST", "/ServiceProviderConfig", {}), 405, undefined],
    ];
    const created = await scim("POST", "/Users", scimUser(email()));
    const id = created.body!.id as string;
    cases.push(
      [await scim("PATCH", `/Users/${id}`, patch({ op: "explode", path: "active" })), 400, "invalidSyntax"],
      [await scim("PATCH", `/Users/${id}`, { Operations: [] }), 400, "invalidSyntax"],
      [await scim("PATCH", `/Users/${id}`, patch({ op: "remove", path: "userName" })), 400, "mutability"],
      [
        await scim("PATCH", `/Users/${id}`, patch({ op: "replace", path: "active", value: "maybe" })),
        400,
        "invalidValue",
      ],
      [await scim("PATCH", `/Users/${id}`, patch({ op: "replace", path: 7 })), 400, "invalidPath"],
    );
    for (const [res, status, scimType] of cases) {
      expect(res.status).toBe(status);
      if (status === 200) continue;
      expect(res.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status) });
      expect(res.body!.scimType).toBe(scimType);
    }
    expect((await scim("GET", "/ServiceProviderConfig")).body).toMatchObject({ patch: { supported: true } });
  });
});

describe("SCIM and a team's only owner", () => {
  /** A team its owner made, with members who joined on the given days (earliest first stands longest). */
  async function teamOf(members: Array<{ role: "admin" | "member"; joined: string }>) {
    const owner = await signedInCaller("owner");
    const team = await owner.caller.team.create({ name: `Owned ${randomBytes(3).toString("hex")}` });
    const people = [];
    for (const m of members) {
      const person = await signedInCaller(m.role);
      const inv = await owner.caller.team.invite({ teamId: team.id, email: person.email });
      await person.caller.invitation.accept({ invitationId: inv.id });
      await getDb().membership.update({
        where: { teamId_userId: { teamId: team.id, userId: person.userId } },
        data: { role: m.role, createdAt: new Date(m.joined) },
      });
      people.push(person);
    }
    await scim("POST", "/Users", scimUser(owner.email));
    return { owner, team, people };
  }
  const roleOf = async (teamId: string, userId: string) =>
    (await getDb().membership.findUnique({ where: { teamId_userId: { teamId, userId } } }))?.role;

  it("deactivating the only owner makes the longest-standing active admin owner, in the team's audit trail", async () => {
    const { owner, team, people } = await teamOf([
      { role: "member", joined: "2020-01-01" },
      { role: "admin", joined: "2021-01-01" },
      { role: "admin", joined: "2022-01-01" },
      { role: "admin", joined: "2019-01-01" },
    ]);
    const [member, admin, laterAdmin, deactivatedAdmin] = people;
    // The longest-standing admin is deactivated already: a person who cannot sign in cannot run the team.
    await scim("POST", "/Users", scimUser(deactivatedAdmin!.email, { active: false }));

    const off = await scim("PATCH", `/Users/${owner.userId}`, patch({ op: "replace", value: { active: false } }));
    expect(off.status).toBe(200);
    expect(await roleOf(team.id, admin!.userId)).toBe("owner");
    expect(await roleOf(team.id, laterAdmin!.userId)).toBe("admin");
    expect(await roleOf(team.id, member!.userId)).toBe("member");
    expect(await roleOf(team.id, deactivatedAdmin!.userId)).toBe("admin");
    const record = await getDb().auditEvent.findFirst({ where: { teamId: team.id, action: "scim.owner_succeeded" } });
    expect(record).toMatchObject({ actorLabel: "SCIM", targetId: admin!.userId });
    expect(record!.detail).toMatchObject({ from: "admin", previousOwner: owner.email, because: "deactivated" });
    // Reactivated, the former owner is back with their role, beside the new one.
    await scim("PATCH", `/Users/${owner.userId}`, patch({ op: "replace", value: { active: true } }));
    expect(await roleOf(team.id, owner.userId)).toBe("owner");
    expect(await roleOf(team.id, admin!.userId)).toBe("owner");
  });

  it("deleting the only owner makes the longest-standing member owner, and flags a team left with nobody", async () => {
    const { owner, team, people } = await teamOf([
      { role: "member", joined: "2021-01-01" },
      { role: "member", joined: "2020-01-01" },
    ]);
    const alone = await owner.caller.team.create({ name: `Alone ${randomBytes(3).toString("hex")}` });
    const since = new Date();
    expect((await scim("DELETE", `/Users/${owner.userId}`)).status).toBe(204);

    expect(await roleOf(team.id, people[1]!.userId)).toBe("owner");
    expect(await roleOf(team.id, people[0]!.userId)).toBe("member");
    const record = await getDb().auditEvent.findFirst({ where: { teamId: team.id, action: "scim.owner_succeeded" } });
    expect(record?.detail).toMatchObject({ from: "member", previousOwner: owner.email, because: "deleted" });

    const flagged = await getDb().auditEvent.findFirst({
      where: { chain: "deployment", action: "scim.team_left_without_owner", createdAt: { gte: since } },
    });
    expect(flagged).toMatchObject({ targetId: alone.id, targetLabel: alone.name });
    const deploymentOwner = await signedInCaller("deployment-owner");
    await getDb().user.update({ where: { id: deploymentOwner.userId }, data: { deploymentOwner: true } });
    const listed = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page = await deploymentOwner.caller.deployment.teams({ limit: 100, cursor });
      listed.push(...page.items);
      cursor = page.nextCursor;
    }
    expect(listed.find((t) => t.id === alone.id)).toMatchObject({ hasOwner: false, memberCount: 0 });
    expect(listed.find((t) => t.id === team.id)).toMatchObject({ hasOwner: true });
  });
});

describe("SCIM discovery", () => {
  const SCHEMA_URN = "urn:ietf:params:scim:schemas:core:2.0:Schema";
  const RESOURCE_TYPE_URN = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
  const LIST_URN = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

  it("describes what it supports, its resource types and their schemas, as Okta and Entra ID read them", async () => {
    const config = await scim("GET", "/ServiceProviderConfig");
    expect(config.status).toBe(200);
    expect(config.contentType).toBe("application/scim+json");
    expect(config.body).toMatchObject({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [{ type: "oauthbearertoken", primary: true }],
      meta: { resourceType: "ServiceProviderConfig" },
    });
    expect((config.body!.meta as { location: string }).location).toMatch(/\/api\/scim\/v2\/ServiceProviderConfig$/);

    const types = await scim("GET", "/ResourceTypes");
    expect(types.body).toMatchObject({ schemas: [LIST_URN], totalResults: 2, startIndex: 1, itemsPerPage: 2 });
    expect(types.body!.Resources).toEqual([
      expect.objectContaining({ schemas: [RESOURCE_TYPE_URN], id: "User", endpoint: "/Users", schema: USER_URN }),
      expect.objectContaining({ schemas: [RESOURCE_TYPE_URN], id: "Group", endpoint: "/Groups", schema: GROUP_SCHEMA }),
    ]);
    expect((await scim("GET", "/ResourceTypes/Group")).body).toMatchObject({
      id: "Group",
      meta: { resourceType: "ResourceType", location: expect.stringMatching(/\/ResourceTypes\/Group$/) },
    });

    const schemas = await scim("GET", "/Schemas");
    expect(schemas.body).toMatchObject({ schemas: [LIST_URN], totalResults: 2 });
    expect((schemas.body!.Resources as Array<{ id: string }>).map((r) => r.id)).toEqual([USER_URN, GROUP_SCHEMA]);
    // One schema by its URN: the attributes this server keeps, each with RFC 7643's characteristics.
    const user = await scim("GET", `/Schemas/${USER_URN}`);
    expect(user.body).toMatchObject({ schemas: [SCHEMA_URN], id: USER_URN, name: "User" });
    const attributes = user.body!.attributes as Array<Record<string, unknown>>;
    expect(attributes.map((a) => a.name)).toEqual(["userName", "name", "displayName", "active", "emails", "groups"]);
    expect(attributes.find((a) => a.name === "userName")).toMatchObject({
      type: "string",
      required: true,
      uniqueness: "server",
      mutability: "readWrite",
      returned: "default",
      multiValued: false,
      caseExact: false,
    });
    expect(attributes.find((a) => a.name === "groups")).toMatchObject({ multiValued: true, mutability: "readOnly" });
    const group = await scim("GET", `/Schemas/${GROUP_SCHEMA}`);
    expect((group.body!.attributes as Array<{ name: string }>).map((a) => a.name)).toEqual(["displayName", "members"]);
  });

  it("keeps discovery behind the token, refuses filters with 403 and unknown ids with 404", async () => {
    for (const path of [
      "/ServiceProviderConfig",
      "/ResourceTypes",
      "/ResourceTypes/User",
      "/Schemas",
      `/Schemas/${USER_URN}`,
    ]) {
      const res = await scim("GET", path, undefined, { bearer: "sbscim_wrong" });
      expect(res.status, path).toBe(401);
      expect(res.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: "401" });
    }
    const filtered = await scim("GET", `/Schemas?filter=${encodeURIComponent('id eq "x"')}`);
    expect(filtered.status).toBe(403);
    expect(filtered.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: "403" });
    for (const path of ["/Schemas/urn:example:nope", "/ResourceTypes/Widget", "/ServiceProviderConfig/x"]) {
      const res = await scim("GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: "404" });
    }
    expect((await scim("PUT", "/Schemas", {})).status).toBe(405);
  });
});

describe("SCIM rate limit", () => {
  it("answers 429 with Retry-After past 1,200 requests a minute from one address, and counts others apart", async () => {
    const from = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1201; i++) {
      const { status } = await scim("GET", "/ServiceProviderConfig", undefined, { bearer: null, from });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: 1200, 429: 1 });
    const limited = await scim("GET", "/Users", undefined, { from });
    expect(limited.body).toMatchObject({ status: "429", schemas: [ERROR_SCHEMA] });
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    // Another client (whatever address this one claims further left) is not held up.
    expect((await scim("GET", "/Users", undefined, { from: "192.0.2.7" })).status).toBe(200);
  });
});

describe("SCIM bad text", () => {
  it("answers a NUL or a lone surrogate in any string of a user or group with 400, and stores nothing", async () => {
    const address = email();
    const bodies: Array<[string, Record<string, unknown>]> = [
      ["/Users", scimUser(address, { displayName: "Ada", title: "Engineer" })],
      ["/Groups", { schemas: [GROUP_SCHEMA], displayName: `bad-${address}`, externalId: "x" }],
    ];
    for (const [path, body] of bodies) {
      const json = JSON.stringify(body);
      // Every string value in turn, as JSON text: a NUL escape, then a lone surrogate escape.
      const strings = [...json.matchAll(/"((?:[^"\\]|\\.)*)"(?=\s*[,}\]])/g)].map((m) => m.index! + 1);
      expect(strings.length).toBeGreaterThanOrEqual(3);
      for (const at of strings) {
        for (const bad of ["\\u0000", "\\ud800"]) {
          const raw = `${json.slice(0, at)}${bad}${json.slice(at)}`;
          const res = await scim("POST", path, undefined, { raw });
          expect(res.status, `${path} ${raw}`).toBe(400);
          expect(res.body).toMatchObject({ scimType: "invalidValue" });
        }
      }
    }
    expect(await getDb().user.count({ where: { email: address } })).toBe(0);
  });
});

describe("SCIM groups", () => {
  it("moves a member into a mapped team with the right role and out again as the provider changes the groups", async () => {
    const { admin, member, team } = await teamWithMember();
    const { member: manualMember, team: manualTeam } = await teamWithMember();
    const staff = `staff-${randomBytes(3).toString("hex")}`;
    const leads = `leads-${randomBytes(3).toString("hex")}`;
    const db = getDb();
    await createGroupMapping(db, {
      providerId: "scim",
      groupName: staff,
      teamId: team.id,
      role: "member",
      createdById: admin.userId,
    });
    await createGroupMapping(db, {
      providerId: "scim",
      groupName: leads,
      teamId: team.id,
      role: "admin",
      createdById: admin.userId,
    });
    const person = await scim("POST", "/Users", scimUser(manualMember.email));
    const userId = person.body!.id as string;
    const roleIn = async (teamId: string) =>
      (await db.membership.findUnique({ where: { teamId_userId: { teamId, userId } } }))?.role ?? null;

    const staffGroup = await scim("POST", "/Groups", {
      schemas: [GROUP_SCHEMA],
      displayName: staff,
      members: [{ value: userId }],
    });
    expect(staffGroup.status).toBe(201);
    expect(staffGroup.body).toMatchObject({ displayName: staff, members: [{ value: userId }] });
    expect(await roleIn(team.id)).toBe("member");

    const leadsGroup = await scim("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: leads, members: [] });
    const leadsId = leadsGroup.body!.id as string;
    // Entra ID adds members with a path and a list.
    await scim("PATCH", `/Groups/${leadsId}`, patch({ op: "Add", path: "members", value: [{ value: userId }] }));
    expect(await roleIn(team.id)).toBe("admin");
    expect((await scim("GET", `/Users/${userId}`)).body!.groups).toHaveLength(2);

    // Okta removes a member with a filter path.
    await scim("PATCH", `/Groups/${leadsId}`, patch({ op: "remove", path: `members[value eq "${userId}"]` }));
    expect(await roleIn(team.id)).toBe("member");

    await manualMember.caller.token.create({ teamId: team.id, name: "cli" });
    await scim("DELETE", `/Groups/${staffGroup.body!.id}`);
    expect(await roleIn(team.id)).toBeNull();
    expect(await db.personalAccessToken.count({ where: { userId, teamId: team.id } })).toBe(0);
    // The team they joined by invitation maps no group: that membership stays.
    expect(await roleIn(manualTeam.id)).toBe("member");
    // The plain member of the mapped team was never in a SCIM group and nobody provisioned them: untouched.
    expect(await db.membership.count({ where: { teamId: team.id, userId: member.userId } })).toBe(1);
    const audit = await db.auditEvent.findMany({
      where: { teamId: team.id, targetId: userId, action: { startsWith: "identity_groups." } },
      orderBy: { seq: "asc" },
      select: { action: true },
    });
    expect(audit.map((a) => a.action)).toEqual([
      "identity_groups.member_added",
      "identity_groups.role_changed",
      "identity_groups.role_changed",
      "identity_groups.member_removed",
    ]);
  });

  it("refuses unknown members, a taken name and a bad operation in SCIM's shape", async () => {
    const name = `g-${randomBytes(3).toString("hex")}`;
    const created = await scim("POST", "/Groups", { displayName: name });
    expect(created.status).toBe(201);
    expect((await scim("POST", "/Groups", { displayName: name.toUpperCase() })).body).toMatchObject({
      status: "409",
      scimType: "uniqueness",
    });
    const id = created.body!.id as string;
    expect(
      (await scim("PATCH", `/Groups/${id}`, patch({ op: "add", path: "members", value: [{ value: "nobody" }] }))).body,
    ).toMatchObject({ status: "400", scimType: "invalidValue" });
    expect((await scim("PATCH", `/Groups/${id}`, patch({ op: "remove", path: "displayName" }))).body).toMatchObject({
      status: "400",
      scimType: "mutability",
    });
    const listed = await scim("GET", `/Groups?filter=${encodeURIComponent(`displayName eq "${name}"`)}`);
    expect(listed.body).toMatchObject({ totalResults: 1, Resources: [{ id }] });
    expect((await scim("DELETE", `/Groups/${id}`)).status).toBe(204);
  });
});
