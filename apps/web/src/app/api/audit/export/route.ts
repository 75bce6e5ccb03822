import { isTeamAdminRole } from "@switchboard/core/accounts";
import { csvField } from "@switchboard/core/csv";
import { getDb } from "@switchboard/db/client";
import { streamAudit, type AuditFilter } from "@switchboard/db/queries/audit";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";
import { findMembership } from "@switchboard/db/queries/team";
import { getSession } from "~/server/auth";

export const dynamic = "force-dynamic";

const COLUMNS = [
  "createdAt",
  "chain",
  "seq",
  "actorLabel",
  "actorId",
  "action",
  "targetType",
  "targetId",
  "targetLabel",
  "ip",
  "client",
  "before",
  "after",
  "detail",
  "hash",
] as const;

/** One CSV line: dates as ISO 8601, JSON columns as JSON text. */
const csvLine = (values: readonly unknown[]) =>
  `${values
    .map((v) =>
      csvField(
        v instanceof Date ? v.toISOString() : v !== null && typeof v === "object" ? JSON.stringify(v) : (v as string),
      ),
    )
    .join(",")}\r\n`;

const text = (status: number, message: string) =>
  new Response(`${message}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

function dateParam(v: string | null): Date | undefined {
  if (!v) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/**
 * The audit trail as CSV or JSON Lines, oldest first, streamed a batch at a time: `?teamId=` (the team's admins),
 * or without it every chain (deployment owners); the Audit page's filters as query parameters.
 */
export async function GET(request: Request) {
  const session = await getSession(request.headers);
  if (!session) return text(401, "Sign in to export the audit trail.");
  const url = new URL(request.url);
  const format = url.searchParams.get("format") === "jsonl" ? "jsonl" : "csv";
  const teamId = url.searchParams.get("teamId");
  const db = getDb();
  if (teamId) {
    const membership = await findMembership(db, { teamId, userId: session.user.id });
    if (!membership) return text(404, "Team not found.");
    if (!isTeamAdminRole(membership.role)) return text(403, "Only team owners and admins can export the audit trail.");
  } else if (!(await isDeploymentOwner(db, session.user.id))) {
    return text(404, "Not found.");
  }
  const p = url.searchParams;
  const filter: AuditFilter = {
    ...(teamId ? { teamId } : p.get("scope") === "deployment" ? { teamId: null } : {}),
    actor: p.get("actor")?.slice(0, 200) || undefined,
    action: p.get("action")?.slice(0, 200) || undefined,
    target: p.get("target")?.slice(0, 200) || undefined,
    from: dateParam(p.get("from")),
    to: dateParam(p.get("to")),
  };
  const encoder = new TextEncoder();
  const records = streamAudit(db, filter);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (format === "csv") controller.enqueue(encoder.encode(csvLine(COLUMNS)));
    },
    async pull(controller) {
      const next = await records.next();
      if (next.done) return controller.close();
      const r = next.value;
      const line =
        format === "csv"
          ? csvLine(COLUMNS.map((c) => r[c]))
          : `${JSON.stringify(Object.fromEntries(COLUMNS.map((c) => [c, r[c]])))}\n`;
      controller.enqueue(encoder.encode(line));
    },
    async cancel() {
      await records.return(undefined);
    },
  });
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="switchboard-audit-${stamp}.${format === "csv" ? "csv" : "jsonl"}"`,
      "cache-control": "no-store",
    },
  });
}
