import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";

/**
 * axe-core over the page as it is now (WCAG 2.x A and AA rules): the journey fails on any serious or critical
 * violation, naming the rule and the elements. Milder findings are attached to the report.
 */
export async function expectAccessible(page: Page, label: string, { exclude = [] as string[] } = {}) {
  // A client-side navigation (a page number, a filter in the URL) streams the new page's metadata after its
  // content: axe reads the page once its title is back, and a page with no title at all still fails here.
  await expect(page, `${label} has a title`).toHaveTitle(/\S/);
  let builder = new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]);
  for (const selector of exclude) builder = builder.exclude(selector);
  const result = await builder.analyze();
  const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const minor = result.violations.filter((v) => !serious.includes(v));
  if (minor.length > 0) {
    await test.info().attach(`axe-${label}-minor.json`, {
      body: JSON.stringify(
        minor.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target) })),
        null,
        2,
      ),
      contentType: "application/json",
    });
  }
  const summary = serious.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .slice(0, 5)
        .map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1, 3).join(" ")}`)
        .join(" | ")}`,
  );
  expect(summary, `serious accessibility violations on ${label}`).toEqual([]);
}
