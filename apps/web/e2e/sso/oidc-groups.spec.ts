import { randomBytes } from "node:crypto";
import { startOidcIdp } from "../../test/support/oidc-idp";
import { expectAccessible } from "../support/a11y";
import { createTeamViaApi, expect, shot, test } from "../support/fixtures";
import { addSsoProvider, mapGroup, signInWithSso } from "../support/sso";

/**
 * Single sign-on with a real OpenID Connect provider (`oidc-provider` on 127.0.0.1, with a groups claim): the
 * deployment owner adds it and maps two of its groups to a team; a person of its domain signs in through it for
 * the first time (their account is created), lands in the team as a member, and each later sign-in applies what
 * changed at the provider: promoted to admin, then out of the team.
 */
test("a person signs in through the company's OIDC provider, lands in the mapped team, and follows group changes", async ({
  ownerPage: page,
  browser,
  baseURL,
}) => {
  const id = randomBytes(3).toString("hex");
  const providerId = `oidc-${id}`;
  const domain = `oidc-${id}.example.test`;
  // The IdP has rotated the client secret; the owner first enters the one they had.
  const oldSecret = `old-secret-${randomBytes(12).toString("hex")}`;
  const clientSecret = `secret-${randomBytes(12).toString("hex")}`;
  const idp = await startOidcIdp({
    clientId: "switchboard-console",
    clientSecret,
    redirectUris: [`${baseURL}/api/auth/sso/callback/${providerId}`],
  });
  const email = `ada-${id}@${domain}`;
  idp.state.user = { sub: `ada-${id}`, email, name: `Ada ${id}`, groups: ["engineering"] };
  const teamName = `Engineering ${id}`;
  const team = await createTeamViaApi(page.context().request, teamName);
  const person = await browser.newContext();
  try {
    const row = await addSsoProvider(page, {
      protocol: "oidc",
      name: `Acme Okta ${id}`,
      providerId,
      domain,
      issuer: idp.issuer,
      clientId: "switchboard-console",
      clientSecret: oldSecret,
    });
    await expect(row).toContainText(`${baseURL}/api/auth/sso/callback/${providerId}`);
    await expect(row).not.toContainText(oldSecret);
    await row.getByRole("button", { name: "Test" }).click();
    await expect(row.getByTestId("sso-test-result").locator("p")).toHaveText(
      `Usable: Acme Okta ${id} answers at its issuer with 1 signing key; sign in once to check the client id and secret.`,
    );
    await mapGroup(page, { providerId, group: "engineering", teamName, role: "member" });
    await mapGroup(page, { providerId, group: "eng-leads", teamName, role: "admin" });
    await shot(page, "identity-group-mappings");
    await expectAccessible(page, "identity page");

    // With the old secret the IdP refuses the console's code exchange: the person is told so on the sign-in page.
    const personPage = await person.newPage();
    await signInWithSso(personPage, email);
    await expect(personPage).toHaveURL(/\/sign-in\?/);
    await expect(personPage.getByTestId("auth-error")).toBeVisible();
    await shot(personPage, "sso-sign-in-failed");

    // The owner renames the provider and enters the new secret; the stored one is never shown.
    await page.goto("/settings/deployment");
    await row.getByRole("button", { name: `Edit Acme Okta ${id}` }).click();
    const edit = row.getByRole("form", { name: `Edit Acme Okta ${id}` });
    await expect(edit.getByLabel("Client id")).toHaveValue("switchboard-console");
    await expect(edit.getByLabel(/^New client secret/)).toHaveValue("");
    await edit.getByLabel("Name shown to people").fill(`Acme SSO ${id}`);
    await edit.getByLabel(/^New client secret/).fill(clientSecret);
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect(edit).toBeHidden();
    await expect(row).toContainText(`Acme SSO ${id} (OIDC)`);

    // First sign-in: the account is created and the groups claim puts the person in the team as a member.
    await person.clearCookies();
    await signInWithSso(personPage, email);
    await expect(personPage.getByRole("heading", { name: teamName })).toBeVisible();
    await page.goto(`/t/${team.slug}/members`);
    await expect(page.getByLabel(`Role of ${email}`)).toHaveValue("member");

    // The provider makes them a lead: at their next sign-in they are an admin.
    idp.state.user = { ...idp.state.user, groups: ["engineering", "eng-leads"] };
    await person.clearCookies();
    await signInWithSso(personPage, email);
    await expect(personPage.getByRole("heading", { name: teamName })).toBeVisible();
    await page.reload();
    await expect(page.getByLabel(`Role of ${email}`)).toHaveValue("admin");

    // Out of both groups: the next sign-in takes them out of the team, as a removal by hand would.
    idp.state.user = { ...idp.state.user, groups: [] };
    await person.clearCookies();
    await signInWithSso(personPage, email);
    await expect(personPage.getByRole("heading", { name: "Your teams" })).toBeVisible();
    await expect(personPage.getByText("You are not in a team yet")).toBeVisible();
    await page.reload();
    await expect(page.getByRole("heading", { name: "Members", exact: true })).toBeVisible();
    await expect(page.getByLabel(`Role of ${email}`)).toHaveCount(0);
  } finally {
    await person.close();
    await idp.close();
  }
});

test("an address no provider owns is told so in one sentence, and can still sign in with a password", async ({
  page,
}) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(`nobody-${randomBytes(3).toString("hex")}@nowhere.example.test`);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await expect(page.getByTestId("auth-error")).toContainText("single sign-on");
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
});
