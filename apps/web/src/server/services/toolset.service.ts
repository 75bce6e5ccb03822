import { isTeamAdminRole } from "@switchboard/core/accounts";
import { TOOLSET_NAME_PATTERN } from "@switchboard/core/governance";
import {
  catalogueTotals,
  ROUTER_TOOLS,
  routerModeTokenCost,
  selectToolset,
  viewTools,
  type MemberInstance,
} from "@switchboard/core/proxy";
import type { Db } from "@switchboard/db/client";
import { insertGovernanceAudit } from "@switchboard/db/queries/governance";
import { listInstallationIdsOfTeam } from "@switchboard/db/queries/installation";
import { memberHasInstance } from "@switchboard/db/queries/instance-views";
import {
  deleteToolset as deleteToolsetRow,
  findTeamToolset,
  listToolsetsForMember,
  setToolHidden,
  toolsetNameTaken,
  writeToolset,
} from "@switchboard/db/queries/toolset";
import { findUserLabel } from "@switchboard/db/queries/user";
import { AppError } from "../errors";
import type { Actor } from "./actor";
import { publishCatalogueChanged } from "./governance-events";
import { memberInstances as loadMemberInstances } from "./member-catalogue";

/**
 * What a member may expose (the admin's settings applied) and what they hid themselves, plus toolsets: named
 * selections of tools across servers, each served at `/api/mcp/sets/{name}` with its own tool mode. Every function
 * takes the one service call shape, `{ db, actor, ...input }`: the actor's team and role scope it.
 */

async function memberInstances(db: Db, actor: Actor) {
  return loadMemberInstances(db, { teamId: actor.teamId, userId: actor.userId });
}

/**
 * The member's tools per server: those the installation serves (core catalogue view `installation`), each with
 * whether the member hid it and its cost.
 */
export async function myTools({ db, actor }: { db: Db; actor: Actor }) {
  const rows = await memberInstances(db, actor);
  return rows.map((i) => {
    const hidden = new Set(i.hiddenTools ?? []);
    const tools = viewTools(i, "installation").map((t) => ({
      name: t.name,
      exposedName: t.listedName,
      description: t.description,
      tokens: t.tokens,
      hidden: hidden.has(t.name),
      // Each call waits for an approver (the catalogue loads the admins' rule with the governance).
      needsApproval: i.governance?.tools[t.name]?.requiresApproval === true,
    }));
    return { installationId: i.installationId, slug: i.slug, name: i.name, status: i.status, tools };
  });
}

export async function setHidden({
  db,
  actor,
  installationId,
  toolName,
  hidden,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  toolName: string;
  hidden: boolean;
}) {
  const { teamId, userId } = actor;
  if (!(await memberHasInstance(db, { teamId, userId, installationId })))
    throw new AppError("NOT_FOUND", "Server not found.");
  await setToolHidden(db, { userId, installationId, toolName, hidden });
  await publishCatalogueChanged(db, { teamId, userId }, "hidden tools changed");
}

function cost(
  rows: MemberInstance[],
  selection: ReadonlyArray<{ installationId: string; toolName: string }>,
  toolMode: "all" | "router",
) {
  const { total } = catalogueTotals(selectToolset(rows, selection), "member");
  return toolMode === "router"
    ? { toolCount: ROUTER_TOOLS.length, tokens: routerModeTokenCost(), selectedTools: total.toolCount }
    : { toolCount: total.toolCount, tokens: total.tokens, selectedTools: total.toolCount };
}

/** The member's own toolsets and the team's, each with its route and its token cost for this member. */
export async function listToolsets({ db, actor }: { db: Db; actor: Actor }) {
  const [sets, rows] = await Promise.all([
    listToolsetsForMember(db, { teamId: actor.teamId, userId: actor.userId }),
    memberInstances(db, actor),
  ]);
  const own = new Set(sets.filter((s) => s.ownerId === actor.userId).map((s) => s.name));
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
  actor,
  ...input
}: {
  db: Db;
  actor: Actor;
  id?: string | null;
  name: string;
  description: string;
  teamWide: boolean;
  toolMode: "all" | "router";
  tools: Array<{ installationId: string; toolName: string }>;
}) {
  const { teamId } = actor;
  const isAdmin = isTeamAdminRole(actor.role);
  if (!TOOLSET_NAME_PATTERN.test(input.name))
    throw new AppError(
      "INVALID_INPUT",
      "Use lowercase letters, digits and single dashes for the toolset's name (it becomes part of its URL).",
    );
  if (input.teamWide && !isAdmin)
    throw new AppError("FORBIDDEN", "Only team admins can make toolsets for the whole team.");
  const installations = new Set(await listInstallationIdsOfTeam(db, { teamId }));
  const foreign = input.tools.find((t) => !installations.has(t.installationId));
  if (foreign) throw new AppError("NOT_FOUND", "One of the selected servers is not installed in this team.");
  const ownerId = input.teamWide ? null : actor.userId;
  const existing = input.id ? await findTeamToolset(db, { teamId, toolsetId: input.id }) : null;
  if (input.id && (!existing || (existing.ownerId !== actor.userId && !(existing.ownerId === null && isAdmin)))) {
    throw new AppError("NOT_FOUND", "Toolset not found.");
  }
  if (await toolsetNameTaken(db, { teamId, ownerId, name: input.name, exceptId: existing?.id }))
    throw new AppError(
      "CONFLICT",
      `${input.teamWide ? "The team" : "You"} already ${input.teamWide ? "has" : "have"} a toolset named “${input.name}”.`,
    );
  const tools = [...new Map(input.tools.map((t) => [`${t.installationId}\n${t.toolName}`, t])).values()];
  const actorLabel = input.teamWide ? await findUserLabel(db, actor.userId) : "";
  const saved = await db.$transaction(async (tx) => {
    const set = await writeToolset(tx, {
      id: existing?.id,
      teamId,
      name: input.name,
      description: input.description,
      toolMode: input.toolMode,
      ownerId,
      tools,
    });
    if (input.teamWide) {
      await insertGovernanceAudit(tx, {
        teamId,
        actorId: actor.userId,
        actorLabel,
        action: "toolset_saved",
        target: input.name,
        detail: { tools, toolMode: input.toolMode },
      });
    }
    return set;
  });
  await publishCatalogueChanged(db, input.teamWide ? { teamId } : { teamId, userId: actor.userId }, "toolset changed");
  return { id: saved.id };
}

/** Deleting a toolset deletes the tokens limited to it (they never widen to everything). */
export async function deleteToolset({ db, actor, toolsetId }: { db: Db; actor: Actor; toolsetId: string }) {
  const { teamId } = actor;
  const set = await findTeamToolset(db, { teamId, toolsetId });
  if (!set || (set.ownerId !== actor.userId && !(set.ownerId === null && isTeamAdminRole(actor.role))))
    throw new AppError("NOT_FOUND", "Toolset not found.");
  await deleteToolsetRow(db, set.id);
  if (set.ownerId === null) {
    const actorLabel = await findUserLabel(db, actor.userId);
    await insertGovernanceAudit(db, {
      teamId,
      actorId: actor.userId,
      actorLabel,
      action: "toolset_deleted",
      target: set.name,
    });
  }
  return { tokenIds: set.tokens.map((t) => t.id) };
}
