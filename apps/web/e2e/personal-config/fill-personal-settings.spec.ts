import { installKeyedViaApi } from "../support/api";
import { expectAccessible } from "../support/a11y";
import { expect, shot, test } from "../support/fixtures";

test("a member whose server needs a personal key sees it waiting, fills the key in and watches it come online", async ({
  adminPage,
  memberPage: page,
  member,
  team,
  upstream,
}) => {
  await installKeyedViaApi(adminPage.request, team.id, { url: upstream.url });

  await page.goto(`/t/${team.slug}/my-servers`);
  const card = page.getByTestId("my-server-keyed");
  await expect(card.getByText("Needs your settings")).toBeVisible();
  await expect(card.getByTestId("status-message")).toContainText("X-Api-Key");
  const key = card.getByLabel("X-Api-Key (required)");
  // Nothing typed yet, nothing tried: no red error on a fresh form.
  await expect(key).toHaveAttribute("aria-invalid", "false");
  await expect(card.getByText("X-Api-Key is required to start this server.")).toHaveCount(0);
  // The waiting server is marked as waiting for this member, at the top of the page.
  await expect(card).toHaveClass(/needs-you/);
  await expect(page.getByTestId("cost-all")).toHaveText("0 tokens");
  await expectAccessible(page, "my-servers");
  await shot(page, "awaiting-user-config");

  // Saving without the required key is refused before anything is sent, naming the field, which gets focus.
  await card.getByRole("button", { name: "Save my settings" }).click();
  await expect(card.getByTestId("settings-missing")).toHaveText("Fill in X-Api-Key before saving.");
  await expect(key).toBeFocused();
  await expect(key).toHaveAttribute("aria-invalid", "true");
  await expect(card.getByText("X-Api-Key is required to start this server.")).toBeVisible();
  await expect(page.getByTestId("toast")).toHaveCount(0);

  await key.fill("sk-member-personal-key-4242");
  await card.getByRole("button", { name: "Save my settings" }).click();
  await expect(page.getByTestId("toast")).toContainText("Saved your settings for Keyed API");

  // The worker provisions the instance; the card follows live, without a reload.
  await expect(card.locator("[data-status]").first()).toHaveAttribute("data-status", "online", { timeout: 30_000 });
  await expect(card).toContainText(/[1-9]\d* tools · [\d,]+ tokens/);
  await expect(page.getByTestId("cost-all")).not.toHaveText("0 tokens");
  // The secret never comes back in clear: the field is empty with a masked hint.
  await card.getByText("Your settings").click();
  await expect(card.getByLabel("X-Api-Key (required)")).toHaveValue("");
  await expect(card.getByLabel("X-Api-Key (required)")).toHaveAttribute(
    "placeholder",
    "••••••4242 — leave empty to keep",
  );
  await expect(page.getByText("sk-member-personal-key-4242")).toHaveCount(0);
  await shot(page, "member-online");

  // The admin's overview shows the member's instance online too.
  await adminPage.goto(`/t/${team.slug}?view=matrix`);
  await expect(adminPage.getByTestId(`cell-keyed-${member.email}`).getByText("Online")).toBeVisible();
});
