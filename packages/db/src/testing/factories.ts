import { randomBytes } from "node:crypto";
import { sameAllowedCommand, type AllowedCommand } from "@switchboard/core/deployment";
import type { Db } from "../client";
import { changeCommandAllowList } from "../queries/deployment";
import { issueAccessToken } from "../queries/token";

/** Unique suffix so that factories never collide, in one test run or across runs sharing a database. */
export function uid(prefix = ""): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(4).toString("hex")}`;
}

export async function makeUser(db: Db, over: { name?: string; email?: string; deploymentOwner?: boolean } = {}) {
  const id = uid("usr_");
  return db.user.create({
    data: {
      id,
      name: over.name ?? `User ${id.slice(-6)}`,
      email: over.email ?? `${id}@example.test`,
      emailVerified: true,
      deploymentOwner: over.deploymentOwner ?? false,
    },
  });
}

/** `stdioAllowed` defaults to true here: most tests exercise stdio servers, not the deployment's permission. */
export async function makeTeam(
  db: Db,
  owner: { id: string },
  over: { name?: string; slug?: string; stdioAllowed?: boolean } = {},
) {
  const id = uid("team_");
  return db.team.create({
    data: {
      id,
      stdioAllowed: over.stdioAllowed ?? true,
      name: over.name ?? `Team ${id.slice(-6)}`,
      slug: over.slug ?? id.replaceAll("_", "-"),
      memberships: { create: { id: uid("mem_"), userId: owner.id, role: "owner" } },
    },
  });
}

export async function addMember(
  db: Db,
  team: { id: string },
  user: { id: string },
  role: "owner" | "admin" | "member" = "member",
) {
  return db.membership.create({ data: { id: uid("mem_"), teamId: team.id, userId: user.id, role } });
}

/** A team of an owner and a plain member (two users, one team, two memberships). */
export async function makeTeamWithMember(db: Db, over: { name?: string; stdioAllowed?: boolean } = {}) {
  const owner = await makeUser(db);
  const team = await makeTeam(db, owner, over);
  const member = await makeUser(db);
  await addMember(db, team, member);
  return { owner, member, team };
}

/**
 * A remote server installed in a team without a catalogue (rows only: nothing connects to the URL), and the
 * instance of each user given. For query tests; `seed/catalogue` installs a server as the console does.
 */
export async function makeInstallation(db: Db, team: { id: string }, users: Array<{ id: string }> = []) {
  const template = await db.serverTemplate.create({
    data: {
      teamId: team.id,
      slug: uid("tpl-"),
      name: "Demo",
      transport: "streamable_http",
      url: "http://127.0.0.1:1/mcp",
    },
  });
  const installation = await db.installation.create({
    data: { teamId: team.id, templateId: template.id, slug: uid("demo-"), name: "Demo" },
  });
  const instances = [];
  for (const user of users)
    instances.push(await db.instance.create({ data: { installationId: installation.id, userId: user.id } }));
  return { template, installation, instances };
}

/**
 * A personal access token of a member, issued as the console issues one (`issueAccessToken`). Returns the row's
 * id and the secret, which the gateway accepts as a bearer token.
 */
export async function makeAccessToken(
  db: Db,
  t: {
    userId: string;
    teamId: string;
    name?: string;
    mode?: "all" | "router";
    toolsetId?: string | null;
    expiresAt?: Date | null;
  },
) {
  const { row, token } = await issueAccessToken(db, {
    userId: t.userId,
    teamId: t.teamId,
    name: t.name ?? "test",
    mode: t.mode ?? "all",
    toolsetId: t.toolsetId ?? null,
    expiresAt: t.expiresAt ?? null,
  });
  return { id: row.id, token };
}

/**
 * Adds entries to the deployment's command allow-list (kept if already there). Test runs share one database,
 * so tests add what they need and never remove what others may rely on.
 */
export async function allowCommands(db: Db, entries: AllowedCommand[]) {
  return changeCommandAllowList(db, {
    userId: "test",
    change: (current) => [...current, ...entries.filter((e) => !current.some((c) => sameAllowedCommand(c, e)))],
  });
}
