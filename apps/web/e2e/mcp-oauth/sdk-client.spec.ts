import { installDemoOnline } from "../support/api";
import { expect, shot, test } from "../support/fixtures";
import {
  codeOf,
  connectWithOAuth,
  followAuthorization,
  startCallbackListener,
  TestOAuthProvider,
} from "../support/oauth-client";

test("an SDK client finds Switchboard's authorization server from the 401, registers, signs the member in on the way to consent, calls a tool, refreshes, and is cut off when the member revokes it", async ({
  adminPage,
  memberPage,
  member,
  team,
  upstream,
  baseURL,
  browser,
}) => {
  const installation = await installDemoOnline(adminPage.request, memberPage, team, upstream.url);

  // What a client sees first: a 401 that names the protected-resource metadata, which names the authorization server.
  const bare = await memberPage.request.post("/api/mcp", { data: { jsonrpc: "2.0", id: 1, method: "ping" } });
  expect(bare.status()).toBe(401);
  expect(bare.headers()["www-authenticate"]).toContain(
    `resource_metadata="${baseURL}/.well-known/oauth-protected-resource/api/mcp"`,
  );

  const listener = await startCallbackListener();
  const REDIRECT = listener.url;
  const provider = new TestOAuthProvider(REDIRECT, "E2E SDK client");
  // The browser part starts signed out: the sign-in page comes first and continues to the consent page.
  const context = await browser.newContext();
  const page = await context.newPage();
  const client = await connectWithOAuth(baseURL!, provider, async (url) =>
    codeOf(
      await followAuthorization(page, url, listener, async (p) => {
        await expect(p).toHaveURL(/\/sign-in\?/);
        await p.getByLabel("Email").fill(member.email);
        await p.getByLabel("Password").fill(member.password);
        await p.getByRole("button", { name: "Sign in", exact: true }).click();
        await expect(p.getByTestId("oauth-consent")).toBeVisible();
        await expect(p.getByTestId("consent-client-name")).toHaveText("E2E SDK client");
        await expect(
          p.getByText(team.slug, { exact: false }).or(p.getByText("It will use the servers of")),
        ).toBeVisible();
        await expect(p.getByLabel("Every tool of your online servers")).toBeChecked();
        await shot(p, "consent");
        await p.getByRole("button", { name: "Allow" }).click();
      }),
    ),
  );
  // Registered dynamically (RFC 7591): the server assigned the id.
  expect(provider.clientInformation()?.client_id).toBeTruthy();

  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("demo-echo");
    const result = await client.callTool({ name: "demo-echo", arguments: { message: "hello over oauth" } });
    expect(JSON.stringify(result.content)).toContain("hello over oauth");

    // Short-lived access tokens: a client whose access token no longer works refreshes, and the refresh token rotates.
    const before = provider.tokens()!;
    expect(before.refresh_token).toBeTruthy();
    expect(before.expires_in).toBeLessThanOrEqual(900);
    provider.saveTokens({ ...before, access_token: `${before.access_token.split(".")[0]}.e30.c2ln` });
    const again = await client.callTool({ name: "demo-echo", arguments: { message: "after refresh" } });
    expect(JSON.stringify(again.content)).toContain("after refresh");
    expect(provider.tokens()!.refresh_token).not.toBe(before.refresh_token);
  } finally {
    await client.close().catch(() => undefined);
  }

  // The request log names the client that made the call.
  await adminPage.goto(`/t/${team.slug}/installations/${installation.id}`);
  await adminPage.getByRole("tab", { name: "Request log" }).click();
  await expect(
    adminPage
      .getByTestId("request-row")
      .filter({ hasText: "after refresh" })
      .or(adminPage.getByTestId("request-row").first()),
  ).toContainText("via E2E SDK client");

  // Connect page: the member sees the client under "Signed-in clients", and revokes it.
  await memberPage.goto(`/t/${team.slug}/connect`);
  const row = memberPage.getByTestId("signed-in-client-row").filter({ hasText: "E2E SDK client" });
  await expect(row).toContainText("every tool");
  await expect(row).toContainText("just now");
  await shot(memberPage, "signed-in-clients");
  await row.getByRole("button", { name: "Revoke" }).click();
  await memberPage.getByRole("button", { name: "Revoke access" }).click();
  await expect(memberPage.getByTestId("signed-in-client-row")).toHaveCount(0);
  await expect(memberPage.getByText("No client has signed in to this team yet.")).toBeVisible();

  // The very next call is refused: the access token is dead and so is the refresh token.
  const token = provider.tokens()!;
  const refused = await memberPage.request.post("/api/mcp", {
    headers: { authorization: `Bearer ${token.access_token}`, accept: "application/json, text/event-stream" },
    data: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    },
  });
  expect(refused.status()).toBe(401);
  expect(refused.headers()["www-authenticate"]).toContain('error="invalid_token"');
  // As the client sends it: no cookies, a form body.
  const refreshed = await fetch(`${baseURL}/api/auth/oauth2/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: token.refresh_token!,
      client_id: provider.clientInformation()!.client_id,
      resource: `${baseURL}/api/mcp`,
    }),
  });
  expect(refreshed.status).toBe(400);
  expect((await refreshed.json()).error).toBe("invalid_grant");
  await context.close();
  await listener.close();
});
