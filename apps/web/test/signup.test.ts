import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVITE_ONLY_MESSAGE } from "@switchboard/core/deployment";
import { createDb, disconnectDb, getDb } from "@switchboard/db/client";
import { revokeDeploymentOwner, setSignupMode } from "@switchboard/db/queries/deployment";
import { createTestDatabase, makeUser, type TestDatabase } from "@switchboard/db/testing";
import { getAuth } from "~/server/auth";
import { signupDatabaseHooks } from "~/server/auth/signup-policy";
import { closeJobs } from "@switchboard/runtime/jobs";
import { addProvider } from "~/server/services/sso.service";
import { signedInCaller } from "./support/caller";
import { startOidcIdp } from "./support/oidc-idp";
import { arriveAtConsole, startSso } from "./support/sso";

// The other test files run with SIGNUP_MODE=open set by the operator; here the deployment owners' own setting
// applies (invite-only until changed). Only this file changes that setting in the shared database.
delete process.env.SIGNUP_MODE;

const db = getDb();
const APP = process.env.APP_URL ?? "http://localhost:3000";
const password = "correct-horse-battery";
const freshEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.test`;
const signUp = (email: string) => getAuth().api.signUpEmail({ body: { email, password, name: email.split("@")[0]! } });

beforeAll(async () => {
  await makeUser(db, { deploymentOwner: true });
  await setSignupMode(db, { mode: "invite_only", userId: "test" });
});

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

/** A team admin's account and team, made while sign-up is open, then the mode back to invite-only. */
async function adminWithTeam() {
  await setSignupMode(db, { mode: "open", userId: "test" });
  try {
    const admin = await signedInCaller("admin");
    const team = await admin.caller.team.create({ name: `Invite ${Math.random().toString(36).slice(2, 8)}` });
    return { admin, team };
  } finally {
    await setSignupMode(db, { mode: "invite_only", userId: "test" });
  }
}

/** A sign-up as a browser or script sends it, reduced to what the answer could tell about the address. */
async function answerTo(email: string) {
  const res = await getAuth().handler(
    new Request(`${APP}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { origin: APP, "content-type": "application/json" },
      body: JSON.stringify({ email, password, name: "Walk In" }),
    }),
  );
  const body = (await res.json()) as { token?: unknown; user?: Record<string, unknown> };
  const { id, createdAt, updatedAt, ...user } = body.user ?? {};
  return {
    status: res.status,
    keys: Object.keys(body).sort(),
    token: body.token,
    // Everything but the new id and the times, with the address as sent: the same for every address.
    user: { ...user, email: user.email === email ? "<as sent>" : user.email },
    fields: [typeof id, typeof createdAt, typeof updatedAt],
    cookies: res.headers.getSetCookie().length,
  };
}

const accountCount = (email: string) => db.user.count({ where: { email } });

describe("sign-up in invite-only mode", () => {
  it("answers an address without an invitation exactly as one with an account, in both modes, and creates nothing", async () => {
    const existing = await makeUser(db);
    const uninvited = freshEmail("uninvited");
    const inviteOnly = { existing: await answerTo(existing.email), uninvited: await answerTo(uninvited) };
    expect(inviteOnly.uninvited).toEqual(inviteOnly.existing);
    expect(inviteOnly.uninvited).toMatchObject({ status: 200, keys: ["user"], cookies: 0 });
    expect(await accountCount(uninvited)).toBe(0);

    // Open, a new address gets an account, with the same answer as before.
    await setSignupMode(db, { mode: "open", userId: "test" });
    try {
      const walkIn = freshEmail("walk-in");
      const open = { existing: await answerTo(existing.email), walkIn: await answerTo(walkIn) };
      expect(open.walkIn).toEqual(inviteOnly.existing);
      expect(open.existing).toEqual(inviteOnly.existing);
      expect(await accountCount(walkIn)).toBe(1);
    } finally {
      await setSignupMode(db, { mode: "invite_only", userId: "test" });
    }
  });

  it("lets an invited address sign up, but not once the invitation expired or was cancelled", async () => {
    const { admin, team } = await adminWithTeam();
    const invited = freshEmail("invited");
    await admin.caller.team.invite({ teamId: team.id, email: invited });
    // The address is compared as the invitation stores it, whatever the case typed at sign-up.
    await expect(signUp(invited.toUpperCase())).resolves.toMatchObject({ user: { email: invited } });
    expect(await accountCount(invited)).toBe(1);

    const late = freshEmail("late");
    const expired = await admin.caller.team.invite({ teamId: team.id, email: late });
    await db.invitation.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await signUp(late);
    expect(await accountCount(late)).toBe(0);

    const cancelledEmail = freshEmail("cancelled");
    const cancelled = await admin.caller.team.invite({ teamId: team.id, email: cancelledEmail });
    await admin.caller.team.cancelInvitation({ teamId: team.id, invitationId: cancelled.id });
    await signUp(cancelledEmail);
    expect(await accountCount(cancelledEmail)).toBe(0);
  });

  it("refuses account creation itself with a sentence that says how to get in", async () => {
    // Sign-up shows this refusal as its generic answer; any other way of creating an account sees it as it is.
    const hooks = signupDatabaseHooks(() => db);
    await expect(hooks.user.create.before({ email: freshEmail("elsewhere") })).rejects.toMatchObject({
      statusCode: 403,
      body: { code: "SIGNUP_INVITATION_REQUIRED", message: INVITE_ONLY_MESSAGE },
    });
  });

  it("follows a deployment owner's switch to open and back, and never makes later accounts owners", async () => {
    const owner = await signedInCaller("owner").catch(() => null);
    expect(owner).toBeNull(); // invite-only: not even this helper gets in
    const { admin } = await adminWithTeam();
    await db.user.update({ where: { id: admin.userId }, data: { deploymentOwner: true } });

    const settings = await admin.caller.deployment.setSignupMode({ mode: "open" });
    expect(settings).toMatchObject({
      signupMode: "open",
      signupModeFixedByOperator: false,
      operator: { signupMode: null },
    });
    const walkIn = freshEmail("walk-in");
    const created = await signUp(walkIn);
    expect((await db.user.findUniqueOrThrow({ where: { id: created.user.id } })).deploymentOwner).toBe(false);

    await admin.caller.deployment.setSignupMode({ mode: "invite_only" });
    const tooLate = freshEmail("too-late");
    await signUp(tooLate);
    expect(await accountCount(tooLate)).toBe(0);
  });
});

