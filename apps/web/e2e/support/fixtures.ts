import { randomBytes } from "node:crypto";
import { test as base, expect, type APIRequestContext, type Page } from "@playwright/test";

export interface Account {
  name: string;
  email: string;
  password: string;
}

export function newAccount(label: string): Account {
  const id = randomBytes(4).toString("hex");
  return { name: `${label} ${id}`, email: `${label.toLowerCase()}-${id}@example.test`, password: `pw-${randomBytes(8).toString("hex")}` };
}

/** Signs up through the auth API; the session cookie lands in the request's browser context. */
export async function signUpViaApi(request: APIRequestContext, account: Account) {
  const res = await request.post("/api/auth/sign-up/email", { data: account });
  expect(res.ok(), await res.text()).toBe(true);
}

export async function createTeamViaApi(request: APIRequestContext, name: string): Promise<{ id: string; slug: string }> {
  const res = await request.post("/api/trpc/team.create", { data: { json: { name } } });
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()).result.data.json;
}

export async function shot(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
}

export const test = base.extend<{ admin: Account; adminPage: Page }>({
  admin: async ({}, use) => use(newAccount("Admin")),
  /** A page whose context is signed in as a fresh admin account (no team yet). */
  adminPage: async ({ browser, admin }, use) => {
    const context = await browser.newContext();
    await signUpViaApi(context.request, admin);
    const page = await context.newPage();
    await use(page);
    await context.close();
  },
});

export { expect };
