import { demoServer } from "@switchboard/core/testing/demo-server";
import type { HttpFixture } from "@switchboard/core/testing/http-fixture";
import { startStreamableHttpServer } from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedTemplate } from "@switchboard/db/seed/catalogue";
import { closeJobs } from "@switchboard/runtime/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { teamWithMember } from "./support/console";

/**
 * The console's catalogue and installations under this suite's egress rules: EGRESS_ALLOW=127.0.0.1:*
 * (packages/testing/src/env.ts), nothing else. So a fixture on 127.0.0.1 is allowed as 127.0.0.1, and every
 * other loopback, private or metadata address is refused when a template is saved or installed. The MCP route's
 * own connections under the same rules are tested in apps/gateway/test/egress.test.ts.
 */
let upstream: HttpFixture;

beforeAll(async () => {
  upstream = await startStreamableHttpServer(demoServer());
});

afterAll(async () => {
  await upstream?.stop();
  await closeJobs();
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
