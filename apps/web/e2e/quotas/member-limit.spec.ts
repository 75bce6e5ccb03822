import { expectAccessible } from "../support/a11y";
import { createTokenViaApi } from "../support/api";
import { expect, shot, test } from "../support/fixtures";
import { connectMcpClient } from "../support/mcp-client";

test("an admin limits each member to 2 calls a minute on a server, the member's third call is refused in one sentence, My servers shows 2 of 2 used with its reset, and the admin sees the refusal", async ({
  adminPage,
  memberPage,
  team,
  baseURL,
  docs: { installation },
}) => {
  // Admin: a per-member limit on the server's Settings tab.
  await adminPage.goto(`/t/${team.slug}/installations/${installation.id}`);
  await adminPage.getByRole("tab", { name: "Settings" }).click();
  const quotas = adminPage.getByRole("region", { name: "Quotas" });
  await quotas.getByRole("button", { name: "Add a limit" }).click();
  const form = quotas.getByRole("form", { name: "Add a limit" });
  // A number out of range is refused in one sentence before anything is sent.
  await form.getByLabel("Tool calls per window").fill("0");
  await form.getByRole("button", { name: "Add limit" }).click();
  await expect(form.getByRole("alert")).toHaveText("A limit is a whole number of calls from 1 to 10000000.");
  await form.getByRole("combobox", { name: "Counted for" }).selectOption({ label: "Each member" });
  await form.getByRole("combobox", { name: "Window" }).selectOption("minute");
  await form.getByLabel("Tool calls per window").fill("2");
  await form.getByLabel(/not read-only per window/).fill("2");
  await form.getByRole("button", { name: "Add limit" }).click();
  await expect(quotas.getByRole("table", { name: "Quotas" })).toContainText("Each member: 2 tool calls a minute");
  await expectAccessible(adminPage, "quotas on the Settings tab");
  await shot(adminPage, "admin-quotas");

  // The gateway reads a team's limits within 5 seconds: wait until the limit holds, then count from a fresh one.
  const token = await createTokenViaApi(memberPage.request, team.id, "quota client");
  const client = await connectMcpClient(baseURL!, token);
  try {
    const call = () => client.callTool({ name: "docs-read", arguments: { text: "a" } });
    await expect
      .poll(
        async () => {
          try {
            await call();
            return "passed";
          } catch (err) {
            return String((err as Error).message);
          }
        },
        { timeout: 20_000 },
      )
      // docs-read is not marked read-only, so both counts (all calls, writes) are at 2: either may refuse.
      .toMatch(/^(MCP error -32029: )?Quota reached: at most 2 .+ per minute for you in this team; it resets in \d+ s/);
  } finally {
    await client.close();
  }

  // Member: My servers shows the limit used up and when it resets.
  await memberPage.goto(`/t/${team.slug}/my-servers`);
  const mine = memberPage.getByRole("table", { name: "Your quotas" });
  const row = mine.getByRole("row").filter({ hasText: "All tool calls" });
  await expect(row).toContainText("2 of 2 used");
  await expect(row.locator("time")).toHaveAttribute("datetime", /^\d{4}-\d\d-\d\dT/);
  await expectAccessible(memberPage, "remaining quota on My servers");
  await shot(memberPage, "member-quota");

  // Admin: the refusal, who and which limit.
  await adminPage.reload();
  await adminPage.getByRole("tab", { name: "Settings" }).click();
  const refusals = adminPage.getByRole("table", { name: "Calls refused by a quota" });
  await expect(refusals.getByRole("row").nth(1)).toContainText(/Quota reached: at most 2 .+ per minute/);
  await expectAccessible(adminPage, "quota refusals");
});
