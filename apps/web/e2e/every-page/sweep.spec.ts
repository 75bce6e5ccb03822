import { installDemoOnline } from "../support/api";
import { expect, test } from "../support/fixtures";
import { WIDTHS, atWidth, visit } from "./support";

/**
 * Every console page at a laptop's and a phone's width, as the deployment owner, a team admin, a member and
 * someone signed out: nothing scrolls the page sideways, no table is cut off past the screen, and axe finds no
 * serious or critical violation; the fixtures fail the sweep on any error the browser logs. The team overview's
 * matrix (the admin's overview) and the Requests page have journeys of their own (e2e/overview, e2e/requests).
 */
const ADMIN_TABS = ["instances", "tools", "resources", "prompts", "timeline", "log", "settings"] as const;
const MEMBER_TABS = ADMIN_TABS.filter((t) => t !== "settings");

for (const width of WIDTHS) {
  test(`every console page works at ${width} px, for every role`, async ({
    browser,
    ownerPage,
    adminPage,
    memberPage,
    team,
    upstream,
  }) => {
    test.setTimeout(360_000);
    const installation = await installDemoOnline(adminPage.request, adminPage, team, upstream.url);
    const t = `/t/${team.slug}`;
    const problems: string[] = [];

    const anonymous = await (await browser.newContext()).newPage();
    await atWidth(anonymous, width);
    for (const path of ["/sign-in", "/sign-up", "/forgot-password"]) {
      problems.push(...(await visit(anonymous, path, `signed out ${path} @${width}`)));
    }

    await atWidth(ownerPage, width);
    for (const path of ["/teams", "/account", "/settings/deployment", "/settings/audit"]) {
      problems.push(...(await visit(ownerPage, path, `owner ${path} @${width}`)));
    }

    await atWidth(adminPage, width);
    for (const path of [
      "/teams",
      "/account",
      ...["servers", "members", "catalogue", "connect", "my-servers", "activity", "audit", "policies", "approvals"].map(
        (p) => `${t}/${p}`,
      ),
    ]) {
      problems.push(...(await visit(adminPage, path, `admin ${path} @${width}`)));
    }
    for (const tab of ADMIN_TABS) {
      problems.push(
        ...(await visit(adminPage, `${t}/installations/${installation.id}?tab=${tab}`, `admin tab ${tab} @${width}`)),
      );
    }

    await atWidth(memberPage, width);
    for (const path of [
      "",
      "/servers",
      "/members",
      "/catalogue",
      "/connect",
      "/my-servers",
      "/activity",
      "/approvals",
    ]) {
      problems.push(...(await visit(memberPage, `${t}${path}`, `member ${t}${path} @${width}`)));
    }
    for (const tab of MEMBER_TABS) {
      problems.push(
        ...(await visit(memberPage, `${t}/installations/${installation.id}?tab=${tab}`, `member tab ${tab} @${width}`)),
      );
    }

    expect(problems, "pages that scroll sideways, cut tables off or fail axe").toEqual([]);
  });
}
