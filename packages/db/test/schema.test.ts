import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { INSTANCE_STATUSES } from "@switchboard/core/status";
import { getDb, disconnectDb } from "../src/client";
import { createTestDatabase } from "../src/testing";
import { makeInstallation, makeTeamWithMember } from "../src/testing/factories";

afterAll(() => disconnectDb());

const EXPECTED_TABLES = [
  "users",
  "sessions",
  "accounts",
  "verifications",
  "teams",
  "memberships",
  "invitations",
  "server_templates",
  "template_config_fields",
  "installations",
  "installation_config_values",
  "instances",
  "instance_config_values",
  "instance_tools",
  "instance_resources",
  "instance_resource_templates",
  "instance_prompts",
  "instance_events",
  "tool_call_logs",
  "personal_access_tokens",
  "upstream_oauth_tokens",
  "oauth_pending_flows",
];

describe("migrations", () => {
  it("create every table of the data model on an empty database with migrate deploy", async () => {
    const fresh = await createTestDatabase("schema");
    try {
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      const { rows } = await client.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = 'public'",
      );
      const { rows: statuses } = await client.query<{ v: string }>(
        'select unnest(enum_range(null::"InstanceStatus"))::text as v',
      );
      await client.end();
      expect(rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(EXPECTED_TABLES));
      expect(statuses.map((s) => s.v)).toEqual([...INSTANCE_STATUSES]);
    } finally {
      await fresh.drop();
    }
  });
});

describe("data model", () => {
  it("gives each member one instance per installation and cascades removal of the installation", async () => {
    const db = getDb();
    const { owner, member, team } = await makeTeamWithMember(db);
    const { installation, instances } = await makeInstallation(db, team, [owner]);
    const instance = instances[0]!;
    await db.instance.create({
      data: { installationId: installation.id, userId: member.id, status: "awaiting_user_config" },
    });
    await expect(
      db.instance.create({ data: { installationId: installation.id, userId: member.id } }),
    ).rejects.toThrow();

    await db.instanceTool.create({
      data: { instanceId: instance.id, name: "echo", inputSchema: { type: "object" }, tokenCount: 12 },
    });
    await db.installation.delete({ where: { id: installation.id } });
    expect(await db.instance.count({ where: { installationId: installation.id } })).toBe(0);
    expect(await db.instanceTool.count({ where: { instanceId: instance.id } })).toBe(0);
  });
});
