import type { Page, Request } from "@playwright/test";
import { expectAccessible } from "../support/a11y";
import { createTeamViaApi, expect, shot, test } from "../support/fixtures";
import { seedLargeTeam } from "../support/seed-db";

/** The browser's tRPC requests that name `procedure` (batched GETs name each one in the path). */
function countCalls(page: Page, procedure: string) {
  const seen: Request[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/api/trpc/") && url.pathname.split("/").pop()!.split(",").includes(procedure))
      seen.push(r);
  });
  return seen;
}

/** Opens `path` and waits for the readable "Not found"; prints how long that took (not asserted: machine speed). */
async function openStale(page: Page, path: string, label: string) {
  const startedAt = Date.now();
  const response = await page.goto(path);
  await expect(page.getByRole("heading", { level: 1, name: "Not found" })).toBeVisible();
  const ms = Date.now() - startedAt;
  console.log(`[stale link] ${label}: error shown ${ms} ms after opening ${path}`);
  await test
    .info()
    .attach(`${label}-timing.json`, { body: JSON.stringify({ path, ms }), contentType: "application/json" });
  return response;
}

test.use({ viewport: { width: 1440, height: 900 } });

test("a stale link (a removed server, another team's server, a team that is gone, an instance that is gone) shows a readable error at once, with a way back", async ({
  adminPage: page,
  admin,
  team,
  consoleWatch,
}) => {
  // Chromium logs each 404 document it loads; these are the ones this journey opens on purpose.
  consoleWatch.expect(/status of 404 .*\/(installations\/[^/)]+|t\/no-such-team-[^/)]+)\)$/);
  await seedLargeTeam({ teamId: team.id, ownerEmail: admin.email, members: 1, servers: 1 });
  const other = await createTeamViaApi(page.request, `Other ${Date.now().toString(36)}`);
  await seedLargeTeam({ teamId: other.id, ownerEmail: admin.email, members: 1, servers: 1 });
  await page.goto(`/t/${other.slug}/servers`);
  const othersServer = (await page.getByTestId("installation-row").getByRole("link").first().getAttribute("href"))!;
  const othersId = othersServer.split("/").pop()!;

  const calls = countCalls(page, "installation.get");

  // A server that does not exist: the page itself answers 404 with the team's not-found page. The server asked
  // once (no retries for a NOT_FOUND; test/query-retry.test.ts) and the browser never asks again.
  const gone = await openStale(page, `/t/${team.slug}/installations/ins_removed_long_ago`, "removed server");
  expect(gone?.status()).toBe(404);
  await expect(page.getByText("does not exist in this team")).toBeVisible();
  expect(calls, "the browser fetched the stale server again").toHaveLength(0);
  // The team's navigation stays, and the way back leads to the team's servers.
  await expect(page.getByRole("navigation", { name: "Team navigation" })).toBeVisible();
  await expectAccessible(page, "stale-server");
  await shot(page, "stale-server-1440");

  // Another team's server under this team's address reads exactly like a missing one.
  const foreign = await openStale(page, `/t/${team.slug}/installations/${othersId}`, "another team's server");
  expect(foreign?.status()).toBe(404);
  expect(calls).toHaveLength(0);
  await page.getByRole("link", { name: "Back to the installed servers" }).click();
  await expect(page).toHaveURL(new RegExp(`/t/${team.slug}/servers$`));
  await expect(page.getByRole("heading", { level: 1, name: "Installed servers" })).toBeVisible();

  // A team that does not exist (or that the person is not in): the console's not-found page, back to their teams.
  const noTeam = await openStale(page, `/t/no-such-team-${Date.now().toString(36)}`, "unknown team");
  expect(noTeam?.status()).toBe(404);
  await expect(page.getByRole("link", { name: "Back to your teams" })).toBeVisible();
  await expectAccessible(page, "stale-team");

  // An instance that is gone: the server's page opens and says the link's instance no longer exists.
  await page.goto(`/t/${team.slug}/servers`);
  await page.getByTestId("installation-row").getByRole("link").first().click();
  await expect(page).toHaveURL(/\/installations\/ins_/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Server 01");
  await page.goto(`${new URL(page.url()).pathname}?instance=inst_gone`);
  await expect(page.getByTestId("stale-instance")).toHaveText(
    "The instance in this link is gone, or not yours to see; showing yours instead.",
  );
  await expectAccessible(page, "stale-instance");
});
