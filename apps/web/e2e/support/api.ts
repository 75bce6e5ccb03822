import { expect, test, type APIRequestContext, type Page } from "@playwright/test";

/**
 * The Origin a browser sends from the console's pages: tRPC refuses a mutation without it (CSRF), and
 * Playwright's request context sends none of its own.
 */
export function consoleOrigin(): { origin: string } {
  return { origin: new URL(test.info().project.use.baseURL!).origin };
}

/** tRPC over HTTP with superjson's envelope, as the browser sends it (the request carries the session cookie). */
export async function trpcMutation<T = unknown>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${path}`, { data: { json: input }, headers: consoleOrigin() });
  expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json as T;
}

export interface TemplateInput {
  slug: string;
  name: string;
  transport: "stdio" | "streamable_http";
  command?: string;
  args?: string[];
  url?: string;
  oauth?: boolean;
  fields?: Array<{
    key: string;
    tier: "team" | "user";
    kind: "env" | "arg" | "header" | "query";
    required?: boolean;
    secret?: boolean;
  }>;
}

/** Adds a template and installs it for the team; the worker then creates the instances. */
export async function installViaApi(
  request: APIRequestContext,
  teamId: string,
  template: TemplateInput,
  values: Record<string, string> = {},
) {
  const t = await trpcMutation<{ id: string }>(request, "catalogue.create", { teamId, template });
  return trpcMutation<{ id: string; slug: string }>(request, "installation.create", {
    teamId,
    templateId: t.id,
    slug: template.slug,
    name: template.name,
    values,
  });
}

/**
 * A Streamable HTTP server at `url` that needs each member's own `X-Api-Key` header (a required secret of the
 * member's tier): installed, it waits on My servers for the member's settings.
 */
export function installKeyedViaApi(
  request: APIRequestContext,
  teamId: string,
  server: { url: string; slug?: string; name?: string },
) {
  return installViaApi(request, teamId, {
    slug: server.slug ?? "keyed",
    name: server.name ?? "Keyed API",
    transport: "streamable_http",
    url: server.url,
    fields: [{ key: "X-Api-Key", tier: "user", kind: "header", required: true, secret: true }],
  });
}

export async function createTokenViaApi(request: APIRequestContext, teamId: string, name = "e2e"): Promise<string> {
  return (await trpcMutation<{ token: string }>(request, "token.create", { teamId, name })).token;
}

/** A tRPC query over HTTP (GET with superjson's envelope), as the browser sends it. */
export async function trpcQuery<T = unknown>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
  expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json as T;
}

/**
 * Installs the spec's upstream as the team's `demo` server (Streamable HTTP) and waits on `page`'s My servers
 * until the page's member has it online, as the MCP client journeys start.
 */
export async function installDemoOnline(
  request: APIRequestContext,
  page: Page,
  team: { id: string; slug: string },
  url: string,
) {
  const installation = await installViaApi(request, team.id, {
    slug: "demo",
    name: "Demo",
    transport: "streamable_http",
    url,
  });
  await page.goto(`/t/${team.slug}/my-servers`);
  await expect(page.getByTestId("my-server-demo").locator("[data-status]").first()).toHaveAttribute(
    "data-status",
    "online",
    { timeout: 30_000 },
  );
  return installation;
}
