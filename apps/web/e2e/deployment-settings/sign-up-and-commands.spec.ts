import { randomBytes } from "node:crypto";
import { expect, newAccount, shot, test } from "../support/fixtures";

test("a team owner who is not the deployment owner sees no deployment settings", async ({
  adminPage: page,
  team,
  consoleWatch,
}) => {
  consoleWatch.expect(/status of 404 .*\/settings\/deployment\)$/);
  await page.goto(`/t/${team.slug}`);
  await expect(page.getByRole("link", { name: "Members", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Deployment settings" })).toHaveCount(0);
  const res = await page.goto("/settings/deployment");
  expect(res?.status()).toBe(404);
});

test("the deployment owner makes sign-up invitation only, and the sign-up page then says so instead of showing a form", async ({
  ownerPage: page,
  browser,
}) => {
  await page.goto("/teams");
  await page.getByRole("link", { name: "Deployment settings" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Deployment settings" })).toBeVisible();
  const signup = page.getByRole("region", { name: "Sign-up" });
  await expect(signup.getByTestId("signup-mode")).toContainText("Open: anyone");
  await signup.getByRole("button", { name: "Make sign-up invitation only" }).click();
  await expect(signup.getByTestId("signup-mode")).toContainText("Invitation only");
  try {
    const visitor = await browser.newContext();
    const visitorPage = await visitor.newPage();
    await visitorPage.goto("/sign-up");
    await expect(visitorPage.getByRole("heading", { name: "Sign-up is by invitation only" })).toBeVisible();
    await expect(visitorPage.getByRole("button", { name: "Create account" })).toHaveCount(0);
    await shot(visitorPage, "invite-only-sign-up");
    // The API answers as it does for any address (it never tells whether one has an account), and creates none.
    const walkIn = newAccount("Walk-in");
    const res = await visitor.request.post("/api/auth/sign-up/email", { data: walkIn });
    expect(res.status()).toBe(200);
    const signIn = await visitor.request.post("/api/auth/sign-in/email", {
      data: { email: walkIn.email, password: walkIn.password },
    });
    expect(signIn.status()).toBe(401);
    await visitor.close();
  } finally {
    // Opening asks for confirmation; the other journeys sign up through the API.
    await signup.getByRole("button", { name: "Open sign-up to everyone" }).click();
    await page.getByRole("button", { name: "Open sign-up", exact: true }).click();
    await expect(signup.getByTestId("signup-mode")).toContainText("Open: anyone");
  }
});

test("a command must be allowed for the team and on the list before a team admin can add it", async ({
  ownerPage: owner,
  adminPage: admin,
  team,
}) => {
  const program = `srv-${randomBytes(3).toString("hex")}`;
  const addStdio = async () => {
    await admin.goto(`/t/${team.slug}/catalogue`);
    await admin.getByRole("button", { name: "Add a server" }).click();
    const form = admin.getByRole("form", { name: "Add a server" });
    await form.getByLabel("Name", { exact: true }).first().fill("Local tool");
    await form.getByLabel("Local command (stdio)").check();
    await form.getByLabel("Command", { exact: true }).fill(program);
    await form.getByRole("button", { name: "Add to catalogue" }).click();
    return form;
  };
  const form = await addStdio();
  await expect(
    form.getByText("This team may not run stdio servers; a deployment owner can allow it in the deployment settings."),
  ).toBeVisible();

  await owner.goto("/settings/deployment");
  const row = owner.getByTestId("deployment-team-row").filter({ hasText: team.slug });
  await row.getByRole("button", { name: /Allow stdio for/ }).click();
  await expect(row).toContainText("allowed");
  await shot(owner, "team-allowed");

  await form.getByRole("button", { name: "Add to catalogue" }).click();
  await expect(
    form.getByText(
      `“${program}” is not on this deployment's list of allowed commands; ask a deployment owner to add it.`,
    ),
  ).toBeVisible();

  const allowForm = owner.getByRole("form", { name: "Allow a command" });
  await allowForm.getByLabel("Kind").selectOption("executable");
  await allowForm.getByRole("textbox", { name: "Program" }).fill("npx");
  await allowForm.getByRole("button", { name: "Allow" }).click();
  await expect(allowForm.getByText(/A package launcher would run any package/)).toBeVisible();
  await allowForm.getByRole("textbox", { name: "Program" }).fill(program);
  await allowForm.getByRole("button", { name: "Allow" }).click();
  const entry = owner.getByTestId("allowed-command-row").filter({ hasText: program });
  await expect(entry).toBeVisible();
  await shot(owner, "command-allowed");

  await form.getByRole("button", { name: "Add to catalogue" }).click();
  await expect(admin.getByTestId("template-card").filter({ hasText: "Local tool" })).toBeVisible();

  // Removing asks first.
  await entry.getByRole("button", { name: `Remove ${program}` }).click();
  await owner.getByRole("button", { name: "Remove", exact: true }).click();
  await expect(entry).toHaveCount(0);
});

test("the deployment owner shares the role with a team owner, who then finds the settings in the sidebar", async ({
  ownerPage: owner,
  adminPage,
  admin,
  team,
  consoleWatch,
}) => {
  consoleWatch.expect(/status of 404 .*\/settings\/deployment\)$/);
  await owner.goto("/settings/deployment");
  const section = owner.getByRole("region", { name: "Deployment owners" });
  await section.getByLabel("Email of an existing account").fill(admin.email);
  await section.getByRole("button", { name: "Make owner" }).click();
  const row = section.getByTestId("deployment-owner-row").filter({ hasText: admin.email });
  await expect(row).toBeVisible();

  await adminPage.goto(`/t/${team.slug}`);
  await adminPage.getByRole("link", { name: "Deployment settings" }).click();
  await expect(adminPage.getByRole("heading", { level: 1, name: "Deployment settings" })).toBeVisible();

  await row.getByRole("button", { name: `Remove ${admin.email} as owner` }).click();
  await owner.getByRole("button", { name: "Remove owner" }).click();
  await expect(row).toHaveCount(0);
  expect((await adminPage.goto("/settings/deployment"))?.status()).toBe(404);
});
