import { expectAccessible } from "../support/a11y";
import { createTokenViaApi } from "../support/api";
import { expect, shot, test } from "../support/fixtures";
import { connectMcpClient } from "../support/mcp-client";

const CARD = "4111 1111 1111 1111";

test("an admin sets card numbers to redact on a server's Settings tab, the member's call reaches the server with the card redacted, and the request log shows the finding without the number", async ({
  adminPage,
  memberPage,
  team,
  baseURL,
  docs: { installation },
}) => {
  // Admin: the Guardrails card on the Settings tab, credentials flagged by default.
  await adminPage.goto(`/t/${team.slug}/installations/${installation.id}`);
  await adminPage.getByRole("tab", { name: "Settings" }).click();
  const guardrails = adminPage.getByRole("region", { name: "Guardrails" });
  const form = guardrails.getByRole("form", { name: "Guardrails" });
  await expect(form.getByRole("combobox", { name: /^Credentials/ })).toHaveValue("flag");
  await form.getByRole("combobox", { name: /^Card numbers/ }).selectOption("redact");
  await form.getByRole("button", { name: "Save guardrails" }).click();
  await expect(guardrails.getByRole("status")).toHaveText("Saved. Calls follow the new guardrails within 5 seconds.");
  await expect(form.getByRole("combobox", { name: /^Card numbers/ })).toHaveValue("redact");
  await expectAccessible(adminPage, "guardrails on the Settings tab");
  await shot(adminPage, "admin-guardrails");

  // Member: the gateway reads the settings within 5 seconds; then the card never reaches the server.
  const token = await createTokenViaApi(memberPage.request, team.id, "guardrail client");
  const client = await connectMcpClient(baseURL!, token);
  try {
    await expect
      .poll(
        async () => {
          const result = await client.callTool({ name: "docs-read", arguments: { text: `pay ${CARD}` } });
          return JSON.stringify(result.content);
        },
        { timeout: 20_000 },
      )
      .toContain("pay [redacted:card]");
  } finally {
    await client.close();
  }

  // Admin: the request log's entry names the finding, never the number.
  await adminPage.getByRole("tab", { name: "Request log" }).click();
  const call = adminPage.getByRole("row").filter({ hasText: "docs-read" }).first();
  await call.getByRole("button", { name: "Details" }).click();
  const detail = adminPage.getByTestId("request-detail");
  const findings = detail.getByRole("list", { name: "Guardrail findings" });
  await expect(findings).toContainText("Card numbers in the arguments at $.text (1): redacted");
  await expect(detail).toContainText("pay [redacted:card]");
  await expect(detail).not.toContainText(CARD);
  await expectAccessible(adminPage, "guardrail findings in the request log");
});
