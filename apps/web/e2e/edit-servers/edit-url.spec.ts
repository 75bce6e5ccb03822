import type { APIRequestContext } from "@playwright/test";
import { installKeyedViaApi, trpcMutation } from "../support/api";
import { expect, shot, startUpstream, test } from "../support/fixtures";

test("an admin re-points an installation at a new URL; members' instances come back online there with their secrets kept", async ({
  adminPage: page,
  memberPage,
  member,
  team,
  upstream,
}) => {
  const installation = await installKeyedViaApi(page.request, team.id, {
    url: upstream.url,
    slug: "moving",
    name: "Moving API",
  });
  // Both the admin and the member fill in their personal key; both come online on the first URL.
  for (const request of [page.request, memberPage.request]) {
    const mine = await ownInstance(request, team.id, installation.id);
    await trpcMutation(request, "instance.saveMyValues", {
      teamId: team.id,
      instanceId: mine,
      values: { "X-Api-Key": "sk-personal-key-7777" },
    });
  }
  await page.goto(`/t/${team.slug}/installations/${installation.id}`);
  const memberRow = page.getByTestId(`instance-${member.email}`);
  await expect(memberRow.locator("[data-status]").first()).toHaveAttribute("data-status", "online", {
    timeout: 30_000,
  });

  // The vendor moved: a new endpoint. The old one goes away after the edit.
  const moved = await startUpstream();
  try {
    await page.getByRole("tab", { name: "Settings" }).click();
    await page.getByRole("button", { name: "Edit server" }).click();
    const form = page.getByRole("form", { name: "Edit Moving API" });
    await form.getByLabel("URL", { exact: true }).fill(moved.url);
    await form.getByRole("button", { name: "Review changes" }).click();
    const confirm = page.getByTestId("edit-confirm");
    await expect(confirm).toContainText("This restarts 2 members' instances, because the URL changes.");
    await shot(page, "edit-confirm");
    await confirm.getByRole("button", { name: "Save and restart" }).click();
    await expect(
      page.getByRole("status").filter({ hasText: "Saved. 2 members' instances are restarting" }),
    ).toBeVisible();
    await upstream.stop();

    await page.getByRole("tab", { name: "Instances" }).click();
    await expect(memberRow.locator("[data-status]").first()).toHaveAttribute("data-status", "online", {
      timeout: 30_000,
    });

    // The member's key survived: still set (masked), never asked again.
    await memberPage.goto(`/t/${team.slug}/my-servers`);
    const card = memberPage.getByTestId("my-server-moving");
    await expect(card.locator("[data-status]").first()).toHaveAttribute("data-status", "online", { timeout: 30_000 });
    await card.getByText("Your settings").click();
    await expect(card.getByLabel("X-Api-Key (required)")).toHaveAttribute(
      "placeholder",
      "••••••7777 — leave empty to keep",
    );
    await shot(memberPage, "member-online-after-move");
  } finally {
    await moved.stop();
  }
});

/** The caller's own instance of an installation (the worker creates it a moment after installing). */
async function ownInstance(request: APIRequestContext, teamId: string, installationId: string): Promise<string> {
  const input = encodeURIComponent(JSON.stringify({ json: { teamId, installationId } }));
  const idOf = async () =>
    ((await (await request.get(`/api/trpc/instance.mineOf?input=${input}`)).json())?.result?.data?.json?.instance
      ?.id as string | undefined) ?? null;
  await expect.poll(idOf, { timeout: 20_000 }).not.toBeNull();
  return (await idOf())!;
}
