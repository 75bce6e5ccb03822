import { expectAccessible } from "../support/a11y";
import { trpcMutation } from "../support/api";
import { expect, shot, test } from "../support/fixtures";

test.use({ viewport: { width: 1440, height: 900 } });

test("the install wizard keeps keyboard focus: into it when it opens, to each step's heading as it moves, back to its button when it closes", async ({
  adminPage: page,
  team,
}) => {
  await trpcMutation(page.request, "catalogue.create", {
    teamId: team.id,
    template: {
      slug: "focus-demo",
      name: "Focus demo",
      transport: "streamable_http",
      url: "http://127.0.0.1:9/mcp",
      fields: [{ key: "X-Team-Key", tier: "team", kind: "header", required: true, secret: true }],
    },
  });
  await page.goto(`/t/${team.slug}/servers`);
  const open = page.getByRole("button", { name: "Install a server" });
  await open.focus();
  await page.keyboard.press("Enter");

  // Opening moves focus into the wizard, onto the step it starts at.
  const wizard = page.getByRole("region", { name: "Install a server" });
  const step = wizard.getByRole("heading", { level: 3 });
  await expect(step).toHaveText("Step 1 of 3: Source");
  await expect(step).toBeFocused();
  await expectAccessible(page, "wizard-source");

  // Tab goes on from the heading into the step's fields (the catalogue has a template, so it is the source).
  await page.keyboard.press("Tab");
  await expect(wizard.getByLabel("Your team's catalogue")).toBeFocused();
  await wizard.getByLabel("Template").selectOption({ label: "Focus demo (focus-demo)" });
  await wizard.getByRole("button", { name: "Next" }).press("Enter");

  // Each step starts at its heading; the previous step's button is gone, focus is not lost with it.
  await expect(step).toHaveText("Step 2 of 3: Team settings");
  await expect(step).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(wizard.getByLabel("Name", { exact: true })).toBeFocused();
  await wizard.getByLabel("X-Team-Key (required)").fill("team-secret-0001");
  await wizard.getByRole("button", { name: "Review" }).press("Enter");
  await expect(step).toHaveText("Step 3 of 3: Confirm");
  await expect(step).toBeFocused();
  await expect(wizard.getByRole("row", { name: /X-Team-Key/ })).toContainText("(secret)");
  await expectAccessible(page, "wizard-confirm");
  await shot(page, "wizard-confirm-focused");

  // Back moves focus too, to the step it returns to.
  await wizard.getByRole("button", { name: "Back" }).press("Enter");
  await expect(step).toHaveText("Step 2 of 3: Team settings");
  await expect(step).toBeFocused();
  await wizard.getByRole("button", { name: "Back" }).press("Enter");
  await expect(step).toHaveText("Step 1 of 3: Source");
  await expect(step).toBeFocused();

  // Closing hands focus back to the button that opened the wizard.
  await wizard.getByRole("button", { name: "Cancel" }).press("Enter");
  await expect(wizard).toBeHidden();
  await expect(open).toBeFocused();
});
