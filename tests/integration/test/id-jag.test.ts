import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { env } from "@switchboard/runtime/env";
import { issuerUrl, mcpResourceUrl } from "@switchboard/runtime/mcp-authorization";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAuth } from "~/server/auth";
import { GET as authorizationServerMetadata } from "~/app/.well-known/oauth-authorization-server/[[...issuer]]/route";
import { ID_JAG_TYP, JWT_BEARER_GRANT } from "~/server/auth/id-jag-assertion";
import { teamWithMember } from "../../../apps/web/test/support/console";
import { docsServer } from "./support/docs-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import {
  connectClient,
  installDiscovered,
  routeBase,
  startRoute,
  teardownRoute,
} from "../../../apps/gateway/test/support/mcp";

/**
 * Enterprise-managed authorization (ID-JAG): an enterprise identity provider (a key generated here, its JWKS served
 * over HTTP) signs an identity assertion grant for a member; an MCP client registered with the console's
 * authorization server exchanges it at the real token endpoint (Better Auth's handler) for an access token, and
 * calls a tool through the gateway's route with it. Every refusal answers the OAuth error the specs name.
 */

type Idp = { issuer: string; jwksUrl: string; privateKey: CryptoKey; kid: string; server: Server };

let upstream: StreamableHttpFixture;
let idp: Idp;
const servers: Server[] = [];

async function startIdp(): Promise<Idp> {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const kid = `k-${Math.random().toString(36).slice(2, 8)}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  const server = createServer((req, res) => {
    if (req.url === "/jwks") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer: `${origin}/tenant-${kid}`, jwksUrl: `${origin}/jwks`, privateKey, kid, server };
}

beforeAll(async () => {
  upstream = await startStreamableHttpServer(docsServer());
  await startRoute();
  idp = await startIdp();
});

afterAll(async () => {
  await teardownRoute();
  await upstream?.stop();
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
  await disconnectDb();
});

const appUrl = () => env().APP_URL;
const unique = () => Math.random().toString(36).slice(2, 10);

async function configureIssuer(
  issuer: Idp,
  { enabled = true, memberClaim = "sub" as "sub" | "email", emailDomains = [] as string[] } = {},
) {
  return getDb().enterpriseIdpIssuer.upsert({
    where: { issuer: issuer.issuer },
    create: { name: "Acme IdP", issuer: issuer.issuer, jwksUrl: issuer.jwksUrl, memberClaim, enabled, emailDomains },
    update: { enabled, memberClaim, emailDomains },
  });
}

/** A confidential MCP client, registered at the authorization server for the JWT bearer grant (RFC 7591). */
async function registerClient() {
  const response = await getAuth().handler(
    new Request(new URL("/api/auth/oauth2/register", appUrl()), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: `Enterprise agent ${unique()}`,
        grant_types: [JWT_BEARER_GRANT],
        response_types: [],
        token_endpoint_auth_method: "client_secret_basic",
      }),
    }),
  );
  expect(response.status).toBe(201);
  const body = (await response.json()) as { client_id: string; client_secret: string };
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

async function setup() {
  const people = await teamWithMember();
  const slug = `docs-${unique().slice(0, 6)}`;
  await installDiscovered({
    teamId: people.team.id,
    slug,
    name: "Docs",
    url: upstream.url("/mcp"),
    userIds: [people.admin.userId, people.member.userId],
  });
  await people.admin.caller.mcpClient.setPolicy({ teamId: people.team.id, allowed: true });
  // The member's account at the IdP, linked as an SSO sign-in would link it (provider id = the issuer).
  const subject = `U${unique()}`;
  await getDb().account.create({
    data: { id: `acc-${unique()}`, accountId: subject, providerId: idp.issuer, userId: people.member.userId },
  });
  const client = await registerClient();
  return { ...people, slug, subject, client };
}

type Claims = Record<string, unknown>;

async function assertion(
  claims: Claims,
  { key = idp.privateKey, kid = idp.kid, typ = ID_JAG_TYP }: { key?: CryptoKey; kid?: string; typ?: string } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: `jti-${unique()}`, iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: "ES256", kid, typ })
    .sign(key);
}

function grantFor(s: Awaited<ReturnType<typeof setup>>, extra: Claims = {}): Claims {
  return {
    iss: idp.issuer,
    sub: s.subject,
    aud: issuerUrl(appUrl()),
    client_id: s.client.clientId,
    resource: mcpResourceUrl(appUrl(), null),
    scope: "mcp",
    ...extra,
  };
}

async function exchange(jwt: string, client: { clientId: string; clientSecret: string }) {
  const response = await getAuth().handler(
    new Request(new URL("/api/auth/oauth2/token", appUrl()), {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64")}`,
      },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: jwt }).toString(),
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const refusalsOf = (clientId: string) =>
  getDb().auditEvent.findMany({
    where: { action: "oauth.id_jag_refused", targetId: clientId },
    orderBy: { createdAt: "asc" },
  });

