import { randomBytes } from "node:crypto";
import { startOidcIdp } from "../../test/support/oidc-idp";
import { installViaApi, trpcMutation } from "../support/api";
import { expect, test } from "../support/fixtures";
import {
  codeOf,
  connectWithOAuth,
  followAuthorization,
  startCallbackListener,
  TestOAuthProvider,
} from "../support/oauth-client";

/**
 * An MCP client's sign-in goes through the company's identity provider: the SDK client starts the OAuth flow
 * from the route's 401, the browser's sign-in page sends the person (never signed in before) to the OIDC
 * provider, they come back to the consent page with their account created in the team their group maps, allow
 * the client, and it calls a tool of that team.
 */
test("an SDK client's member signs in through SSO on the way to consent and calls a tool", async ({
  ownerPage,
  adminPage,
  team,
  upstream,
  browser,
  baseURL,
}) => {
  const id = randomBytes(3).toString("hex");
  const providerId = `mcp-oidc-${id}`;
  const domain = `mcp-${id}.example.test`;
  const clientSecret = `secret-${randomBytes(12).toString("hex")}`;
  const idp = await startOidcIdp({
    clientId: "switchboard-console",
    clientSecret,
    redirectUris: [`${baseURL}/api/auth/sso/callback/${providerId}`],
  });
  const email = `grace-${id}@${domain}`;
  idp.state.user = { sub: `grace-${id}`, email, name: `Grace ${id}`, groups: ["builders"] };
  await trpcMutation(ownerPage.request, "sso.addProvider", {
    protocol: "oidc",
    name: `Acme ${id}`,
    providerId,
    domains: domain,
    ssoOnly: false,
    issuer: idp.issuer,
    oidcClientId: "switchboard-console",
    oidcClientSecret: clientSecret,
  });
  await trpcMutation(ownerPage.request, "identity.addGroupMapping", {
    providerId,
    groupName: "builders",
    teamId: team.id,
    role: "member",
  });
  await installViaApi(adminPage.request, team.id, {
    slug: "demo",
    name: "Demo",
    transport: "streamable_http",
    url: upstream.url,
  });

  const listener = await startCallbackListener();
  const provider = new TestOAuthProvider(listener.url, "E2E SSO client");
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    const client = await connectWithOAuth(baseURL!, provider, async (url) =>
      codeOf(
        await followAuthorization(page, url, listener, async (p) => {
          await expect(p).toHaveURL(/\/sign-in\?/);
          await p.getByLabel("Email").fill(email);
          await p.getByRole("button", { name: "Sign in with SSO" }).click();
          // Back from the provider, signed in: the client's consent page, not the console.
          await expect(p.getByTestId("oauth-consent")).toBeVisible();
          await expect(p.getByTestId("consent-client-name")).toHaveText("E2E SSO client");
          await p.getByRole("button", { name: "Allow" }).click();
        }),
      ),
    );
    try {
      // The account the provider created is in the mapped team, and its instance comes online.
      await page.goto(`/t/${team.slug}/my-servers`);
      await expect(page.getByTestId("my-server-demo").locator("[data-status]").first()).toHaveAttribute(
        "data-status",
        "online",
        { timeout: 30_000 },
      );
      await expect
        .poll(async () => (await client.listTools()).tools.map((t) => t.name), { timeout: 15_000 })
        .toContain("demo-echo");
      const result = await client.callTool({ name: "demo-echo", arguments: { message: "signed in by the IdP" } });
      expect(JSON.stringify(result.content)).toContain("signed in by the IdP");
    } finally {
      await client.close().catch(() => undefined);
    }
  } finally {
    await context.close();
    await listener.close();
    await idp.close();
  }
});
