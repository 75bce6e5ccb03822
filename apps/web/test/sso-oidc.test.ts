import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ssoErrorSentence } from "@switchboard/core/sso";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { getAuth } from "~/server/auth";
import * as identityGroups from "~/server/services/identity-groups.service";
import { anonymousCaller, signedInCaller, TEST_PASSWORD } from "./support/caller";
import { newestTo, startMailSink } from "./support/mail-sink";
import { startOidcIdp } from "./support/oidc-idp";
import { scim, scimUser } from "./support/scim";
import { APP, arriveAtConsole, authPost, deploymentOwner, startSso, uniqueDomain } from "./support/sso";

// The hook point is a no-op until group mappings land; the tests watch what it is given (and still run it).
vi.mock("~/server/services/identity-groups.service", async (importOriginal) => {
  const real = await importOriginal<typeof identityGroups>();
  return { applyIdentityGroups: vi.fn(real.applyIdentityGroups) };
});

// Account mail goes through a real SMTP server; the environment is parsed on first use, after this line.
const sink = await startMailSink();
process.env.SMTP_URL = sink.url;

const CLIENT_ID = "switchboard-console";
const CLIENT_SECRET = `secret-${randomBytes(12).toString("hex")}`;
const PROVIDER_ID = `okta-${randomBytes(3).toString("hex")}`;
const domain = uniqueDomain("oidc");

let idp: Awaited<ReturnType<typeof startOidcIdp>>;
let owner: Awaited<ReturnType<typeof deploymentOwner>>;
let providerRowId: string;

beforeAll(async () => {
  idp = await startOidcIdp({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`${APP}/api/auth/sso/callback/${PROVIDER_ID}`],
  });
  owner = await deploymentOwner();
});

afterAll(async () => {
  await idp?.close();
  await sink.close();
  await closeJobs();
  await disconnectDb();
});

/** The whole OIDC authorization code flow: console -> IdP (login) -> console callback. */
async function signInThroughIdp(email: string, extra: Record<string, unknown> = {}) {
  const started = await startSso(email, extra);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(started.body.url!.startsWith(idp.issuer)).toBe(true);
  const back = await idp.authorize(started.body.url!);
  expect(back.startsWith(`${APP}/api/auth/sso/callback/${PROVIDER_ID}`)).toBe(true);
  return arriveAtConsole(back, started.cookie);
}

/** A registered MCP client's authorization request, sent to the sign-in page with Better Auth's signed query. */
async function mcpAuthorizationAtSignIn(state: string) {
  const registered = await authPost("/oauth2/register", {
    redirect_uris: ["http://127.0.0.1:33333/callback"],
    token_endpoint_auth_method: "none",
    client_name: "SSO test client",
  });
  expect(registered.status).toBe(201);
  const { client_id } = (await registered.json()) as { client_id: string };
  const authorize = await getAuth().handler(
    new Request(
      `${APP}/api/auth/oauth2/authorize?${new URLSearchParams({
        response_type: "code",
        client_id,
        redirect_uri: "http://127.0.0.1:33333/callback",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        scope: "mcp offline_access",
        state,
      })}`,
      { redirect: "manual" },
    ),
  );
  expect(authorize.status).toBe(302);
  const signInPage = new URL(authorize.headers.get("location")!, APP);
  expect(signInPage.pathname).toBe("/sign-in");
  const oauthQuery = signInPage.search.slice(1);
  return { client_id, oauthQuery };
}