describe("the first account of a deployment", () => {
  let fresh: TestDatabase;
  let freshDb: ReturnType<typeof createDb>;
  beforeAll(async () => {
    fresh = await createTestDatabase("signup_first");
    freshDb = createDb(fresh.url, 4);
  });
  afterAll(async () => {
    await freshDb?.$disconnect();
    await fresh?.drop();
  });

  /** Better Auth's real sign-up endpoint with our hooks, on a database nobody has signed up to yet. */
  const authOn = () =>
    betterAuth({
      baseURL: "http://localhost:3000",
      secret: process.env.BETTER_AUTH_SECRET,
      database: prismaAdapter(freshDb, { provider: "postgresql" }),
      emailAndPassword: { enabled: true },
      telemetry: { enabled: false },
      databaseHooks: signupDatabaseHooks(() => freshDb),
    });

  it("gets in without an invitation and becomes the deployment owner; the next one needs an invitation", async () => {
    const auth = authOn();
    const first = await auth.api.signUpEmail({ body: { email: "first@example.test", password, name: "First" } });
    expect((await freshDb.user.findUniqueOrThrow({ where: { id: first.user.id } })).deploymentOwner).toBe(true);
    await auth.api.signUpEmail({ body: { email: "second@example.test", password, name: "Second" } }).catch(() => null);
    expect(await freshDb.user.count()).toBe(1);
    // The only owner keeps the role: a deployment always has someone who can change its settings.
    expect(await revokeDeploymentOwner(freshDb, first.user.id)).toBe("last_owner");
  });

  it("makes exactly one owner when the first sign-ups arrive together", async () => {
    await freshDb.user.deleteMany({}); // a deployment without accounts again
    const auth = authOn();
    const results = await Promise.allSettled(
      ["a@example.test", "b@example.test", "c@example.test"].map((email) =>
        auth.api.signUpEmail({ body: { email, password, name: email } }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled").length).toBeGreaterThanOrEqual(1);
    expect(await freshDb.user.count({ where: { deploymentOwner: true } })).toBe(1);
  });
});

describe("single sign-on while sign-up is invitation only", () => {
  it("creates the account of an address the provider owns, without an invitation", async () => {
    const providerId = `invite-only-${Math.random().toString(36).slice(2, 8)}`;
    const domain = `${providerId}.example.test`;
    const idp = await startOidcIdp({
      clientId: "c",
      clientSecret: "s",
      redirectUris: [`${APP}/api/auth/sso/callback/${providerId}`],
    });
    try {
      await addProvider({
        db,
        actor: { userId: "test" },
        input: {
          protocol: "oidc",
          name: "Invite-only IdP",
          providerId,
          domains: domain,
          ssoOnly: false,
          issuer: idp.issuer,
          oidcClientId: "c",
          oidcClientSecret: "s",
        },
      });
      const email = `sso-${providerId}@${domain}`;
      idp.state.user = { sub: providerId, email, name: "Newcomer", groups: [] };
      // The same address is refused a password account without an invitation.
      await signUp(email).catch(() => null);
      expect(await db.user.count({ where: { email } })).toBe(0);

      const started = await startSso(email);
      const done = await arriveAtConsole(await idp.authorize(started.body.url!), started.cookie);
      expect(done.cookie, done.location ?? "").toMatch(/session_token=/);
      expect(await db.user.findUnique({ where: { email } })).toMatchObject({ emailVerified: true });
    } finally {
      await idp.close();
    }
  });
});
