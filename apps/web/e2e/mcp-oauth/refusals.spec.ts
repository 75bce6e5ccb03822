import { createHash, randomBytes } from "node:crypto";
import { installViaApi } from "../support/api";
import { expect, test } from "../support/fixtures";
import { codeOf, followAuthorization, startCallbackListener } from "../support/oauth-client";

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

async function register(baseURL: string, redirect: string, name = "Refusals client") {
  const res = await fetch(`${baseURL}/api/auth/oauth2/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirect],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { client_id: string };
}

function authorizeUrl(baseURL: string, q: Record<string, string>) {
  return `${baseURL}/api/auth/oauth2/authorize?${new URLSearchParams({ response_type: "code", scope: "mcp offline_access", state: "s1", ...q })}`;
}

test("bad OAuth input gets a clear refusal and changes nothing: unknown client, redirect mismatch, plain PKCE, replayed code, wrong audience, self-registered clients refused by the team", async ({
  adminPage,
  memberPage,
  team,
  upstream,
  baseURL,
}) => {
  await installViaApi(adminPage.request, team.id, {
    slug: "demo",
    name: "Demo",
    transport: "streamable_http",
    url: upstream.url,
  });
  const listener = await startCallbackListener();
  const { client_id } = await register(baseURL!, listener.url);
  const { verifier, challenge } = pkce();
  const resource = `${baseURL}/api/mcp`;

  // Unknown client and a redirect URI it did not register: the browser is not sent to the URI named.
  for (const q of [
    { client_id: "no-such-client", redirect_uri: listener.url },
    { client_id, redirect_uri: `${listener.url}-elsewhere` },
  ]) {
    const res = await memberPage.request.get(
      authorizeUrl(baseURL!, { ...q, code_challenge: challenge, code_challenge_method: "S256", resource }),
      { maxRedirects: 0 },
    );
    const location = res.headers().location ?? "";
    expect(location.startsWith(q.redirect_uri)).toBe(false);
    expect(res.status()).toBeGreaterThanOrEqual(300);
  }
  // PKCE S256 only: "plain" is refused (back to the client with an error, no code).
  const plain = await memberPage.request.get(
    authorizeUrl(baseURL!, {
      client_id,
      redirect_uri: listener.url,
      code_challenge: verifier,
      code_challenge_method: "plain",
      resource,
    }),
    { maxRedirects: 0 },
  );
  expect(plain.headers().location ?? "").not.toContain("code=");

  // A real authorization, then the code used twice: the second exchange is refused.
  const code = codeOf(
    await followAuthorization(
      memberPage,
      new URL(
        authorizeUrl(baseURL!, {
          client_id,
          redirect_uri: listener.url,
          code_challenge: challenge,
          code_challenge_method: "S256",
          resource,
        }),
      ),
      listener,
      async (p) => {
        await expect(p.getByTestId("consent-client-name")).toHaveText("Refusals client");
        await p.getByRole("button", { name: "Allow" }).click();
      },
    ),
  );
  const exchange = () =>
    fetch(`${baseURL}/api/auth/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: listener.url,
        client_id,
        code_verifier: verifier,
        resource,
      }),
    });
  const first = await exchange();
  expect(first.status).toBe(200);
  const tokens = (await first.json()) as { access_token: string; expires_in: number };
  expect(tokens.expires_in).toBeLessThanOrEqual(900);
  const replay = await exchange();
  expect(replay.status).toBe(400);
  expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");

  // Wrong audience: a token for the whole route does not open one installation's route.
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
  };
  const headers = {
    authorization: `Bearer ${tokens.access_token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const other = await fetch(`${baseURL}/api/mcp/servers/demo`, { method: "POST", headers, body: JSON.stringify(init) });
  expect(other.status).toBe(401);
  expect(other.headers.get("www-authenticate")).toContain(
    `resource_metadata="${baseURL}/.well-known/oauth-protected-resource/api/mcp/servers/demo"`,
  );
  expect(((await other.json()) as { error: { message: string } }).error.message).toContain(
    "issued for another MCP route",
  );
  // ... while it works where it was issued for.
  const ok = await fetch(resource, { method: "POST", headers, body: JSON.stringify(init) });
  expect(ok.status).toBe(200);

  // Per-server protected-resource metadata names the same authorization server.
  const meta = await (await fetch(`${baseURL}/.well-known/oauth-protected-resource/api/mcp/servers/demo`)).json();
  expect(meta).toMatchObject({
    resource: `${baseURL}/api/mcp/servers/demo`,
    authorization_servers: [`${baseURL}/api/auth`],
  });
  const as = await (await fetch(`${baseURL}/.well-known/oauth-authorization-server/api/auth`)).json();
  expect(as).toMatchObject({ issuer: `${baseURL}/api/auth`, code_challenge_methods_supported: ["S256"] });
  expect(as.registration_endpoint).toBe(`${baseURL}/api/auth/oauth2/register`);

  // The admin turns self-registered clients off: the member's client is signed out at once, and cannot come back.
  const off = await adminPage.request.post("/api/trpc/mcpClient.setPolicy", {
    data: { json: { teamId: team.id, allowed: false } },
    headers: { origin: baseURL! },
  });
  expect(off.ok(), await off.text()).toBe(true);
  const after = await fetch(resource, { method: "POST", headers, body: JSON.stringify(init) });
  expect(after.status).toBe(401);
  const again = pkce();
  await memberPage.goto(
    authorizeUrl(baseURL!, {
      client_id,
      redirect_uri: listener.url,
      code_challenge: again.challenge,
      code_challenge_method: "S256",
      resource,
    }),
  );
  await expect(memberPage.getByTestId("oauth-consent").getByRole("alert")).toContainText(
    "None of your teams accepts applications that registered themselves",
  );
  await expect(memberPage.getByRole("button", { name: "Allow" })).toBeDisabled();
  await listener.close();
});
