import type { Locator, Page } from "@playwright/test";
import { expectAccessible } from "../support/a11y";
import { installKeyedViaApi } from "../support/api";
import { governancePanel } from "../support/docs-upstream";
import { expect, shot, test } from "../support/fixtures";

/** A figure's numbers as the page writes them: its data attributes, checked against the words on screen. */
async function figure(locator: Locator): Promise<{ tools: number; tokens: number }> {
  const tools = Number(await locator.getAttribute("data-tools"));
  const tokens = Number(await locator.getAttribute("data-tokens"));
  const text = (await locator.innerText()).replace(/\s+/g, " ");
  expect(text).toContain(`${tools.toLocaleString("en")} tool${tools === 1 ? "" : "s"} · `);
  expect(text).toContain(`${tokens.toLocaleString("en")} token${tokens === 1 ? "" : "s"}`);
  return { tools, tokens };
}

/** The number in a text such as "1,234 tokens". */
const tokensIn = (text: string) => Number(/([\d,]+) tokens?/.exec(text)?.[1]?.replaceAll(",", "") ?? NaN);

/** My servers: the headline, the server card and My tools, with each listed tool's cost. */
async function myServersNumbers(page: Page, slug: string) {
  await page.goto(`/t/${slug}/my-servers`);
  const headline = page.getByTestId("cost-all");
  await expect(headline).toHaveAttribute("data-view", "member");
  const head = {
    tools: Number(await headline.getAttribute("data-tools")),
    tokens: Number(await headline.getAttribute("data-tokens")),
  };
  await expect(headline).toHaveText(`${head.tokens.toLocaleString("en")} tokens`);
  await expect(page.getByTestId("catalogue-cost")).toContainText(`${head.tools} tools`);
  const card = await figure(page.getByTestId("my-server-docs").getByTestId("instance-tools"));
  const myTools = await figure(page.getByTestId("my-tools-cost"));
  const list = page.getByTestId("my-tools");
  const group = list.locator("details").filter({ hasText: "Docs" });
  if (!(await group.evaluate((d) => (d as HTMLDetailsElement).open))) await group.locator("summary").click();
  const rows: Record<string, { shown: boolean; tokens: number }> = {};
  for (const row of await list.locator("li").all()) {
    const name = (await row.locator("code").innerText()).trim();
    rows[name] = { shown: await row.getByRole("checkbox").isChecked(), tokens: tokensIn(await row.innerText()) };
  }
  return { head, card, myTools, rows };
}

/** The installation's Tools tab: what it serves, what the server offers, and each tool's row. */
async function toolsTabNumbers(page: Page, slug: string, installationId: string) {
  await page.goto(`/t/${slug}/installations/${installationId}?tab=tools`);
  const served = await figure(page.getByTestId("tools-served"));
  const offered = await figure(page.getByTestId("tools-offered"));
  const rows: Record<string, { served: boolean; tokens: number }> = {};
  for (const row of await page.getByTestId("tool-row").all()) {
    const name = (await row.locator("code.tool-name").innerText()).trim();
    rows[name] = {
      served: (await row.getAttribute("data-served")) === "true",
      tokens: tokensIn(`${await row.locator('td[data-label="Tokens"]').innerText()} tokens`),
    };
  }
  return { served, offered, rows };
}

const sum = (values: number[]) => values.reduce((n, v) => n + v, 0);

