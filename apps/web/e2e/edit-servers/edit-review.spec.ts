import { expectAccessible } from "../support/a11y";
import { installViaApi } from "../support/api";
import { expect, shot, test } from "../support/fixtures";

for (const width of [1440, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test("editing a server shows what changes before and after, says exactly what restarts, and warns before saving a URL that failed its test", async ({
      adminPage: page,
      admin,
      team,
      upstream,
    }) => {
      const installation = await installViaApi(page.request, team.id, {
        slug: "notes",
        name: "Notes API",
        transport: "streamable_http",
        url: upstream.url,
      });
      await page.goto(`/t/${team.slug}/installations/${installation.id}`);
      // The worker has created the admin's instance (so the review can count it).
      await expect(page.getByTestId(`instance-${admin.email}`)).toBeVisible({ timeout: 30_000 });
      await page.getByRole("tab", { name: "Settings" }).click();

      // Words only: the review lists both changes, before and after, and nothing restarts.
      await page.getByRole("button", { name: "Edit server" }).click();
      const form = page.getByRole("form", { name: "Edit Notes API" });
      // One name to edit: the installation's (an installation edit saves no catalogue name, so none is offered).
      await expect(form.getByLabel("Name", { exact: true })).toHaveCount(0);
      await form.getByLabel("Installation name").fill("Team notes");
      await form.getByLabel("Description").fill("Everything the team writes down");
      await form.getByRole("button", { name: "Review changes" }).click();
      const confirm = page.getByTestId("edit-confirm");
      const changes = confirm.getByRole("table", { name: "What changes" });
      await expect(changes.getByRole("row", { name: /^Name/ })).toHaveText(/Notes API\s*Team notes\s*no/);
      await expect(changes.getByRole("row", { name: /^Description/ })).toHaveText(
        /none\s*Everything the team writes down\s*no/,
      );
      await expect(confirm).toContainText("Only the name and description change: nothing restarts.");
      await expectAccessible(page, `edit-words-${width}`);
      await confirm.getByRole("button", { name: "Save", exact: true }).click();
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toHaveText("Saved. Nothing restarts.");

      // A URL whose connection test failed: the review says the URL restarts the instance and asks first.
      await page.getByRole("button", { name: "Edit server" }).click();
      const edit = page.getByRole("form", { name: "Edit Team notes" });
      await expect(edit.getByLabel("Description")).toHaveValue("Everything the team writes down");
      const dead = "http://127.0.0.1:9/mcp";
      await edit.getByLabel("URL", { exact: true }).fill(dead);
      await edit.getByRole("button", { name: "Test connection" }).click();
      await expect(edit.getByTestId("connection-test-result")).toBeVisible({ timeout: 30_000 });
      await edit.getByRole("button", { name: "Review changes" }).click();
      await expect(changes.getByRole("row", { name: /^URL/ })).toContainText(dead);
      await expect(changes.getByRole("row", { name: /^URL/ })).toContainText("yes");
      await expect(confirm).toContainText("This restarts 1 member's instance, because the URL changes.");
      await expect(confirm.getByTestId("edit-warning")).toContainText("The last connection test of this URL failed");
      await expectAccessible(page, `edit-warning-${width}`);
      await shot(page, `edit-warning-${width}`);

      // Back to the form: a URL that was not tested is not warned about; the one that failed is, again.
      await confirm.getByRole("button", { name: "Back" }).click();
      await edit.getByLabel("URL", { exact: true }).fill("http://127.0.0.1:10/mcp");
      await edit.getByRole("button", { name: "Review changes" }).click();
      await expect(confirm.getByRole("button", { name: "Save and restart" })).toBeVisible();
      await expect(confirm.getByTestId("edit-warning")).toHaveCount(0);
      await confirm.getByRole("button", { name: "Back" }).click();
      await edit.getByLabel("URL", { exact: true }).fill(dead);
      await edit.getByRole("button", { name: "Review changes" }).click();
      await expect(confirm.getByTestId("edit-warning")).toBeVisible();
      await confirm.getByRole("button", { name: "Save anyway" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toHaveText(
        "Saved. 1 member's instance is restarting with the new configuration.",
      );
    });
  });
}
