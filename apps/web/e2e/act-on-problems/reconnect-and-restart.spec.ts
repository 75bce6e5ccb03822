import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Locator, Page } from "@playwright/test";
import { installViaApi } from "../support/api";
import { expectAccessible } from "../support/a11y";
import { expect, shot, test } from "../support/fixtures";
import { e2eDb } from "../support/seed-db";

/**
 * An upstream that is down: every request is answered 503. Once `slow` is set it waits before saying so, and a
 * reconnect attempt sits in "connecting" long enough for the console to see it there (a quick refusal is over
 * in a millisecond, too fast to show what the list does while an attempt runs).
 */
async function failingUpstream(): Promise<{ url: string; slow: (ms: number) => void; close: () => Promise<void> }> {
  let delayMs = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    const timer = setTimeout(() => {
      res.writeHead(503, { "content-type": "text/plain" });
      res.end("Down for maintenance");
    }, delayMs);
    res.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    slow: (ms) => {
      delayMs = ms;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** Stops the team's instance of `slug` as the crash limit would (written straight to the database). */
async function stopAfterCrashes(teamId: string, slug: string) {
  const db = e2eDb();
  try {
    const { count } = await db.instance.updateMany({
      where: { installation: { teamId, slug } },
      data: {
        status: "permanently_failed",
        statusMessage: "The server crashed 5 times in a minute and was stopped.",
        statusChangedAt: new Date(),
      },
    });
    expect(count).toBe(1);
  } finally {
    await db.$disconnect();
  }
}

/** The page does not scroll sideways. */
async function expectNoSidewaysScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.scrollingElement!.scrollWidth,
    clientWidth: document.scrollingElement!.clientWidth,
  }));
  expect(scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(clientWidth);
}

async function expectOnline(cell: Locator) {
  await expect(cell.locator("[data-status]").first()).toHaveAttribute("data-status", "online", { timeout: 30_000 });
}

const attentionItem = (page: Page, name: string) =>
  page.getByTestId("needs-attention").getByTestId("attention-item").filter({ hasText: name });

test.describe("acting where the problem is, on a 1440 px screen", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("Reconnect and Restart on a Needs-attention item and in a matrix cell say what happened; a bulk reconnect keeps the list's order and count", async ({
    adminPage: page,
    admin,
    team,
    upstream,
  }) => {
    test.setTimeout(180_000);
    const down = await failingUpstream();
    try {
      for (const [slug, name, url] of [
        ["alpha", "Alpha", down.url],
        ["beta", "Beta", down.url],
        ["gamma", "Gamma", upstream.url],
      ] as const)
        await installViaApi(page.request, team.id, { slug, name, transport: "streamable_http", url });

      await page.goto(`/t/${team.slug}?view=matrix`);
      await expect(page.getByTestId("live-indicator")).toHaveText("● live");
      const gamma = page.getByTestId(`cell-gamma-${admin.email}`);
      await expectOnline(gamma);
      const attention = page.getByTestId("needs-attention");
      const heading = attention.getByRole("heading", { level: 2 });
      await expect(heading).toHaveText("Needs attention (2)", { timeout: 30_000 });
      await expect(attention.getByTestId("attention-item")).toHaveCount(2);

      // Reconnect on an online cell says what it did once the connection is back, not just "Reconnecting…".
      await gamma.getByRole("button", { name: `Reconnect Gamma for ${admin.name}` }).click();
      await expect(gamma.getByTestId("action-feedback")).toHaveText(
        "Reconnected: the connection was opened again; online.",
        { timeout: 30_000 },
      );

      // A bulk reconnect: while both attempts run (each "connecting" for a while), the list keeps its two items
      // in their order and its count at 2. Every state the section goes through is recorded in the page.
      await page.evaluate(() => {
        const section = document.querySelector('[data-testid="needs-attention"]')!;
        const seen: string[] = [];
        (window as unknown as { attentionStates: string[] }).attentionStates = seen;
        const record = () => {
          const title = section.querySelector("h2")?.textContent ?? "";
          const order = [...section.querySelectorAll('[data-testid="attention-item"] .attention-what a')]
            .map((a) => a.textContent)
            .join(", ");
          const state = `${title} | ${order}`;
          if (seen.at(-1) !== state) seen.push(state);
        };
        record();
        new MutationObserver(record).observe(section, { subtree: true, childList: true, characterData: true });
      });
      down.slow(1500);
      await attention.getByRole("button", { name: /^Reconnect all failing/ }).click();
      await page
        .getByRole("dialog", { name: /^Reconnect \d failing instances?\?$/ })
        .getByRole("button", { name: /^Reconnect \d instances?$/ })
        .click();
      for (const name of ["Alpha", "Beta"]) {
        const feedback = attentionItem(page, name).getByTestId("action-feedback");
        await expect(feedback).toHaveAttribute("data-phase", "failing", { timeout: 30_000 });
        // One sentence that says why, the raw error behind a disclosure when there is one.
        await expect(feedback).toContainText(/^Still failing \((Offline|Error)\)\. \S/);
      }
      const states = await page.evaluate(() => (window as unknown as { attentionStates: string[] }).attentionStates);
      expect(states).toEqual(["Needs attention (2) | Alpha, Beta"]);
      down.slow(0);
      await expectAccessible(page, "overview-matrix-1440");
      await shot(page, "bulk-reconnect-still-failing");

      // Reconnect on one Needs-attention item: started, then the outcome with its reason.
      const alpha = attentionItem(page, "Alpha");
      down.slow(1500);
      await alpha.getByRole("button", { name: "Reconnect Alpha for you" }).click();
      await expect(alpha.getByTestId("action-feedback")).toHaveAttribute("data-phase", /started|working/);
      await expect(alpha.getByTestId("action-feedback")).toHaveAttribute("data-phase", "failing", { timeout: 30_000 });
      await expect(heading).toHaveText("Needs attention (2)");
      down.slow(0);

      // Restart on a stopped Needs-attention item: it comes back, leaves the list and says so.
      await stopAfterCrashes(team.id, "gamma");
      await page.reload();
      await expect(heading).toHaveText("Needs attention (3)");
      const stopped = attentionItem(page, "Gamma");
      await expect(stopped).toContainText("Look at the crash output, then Restart.");
      await stopped.getByRole("button", { name: "Restart Gamma for you" }).click();
      await expect(attention.getByTestId("attention-outcome")).toHaveText("Gamma for you is back online.", {
        timeout: 30_000,
      });
      await expect(heading).toHaveText("Needs attention (2)");
      await expect(attentionItem(page, "Gamma")).toHaveCount(0);

      // Restart in a matrix cell: the cell says it is back.
      await stopAfterCrashes(team.id, "gamma");
      await page.reload();
      await gamma.getByRole("button", { name: `Restart Gamma for ${admin.name}` }).click();
      await expect(gamma.getByTestId("action-feedback")).toHaveText("Back online.", { timeout: 30_000 });
      await expectOnline(gamma);
      await expectAccessible(page, "overview-matrix-after-restart-1440");
    } finally {
      await down.close();
    }
  });
});