describe("identity assertion authorization grant (ID-JAG)", () => {
  it("exchanges an IdP-signed assertion for the route's access token, with which the client calls a tool", async () => {
    await configureIssuer(idp);
    const s = await setup();
    const { status, body } = await exchange(await assertion(grantFor(s)), s.client);
    expect(body).toMatchObject({ token_type: "Bearer", scope: "mcp", expires_in: 15 * 60 });
    expect(status).toBe(200);
    expect(body.refresh_token).toBeUndefined();

    const { client } = await connectClient(body.access_token as string);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      `${s.slug}-delete`,
      `${s.slug}-read`,
      `${s.slug}-search`,
    ]);
    expect(await client.callTool({ name: `${s.slug}-read`, arguments: { id: "3" } })).toMatchObject({
      content: [{ type: "text", text: "doc 3" }],
    });
    await client.close();

    // The grant behind it is an ordinary one of the member's team, and the exchange is in the audit trail.
    const grant = await getDb().personalAccessToken.findFirstOrThrow({
      where: { kind: "oauth", userId: s.member.userId, oauthClientId: s.client.clientId, revokedAt: null },
    });
    expect(grant).toMatchObject({ teamId: s.team.id, mode: "all" });
    expect(
      await getDb().auditEvent.findFirst({
        where: { action: "oauth.id_jag_exchanged", targetId: s.client.clientId, teamId: s.team.id },
      }),
    ).toMatchObject({ actorId: s.member.userId });
  });

  it("names the member by the email claim only in the domains the issuer owns", async () => {
    const other = await startIdp();
    const s = await setup();
    const domain = s.member.email.split("@")[1]!;
    const jwt = () =>
      assertion(
        { ...grantFor(s), iss: other.issuer, sub: "opaque-123", email: s.member.email.toUpperCase() },
        { key: other.privateKey, kid: other.kid },
      );
    await configureIssuer(other, { memberClaim: "email", emailDomains: ["elsewhere.example", domain] });
    expect(await exchange(await jwt(), s.client)).toMatchObject({ status: 200, body: { token_type: "Bearer" } });

    await configureIssuer(other, { memberClaim: "email", emailDomains: ["acme.example"] });
    const refused = await exchange(await jwt(), s.client);
    expect(refused).toEqual({
      status: 400,
      body: expect.objectContaining({
        error: "invalid_grant",
        error_description: "The assertion's email is outside the domains this identity provider owns here.",
      }),
    });
    expect((await refusalsOf(s.client.clientId)).map((r) => (r.detail as { reason?: string }).reason)).toEqual([
      "foreign_domain",
    ]);
  });

  it("names the member by the email claim for an issuer from before email domains, as documented", async () => {
    const other = await startIdp();
    await configureIssuer(other, { memberClaim: "email" });
    const s = await setup();
    const jwt = await assertion(
      { ...grantFor(s), iss: other.issuer, sub: "opaque-123", email: s.member.email.toUpperCase() },
      { key: other.privateKey, kid: other.kid },
    );
    const { status, body } = await exchange(jwt, s.client);
    expect(body).toMatchObject({ token_type: "Bearer" });
    expect(status).toBe(200);
  });

  it("refuses forged, expired, wrong-audience, unknown-subject and replayed assertions with invalid_grant", async () => {
    await configureIssuer(idp);
    const s = await setup();
    const forger = await generateKeyPair("ES256");
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, Promise<string>, string]> = [
      ["forged", assertion(grantFor(s), { key: forger.privateKey }), "signature does not verify"],
      ["expired", assertion(grantFor(s, { iat: now - 900, exp: now - 600 })), "expired"],
      ["wrong audience", assertion(grantFor(s, { aud: "https://other.example/" })), "another authorization server"],
      ["unknown subject", assertion(grantFor(s, { sub: "nobody-here" })), "not a member"],
      ["wrong typ", assertion(grantFor(s), { typ: "JWT" }), "typ"],
      ["another client's", assertion(grantFor(s, { client_id: "someone-else" })), "another client"],
    ];
    for (const [name, jwt, words] of cases) {
      const { status, body } = await exchange(await jwt, s.client);
      expect({ name, status, error: body.error }).toEqual({ name, status: 400, error: "invalid_grant" });
      expect(body.error_description).toContain(words);
    }

    const once = await assertion(grantFor(s));
    expect((await exchange(once, s.client)).status).toBe(200);
    const again = await exchange(once, s.client);
    expect(again).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(again.body.error_description).toContain("already used");

    const reasons = (await refusalsOf(s.client.clientId)).map((r) => (r.detail as { reason: string }).reason);
    expect(reasons).toEqual([
      "bad_signature",
      "expired",
      "wrong_audience",
      "unknown_subject",
      "wrong_type",
      "client_mismatch",
      "replayed",
    ]);
  });

  it("refuses a client that does not authenticate as the registered client with invalid_client", async () => {
    await configureIssuer(idp);
    const s = await setup();
    const { status, body } = await exchange(await assertion(grantFor(s)), {
      clientId: s.client.clientId,
      clientSecret: "not-the-secret",
    });
    expect({ status, error: body.error }).toEqual({ status: 401, error: "invalid_client" });
    expect(await getDb().personalAccessToken.count({ where: { oauthClientId: s.client.clientId } })).toBe(0);
    expect((await refusalsOf(s.client.clientId)).map((r) => r.detail)).toEqual([
      expect.objectContaining({ error: "invalid_client", issuer: idp.issuer }),
    ]);
  });

  it("refuses a resource of another team with invalid_target, and a disabled issuer with unsupported_grant_type", async () => {
    await configureIssuer(idp);
    const s = await setup();
    const other = await teamWithMember();
    const foreign = `far-${unique().slice(0, 6)}`;
    await installDiscovered({
      teamId: other.team.id,
      slug: foreign,
      name: "Far",
      url: upstream.url("/mcp"),
      userIds: [other.admin.userId],
    });
    const outside = await exchange(
      await assertion(grantFor(s, { resource: mcpResourceUrl(appUrl(), foreign) })),
      s.client,
    );
    expect({ status: outside.status, error: outside.body.error }).toEqual({ status: 400, error: "invalid_target" });
    // The member's own team's server is fine.
    const own = await exchange(await assertion(grantFor(s, { resource: mcpResourceUrl(appUrl(), s.slug) })), s.client);
    expect(own.status).toBe(200);

    const disabled = await startIdp();
    await configureIssuer(disabled, { enabled: false });
    const off = await exchange(
      await assertion({ ...grantFor(s), iss: disabled.issuer }, { key: disabled.privateKey, kid: disabled.kid }),
      s.client,
    );
    expect({ status: off.status, error: off.body.error }).toEqual({ status: 400, error: "unsupported_grant_type" });
    expect((await refusalsOf(s.client.clientId)).map((r) => (r.detail as { reason: string }).reason)).toEqual([
      "outside_teams",
      "issuer_disabled",
    ]);
  });
});

