import { createHash, randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { redisKeys } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { env } from "@switchboard/runtime/env";
import { getAuth } from "~/server/auth";
import { accountOptions, SIGNUP_ATTEMPT_NOTICE_INTERVAL_SECONDS } from "~/server/auth/account-options";
import type { Mail } from "~/server/auth/mailer";
import { switchboardGuard } from "~/server/auth/guard-plugin";
import { closeJobs } from "@switchboard/runtime/jobs";
import { logger } from "@switchboard/runtime/logger";
import { redis } from "@switchboard/runtime/redis";
import { createTRPCContext } from "~/server/trpc/init";
import { createCaller } from "~/server/trpc/root";
import { signIn, signedInCaller, TEST_PASSWORD } from "./support/caller";
import { linkIn, newestTo, startMailSink } from "./support/mail-sink";

// Account mail goes through a real SMTP server; the environment is parsed on first use, after this line.
const sink = await startMailSink();
process.env.SMTP_URL = sink.url;

afterAll(async () => {
  await sink.close();
  await closeJobs();
  await disconnectDb();
});

const APP = process.env.APP_URL ?? "http://localhost:3000";
const newEmail = (label = "user") => `${label}-${randomBytes(5).toString("hex")}@example.test`;

function post(
  path: string,
  body: unknown,
  {
    cookie = "",
    ip,
    handler = getAuth().handler,
  }: { cookie?: string; ip?: string; handler?: (r: Request) => Promise<Response> } = {},
) {
  const headers: Record<string, string> = { origin: APP, "content-type": "application/json", cookie };
  if (ip) headers["x-forwarded-for"] = ip;
  return handler(new Request(`${APP}/api/auth${path}`, { method: "POST", headers, body: JSON.stringify(body) }));
}

const sessionCookie = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .filter((c) => c.includes("session_token"))
    .join("; ");

/** A caller that reads the session afresh (a tRPC context resolves the session once, when it is created). */
const callerFor = async (headers: Headers) => createCaller(await createTRPCContext({ headers }));

async function mailTo(to: string, subject: RegExp) {
  await expect.poll(() => newestTo(sink.mails, to, subject), { timeout: 10_000 }).toBeDefined();
  return newestTo(sink.mails, to, subject)!;
}

describe("passwords", () => {
  it("refuses short, common and address-based passwords at sign-up with a sentence a person can act on", async () => {
    const email = newEmail("grace");
    for (const [password, message] of [
      ["short-pw", /at least 12/],
      ["password1234", /commonly used/],
      ["Qwertyuiop123", /commonly used/],
      [`${email.split("@")[0]}!2024`, /email address/],
    ] as const) {
      const res = await post("/sign-up/email", { email, password, name: "Grace" });
      expect(res.status, password).toBe(400);
      expect((await res.json()).message).toMatch(message);
    }
    expect(await getDb().user.count({ where: { email } })).toBe(0);
    expect((await post("/sign-up/email", { email, password: "a long and unusual phrase", name: "Grace" })).status).toBe(
      200,
    );
  });

  it("applies the policy to a changed password too", async () => {
    const alice = await signedInCaller("alice");
    const cookie = alice.headers.get("cookie")!;
    const weak = await post(
      "/change-password",
      { currentPassword: TEST_PASSWORD, newPassword: "password1234" },
      { cookie },
    );
    expect(weak.status).toBe(400);
    const named = await post(
      "/change-password",
      { currentPassword: TEST_PASSWORD, newPassword: `${alice.email.split("@")[0]} forever` },
      { cookie },
    );
    expect((await named.json()).message).toMatch(/email address/);
    const ok = await post(
      "/change-password",
      { currentPassword: TEST_PASSWORD, newPassword: "another long phrase 42" },
      { cookie },
    );
    expect(ok.status).toBe(200);
    expect(JSON.stringify(await ok.json())).not.toMatch(/"token"/);
    await expect(signIn(alice.email, "another long phrase 42")).resolves.toBeInstanceOf(Headers);
  });
});

describe("answers that do not tell whether an account exists", () => {
  it("answers a sign-up for an existing address like one for a new address, and warns the owner by mail", async () => {
    const taken = await signedInCaller("taken");
    const fresh = newEmail("fresh");
    const forTaken = await post("/sign-up/email", {
      email: taken.email,
      password: "an attacker's long phrase",
      name: "X",
    });
    const forFresh = await post("/sign-up/email", { email: fresh, password: "an attacker's long phrase", name: "X" });
    expect(forTaken.status).toBe(forFresh.status);
    const [a, b] = [await forTaken.json(), await forFresh.json()];
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    expect(Object.keys(a.user).sort()).toEqual(Object.keys(b.user).sort());
    expect(a.user.emailVerified).toBe(b.user.emailVerified);
    expect(sessionCookie(forTaken)).toBe("");
    expect(sessionCookie(forFresh)).toBe("");
    // The existing account keeps its password; its owner hears about the attempt.
    await expect(signIn(taken.email)).resolves.toBeInstanceOf(Headers);
    expect((await mailTo(taken.email, /tried to create/)).text).toContain("/forgot-password");
  });

  it("warns an address's owner of sign-up attempts once a day, however often someone tries", async () => {
    const taken = await signedInCaller("tried");
    const sent: Mail[] = [];
    const e = env();
    // The mailer records each mail when it is handed one: the decision is made before sign-up answers.
    const auth = betterAuth({
      baseURL: e.APP_URL,
      secret: e.BETTER_AUTH_SECRET,
      trustedOrigins: [e.APP_URL],
      database: prismaAdapter(getDb(), { provider: "postgresql" }),
      ...accountOptions({ env: e, logger, redis, mailer: { send: async (mail) => void sent.push(mail) } }),
      plugins: [switchboardGuard()],
      telemetry: { enabled: false },
    });
    for (let i = 0; i < 5; i++) {
      const res = await post(
        "/sign-up/email",
        { email: taken.email, password: `an attacker's long phrase ${i}`, name: "X" },
        { handler: auth.handler },
      );
      expect(res.status).toBe(200);
    }
    expect(sent.filter((m) => m.to === taken.email).map((m) => m.subject)).toEqual([
      "Someone tried to create a Switchboard account with your address",
    ]);
    // The window is kept under a hash of the address, never the address itself.
    const hash = createHash("sha256").update(taken.email.toLowerCase()).digest("hex");
    const ttl = await redis().ttl(redisKeys.signupAttemptNotice(e.REDIS_PREFIX, hash));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(SIGNUP_ATTEMPT_NOTICE_INTERVAL_SECONDS);
  });

  it("answers a password reset request the same whether or not the address has an account", async () => {
    const alice = await signedInCaller("alice");
    const known = await post("/request-password-reset", { email: alice.email, redirectTo: "/reset-password" });
    const unknown = await post("/request-password-reset", { email: newEmail("nobody"), redirectTo: "/reset-password" });
    expect(known.status).toBe(unknown.status);
    expect(await known.json()).toEqual(await unknown.json());
  });
});

describe("sessions", () => {
  it("keeps the session token out of the sign-in and session JSON (the httpOnly cookie carries it)", async () => {
    const alice = await signedInCaller("alice");
    const res = await post("/sign-in/email", { email: alice.email, password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).not.toHaveProperty("token");
    expect(body.user.email).toBe(alice.email);
    const cookie = sessionCookie(res);
    expect(cookie).toMatch(/session_token=/);
    expect(res.headers.getSetCookie().find((c) => c.includes("session_token"))).toMatch(/HttpOnly/i);

    const session = await getAuth().handler(new Request(`${APP}/api/auth/get-session`, { headers: { cookie } }));
    const json = await session.json();
    expect(json.user.email).toBe(alice.email);
    expect(json.session).not.toHaveProperty("token");
    expect(JSON.stringify(json)).not.toContain(decodeURIComponent(cookie.split("=")[1]!).split(".")[0]);
  });

  it("marks the session cookie Secure when the console is served over https", async () => {
    const e = env();
    const secure = betterAuth({
      baseURL: "https://switchboard.example.test",
      secret: e.BETTER_AUTH_SECRET,
      trustedOrigins: ["https://switchboard.example.test"],
      database: prismaAdapter(getDb(), { provider: "postgresql" }),
      ...accountOptions({ env: { ...e, APP_URL: "https://switchboard.example.test" }, logger, redis }),
      plugins: [switchboardGuard()],
      telemetry: { enabled: false },
    });
    const alice = await signedInCaller("alice");
    const res = await secure.handler(
      new Request("https://switchboard.example.test/api/auth/sign-in/email", {
        method: "POST",
        headers: { origin: "https://switchboard.example.test", "content-type": "application/json" },
        body: JSON.stringify({ email: alice.email, password: TEST_PASSWORD }),
      }),
    );
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.includes("session_token"));
    expect(cookie).toMatch(/^__Secure-/);
    expect(cookie).toMatch(/;\s*Secure/i);
  });

  it("resets a forgotten password through the mailed link, ends the old sessions and applies the policy", async () => {
    const alice = await signedInCaller("alice");
    await post("/request-password-reset", { email: alice.email, redirectTo: "/reset-password" });
    const link = linkIn(await mailTo(alice.email, /Reset your Switchboard password/));
    expect(link.startsWith(`${APP}/api/auth/reset-password/`)).toBe(true);
    const callback = await getAuth().handler(new Request(link, { redirect: "manual" }));
    const token = new URL(callback.headers.get("location")!, APP).searchParams.get("token")!;
    expect(token).toBeTruthy();

    expect((await post("/reset-password", { token, newPassword: "password1234" })).status).toBe(400);
    expect((await post("/reset-password", { token, newPassword: "a brand new long phrase" })).status).toBe(200);
    await expect(signIn(alice.email, "a brand new long phrase")).resolves.toBeInstanceOf(Headers);
    // The session from before the reset is gone.
    await expect((await callerFor(alice.headers)).me()).resolves.toBeNull();
  });
});

describe("email verification before joining a team", () => {
  it("refuses to accept an invitation until the invitee opens the confirmation link", async () => {
    const admin = await signedInCaller("admin");
    const team = await admin.caller.team.create({ name: `Verify ${randomBytes(3).toString("hex")}` });
    const email = newEmail("invitee");
    const invitation = await admin.caller.team.invite({ teamId: team.id, email });

    // Whoever holds the link signs up with the invited address, but cannot prove they own it.
    expect(
      (
        await post("/sign-up/email", {
          email,
          password: TEST_PASSWORD,
          name: "Invitee",
          callbackURL: `/invite/${invitation.id}`,
        })
      ).status,
    ).toBe(200);
    const headers = await signIn(email);
    const invitee = await callerFor(headers);
    await expect(invitee.me()).resolves.toMatchObject({ email, emailVerified: false });
    await expect(invitee.invitation.accept({ invitationId: invitation.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("Confirm your email"),
    });
    await expect(invitee.team.get({ teamId: team.id })).rejects.toMatchObject({ code: "NOT_FOUND" });

    // The mailed link confirms the address and comes back to the invitation.
    const link = linkIn(await mailTo(email, /Confirm your email/));
    const verified = await getAuth().handler(new Request(link, { redirect: "manual" }));
    expect(verified.status).toBe(302);
    expect(verified.headers.get("location")).toContain(`/invite/${invitation.id}`);
    const confirmed = await callerFor(headers);
    await expect(confirmed.me()).resolves.toMatchObject({ emailVerified: true });
    await expect(confirmed.invitation.accept({ invitationId: invitation.id })).resolves.toEqual({
      teamSlug: team.slug,
    });
  });
});

describe("rate limits", () => {
  it("counts sign-in attempts in Redis, so two console processes share one limit", async () => {
    const e = env();
    const options = accountOptions({ env: { ...e, NODE_ENV: "production", AUTH_RATE_LIMIT: "on" }, logger, redis });
    const make = () =>
      betterAuth({
        baseURL: e.APP_URL,
        secret: e.BETTER_AUTH_SECRET,
        trustedOrigins: [e.APP_URL],
        database: prismaAdapter(getDb(), { provider: "postgresql" }),
        ...options,
        // Better Auth's own rule (3 per 10 s) with a window no slow machine outlasts between four requests.
        rateLimit: { ...options.rateLimit, customRules: { "/sign-in/email": { window: 600, max: 3 } } },
        plugins: [switchboardGuard()],
        telemetry: { enabled: false },
      });
    const [one, two] = [make(), make()];
    const ip = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
    const attempt = (auth: typeof one) =>
      post(
        "/sign-in/email",
        { email: newEmail("nobody"), password: "wrong but long enough" },
        { ip, handler: auth.handler },
      );

    // Three sign-in attempts per address in the window; alternate between the two processes.
    const statuses = [];
    for (const auth of [one, two, one, two]) statuses.push((await attempt(auth)).status);
    expect(statuses.slice(0, 3)).not.toContain(429);
    expect(statuses[3]).toBe(429);

    // The count is Redis's: with the counters gone, both processes let the address try again.
    const keys = await redis().keys(redisKeys.authRate(e.REDIS_PREFIX, `${ip}*`));
    expect(keys.length).toBeGreaterThan(0);
    await redis().del(...keys);
    expect((await attempt(two)).status).not.toBe(429);
  });
});
