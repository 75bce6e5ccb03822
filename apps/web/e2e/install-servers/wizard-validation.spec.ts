import type { Page } from "@playwright/test";
import { expectAccessible } from "../support/a11y";
import { expect, shot, test } from "../support/fixtures";

/** The mutations the page sends from now on (tRPC batches name them in the path). */
function watchMutations(page: Page) {
  const sent: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().includes("/api/trpc/")) sent.push(new URL(r.url()).pathname);
  });
  return sent;
}

for (const width of [1440, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test("defining a server checks each field as it is fixed, previews the slug, sends nothing until Install, and can be abandoned and defined again", async ({
      adminPage: page,
      memberPage: _member,
      team,
      upstream,
    }) => {
      await page.goto(`/t/${team.slug}/servers`);
      await page.getByRole("button", { name: "Install a server" }).click();
      const wizard = page.getByRole("region", { name: "Install a server" });
      const step = wizard.getByTestId("wizard-step-heading");
      await wizard.getByLabel("Custom").check();
      await wizard.getByRole("button", { name: "Define a server" }).click();
      const form = wizard.getByRole("form", { name: "Check the definition" });
      await form.getByLabel("Remote, Streamable HTTP").check();
      const sent = watchMutations(page);

      // A fresh form shows no error; an empty submit sends nothing and marks what is missing.
      const name = form.getByLabel("Name", { exact: true }).first();
      const url = form.getByLabel("URL", { exact: true });
      await expect(name).toHaveAttribute("aria-invalid", "false");
      await form.getByRole("button", { name: "Continue" }).click();
      await expect(name).toHaveAttribute("aria-invalid", "true");
      await expect(form.getByText("Give the server a name.")).toBeVisible();
      await expect(url).toHaveAttribute("aria-invalid", "true");
      await expect(form.getByText("A remote server needs a URL.")).toBeVisible();
      await expect(name).toBeFocused();
      await expectAccessible(page, `define-errors-${width}`);
      await shot(page, `define-errors-${width}`);

      // Each error goes as its field is fixed; the slug follows the name, previewed as a tool name.
      await name.fill("Team Docs");
      await expect(form.getByText("Give the server a name.")).toHaveCount(0);
      await expect(name).toHaveAttribute("aria-invalid", "false");
      await expect(form.getByLabel("Slug (tool prefix)")).toHaveValue("team-docs");
      await expect(form.getByTestId("slug-preview")).toHaveText("Tools will be named team-docs-tool.");
      await url.fill("ftp://docs.example");
      await expect(form.getByText("Enter an http:// or https:// URL.")).toBeVisible();
      await url.fill(upstream.url);
      await expect(url).toHaveAttribute("aria-invalid", "false");
      await form.getByLabel("Slug (tool prefix)").fill("Team Docs");
      await expect(form.getByText("Use lowercase letters, digits and single dashes.")).toBeVisible();
      await form.getByLabel("Slug (tool prefix)").fill("team-docs");
      await form.getByRole("button", { name: "Continue" }).click();

      // Team settings: the same rules, nothing sent.
      await expect(step).toHaveText("Step 3 of 4: Team settings");
      const settings = wizard.getByRole("form", { name: "Team settings" });
      await settings.getByLabel("Name", { exact: true }).fill("");
      await settings.getByRole("button", { name: "Review" }).click();
      await expect(settings.getByText("Give the server a name (at least 2 characters).")).toBeVisible();
      await settings.getByLabel("Name", { exact: true }).fill("Docs for the team");
      await expect(settings.getByText("Give the server a name (at least 2 characters).")).toHaveCount(0);
      await expect(settings.getByTestId("install-slug-preview")).toHaveText("Tools will be named team-docs-tool.");
      expect(sent, "nothing is written before the last step").toEqual([]);

      // Abandoned after the definition: nothing was saved, so the catalogue is still empty.
      await page.goto(`/t/${team.slug}/catalogue`);
      await expect(page.getByText("No servers in the catalogue yet")).toBeVisible();

      // Defining the same server again works, and the confirmation says what will be created.
      await page.goto(`/t/${team.slug}/servers`);
      await page.getByRole("button", { name: "Install a server" }).click();
      await wizard.getByLabel("Custom").check();
      await wizard.getByRole("button", { name: "Define a server" }).click();
      await form.getByLabel("Remote, Streamable HTTP").check();
      await form.getByLabel("Name", { exact: true }).first().fill("Team Docs");
      await form.getByLabel("URL", { exact: true }).fill(upstream.url);
      await form.getByRole("button", { name: "Continue" }).click();
      await wizard.getByRole("button", { name: "Review" }).click();
      await expect(step).toHaveText("Step 4 of 4: Confirm");
      const summary = wizard.getByTestId("wizard-summary");
      await expect(summary.getByRole("row", { name: /^Name/ })).toContainText("Team Docs");
      await expect(summary.getByRole("row", { name: /^Slug/ })).toContainText("team-docs-tool");
      await expect(summary.getByRole("row", { name: /^Definition/ })).toContainText(
        "New: Team Docs (team-docs), added to your catalogue when you install",
      );
      await expect(summary.getByRole("row", { name: /^Transport/ })).toContainText("Streamable HTTP");
      await expect(summary.getByRole("row", { name: /^URL/ })).toContainText(upstream.url);
      await expect(summary.getByTestId("wizard-instance-count")).toHaveText("2 instances, one per member of the team");
      await expectAccessible(page, `wizard-confirm-${width}`);
      await shot(page, `wizard-confirm-${width}`);
      await wizard.getByRole("button", { name: "Install", exact: true }).click();
      await expect(page).toHaveURL(/\/installations\//);
      await expect(page.getByRole("heading", { level: 1 })).toContainText("Team Docs");
    });
  });
}
