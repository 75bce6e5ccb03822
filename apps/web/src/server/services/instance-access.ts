import "server-only";
import type { Db } from "@switchboard/db/client";
import { findTeamInstance } from "@switchboard/db/queries/instance-views";
import { isTeamAdminRole } from "@switchboard/core/accounts";
import { AppError } from "../errors";

import type { Actor } from "./actor";

export type { Actor };

/**
 * The instance if the actor may act on it: admins on any instance of their team, members on their own.
 * Another team's instance answers NOT_FOUND (its existence is not revealed); a teammate's FORBIDDEN.
 */
export async function instanceForActor(db: Db, actor: Actor, instanceId: string) {
  const instance = await findTeamInstance(db, { teamId: actor.teamId, instanceId });
  if (!instance) throw new AppError("NOT_FOUND", "Server instance not found.");
  if (instance.userId !== actor.userId && !isTeamAdminRole(actor.role)) {
    throw new AppError("FORBIDDEN", "You can only act on your own server instances.");
  }
  return instance;
}