/**
 * An MCP SDK client's auth provider for the ID-JAG: the SDK discovers the authorization server from the route's 401
 * and its metadata, then asks its token endpoint with the JWT bearer grant (the non-interactive path of the SDK).
 */
class IdJagProvider implements OAuthClientProvider {
  private saved?: OAuthTokens;
  constructor(
    private readonly info: OAuthClientInformationFull,
    private readonly assertion: () => Promise<string>,
  ) {}
  get redirectUrl() {
    return undefined;
  }
  get clientMetadata() {
    return { redirect_uris: [], grant_types: [JWT_BEARER_GRANT], token_endpoint_auth_method: "client_secret_basic" };
  }
  clientInformation() {
    return this.info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(): never {
    throw new Error("no browser in the ID-JAG flow");
  }
  saveCodeVerifier() {}
  codeVerifier(): never {
    throw new Error("no PKCE in the ID-JAG flow");
  }
  async prepareTokenRequest() {
    return new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: await this.assertion() });
  }
}

/**
 * The console at APP_URL as one origin, in this process: Better Auth's handler under /api/auth, the console's
 * authorization server metadata route, and the gateway's route (and its protected-resource metadata) for the rest.
 */
const consoleFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  if (url.origin !== new URL(appUrl()).origin) return fetch(request);
  if (url.pathname.startsWith("/api/auth/")) return getAuth().handler(request);
  if (url.pathname.startsWith("/.well-known/oauth-authorization-server")) {
    const issuer = url.pathname.split("/").slice(3).filter(Boolean);
    return authorizationServerMetadata(request, { params: Promise.resolve({ issuer }) });
  }
  return fetch(new Request(new URL(url.pathname + url.search, routeBase()), request));
};

describe("an MCP SDK client", () => {
  it("signs in with the ID-JAG on the route's 401, through discovery and the token endpoint, and calls a tool", async () => {
    await configureIssuer(idp);
    const s = await setup();
    const provider = new IdJagProvider(
      { client_id: s.client.clientId, client_secret: s.client.clientSecret, redirect_uris: [] },
      () => assertion(grantFor(s)),
    );
    const transport = new StreamableHTTPClientTransport(new URL(mcpResourceUrl(appUrl(), null)), {
      authProvider: provider,
      fetch: consoleFetch,
    });
    const client = new Client({ name: "enterprise-agent", version: "1.0.0" });
    await client.connect(transport);
    expect(await client.callTool({ name: `${s.slug}-read`, arguments: { id: "9" } })).toMatchObject({
      content: [{ type: "text", text: "doc 9" }],
    });
    expect(provider.tokens()).toMatchObject({ token_type: "Bearer", scope: "mcp" });
    await client.close();
  });
});

