import { demoServer } from "@switchboard/core/testing/demo-server";
import type { HttpFixture } from "@switchboard/core/testing/http-fixture";
import { startStreamableHttpServer } from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, discoverInto, startRoute, teardownRoute } from "./support/mcp";

/**
 * The MCP route's connections under this suite's egress rules: EGRESS_ALLOW=127.0.0.1:*
 * (packages/testing/src/env.ts), nothing else. So the fixture on 127.0.0.1 is reachable as 127.0.0.1, and refused
 * under every other name or form. The console's checks when a template is saved or installed are tested in
 * apps/web/test/catalogue-egress.test.ts.
 */
let upstream: HttpFixture;

beforeAll(async () => {
  upstream = await startStreamableHttpServer(demoServer());
  await startRoute();
});

afterAll(async () => {
  await teardownRoute();
  await upstream?.stop();
  await disconnectDb();
});

describe("the MCP route's connections", () => {
  it("refuses an upstream whose name resolves to loopback, answering the call with the reason and never the upstream's body", async () => {
    const db = getDb();
    const alice = await makeUser(db, { name: "alice" });
    const team = await makeTeam(db, alice);
    // The same fixture under another name: the route goes through the checked fetch (this name is judged from
    // the URL; names resolved at connect time are covered by the core and worker tests with a resolver they control).
    const template = await seedTemplate(db, {
      teamId: team.id,
      slug: "rebound",
      name: "Rebound",
      transport: "streamable_http",
      url: `http://localhost:${upstream.port}/mcp`,
    });
    const installation = await seedInstallation(db, { template });
    const instance = await db.instance.findFirstOrThrow({
      where: { installationId: installation.id, userId: alice.id },
    });
    // The catalogue as the worker would have stored it when the name still pointed elsewhere.
    await discoverInto(instance.id, "rebound", upstream.url("/mcp"));
    const before = upstream.requests.length;

    const { token } = await makeAccessToken(db, { userId: alice.id, teamId: team.id });
    const { client } = await connectClient(token);
    const result = await client.callTool({ name: "rebound-echo", arguments: { text: "x" } });
    await client.close();

    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain(
      `This server's address localhost (127.0.0.1) is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding localhost:${upstream.port} to EGRESS_ALLOW.`,
    );
    expect(upstream.requests.length).toBe(before);
  });

  it("reaches the same upstream through its allowed exception", async () => {
    const db = getDb();
    const alice = await makeUser(db, { name: "alice" });
    const team = await makeTeam(db, alice);
    const template = await seedTemplate(db, {
      teamId: team.id,
      slug: "allowed",
      name: "Allowed",
      transport: "streamable_http",
      url: upstream.url("/mcp"),
    });
    const installation = await seedInstallation(db, { template });
    const instance = await db.instance.findFirstOrThrow({
      where: { installationId: installation.id, userId: alice.id },
    });
    await discoverInto(instance.id, "allowed", upstream.url("/mcp"));
    const { token } = await makeAccessToken(db, { userId: alice.id, teamId: team.id });
    const { client } = await connectClient(token);
    const result = await client.callTool({ name: "allowed-echo", arguments: { text: "through" } });
    await client.close();
    expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
    expect(JSON.stringify(result.content)).toContain("through");
  });
});
