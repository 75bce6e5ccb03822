import { Upstream2026 } from "@switchboard/testing/upstream-2026";
import { installViaApi } from "../support/api";
import { expect, shot, test } from "../support/fixtures";

test("the instances tab shows that an upstream speaks the stateless revision 2026-07-28", async ({
  adminPage: page,
  admin,
  team,
}) => {
  const upstream = await Upstream2026.start();
  try {
    const installation = await installViaApi(page.request, team.id, {
      slug: "rev2026",
      name: "API 2026",
      transport: "streamable_http",
      url: upstream.url,
    });
    await page.goto(`/t/${team.slug}/installations/${installation.id}`);
    const row = page.getByTestId(`instance-${admin.email}`);
    await expect(row.locator("[data-status]").first()).toHaveAttribute("data-status", "online", { timeout: 30_000 });
    const protocol = row.getByTestId("instance-protocol");
    await expect(protocol).toHaveText("2026-07-28");
    await expect(protocol.locator("span")).toHaveAttribute("title", /Stateless revision/);
    // The worker never opened a session with it: it asked server/discover and spoke statelessly from there.
    expect(upstream.methods).not.toContain("initialize");
    await shot(page, "instances-protocol-revision");
  } finally {
    await upstream.stop();
  }
});
