import { readFile } from "node:fs/promises";
import { rollUpActivity } from "@switchboard/db/queries/activity-rollup";
import { createTokenViaApi, installDemoOnline } from "../support/api";
import { expectAccessible } from "../support/a11y";
import { expect, shot, test } from "../support/fixtures";
import { onlineMcpClient } from "../support/mcp-client";
import { e2eDb } from "../support/seed-db";

test("a burst of calls through the route shows on the Activity page's charts and in usage per member, and its CSV has the same numbers", async ({
  adminPage: page,
  memberPage,
  admin,
  member,
  team,
  upstream,
  baseURL,
}) => {
  const db = e2eDb();
  await installDemoOnline(page.request, memberPage, team, upstream.url);
  const memberClient = await onlineMcpClient(
    baseURL!,
    await createTokenViaApi(memberPage.request, team.id),
    "demo-echo",
  );
  const adminClient = await onlineMcpClient(baseURL!, await createTokenViaApi(page.request, team.id), "demo-echo");
  try {
    // The member: 12 echoes at once, 3 sums, and one echo without its argument (the upstream refuses it).
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        memberClient.callTool({ name: "demo-echo", arguments: { message: `burst ${i} ${"x".repeat(i * 50)}` } }),
      ),
    );
    for (let i = 0; i < 3; i++) await memberClient.callTool({ name: "demo-get-sum", arguments: { a: i, b: 1 } });
    const refused = await memberClient.callTool({ name: "demo-echo", arguments: {} }).catch((err: unknown) => err);
    expect(refused).toBeTruthy();
    // The admin: two echoes, which the member must not see.
    for (let i = 0; i < 2; i++) await adminClient.callTool({ name: "demo-echo", arguments: { message: "admin" } });
  } finally {
    await memberClient.close();
    await adminClient.close();
  }

  // Every call is in the request log (the gateway writes in batches), and the roll-up has read them all.
  const logged = () => db.toolCallLog.findMany({ where: { teamId: team.id } });
  await expect.poll(async () => (await logged()).length, { timeout: 15_000 }).toBe(18);
  await expect
    .poll(
      async () => {
        await rollUpActivity(db);
        return (await db.activityMinute.aggregate({ where: { teamId: team.id }, _sum: { calls: true } }))._sum.calls;
      },
      { timeout: 15_000 },
    )
    .toBe(18);
  const log = await logged();
  const memberId = (await db.user.findUniqueOrThrow({ where: { email: member.email } })).id;
  const echoOf = log.filter((r) => r.target === "echo" && r.userId === memberId);
  expect(echoOf).toHaveLength(13);
  const echoErrors = echoOf.filter((r) => r.outcome !== "success").length;
  expect(echoErrors).toBe(1);
  const echoBytes = echoOf.reduce((sum, r) => sum + r.resultBytes, 0);
  const echoTokens = echoOf.reduce((sum, r) => sum + r.resultTokens, 0);
  expect(echoTokens).toBeGreaterThan(0);

  // The admin's dashboard: the team's 18 calls on the charts and in the tables.
  await page.goto(`/t/${team.slug}/activity`);
  await expect(page.getByRole("heading", { name: "Activity", level: 1 })).toBeVisible();
  await expect(page.getByTestId("activity-totals")).toContainText("18");
  const calls = page.getByRole("figure", { name: "Calls per minute" });
  await expect(calls).toContainText("18 calls, 1 error");
  await expect(calls.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(
    page.getByRole("figure", { name: "Latency" }).locator(".recharts-line-dots circle").first(),
  ).toBeVisible();
  await expect(page.getByRole("figure", { name: "Top tools" })).toContainText("echo");
  await expect(page.getByTestId("tool-row").filter({ hasText: "echo" })).toContainText("15");
  await expect(page.getByTestId("failing-row")).toHaveCount(1);
  await expect(page.getByTestId("failing-row")).toContainText(member.name);
  await expect(page.getByRole("table", { name: "Activity by member" })).toContainText(admin.name);

  // Usage per member, by day: the member's echo line carries the log's numbers; the CSV holds the same.
  const usageLine = page.getByTestId("usage-row").filter({ hasText: member.name }).filter({ hasText: "echo" });
  await expect(usageLine).toHaveCount(1);
  await expect(usageLine.locator('[data-label="Calls"]')).toHaveText("13");
  await expect(usageLine.locator('[data-label="Errors"]')).toHaveText(String(echoErrors));
  await expect(usageLine.locator('[data-label="Tokens"]')).toHaveText(echoTokens.toLocaleString("en"));
  await shot(page, "activity-admin");
  await expectAccessible(page, "activity-admin");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download CSV" }).click(),
  ]);
  const csv = await readFile((await download.path())!, "utf8");
  const [header, ...lines] = csv.trimEnd().split("\r\n");
  expect(header).toBe("day,member,server,tool,method,calls,errors,result_bytes,result_tokens");
  const day = new Date().toISOString().slice(0, 10);
  expect(lines).toContain(`${day},${member.name},Demo,echo,tools/call,13,${echoErrors},${echoBytes},${echoTokens}`);
  expect(lines.filter((l) => l.includes(`,${admin.name},`))).toHaveLength(1);

  // Keyboard: the range tabs move with the arrow keys, and the choice is in the URL.
  await page.getByRole("tab", { name: "Last hour" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Last day" })).toHaveAttribute("aria-selected", "true");
  await expect(page).toHaveURL(/[?&]range=day/);
  await expect(page.getByRole("figure", { name: "Calls per hour" })).toContainText("18 calls");

  // The member sees only their own calls, on a phone.
  await memberPage.setViewportSize({ width: 390, height: 844 });
  await memberPage.goto(`/t/${team.slug}/activity?range=week`);
  await expect(memberPage.getByRole("figure", { name: "Calls per day" })).toContainText("16 calls, 1 error");
  await expect(memberPage.getByRole("table", { name: "Activity by member" })).toHaveCount(0);
  await expect(memberPage.getByTestId("usage-row")).toHaveCount(2);
  await expect(memberPage.getByTestId("usage-row").filter({ hasText: admin.name })).toHaveCount(0);
  expect(await memberPage.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(memberPage, "activity-member-390");
  await expectAccessible(memberPage, "activity-member-390");
  await db.$disconnect();
});

test("the Activity page says so when there are no calls yet", async ({ adminPage: page, team }) => {
  await page.goto(`/t/${team.slug}/activity`);
  await expect(page.getByTestId("activity-empty")).toContainText("No calls in this range yet");
  await expect(page.getByText("No calls in these days yet.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Download CSV" })).toBeDisabled();
  await expectAccessible(page, "activity-empty");
});
