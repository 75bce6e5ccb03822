import { allowStdioViaApi, createTeamViaApi, expect, shot, test } from "../support/fixtures";

test("an admin adds a Streamable HTTP server with settings, after fixing a readable validation error", async ({
  adminPage: page,
}) => {
  const team = await createTeamViaApi(page.request, `Cat ${Date.now().toString(36)}`);
  await page.goto(`/t/${team.slug}/catalogue`);
  await expect(page.getByText("No servers in the catalogue yet")).toBeVisible();

  await page.getByRole("button", { name: "Add a server" }).click();
  const form = page.getByRole("form", { name: "Add a server" });
  await form.getByLabel("Name", { exact: true }).first().fill("Search API");
  await expect(form.getByLabel("Slug (tool prefix)")).toHaveValue("search-api");
  await form.getByLabel("Remote, Streamable HTTP").check();
  await form.getByLabel("URL", { exact: true }).fill("ftp://wrong.example");
  await form.getByRole("button", { name: "Add a setting" }).click();
  const setting = form.getByRole("group", { name: "Setting 1" });
  await setting.getByLabel("Name").fill("X-Api-Key");
  await setting.getByLabel("Provided by").selectOption("user");
  await setting.getByLabel("Kind").selectOption("header");
  await setting.getByLabel("Required").check();
  await setting.getByLabel("Secret").check();
  await form.getByRole("button", { name: "Add to catalogue" }).click();
  await expect(form.getByText("Enter an http:// or https:// URL.").first()).toBeVisible();
  await shot(page, "validation-error");

  // An address on the console's own host is refused with the reason and the setting that would allow it.
  await form.getByLabel("URL", { exact: true }).fill("http://localhost:5432/");
  await form.getByRole("button", { name: "Add to catalogue" }).click();
  // The first answer's alerts stay on screen until the second one arrives: wait for the refusal itself.
  await expect(form.getByRole("alert").filter({ hasText: "loopback" })).toHaveText(
    "This server's address localhost (127.0.0.1) is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding localhost:5432 to EGRESS_ALLOW.",
  );
  await shot(page, "egress-refused");

  await form.getByLabel("URL", { exact: true }).fill("http://127.0.0.1:9/mcp");
  await form.getByRole("button", { name: "Add to catalogue" }).click();
  const card = page.getByTestId("template-card").filter({ hasText: "Search API" });
  await expect(card).toBeVisible();
  await expect(card.getByText("Streamable HTTP")).toBeVisible();
  await expect(card.getByRole("cell", { name: /X-Api-Key/ })).toContainText("secret");
  await expect(card.getByRole("cell", { name: "each member" })).toBeVisible();
  await shot(page, "template-added");

  // Delete asks for confirmation; cancelling keeps it.
  await card.getByRole("button", { name: "Delete" }).click();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(card).toBeVisible();
  await card.getByRole("button", { name: "Delete" }).click();
  await page.getByRole("button", { name: "Delete template" }).click();
  await expect(page.getByText("No servers in the catalogue yet")).toBeVisible();
});

test("an admin adds a stdio server whose argument setting passes values after “--”", async ({
  adminPage: page,
  ownerPage,
}) => {
  const team = await createTeamViaApi(page.request, `Args ${Date.now().toString(36)}`);
  await allowStdioViaApi(ownerPage.request, team.id, ["mcp-server-filesystem"]);
  await page.goto(`/t/${team.slug}/catalogue`);
  await page.getByRole("button", { name: "Add a server" }).click();
  const form = page.getByRole("form", { name: "Add a server" });
  await form.getByLabel("Name", { exact: true }).first().fill("Files");
  await form.getByLabel("Command", { exact: true }).fill("mcp-server-filesystem");
  await form.getByRole("button", { name: "Add a setting" }).click();
  const setting = form.getByRole("group", { name: "Setting 1" });
  await setting.getByLabel("Name").fill("folder");
  await setting.getByLabel("Provided by").selectOption("user");
  await expect(setting.getByLabel("Values starting with “-”")).toHaveCount(0);
  await setting.getByLabel("Kind").selectOption("arg");
  await expect(setting.getByLabel("Values starting with “-”")).toHaveValue("refuse");
  await setting.getByLabel("Values starting with “-”").selectOption("after_separator");
  await form.getByRole("button", { name: "Add to catalogue" }).click();
  await expect(page.getByTestId("template-card").filter({ hasText: "Files" })).toBeVisible();
});
