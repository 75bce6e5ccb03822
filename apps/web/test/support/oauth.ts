import { expect } from "vitest";
import type { OAuthMcpServer } from "@switchboard/core/testing/oauth-mcp-server";
import { getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { GET as callback } from "~/app/api/oauth/callback/route";
import { teamWithMember } from "./console";

const suffix = () => Math.random().toString(36).slice(2, 8);

/** A team with an owner and a member, and an OAuth-protected remote server installed (instances created). */
export async function oauthInstalled(server: OAuthMcpServer) {
  const people = await teamWithMember();
  const template = await seedTemplate(getDb(), {
    teamId: people.team.id,
    slug: `oauth-${suffix()}`,
    name: "OAuth demo",
    transport: "streamable_http",
    url: server.mcpUrl,
  });
  await getDb().serverTemplate.update({ where: { id: template.id }, data: { oauth: true } });
  const installation = await seedInstallation(getDb(), { template });
  const instanceOf = (userId: string) =>
    getDb().instance.findFirstOrThrow({ where: { installationId: installation.id, userId } });
  return { ...people, installation, instanceOf };
}

/** The member's browser at the auto-approving authorization server: the redirect back to our callback. */
export async function approve(authorizationUrl: string): Promise<URL> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  expect(response.status).toBe(302);
  return new URL(response.headers.get("location")!);
}

/** The browser arriving at GET /api/oauth/callback with the member's session cookie. */
export async function arrive(back: URL, headers: Headers): Promise<URL> {
  const response = await callback(new Request(`http://localhost:3000/api/oauth/callback${back.search}`, { headers }));
  expect(response.status).toBe(303);
  return new URL(response.headers.get("location")!);
}
