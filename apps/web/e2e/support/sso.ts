import type { Page } from "@playwright/test";
import type { TeamRole } from "@switchboard/core/accounts";
import { expect } from "./fixtures";

/**
 * The deployment owner's steps of single sign-on, through the console's own forms: add a provider on the
 * deployment settings, test it, and map the provider's groups to teams on the identity page.
 */
export async function addSsoProvider(
  page: Page,
  provider: { name: string; providerId: string; domain: string } & (
    | { protocol: "oidc"; issuer: string; clientId: string; clientSecret: string }
    | { protocol: "saml"; metadataXml: string }
  ),
) {
  await page.goto("/settings/deployment");
  const section = page.getByRole("region", { name: "Single sign-on" });
  await section.getByRole("button", { name: "Add an identity provider" }).click();
  const form = section.getByRole("form", { name: "Add an identity provider" });
  await form.getByLabel(provider.protocol === "oidc" ? "OpenID Connect" : "SAML 2.0").check();
  await form.getByLabel("Name shown to people").fill(provider.name);
  await form.getByLabel(/^Provider id/).fill(provider.providerId);
  await form.getByLabel(/^Email domains it owns/).fill(provider.domain);
  if (provider.protocol === "oidc") {
    await form.getByLabel(/^Issuer URL/).fill(provider.issuer);
    await form.getByLabel("Client id").fill(provider.clientId);
    await form.getByLabel(/^Client secret/).fill(provider.clientSecret);
  } else {
    await form.getByLabel("or the IdP metadata XML").fill(provider.metadataXml);
  }
  await form.getByRole("button", { name: "Add provider" }).click();
  const row = section.getByTestId(`sso-provider-${provider.providerId}`);
  await expect(row).toContainText(`Domains: ${provider.domain} · passwords still allowed`);
  return row;
}

/** Maps a group of a provider to a team with a role, confirming what will happen. */
export async function mapGroup(
  page: Page,
  mapping: { providerId: string; group: string; teamName: string; role: TeamRole },
) {
  await page.goto("/settings/identity");
  const form = page.getByRole("form", { name: "Map a group to a team" });
  await form.getByLabel("Provider", { exact: true }).fill(mapping.providerId);
  await form.getByLabel("Group name", { exact: true }).fill(mapping.group);
  await form.getByRole("combobox", { name: "Team", exact: true }).selectOption({ label: mapping.teamName });
  await form.getByRole("combobox", { name: "Role", exact: true }).selectOption(mapping.role);
  await form.getByRole("button", { name: "Add mapping" }).click();
  const dialog = page.getByRole("dialog", { name: `Map ${mapping.group} to ${mapping.teamName}?` });
  await expect(dialog).toContainText(`joins ${mapping.teamName} as ${mapping.role}`);
  await dialog.getByRole("button", { name: "Add mapping" }).click();
  await expect(
    page
      .getByTestId("group-mapping-row")
      .filter({ has: page.getByRole("rowheader", { name: mapping.group, exact: true }) }),
  ).toContainText(mapping.teamName);
}

/** A person at the sign-in page: their work address, then "Sign in with SSO" (the IdP signs them in at once). */
export async function signInWithSso(page: Page, email: string) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
}
