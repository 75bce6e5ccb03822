import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  classifyRefreshFailure,
  clientMetadataUrlFor,
  finishAuthorization,
  needsRefresh,
  oauthFetch,
  ReauthorizationRequiredError,
  refreshAccessToken,
  refreshAt,
  OAuthNotOfferedError,
  OAuthStartTimeoutError,
  startAuthorization,
  stepUpScope,
  type OAuthClientStore,
  type OAuthTokenSet,
} from "../src/oauth";
import { classifyError } from "../src/policies";
import { UpstreamConnection, createUpstreamTransport } from "../src/upstream";
import { HttpFixture } from "./fixtures/http-fixture";
import { startOAuthMcpServer, type OAuthMcpServer } from "./fixtures/oauth-mcp-server";
import { closedPort } from "./helpers/net";

const REDIRECT = "http://127.0.0.1:3999/api/oauth/callback";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(options: Parameters<typeof startOAuthMcpServer>[0] = {}): Promise<OAuthMcpServer> {
  const server = await startOAuthMcpServer(options);
  cleanups.push(() => server.close());
  return server;
}

/** An installation's client store in memory, keeping the first registration like the database one does. */
function memoryClients(initial?: OAuthClientInformationMixed): OAuthClientStore & { saved: number } {
  let info = initial;
  return {
    saved: 0,
    async clientInformation() {
      return info;
    },
    async saveClientInformation(next) {
      this.saved += 1;
      if (!info || !("issuer" in info) || info.client_id === next.client_id) info = next;
    },
    async forgetClientInformation() {
      info = initial;
    },
  };
}

/** The member's browser: follows the auto-approving /authorize and returns the redirect it was sent to. */
async function approve(authorizationUrl: string): Promise<URL> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  expect(response.status).toBe(302);
  return new URL(response.headers.get("location")!);
}

async function authorize(server: OAuthMcpServer, clients: OAuthClientStore, scope?: string): Promise<OAuthTokenSet> {
  const started = await startAuthorization({ serverUrl: server.mcpUrl, clients, redirectUrl: REDIRECT, scope });
  const back = await approve(started.authorizationUrl);
  expect(back.searchParams.get("state")).toBe(started.state);
  return finishAuthorization({
    serverUrl: server.mcpUrl,
    clients,
    redirectUrl: REDIRECT,
    code: back.searchParams.get("code")!,
    codeVerifier: started.codeVerifier,
  });
}

function connect(server: OAuthMcpServer, fetchImpl: FetchLike): UpstreamConnection {
  const connection = new UpstreamConnection({
    instanceId: "inst-oauth",
    connector: () =>
      createUpstreamTransport({ transport: "streamable_http", url: server.mcpUrl, headers: {} }, { fetch: fetchImpl }),
  });
  cleanups.push(() => connection.close());
  return connection;
}

describe("startAuthorization against a real OAuth-protected MCP server", () => {
  it("discovers the authorization server, registers a client and builds a PKCE S256 URL with state, resource and scope", async () => {
    const server = await serve();
    const clients = memoryClients();
    const started = await startAuthorization({ serverUrl: server.mcpUrl, clients, redirectUrl: REDIRECT });

    const url = new URL(started.authorizationUrl);
    expect(url.origin).toBe(new URL(server.issuerUrl).origin);
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toBe(started.state);
    expect(url.searchParams.get("resource")).toBe(server.mcpUrl);
    expect(url.searchParams.get("scope")).toBe("mcp:tools");
    expect(url.searchParams.get("redirect_uri")).toBe(REDIRECT);
    expect(started.codeVerifier.length).toBeGreaterThanOrEqual(43);
    expect(server.authServer.stats.registrations).toBe(1);
    expect((await clients.clientInformation())?.client_id).toBe(url.searchParams.get("client_id"));
  });

  it("uses the installation's pre-registered client instead of registering one", async () => {
    const server = await serve();
    const pre = server.authServer.preRegister({ redirectUris: [REDIRECT], secret: "s3cret-value" });
    const clients = memoryClients({ client_id: pre.client_id, client_secret: "s3cret-value" });
    const tokens = await authorize(server, clients);
    expect(tokens.accessToken).toMatch(/^at_/);
    expect(server.authServer.stats.registrations).toBe(0);
  });

  it("gives every state once: two starts for two members never share a state or verifier", async () => {
    const server = await serve();
    const clients = memoryClients();
    const [a, b] = [
      await startAuthorization({ serverUrl: server.mcpUrl, clients, redirectUrl: REDIRECT }),
      await startAuthorization({ serverUrl: server.mcpUrl, clients, redirectUrl: REDIRECT }),
    ];
    expect(a.state).not.toBe(b.state);
    expect(a.codeVerifier).not.toBe(b.codeVerifier);
    expect(server.authServer.stats.registrations).toBe(1); // the second start reuses the stored registration
  });
});

