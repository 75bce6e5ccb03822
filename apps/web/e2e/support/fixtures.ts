import { randomBytes } from "node:crypto";
import { test as base, expect, type APIRequestContext, type Page } from "@playwright/test";
import { consoleOrigin } from "./api";
import { ConsoleWatch } from "./console-watch";
import { DocsUpstream, installDocs } from "./docs-upstream";
import { confirmEmailViaMail } from "./mail";
import { EverythingHttp } from "@switchboard/core/testing/everything";

export interface Account {
  name: string;
  email: string;
  password: string;
}

export function newAccount(label: string): Account {
  const id = randomBytes(4).toString("hex");
  return {
    name: `${label} ${id}`,
    email: `${label.toLowerCase()}-${id}@example.test`,
    password: `pw-${randomBytes(8).toString("hex")}`,
  };
}

/**
 * Signs up and signs in through the auth API, as the console's form does; the session cookie lands in the
 * request's browser context. With `confirm`, also opens the confirmation link from the mail sink.
 */
export async function signUpViaApi(
  request: APIRequestContext,
  account: Account,
  { confirm = false }: { confirm?: boolean } = {},
) {
  const res = await request.post("/api/auth/sign-up/email", { data: account });
  expect(res.ok(), await res.text()).toBe(true);
  const signIn = await request.post("/api/auth/sign-in/email", {
    data: { email: account.email, password: account.password },
  });
  expect(signIn.ok(), await signIn.text()).toBe(true);
  if (confirm) await confirmEmailViaMail(request, account.email);
}

export async function createTeamViaApi(
  request: APIRequestContext,
  name: string,
): Promise<{ id: string; slug: string }> {
  const res = await request.post("/api/trpc/team.create", { data: { json: { name } }, headers: consoleOrigin() });
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()).result.data.json;
}

export async function shot(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
}

export async function joinTeamViaApi(
  adminRequest: APIRequestContext,
  memberRequest: APIRequestContext,
  teamId: string,
  email: string,
) {
  const invite = await adminRequest.post("/api/trpc/team.invite", {
    data: { json: { teamId, email } },
    headers: consoleOrigin(),
  });
  expect(invite.ok(), await invite.text()).toBe(true);
  const invitationId = (await invite.json()).result.data.json.id as string;
  const accept = await memberRequest.post("/api/trpc/invitation.accept", {
    data: { json: { invitationId } },
    headers: consoleOrigin(),
  });
  expect(accept.ok(), await accept.text()).toBe(true);
}

/** The deployment owner global-setup.ts signed up first. */
export function deploymentOwnerAccount(): Account {
  const raw = process.env.E2E_DEPLOYMENT_OWNER;
  if (!raw) throw new Error("E2E_DEPLOYMENT_OWNER is not set: run through playwright.config.ts (global setup)");
  return JSON.parse(raw) as Account;
}

export async function signInViaApi(request: APIRequestContext, account: Account) {
  const res = await request.post("/api/auth/sign-in/email", {
    data: { email: account.email, password: account.password },
  });
  expect(res.ok(), await res.text()).toBe(true);
}

/** What the deployment owner does before a team can add and run these stdio commands. */
export async function allowStdioViaApi(ownerRequest: APIRequestContext, teamId: string, executables: string[]) {
  const allow = await ownerRequest.post("/api/trpc/deployment.setTeamStdio", {
    data: { json: { teamId, allowed: true } },
    headers: consoleOrigin(),
  });
  expect(allow.ok(), await allow.text()).toBe(true);
  for (const name of executables) {
    const add = await ownerRequest.post("/api/trpc/deployment.addAllowedCommand", {
      data: { json: { entry: { kind: "executable", name } } },
      headers: consoleOrigin(),
    });
    // Already on the list (another journey added it): fine.
    expect(add.ok() || add.status() === 409, await add.text()).toBe(true);
  }
}

/**
 * The MCP reference server over Streamable HTTP (server-everything) as the journeys use it: a real process whose
 * `stop()` is a crash (SIGKILL) and which `resume()` starts again on the same port, with only PATH and HOME of
 * this process's environment.
 */
export function startUpstream(): Promise<EverythingHttp> {
  return EverythingHttp.start({
    crash: true,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
  });
}

export const test = base.extend<{
  consoleWatch: ConsoleWatch;
  ownerPage: Page;
  admin: Account;
  adminPage: Page;
  team: { id: string; slug: string };
  member: Account;
  memberPage: Page;
  upstream: EverythingHttp;
  docs: { upstream: DocsUpstream; installation: Awaited<ReturnType<typeof installDocs>> };
}>({
  /**
   * Every journey fails when a page logs an error to the console or throws (a hydration mismatch, a failed
   * request the page did not expect); a journey that provokes one on purpose calls `consoleWatch.expect(...)`.
   */
  consoleWatch: [
    async ({ browser }, use) => {
      const watch = new ConsoleWatch();
      watch.attach(browser);
      try {
        await use(watch);
      } finally {
        watch.stop();
      }
      expect(watch.unexpected(), "errors the browser logged during this journey").toEqual([]);
    },
    { auto: true },
  ],
  /** A page signed in as the deployment owner. */
  ownerPage: async ({ browser }, use) => {
    const context = await browser.newContext();
    await signInViaApi(context.request, deploymentOwnerAccount());
    const page = await context.newPage();
    await use(page);
    await context.close();
  },
  admin: async ({}, use) => use(newAccount("Admin")),
  /** A page whose context is signed in as a fresh admin account (no team yet). */
  adminPage: async ({ browser, admin }, use) => {
    const context = await browser.newContext();
    await signUpViaApi(context.request, admin);
    const page = await context.newPage();
    await use(page);
    await context.close();
  },
  /** A fresh team owned by the admin. */
  team: async ({ adminPage }, use) =>
    use(await createTeamViaApi(adminPage.request, `Team ${randomBytes(3).toString("hex")}`)),
  member: async ({}, use) => use(newAccount("Member")),
  /** A page signed in as a member who has joined `team`. */
  memberPage: async ({ browser, member, team, adminPage }, use) => {
    const context = await browser.newContext();
    await signUpViaApi(context.request, member, { confirm: true });
    await joinTeamViaApi(adminPage.request, context.request, team.id, member.email);
    const page = await context.newPage();
    await use(page);
    await context.close();
  },
  /** A real Streamable HTTP MCP server (server-everything) the test can stop and start again. */
  upstream: async ({}, use) => {
    const server = await startUpstream();
    await use(server);
    await server.stop();
  },
  /**
   * The docs server (`DocsUpstream`: search, read, export, delete) installed in `team` by the admin, the
   * member's instance online and `memberPage` on their My servers page; stopped after the journey.
   */
  docs: async ({ adminPage, memberPage, team }, use) => {
    const upstream = await DocsUpstream.start();
    try {
      await use({ upstream, installation: await installDocs(adminPage, memberPage, team, upstream) });
    } finally {
      await upstream.stop();
    }
  },
});

export { expect };
