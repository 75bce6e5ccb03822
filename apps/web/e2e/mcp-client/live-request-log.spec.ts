import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Page, Request } from "@playwright/test";
import { createTokenViaApi, installViaApi } from "../support/api";
import { expect, shot, test } from "../support/fixtures";
import { connectMcpClient } from "../support/mcp-client";

/** The request log's own queries the page sends (a tRPC batch URL names every procedure in it). */
function watchLogQueries(page: Page) {
  const sent: Request[] = [];
  const done = new Set<Request>();
  const isLog = (r: Request) => r.url().includes("/api/trpc/") && r.url().includes("ops.teamRequestLog");
  page.on("request", (r) => void (isLog(r) && sent.push(r)));
  page.on("requestfinished", (r) => void (isLog(r) && done.add(r)));
  page.on("requestfailed", (r) => void (isLog(r) && done.add(r)));
  return {
    sent,
    /** Requests the page sent and that have not answered, once the page's earlier events reached the test. */
    inFlight: async () => {
      await page.evaluate(() => 0);
      return sent.filter((r) => !done.has(r)).length;
    },
  };
}

test("a call through the route appears in the open request logs at once, announced live rather than polled, and the log's filters and open request are links", async ({
  adminPage: page,
  memberPage,
  member,
  team,
  upstream,
  baseURL,
}) => {
  const installation = await installViaApi(page.request, team.id, {
    slug: "demo",
    name: "Demo",
    transport: "streamable_http",
    url: upstream.url,
  });
  const token = await createTokenViaApi(memberPage.request, team.id);
  // The member's client, once their instance is online and its tools are discovered.
  let client: Client | undefined;
  await expect
    .poll(
      async () => {
        client ??= await connectMcpClient(baseURL!, token);
        return (await client.listTools()).tools.map((t) => t.name);
      },
      { timeout: 30_000 },
    )
    .toContain("demo-echo");

  try {
    // The page's clock is Playwright's so idle time can be skipped (time otherwise flows as usual).
    await page.clock.install();
    const log = watchLogQueries(page);
    await page.goto(`/t/${team.slug}/requests?server=${installation.id}`);
    await expect(page.getByTestId("live-indicator")).toHaveText("● live");
    await expect(page.getByText("No requests yet matching these filters.")).toBeVisible();
    // Settled: the catch-up refetch the stream's start schedules (150 ms later) has gone out and answered.
    await page.clock.runFor(500);
    await expect.poll(() => log.inFlight()).toBe(0);
    const settled = log.sent.length;
    // 20 s of idle page time (past the old 5 s poll and the 15 s fallback, short of the stream's 40 s
    // inactivity reconnect): with the stream connected, nothing polls.
    await page.clock.fastForward(20_000);

    await client!.callTool({ name: "demo-echo", arguments: { message: "live one" } });
    const row = page.getByTestId("request-row").filter({ hasText: "echo" });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(member.name);
    await expect(row).toContainText("success");
    // The one refetch the announcement caused, and no poll before or after it.
    expect(log.sent.length - settled).toBe(1);
    await shot(page, "live-request-log");

    // The open request is part of the link: a reload shows the same details.
    await row.getByRole("button", { name: "Details" }).click();
    await expect(page.getByTestId("request-detail")).toContainText("live one");
    await expect(page).toHaveURL(/[?&]request=/);
    await page.getByLabel("Outcome").selectOption("success");
    await page.getByLabel("Tool or URI").fill("ech");
    await expect(page).toHaveURL(/[?&]target=ech(&|$)/);
    const link = page.url();
    await page.goto(link);
    await expect(page.getByLabel("Server")).toHaveValue(installation.id);
    await expect(page.getByLabel("Outcome")).toHaveValue("success");
    await expect(page.getByLabel("Tool or URI")).toHaveValue("ech");
    await expect(page.getByTestId("request-detail")).toContainText("live one");

    // The server's own Request log tab, opened by its link with a filter, hears calls the same way.
    await page.goto(`/t/${team.slug}/installations/${installation.id}?tab=log&outcome=success`);
    await expect(page.getByRole("tab", { name: "Request log" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByLabel("Outcome")).toHaveValue("success");
    // One indicator for the page's and the log's streams (a strict locator: a second one fails here).
    await expect(page.getByTestId("live-indicator")).toHaveText("● live");
    await expect(page.getByTestId("request-row")).toHaveCount(1);
    await client!.callTool({ name: "demo-get-sum", arguments: { a: 2, b: 3 } });
    await expect(page.getByTestId("request-row").filter({ hasText: "get-sum" })).toBeVisible();
  } finally {
    await client?.close();
  }
});

test("while the live stream is down, the request log says so and looks for new calls on a slow poll", async ({
  adminPage: page,
  team,
  consoleWatch,
}) => {
  // The stream is refused (a broken proxy, a restarting process): Chromium logs each refused attempt.
  await page.route(/\/api\/trpc\/ops\.requestLogLive/, (route) => route.fulfill({ status: 503, body: "" }));
  consoleWatch.expect(/status of 503/);
  await page.clock.install();
  const log = watchLogQueries(page);
  await page.goto(`/t/${team.slug}/requests`);
  await expect(page.getByTestId("live-indicator")).toHaveText("○ connecting");
  await expect(page.getByText("No requests yet.")).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Updating…" })).toHaveCount(0);
  await expect.poll(() => log.inFlight()).toBe(0);
  const settled = log.sent.length;
  await page.clock.fastForward(20_000);
  await expect.poll(() => log.sent.length).toBeGreaterThan(settled);
});
