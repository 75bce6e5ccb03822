/**
 * Seeds the demo team: an admin and a member (credentials printed), and two real servers that run on this
 * machine: @modelcontextprotocol/server-everything over stdio (hosted by the worker) and the same server over
 * Streamable HTTP (started by `npm run demo` on DEMO_MCP_PORT). Idempotent: re-running leaves one demo team.
 * The demo admin is also the deployment owner, the demo team may run stdio servers and the deployment's
 * allow-list has the stdio server's command (added, never replacing what an owner put there).
 */
import "dotenv/config";
import { randomBytes } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { getDb, disconnectDb } from "@switchboard/db/client";
import { sameAllowedCommand, type AllowedCommand } from "@switchboard/core/deployment";
import { changeCommandAllowList } from "@switchboard/db/queries/deployment";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";

const db = getDb();
const TEAM_SLUG = "demo";
const httpPort = process.env.DEMO_MCP_PORT ?? "3001";
const appUrl = process.env.APP_URL ?? "http://localhost:3000";
const people = [
  { name: "Ada Admin", email: "admin@demo.switchboard.local", role: "owner", deploymentOwner: true },
  { name: "Max Member", email: "member@demo.switchboard.local", role: "member", deploymentOwner: false },
] as const;
const STDIO_COMMAND: AllowedCommand = { kind: "executable", name: "mcp-server-everything" };

async function upsertUser(name: string, email: string, password: string, deploymentOwner: boolean) {
  const existing = await db.user.findUnique({ where: { email } });
  const hash = await hashPassword(password);
  if (existing) {
    await db.account.updateMany({ where: { userId: existing.id, providerId: "credential" }, data: { password: hash } });
    return deploymentOwner ? db.user.update({ where: { id: existing.id }, data: { deploymentOwner } }) : existing;
  }
  const id = randomBytes(16).toString("hex");
  return db.user.create({
    data: {
      id,
      name,
      email,
      emailVerified: true,
      deploymentOwner,
      accounts: {
        create: { id: randomBytes(16).toString("hex"), accountId: id, providerId: "credential", password: hash },
      },
    },
  });
}

async function main() {
  const password = process.env.DEMO_PASSWORD ?? "switchboard-demo";
  const users = [];
  for (const p of people) users.push({ ...p, user: await upsertUser(p.name, p.email, password, p.deploymentOwner) });

  // Start from a clean demo team each time.
  await db.team.deleteMany({ where: { slug: TEAM_SLUG } });
  const team = await db.team.create({
    data: {
      id: randomBytes(16).toString("hex"),
      name: "Demo Team",
      slug: TEAM_SLUG,
      stdioAllowed: true,
      memberships: {
        create: users.map((u) => ({ id: randomBytes(16).toString("hex"), userId: u.user.id, role: u.role })),
      },
    },
  });
  const admin = users[0]!.user;
  await changeCommandAllowList(db, {
    userId: admin.id,
    change: (list) => (list.some((e) => sameAllowedCommand(e, STDIO_COMMAND)) ? list : [...list, STDIO_COMMAND]),
  });

  const stdio = await seedTemplate(db, {
    teamId: team.id,
    slug: "everything",
    name: "Everything (stdio)",
    description: "The MCP reference server with every feature, run by the worker as a local process.",
    transport: "stdio",
    command: "mcp-server-everything",
    args: [],
    createdById: admin.id,
  });
  const http = await seedTemplate(db, {
    teamId: team.id,
    slug: "everything-http",
    name: "Everything (Streamable HTTP)",
    description: "The same reference server, reached over Streamable HTTP.",
    transport: "streamable_http",
    url: `http://127.0.0.1:${httpPort}/mcp`,
    createdById: admin.id,
    fields: [
      { key: "X-Team-Tag", tier: "team", kind: "header", description: "Sent with every request to tag the team." },
      {
        key: "X-Api-Key",
        tier: "user",
        kind: "header",
        secret: true,
        required: true,
        description: "Your personal API key (the demo server accepts any).",
      },
    ],
  });
  await seedInstallation(db, { template: stdio, createdById: admin.id });
  await seedInstallation(db, {
    template: http,
    createdById: admin.id,
    teamValues: { "X-Team-Tag": "demo" },
    memberValues: { [admin.id]: { "X-Api-Key": "demo-key-admin" } },
  });

  console.log(`\nDemo team seeded: ${appUrl}/t/demo`);
  for (const u of users) console.log(`  ${u.role.padEnd(6)}  ${u.email}  /  ${password}`);
  console.log(`  ${people[0].email} is also the deployment owner: ${appUrl}/settings/deployment`);
  console.log("");
}

main()
  .then(() => disconnectDb())
  .catch(async (err) => {
    console.error(err);
    await disconnectDb();
    process.exit(1);
  });
