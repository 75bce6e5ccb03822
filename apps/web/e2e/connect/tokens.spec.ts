import { createTeamViaApi, expect, shot, test } from "../support/fixtures";

test("a member creates a token that is shown once, sees client configuration with it, and revokes it", async ({
  adminPage: page,
}) => {
  const team = await createTeamViaApi(page.request, `Conn ${Date.now().toString(36)}`);
  await page.goto(`/t/${team.slug}/connect`);
  await expect(page.getByText("No tokens yet.")).toBeVisible();

  await page.getByLabel("Token name").fill("Claude Code on laptop");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("new-token").locator("code").textContent())!;
  expect(token).toMatch(/^sbp_[0-9A-Za-z]{40}$/);
  const withToken = page.getByRole("region", { name: "Clients with a token" });
  await expect(withToken.locator("pre")).toContainText(`Authorization: Bearer ${token}`);
  await withToken.getByRole("tab", { name: "VS Code" }).click();
  await expect(withToken.locator("pre")).toContainText('"type": "http"');
  const row = page.getByTestId("token-row").filter({ hasText: "Claude Code on laptop" });
  await expect(row).toContainText(token.slice(0, 10));
  await expect(row).not.toContainText(token);
  await shot(page, "token-created");

  // After a reload the full token is gone for good.
  await page.reload();
  await expect(page.getByText(token)).toHaveCount(0);
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("button", { name: "Revoke token" }).click();
  await expect(row.getByText("revoked")).toBeVisible();
});
