import type { Page } from "@playwright/test";
import { installViaApi } from "../support/api";
import { expect, shot, test } from "../support/fixtures";
import { startHtmlServer } from "../support/html-server";

const WIDTHS = [1440, 390] as const;

/**
 * The messages fit: each within the viewport and without overflowing its own box, and the page's main column no
 * wider than the viewport (wide tables scroll inside their card). The whole document is checked too at desktop
 * width; at 390 px the navigation bar's own layout is not this test's business.
 */
async function expectNoWidening(page: Page, selector: string) {
  const { scrollWidth, innerWidth, main, messages } = await page.evaluate((sel) => {
    const mainEl = document.querySelector("main")!;
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      main: { scrollWidth: mainEl.scrollWidth, right: mainEl.getBoundingClientRect().right },
      messages: [...document.querySelectorAll(sel)].map((el) => ({
        right: el.getBoundingClientRect().right,
        width: el.getBoundingClientRect().width,
        overflow: el.scrollWidth - el.clientWidth,
        text: (el.textContent ?? "").slice(0, 80),
      })),
    };
  }, selector);
  expect(messages.length).toBeGreaterThan(0);
  for (const m of messages) {
    expect(m.width, m.text).toBeLessThanOrEqual(innerWidth);
    expect(m.right, m.text).toBeLessThanOrEqual(innerWidth + 1);
    expect(m.overflow, m.text).toBeLessThanOrEqual(1);
  }
  expect(main.right).toBeLessThanOrEqual(innerWidth + 1);
  expect(main.scrollWidth).toBeLessThanOrEqual(innerWidth);
  if (innerWidth >= 1024) expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** Every tooltip on the page is one short line. */
async function expectShortTitles(page: Page) {
  const titles = await page.locator("[title]").evaluateAll((els) => els.map((el) => el.getAttribute("title") ?? ""));
  for (const t of titles) {
    expect(t.length, t.slice(0, 80)).toBeLessThanOrEqual(160);
    expect(t).not.toContain("<");
  }
}

test("a server that answers with an HTML page shows a one-line status in every view at 1440 and 390 px", async ({
  adminPage: page,
  memberPage,
  team,
}) => {
  const html = await startHtmlServer();
  try {
    const installation = await installViaApi(page.request, team.id, {
      slug: "portal",
      name: "Portal",
      transport: "streamable_http",
      url: html.url,
    });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await memberPage.setViewportSize({ width, height: 900 });

      // The installation's instances: one sentence, the page behind "details".
      await page.goto(`/t/${team.slug}/installations/${installation.id}`);
      const message = page.getByTestId("instance-status-message").first();
      await expect(message).toContainText("The server answered with a web page, not MCP", { timeout: 30_000 });
      await expect(message.locator(".error-text-line")).toHaveText(
        /^The server answered with a web page, not MCP \(.*"Sign in to Corp Portal"\): check the URL's path\.$/,
      );
      await expectNoWidening(page, "[data-testid=instance-status-message]");
      await expectShortTitles(page);
      await message.getByText("details").first().click();
      await expect(message.locator("pre")).toContainText("WelcomeToTheCorporatePortal");
      await expectNoWidening(page, "[data-testid=instance-status-message]");
      await shot(page, `instances-${width}`);

      // The timeline of that instance.
      await page.getByRole("tab", { name: "Timeline" }).click();
      const timeline = page.getByRole("list", { name: "Events, newest first" });
      await expect(
        timeline.locator('[data-type="status_changed"]').filter({ hasText: "web page, not MCP" }).first(),
      ).toBeVisible();
      await expectNoWidening(page, ".timeline li");
      await expectShortTitles(page);
      await shot(page, `timeline-${width}`);

      // The overview (status tooltips) and the servers list.
      await page.goto(`/t/${team.slug}`);
      await expect(page.locator('[data-status="error"], [data-status="offline"]').first()).toBeVisible();
      await expectShortTitles(page);
      await page.goto(`/t/${team.slug}/servers`);
      await expect(page.getByRole("link", { name: "Portal" })).toBeVisible();
      await expectShortTitles(page);
      if (width >= 1024)
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

      // The member's own card: the readable sentence for members, no raw page.
      await memberPage.goto(`/t/${team.slug}/my-servers`);
      const card = memberPage.getByTestId("my-server-portal");
      await expect(card.getByTestId("status-message")).toBeVisible();
      await expect(card).not.toContainText("WelcomeToTheCorporatePortal");
      await expectNoWidening(memberPage, "[data-testid=status-message]");
      await expectShortTitles(memberPage);
      await shot(memberPage, `my-servers-${width}`);
    }
  } finally {
    await html.close();
  }
});
