import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { expect, shot, test } from "../support/fixtures";

/**
 * The deployment owner trusts an enterprise identity provider for ID-JAG: adds it (disabled), tests it (the console
 * fetches its JWKS, served here), enables it after a confirmation that says what will happen, and removes it.
 */
test("the deployment owner adds an enterprise identity provider, tests its JWKS, enables and removes it", async ({
  ownerPage: page,
}) => {
  const jwks = createServer((req, res) => {
    res
      .writeHead(req.url === "/keys" ? 200 : 404, { "content-type": "application/json" })
      .end(JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", kid: "k1" }] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/keys`;
  const name = `Acme IdP ${randomBytes(3).toString("hex")}`;
  try {
    await page.goto("/settings/deployment");
    const section = page.getByRole("region", { name: "Enterprise-managed authorization (ID-JAG)" });
    await section.getByRole("button", { name: "Add an identity provider" }).click();
    const form = section.getByRole("form", { name: "Add an identity provider" });
    await form.getByLabel("Name", { exact: true }).fill(name);
    await form.getByLabel(/Issuer URL/).fill(`https://${randomBytes(4).toString("hex")}.idp.example`);
    await form.getByLabel(/JWKS URL/).fill(jwksUrl);
    await form.getByLabel(/The member is named by/).selectOption("email");
    await form.getByLabel(/Email domains it owns/).fill("acme.example, @Acme.example.org");
    await form.getByRole("button", { name: "Add identity provider" }).click();

    const row = section.getByTestId("idp-row").filter({ hasText: name });
    await expect(row).toContainText("Disabled");
    await expect(row).toContainText("Email domains: acme.example, acme.example.org");
    await row.getByRole("button", { name: `Test ${name}: fetch its JWKS` }).click();
    await expect(row.getByTestId("idp-test-result")).toHaveText("The JWKS answered with 1 signing key.");

    await row.getByRole("button", { name: `Enable ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: `Enable ${name}?` });
    await expect(dialog).toContainText("without a consent page");
    await dialog.getByRole("button", { name: "Enable" }).click();
    await expect(row).toContainText("Enabled");
    await shot(page, "enterprise-idp-enabled");

    await row.getByRole("button", { name: `Remove ${name}` }).click();
    await page
      .getByRole("dialog", { name: `Remove ${name}?` })
      .getByRole("button", { name: "Remove" })
      .click();
    await expect(section.getByTestId("idp-row").filter({ hasText: name })).toHaveCount(0);
  } finally {
    await new Promise((resolve) => jwks.close(resolve));
  }
});
