import { expect, newAccount, shot, signUpViaApi, test } from "../support/fixtures";
import { mailedLink } from "../support/mail";

test.describe("passwords", () => {
  test("someone who forgot their password resets it through the mailed link and signs in with the new one", async ({
    page,
    browser,
  }) => {
    const account = newAccount("Forgetful");
    const setup = await browser.newContext();
    await signUpViaApi(setup.request, account);
    await setup.close();

    await page.goto("/sign-in");
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await expect(page.getByRole("heading", { name: "Reset your password" })).toBeVisible();
    await page.getByLabel("Email").fill(account.email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(page.getByRole("status")).toContainText(`If ${account.email} has an account`);

    await page.goto(await mailedLink(account.email, /Reset your Switchboard password/));
    await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
    // The policy speaks before anything changes.
    await page.getByLabel("New password", { exact: true }).fill("password1234");
    await page.getByRole("button", { name: "Set new password" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "commonly used" })).toBeVisible();
    await shot(page, "reset-refuses-common-password");

    const fresh = `new ${account.password} phrase`;
    await page.getByLabel("New password", { exact: true }).fill(fresh);
    await page.getByRole("button", { name: "Set new password" }).click();
    await expect(page.getByRole("heading", { name: "Password changed" })).toBeVisible();
    await page.getByRole("link", { name: "Sign in" }).click();
    await expect(page.getByRole("heading", { name: "Sign in to Switchboard" })).toBeVisible();

    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill(account.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Invalid email or password" })).toBeVisible();
    await page.getByLabel("Password").fill(fresh);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Your teams" })).toBeVisible();
  });

  test("a signed-in person changes their password on the account page", async ({ adminPage, admin, browser }) => {
    await adminPage.goto("/teams");
    await adminPage.getByRole("link", { name: "Account" }).click();
    await expect(adminPage.getByRole("heading", { name: "Your account" })).toBeVisible();
    await adminPage.getByLabel("Current password").fill(admin.password);
    await adminPage.getByLabel("New password", { exact: true }).fill("short");
    await adminPage.getByRole("button", { name: "Change password" }).click();
    // The browser's own length check keeps the form from being sent.
    await expect(adminPage.getByRole("status")).toHaveCount(0);
    await adminPage.getByLabel("New password", { exact: true }).fill(`changed ${admin.password}`);
    await adminPage.getByRole("button", { name: "Change password" }).click();
    await expect(adminPage.getByRole("status")).toHaveText("Password changed.");
    await shot(adminPage, "password-changed");

    // A fresh browser signs in with the new password; the answer carries no session token (the cookie does).
    const other = await browser.newContext();
    const check = await other.request.post("/api/auth/sign-in/email", {
      data: { email: admin.email, password: `changed ${admin.password}` },
    });
    expect(check.ok(), await check.text()).toBe(true);
    expect(await check.json()).not.toHaveProperty("token");
    await other.close();
  });
});
