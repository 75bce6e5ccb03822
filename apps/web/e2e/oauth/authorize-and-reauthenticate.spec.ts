import { installViaApi } from "../support/api";
import { expect, shot, test } from "../support/fixtures";
import { connectMcpClient } from "../support/mcp-client";
import { OAuthServerProcess } from "../support/oauth-server";
import type { Page } from "@playwright/test";

const status = (page: Page) => page.getByTestId("my-server-secure").locator("[data-status]").first();

/** Connect/Re-authenticate on My servers: out to the authorization server and back through the callback. */
async function authorize(page: Page, slug: string, label: "Connect" | "Re-authenticate") {
  await page.goto(`/t/${slug}/my-servers`);
  await expect(status(page)).toHaveAttribute("data-status", "requires_reauth", { timeout: 30_000 });
  await page.getByRole("button", { name: `${label}: Secure API` }).click();
  await expect(page).toHaveURL(/\/my-servers\?.*oauth=connected/, { timeout: 30_000 });
  await expect(page.getByTestId("oauth-result")).toContainText("Authorized");
  await expect(status(page)).toHaveAttribute("data-status", "online", { timeout: 30_000 });
}

test("members authorize an OAuth server, stay connected across refreshes, and only the revoked member re-authenticates", async ({
  adminPage,
  memberPage,
  team,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const oauth = await OAuthServerProcess.start();
  try {
    // Access tokens live 6 s, so the worker must refresh them during the test.
    await oauth.setAccessTokenTtl(6_000);
    await installViaApi(adminPage.request, team.id, {
      slug: "secure",
      name: "Secure API",
      transport: "streamable_http",
      url: oauth.mcpUrl,
      oauth: true,
    });

    // Grant 1: the admin; grant 2: the member. Before authorizing, each instance waits for its member.
    await authorize(adminPage, team.slug, "Connect");
    await authorize(memberPage, team.slug, "Connect");
    await expect(memberPage.getByTestId("my-server-secure")).toContainText(/2 tools/);
    await shot(memberPage, "member-authorized");

    // Tokens expire and are refreshed by the worker without anyone noticing: still online, calls still work.
    await expect.poll(async () => (await oauth.stats()).refreshes, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    await expect(status(memberPage)).toHaveAttribute("data-status", "online");
    await memberPage.getByRole("link", { name: "Connect", exact: true }).click();
    await memberPage.getByLabel("Token name").fill("oauth e2e");
    await memberPage.getByRole("button", { name: "Create token" }).click();
    const token = (await memberPage.getByTestId("new-token").locator("code").textContent())!;
    const client = await connectMcpClient(baseURL!, token);
    try {
      const result = await client.callTool({ name: "secure-echo", arguments: { text: "after a refresh" } });
      expect(JSON.stringify(result.content)).toContain("after a refresh");
    } finally {
      await client.close();
    }

    // The member's grant is revoked at the provider: their next refresh fails -> requires_reauth, live.
    await oauth.revokeGrant(2);
    await memberPage.goto(`/t/${team.slug}/my-servers`);
    await expect(status(memberPage)).toHaveAttribute("data-status", "requires_reauth", { timeout: 30_000 });
    await expect(memberPage.getByRole("button", { name: "Re-authenticate: Secure API" })).toBeVisible();
    await shot(memberPage, "member-requires-reauth");
    // The admin's instance of the same installation is untouched.
    await adminPage.goto(`/t/${team.slug}/my-servers`);
    await expect(status(adminPage)).toHaveAttribute("data-status", "online");

    // Re-authenticating brings the member back with the same tools.
    await authorize(memberPage, team.slug, "Re-authenticate");
    await expect(memberPage.getByTestId("my-server-secure")).toContainText(/2 tools/);
    await shot(memberPage, "member-reauthenticated");
  } finally {
    await oauth.stop();
  }
});
