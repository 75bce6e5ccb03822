import { readGuardrailFindings } from "@switchboard/core/guardrails/rules";
import "server-only";
import type { Db } from "@switchboard/db/client";
import { countCallLogs, findCallLog, listCallLogs, type CallLogFilter } from "@switchboard/db/queries/call-log";
import { rangeStart, type CallOutcome, type RequestLogRange } from "~/lib/request-log";
import { isTeamAdminRole, memberScope } from "@switchboard/core/accounts";
import { isReconnectable, type InstanceStatus } from "@switchboard/core/status";
import { AppError } from "../errors";
import { enqueueForceReconnect, enqueueRestart } from "@switchboard/runtime/jobs";
import { instanceForActor, type Actor } from "./instance-access";

/**
 * "Reconnect now": the worker cancels the scheduled retry and tries at once. The result arrives as live events;
 * the answer carries the status as it was when the job was queued, so the console can tell the job's own
 * change (started, back online, still failing) from what it had already seen.
 */
export async function reconnect({ db, actor, instanceId }: { db: Db; actor: Actor; instanceId: string }) {
  const instance = await instanceForActor(db, actor, instanceId);
  if (!isReconnectable(instance.status)) {
    throw new AppError("CONFLICT", notReconnectable(instance.status));
  }
  await enqueueForceReconnect({ instanceId, requestedBy: actor.userId });
  return queuedFrom(instance);
}

function notReconnectable(status: string): string {
  if (status === "awaiting_user_config") return "This server waits for its personal settings; save them to start it.";
  if (status === "permanently_failed")
    return "This server crashed repeatedly and was stopped. An admin must restart it.";
  return "The server is already connecting.";
}

/**
 * Restart is the way out of permanently_failed (crash history cleared); the worker starts the process again.
 * Admins only: a member's server that keeps crashing stays stopped until an admin has looked at it.
 */
export async function restart({ db, actor, instanceId }: { db: Db; actor: Actor; instanceId: string }) {
  const instance = await instanceForActor(db, actor, instanceId);
  if (!isTeamAdminRole(actor.role))
    throw new AppError("FORBIDDEN", "Only team owners and admins can restart a stopped server.");
  if (instance.status !== "permanently_failed") {
    throw new AppError(
      "CONFLICT",
      "Only a server stopped after repeated crashes needs a restart; use Reconnect otherwise.",
    );
  }
  await enqueueRestart({ instanceId, requestedBy: actor.userId });
  return queuedFrom(instance);
}

function queuedFrom(instance: { status: string; statusChangedAt: Date }) {
  return {
    queued: true as const,
    status: instance.status as InstanceStatus,
    statusChangedAt: instance.statusChangedAt,
  };
}

export interface RequestLogFilter {
  installationId?: string;
  outcome?: CallOutcome;
  target?: string;
  userId?: string;
  range?: RequestLogRange;
}

/**
 * The stored filter of what `actor` may read of the team's request log: admins every member's calls (or the
 * member they name), a member their own whatever member they name; a range ends now.
 */
export function requestLogScope(actor: Actor, filter: RequestLogFilter): CallLogFilter {
  return {
    teamId: actor.teamId,
    installationId: filter.installationId,
    outcome: filter.outcome,
    target: filter.target,
    userId: isTeamAdminRole(actor.role) ? filter.userId : actor.userId,
    from: rangeStart(filter.range, Date.now()),
  };
}

/** The team's request log across servers, newest first, with the same filters, and how many calls match. */
export async function teamRequestLog({
  db,
  actor,
  filter,
  cursor,
  limit,
}: {
  db: Db;
  actor: Actor;
  filter: RequestLogFilter;
  cursor?: string | null;
  limit: number;
}) {
  const scope = requestLogScope(actor, filter);
  const [page, total] = await Promise.all([listCallLogs(db, { ...scope, cursor, limit }), countCallLogs(db, scope)]);
  return { ...page, total };
}

export async function requestLogEntry({ db, actor, callId }: { db: Db; actor: Actor; callId: string }) {
  const entry = await findCallLog(db, {
    teamId: actor.teamId,
    callId,
    userId: memberScope(actor),
  });
  if (!entry) throw new AppError("NOT_FOUND", "Request not found.");
  // What the guardrails found (category, where, count: never the value), typed for the console.
  return { ...entry, guardrailFindings: readGuardrailFindings(entry.guardrailFindings) };
}
