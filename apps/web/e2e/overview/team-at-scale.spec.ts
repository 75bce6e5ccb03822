import type { Page } from "@playwright/test";
import { expectAccessible } from "../support/a11y";
import { expect, shot, test } from "../support/fixtures";
import { seedLargeTeam } from "../support/seed-db";

const MEMBERS = 50;
const SERVERS = 20;

/** Prints what the browser measured for a view (not asserted: the machine's speed is not the product's). */
async function report(page: Page, label: string, startedAt: number) {
  const timeToContent = Date.now() - startedAt;
  const nodes = await page.evaluate(() => document.getElementsByTagName("*").length);
  console.log(`[overview ${MEMBERS}x${SERVERS}] ${label}: time to content ${timeToContent} ms, ${nodes} DOM nodes`);
  await test.info().attach(`${label}-metrics.json`, {
    body: JSON.stringify({ timeToContent, nodes }),
    contentType: "application/json",
  });
}

test.describe("the overview of a team of 50 members and 20 servers", () => {
  test.use({ viewport: { width: 1440, height: 900 } });
  test("an admin reads the summary, finds servers and members by search, sort and page, all in the URL, and opens a member's matrix row", async ({
    adminPage: page,
    admin,
    team,
  }) => {
    // A long journey over a 1,000-instance team with an axe scan of each view (the 4,256-node matrix scan alone took
    // 23 s on a loaded two-core machine): it gets four minutes, not the default one.
    test.setTimeout(240_000);
    const seeded = await seedLargeTeam({
      teamId: team.id,
      ownerEmail: admin.email,
      members: MEMBERS,
      servers: SERVERS,
    });
    expect(seeded.instances).toBe(MEMBERS * SERVERS);

    let startedAt = Date.now();
    await page.goto(`/t/${team.slug}`);
    await expect(page.getByTestId("servers-table").getByRole("row")).toHaveCount(SERVERS + 1);
    await report(page, "servers view", startedAt);

    // The summary first: counts by status as seeded, then the instances that need someone, most urgent first.
    await expect(page.getByTestId("member-count")).toHaveText(String(MEMBERS));
    const summary = page.getByTestId("overview-summary");
    await expect(summary.getByTestId("count-online")).toContainText(String(seeded.counts.online));
    await expect(summary.getByTestId("count-permanently_failed")).toContainText(
      String(seeded.counts.permanently_failed),
    );
    const attention = page.getByTestId("needs-attention");
    await expect(attention.getByTestId("attention-item").first().locator("[data-status]")).toHaveAttribute(
      "data-status",
      "permanently_failed",
    );
    await expect(attention.getByTestId("attention-item").first()).toContainText(
      "Look at the crash output, then Restart.",
    );
    await expectAccessible(page, "overview-servers");
    await shot(page, "overview-servers-1440");

    // The bulk action says how many instances it concerns before anything happens; Cancel changes nothing.
    const failing = (seeded.counts.offline ?? 0) + (seeded.counts.error ?? 0);
    const trigger = attention.getByRole("button", { name: `Reconnect all failing (${failing})` });
    await trigger.click();
    const dialog = page.getByRole("dialog", { name: `Reconnect ${failing} failing instances?` });
    await expect(dialog).toContainText(`${failing} instances that are offline or in error will try to connect now`);
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(trigger).toBeFocused();

    // "Needs attention" follows the status filter: picking the waiting instances lists those (not the stopped ones
    // that outrank them), counts them all, and says the list is narrowed, with the way back to every status.
    const waiting = seeded.counts.awaiting_user_config ?? 0;
    const everyone = ["permanently_failed", "error", "requires_reauth", "offline", "awaiting_user_config"].reduce(
      (n, s) => n + (seeded.counts[s as keyof typeof seeded.counts] ?? 0),
      0,
    );
    await expect(attention.getByRole("heading", { level: 2 })).toHaveText(`Needs attention (${everyone})`);
    await summary.getByTestId("count-awaiting_user_config").click();
    await expect(page).toHaveURL(/[?&]status=awaiting_user_config/);
    await expect(attention.getByRole("heading", { level: 2 })).toHaveText(
      `Needs attention: Waiting for the member's settings (${waiting})`,
    );
    await expect(attention.getByTestId("attention-filter")).toContainText(
      `${everyone - waiting} more in other statuses need attention`,
    );
    await attention.getByRole("button", { name: `Show all ${waiting}` }).click();
    await expect(attention.getByTestId("attention-item")).toHaveCount(waiting);
    await expect(attention.locator('[data-testid="attention-item"] [data-status="awaiting_user_config"]')).toHaveCount(
      waiting,
    );
    await expectAccessible(page, "overview-attention-filtered");
    await attention.getByRole("button", { name: "Show every status" }).click();
    await expect(page).not.toHaveURL(/status=/);
    await expect(attention.getByRole("heading", { level: 2 })).toHaveText(`Needs attention (${everyone})`);
    await expect(attention.getByTestId("attention-item")).toHaveCount(8);

    // Search narrows the servers; the URL carries it, so a reload (or a shared link) shows the same view.
    await page.getByLabel("Search servers").fill("Server 07");
    await expect(page).toHaveURL(/[?&]q=Server\+07/);
    await expect(page.getByTestId("servers-table").getByRole("row")).toHaveCount(2);
    await page.reload();
    await expect(page.getByLabel("Search servers")).toHaveValue("Server 07");
    await expect(page.getByTestId("server-row-server-07")).toBeVisible();
    await page.getByLabel("Search servers").fill("");
    await page.getByLabel("Sort by").selectOption("problems");
    await expect(page).toHaveURL(/sort=problems/);
    // Writes in quick succession (a filter, a sort, then the debounced search) keep one another's parameters.
    await page.getByLabel("Filter by status").selectOption("error");
    await page.getByLabel("Sort by").selectOption("name");
    await page.getByLabel("Search servers").fill("Server 1");
    await expect(page).toHaveURL(/[?&]q=Server\+1/);
    expect(new URL(page.url()).searchParams.get("status")).toBe("error");
    expect(new URL(page.url()).searchParams.get("sort")).toBeNull();
    await page.getByLabel("Sort by").selectOption("problems");
    await page.getByLabel("Filter by status").selectOption("");
    await page.getByLabel("Search servers").fill("");
    await expect(page).not.toHaveURL(/[?&](q|status)=/);
    await expect(page).toHaveURL(/sort=problems/);

    // Tabs follow the arrow keys (roving tabindex); members come 25 to a page.
    await page.getByRole("tab", { name: "By server" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("tab", { name: "By member" })).toBeFocused();
    await expect(page.getByRole("tab", { name: "By member" })).toHaveAttribute("aria-selected", "true");
    await expect(page).toHaveURL(/view=members/);
    await expect(page.getByTestId("member-row")).toHaveCount(25);
    await page.getByRole("navigation", { name: "Member pages" }).getByRole("button", { name: "Next" }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect(page.getByText("Page 2 of 2")).toBeVisible();
    await expectAccessible(page, "overview-members");

    // A member's name opens their row of the matrix; the member column stays put while servers scroll.
    await page.getByRole("navigation", { name: "Member pages" }).getByRole("button", { name: "Previous" }).click();
    // Read the row only once page 1 is on screen: a row read while page 2 still shows names someone else.
    await expect(page.getByText("Page 1 of 2")).toBeVisible();
    const someone = page.getByTestId("member-row").nth(3);
    const email = (await someone.locator(".muted").first().textContent())!;
    await someone.getByRole("button", { name: /^Show .*'s instances$/ }).click();
    await expect(page).toHaveURL(/view=matrix/);
    const matrix = page.getByRole("table", { name: "Instance status by member and server" });
    await expect(matrix.getByRole("row")).toHaveCount(2);
    await expect(matrix.getByRole("rowheader")).toContainText(email);
    expect(
      await matrix
        .getByRole("rowheader")
        .first()
        .evaluate((el) => getComputedStyle(el).position),
    ).toBe("sticky");
    // Every seeded member waits for their settings on one server: the admin reads whose, not "Needs your settings".
    await expect(matrix.getByText("Waiting for the member's settings")).toHaveCount(1);
    await expect(matrix.getByText("Needs your settings")).toHaveCount(0);

    startedAt = Date.now();
    await page.goto(`/t/${team.slug}?view=matrix`);
    await expect(matrix.getByRole("row")).toHaveCount(26);
    await report(page, "matrix view, first 25 members", startedAt);
    await expectAccessible(page, "overview-matrix");
    await shot(page, "overview-matrix-1440");
  });

  test("on a 390 px phone the overview fits the screen: navigation behind a Menu button, tables as lists", async ({
    browser,
    adminPage,
    admin,
    team,
  }) => {
    await seedLargeTeam({ teamId: team.id, ownerEmail: admin.email, members: MEMBERS, servers: SERVERS });
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      storageState: await adminPage.context().storageState(),
    });
    const page = await context.newPage();
    try {
      const startedAt = Date.now();
      await page.goto(`/t/${team.slug}`);
      await expect(page.getByTestId("server-row-server-01")).toBeVisible();
      await report(page, "servers view at 390 px", startedAt);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

      const nav = page.getByRole("navigation", { name: "Team navigation" });
      await expect(nav.getByRole("link", { name: "Servers", exact: true })).toBeHidden();
      await nav.getByRole("button", { name: "Menu" }).click();
      await expect(nav.getByRole("button", { name: "Close" })).toHaveAttribute("aria-expanded", "true");
      await nav.getByRole("link", { name: "Members", exact: true }).click();
      await expect(page).toHaveURL(/\/members$/);
      await expect(nav.getByRole("link", { name: "Servers", exact: true })).toBeHidden();
      // After a route change, focus starts at the new page's heading.
      await expect(page.getByRole("heading", { level: 1 })).toBeFocused();

      await page.goto(`/t/${team.slug}?view=members`);
      const firstRow = page.getByTestId("member-row").first();
      await expect(firstRow).toBeVisible();
      // A row is a block with each count labelled by its column.
      expect(await firstRow.evaluate((el) => getComputedStyle(el).display)).toBe("block");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await expectAccessible(page, "overview-members-390");
      await shot(page, "overview-members-390");
    } finally {
      await context.close();
    }
  });
});

test("the console follows a dark system setting and carries a favicon, an app icon and a manifest", async ({
  browser,
  adminPage,
  team,
}) => {
  const context = await browser.newContext({
    colorScheme: "dark",
    storageState: await adminPage.context().storageState(),
  });
  const page = await context.newPage();
  try {
    await page.goto(`/t/${team.slug}`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(
      "rgb(19, 20, 23)",
    );
    const icon = await page.locator('link[rel="icon"]').first().getAttribute("href");
    expect((await page.request.get(icon!)).headers()["content-type"]).toContain("image/svg+xml");
    const apple = await page.locator('link[rel="apple-touch-icon"]').first().getAttribute("href");
    expect((await page.request.get(apple!)).headers()["content-type"]).toContain("image/png");
    expect((await page.request.get("/manifest.webmanifest")).ok()).toBe(true);
    await expectAccessible(page, "overview-dark");
  } finally {
    await context.close();
  }
});
