import { TOOLSET_NAME_PATTERN } from "@switchboard/core/governance";
import {
  governInstances,
  ROUTER_TOOLS,
  routerModeTokenCost,
  selectToolset,
  type MemberInstance,
} from "@switchboard/core/proxy";
import { namespaceTool } from "@switchboard/core/names";
import { countCatalogueTokens } from "@switchboard/core/tokens";
import type { Db } from "@switchboard/db/client";
import { loadMemberCatalogue } from "@switchboard/db/queries/catalogue";
import { AppError } from "../errors";
import { publishCatalogueChanged } from "./governance-events";
import type { GovernanceActor } from "./tool-governance.service";

/**
 * What a member may expose (the admin's settings applied) and what they hid themselves, plus toolsets: named
 * selections of tools across servers, each served at `/api/mcp/sets/{name}` with its own tool mode.
 */

async function memberInstances(db: Db, teamId: string, userId: string) {
  return (await loadMemberCatalogue(db, { teamId, userId })) as unknown as MemberInstance[];
}

/** The member's tools per server: those the admin allows, each with whether the member hid it and its cost. */
export async function myTools({ db, teamId, userId }: { db: Db; teamId: string; userId: string }) {
  const rows = await memberInstances(db, teamId, userId);
  const allowed = governInstances(rows.map((r) => ({ ...r, hiddenTools: [] })));
  return allowed.map((i, n) => {
    const hidden = new Set(rows[n]!.hiddenTools ?? []);
    const tools = i.tools.map((t) => {
      const upstream = i.upstreamToolNames?.get(t.name) ?? t.name;
      const listed = namespaceTool(i.slug, t);
      return {
        name: upstream,
        exposedName: listed.name,
        description: t.description ?? "",
        tokens: countCatalogueTokens([listed]).total,
        hidden: hidden.has(upstream),
      };
    });
    return { installationId: i.installationId, slug: i.slug, name: i.name, status: i.status, tools };
  });
}

export async function setHidden({
  db,
  teamId,
  userId,
  installationId,
  toolName,
  hidden,
}: {
  db: Db;
  teamId: string;
  userId: string;
  installationId: string;
  toolName: string;
  hidden: boolean;
}) {
  const instance = await db.instance.findFirst({
    where: { userId, installationId, installation: { teamId } },
    select: { id: true },
  });
  if (!instance) throw new AppError("NOT_FOUND", "Server not found.");
  if (hidden) {
    await db.memberHiddenTool.upsert({
      where: { userId_installationId_toolName: { userId, installationId, toolName } },
      create: { userId, installationId, toolName },
      update: {},
    });
  } else {
    await db.memberHiddenTool.deleteMany({ where: { userId, installationId, toolName } });
  }
  await publishCatalogueChanged(db, { teamId, userId }, "hidden tools changed");
}

function cost(
  rows: MemberInstance[],
  selection: ReadonlyArray<{ installationId: string; toolName: string }>,
  toolMode: "all" | "router",
) {
  const listed = governInstances(selectToolset(rows, selection))
    .filter((i) => i.status === "online")
    .flatMap((i) => i.tools.map((t) => namespaceTool(i.slug, t)));
  return toolMode === "router"
    ? { toolCount: ROUTER_TOOLS.length, tokens: routerModeTokenCost(), selectedTools: listed.length }
    : { toolCount: listed.length, tokens: countCatalogueTokens(listed).total, selectedTools: listed.length };
}

/** The member's own toolsets and the team's, each with its route and its token cost for this member. */
export async function listToolsets({ db, teamId, userId }: { db: Db; teamId: string; userId: string }) {
  const [sets, rows] = await Promise.all([
    db.toolset.findMany({
      where: { teamId, OR: [{ ownerId: userId }, { ownerId: null }] },
      orderBy: [{ name: "asc" }],
      select: {
        id: true,
        name: true,
        description: true,
        ownerId: true,
        toolMode: true,
        updatedAt: true,
        tools: { select: { installationId: true, toolName: true } },
      },
    }),
    memberInstances(db, teamId, userId),
  ]);
  const own = new Set(sets.filter((s) => s.ownerId === userId).map((s) => s.name));
  return sets.map((s) => ({
    id: s.id,
    name: s.name,
    description: s.description,
    teamWide: s.ownerId === null,
    /** A team set shadowed by the member's own set of the same name is not what their route serves. */
    shadowed: s.ownerId === null && own.has(s.name),
    toolMode: s.toolMode,
    path: `/api/mcp/sets/${s.name}`,
    tools: s.tools,
    cost: cost(rows, s.tools, s.toolMode),
  }));
}

