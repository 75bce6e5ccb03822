import { redisChannels } from "@switchboard/core/contracts";
import { createLiveEvent, type EventPayload } from "@switchboard/core/events";
import type { Db } from "@switchboard/db/client";
import {
  listInstanceRefsOfInstallation,
  listInstanceRefsOfMember,
  listInstanceRefsOfTeam,
} from "@switchboard/db/queries/instance";
import { insertInstanceEvent } from "@switchboard/db/queries/instance-events";
import { env } from "@switchboard/runtime/env";
import { logger } from "@switchboard/runtime/logger";
import { redis } from "@switchboard/runtime/redis";

type Where = { installationId: string } | { teamId: string; userId?: string };

/**
 * Tells every affected member's MCP sessions (in every gateway process) and open console tabs that what they may
 * see changed: a `catalogue_changed` live event per instance concerned, which the route turns into
 * `notifications/tools/list_changed` (see mcp/sessions.ts). Pub/sub is best effort: the route's catalogue
 * cache also expires within seconds.
 */
export async function publishCatalogueChanged(db: Db, where: Where, reason: string): Promise<void> {
  const instances =
    "installationId" in where
      ? await listInstanceRefsOfInstallation(db, where.installationId)
      : where.userId
        ? await listInstanceRefsOfMember(db, { teamId: where.teamId, userId: where.userId })
        : await listInstanceRefsOfTeam(db, { teamId: where.teamId });
  // One event per member is enough for their sessions; the rest only refresh console tabs.
  const at = new Date();
  await Promise.all(
    instances.map((i) =>
      publish(
        "catalogue_changed",
        { teamId: i.teamId, installationId: i.installationId, instanceId: i.id, userId: i.userId },
        { reason },
        at,
      ),
    ),
  );
}

/** Records an event on the timeline of each instance of the installation and publishes it. */
export async function recordInstallationEvent<T extends "tool_review_decided">(
  db: Db,
  installationId: string,
  type: T,
  payload: EventPayload<T>,
): Promise<void> {
  const instances = await listInstanceRefsOfInstallation(db, installationId);
  const at = new Date();
  for (const i of instances) {
    await insertInstanceEvent(db, { instanceId: i.id, type, payload, at });
    await publish(type, { teamId: i.teamId, installationId, instanceId: i.id, userId: i.userId }, payload, at);
  }
}

async function publish<T extends "catalogue_changed" | "tool_review_decided">(
  type: T,
  ids: { teamId: string; installationId: string; instanceId: string; userId: string },
  payload: EventPayload<T>,
  at: Date,
): Promise<void> {
  const event = createLiveEvent(type, ids, payload, at);
  const message = JSON.stringify(event);
  const prefix = env().REDIS_PREFIX;
  try {
    await Promise.all([
      redis().publish(redisChannels.team(prefix, ids.teamId), message),
      redis().publish(redisChannels.member(prefix, ids.userId), message),
    ]);
  } catch (err) {
    logger.warn(
      { err, type },
      "could not publish a governance change; sessions see it when their catalogue cache expires",
    );
  }
}