describe("startAuthorization against servers that do not do OAuth", () => {
  it("says the server does not offer OAuth when it publishes no metadata, without guessing endpoints", async () => {
    const plain = new HttpFixture(() => ({
      handle: (_req, res) => void res.writeHead(404, { "content-type": "text/plain" }).end("not here"),
      close: async () => {},
    }));
    await plain.start();
    cleanups.push(() => plain.stop());
    const clients = memoryClients();
    await expect(
      startAuthorization({ serverUrl: plain.url("/mcp"), clients, redirectUrl: REDIRECT }),
    ).rejects.toBeInstanceOf(OAuthNotOfferedError);
    expect(plain.requests.map((r) => r.path)).not.toContain("/register");
    expect(clients.saved).toBe(0);
  });

  it("reports an upstream that cannot be reached as such, not as one without OAuth", async () => {
    const error = await startAuthorization({
      serverUrl: `http://127.0.0.1:${await closedPort()}/mcp`,
      clients: memoryClients(),
      redirectUrl: REDIRECT,
    }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(OAuthNotOfferedError);
    expect(classifyError(error).kind).toBe("connection_refused");
  });

  it("ends with a timeout when the upstream holds every request open", async () => {
    const silent = new HttpFixture(() => ({ handle: () => {}, close: async () => {} }));
    silent.mode = "hang";
    await silent.start();
    cleanups.push(() => silent.stop());
    const error = await startAuthorization({
      serverUrl: silent.url("/mcp"),
      clients: memoryClients(),
      redirectUrl: REDIRECT,
      timeoutMs: 300,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthStartTimeoutError);
    expect((error as Error).message).toMatch(/did not answer within/);
  });
});

describe("finishAuthorization", () => {
  it("exchanges the code for tokens that open the MCP server and list its tools", async () => {
    const server = await serve();
    const clients = memoryClients();
    const tokens = await authorize(server, clients);
    expect(tokens.refreshToken).toMatch(/^rt_/);
    expect(tokens.expiresAt).toBeInstanceOf(Date);
    expect(tokens.issuer).toBe(server.issuerUrl);

    const connection = connect(
      server,
      oauthFetch(fetch, { tokens: async () => tokens, onUnauthorized: async () => undefined }),
    );
    const { tools } = await connection.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["echo", "whoami"]);
    expect(server.acceptedTokens).toContain(tokens.accessToken);
  });

  it("refuses a code that was already exchanged", async () => {
    const server = await serve();
    const clients = memoryClients();
    const started = await startAuthorization({ serverUrl: server.mcpUrl, clients, redirectUrl: REDIRECT });
    const code = (await approve(started.authorizationUrl)).searchParams.get("code")!;
    await finishAuthorization({
      serverUrl: server.mcpUrl,
      clients,
      redirectUrl: REDIRECT,
      code,
      codeVerifier: started.codeVerifier,
    });
    await expect(
      finishAuthorization({
        serverUrl: server.mcpUrl,
        clients,
        redirectUrl: REDIRECT,
        code,
        codeVerifier: started.codeVerifier,
      }),
    ).rejects.toThrow();
  });

  it("refuses a code presented with another flow's PKCE verifier", async () => {
    const server = await serve();
    const clients = memoryClients();
    const first = await startAuthorization({ serverUrl: server.mcpUrl, clients, redirectUrl: REDIRECT });
    const second = await startAuthorization({ serverUrl: server.mcpUrl, clients, redirectUrl: REDIRECT });
    const code = (await approve(first.authorizationUrl)).searchParams.get("code")!;
    await expect(
      finishAuthorization({
        serverUrl: server.mcpUrl,
        clients,
        redirectUrl: REDIRECT,
        code,
        codeVerifier: second.codeVerifier,
      }),
    ).rejects.toThrow();
  });
});

describe("finishAuthorization against the issuer the flow started with", () => {
  it("refuses to send the code, verifier and client secret to another authorization server than the one it started with", async () => {
    const started = await serve();
    const elsewhere = await serve();
    // An admin's pre-registered client names no issuer: it would be offered to whichever server is discovered.
    const pre = started.authServer.preRegister({ redirectUris: [REDIRECT], secret: "s3cret-value" });
    const clients = memoryClients({ client_id: pre.client_id, client_secret: "s3cret-value" });
    const flow = await startAuthorization({ serverUrl: started.mcpUrl, clients, redirectUrl: REDIRECT });
    expect(flow.issuer).toBe(started.issuerUrl);
    const code = (await approve(flow.authorizationUrl)).searchParams.get("code")!;
    // The resource now names another authorization server (its metadata changed, or was tampered with).
    const finish = (startedIssuer: string | undefined) => {
      const asked: string[] = [];
      const watched: FetchLike = (url, init) => {
        asked.push(`${init?.method ?? "GET"} ${String(url)}`);
        return fetch(url, init);
      };
      const result = finishAuthorization({
        serverUrl: elsewhere.mcpUrl,
        clients,
        redirectUrl: REDIRECT,
        code,
        codeVerifier: flow.codeVerifier,
        startedIssuer,
        fetch: watched,
      });
      return { result, asked };
    };
    const toOther = (asked: string[]) =>
      asked.filter((line) => line.startsWith(`POST ${new URL(elsewhere.issuerUrl).origin}`));

    const checked = finish(flow.issuer);
    await expect(checked.result).rejects.toThrow(/another authorization server/);
    expect(toOther(checked.asked)).toEqual([]);

    // Without the kept issuer, the code and its verifier would go to the other server.
    const unchecked = finish(undefined);
    await unchecked.result.catch(() => undefined);
    expect(toOther(unchecked.asked).some((line) => line.endsWith("/token"))).toBe(true);
  });
});

describe("refreshAccessToken", () => {
  it("trades the refresh token for a new access token and a rotated refresh token", async () => {
    const server = await serve();
    const clients = memoryClients();
    const tokens = await authorize(server, clients);
    const result = await refreshAccessToken({ serverUrl: server.mcpUrl, clients, tokens });
    if (!result.ok) throw new Error(result.message);
    expect(result.tokens.accessToken).not.toBe(tokens.accessToken);
    expect(result.tokens.refreshToken).not.toBe(tokens.refreshToken);
    expect(server.authServer.isActiveRefreshToken(tokens.refreshToken!)).toBe(false);
    expect(server.authServer.isActiveRefreshToken(result.tokens.refreshToken!)).toBe(true);
  });

  it("keeps the refresh token when the server does not rotate it", async () => {
    const server = await serve({ rotateRefreshTokens: false });
    const clients = memoryClients();
    const tokens = await authorize(server, clients);
    const result = await refreshAccessToken({ serverUrl: server.mcpUrl, clients, tokens });
    expect(result.ok && result.tokens.refreshToken).toBe(tokens.refreshToken);
  });

  it("asks for re-authentication when the refresh token was revoked", async () => {
    const server = await serve();
    const clients = memoryClients();
    const tokens = await authorize(server, clients);
    server.authServer.revoke(tokens.refreshToken!);
    const result = await refreshAccessToken({ serverUrl: server.mcpUrl, clients, tokens });
    expect(result).toMatchObject({ ok: false, kind: "reauth" });
    expect(!result.ok && result.message).toMatch(/re-authenticate/);
  });

  it("only asks to retry later when the authorization server cannot be reached", async () => {
    const server = await serve();
    const clients = memoryClients();
    const tokens = await authorize(server, clients);
    const port = await closedPort();
    const result = await refreshAccessToken({
      serverUrl: `http://127.0.0.1:${port}/mcp`,
      clients,
      tokens: { ...tokens, issuer: undefined },
    });
    expect(result).toMatchObject({ ok: false, kind: "retry" });
  });
});

describe("oauthFetch", () => {
  it("retries a request that got 401 with the refreshed token, so the caller never sees the expiry", async () => {
    const server = await serve();
    const clients = memoryClients();
    let current = await authorize(server, clients);
    let refreshed = 0;
    const connection = connect(
      server,
      oauthFetch(fetch, {
        tokens: async () => current,
        onUnauthorized: async (used) => {
          const result = await refreshAccessToken({ serverUrl: server.mcpUrl, clients, tokens: used });
          if (!result.ok) throw new ReauthorizationRequiredError(result.message);
          refreshed += 1;
          current = result.tokens;
          return current;
        },
      }),
    );
    await connection.connect();
    server.authServer.expire(current.accessToken);
    const result = await connection.callTool({ name: "echo", arguments: { text: "still here" } });
    expect(result.content).toEqual([{ type: "text", text: "still here" }]);
    expect(refreshed).toBe(1);
    expect(server.rejected()).toBeGreaterThanOrEqual(1);
  });

  it("ends in requires_reauth with the member-facing message when the grant is gone", async () => {
    const server = await serve();
    const clients = memoryClients();
    const tokens = await authorize(server, clients);
    server.authServer.revoke(tokens.refreshToken!); // also kills the access token issued with it
    const connection = connect(
      server,
      oauthFetch(fetch, {
        tokens: async () => tokens,
        onUnauthorized: async (used) => {
          const result = await refreshAccessToken({ serverUrl: server.mcpUrl, clients, tokens: used });
          if (!result.ok) throw new ReauthorizationRequiredError(result.message);
          return result.tokens;
        },
      }),
    );
    const error = await connection.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(classifyError(error)).toMatchObject({ status: "requires_reauth", retryable: false });
    expect(String(error)).toMatch(/re-authenticate/);
  });

  it("hands the 401 to the transport when there is nothing newer to retry with (requires_reauth)", async () => {
    const server = await serve();
    const clients = memoryClients();
    const tokens = await authorize(server, clients);
    server.authServer.expire(tokens.accessToken);
    const connection = connect(
      server,
      oauthFetch(fetch, { tokens: async () => tokens, onUnauthorized: async () => undefined }),
    );
    const error = await connection.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(classifyError(error).status).toBe("requires_reauth");
  });
});

describe("a step-up (403 insufficient_scope)", () => {
  it("ends the call in requires_reauth naming the scope, keeps it, and the next authorization asks for both", async () => {
    const server = await serve({ scopes: ["mcp:tools", "mcp:admin"], stepUp: { tool: "whoami", scope: "mcp:admin" } });
    const clients = memoryClients();
    // Its challenge names no scope and its metadata both: this member was granted the narrower one.
    let tokens = await authorize(server, clients, "mcp:tools");
    expect(tokens.scope).toBe("mcp:tools");
    const needed: Array<string | undefined> = [];
    const connection = connect(
      server,
      oauthFetch(fetch, {
        tokens: async () => tokens,
        onUnauthorized: async () => undefined,
        onInsufficientScope: async (_used, scope) => void needed.push(scope),
      }),
    );
    await connection.connect();
    await expect(connection.callTool({ name: "echo", arguments: { text: "fine" } })).resolves.toBeDefined();
    const error = await connection.callTool({ name: "whoami", arguments: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(classifyError(error)).toMatchObject({ status: "requires_reauth", retryable: false });
    expect(String(error)).toContain("The server asks for more access than was granted (mcp:admin)");
    expect(needed).toEqual(["mcp:admin"]);

    // The member authorizes again: asked for what was granted and what the server needs.
    const started = await startAuthorization({
      serverUrl: server.mcpUrl,
      clients,
      redirectUrl: REDIRECT,
      scope: stepUpScope(tokens.scope, needed[0]),
    });
    expect(new URL(started.authorizationUrl).searchParams.get("scope")).toBe("mcp:tools mcp:admin");
    const back = await approve(started.authorizationUrl);
    tokens = await finishAuthorization({
      serverUrl: server.mcpUrl,
      clients,
      redirectUrl: REDIRECT,
      code: back.searchParams.get("code")!,
      codeVerifier: started.codeVerifier,
    });
    const fresh = connect(
      server,
      oauthFetch(fetch, { tokens: async () => tokens, onUnauthorized: async () => undefined }),
    );
    await fresh.connect();
    const result = await fresh.callTool({ name: "whoami", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: (await clients.clientInformation())!.client_id }]);
  });
});

describe("refresh policy", () => {
  const at = (iso: string) => new Date(iso);

  it("refreshes long-lived tokens five minutes before they expire", () => {
    const tokens = { refreshToken: "r", obtainedAt: at("2026-01-01T00:00:00Z"), expiresAt: at("2026-01-01T01:00:00Z") };
    expect(refreshAt(tokens)).toEqual(at("2026-01-01T00:55:00Z"));
    expect(needsRefresh(tokens, at("2026-01-01T00:54:59Z"))).toBe(false);
    expect(needsRefresh(tokens, at("2026-01-01T00:55:00Z"))).toBe(true);
  });

  it("refreshes short-lived tokens at three quarters of their lifetime", () => {
    const tokens = { refreshToken: "r", obtainedAt: at("2026-01-01T00:00:00Z"), expiresAt: at("2026-01-01T00:00:04Z") };
    expect(refreshAt(tokens)).toEqual(at("2026-01-01T00:00:03Z"));
  });

  it("never schedules a refresh without a refresh token or an expiry", () => {
    expect(refreshAt({ expiresAt: at("2026-01-01T01:00:00Z") })).toBeUndefined();
    expect(refreshAt({ refreshToken: "r" })).toBeUndefined();
    expect(needsRefresh({ refreshToken: "r" }, at("2030-01-01T00:00:00Z"))).toBe(false);
  });

  it("tells a transient refresh failure from one only the member can fix", async () => {
    const { InvalidGrantError, ServerError, TemporarilyUnavailableError } =
      await import("@modelcontextprotocol/sdk/server/auth/errors.js");
    expect(classifyRefreshFailure(new InvalidGrantError("revoked")).kind).toBe("reauth");
    expect(classifyRefreshFailure(new ServerError("boom")).kind).toBe("retry");
    expect(classifyRefreshFailure(new TemporarilyUnavailableError("later")).kind).toBe("retry");
    expect(classifyRefreshFailure(new TypeError("fetch failed")).kind).toBe("retry");
  });
});

describe("stepUpScope and clientMetadataUrlFor", () => {
  it("asks a step-up for what was granted and what the challenge names, each once", () => {
    expect(stepUpScope("mcp:read mcp:write", "mcp:admin mcp:read")).toBe("mcp:read mcp:write mcp:admin");
    expect(stepUpScope(undefined, "mcp:admin")).toBe("mcp:admin");
    expect(stepUpScope("", undefined)).toBeUndefined();
  });

  it("offers our metadata document as a client id only from an https console", () => {
    expect(clientMetadataUrlFor("https://sb.example.com/")).toBe(
      "https://sb.example.com/api/oauth/client-metadata.json",
    );
    expect(clientMetadataUrlFor("http://localhost:3000")).toBeUndefined();
  });
});
