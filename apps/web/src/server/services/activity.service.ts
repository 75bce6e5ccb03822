import { memberScope } from "@switchboard/core/accounts";
import {
  ACTIVITY_RANGES,
  summarizeActivity,
  summarizeBy,
  type ActivityRange,
  type ActivitySummary,
} from "@switchboard/core/activity";
import { STATUS_LABELS } from "@switchboard/core/status";
import type { Db } from "@switchboard/db/client";
import { listActivity, listInstanceStatuses, type ActivityRow } from "@switchboard/db/queries/activity";
import type { Actor } from "./actor";

const DAY_MS = 24 * 60 * 60_000;

/** Admins read the whole team's roll-ups; a member only their own rows (the filter is in the query). */
const scope = memberScope;

const floorTo = (ms: number, stepMs: number) => Math.floor(ms / stepMs) * stepMs;

/** Calls per minute over a span. */
const perMinute = (calls: number, spanMs: number) => calls / (spanMs / 60_000);

function withRate(summary: ActivitySummary, spanMs: number) {
  return { ...summary, perMinute: perMinute(summary.calls, spanMs) };
}

/**
 * The activity dashboard: read from the roll-ups only (minute rows for the hour and day, day rows for the week),
 * never from the request log. Points on the time axis are filled with zeros where nothing happened.
 */
export async function activityDashboard({
  db,
  actor,
  range,
  now = new Date(),
}: {
  db: Db;
  actor: Actor;
  range: ActivityRange;
  now?: Date;
}) {
  const { spanMs, stepMs, source } = ACTIVITY_RANGES[range];
  const end = floorTo(now.getTime(), stepMs) + stepMs;
  const start = end - Math.ceil(spanMs / stepMs) * stepMs;
  const userId = scope(actor);
  const rows = await listActivity(db, { teamId: actor.teamId, userId, since: new Date(start), source });
  const spanCovered = end - start;

  const byStep = new Map<number, ActivityRow[]>();
  for (const r of rows) {
    const t = floorTo(r.bucket.getTime(), stepMs);
    const list = byStep.get(t);
    if (list) list.push(r);
    else byStep.set(t, [r]);
  }
  const series = [];
  for (let t = start; t < end; t += stepMs) {
    const s = summarizeActivity(byStep.get(t) ?? []);
    series.push({ at: new Date(t), ...s, perMinute: perMinute(s.calls, stepMs) });
  }

  const servers = summarizeBy(rows, (r) => r.installationId).map((g) => ({
    installationId: g.first.installationId,
    name: g.first.installationName,
    ...withRate(g.summary, spanCovered),
  }));
  const members = summarizeBy(rows, (r) => r.userId).map((g) => ({
    userId: g.first.userId,
    name: g.first.userName,
    ...withRate(g.summary, spanCovered),
  }));
  const tools = summarizeBy(rows, (r) => JSON.stringify([r.installationId, r.method, r.target])).map((g) => ({
    key: g.key,
    installationId: g.first.installationId,
    server: g.first.installationName,
    method: g.first.method,
    target: g.first.target,
    ...withRate(g.summary, spanCovered),
  }));
  const slowest = [...tools]
    .filter((t) => t.p95Ms !== null)
    .sort((a, b) => b.p95Ms! - a.p95Ms! || b.calls - a.calls)
    .slice(0, 10);

  // Failing instances: the member's instance of a server that answered errors in the range, with its status now.
  const statuses = await listInstanceStatuses(db, { teamId: actor.teamId, userId });
  const statusOf = new Map(statuses.map((s) => [`${s.installationId}/${s.userId}`, s]));
  const failing = summarizeBy(rows, (r) => `${r.installationId}/${r.userId}`)
    .filter((g) => g.summary.errors > 0)
    .sort((a, b) => b.summary.errors - a.summary.errors || b.summary.errorRate - a.summary.errorRate)
    .slice(0, 20)
    .map((g) => {
      const instance = statusOf.get(g.key);
      return {
        instanceId: instance?.id ?? null,
        installationId: g.first.installationId,
        server: g.first.installationName,
        userId: g.first.userId,
        member: g.first.userName,
        status: instance ? STATUS_LABELS[instance.status] : null,
        calls: g.summary.calls,
        errors: g.summary.errors,
        errorRate: g.summary.errorRate,
      };
    });

  return {
    range,
    stepMs,
    from: new Date(start),
    to: new Date(end),
    scope: userId ? ("own" as const) : ("team" as const),
    total: withRate(summarizeActivity(rows), spanCovered),
    series,
    servers,
    members,
    topTools: tools.slice(0, 10),
    slowestTools: slowest,
    tools,
    failing,
  };
}

/**
 * Usage per member by UTC day, from the day roll-ups: calls, errors, and the bytes and estimated tokens tools
 * returned, per member, server and tool. A member sees their own rows only.
 */
export async function memberUsage({
  db,
  actor,
  days,
  now = new Date(),
}: {
  db: Db;
  actor: Actor;
  days: number;
  now?: Date;
}) {
  const since = new Date(floorTo(now.getTime(), DAY_MS) - (days - 1) * DAY_MS);
  const rows = await listActivity(db, { teamId: actor.teamId, userId: scope(actor), since, source: "day" });
  return {
    since,
    scope: scope(actor) ? ("own" as const) : ("team" as const),
    rows: rows
      .map((r) => ({
        day: r.bucket.toISOString().slice(0, 10),
        userId: r.userId,
        member: r.userName,
        installationId: r.installationId,
        server: r.installationName,
        method: r.method,
        target: r.target,
        calls: r.calls,
        errors: r.errors,
        resultBytes: r.resultBytes,
        resultTokens: r.resultTokens,
      }))
      .sort(
        (a, b) =>
          b.day.localeCompare(a.day) ||
          a.member.localeCompare(b.member) ||
          a.server.localeCompare(b.server) ||
          a.target.localeCompare(b.target),
      ),
  };
}
