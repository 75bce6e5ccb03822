/**
 * The secrets issue 28 brought are planted and the flows run through the console's route handlers against real
 * identity providers: an OIDC provider's client secret (added, tested, rotated; sign-ins that work and fail), a SAML
 * provider's signed assertions (a sign-in, a replay, an expired one), the SCIM token (shown once; calls with it and
 * with a wrong one), and ID-JAG assertions with the client's secret (an exchange and refusals). Then every surface a
 * deployment owner or a team admin reads is searched for them: the tRPC answers (providers, the identity page, the
 * audit trail with its before/after snapshots), the audit rows in PostgreSQL, what this process wrote to stdout and
 * stderr (pino's lines and anything a library printed), and every answer the flows got. `tests/integration`'s
 * redaction test does the same for installation secrets.
 */
import { randomBytes } from "node:crypto";
import { format } from "node:util";
import { generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { redisKeys } from "@switchboard/core/contracts";
import { env } from "@switchboard/runtime/env";
import { logger } from "@switchboard/runtime/logger";
import { redis } from "@switchboard/runtime/redis";
import { GET as authGet, POST as authPost } from "~/app/api/auth/[...all]/route";
import { DELETE, GET, PATCH, POST, PUT } from "~/app/api/scim/v2/[...path]/route";
import { JWT_BEARER_GRANT } from "~/server/auth/id-jag-assertion";
import { teamWithMember } from "./support/console";
import { basicAuth, registerJwtBearerClient, startEnterpriseIdp } from "./support/enterprise-idp";
import { startOidcIdp } from "./support/oidc-idp";
import { startSamlIdp } from "./support/saml-idp";
import { scimUser } from "./support/scim";
import { APP, cookiesOf, deploymentOwner, uniqueDomain } from "./support/sso";

const SCIM = { GET, POST, PUT, PATCH, DELETE } as const;
const marker = () => randomBytes(10).toString("hex");

/** What must never be read back, by kind; values found while the flows run are added as they appear. */
const planted: Record<string, string[]> = {
  "OIDC client secret": [`oidc-secret-${marker()}`, `oidc-rotated-${marker()}`],
  "SCIM token": [],
  "wrong SCIM token": [`sbscim_${marker()}`],
  "OIDC authorization code": [],
  "SAML response": [],
  "ID-JAG assertion": [],
  "JWT bearer client secret": [],
  "access token": [],
};
const [CLIENT_SECRET, ROTATED_SECRET] = planted["OIDC client secret"] as [string, string];
const WRONG_SCIM_TOKEN = planted["wrong SCIM token"]![0]!;

function plant(kind: string, value: string) {
  planted[kind]!.push(value);
}

/** Every form a planted value could take on a surface, computed here, apart from the product's redactor. */
function leakForms(): Array<[kind: string, form: string]> {
  const forms: Array<[string, string]> = [];
  for (const [kind, values] of Object.entries(planted))
    for (const value of values) {
      const variants = new Set([
        value,
        JSON.stringify(value).slice(1, -1),
        encodeURIComponent(value),
        new URLSearchParams({ k: value }).toString().slice(2),
        Buffer.from(value).toString("base64").replace(/=+$/, ""),
        Buffer.from(value).toString("base64url"),
      ]);
      // A JWT's claims (a unique jti) and its signature, and each signature of a SAML response, identify it on
      // their own, cut short as a long value is in the audit trail.
      if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(value)) for (const part of value.split(".").slice(1)) variants.add(part);
      if (kind === "SAML response") {
        const xml = Buffer.from(value, "base64").toString("utf8");
        for (const m of xml.matchAll(/SignatureValue>([^<]+)</g)) variants.add(m[1]!.replace(/\s+/g, ""));
      }
      for (const v of variants) if (v.length >= 16) forms.push([kind, v]);
    }
  return forms;
}

