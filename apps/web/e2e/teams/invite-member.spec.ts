import { createTeamViaApi, expect, newAccount, shot, signUpViaApi, test } from "../support/fixtures";
import { expectAccessible } from "../support/a11y";
import { mailedLink } from "../support/mail";

test.describe("teams and invitations", () => {
  test("an admin signs up, creates a team and invites a member who accepts and sees the team", async ({
    page,
    browser,
  }) => {
    const admin = newAccount("Admin");
    // Sign up through the real form.
    await page.goto("/");
    await expect(page).toHaveURL(/\/sign-in/);
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("Name").fill(admin.name);
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("heading", { name: "Your teams" })).toBeVisible();
    await expect(page.getByText("You are not in a team yet")).toBeVisible();

    // Create a team.
    const teamName = `Platform ${Date.now().toString(36)}`;
    await page.getByLabel("Team name").fill(teamName);
    await page.getByRole("button", { name: "Create team" }).click();
    await expect(page.getByRole("heading", { name: teamName })).toBeVisible();
    const teamPath = new URL(page.url()).pathname;

    // Invite a member by link.
    await page.getByRole("link", { name: "Members", exact: true }).click();
    const member = newAccount("Member");
    await page.getByLabel("Email").fill(member.email);
    await page.getByRole("button", { name: "Create invitation link" }).click();
    const link = (await page.getByTestId("invitation-link").locator("code").textContent())!;
    expect(link).toMatch(/\/invite\/[A-Za-z0-9]+$/);
    // The pending invitation is listed, its address heading the row.
    await expect(
      page.getByRole("region", { name: "Pending invitations" }).getByRole("rowheader", { name: member.email }),
    ).toBeVisible();
    await shot(page, "admin-invited-member");

    // The member opens the link in their own browser, signs up with the invited address, and accepts.
    const memberContext = await browser.newContext();
    const memberPage = await memberContext.newPage();
    await memberPage.goto(new URL(link).pathname);
    await expect(memberPage.getByRole("heading", { name: `Join ${teamName}` })).toBeVisible();
    await memberPage.getByRole("link", { name: "Create an account" }).click();
    await expect(memberPage.getByLabel("Email")).toHaveValue(member.email);
    await memberPage.getByLabel("Name").fill(member.name);
    await memberPage.getByLabel("Password").fill(member.password);
    await memberPage.getByRole("button", { name: "Create account" }).click();
    // Holding the link is not enough: the invitee confirms the address through the mailed link first.
    await expect(memberPage.getByTestId("confirm-email")).toContainText(`open the link we sent to ${member.email}`);
    await expect(memberPage.getByRole("button", { name: `Accept and join ${teamName}` })).toHaveCount(0);
    await shot(memberPage, "invitee-must-confirm-email");
    await memberPage.goto(await mailedLink(member.email, /Confirm your email/));
    await expect(memberPage).toHaveURL(new RegExp(`/invite/[A-Za-z0-9]+$`));
    await memberPage.getByRole("button", { name: `Accept and join ${teamName}` }).click();
    await expect(memberPage).toHaveURL(new RegExp(`${teamPath}$`));
    await expect(memberPage.getByRole("heading", { name: teamName })).toBeVisible();
    await expect(memberPage.getByTestId("member-count")).toHaveText("2");

    // The member sees the team's members but cannot invite (admins only).
    await memberPage.getByRole("link", { name: "Members", exact: true }).click();
    await expect(memberPage.getByRole("cell", { name: admin.email })).toBeVisible();
    await expect(memberPage.getByRole("button", { name: "Create invitation link" })).toHaveCount(0);
    await shot(memberPage, "member-sees-team");
    // In exactly one team, the console's front door leads straight into it.
    await memberPage.goto("/");
    await expect(memberPage).toHaveURL(new RegExp(`${teamPath}$`));

    // The admin makes the member an admin: confirmed first (saying what an admin may do), then a toast.
    await page.goto(`${teamPath}/members`);
    await page.getByLabel(`Role of ${member.email}`).selectOption("admin");
    const confirm = page.getByRole("dialog", { name: `Make ${member.name} an admin?` });
    await expect(confirm).toContainText("Admins install servers");
    await confirm.getByRole("button", { name: "Make admin" }).click();
    await expect(page.getByTestId("toast")).toContainText(`${member.name} is now an admin.`);
    await expect(page.getByLabel(`Role of ${member.email}`)).toHaveValue("admin");
    await expectAccessible(page, "members");

    // The invitation cannot be used twice.
    await memberPage.goto(new URL(link).pathname);
    await expect(memberPage.getByText("This invitation is accepted")).toBeVisible();
    await memberContext.close();
  });

  test("a member of another team gets a 404 for the first team's pages and API", async ({ browser, consoleWatch }) => {
    consoleWatch.expect(/status of 404 .*\/t\/private-[^/]+(\/members)?\)$/);
    const owner = newAccount("Owner");
    const ownerContext = await browser.newContext();
    await signUpViaApi(ownerContext.request, owner);
    const team = await createTeamViaApi(ownerContext.request, `Private ${Date.now().toString(36)}`);

    const stranger = newAccount("Stranger");
    const strangerContext = await browser.newContext();
    await signUpViaApi(strangerContext.request, stranger);
    await createTeamViaApi(strangerContext.request, `Other ${Date.now().toString(36)}`);
    const page = await strangerContext.newPage();

    for (const path of [`/t/${team.slug}`, `/t/${team.slug}/members`]) {
      const response = await page.goto(path);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    }
    await shot(page, "stranger-404");

    const api = await strangerContext.request.get(
      `/api/trpc/team.members?input=${encodeURIComponent(JSON.stringify({ json: { teamId: team.id } }))}`,
    );
    expect(api.status()).toBe(404);
    expect(JSON.stringify(await api.json())).not.toContain(owner.email);

    // The owner still sees their team.
    const ownerPage = await ownerContext.newPage();
    expect((await ownerPage.goto(`/t/${team.slug}/members`))?.status()).toBe(200);
    await ownerContext.close();
    await strangerContext.close();
  });
});
