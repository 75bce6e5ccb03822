import { randomBytes } from "node:crypto";
import { startSamlIdp } from "../../test/support/saml-idp";
import { createTeamViaApi, expect, shot, test } from "../support/fixtures";
import { addSsoProvider, mapGroup, signInWithSso } from "../support/sso";

/**
 * Single sign-on with a real SAML 2.0 identity provider (samlify on 127.0.0.1): the deployment owner adds it from
 * its metadata, the IdP imports the console's SP metadata, and a person of its domain signs in in the browser
 * (HTTP-Redirect to the IdP, its auto-posting form back to the ACS), landing in the team its memberOf attribute
 * maps, with the mapped role. Then the owner makes the provider the only way in for the domain: the person's
 * password attempt sends them to the provider instead.
 */
test("a person signs in through the company's SAML provider into the team its groups map, and SSO-only holds", async ({
  ownerPage: page,
  browser,
}) => {
  const id = randomBytes(3).toString("hex");
  const providerId = `saml-${id}`;
  const domain = `saml-${id}.example.test`;
  const idp = await startSamlIdp();
  const email = `lin-${id}@${domain}`;
  idp.state.user = { email, name: `Lin ${id}`, groups: ["cn=platform,ou=groups"] };
  const teamName = `Platform ${id}`;
  const team = await createTeamViaApi(page.context().request, teamName);
  const person = await browser.newContext();
  try {
    const row = await addSsoProvider(page, {
      protocol: "saml",
      name: `Acme Entra ${id}`,
      providerId,
      domain,
      metadataXml: idp.metadata,
    });
    // The IdP administrator imports the SP metadata the row links to.
    const spMetadataUrl = (await row
      .locator("code")
      .filter({ hasText: "/sso/saml2/sp/metadata" })
      .first()
      .textContent())!;
    const spMetadata = await page.request.get(spMetadataUrl);
    expect(spMetadata.ok()).toBe(true);
    idp.trustServiceProvider(await spMetadata.text());
    await row.getByRole("button", { name: "Test" }).click();
    await expect(row.getByTestId("sso-test-result").locator("p")).toHaveText(
      `Usable: Acme Entra ${id}'s certificate is valid and its sign-in URL answers; sign in once to check the audience and attributes.`,
    );
    await mapGroup(page, { providerId, group: "cn=platform,ou=groups", teamName, role: "admin" });

    const personPage = await person.newPage();
    await signInWithSso(personPage, email);
    await expect(personPage.getByRole("heading", { name: teamName })).toBeVisible();
    await shot(personPage, "saml-signed-in");
    await page.goto(`/t/${team.slug}/members`);
    await expect(page.getByLabel(`Role of ${email}`)).toHaveValue("admin");

    // SSO only for the domain: a password sign-in at that address goes to the provider (and back, signed in).
    await page.goto("/settings/deployment");
    const again = page.getByTestId(`sso-provider-${providerId}`);
    await again.getByRole("button", { name: "Make SSO the only way in" }).click();
    const dialog = page.getByRole("dialog", { name: `Only Acme Entra ${id} for ${domain}?` });
    await expect(dialog).toContainText("will no longer sign in, sign up or reset a password with a password");
    // Cancel changes nothing (the confirmation sits inside no form of its own, so it closes by itself).
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await expect(again).toContainText("passwords still allowed");
    await again.getByRole("button", { name: "Make SSO the only way in" }).click();
    await dialog.getByRole("button", { name: "Make SSO only" }).click();
    await expect(again).toContainText("SSO only");

    await person.clearCookies();
    await personPage.goto("/sign-in");
    await personPage.getByLabel("Email").fill(email);
    await personPage.getByLabel("Password").fill("not-their-password-at-all");
    await personPage.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(personPage.getByRole("heading", { name: teamName })).toBeVisible();
  } finally {
    await person.close();
    await idp.close();
  }
});
