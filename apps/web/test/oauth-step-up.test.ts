import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOAuthMcpServer, type OAuthMcpServer } from "@switchboard/core/testing/oauth-mcp-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { loadOAuthTokens, recordNeededScope } from "@switchboard/db/queries/upstream-oauth";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { closeJobs } from "@switchboard/runtime/jobs";
import { GET as callback } from "~/app/api/oauth/callback/route";
import { teamWithMember } from "./support/console";

let server: OAuthMcpServer;

beforeAll(async () => {
  server = await startOAuthMcpServer({ scopes: ["mcp:tools", "mcp:admin"] });
});

afterAll(async () => {
  await server.close();
  await closeJobs();
  await disconnectDb();
});

describe("Re-authenticate after a step-up", () => {
  it("asks for the granted scope and the one the upstream said it needs, and the new grant clears the need", async () => {
    const { member, team } = await teamWithMember();
    const template = await seedTemplate(getDb(), {
      teamId: team.id,
      slug: `oauth-${Math.random().toString(36).slice(2, 8)}`,
      name: "OAuth demo",
      transport: "streamable_http",
      url: server.mcpUrl,
    });
    const installation = await seedInstallation(getDb(), { template });
    const instance = await getDb().instance.findFirstOrThrow({
      where: { installationId: installation.id, userId: member.userId },
    });
    const connect = async () => {
      const { authorizationUrl } = await member.caller.oauth.start({ teamId: team.id, instanceId: instance.id });
      const approved = await fetch(authorizationUrl, { redirect: "manual" });
      const back = new URL(approved.headers.get("location")!);
      const landed = await callback(
        new Request(`http://localhost:3000/api/oauth/callback${back.search}`, { headers: member.headers }),
      );
      expect(new URL(landed.headers.get("location")!).searchParams.get("oauth")).toBe("connected");
      return new URL(authorizationUrl).searchParams.get("scope");
    };

    // The first grant: what the server's metadata offers.
    expect(await connect()).toBe("mcp:tools mcp:admin");
    await getDb().upstreamOAuthToken.update({ where: { instanceId: instance.id }, data: { scope: "mcp:tools" } });
    // A call was refused with 403 insufficient_scope naming mcp:admin (the route records it through oauthFetch).
    await recordNeededScope(getDb(), { instanceId: instance.id, scope: "mcp:admin mcp:audit" });
    expect(await connect()).toBe("mcp:tools mcp:admin mcp:audit");
    expect((await loadOAuthTokens(getDb(), getCipher(), instance.id))?.neededScope).toBeUndefined();
  });
});
