import { expect, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";

/** The two widths every console page must work at: a laptop and a phone. */
export const WIDTHS = [1440, 390] as const;

export async function atWidth(page: Page, width: number) {
  await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
}

/** Waits until the page has settled: its first heading shown and no skeleton or busy region left. */
export async function settled(page: Page) {
  await expect(page.locator("h1").first()).toBeVisible();
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
}

/**
 * What is wrong with the page as it is now, one line a problem: the page scrolls sideways, a table's right edge
 * is off screen (cut off inside a scrolling card), or axe finds a serious or critical violation. Collected, not
 * thrown, so one run of the sweep names every page's problems.
 */
export async function problemsOf(page: Page, label: string): Promise<string[]> {
  const problems: string[] = [];
  const { scroll, client, width } = await page.evaluate(() => ({
    scroll: document.scrollingElement!.scrollWidth,
    client: document.scrollingElement!.clientWidth,
    width: window.innerWidth,
  }));
  if (scroll > client + 1) problems.push(`${label}: the page scrolls sideways (${scroll} px wide in ${client} px)`);
  for (const table of await page.locator("main table:visible").all()) {
    const box = await table.boundingBox();
    if (box && box.x + box.width > width + 1) {
      const name = (await table.getAttribute("aria-label")) ?? (await table.getAttribute("data-testid")) ?? "a table";
      problems.push(`${label}: ${name} reaches ${Math.round(box.x + box.width)} px, past the ${width} px screen`);
    }
  }
  // Next streams a dynamic page's metadata: its <title> can land after the content a test waited for. A page whose
  // title never comes is still reported below (axe's document-title).
  await page.waitForFunction(() => document.title !== "", undefined, { timeout: 5_000 }).catch(() => undefined);
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  for (const v of result.violations) {
    if (v.impact !== "serious" && v.impact !== "critical") continue;
    const where = v.nodes
      .slice(0, 3)
      .map((n) => n.target.join(" "))
      .join(" | ");
    problems.push(`${label}: axe ${v.id} (${v.impact}) at ${where}`);
  }
  return problems;
}

/** Opens `path`, waits for it to settle (and for `ready`, when the page needs more), and returns its problems. */
export async function visit(page: Page, path: string, label: string, ready?: (page: Page) => Promise<void>) {
  await page.goto(path);
  await settled(page);
  await ready?.(page);
  return problemsOf(page, label);
}