test("after an admin turns a tool off and renames one and a member hides one, every page shows the same tool counts and token costs, on a desktop and a phone", async ({
  adminPage,
  memberPage,
  team,
  docs: { upstream, installation },
}) => {
  test.setTimeout(180_000);
  // The member watches their headline while the admin changes what the installation serves.
  await expect(memberPage.getByTestId("cost-all")).toHaveAttribute("data-tools", "4");

  await adminPage.goto(`/t/${team.slug}/installations/${installation.id}?tab=tools`);
  const governance = governancePanel(adminPage);
  await governance.turnOff("delete");
  await governance.rename("search", "find_docs");
  // The admin's own Tools tab follows at once: the new name, the tool off, the totals.
  await expect(adminPage.getByTestId("tools-served")).toHaveAttribute("data-tools", "3");
  await expect(adminPage.getByTestId("tool-row").filter({ hasText: "docs-find_docs" })).toHaveCount(1);

  // Live, without a reload: the member's headline now counts the three tools the installation serves.
  await expect(memberPage.getByTestId("cost-all")).toHaveAttribute("data-tools", "3", { timeout: 15_000 });

  // The member hides one more from their own clients; the headline follows the tick.
  const myTools = memberPage.getByTestId("my-tools");
  await myTools.getByRole("checkbox", { name: /docs-export/ }).uncheck();
  await expect(memberPage.getByTestId("cost-all")).toHaveAttribute("data-tools", "2");
  await expect(memberPage.getByTestId("my-tools-cost")).toHaveAttribute("data-tools", "2");

  for (const width of [1440, 390]) {
    await memberPage.setViewportSize({ width, height: 900 });
    await adminPage.setViewportSize({ width, height: 900 });

    // What the member's clients see: the same two tools and tokens in the headline, the card and My tools.
    const mine = await myServersNumbers(memberPage, team.slug);
    expect(mine.head).toEqual({ tools: 2, tokens: mine.head.tokens });
    expect(mine.card).toEqual(mine.head);
    expect(mine.myTools).toEqual(mine.head);
    expect(Object.keys(mine.rows).sort()).toEqual(["docs-export", "docs-find_docs", "docs-read"]);
    const shown = Object.entries(mine.rows).filter(([, r]) => r.shown);
    expect(shown.map(([name]) => name).sort()).toEqual(["docs-find_docs", "docs-read"]);
    expect(sum(shown.map(([, r]) => r.tokens))).toBe(mine.head.tokens);
    await expectAccessible(memberPage, `member my servers at ${width}`);
    await shot(memberPage, `member-my-servers-${width}`);

    // What the installation serves (and what the server offers), on the member's own Tools tab.
    const tab = await toolsTabNumbers(memberPage, team.slug, installation.id);
    expect(tab.offered.tools).toBe(4);
    expect(tab.served.tools).toBe(3);
    expect(Object.keys(tab.rows).sort()).toEqual(["docs-delete", "docs-export", "docs-find_docs", "docs-read"]);
    expect(tab.rows["docs-delete"]!.served).toBe(false);
    expect(
      sum(
        Object.values(tab.rows)
          .filter((r) => r.served)
          .map((r) => r.tokens),
      ),
    ).toBe(tab.served.tokens);
    // One estimate per tool: a tool costs the same on the Tools tab as in My tools.
    for (const name of ["docs-find_docs", "docs-read", "docs-export"])
      expect(tab.rows[name]!.tokens, name).toBe(mine.rows[name]!.tokens);
    // The member's view is the installation's minus what they hid.
    expect(tab.served.tokens - mine.rows["docs-export"]!.tokens).toBe(mine.head.tokens);
    await expectAccessible(memberPage, `member tools tab at ${width}`);

    // The admin hid nothing: their clients see exactly what the installation serves.
    const admins = await myServersNumbers(adminPage, team.slug);
    expect(admins.head).toEqual(tab.served);
    expect(admins.card).toEqual(tab.served);
    expect(admins.myTools).toEqual(tab.served);
    await expectAccessible(adminPage, `admin my servers at ${width}`);
    const adminTab = await toolsTabNumbers(adminPage, team.slug, installation.id);
    expect(adminTab).toEqual(tab);
    await expectAccessible(adminPage, `admin tools tab at ${width}`);
    // Each member's instance, on the Instances tab: what the server offers, as discovery counted it.
    await adminPage.goto(`/t/${team.slug}/installations/${installation.id}?tab=instances`);
    await expect(adminPage.getByTestId("instance-tools")).toHaveCount(2);
    for (const cell of await adminPage.getByTestId("instance-tools").all())
      expect(await figure(cell)).toEqual(tab.offered);
    await expectAccessible(adminPage, `admin instances tab at ${width}`);
    await shot(adminPage, `admin-tools-tab-${width}`);

    await adminPage.goto(`/t/${team.slug}/servers`);
    await expect(adminPage.getByTestId("installation-row").filter({ hasText: "Docs" })).toContainText("2 Online");
    await expectAccessible(adminPage, `admin servers at ${width}`);
  }

  // A server that needs each member's key: the Servers page counts everyone's instances, and says "your
  // settings" only of the reader's own.
  await installKeyedViaApi(adminPage.request, team.id, { url: upstream.url, name: "Keyed" });
  for (const [page, width] of [
    [adminPage, 1440],
    [memberPage, 390],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/t/${team.slug}/servers`);
    const keyed = page.getByTestId("installation-row").filter({ hasText: "Keyed" });
    await expect(keyed).toContainText("1 Needs your settings", { timeout: 30_000 });
    await expect(keyed).toContainText("1 Waiting for the member's settings");
    await expectAccessible(page, `servers with a member's settings missing at ${width}`);
  }
});
