import type { Db } from "@switchboard/db/client";
import {
  ApproverNotMember,
  findInstallationApprovers,
  setInstallationApprovers,
  setToolRequiresApproval,
} from "@switchboard/db/queries/approvals";
import {
  findGovernedInstallation,
  insertGovernanceAudit,
  installationCatalogueItems,
  listItemSettings,
} from "@switchboard/db/queries/governance";
import { findUserLabel } from "@switchboard/db/queries/user";
import { AppError } from "../errors";
import type { Actor } from "./actor";
import { publishCatalogueChanged } from "./governance-events";
import { governanceView } from "./tool-governance.service";

/**
 * For admins: which tools of an installation need an approver's approval for each call, and who approves them
 * (named members, or the team's admins when none are named). Each change is in the governance trail.
 */

async function installationOf(db: Db, actor: Actor, installationId: string) {
  const installation = await findGovernedInstallation(db, { teamId: actor.teamId, installationId });
  if (!installation) throw new AppError("NOT_FOUND", "Server not found.");
  return installation;
}

/** Marks a tool as needing approval, or not; the gateway holds its next call (docs/approvals.md). */
export async function setToolApproval({
  db,
  actor,
  installationId,
  toolName,
  requiresApproval,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  toolName: string;
  requiresApproval: boolean;
}) {
  const installation = await installationOf(db, actor, installationId);
  const [items, settings] = await Promise.all([
    installationCatalogueItems(db, installationId),
    listItemSettings(db, installationId),
  ]);
  const known =
    items.tools.some((t) => t.name === toolName) || settings.some((s) => s.kind === "tool" && s.name === toolName);
  if (!known) throw new AppError("NOT_FOUND", `This server has no tool “${toolName}”.`);
  const actorLabel = await findUserLabel(db, actor.userId);
  await db.$transaction(async (tx) => {
    await setToolRequiresApproval(tx, { installationId, toolName, requiresApproval });
    await insertGovernanceAudit(tx, {
      teamId: actor.teamId,
      installationId,
      actorId: actor.userId,
      actorLabel,
      action: requiresApproval ? "approval_required" : "approval_not_required",
      target: `${installation.slug}/${toolName}`,
    });
  });
  // The gateway reads the governance with the catalogue: let it (and open consoles) load it again.
  await publishCatalogueChanged(db, { installationId }, "tool approval setting changed");
  return governanceView({ db, actor, installationId });
}

/** Who approves the installation's held calls: the named members, in order (empty: the team's admins). */
export async function approvers({ db, actor, installationId }: { db: Db; actor: Actor; installationId: string }) {
  await installationOf(db, actor, installationId);
  const people = (await findInstallationApprovers(db, { teamId: actor.teamId, installationId })) ?? [];
  return { installationId, approvers: people.map((p) => ({ id: p.id, name: p.name, email: p.email })) };
}

/** Names the installation's approvers (each a member of the team); an empty list gives it back to the admins. */
export async function setApprovers({
  db,
  actor,
  installationId,
  approverIds,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  approverIds: string[];
}) {
  const installation = await installationOf(db, actor, installationId);
  const actorLabel = await findUserLabel(db, actor.userId);
  try {
    await db.$transaction(async (tx) => {
      const ids = await setInstallationApprovers(tx, { teamId: actor.teamId, installationId, approverIds });
      await insertGovernanceAudit(tx, {
        teamId: actor.teamId,
        installationId,
        actorId: actor.userId,
        actorLabel,
        action: "approvers_changed",
        target: installation.slug,
        detail: { approverIds: ids },
      });
    });
  } catch (err) {
    if (err instanceof ApproverNotMember)
      throw new AppError("INVALID_INPUT", "Every approver must be a member of this team.", { cause: err });
    throw err;
  }
  return approvers({ db, actor, installationId });
}