function leaksIn(surface: string, value: unknown): string[] {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return leakForms()
    .filter(([, form]) => text.includes(form))
    .map(([kind, form]) => `${surface} contains the ${kind} (${form.slice(0, 24)}…)`);
}

// ---- what this process writes -------------------------------------------------------------------------------

const processOutput: string[] = [];
/** Every answer the flows got (status, location, body), except the token endpoint's success (its token is the point). */
const answers: string[] = [];

async function kept(label: string, res: Response): Promise<Response> {
  const body = await res.clone().text();
  answers.push(`${label}: ${res.status} ${res.headers.get("location") ?? ""} ${body}`);
  return res;
}

// ---- the parties ----------------------------------------------------------------------------------------------

const OIDC_ID = `red-oidc-${randomBytes(3).toString("hex")}`;
const SAML_ID = `red-saml-${randomBytes(3).toString("hex")}`;
const oidcDomain = uniqueDomain("red-oidc");
const samlDomain = uniqueDomain("red-saml");
const FROM = "198.51.100.88";

let owner: Awaited<ReturnType<typeof deploymentOwner>>;
let people: Awaited<ReturnType<typeof teamWithMember>>;
let oidcIdp: Awaited<ReturnType<typeof startOidcIdp>>;
let samlIdp: Awaited<ReturnType<typeof startSamlIdp>>;
let enterprise: Awaited<ReturnType<typeof startEnterpriseIdp>>;
let oidcRowId: string;

beforeAll(async () => {
  // The console's pino output and whatever a library prints, as the process writes them.
  logger.level = "debug";
  // Vitest takes console output aside before it reaches the streams: what a library prints through console is
  // taken here, formatted as Node would write it.
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method].bind(console);
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      processOutput.push(`${format(...args)}\n`);
      original(...args);
    });
  }
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, "write").mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
      processOutput.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof stream.write);
  }
  owner = await deploymentOwner();
  people = await teamWithMember();
  oidcIdp = await startOidcIdp({
    clientId: "red-console",
    clientSecret: CLIENT_SECRET,
    redirectUris: [`${APP}/api/auth/sso/callback/${OIDC_ID}`],
  });
  samlIdp = await startSamlIdp();
  enterprise = await startEnterpriseIdp();
});

afterAll(async () => {
  vi.restoreAllMocks();
  await oidcIdp?.close();
  await samlIdp?.close();
  await enterprise?.close();
  await closeJobs();
  await disconnectDb();
});