describe("the member's team", () => {
  it("is the team whose server the resource names when the member has several, and must be named then", async () => {
    await configureIssuer(idp);
    const s = await setup();
    const other = await teamWithMember();
    const invited = await other.admin.caller.team.invite({ teamId: other.team.id, email: s.member.email });
    await s.member.caller.invitation.accept({ invitationId: invited.id });

    const whole = await exchange(await assertion(grantFor(s)), s.client);
    expect({ status: whole.status, error: whole.body.error }).toEqual({ status: 400, error: "invalid_target" });
    expect(whole.body.error_description).toContain("several teams");

    const named = await exchange(
      await assertion(grantFor(s, { resource: mcpResourceUrl(appUrl(), s.slug) })),
      s.client,
    );
    expect(named.status).toBe(200);
    expect(
      await getDb().personalAccessToken.findFirstOrThrow({
        where: { kind: "oauth", userId: s.member.userId, oauthClientId: s.client.clientId, revokedAt: null },
      }),
    ).toMatchObject({ teamId: s.team.id });
    // From then on the whole route means that team: the member's grant to this client names it.
    expect((await exchange(await assertion(grantFor(s)), s.client)).status).toBe(200);
  });

  it("refuses a self-registered client in a team that does not accept them with unauthorized_client", async () => {
    await configureIssuer(idp);
    const s = await setup();
    await s.admin.caller.mcpClient.setPolicy({ teamId: s.team.id, allowed: false });
    const { status, body } = await exchange(await assertion(grantFor(s)), s.client);
    expect({ status, error: body.error }).toEqual({ status: 400, error: "unauthorized_client" });
    expect(await getDb().personalAccessToken.count({ where: { oauthClientId: s.client.clientId } })).toBe(0);
  });
});

describe("what a client sends is untrusted", () => {
  it("answers every malformed assertion with an OAuth error in one sentence, never a 5xx", async () => {
    await configureIssuer(idp);
    const s = await setup();
    const header = (h: object) => Buffer.from(JSON.stringify(h)).toString("base64url");
    const garbage = [
      "",
      "not-a-jwt",
      "a.b.c",
      `${header({ alg: "none", typ: ID_JAG_TYP })}.${header({ iss: idp.issuer })}.`,
      `${header({ alg: "ES256", typ: ID_JAG_TYP, kid: idp.kid })}.${header({ iss: idp.issuer, sub: s.subject })}.AAAA`,
      `${header({ alg: "ES256" })}.${header({ iss: ["array"] })}.sig`,
      `${header({ alg: "ES256" })}.${header({ iss: "\u0000" })}.sig`,
      "x".repeat(20_000),
    ];
    for (const jwt of garbage) {
      const { status, body } = await exchange(jwt, s.client);
      expect({ jwt: jwt.slice(0, 40), status }).toEqual({ jwt: jwt.slice(0, 40), status: 400 });
      expect(["invalid_request", "invalid_grant"]).toContain(body.error);
      expect(body.error_description).toMatch(/^[A-Z][^\n]+\.$/);
    }
    expect(await getDb().personalAccessToken.count({ where: { oauthClientId: s.client.clientId } })).toBe(0);
  });
});

describe("authorization server metadata", () => {
  const grants = async () => {
    const response = await authorizationServerMetadata(
      new Request(new URL("/.well-known/oauth-authorization-server/api/auth", appUrl())),
      { params: Promise.resolve({ issuer: ["api", "auth"] }) },
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { grant_types_supported: string[] }).grant_types_supported;
  };

  it("advertises the JWT bearer grant only while an enterprise identity provider is enabled", async () => {
    await getDb().enterpriseIdpIssuer.updateMany({ data: { enabled: false } });
    expect(await grants()).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(await grants()).not.toContain(JWT_BEARER_GRANT);
    await configureIssuer(idp);
    expect(await grants()).toContain(JWT_BEARER_GRANT);
  });

  it("answers unsupported_grant_type while no enterprise identity provider is enabled", async () => {
    const s = await setup();
    await getDb().enterpriseIdpIssuer.updateMany({ data: { enabled: false } });
    const { status, body } = await exchange(await assertion(grantFor(s)), s.client);
    expect({ status, error: body.error }).toEqual({ status: 400, error: "unsupported_grant_type" });
  });
});
