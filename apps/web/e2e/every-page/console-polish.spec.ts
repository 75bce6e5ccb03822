import type { APIRequestContext, Page } from "@playwright/test";
import { installViaApi, installDemoOnline } from "../support/api";
import { expect, test } from "../support/fixtures";
import { e2eDb } from "../support/seed-db";
import { WIDTHS, atWidth, problemsOf } from "./support";

/** A server whose instances never connect (nothing listens on port 9): enough for the pages about the server. */
function installUnreachable(request: APIRequestContext, teamId: string, slug: string, name: string) {
  return installViaApi(request, teamId, { slug, name, transport: "streamable_http", url: "http://127.0.0.1:9/mcp" });
}

/** On a phone the sidebar is behind its Menu button. */
async function openMenu(page: Page) {
  const menu = page.getByRole("button", { name: "Menu" });
  if (await menu.isVisible()) await menu.click();
}

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test("the installation's tab bar is one row that scrolls, and the Instances table shows status and actions", async ({
      adminPage: page,
      team,
      upstream,
    }) => {
      await atWidth(page, width);
      const installation = await installDemoOnline(page.request, page, team, upstream.url);
      await page.goto(`/t/${team.slug}/installations/${installation.id}`);
      const tablist = page.getByRole("tablist", { name: "Installation sections" });
      const first = page.getByRole("tab", { name: "Instances" });
      await expect(first).toBeVisible();
      // One row: the bar is no taller than a tab (plus its border).
      const barHeight = (await tablist.boundingBox())!.height;
      expect(barHeight).toBeLessThanOrEqual((await first.boundingBox())!.height + 2);
      // Keyboard: Tab reaches the selected tab; End selects the last one, which scrolls into the bar's view.
      await first.focus();
      await page.keyboard.press("End");
      const settings = page.getByRole("tab", { name: "Settings" });
      await expect(settings).toBeFocused();
      await expect(settings).toHaveAttribute("aria-selected", "true");
      await expect(settings).toBeInViewport({ ratio: 1 });
      const bar = (await tablist.boundingBox())!;
      const tab = (await settings.boundingBox())!;
      expect(tab.x + tab.width).toBeLessThanOrEqual(bar.x + bar.width + 1);

      await page.keyboard.press("Home");
      const instances = page.getByRole("table", { name: "Instances" });
      const status = instances.locator("[data-status]").first();
      await expect(status).toBeInViewport({ ratio: 1 });
      await expect(instances.getByRole("button", { name: "History" }).first()).toBeInViewport({ ratio: 1 });
      expect(await problemsOf(page, `installation @${width}`)).toEqual([]);
    });

    test("removing a server is a dangerous action that says what happens, and nothing asks for it afterwards", async ({
      adminPage: page,
      team,
    }) => {
      await atWidth(page, width);
      const installation = await installUnreachable(page.request, team.id, "doomed", "Doomed");
      await page.goto(`/t/${team.slug}/installations/${installation.id}?tab=settings`);
      const trigger = page.getByRole("button", { name: "Remove server" });
      await expect(trigger).toHaveClass(/\bdanger\b/);
      expect(await trigger.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
        await page.evaluate(() => {
          const probe = document.createElement("span");
          probe.style.color = "var(--danger)";
          document.body.append(probe);
          const color = getComputedStyle(probe).color;
          probe.remove();
          return color;
        }),
      );
      // Every answer about the removed server after this point would be a 404 the page did not need.
      const gone: string[] = [];
      page.on("response", (res) => {
        if (res.status() === 404 && res.url().includes("/api/trpc/")) gone.push(res.url());
      });
      await trigger.click();
      const dialog = page.getByRole("dialog", { name: "Remove Doomed?" });
      await expect(dialog).toContainText("doomed-*");
      await expect(dialog).toContainText("cannot be undone");
      await expect(dialog).toContainText(/instance/);
      await dialog.getByRole("button", { name: "Remove server" }).click();
      await expect(page).toHaveURL(new RegExp(`/t/${team.slug}/servers$`));
      await expect(page.getByRole("heading", { level: 1, name: "Installed servers" })).toBeVisible();
      await expect(page.getByText("Nothing installed yet.")).toBeVisible();
      // Let any late request land before counting (the live stream, a refetch on focus).
      await page.waitForLoadState("networkidle");
      expect(gone, "requests for the removed server").toEqual([]);
    });

    test("a focused sidebar link looks different from the current page's", async ({ adminPage: page, team }) => {
      await atWidth(page, width);
      await page.goto(`/t/${team.slug}/members`);
      await openMenu(page);
      const current = page.getByRole("navigation", { name: "Team navigation" }).getByRole("link", { name: "Members" });
      await expect(current).toHaveAttribute("aria-current", "page");
      const other = page
        .getByRole("navigation", { name: "Team navigation" })
        .getByRole("link", { name: "Servers", exact: true });
      await other.focus();
      // Focus through the keyboard (focus-visible): shift+tab then tab lands back on it.
      await page.keyboard.press("Shift+Tab");
      await page.keyboard.press("Tab");
      await expect(other).toBeFocused();
      const look = (el: HTMLElement) => {
        const s = getComputedStyle(el);
        return { outline: `${s.outlineStyle} ${s.outlineColor}`, shadow: s.boxShadow, background: s.backgroundColor };
      };
      const focused = await other.evaluate(look);
      const currentLook = await current.evaluate(look);
      expect(focused.outline).toMatch(/^solid/);
      expect(currentLook.outline).toMatch(/^none/);
      expect(currentLook.shadow).not.toBe("none");
      expect(focused).not.toEqual(currentLook);
    });

    test("Your teams, Account and Deployment settings have the console's sidebar", async ({ ownerPage: page }) => {
      await atWidth(page, width);
      for (const [path, heading] of [
        ["/teams", "Your teams"],
        ["/account", "Your account"],
        ["/settings/deployment", "Deployment settings"],
        ["/settings/audit", "Audit"],
      ] as const) {
        await page.goto(path);
        await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
        const nav = page.getByRole("navigation", { name: "Account navigation" });
        await expect(nav).toBeVisible();
        await openMenu(page);
        await expect(nav.getByRole("link", { name: "Your teams" })).toBeVisible();
        await expect(nav.getByRole("link", { name: "Account" })).toBeVisible();
        await expect(nav.getByRole("link", { name: "Deployment settings" })).toBeVisible();
        await expect(nav.getByRole("button", { name: "Sign out" })).toBeVisible();
      }
      // From the sidebar to another page.
      await page.getByRole("navigation", { name: "Account navigation" }).getByRole("link", { name: "Account" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Your account" })).toBeVisible();
    });

    test("Members shows when each joined and was last active, and searches by name or email from the URL", async ({
      adminPage: page,
      admin,
      member,
      memberPage,
      team,
    }) => {
      void memberPage; // joins `member` to the team
      await atWidth(page, width);
      const installation = await installUnreachable(page.request, team.id, "quiet", "Quiet");
      // The member called one of the team's servers two hours ago (the request log is where last-active comes from).
      const db = e2eDb();
      try {
        const user = await db.user.findUniqueOrThrow({ where: { email: member.email } });
        await db.toolCallLog.create({
          data: {
            teamId: team.id,
            installationId: installation.id,
            userId: user.id,
            method: "tools/call",
            target: "echo",
            durationMs: 5,
            outcome: "success",
            createdAt: new Date(Date.now() - 2 * 3600_000),
          },
        });
      } finally {
        await db.$disconnect();
      }
      await page.goto(`/t/${team.slug}/members`);
      const region = page.getByRole("region", { name: "Team members" });
      const rows = region.getByTestId("member-row");
      await expect(rows).toHaveCount(2);
      const memberRow = rows.filter({ hasText: member.email });
      const adminRow = rows.filter({ hasText: admin.email });
      await expect(memberRow.getByRole("cell", { name: /2 h ago/ })).toBeVisible();
      await expect(adminRow.getByRole("cell", { name: "no calls yet" })).toBeVisible();
      const year = String(new Date().getFullYear());
      await expect(memberRow.locator("time").first()).toContainText(year);

      // Search: the list narrows as you type, the URL follows, and a link opens the same search.
      const box = region.getByRole("searchbox", { name: "Search members" });
      await box.fill(member.name.split(" ")[1]!);
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText(member.email);
      await expect(page).toHaveURL(/[?&]q=/);
      await box.fill("nobody-by-this-name");
      await expect(region.getByText("No member's name or email contains “nobody-by-this-name”.")).toBeVisible();
      await page.goto(`/t/${team.slug}/members?q=${encodeURIComponent(admin.email)}`);
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText(admin.email);
      await expect(region.getByRole("searchbox", { name: "Search members" })).toHaveValue(admin.email);
      expect(await problemsOf(page, `members @${width}`)).toEqual([]);
    });

    test("Servers searches by name or slug from the URL, with an empty state", async ({ adminPage: page, team }) => {
      await atWidth(page, width);
      for (const [slug, name] of [
        ["alpha", "Alpha Docs"],
        ["beta", "Beta Tickets"],
      ] as const) {
        await installUnreachable(page.request, team.id, slug, name);
      }
      await page.goto(`/t/${team.slug}/servers`);
      const rows = page.getByTestId("installation-row");
      await expect(rows).toHaveCount(2);
      const box = page.getByRole("searchbox", { name: "Search servers" });
      await box.fill("tick");
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText("Beta Tickets");
      await expect(page).toHaveURL(/[?&]q=tick/);
      await box.fill("gamma");
      await expect(page.getByText("No server's name or slug contains “gamma”.")).toBeVisible();
      await page.goto(`/t/${team.slug}/servers?q=alpha`);
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText("Alpha Docs");
      await expect(box).toHaveValue("alpha");
      expect(await problemsOf(page, `servers @${width}`)).toEqual([]);
    });
  });
}
