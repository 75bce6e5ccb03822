import { randomBytes } from "node:crypto";
import type { Db } from "../client";

/** Unique suffix so that factories never collide, in one test run or across runs sharing a database. */
export function uid(prefix = ""): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(4).toString("hex")}`;
}

export async function makeUser(db: Db, over: { name?: string; email?: string } = {}) {
  const id = uid("usr_");
  return db.user.create({
    data: { id, name: over.name ?? `User ${id.slice(-6)}`, email: over.email ?? `${id}@example.test`, emailVerified: true },
  });
}

export async function makeTeam(db: Db, owner: { id: string }, over: { name?: string; slug?: string } = {}) {
  const id = uid("team_");
  return db.team.create({
    data: {
      id,
      name: over.name ?? `Team ${id.slice(-6)}`,
      slug: over.slug ?? id.replaceAll("_", "-"),
      memberships: { create: { id: uid("mem_"), userId: owner.id, role: "owner" } },
    },
  });
}

export async function addMember(db: Db, team: { id: string }, user: { id: string }, role: "owner" | "admin" | "member" = "member") {
  return db.membership.create({ data: { id: uid("mem_"), teamId: team.id, userId: user.id, role } });
}
