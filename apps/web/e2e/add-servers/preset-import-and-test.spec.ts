import { consoleOrigin } from "../support/api";
import { allowStdioViaApi, expect, shot, test } from "../support/fixtures";
import { startHtmlServer } from "../support/html-server";

test("installs a reference server from a preset on a new team's empty catalogue", async ({
  ownerPage,
  adminPage: page,
  team,
}) => {
  await allowStdioViaApi(ownerPage.request, team.id, []);
  const allowPackage = await ownerPage.request.post("/api/trpc/deployment.addAllowedCommand", {
    data: { json: { entry: { kind: "package", launcher: "npx", name: "@modelcontextprotocol/server-everything" } } },
    headers: consoleOrigin(),
  });
  expect(allowPackage.ok() || allowPackage.status() === 409, await allowPackage.text()).toBe(true);
  await page.goto(`/t/${team.slug}/servers`);
  await page.getByRole("button", { name: "Install a server" }).click();
  const wizard = page.getByRole("region", { name: "Install a server" });
  // An empty catalogue starts on the presets.
  await expect(wizard.getByLabel("A preset")).toBeChecked();
  await expect(wizard.getByRole("list", { name: "Presets" })).toContainText("Filesystem");
  await wizard.getByRole("button", { name: "Use Everything (reference test server)" }).click();

  const form = wizard.getByRole("form", { name: "Check the definition" });
  await expect(form.getByLabel("Command", { exact: true })).toHaveValue("npx");
  await expect(form.getByLabel(/^Arguments/)).toHaveValue("-y\n@modelcontextprotocol/server-everything");
  await form.getByRole("button", { name: "Continue" }).click();

  await expect(wizard.getByRole("form", { name: "Team settings" })).toBeVisible();
  await wizard.getByRole("button", { name: "Review" }).click();
  await wizard.getByRole("button", { name: "Install" }).click();
  await expect(page).toHaveURL(/\/installations\//);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Everything (reference test server)");
  await shot(page, "installed-from-preset");

  // The preset became a catalogue template, which says where it is used.
  await page.goto(`/t/${team.slug}/catalogue`);
  await expect(page.getByTestId("template-usage")).toContainText("Used by Everything (reference test server)");
});

test("imports a server.json whose personal secret each member must fill in, and the member waits for it", async ({
  adminPage: page,
  memberPage,
  team,
  upstream,
}) => {
  const serverJson = {
    $schema: "https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json",
    name: "io.example/everything-remote",
    title: "Everything remote",
    description: "The reference server over Streamable HTTP.",
    version: "1.0.0",
    remotes: [
      {
        type: "streamable-http",
        url: upstream.url,
        headers: [{ name: "X-Api-Key", description: "Your own key", isRequired: true, isSecret: true }],
      },
    ],
  };
  await page.goto(`/t/${team.slug}/servers`);
  await page.getByRole("button", { name: "Install a server" }).click();
  const wizard = page.getByRole("region", { name: "Install a server" });
  await wizard.getByLabel("Import (server.json or registry)").check();
  await wizard.getByLabel("server.json (paste it, or choose a file)").fill(JSON.stringify(serverJson, null, 2));
  await wizard.getByRole("button", { name: "Import" }).click();

  const form = wizard.getByRole("form", { name: "Check the definition" });
  await expect(form.getByLabel("URL", { exact: true })).toHaveValue(upstream.url);
  const setting = form.getByRole("group", { name: "Setting 1" });
  await expect(setting.getByLabel("Name")).toHaveValue("X-Api-Key");
  await expect(setting.getByLabel("Provided by")).toHaveValue("user");
  await expect(setting.getByLabel("Required")).toBeChecked();
  await expect(setting.getByLabel("Secret")).toBeChecked();

  // Test connection with a key for this test only: the server answers with its tools and their token cost.
  const test_ = form.getByRole("region", { name: "Test connection" });
  await test_.getByText(/Values for the test/).click();
  await test_.getByLabel("X-Api-Key (required)").fill("test-only-key-1234");
  await test_.getByRole("button", { name: "Test connection" }).click();
  const result = test_.getByTestId("connection-test-result");
  await expect(result).toContainText(/answered: \d+ tools, [\d,]+ tokens in a prompt\./, { timeout: 30_000 });
  await expect(result).toContainText("Transport: Streamable HTTP");
  await expect(result).toContainText(/protocol \d{4}-\d{2}-\d{2}/);
  await shot(page, "import-tested");

  await form.getByRole("button", { name: "Continue" }).click();
  await expect(wizard.getByText(/Each member fills in: X-Api-Key \(required\)/)).toBeVisible();
  await wizard.getByRole("button", { name: "Review" }).click();
  await wizard.getByRole("button", { name: "Install" }).click();
  await expect(page).toHaveURL(/\/installations\//);

  await memberPage.goto(`/t/${team.slug}/my-servers`);
  const card = memberPage.getByTestId("my-server-everything-remote");
  await expect(card.getByText("Needs your settings")).toBeVisible({ timeout: 30_000 });
  await expect(card.getByLabel("X-Api-Key (required)")).toBeVisible();
});

test("tests a URL that answers with a web page and reads one sentence, with the page behind a details disclosure", async ({
  adminPage: page,
  team,
}) => {
  const html = await startHtmlServer();
  try {
    await page.goto(`/t/${team.slug}/servers`);
    await page.getByRole("button", { name: "Install a server" }).click();
    const wizard = page.getByRole("region", { name: "Install a server" });
    await wizard.getByLabel("Custom").check();
    await wizard.getByRole("button", { name: "Define a server" }).click();
    const form = wizard.getByRole("form", { name: "Check the definition" });
    await form.getByLabel("Name", { exact: true }).fill("Wrong path");
    await form.getByLabel("Remote, Streamable HTTP").check();
    await form.getByLabel("URL", { exact: true }).fill(html.url);
    await form.getByRole("button", { name: "Test connection" }).click();
    const result = form.getByTestId("connection-test-result");
    await expect(result).toContainText("The server answered with a web page, not MCP", { timeout: 30_000 });
    await expect(result).toContainText("check the URL's path");
    await result.getByText("details").click();
    await expect(result.locator("pre")).toContainText("WelcomeToTheCorporatePortal");
    // The page's text is bounded and stays inside the form.
    const widths = await result.evaluate((el) => ({
      el: el.getBoundingClientRect().width,
      form: el.closest("form")!.getBoundingClientRect().width,
    }));
    expect(widths.el).toBeLessThanOrEqual(widths.form);
    await shot(page, "wrong-url-tested");
  } finally {
    await html.close();
  }
});

test("says readably why a server.json with only a container image cannot be imported", async ({
  adminPage: page,
  team,
}) => {
  await page.goto(`/t/${team.slug}/servers`);
  await page.getByRole("button", { name: "Install a server" }).click();
  const wizard = page.getByRole("region", { name: "Install a server" });
  await wizard.getByLabel("Import (server.json or registry)").check();
  await wizard
    .getByLabel("server.json (paste it, or choose a file)")
    .fill(
      '{ "name": "io.example/containers", "packages": [{ "registryType": "oci", "identifier": "docker.io/example/mcp" }] }',
    );
  await wizard.getByRole("button", { name: "Import" }).click();
  await expect(wizard.getByRole("alert")).toContainText("cannot run this server's packages (oci)");
});
