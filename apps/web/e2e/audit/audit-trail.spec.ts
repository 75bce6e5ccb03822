import { readFile } from "node:fs/promises";
import { expectAccessible } from "../support/a11y";
import { expect, newAccount, shot, test } from "../support/fixtures";
import { e2eDb } from "../support/seed-db";

test("an admin's own changes are on the Audit page with before/after, export downloads them, and verify names an edited record", async ({
  adminPage: page,
  admin,
  team,
}) => {
  // Two changes through the console: an invitation and the retention settings.
  await page.goto(`/t/${team.slug}/members`);
  const invitee = newAccount("Invitee");
  await page.getByLabel("Email").fill(invitee.email);
  await page.getByRole("button", { name: "Create invitation link" }).click();
  await expect(page.getByTestId("invitation-link")).toBeVisible();

  await page.getByRole("link", { name: "Audit", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit" })).toBeVisible();
  const retention = page.getByRole("form", { name: "Retention" });
  await retention.getByLabel("Request log (days)").fill("14");
  await retention.getByRole("button", { name: "Save retention" }).click();
  await expect(retention.getByRole("status")).toHaveText("Saved.");

  // The trail lists the journey's own actions, newest first, as the admin.
  await page.reload();
  const rows = page.getByTestId("audit-row");
  await expect(rows.first()).toContainText("audit.setRetention");
  await expect(rows.filter({ hasText: "team.invite" })).toContainText(invitee.email);
  await expect(rows.filter({ hasText: "team.create" })).toHaveCount(1);
  await expect(rows.first()).toContainText(admin.email);
  await expect(page.getByTestId("audit-total")).toHaveText("3 records");
  await expectAccessible(page, "audit");

  // Details show the retention before and after.
  await rows.first().getByRole("button", { name: "Details" }).click();
  const detail = page.getByTestId("audit-detail");
  await expect(detail).toContainText('"requestLogRetentionDays": 30');
  await expect(detail).toContainText('"requestLogRetentionDays": 14');
  await shot(page, "audit-trail");

  // Filters narrow the list (and live in the URL).
  await page.getByLabel("Action").fill("invite");
  await expect(rows).toHaveCount(1);
  await expect(page).toHaveURL(/action=invite/);
  await expect(page.getByTestId("audit-total")).toHaveText("1 record");

  // Export: the CSV holds the filtered records, with the header.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  const csv = await readFile((await download.path())!, "utf8");
  const lines = csv.trim().split("\r\n");
  expect(lines[0]).toMatch(/^createdAt,chain,seq,actorLabel/);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain("team.invite");
  expect(lines[1]).toContain(invitee.email);

  // The chain holds; then one record is edited in the database and verification names it.
  await page.getByLabel("Action").fill("");
  await page.getByRole("button", { name: "Verify the chain" }).click();
  await expect(page.getByTestId("audit-verify-result")).toContainText("Intact: 3 records checked");
  const db = e2eDb();
  let editedId: string;
  try {
    const record = await db.auditEvent.findFirstOrThrow({ where: { teamId: team.id, action: "team.invite" } });
    editedId = record.id;
    await db.$executeRaw`UPDATE audit_events SET "targetLabel" = 'someone-else@example.test' WHERE id = ${record.id}`;
  } finally {
    await db.$disconnect();
  }
  await page.getByRole("button", { name: "Verify the chain" }).click();
  const verdict = page.getByTestId("audit-verify-result");
  await expect(verdict).toContainText("Broken at record #2 (team.invite");
  await expect(verdict).toContainText(editedId);
  await expect(verdict).toContainText("changed after it was written");
});

test("on a 390 px phone the Audit page fits the screen, and a member has no Audit page", async ({
  browser,
  adminPage,
  team,
  memberPage,
  consoleWatch,
}) => {
  consoleWatch.expect(/status of 404/);
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    storageState: await adminPage.context().storageState(),
  });
  const page = await phone.newPage();
  await page.goto(`/t/${team.slug}/audit`);
  await expect(page.getByTestId("audit-row").first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessible(page, "audit-phone");
  await phone.close();

  await memberPage.goto(`/t/${team.slug}`);
  await expect(memberPage.getByRole("link", { name: "Audit", exact: true })).toHaveCount(0);
  const res = await memberPage.goto(`/t/${team.slug}/audit`);
  expect(res?.status()).toBe(404);
});