describe("single sign-on with an OIDC provider", () => {
  it("lets a deployment owner add a provider from its issuer, keeps the secret sealed, and tests it", async () => {
    const added = await owner.caller.sso.addProvider({
      protocol: "oidc",
      name: "Acme Okta",
      providerId: PROVIDER_ID,
      domains: domain,
      ssoOnly: false,
      issuer: idp.issuer,
      oidcClientId: CLIENT_ID,
      oidcClientSecret: CLIENT_SECRET,
    });
    providerRowId = added.id;
    expect(added).toMatchObject({
      protocol: "oidc",
      issuer: idp.issuer,
      domains: [domain],
      clientId: CLIENT_ID,
      oidcRedirectUri: `${APP}/api/auth/sso/callback/${PROVIDER_ID}`,
    });
    expect(JSON.stringify(await owner.caller.sso.providers())).not.toContain(CLIENT_SECRET);
    const row = await getDb().ssoProvider.findUniqueOrThrow({ where: { id: added.id } });
    expect(row.oidcConfig).not.toContain(CLIENT_SECRET);
    expect(JSON.parse(row.oidcConfig!).clientSecret).toMatch(/^v1\./);

    expect(await owner.caller.sso.testProvider({ id: added.id })).toMatchObject({ usable: true });

    // The change is in the deployment's audit trail, the secret masked.
    const audit = await getDb().auditEvent.findFirstOrThrow({
      where: { action: "sso.addProvider", targetId: added.id },
    });
    expect(audit.after).toMatchObject({ name: "Acme Okta", oidcClientSecret: expect.not.stringContaining("secret-") });
    expect(JSON.stringify(audit)).not.toContain(CLIENT_SECRET);
  });

  it("refuses a provider whose issuer does not answer, in one sentence", async () => {
    const closed = `http://127.0.0.1:9/${randomBytes(2).toString("hex")}`;
    await expect(
      owner.caller.sso.addProvider({
        protocol: "oidc",
        name: "Nowhere",
        providerId: `nowhere-${randomBytes(2).toString("hex")}`,
        domains: uniqueDomain("nowhere"),
        ssoOnly: false,
        issuer: closed,
        oidcClientId: "x",
        oidcClientSecret: "y",
      }),
    ).rejects.toThrow(/could not use the issuer's discovery document/);
  });

  it("answers NOT_FOUND to anyone but a deployment owner", async () => {
    const member = await signedInCaller("sso-member");
    await expect(member.caller.sso.providers()).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect((await anonymousCaller()).sso.providers()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("creates the account on first sign-in through the full code flow, with the groups claim passed on", async () => {
    const email = `ada-${randomBytes(3).toString("hex")}@${domain}`;
    idp.state.user = { sub: `sub-${randomBytes(4).toString("hex")}`, email, name: "Ada", groups: ["eng", "admins"] };
    const applied = vi.mocked(identityGroups.applyIdentityGroups);
    applied.mockClear();
    const since = new Date();

    const done = await signInThroughIdp(email);
    expect(done.status).toBe(302);
    expect(done.location).toMatch(/\/teams$/);
    expect(done.cookie).toMatch(/session_token=/);

    const user = await getDb().user.findUniqueOrThrow({ where: { email }, include: { accounts: true } });
    expect(user.emailVerified).toBe(true);
    expect(user.accounts.map((a) => a.providerId)).toEqual([PROVIDER_ID]);
    expect(applied).toHaveBeenCalledWith({ userId: user.id, providerId: PROVIDER_ID, groups: ["eng", "admins"] });

    // The session works.
    const session = await getAuth().api.getSession({ headers: new Headers({ cookie: done.cookie }) });
    expect(session?.user.email).toBe(email);

    const audit = await getDb().auditEvent.findMany({
      where: { chain: "deployment", action: { startsWith: "auth.sso_sign_in" }, createdAt: { gte: since } },
    });
    expect(audit.map((a) => [a.action, a.targetId])).toContainEqual(["auth.sso_sign_in", user.id]);

    // A second sign-in finds the same account and hands over the groups again.
    idp.state.user = { ...idp.state.user, groups: ["eng"] };
    const again = await signInThroughIdp(email);
    expect(again.status).toBe(302);
    expect(await getDb().user.count({ where: { email } })).toBe(1);
    expect(applied).toHaveBeenLastCalledWith({ userId: user.id, providerId: PROVIDER_ID, groups: ["eng"] });
  });

  it("refuses an address outside the provider's domains, and records the failure", async () => {
    const email = `mallory-${randomBytes(3).toString("hex")}@elsewhere.example.test`;
    idp.state.user = { sub: `sub-${randomBytes(4).toString("hex")}`, email, name: "Mallory", groups: [] };
    // The sign-in starts for an address of the provider's domain; the IdP answers with another one.
    const done = await signInThroughIdp(`x@${domain}`);
    expect(done.status).toBe(302);
    const url = new URL(done.location!, APP);
    expect(url.pathname).toBe("/sign-in");
    expect(url.searchParams.get("error")).toBe("SSO_EMAIL_DOMAIN");
    expect(ssoErrorSentence(url.searchParams.get("error")!, url.searchParams.get("error_description"))).toMatch(
      /outside the domains it owns/,
    );
    expect(await getDb().user.count({ where: { email } })).toBe(0);
    const failed = await getDb().auditEvent.findFirst({
      where: { action: "auth.sso_sign_in_failed", detail: { path: ["reason"], equals: "SSO_EMAIL_DOMAIN" } },
    });
    expect(failed).not.toBeNull();
  });

  it("says in one sentence that no provider serves an unknown domain", async () => {
    const started = await startSso(`who@${uniqueDomain("unknown")}`);
    expect(started.status).toBe(404);
    expect(ssoErrorSentence(started.body.code ?? "", started.body.message)).toMatch(/No single sign-on provider/);
  });

  it("continues an MCP client's authorization after the identity provider", async () => {
    const email = `grace-${randomBytes(3).toString("hex")}@${domain}`;
    idp.state.user = { sub: `sub-${randomBytes(4).toString("hex")}`, email, name: "Grace", groups: [] };
    const { client_id, oauthQuery } = await mcpAuthorizationAtSignIn("s1");
    const done = await signInThroughIdp(email, { oauth_query: oauthQuery });
    expect(done.status).toBe(302);
    const url = new URL(done.location!, APP);
    expect(url.pathname).toBe("/api/auth/oauth2/authorize");
    expect(url.searchParams.get("client_id")).toBe(client_id);
    expect(url.searchParams.get("state")).toBe("s1");
    expect([...url.searchParams.keys()].filter((k) => k === "sig" || k.startsWith("ba_"))).toEqual([]);
    // Signed in now, the authorization goes on to the consent page.
    const resumed = await getAuth().handler(
      new Request(new URL(done.location!, APP), { headers: { cookie: done.cookie }, redirect: "manual" }),
    );
    expect(resumed.status).toBe(302);
    expect(new URL(resumed.headers.get("location")!, APP).pathname).toBe("/oauth/consent");
  });

  it("keeps an MCP client's authorization resumable when the SSO fails", async () => {
    const { client_id, oauthQuery } = await mcpAuthorizationAtSignIn("s2");
    /** The sign-in page a failure lands on: the error, and the client's signed query as the page had it. */
    const landed = (location: string | null) => {
      const url = new URL(location!, APP);
      expect(url.pathname).toBe("/sign-in");
      const kept = new URLSearchParams(url.search);
      kept.delete("error");
      kept.delete("error_description");
      expect(Object.fromEntries(kept)).toEqual(Object.fromEntries(new URLSearchParams(oauthQuery)));
      return url.searchParams;
    };

    // The identity provider names an address outside its domains (the form sends errorCallbackURL "/sign-in").
    idp.state.user = {
      sub: `sub-${randomBytes(4).toString("hex")}`,
      email: "eve@elsewhere.example.test",
      name: "Eve",
      groups: [],
    };
    const outside = await signInThroughIdp(`x@${domain}`, { oauth_query: oauthQuery, errorCallbackURL: "/sign-in" });
    const refused = landed(outside.location);
    expect(refused.get("error")).toBe("SSO_EMAIL_DOMAIN");
    expect(ssoErrorSentence(refused.get("error")!, refused.get("error_description"))).toMatch(/outside the domains/);

    // The identity provider answers with an error of its own (no errorCallbackURL sent).
    const started = await startSso(`x@${domain}`, { oauth_query: oauthQuery });
    const state = new URL(started.body.url!).searchParams.get("state")!;
    const denied = await arriveAtConsole(
      `${APP}/api/auth/sso/callback/${PROVIDER_ID}?${new URLSearchParams({ error: "access_denied", state })}`,
      started.cookie,
    );
    expect(landed(denied.location).get("error")).toBe("access_denied");

    // Signing in again from that page (the form sends the page's signed query) continues to the client.
    const email = `heidi-${randomBytes(3).toString("hex")}@${domain}`;
    idp.state.user = { sub: `sub-${randomBytes(4).toString("hex")}`, email, name: "Heidi", groups: [] };
    const again = await signInThroughIdp(email, { oauth_query: oauthQuery, errorCallbackURL: "/sign-in" });
    const url = new URL(again.location!, APP);
    expect(url.pathname).toBe("/api/auth/oauth2/authorize");
    expect(url.searchParams.get("client_id")).toBe(client_id);
    expect(url.searchParams.get("state")).toBe("s2");
  });

  it("makes the provider the only way in for its domains: password sign-in, sign-up and reset are refused", async () => {
    const email = `bob-${randomBytes(3).toString("hex")}@${domain}`;
    // An account with a password from before single sign-on.
    await getAuth().api.signUpEmail({ body: { email, password: TEST_PASSWORD, name: "Bob" } });
    // Confirmed: Better Auth links a provider only to an account whose address was confirmed (no pre-hijacking).
    await getDb().user.update({ where: { email }, data: { emailVerified: true } });
    expect((await authPost("/sign-in/email", { email, password: TEST_PASSWORD })).status).toBe(200);

    await owner.caller.sso.updateProvider({ id: providerRowId, ssoOnly: true });
    const refused = await authPost("/sign-in/email", { email, password: TEST_PASSWORD });
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { code: string; message: string };
    expect(body.code).toBe("SSO_REQUIRED");
    expect(body.message).toMatch(/^Your organization signs in with Acme Okta/);
    expect((await authPost("/request-password-reset", { email, redirectTo: "/reset-password" })).status).toBe(403);
    expect(
      (await authPost("/sign-up/email", { email: `new-${email}`, password: TEST_PASSWORD, name: "N" })).status,
    ).toBe(403);
    // Other domains keep their passwords.
    const other = await signedInCaller("sso-other");
    expect((await authPost("/sign-in/email", { email: other.email, password: TEST_PASSWORD })).status).toBe(200);

    // The existing account signs in through the provider, linked (its domain is the provider's).
    idp.state.user = { sub: `sub-${randomBytes(4).toString("hex")}`, email, name: "Bob", groups: [] };
    const done = await signInThroughIdp(email);
    expect(done.cookie, done.location ?? "").toMatch(/session_token=/);
    const user = await getDb().user.findUniqueOrThrow({ where: { email }, include: { accounts: true } });
    expect(user.accounts.map((a) => a.providerId).sort()).toEqual(["credential", PROVIDER_ID].sort());

    await owner.caller.sso.updateProvider({ id: providerRowId, ssoOnly: false });
    expect((await authPost("/sign-in/email", { email, password: TEST_PASSWORD })).status).toBe(200);
  });

  it("refuses a password to an account the provider made, where SSO is not enforced, without telling who has one", async () => {
    await owner.caller.sso.updateProvider({ id: providerRowId, ssoOnly: false });
    const viaSso = `ivan-${randomBytes(3).toString("hex")}@${domain}`;
    idp.state.user = { sub: `sub-${randomBytes(4).toString("hex")}`, email: viaSso, name: "Ivan", groups: [] };
    expect((await signInThroughIdp(viaSso)).cookie).toMatch(/session_token=/);
    const viaScim = `judy-${randomBytes(3).toString("hex")}@${domain}`;
    expect((await scim("POST", "/Users", scimUser(viaScim))).status).toBe(201);
    const sentence = 'Your account signs in with Acme Okta: use "Sign in with SSO" (it has no password here).';
    const unknown = `nobody-${randomBytes(3).toString("hex")}@${domain}`;
    const answer = async (path: string, body: Record<string, unknown>) => {
      const res = await authPost(path, body);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const resetFor = (email: string) => answer("/request-password-reset", { email, redirectTo: "/reset-password" });
    const signInAs = (email: string) => answer("/sign-in/email", { email, password: TEST_PASSWORD });

    for (const email of [viaSso, viaScim]) {
      // "Forgot password" answers as for an unknown address; the mail says to use SSO and carries no link.
      expect(await resetFor(email)).toEqual(await resetFor(unknown));
      await expect.poll(() => newestTo(sink.mails, email, /signs in with SSO/), { timeout: 10_000 }).toBeDefined();
      const mail = newestTo(sink.mails, email, /signs in with SSO/)!;
      expect(mail.text).toContain(sentence);
      expect(mail.text).not.toContain("/reset-password");
      // A reset token (Better Auth makes one; an older mail may carry one) sets no password.
      const user = await getDb().user.findUniqueOrThrow({ where: { email } });
      const tokens = await getDb().verification.findMany({
        where: { value: user.id, identifier: { startsWith: "reset-password:" } },
      });
      expect(tokens.length).toBeGreaterThan(0);
      for (const t of tokens) {
        const token = t.identifier.slice("reset-password:".length);
        expect(await answer("/reset-password", { token, newPassword: "a brand new long phrase" })).toEqual({
          status: 403,
          body: expect.objectContaining({ code: "SSO_ACCOUNT", message: sentence }),
        });
      }
      expect(await getDb().account.count({ where: { userId: user.id, providerId: "credential" } })).toBe(0);
      // Password sign-in answers as for an unknown address.
      expect(await signInAs(email)).toEqual(await signInAs(unknown));
    }
    // An account with a password in the same domain still resets it.
    const withPassword = `kim-${randomBytes(3).toString("hex")}@${domain}`;
    await getAuth().api.signUpEmail({ body: { email: withPassword, password: TEST_PASSWORD, name: "Kim" } });
    await resetFor(withPassword);
    await expect
      .poll(() => newestTo(sink.mails, withPassword, /Reset your Switchboard password/), { timeout: 10_000 })
      .toBeDefined();
  });

  it("keeps the plugin's own provider endpoints closed over HTTP", async () => {
    for (const path of ["/sso/register", "/sso/providers", "/sso/delete-provider"]) {
      const res = await authPost(path, { providerId: PROVIDER_ID }, owner.headers.get("cookie") ?? "");
      expect(res.status, path).toBe(404);
    }
  });

  it("says the provider is unreachable when it is down", async () => {
    const down = await startOidcIdp({ clientId: "c", clientSecret: "s", redirectUris: [`${APP}/x`] });
    const added = await owner.caller.sso.addProvider({
      protocol: "oidc",
      name: "Flaky",
      providerId: `flaky-${randomBytes(2).toString("hex")}`,
      domains: uniqueDomain("flaky"),
      ssoOnly: false,
      issuer: down.issuer,
      oidcClientId: "c",
      oidcClientSecret: "s",
    });
    await down.close();
    const tested = await owner.caller.sso.testProvider({ id: added.id });
    expect(tested.usable).toBe(false);
    expect(tested.sentence).toMatch(/^Not usable: Switchboard could not read Flaky's discovery document\.$/);
    expect(tested.detail).toMatch(/ECONNREFUSED|fetch failed/);
    await owner.caller.sso.removeProvider({ id: added.id });
    expect((await owner.caller.sso.providers()).some((p) => p.id === added.id)).toBe(false);
  });
});
