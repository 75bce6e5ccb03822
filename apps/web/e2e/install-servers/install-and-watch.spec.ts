import type { Page } from "@playwright/test";
import { allowStdioViaApi, expect, shot, test } from "../support/fixtures";

async function addTemplate(page: Page, t: { name: string; stdio?: { command: string }; url?: string }) {
  await page.getByRole("button", { name: "Add a server" }).click();
  const form = page.getByRole("form", { name: "Add a server" });
  await form.getByLabel("Name", { exact: true }).first().fill(t.name);
  if (t.stdio) {
    await form.getByLabel("Local command (stdio)").check();
    await form.getByLabel("Command", { exact: true }).fill(t.stdio.command);
  } else {
    await form.getByLabel("Remote, Streamable HTTP").check();
    await form.getByLabel("URL", { exact: true }).fill(t.url!);
  }
  await form.getByRole("button", { name: "Add to catalogue" }).click();
  await expect(page.getByTestId("template-card").filter({ hasText: t.name })).toBeVisible();
}

async function install(page: Page, templateName: string, slug: string) {
  await page.getByRole("link", { name: "Servers", exact: true }).click();
  await page.getByRole("button", { name: "Install a server" }).click();
  const wizard = page.getByRole("region", { name: "Install a server" });
  await wizard.getByLabel("Template").selectOption({ label: `${templateName} (${slug})` });
  await wizard.getByRole("button", { name: "Next" }).click();
  await wizard.getByRole("button", { name: "Review" }).click();
  await expect(wizard.getByText("Every member gets their own instance")).toBeVisible();
  await wizard.getByRole("button", { name: "Install", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: new RegExp(templateName) })).toBeVisible();
}

test("an admin adds a stdio and a Streamable HTTP server, installs both and watches them come online with tools and tokens", async ({
  adminPage: page,
  admin,
  team,
  upstream,
  ownerPage,
}) => {
  await allowStdioViaApi(ownerPage.request, team.id, ["mcp-server-everything"]);
  await page.goto(`/t/${team.slug}/catalogue`);
  await addTemplate(page, { name: "Everything stdio", stdio: { command: "mcp-server-everything" } });
  await addTemplate(page, { name: "Everything HTTP", url: upstream.url });
  await shot(page, "templates-added");

  // Install the stdio server: its instance progresses live to online on the installation page.
  await install(page, "Everything stdio", "everything-stdio");
  const mine = page.getByTestId(`instance-${admin.email}`);
  await expect(mine).toBeVisible();
  await expect(mine.locator("[data-status]").first()).toHaveAttribute("data-status", "online", { timeout: 30_000 });
  await expect(mine).toContainText(/\d+ tools · [\d,]+ tokens/);
  await page.getByRole("tab", { name: "Tools" }).click();
  await expect(page.getByTestId("tool-totals")).toContainText(/[1-9]\d* tools/);
  await expect(page.getByTestId("tool-row").filter({ hasText: "everything-stdio-echo" })).toBeVisible();
  await shot(page, "stdio-tools");

  // It runs sandboxed (no warning); the Settings tab shows the host's limits, and a lower memory limit restarts it.
  await expect(page.getByText("The sandbox is turned off")).toHaveCount(0);
  await page.getByRole("tab", { name: "Settings" }).click();
  const sandbox = page.getByRole("region", { name: "Sandbox" });
  await expect(sandbox.getByLabel("Memory (MB)")).toHaveAttribute("placeholder", /default \d+/);
  await expect(sandbox.getByLabel(/Allow outbound network access/)).not.toBeChecked();
  await sandbox.getByLabel("Memory (MB)").fill("512");
  await sandbox.getByRole("button", { name: "Save and restart" }).click();
  // The confirmation says how many instances restart (the admin's own, here).
  await page
    .getByRole("dialog", { name: "Save and restart 1 instance?" })
    .getByRole("button", { name: "Save and restart" })
    .click();
  await expect(sandbox.getByRole("status")).toContainText("Saved");
  await expect(sandbox.getByLabel("Memory (MB)")).toHaveValue("512");
  await shot(page, "stdio-sandbox-settings");
  await page.getByRole("tab", { name: "Instances" }).click();
  await expect(mine.locator("[data-status]").first()).toHaveAttribute("data-status", "online", { timeout: 30_000 });

  await install(page, "Everything HTTP", "everything-http");
  await expect(page.getByTestId(`instance-${admin.email}`).locator("[data-status]").first()).toHaveAttribute(
    "data-status",
    "online",
    { timeout: 30_000 },
  );
  // The revision the upstream speaks, found by discovery (the everything server is on SDK 1.x: 2025-11-25).
  await expect(page.getByTestId(`instance-${admin.email}`).getByTestId("instance-protocol")).toHaveText("2025-11-25");

  // The overview shows both servers online for the admin, with tool counts and token totals.
  await page.getByRole("link", { name: "Overview" }).click();
  await page.getByRole("tab", { name: "Matrix" }).click();
  for (const slug of ["everything-stdio", "everything-http"]) {
    const cell = page.getByTestId(`cell-${slug}-${admin.email}`);
    await expect(cell.getByText("Online")).toBeVisible();
    await expect(cell).toContainText(/[1-9]\d* tools · [\d,]+ tokens/);
  }
  await shot(page, "overview-online");
});
