import type { Page } from "@playwright/test";
import { installViaApi, trpcMutation } from "../support/api";
import { expect, shot, test } from "../support/fixtures";
import { OAuthServerProcess } from "../support/oauth-server";

const card = (page: Page, slug: string) => page.getByTestId(`my-server-${slug}`);
const status = (page: Page, slug: string) => card(page, slug).locator("[data-status]").first();

/** The browser's request to the authorization server's /authorize, for the client id it carries. */
const authorizeRequest = (page: Page) =>
  page.waitForRequest((r) => new URL(r.url()).pathname === "/authorize", { timeout: 30_000 });

test("a member connects with the OAuth client the admin pre-registered on the installation's Settings, not a dynamic registration", async ({
  adminPage,
  memberPage,
  team,
}) => {
  test.setTimeout(120_000);
  const oauth = await OAuthServerProcess.start();
  try {
    const installation = await installViaApi(adminPage.request, team.id, {
      slug: "preauth",
      name: "Pre API",
      transport: "streamable_http",
      url: oauth.mcpUrl,
      oauth: true,
    });

    // The admin reads the redirect URI from Settings, registers a client with it at the provider, enters it.
    await adminPage.goto(`/t/${team.slug}/installations/${installation.id}`);
    await adminPage.getByRole("tab", { name: "Settings" }).click();
    const section = adminPage.getByRole("region", { name: "OAuth client" });
    await expect(section.getByTestId("oauth-client-mode")).toHaveText("Using dynamic client registration.");
    const redirectUri = (await section.getByTestId("oauth-redirect-uri").textContent())!;
    expect(redirectUri).toMatch(/\/api\/oauth\/callback$/);
    const client = await oauth.preRegister({ redirectUris: [redirectUri], secret: "e2e-provider-secret" });

    const form = section.getByRole("form", { name: "OAuth client" });
    await form.getByLabel("Client ID").fill(client.clientId);
    await form.getByLabel("Client secret").fill(client.clientSecret!);
    await form.getByRole("button", { name: "Save OAuth client" }).click();
    await expect(section.getByTestId("oauth-client-mode")).toContainText(
      `Using the pre-registered client ${client.clientId} with a secret`,
    );
    // Write-only: the secret is gone from the field, and a hint says one is stored.
    await expect(form.getByLabel("Client secret")).toHaveValue("");
    await expect(form.getByLabel("Client secret")).toHaveAttribute("placeholder", /leave empty to keep/);
    await expect(adminPage.locator("body")).not.toContainText("e2e-provider-secret");
    await shot(adminPage, "oauth-client-saved");

    // The member connects: the authorization carries the admin's client id, and nothing was registered.
    await memberPage.goto(`/t/${team.slug}/my-servers`);
    await expect(status(memberPage, "preauth")).toHaveAttribute("data-status", "requires_reauth", { timeout: 30_000 });
    const authorize = authorizeRequest(memberPage);
    await memberPage.getByRole("button", { name: "Connect: Pre API" }).click();
    expect(new URL((await authorize).url()).searchParams.get("client_id")).toBe(client.clientId);
    await expect(memberPage).toHaveURL(/\/my-servers\?.*oauth=connected/, { timeout: 30_000 });
    await expect(status(memberPage, "preauth")).toHaveAttribute("data-status", "online", { timeout: 30_000 });
    await expect(card(memberPage, "preauth")).toContainText(/2 tools/);
    expect(await oauth.stats()).toMatchObject({ registrations: 0, codeExchanges: 1 });
    await shot(memberPage, "member-connected-with-pre-registered-client");

    // Clearing asks first, then goes back to dynamic registration for the next authorization.
    await form.getByRole("button", { name: "Clear OAuth client" }).click();
    await adminPage.getByRole("dialog").getByRole("button", { name: "Clear", exact: true }).click();
    await expect(section.getByTestId("oauth-client-mode")).toHaveText("Using dynamic client registration.");
    await expect(form.getByLabel("Client ID")).toHaveValue("");
  } finally {
    await oauth.stop();
  }
});

test("an admin installs an OAuth server with the wizard and connects their own account from its last step", async ({
  adminPage: page,
  team,
}) => {
  test.setTimeout(120_000);
  const oauth = await OAuthServerProcess.start();
  try {
    await trpcMutation(page.request, "catalogue.create", {
      teamId: team.id,
      template: { slug: "wizauth", name: "Wizard API", transport: "streamable_http", url: oauth.mcpUrl, oauth: true },
    });

    await page.goto(`/t/${team.slug}/servers`);
    await page.getByRole("button", { name: "Install a server" }).click();
    const wizard = page.getByRole("region", { name: "Install a server" });
    await wizard.getByLabel("Template").selectOption({ label: "Wizard API (wizauth)" });
    await wizard.getByRole("button", { name: "Next" }).click();
    await wizard.getByRole("button", { name: "Review" }).click();
    // The optional OAuth client step: left empty, members' flows register a client dynamically.
    const step = wizard.getByRole("form", { name: "OAuth client" });
    await expect(step.getByTestId("oauth-redirect-uri")).toHaveText(/\/api\/oauth\/callback$/);
    await step.getByRole("button", { name: "Review" }).click();
    await expect(wizard.getByRole("row", { name: /OAuth client/ })).toContainText("registered dynamically");
    await wizard.getByRole("button", { name: "Install", exact: true }).click();

    // The last step waits for the worker to create the admin's instance, then offers Connect.
    const connect = wizard.getByTestId("wizard-connect");
    await expect(connect).toContainText("every member connects their own account");
    await expect(connect.getByRole("link", { name: "My servers" }).first()).toBeVisible();
    await shot(page, "wizard-connect-step");
    const authorize = authorizeRequest(page);
    await connect.getByRole("button", { name: "Connect your account: Wizard API" }).click({ timeout: 30_000 });
    expect(new URL((await authorize).url()).searchParams.get("client_id")).toBeTruthy();
    await expect(page).toHaveURL(/\/my-servers\?.*oauth=connected/, { timeout: 30_000 });
    await expect(status(page, "wizauth")).toHaveAttribute("data-status", "online", { timeout: 30_000 });
    expect(await oauth.stats()).toMatchObject({ registrations: 1, codeExchanges: 1 });
  } finally {
    await oauth.stop();
  }
});
