import { demoServer } from "@switchboard/core/testing/demo-server";
import type { HttpFixture } from "@switchboard/core/testing/http-fixture";
import { startStreamableHttpServer } from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInCaller } from "../../web/test/support/caller";
import { teamWithMember } from "../../web/test/support/console";
import { connectClient, discoverInto, startRoute, teardownRoute } from "./support/mcp";

/**
 * The web process under this suite's egress rules: EGRESS_ALLOW=127.0.0.1:* (test/support/env.ts), nothing
 * else. So the fixture on 127.0.0.1 is reachable as 127.0.0.1, and refused under every other name or form.
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

describe("remote server URLs when a template is saved", () => {
  it.each([
    [
      "http://localhost:5432/",
      "This server's address localhost (127.0.0.1) is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding localhost:5432 to EGRESS_ALLOW.",
    ],
    [
      "http://[::1]:6379/",
      "This server's address ::1 is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding [::1]:6379 to EGRESS_ALLOW.",
    ],
    [
      "http://169.254.169.254/latest/meta-data/",
      "This server's address 169.254.169.254 is a cloud instance-metadata address, which Switchboard does not connect to. An operator can allow it by adding 169.254.169.254:80 to EGRESS_ALLOW.",
    ],
    [
      "http://2130706434/",
      "This server's address 127.0.0.2 is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding 127.0.0.2:80 to EGRESS_ALLOW.",
    ],
    [
      "http://0.0.0.0:3000/",
      "This server's address 0.0.0.0 is an address for this host itself, which Switchboard does not connect to. An operator can allow it by adding 0.0.0.0:3000 to EGRESS_ALLOW.",
    ],
    [
      "http://192.168.1.10/mcp",
      "This server's address 192.168.1.10 is on a private network, which Switchboard does not connect to. An operator can allow private networks with EGRESS_ALLOW_PRIVATE, or this one server by adding 192.168.1.10:80 to EGRESS_ALLOW.",
    ],
  ])("refuses %s with a sentence naming the address and the setting that allows it", async (url, message) => {
    const { admin, team } = await teamWithMember();
    const err = await admin.caller.catalogue
      .create({ teamId: team.id, template: { slug: "remote", name: "Remote", transport: "streamable_http", url } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "BAD_REQUEST", message });
    expect(await getDb().serverTemplate.count({ where: { teamId: team.id } })).toBe(0);
  });

  it("refuses Switchboard's own public address", async () => {
    const { admin, team } = await teamWithMember();
    const err = await admin.caller.catalogue
      .create({
        teamId: team.id,
        template: {
          slug: "loop",
          name: "Loop",
          transport: "streamable_http",
          url: new URL("/api/mcp", process.env.APP_URL).href,
        },
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "BAD_REQUEST",
      message: "This server's URL is Switchboard's own address; point it at the MCP server itself, not at the gateway.",
    });
  });

  it("refuses a URL with a user name or password, on the URL field", async () => {
    const { admin, team } = await teamWithMember();
    const err = await admin.caller.catalogue
      .create({
        teamId: team.id,
        template: { slug: "remote", name: "Remote", transport: "sse", url: "http://user:pass@mcp.example.com/sse" },
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "BAD_REQUEST" });
    expect(JSON.stringify((err as { cause?: unknown }).cause)).toContain(
      "Leave the user name and password out of the URL; put credentials in a secret header field instead.",
    );
  });

  it("saves a public host name (checked again at connect time) and an allowed exception", async () => {
    const { admin, team } = await teamWithMember();
    await admin.caller.catalogue.create({
      teamId: team.id,
      template: { slug: "public", name: "Public", transport: "streamable_http", url: "https://mcp.example.com/mcp" },
    });
    await admin.caller.catalogue.create({
      teamId: team.id,
      template: { slug: "fixture", name: "Fixture", transport: "streamable_http", url: upstream.url("/mcp") },
    });
    expect(await getDb().serverTemplate.count({ where: { teamId: team.id } })).toBe(2);
  });

  it("refuses to install a template whose stored URL the rules refuse", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedTemplate(getDb(), {
      teamId: team.id,
      slug: "old",
      name: "Old",
      transport: "streamable_http",
      url: "http://[::ffff:169.254.169.254]/",
    });
    const err = await admin.caller.installation
      .create({ teamId: team.id, templateId: template.id, slug: "old", name: "Old", values: {} })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("169.254.169.254 is a cloud instance-metadata address"),
    });
    expect(await getDb().installation.count({ where: { teamId: team.id } })).toBe(0);
  });
});

describe("the MCP route's connections", () => {
  it("refuses an upstream whose name resolves to loopback, answering the call with the reason and never the upstream's body", async () => {
    const db = getDb();
    const alice = await signedInCaller("alice");
    const team = await alice.caller.team.create({ name: `Egress ${Math.random().toString(36).slice(2, 8)}` });
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
      where: { installationId: installation.id, userId: alice.userId },
    });
    // The catalogue as the worker would have stored it when the name still pointed elsewhere.
    await discoverInto(instance.id, "rebound", upstream.url("/mcp"));
    const before = upstream.requests.length;

    const token = (await alice.caller.token.create({ teamId: team.id, name: "test" })).token;
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
    const alice = await signedInCaller("alice");
    const team = await alice.caller.team.create({ name: `Egress ${Math.random().toString(36).slice(2, 8)}` });
    const template = await seedTemplate(db, {
      teamId: team.id,
      slug: "allowed",
      name: "Allowed",
      transport: "streamable_http",
      url: upstream.url("/mcp"),
    });
    const installation = await seedInstallation(db, { template });
    const instance = await db.instance.findFirstOrThrow({
      where: { installationId: installation.id, userId: alice.userId },
    });
    await discoverInto(instance.id, "allowed", upstream.url("/mcp"));
    const token = (await alice.caller.token.create({ teamId: team.id, name: "test" })).token;
    const { client } = await connectClient(token);
    const result = await client.callTool({ name: "allowed-echo", arguments: { text: "through" } });
    await client.close();
    expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
    expect(JSON.stringify(result.content)).toContain("through");
  });
});
