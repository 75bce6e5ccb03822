import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { InstanceStatus } from "@switchboard/core/status";
import { createDb } from "@switchboard/db/client";

/** Where serve.ts leaves the e2e run's database URL (one file per port, so parallel runs do not meet). */
export function e2eDatabaseFile(port: string): string {
  return path.join(os.tmpdir(), `switchboard-e2e-db-${port}.json`);
}

/** A Prisma client on the database the running console and worker use. */
export function e2eDb() {
  const port = process.env.PLAYWRIGHT_PORT ?? "3210";
  const { url } = JSON.parse(readFileSync(e2eDatabaseFile(port), "utf8")) as { url: string };
  return createDb(url, 2);
}

/**
 * Fills `teamId` up to `members` members and `servers` installed servers, with one instance per member and
 * server in a fixed mix of statuses (most online; some waiting, failing, stopped, signed out). Written
 * straight to the database: the sizes a performance goal names would take minutes through the worker. The
 * servers point at a closed port, and nothing queues a job for them, so the worker leaves them alone.
 */
export async function seedLargeTeam({
  teamId,
  ownerEmail,
  members,
  servers,
}: {
  teamId: string;
  ownerEmail: string;
  members: number;
  servers: number;
}) {
  const db = e2eDb();
  try {
    const run = randomBytes(3).toString("hex");
    const owner = await db.user.findUniqueOrThrow({ where: { email: ownerEmail } });
    const users = Array.from({ length: members - 1 }, (_, i) => ({
      id: `usr_${run}_${i}`,
      name: `Member ${String(i + 1).padStart(2, "0")} ${run}`,
      email: `member-${i + 1}-${run}@example.test`,
      emailVerified: true,
    }));
    await db.user.createMany({ data: users });
    await db.membership.createMany({
      data: users.map((u, i) => ({
        id: `mem_${run}_${i}`,
        teamId,
        userId: u.id,
        role: i < 2 ? ("admin" as const) : ("member" as const),
      })),
    });
    const templates = Array.from({ length: servers }, (_, i) => ({
      id: `tpl_${run}_${i}`,
      teamId,
      slug: `server-${String(i + 1).padStart(2, "0")}`,
      name: `Server ${String(i + 1).padStart(2, "0")}`,
      description: "",
      transport: "streamable_http" as const,
      url: "http://127.0.0.1:9/mcp",
      args: [],
    }));
    await db.serverTemplate.createMany({ data: templates });
    await db.installation.createMany({
      data: templates.map((t, i) => ({ id: `ins_${run}_${i}`, teamId, templateId: t.id, slug: t.slug, name: t.name })),
    });
    const everyone = [owner.id, ...users.map((u) => u.id)];
    const mix: InstanceStatus[] = [
      "online",
      "online",
      "online",
      "online",
      "online",
      "online",
      "online",
      "online",
      "online",
      "online",
      "online",
      "online",
      "online",
      "awaiting_user_config",
      "error",
      "offline",
      "requires_reauth",
      "permanently_failed",
      "online",
      "connecting",
    ];
    const instances = everyone.flatMap((userId, m) =>
      templates.map((_, s) => {
        const status = mix[(m * 7 + s * 3) % mix.length]!;
        return {
          installationId: `ins_${run}_${s}`,
          userId,
          status,
          statusMessage:
            status === "online"
              ? null
              : status === "awaiting_user_config"
                ? "Add your API key to start this server."
                : "Could not connect: connection refused.",
          reconnectAttempt: status === "offline" ? 3 : 0,
          toolCount: status === "online" ? 12 : 0,
          totalTokens: status === "online" ? 3400 : 0,
        };
      }),
    );
    await db.instance.createMany({ data: instances });
    const counts: Partial<Record<InstanceStatus, number>> = {};
    for (const i of instances) counts[i.status] = (counts[i.status] ?? 0) + 1;
    return { counts, instances: instances.length };
  } finally {
    await db.$disconnect();
  }
}
