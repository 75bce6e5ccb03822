import { createTokenViaApi, installViaApi } from "../support/api";
import { expectAccessible } from "../support/a11y";
import { expect, shot, test } from "../support/fixtures";
import { connectMcpClient } from "../support/mcp-client";

test("a stopped upstream turns the cell offline with a retry countdown, live; after a restart Reconnect brings it online and the timeline shows each event", async ({
  adminPage: page,
  admin,
  team,
  upstream,
  baseURL,
}) => {
  await installViaApi(page.request, team.id, {
    slug: "flaky",
    name: "Flaky",
    transport: "streamable_http",
    url: upstream.url,
  });
  const token = await createTokenViaApi(page.request, team.id);

  await page.goto(`/t/${team.slug}?view=matrix`);
  await expect(page.getByTestId("live-indicator")).toHaveText("● live");
  const cell = page.getByTestId(`cell-flaky-${admin.email}`);
  const status = cell.locator("[data-status]").first();
  await expect(status).toHaveAttribute("data-status", "online", { timeout: 30_000 });

  // The upstream dies; the next call through the gateway fails and the worker starts reconnecting.
  await upstream.stop();
  const client = await connectMcpClient(baseURL!, token);
  try {
    await client.callTool({ name: "flaky-echo", arguments: { message: "anyone there?" } }).catch(() => undefined);
  } finally {
    await client.close().catch(() => undefined);
  }

  // The open page follows without a reload: offline, with the attempt number and the countdown.
  await expect(status).toHaveAttribute("data-status", "offline");
  await expect(cell.getByTestId("retry-info")).toContainText(/attempt \d+ · (retry in \d+ s|retrying now)/);
  await shot(page, "offline-retrying");
  // A page rendered on the server while the countdown runs hydrates without a mismatch (the shared fixture
  // fails the journey on React's hydration error), and the summary says who has to do what.
  await page.reload();
  await expect(cell.getByTestId("retry-info")).toContainText(/attempt \d+ · (retry in \d+ s|retrying now)/);
  await expect(page.getByTestId("needs-attention").getByTestId("attention-item")).toContainText("Retrying by itself");

  await upstream.resume();
  // The retry loop may be trying at this very moment: the console then answers "already connecting" and hides the
  // button until the attempt ends. Clicked again once it is back, Reconnect closes and opens the connection again,
  // which the timeline records as the person's request all the same.
  const reconnect = cell.getByRole("button", { name: `Reconnect Flaky for ${admin.name}` });
  await expect(async () => {
    await reconnect.click({ timeout: 5_000 });
    await expect(cell.getByTestId("action-feedback")).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 45_000 });
  await expect(status).toHaveAttribute("data-status", "online", { timeout: 30_000 });
  await shot(page, "back-online");

  // The timeline has the whole story.
  await cell.getByRole("link", { name: `Flaky for ${admin.name}` }).click();
  await page.getByRole("tab", { name: "Timeline" }).click();
  const timeline = page.getByRole("list", { name: "Events, newest first" });
  for (const type of ["server_disconnected", "server_reconnecting", "server_reconnected"]) {
    await expect(timeline.locator(`[data-type="${type}"]`).first()).toBeVisible();
  }
  await expect(timeline.locator('[data-type="status_changed"]').filter({ hasText: "Online → Offline" })).toBeVisible();
  // Each failed attempt, or a run of them read as one line ("Attempts 1–3 failed: ..."), and who asked to reconnect.
  await expect(timeline.locator('[data-type="server_reconnecting"]').first()).toContainText(
    /attempt \d+, next try in|Attempts \d+–\d+ failed/,
  );
  await expect(timeline.locator('[data-type="reconnect_requested"]').first()).toContainText(
    "Reconnect requested by you",
  );
  await expectAccessible(page, "timeline");

  // The tab and the instance are in the URL: a reload (or a shared link) opens the same view.
  await expect(page).toHaveURL(/tab=timeline/);
  await page.reload();
  await expect(page.getByRole("tab", { name: "Timeline" })).toHaveAttribute("aria-selected", "true");
  // Tabs follow the arrow keys; the Tools tab searches by name, the Prompts tab lists the server's prompts.
  await page.getByRole("tab", { name: "Timeline" }).focus();
  await page.keyboard.press("Home");
  await expect(page.getByRole("tab", { name: "Instances" })).toBeFocused();
  await page.getByRole("tab", { name: "Tools" }).click();
  await page.getByLabel("Search tools").fill("echo");
  await expect(page).toHaveURL(/tools=echo/);
  await expect(page.getByTestId("tool-row").filter({ hasText: "flaky-echo" })).toBeVisible();
  await expect(page.getByTestId("tool-row").filter({ hasText: "flaky-get-sum" })).toHaveCount(0);
  await page.getByRole("tab", { name: "Prompts" }).click();
  await expect(page.getByTestId("prompt-row").first()).toContainText("flaky-");
  await expectAccessible(page, "installation-prompts");
  await shot(page, "timeline");
});
