import { expectAccessible } from "../support/a11y";
import { installKeyedViaApi } from "../support/api";
import { expect, shot, test } from "../support/fixtures";

for (const width of [1440, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test("a member's settings form shows no error until the field was left empty or a save was tried, and clears it as they type", async ({
      adminPage,
      memberPage: page,
      team,
      upstream,
    }) => {
      await installKeyedViaApi(adminPage.request, team.id, { url: upstream.url });
      await page.goto(`/t/${team.slug}/my-servers`);
      const card = page.getByTestId("my-server-keyed");
      const key = card.getByLabel("X-Api-Key (required)");
      const error = card.getByText("X-Api-Key is required to start this server.");
      await expect(card.getByText("Needs your settings")).toBeVisible({ timeout: 30_000 });

      // Fresh: nothing typed, nothing tried, nothing red.
      await expect(key).toHaveAttribute("aria-invalid", "false");
      await expect(error).toHaveCount(0);
      await expectAccessible(page, `settings-fresh-${width}`);

      // Left empty: now it says so; typing clears it.
      await key.focus();
      await key.blur();
      await expect(error).toBeVisible();
      await key.fill("sk");
      await expect(error).toHaveCount(0);
      await expect(key).toHaveAttribute("aria-invalid", "false");

      // Emptied and saved: refused before anything is sent, the field marked again.
      await key.fill("");
      await card.getByRole("button", { name: "Save my settings" }).click();
      await expect(card.getByTestId("settings-missing")).toHaveText("Fill in X-Api-Key before saving.");
      await expect(error).toBeVisible();
      await expectAccessible(page, `settings-refused-${width}`);
      await shot(page, `settings-refused-${width}`);
    });
  });
}