export async function saveToolset({
  db,
  teamId,
  actor,
  isAdmin,
  input,
}: {
  db: Db;
  teamId: string;
  actor: GovernanceActor;
  isAdmin: boolean;
  input: {
    id?: string | null;
    name: string;
    description: string;
    teamWide: boolean;
    toolMode: "all" | "router";
    tools: Array<{ installationId: string; toolName: string }>;
  };
}) {
  if (!TOOLSET_NAME_PATTERN.test(input.name))
    throw new AppError(
      "INVALID_INPUT",
      "Use lowercase letters, digits and single dashes for the toolset's name (it becomes part of its URL).",
    );
  if (input.teamWide && !isAdmin)
    throw new AppError("FORBIDDEN", "Only team admins can make toolsets for the whole team.");
  const installations = new Set(
    (await db.installation.findMany({ where: { teamId }, select: { id: true } })).map((i) => i.id),
  );
  const foreign = input.tools.find((t) => !installations.has(t.installationId));
  if (foreign) throw new AppError("NOT_FOUND", "One of the selected servers is not installed in this team.");
  const ownerId = input.teamWide ? null : actor.userId;
  const existing = input.id
    ? await db.toolset.findFirst({ where: { id: input.id, teamId }, select: { id: true, ownerId: true } })
    : null;
  if (input.id && (!existing || (existing.ownerId !== actor.userId && !(existing.ownerId === null && isAdmin)))) {
    throw new AppError("NOT_FOUND", "Toolset not found.");
  }
  const clash = await db.toolset.findFirst({
    where: { teamId, ownerId, name: input.name, ...(existing ? { NOT: { id: existing.id } } : {}) },
    select: { id: true },
  });
  if (clash)
    throw new AppError(
      "CONFLICT",
      `${input.teamWide ? "The team" : "You"} already ${input.teamWide ? "has" : "have"} a toolset named “${input.name}”.`,
    );
  const tools = [...new Map(input.tools.map((t) => [`${t.installationId}\n${t.toolName}`, t])).values()];
  const saved = await db.$transaction(async (tx) => {
    const data = { name: input.name, description: input.description, toolMode: input.toolMode, ownerId };
    const set = existing
      ? await tx.toolset.update({ where: { id: existing.id }, data })
      : await tx.toolset.create({ data: { ...data, teamId } });
    await tx.toolsetTool.deleteMany({ where: { toolsetId: set.id } });
    if (tools.length > 0) await tx.toolsetTool.createMany({ data: tools.map((t) => ({ toolsetId: set.id, ...t })) });
    if (input.teamWide) {
      await tx.governanceAuditEntry.create({
        data: {
          teamId,
          actorId: actor.userId,
          actorLabel: actor.label,
          action: "toolset_saved",
          target: input.name,
          detail: { tools, toolMode: input.toolMode },
        },
      });
    }
    return set;
  });
  await publishCatalogueChanged(db, input.teamWide ? { teamId } : { teamId, userId: actor.userId }, "toolset changed");
  return { id: saved.id };
}

/** Deleting a toolset deletes the tokens limited to it (they never widen to everything). */
export async function deleteToolset({
  db,
  teamId,
  actor,
  isAdmin,
  toolsetId,
}: {
  db: Db;
  teamId: string;
  actor: GovernanceActor;
  isAdmin: boolean;
  toolsetId: string;
}) {
  const set = await db.toolset.findFirst({
    where: { id: toolsetId, teamId },
    select: { id: true, ownerId: true, name: true, tokens: { select: { id: true } } },
  });
  if (!set || (set.ownerId !== actor.userId && !(set.ownerId === null && isAdmin)))
    throw new AppError("NOT_FOUND", "Toolset not found.");
  await db.toolset.delete({ where: { id: set.id } });
  if (set.ownerId === null) {
    await db.governanceAuditEntry.create({
      data: { teamId, actorId: actor.userId, actorLabel: actor.label, action: "toolset_deleted", target: set.name },
    });
  }
  return { tokenIds: set.tokens.map((t) => t.id) };
}
