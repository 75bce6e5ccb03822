import { installDemoOnline } from "../support/api";
import { expectAccessible } from "../support/a11y";
import { expect, shot, test } from "../support/fixtures";
import { connectMcpClient } from "../support/mcp-client";

test("a member creates a token, an MCP client lists and calls their namespaced tools through /api/mcp, and the call shows in the request log", async ({
  adminPage,
  memberPage: page,
  member,
  team,
  upstream,
  baseURL,
}) => {
  const installation = await installDemoOnline(adminPage.request, page, team, upstream.url);

  await page.getByRole("link", { name: "Connect", exact: true }).click();
  await page.getByLabel("Token name").fill("e2e client");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("new-token").locator("code").textContent())!;
  expect(token).toMatch(/^sbp_/);

  const client = await connectMcpClient(baseURL!, token);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("demo-echo");
    const result = await client.callTool({ name: "demo-echo", arguments: { message: "hello from e2e" } });
    expect(JSON.stringify(result.content)).toContain("hello from e2e");
  } finally {
    await client.close();
  }

  await page.goto(`/t/${team.slug}/installations/${installation.id}`);
  await page.getByRole("tab", { name: "Request log" }).click();
  const row = page.getByTestId("request-row").filter({ hasText: "echo" });
  await expect(row).toContainText("success");
  await expect(row).toContainText(member.name);
  await row.getByRole("button", { name: "Details" }).click();
  await expect(page.getByTestId("request-detail")).toContainText("hello from e2e");
  await shot(page, "request-log");

  // The admin's team-wide log, filtered by server and outcome in the URL, shows a new call without a reload.
  await adminPage.goto(`/t/${team.slug}/requests?server=${installation.id}&outcome=success`);
  const teamLog = adminPage.getByTestId("request-row");
  await expect(teamLog.filter({ hasText: "echo" })).toHaveCount(1);
  await expect(teamLog.first()).toContainText("Demo");
  const again = await connectMcpClient(baseURL!, token);
  try {
    await again.callTool({ name: "demo-get-sum", arguments: { a: 2, b: 3 } });
  } finally {
    await again.close();
  }
  await expect(teamLog.filter({ hasText: "get-sum" })).toBeVisible({ timeout: 15_000 });
  await expectAccessible(adminPage, "team-requests");
});