function auth(
  method: "GET" | "POST",
  url: string,
  init: { body?: string; type?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = {
    origin: APP,
    "user-agent": "redaction/1",
    "x-forwarded-for": FROM,
    ...init.headers,
  };
  if (init.type) headers["content-type"] = init.type;
  const request = new Request(url.startsWith("http") ? url : `${APP}/api/auth${url}`, {
    method,
    headers,
    body: init.body,
    redirect: "manual",
  });
  return method === "GET" ? authGet(request) : authPost(request);
}

async function startSso(email: string) {
  const res = await kept(
    "SSO start",
    await auth("POST", "/sign-in/sso", {
      body: JSON.stringify({ email, callbackURL: "/teams" }),
      type: "application/json",
    }),
  );
  expect(res.status).toBe(200);
  return { url: ((await res.json()) as { url: string }).url, cookie: cookiesOf(res) };
}

/** Console -> OIDC provider -> the console's callback, through the route, keeping the code in flight. */
async function oidcSignIn(email: string, { idpEmail = email }: { idpEmail?: string } = {}) {
  oidcIdp.state.user = { sub: `sub-${marker()}`, email: idpEmail, name: "Red", groups: ["eng"] };
  const started = await startSso(email);
  const back = await oidcIdp.authorize(started.url);
  const code = new URL(back).searchParams.get("code");
  expect(code).toBeTruthy();
  plant("OIDC authorization code", code!);
  const res = await kept("OIDC callback", await auth("GET", back, { headers: { cookie: started.cookie } }));
  return { status: res.status, location: res.headers.get("location") ?? "", cookie: cookiesOf(res) };
}

/** Console -> SAML provider -> the ACS, through the route, keeping the signed response in flight. */
async function samlSignIn(email: string, { replay }: { replay?: { SAMLResponse: string; RelayState: string } } = {}) {
  samlIdp.state.user = { email, name: "Red", groups: ["cn=eng"] };
  const started = await startSso(email);
  const form = replay ?? (await samlIdp.answer(started.url));
  plant("SAML response", form.SAMLResponse);
  const res = await kept(
    "SAML ACS",
    await auth("POST", `/sso/saml2/sp/acs/${SAML_ID}`, {
      body: new URLSearchParams({ SAMLResponse: form.SAMLResponse, RelayState: form.RelayState }).toString(),
      type: "application/x-www-form-urlencoded",
      headers: { cookie: started.cookie, origin: "null" },
    }),
  );
  return { status: res.status, location: res.headers.get("location") ?? "", cookie: cookiesOf(res), form };
}

async function scim(method: keyof typeof SCIM, path: string, token: string, body?: unknown) {
  const res = await SCIM[method](
    new Request(`${APP}/api/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json", "x-forwarded-for": FROM },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return kept(`SCIM ${method} ${path}`, res);
}

async function exchange(assertion: string, client: { clientId: string; clientSecret: string }) {
  const res = await auth("POST", "/oauth2/token", {
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
    type: "application/x-www-form-urlencoded",
    headers: { authorization: basicAuth(client) },
  });
  const body = (await res.clone().json()) as { access_token?: string; error?: string };
  if (res.status === 200) plant("access token", body.access_token!);
  else await kept("token endpoint", res);
  return { status: res.status, body };
}

/** A provider's calls with the right token: create, deactivate and find a user, and a filter it refuses. */
async function scimCalls(token: string): Promise<number[]> {
  const email = `scim-${marker().slice(0, 6)}@example.test`;
  const created = await scim("POST", "/Users", token, scimUser(email));
  if (created.status !== 201) return [created.status];
  const id = ((await created.json()) as { id: string }).id;
  const off = await scim("PATCH", `/Users/${id}`, token, {
    Operations: [{ op: "replace", path: "active", value: false }],
  });
  const found = await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`, token);
  const refused = await scim("GET", "/Users?filter=nonsense", token);
  return [created.status, off.status, found.status, refused.status];
}

const pathOf = (location: string) => new URL(location, APP).pathname;

describe("secrets of single sign-on, SCIM and ID-JAG", () => {
  it("run through every flow: providers added, tested and rotated, sign-ins that work and fail, SCIM calls, ID-JAG exchanges", async () => {
    // OIDC: added with its secret, tested, signed in through, rotated to a secret the provider refuses.
    const added = await owner.caller.sso.addProvider({
      protocol: "oidc",
      name: "Red OIDC",
      providerId: OIDC_ID,
      domains: oidcDomain,
      ssoOnly: false,
      issuer: oidcIdp.issuer,
      oidcClientId: "red-console",
      oidcClientSecret: CLIENT_SECRET,
    });
    oidcRowId = added.id;
    expect(await owner.caller.sso.testProvider({ id: added.id })).toMatchObject({ usable: true });
    const ok = await oidcSignIn(`ada-${marker().slice(0, 6)}@${oidcDomain}`);
    expect(ok.cookie).toMatch(/session_token=/);
    // The provider answers with an address outside its domains: refused.
    const outside = await oidcSignIn(`x@${oidcDomain}`, {
      idpEmail: `eve-${marker().slice(0, 6)}@elsewhere.example.test`,
    });
    expect(new URL(outside.location, APP).searchParams.get("error")).toBe("SSO_EMAIL_DOMAIN");
    // The client secret rotated to one the provider does not know: the code exchange fails.
    await owner.caller.sso.updateProvider({
      id: added.id,
      oidcClientSecret: ROTATED_SECRET,
      name: "Red OIDC (rotated)",
    });
    const refused = await oidcSignIn(`bob-${marker().slice(0, 6)}@${oidcDomain}`);
    expect(refused.cookie).not.toMatch(/session_token=/);
    expect(pathOf(refused.location)).toBe("/sign-in");

    // SAML: a signed assertion accepted, the same one replayed, and an expired one.
    const saml = await owner.caller.sso.addProvider({
      protocol: "saml",
      name: "Red SAML",
      providerId: SAML_ID,
      domains: samlDomain,
      ssoOnly: false,
      metadataXml: samlIdp.metadata,
    });
    const metadata = await auth("GET", saml.samlMetadataUrl);
    samlIdp.trustServiceProvider(await metadata.text());
    expect(await owner.caller.sso.testProvider({ id: saml.id })).toMatchObject({ usable: true });
    const first = await samlSignIn(`lin-${marker().slice(0, 6)}@${samlDomain}`);
    expect(first.cookie).toMatch(/session_token=/);
    const replayed = await samlSignIn(`lin2-${marker().slice(0, 6)}@${samlDomain}`, { replay: first.form });
    expect(replayed.cookie).not.toMatch(/session_token=/);
    samlIdp.state.shiftMinutes = -60;
    try {
      const expired = await samlSignIn(`old-${marker().slice(0, 6)}@${samlDomain}`);
      expect(pathOf(expired.location)).toBe("/sign-in");
    } finally {
      samlIdp.state.shiftMinutes = 0;
    }

    // SCIM: the token is shown once; calls with it and with a wrong one. The deployment has one token, which
    // another test file may rotate meanwhile: then the calls go again with a new one.
    for (let attempt = 1; ; attempt++) {
      const { token } = await owner.caller.identity.createScimToken();
      plant("SCIM token", token);
      const statuses = await scimCalls(token);
      if (!statuses.includes(401) || attempt === 3) {
        expect(statuses).toEqual([201, 200, 200, 400]);
        break;
      }
    }
    expect((await scim("GET", "/Users", WRONG_SCIM_TOKEN)).status).toBe(401);
    expect((await scim("POST", "/Users", WRONG_SCIM_TOKEN, scimUser(`x-${marker()}@example.test`))).status).toBe(401);

    // ID-JAG: an exchange, its replay, a forged assertion, and the right assertion with a wrong client secret.
    await people.admin.caller.mcpClient.setPolicy({ teamId: people.team.id, allowed: true });
    const subject = `U${marker().slice(0, 8)}`;
    await getDb().account.create({
      data: { id: `acc-${marker()}`, accountId: subject, providerId: enterprise.issuer, userId: people.member.userId },
    });
    const client = await registerJwtBearerClient();
    plant("JWT bearer client secret", client.clientSecret);
    const assertion = await enterprise.sign({ sub: subject, client_id: client.clientId });
    plant("ID-JAG assertion", assertion);
    expect((await exchange(assertion, client)).status).toBe(200);
    expect((await exchange(assertion, client)).body.error).toBe("invalid_grant");
    const forger = await generateKeyPair("ES256");
    const forged = await enterprise.sign({ sub: subject, client_id: client.clientId }, { key: forger.privateKey });
    plant("ID-JAG assertion", forged);
    expect((await exchange(forged, client)).body.error).toBe("invalid_grant");
    const another = await enterprise.sign({ sub: subject, client_id: client.clientId });
    plant("ID-JAG assertion", another);
    const wrongClient = { ...client, clientSecret: `not-${marker()}` };
    plant("JWT bearer client secret", wrongClient.clientSecret);
    expect((await exchange(another, wrongClient)).status).toBe(401);

    // Everything above left its trace where owners and admins look (the searches below are not vacuous).
    const actions = (await getDb().auditEvent.findMany({ select: { action: true } })).map((a) => a.action);
    for (const action of [
      "sso.addProvider",
      "sso.updateProvider",
      "auth.sso_sign_in",
      "auth.sso_sign_in_failed",
      "identity.createScimToken",
      "oauth.id_jag_exchanged",
      "oauth.id_jag_refused",
    ])
      expect(actions).toContain(action);
    expect(processOutput.join("")).toContain('"msg":"SSO sign-in failed"');
    // Better Auth's own lines (the replayed SAML response's) are pino's, so they pass the same redaction.
    expect(processOutput.join("")).toMatch(/"component":"better-auth"[^\n]*"msg":"SAML InResponseTo validation failed/);
    expect(processOutput.join("")).not.toContain("[Better Auth]");
    for (const kind of Object.keys(planted)) expect(planted[kind]!.length, kind).toBeGreaterThan(0);
  });

  it("never show a planted value in the tRPC answers a deployment owner or a team admin reads", async () => {
    const asOwner: unknown[] = [
      await owner.caller.sso.providers(),
      await owner.caller.identity.scimToken(),
      await owner.caller.identity.groupMappings(),
      await owner.caller.enterpriseIdp.list(),
    ];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof owner.caller.audit.listAll>> = await owner.caller.audit.listAll({
        limit: 200,
        cursor,
      });
      asOwner.push(page);
      cursor = page.nextCursor;
    } while (cursor);
    expect(leaksIn("the deployment owner's tRPC answers", asOwner)).toEqual([]);
    // The rotation is in the trail as a before/after of the provider, its secret as neither.
    expect(JSON.stringify(asOwner)).toContain("Red OIDC (rotated)");

    const asAdmin = [
      await people.admin.caller.audit.list({ teamId: people.team.id, limit: 200 }),
      await people.admin.caller.mcpClient.list({ teamId: people.team.id }),
      await people.member.caller.mcpClient.list({ teamId: people.team.id }),
    ];
    expect(leaksIn("the team admin's tRPC answers", asAdmin)).toEqual([]);
    expect(JSON.stringify(asAdmin[0])).toContain("oauth.id_jag_exchanged");
  });

  it("never store a planted value in the clear: audit rows, the provider's row, the SCIM token's row", async () => {
    const rows = {
      audit: await getDb().auditEvent.findMany(),
      providers: await getDb().ssoProvider.findMany({ where: { id: oidcRowId } }),
      scimToken: await getDb().scimToken.findMany(),
    };
    expect(leaksIn("the database", rows)).toEqual([]);
    expect(rows.audit.length).toBeGreaterThan(10);
  });

  it("never keep a planted value in Redis, where the replay markers of ID-JAG assertions sit under the deployment's prefix", async () => {
    const prefix = env().REDIS_PREFIX;
    const keys = await redis().keys(redisKeys.everything(prefix));
    const contents: Record<string, unknown> = {};
    for (const key of keys) {
      const type = await redis().type(key);
      if (type === "string") contents[key] = await redis().get(key);
      else if (type === "hash") contents[key] = await redis().hgetall(key);
      else if (type === "set") contents[key] = await redis().smembers(key);
      else if (type === "zset") contents[key] = await redis().zrange(key, "0", "-1");
      else if (type === "list") contents[key] = await redis().lrange(key, 0, -1);
    }
    expect(leaksIn("Redis", contents)).toEqual([]);
    // The exchange marked its assertion used (the replay found the mark), in this deployment's namespace.
    const markers = keys.filter((k) => k.startsWith(redisKeys.idJagAssertionUsed(prefix, "")));
    expect(markers.length).toBeGreaterThanOrEqual(1);
  });

  it("never write a planted value to the process's output, nor answer one in an error", async () => {
    const output = processOutput.join("");
    expect(output.length).toBeGreaterThan(0);
    expect(leaksIn("the process's stdout and stderr", output)).toEqual([]);
    expect(answers.length).toBeGreaterThan(10);
    expect(leaksIn("the answers the flows got", answers)).toEqual([]);
  });
});
