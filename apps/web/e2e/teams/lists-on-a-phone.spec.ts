import type { Locator, Page } from "@playwright/test";
import { expectAccessible } from "../support/a11y";
import { createTokenViaApi, trpcMutation, trpcQuery } from "../support/api";
import { expect, shot, test } from "../support/fixtures";
import { seedLargeTeam } from "../support/seed-db";

const WIDTH = 390;

/** The page does not scroll sideways, and neither does the card: each row fits the screen as a list item. */
async function expectFits(page: Page, card: Locator) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTH);
  const { scrollWidth, clientWidth } = await card.evaluate((el) => ({
    scrollWidth: el.scrollWidth,
    clientWidth: el.clientWidth,
  }));
  expect(scrollWidth, "the card scrolls sideways").toBeLessThanOrEqual(clientWidth);
}

/** On screen without scrolling sideways: its right edge is inside the viewport. */
async function expectWithinWidth(target: Locator) {
  await expect(target).toBeVisible();
  const box = (await target.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(WIDTH);
}

test("on a 390 px phone the members and tokens tables are lists that fit the screen, every action in reach", async ({
  browser,
  adminPage,
  admin,
  team,
}) => {
  // Five more members with long addresses, a pending invitation, two tokens (one revoked).
  await seedLargeTeam({ teamId: team.id, ownerEmail: admin.email, members: 6, servers: 0 });
  const invited = `someone-with-a-rather-long-address-${Date.now().toString(36)}@subdomain.example.test`;
  await trpcMutation(adminPage.request, "team.invite", { teamId: team.id, email: invited });
  await createTokenViaApi(adminPage.request, team.id, "Claude Code on the laptop in the office");
  await createTokenViaApi(adminPage.request, team.id, "Cursor at home");
  const tokens = await trpcQuery<Array<{ id: string; name: string }>>(adminPage.request, "token.list", {
    teamId: team.id,
  });
  const cursor = tokens.find((t) => t.name === "Cursor at home")!;
  await trpcMutation(adminPage.request, "token.revoke", { teamId: team.id, tokenId: cursor.id });

  const context = await browser.newContext({
    viewport: { width: WIDTH, height: 844 },
    storageState: await adminPage.context().storageState(),
  });
  const page = await context.newPage();
  try {
    await page.goto(`/t/${team.slug}/members`);
    const members = page.getByRole("region", { name: "Team members" });
    const rows = members.getByTestId("member-row");
    await expect(rows).toHaveCount(6);
    // A row is a block, each value labelled by its column (the header row is only for screen readers).
    expect(await rows.first().evaluate((el) => getComputedStyle(el).display)).toBe("block");
    await expectFits(page, members);
    for (const row of await rows.all()) {
      const email = (await row.getByRole("cell").first().textContent())!;
      if (email === admin.email) continue;
      await expectWithinWidth(row.getByRole("combobox", { name: `Role of ${email}` }));
      await expectWithinWidth(row.getByRole("button", { name: `Remove ${email}` }));
    }
    const invitations = page.getByRole("region", { name: "Pending invitations" });
    const invitation = invitations.getByTestId("invitation-row");
    await expect(invitation).toContainText(invited);
    await expectFits(page, invitations);
    await expectWithinWidth(invitation.getByRole("button", { name: "Copy link" }));
    await expectWithinWidth(invitation.getByRole("button", { name: "Cancel" }));
    await expectAccessible(page, "members-390");
    await shot(page, "members-390");

    // An action from the list works at this width: removing the last member asks first, then does it.
    const last = rows.last();
    const email = (await last.getByRole("cell").first().textContent())!;
    await last.getByRole("button", { name: `Remove ${email}` }).click();
    await page
      .getByRole("dialog", { name: `Remove ${email}?` })
      .getByRole("button", { name: "Remove member" })
      .click();
    await expect(rows).toHaveCount(5);
    await expectFits(page, members);

    await page.goto(`/t/${team.slug}/connect`);
    const yours = page.getByRole("region", { name: "Your tokens" });
    const tokenRows = yours.getByTestId("token-row");
    await expect(tokenRows).toHaveCount(2);
    expect(await tokenRows.first().evaluate((el) => getComputedStyle(el).display)).toBe("block");
    await expectFits(page, yours);
    const laptop = tokenRows.filter({ hasText: "Claude Code on the laptop in the office" });
    await expect(tokenRows.filter({ hasText: "Cursor at home" })).toContainText("revoked");
    await expectWithinWidth(laptop.getByRole("button", { name: "Revoke" }));
    await expectAccessible(page, "tokens-390");
    await shot(page, "tokens-390");
    await laptop.getByRole("button", { name: "Revoke" }).click();
    await page.getByRole("button", { name: "Revoke token" }).click();
    await expect(laptop).toContainText("revoked");
    await expectFits(page, yours);
  } finally {
    await context.close();
  }
});
