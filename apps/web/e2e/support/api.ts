import { expect, test, type APIRequestContext } from "@playwright/test";

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

export async function createTokenViaApi(request: APIRequestContext, teamId: string, name = "e2e"): Promise<string> {
  return (await trpcMutation<{ token: string }>(request, "token.create", { teamId, name })).token;
}

/** A tRPC query over HTTP (GET with superjson's envelope), as the browser sends it. */
export async function trpcQuery<T = unknown>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
  expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json as T;
}
