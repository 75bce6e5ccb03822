import { readFile } from "node:fs/promises";
import type { Locator, Page } from "@playwright/test";
import { insertCallLogs } from "@switchboard/db/queries/call-log";
import { createTokenViaApi, installDemoOnline, trpcMutation } from "../support/api";
import { expectAccessible } from "../support/a11y";
import { expect, shot, test } from "../support/fixtures";
import { onlineMcpClient } from "../support/mcp-client";
import { e2eDb } from "../support/seed-db";

/** Nothing on the page is wider than the window: no sideways page scroll, the log's card holds its table. */
async function expectFits(page: Page, width: number) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  const card = page.getByRole("table", { name: "Requests" }).locator("xpath=..");
  expect(await card.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
}

/** The element lies wholly inside the window, sideways. */
async function expectInWindow(locator: Locator, width: number) {
  const box = (await locator.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
}

test("the request log fits a wide screen and a phone, opens a call in place, closes it when filtered away, totals, ranges and exports, and shows a hidden tool's refused call as blocked", async ({
  adminPage: page,
  memberPage,
  member,
  team,
  upstream,
  baseURL,
}) => {
  const db = e2eDb();
  const installation = await installDemoOnline(page.request, memberPage, team, upstream.url);
  const token = await createTokenViaApi(memberPage.request, team.id);
  const client = await onlineMcpClient(baseURL!, token, "demo-echo");
  try {
    // The member hides get-sum from their clients; once the route has heard, a call to it is refused.
    await trpcMutation(memberPage.request, "governance.setHidden", {
      teamId: team.id,
      installationId: installation.id,
      toolName: "get-sum",
      hidden: true,
    });
    await expect
      .poll(async () => (await client.listTools()).tools.map((t) => t.name), { timeout: 15_000 })
      .not.toContain("demo-get-sum");
    for (let i = 0; i < 3; i++) await client.callTool({ name: "demo-echo", arguments: { message: `hello ${i}` } });
    await expect(client.callTool({ name: "demo-get-sum", arguments: { a: 1, b: 2 } })).rejects.toThrow(
      "Unknown tool: demo-get-sum",
    );
  } finally {
    await client.close();
  }
  await expect.poll(() => db.toolCallLog.count({ where: { teamId: team.id } }), { timeout: 15_000 }).toBe(4);
  // One call of two days ago, outside the last 24 hours.
  const memberId = (await db.user.findUniqueOrThrow({ where: { email: member.email } })).id;
  const instance = await db.instance.findFirstOrThrow({ where: { installationId: installation.id, userId: memberId } });
  await insertCallLogs(db, [
    {
      teamId: team.id,
      installationId: installation.id,
      instanceId: instance.id,
      userId: memberId,
      tokenId: null,
      method: "tools/call",
      target: "echo",
      requested: "demo-echo",
      arguments: { message: "long ago" },
      resultSummary: null,
      resultBytes: 10,
      durationMs: 3,
      attempts: 1,
      outcome: "success",
      errorMessage: null,
      startedAt: new Date(Date.now() - 2 * 24 * 60 * 60_000).toISOString(),
    },
  ]);

  // A wide screen: every column fits, the time on one line, each Details button inside the window.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/t/${team.slug}/requests`);
  await expect(page.getByTestId("request-total")).toHaveText("5 requests");
  const rows = page.getByTestId("request-row");
  await expect(rows).toHaveCount(5);
  await expectFits(page, 1440);
  for (const button of await rows.getByRole("button", { name: "Details" }).all()) await expectInWindow(button, 1440);
  expect(
    await rows
      .first()
      .locator("time")
      .evaluate((el) => el.getClientRects().length),
  ).toBe(1);
  // The name the client called, with the upstream's beneath it.
  await expect(rows.first().getByTestId("request-upstream-name")).toBeVisible();

  // Time range: the old call drops out of the last 24 hours, and the total says so.
  await page.getByLabel("Time").selectOption({ label: "Last 24 hours" });
  await expect(page).toHaveURL(/[?&]range=24h/);
  await expect(page.getByTestId("request-total")).toHaveText("4 requests match these filters");
  await expect(rows).toHaveCount(4);

  // Blocked: the refused call, under both names; its details open in place, under its highlighted row.
  await page.getByLabel("Outcome").selectOption("blocked");
  await expect(page.getByTestId("request-total")).toHaveText("1 request matches these filters");
  await expect(rows).toHaveCount(1);
  const blocked = rows.first();
  await expect(blocked).toContainText("demo-get-sum");
  await expect(blocked.getByTestId("request-upstream-name")).toHaveText("get-sum");
  await expect(blocked).toContainText("blocked");
  await blocked.getByRole("button", { name: "Details" }).click();
  await expect(blocked).toHaveClass(/selected/);
  const detail = blocked.locator("xpath=following-sibling::tr[1]").getByTestId("request-detail");
  await expect(detail).toContainText("The member hid get-sum of Demo from their clients.");
  await expect(detail).toContainText('"a": 1');
  await expect(page).toHaveURL(/[?&]request=/);
  await expectFits(page, 1440);
  await shot(page, "requests-1440-blocked");
  await expectAccessible(page, "requests-1440");

  // CSV: every call the filters match (here the last 24 hours, any outcome), with both names and the reason.
  await page.getByLabel("Outcome").selectOption("");
  await expect(rows).toHaveCount(4);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^switchboard-requests-\d{4}-\d{2}-\d{2}\.csv$/);
  const [header, ...lines] = (await readFile((await download.path())!, "utf8")).trimEnd().split("\r\n");
  expect(header).toBe(
    "time,server,member,email,client,method,called as,upstream name,outcome,duration ms,attempts,result bytes,reason",
  );
  expect(lines).toHaveLength(4);
  expect(lines.filter((l) => l.includes(",tools/call,demo-echo,echo,success,"))).toHaveLength(3);
  expect(lines.find((l) => l.includes(",demo-get-sum,get-sum,blocked,"))).toContain(
    "The member hid get-sum of Demo from their clients.",
  );
  expect(lines.some((l) => l.includes("long ago"))).toBe(false);

  // A filter that hides the open call closes its details.
  await expect(detail).toBeVisible();
  await page.getByLabel("Outcome").selectOption("success");
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId("request-detail")).toHaveCount(0);
  await expect(page).not.toHaveURL(/[?&]request=/);

  // A phone: the member's own log, a list whose labels keep their width; details open in place.
  await memberPage.setViewportSize({ width: 390, height: 844 });
  await memberPage.goto(`/t/${team.slug}/requests`);
  const mine = memberPage.getByTestId("request-row");
  await expect(mine).toHaveCount(5);
  await expect(memberPage.getByTestId("request-total")).toHaveText("5 requests");
  await expectFits(memberPage, 390);
  const nameCell = mine.first().locator('td[data-label="Tool or URI"]');
  expect(await nameCell.evaluate((el) => Number.parseFloat(getComputedStyle(el, "::before").width))).toBeGreaterThan(
    60,
  );
  await memberPage.getByLabel("Outcome").selectOption("blocked");
  await expect(mine).toHaveCount(1);
  const button = mine.first().getByRole("button", { name: "Details" });
  await expectInWindow(button, 390);
  await button.click();
  const phoneDetail = memberPage.getByTestId("request-detail");
  await expect(phoneDetail).toContainText("The member hid get-sum of Demo from their clients.");
  const rowBox = (await mine.first().boundingBox())!;
  expect((await phoneDetail.boundingBox())!.y).toBeGreaterThanOrEqual(rowBox.y + rowBox.height - 1);
  await expectFits(memberPage, 390);
  await shot(memberPage, "requests-390-blocked");
  await expectAccessible(memberPage, "requests-390");
  await db.$disconnect();
});
