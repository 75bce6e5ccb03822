import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ssoErrorSentence } from "@switchboard/core/sso";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { getAuth } from "~/server/auth";
import * as identityGroups from "~/server/services/identity-groups.service";
import { startSamlIdp } from "./support/saml-idp";
import { APP, arriveAtConsole, deploymentOwner, startSso, uniqueDomain } from "./support/sso";

// The hook point is a no-op until group mappings land; the tests watch what it is given (and still run it).
vi.mock("~/server/services/identity-groups.service", async (importOriginal) => {
  const real = await importOriginal<typeof identityGroups>();
  return { applyIdentityGroups: vi.fn(real.applyIdentityGroups) };
});

const PROVIDER_ID = `entra-${randomBytes(3).toString("hex")}`;
const domain = uniqueDomain("saml");

let idp: Awaited<ReturnType<typeof startSamlIdp>>;
let owner: Awaited<ReturnType<typeof deploymentOwner>>;

beforeAll(async () => {
  idp = await startSamlIdp();
  owner = await deploymentOwner();
});

afterAll(async () => {
  await idp?.close();
  await closeJobs();
  await disconnectDb();
});

/** Console -> IdP (HTTP-Redirect AuthnRequest) -> the IdP's form POSTed to the console's ACS. */
async function signInThroughIdp(email: string) {
  const started = await startSso(email);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const form = await idp.answer(started.body.url!);
  expect(form.action).toBe(`${APP}/api/auth/sso/saml2/sp/acs/${PROVIDER_ID}`);
  return arriveAtConsole(form.action, started.cookie, { SAMLResponse: form.SAMLResponse, RelayState: form.RelayState });
}

/** A sign-in the console refused: back on the sign-in page with the sentence expected, no session, no account. */
async function expectRefused(email: string, sentence: RegExp) {
  const done = await signInThroughIdp(email);
  expect(done.status).toBe(302);
  expect(done.cookie).not.toMatch(/session_token=/);
  const { path, error, description } = errorOf(done.location);
  expect(path).toBe("/sign-in");
  expect(ssoErrorSentence(error!, description), `${error} ${description}`).toMatch(sentence);
  expect(await getDb().user.count({ where: { email } })).toBe(0);
}

function errorOf(location: string | null) {
  const url = new URL(location ?? "/", APP);
  return {
    path: url.pathname,
    error: url.searchParams.get("error"),
    description: url.searchParams.get("error_description"),
  };
}

describe("single sign-on with a SAML 2.0 provider", () => {
  it("lets a deployment owner add a provider from the IdP's metadata and tests it", async () => {
    const added = await owner.caller.sso.addProvider({
      protocol: "saml",
      name: "Acme Entra",
      providerId: PROVIDER_ID,
      domains: domain,
      ssoOnly: false,
      metadataXml: idp.metadata,
    });
    expect(added).toMatchObject({
      protocol: "saml",
      domains: [domain],
      samlAcsUrl: `${APP}/api/auth/sso/saml2/sp/acs/${PROVIDER_ID}`,
    });
    // The IdP administrator imports the console's SP metadata (entity ID, ACS URL).
    const metadata = await getAuth().handler(new Request(added.samlMetadataUrl));
    expect(metadata.status).toBe(200);
    idp.trustServiceProvider(await metadata.text());

    expect(await owner.caller.sso.testProvider({ id: added.id })).toMatchObject({ usable: true });
  });

  it("refuses metadata that is not an IdP's, in one sentence", async () => {
    await expect(
      owner.caller.sso.addProvider({
        protocol: "saml",
        name: "Broken",
        providerId: `broken-${randomBytes(2).toString("hex")}`,
        domains: uniqueDomain("broken"),
        ssoOnly: false,
        metadataXml: "<EntityDescriptor entityID='x'/>",
      }),
    ).rejects.toThrow(/^That IdP metadata cannot be used: the metadata has no IDPSSODescriptor\.$/);
  });

  it("creates the account on the first signed assertion POSTed to the ACS, with the memberOf groups passed on", async () => {
    const email = `lin-${randomBytes(3).toString("hex")}@${domain}`;
    idp.state.user = { email, name: "Lin", groups: ["cn=eng,ou=groups", "cn=ops,ou=groups"] };
    const applied = vi.mocked(identityGroups.applyIdentityGroups);
    applied.mockClear();

    const done = await signInThroughIdp(email);
    expect(done.status, done.location ?? "").toBe(302);
    expect(done.cookie, done.location ?? "").toMatch(/session_token=/);
    const user = await getDb().user.findUniqueOrThrow({ where: { email }, include: { accounts: true } });
    expect(user.emailVerified).toBe(true);
    expect(user.accounts.map((a) => a.providerId)).toEqual([PROVIDER_ID]);
    expect(applied).toHaveBeenCalledWith({
      userId: user.id,
      providerId: PROVIDER_ID,
      groups: ["cn=eng,ou=groups", "cn=ops,ou=groups"],
    });
    const audit = await getDb().auditEvent.findFirst({ where: { action: "auth.sso_sign_in", targetId: user.id } });
    expect(audit?.detail).toMatchObject({ providerId: PROVIDER_ID, protocol: "saml" });
  });

  it("refuses an assertion meant for another service provider, and says so in one sentence", async () => {
    const email = `eve-${randomBytes(3).toString("hex")}@${domain}`;
    idp.state.user = { email, name: "Eve", groups: [] };
    idp.state.audience = "https://another-app.example.test/saml";
    try {
      await expectRefused(email, /meant for another application/);
      const failed = await getDb().auditEvent.findFirst({
        where: { action: "auth.sso_sign_in_failed", detail: { path: ["providerId"], equals: PROVIDER_ID } },
        orderBy: { createdAt: "desc" },
      });
      expect(failed).not.toBeNull();
    } finally {
      idp.state.audience = null;
    }
  });

  it("refuses an expired assertion (or a clock far off), and says so in one sentence", async () => {
    const email = `old-${randomBytes(3).toString("hex")}@${domain}`;
    idp.state.user = { email, name: "Old", groups: [] };
    idp.state.shiftMinutes = -60;
    try {
      await expectRefused(email, /outside its validity window/);
    } finally {
      idp.state.shiftMinutes = 0;
    }
  });

  it("refuses a response whose signature does not check out", async () => {
    const email = `forged-${randomBytes(3).toString("hex")}@${domain}`;
    idp.state.user = { email, name: "Forged", groups: [] };
    const started = await startSso(email);
    const form = await idp.answer(started.body.url!);
    // The signed assertion's address changed on the way: the digest no longer matches.
    const forged = Buffer.from(
      Buffer.from(form.SAMLResponse, "base64").toString("utf8").split(email).join(`x${email}`),
    ).toString("base64");
    const done = await arriveAtConsole(form.action, started.cookie, {
      SAMLResponse: forged,
      RelayState: form.RelayState,
    });
    expect(done.status).toBe(302);
    expect(done.cookie).not.toMatch(/session_token=/);
    expect(errorOf(done.location).path).toBe("/sign-in");
    expect(await getDb().user.count({ where: { email: { in: [email, `x${email}`] } } })).toBe(0);
  });
});
