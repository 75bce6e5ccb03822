import { expect, newAccount, test } from "../support/fixtures";

/** Content Security Policy violations and script errors the page reports, collected while it is used. */
function watchViolations(page: import("@playwright/test").Page): string[] {
  const seen: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy|Refused to/i.test(msg.text())) seen.push(msg.text());
  });
  page.on("pageerror", (err) => seen.push(String(err)));
  return seen;
}

test.describe("security headers", () => {
  test("a console page carries a nonce-based CSP, frame and sniffing protection and a referrer policy", async ({
    page,
  }) => {
    const first = await page.goto("/sign-in");
    const headers = first!.headers();
    const csp = headers["content-security-policy"]!;
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{16,}' 'strict-dynamic'/);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(csp).not.toMatch(/'unsafe-eval'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");

    // Next's own scripts carry this response's nonce, and the next response has another.
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    const scripts = await page.locator("script").evaluateAll((els) => els.map((el) => (el as HTMLScriptElement).nonce));
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.every((n) => n === nonce)).toBe(true);
    const again = (await page.goto("/sign-in"))!.headers()["content-security-policy"]!;
    expect(/'nonce-([^']+)'/.exec(again)![1]).not.toBe(nonce);
  });

  test("API answers carry nosniff and frame protection too", async ({ request }) => {
    const res = await request.get("/api/trpc/me");
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
    expect(res.headers()["x-frame-options"]).toBe("DENY");
  });

  test("under the policy the console still works: sign up through the form, create a team, no violation reported", async ({
    page,
  }) => {
    const violations = watchViolations(page);
    const account = newAccount("Csp");
    await page.goto("/sign-up");
    await page.getByLabel("Name").fill(account.name);
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill(account.password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("heading", { name: "Your teams" })).toBeVisible();
    const teamName = `Csp ${Date.now().toString(36)}`;
    await page.getByLabel("Team name").fill(teamName);
    await page.getByRole("button", { name: "Create team" }).click();
    await expect(page.getByRole("heading", { name: teamName })).toBeVisible();
    await page.getByRole("link", { name: "Members", exact: true }).click();
    await expect(page.getByRole("cell", { name: account.email })).toBeVisible();
    expect(violations).toEqual([]);
  });
});