test.describe("acting where the problem is, on a 390 px phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the matrix is a member-by-member list with nothing off screen, every Reconnect and Restart tappable", async ({
    adminPage: page,
    admin,
    team,
    upstream,
  }) => {
    test.setTimeout(120_000);
    for (const [slug, name] of [
      ["alpha", "Alpha"],
      ["gamma", "Gamma"],
    ] as const)
      await installViaApi(page.request, team.id, { slug, name, transport: "streamable_http", url: upstream.url });

    await page.goto(`/t/${team.slug}?view=matrix`);
    const alpha = page.getByTestId(`cell-alpha-${admin.email}`);
    const gamma = page.getByTestId(`cell-gamma-${admin.email}`);
    await expectOnline(alpha);
    await expectOnline(gamma);
    await expect(page.getByRole("list", { name: "Instance status by member and server" })).toBeVisible();
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, "overview-matrix-390");
    await shot(page, "matrix-390");

    // Reconnect in a cell, tapped as a thumb would (no force: nothing covers it).
    await alpha.getByRole("button", { name: `Reconnect Alpha for ${admin.name}` }).click();
    await expect(alpha.getByTestId("action-feedback")).toHaveText(
      "Reconnected: the connection was opened again; online.",
      { timeout: 30_000 },
    );

    // A stopped server: Restart from Needs attention, then from its cell.
    await stopAfterCrashes(team.id, "gamma");
    await page.reload();
    const attention = page.getByTestId("needs-attention");
    await expect(attention.getByRole("heading", { level: 2 })).toHaveText("Needs attention (1)");
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, "overview-stopped-390");
    await attentionItem(page, "Gamma").getByRole("button", { name: "Restart Gamma for you" }).click();
    await expect(attention.getByTestId("attention-outcome")).toHaveText("Gamma for you is back online.", {
      timeout: 30_000,
    });
    await expect(attention.getByRole("heading", { level: 2 })).toHaveText("Needs attention (0)");

    await stopAfterCrashes(team.id, "gamma");
    await page.reload();
    await gamma.getByRole("button", { name: `Restart Gamma for ${admin.name}` }).click();
    await expect(gamma.getByTestId("action-feedback")).toHaveText("Back online.", { timeout: 30_000 });
    await expectNoSidewaysScroll(page);

    // The other views of the overview fit the phone too.
    for (const view of ["servers", "members"]) {
      await page.goto(`/t/${team.slug}?view=${view}`);
      await expect(page.getByTestId(`${view}-table`)).toBeVisible();
      await expectNoSidewaysScroll(page);
      await expectAccessible(page, `overview-${view}-390`);
    }
  });
});
