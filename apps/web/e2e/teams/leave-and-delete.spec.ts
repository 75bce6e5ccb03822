import { expect, shot, test } from "../support/fixtures";

test.describe("leaving and deleting a team", () => {
  test("a member leaves and loses the team at once; the owner deletes the team after typing its URL name", async ({
    adminPage,
    memberPage,
    team,
    consoleWatch,
  }) => {
    // The pages of a team one has left (or deleted) answer 404, as the journey asserts.
    consoleWatch.expect(new RegExp(`status of 404 .*/t/${team.slug}\\)$`));
    // The member leaves from the members page.
    await memberPage.goto(`/t/${team.slug}/members`);
    await memberPage.getByRole("button", { name: "Leave team" }).click();
    await memberPage.getByRole("dialog").getByRole("button", { name: "Leave team" }).click();
    await expect(memberPage).toHaveURL(/\/teams$/);
    expect((await memberPage.goto(`/t/${team.slug}`))?.status()).toBe(404);

    // The owner cannot leave as the only owner, and deletes the team instead.
    await adminPage.goto(`/t/${team.slug}/members`);
    await expect(adminPage.getByTestId("member-row")).toHaveCount(1);
    await adminPage.getByRole("button", { name: "Leave team" }).click();
    await adminPage.getByRole("dialog").getByRole("button", { name: "Leave team" }).click();
    await expect(adminPage.getByRole("alert").filter({ hasText: "only owner" })).toBeVisible();

    const remove = adminPage.getByRole("button", { name: "Delete team" });
    await expect(remove).toBeDisabled();
    await adminPage.getByLabel(`Type ${team.slug} to delete`).fill(team.slug);
    await shot(adminPage, "owner-confirms-team-deletion");
    await remove.click();
    await expect(adminPage).toHaveURL(/\/teams$/);
    await expect(adminPage.getByText("You are not in a team yet")).toBeVisible();
    expect((await adminPage.goto(`/t/${team.slug}`))?.status()).toBe(404);
  });
});
