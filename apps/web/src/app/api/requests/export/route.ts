import { getDb } from "@switchboard/db/client";
import { findMembership } from "@switchboard/db/queries/team";
import { isCallOutcome, isRequestLogRange } from "~/lib/request-log";
import { getSession } from "~/server/auth";
import { requestLogCsv } from "~/server/services/request-log-export";

export const dynamic = "force-dynamic";

const text = (status: number, message: string) =>
  new Response(`${message}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

/**
 * The request log as CSV, with the Requests page's filters as query parameters (`teamId`, `installationId`,
 * `userId`, `outcome`, `target`, `range`): every matching call, not only the loaded pages. Admins export every
 * member's calls, a member their own.
 */
export async function GET(request: Request) {
  const session = await getSession(request.headers);
  if (!session) return text(401, "Sign in to export the request log.");
  const p = new URL(request.url).searchParams;
  const teamId = p.get("teamId") ?? "";
  const db = getDb();
  const membership = teamId ? await findMembership(db, { teamId, userId: session.user.id }) : null;
  if (!membership) return text(404, "Team not found.");
  const outcome = p.get("outcome") ?? "";
  const range = p.get("range") ?? "";
  const lines = requestLogCsv({
    db,
    actor: { teamId, userId: session.user.id, role: membership.role },
    filter: {
      installationId: p.get("installationId")?.slice(0, 200) || undefined,
      userId: p.get("userId")?.slice(0, 200) || undefined,
      outcome: isCallOutcome(outcome) ? outcome : undefined,
      target: p.get("target")?.trim().slice(0, 200) || undefined,
      range: isRequestLogRange(range) ? range : undefined,
    },
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="switchboard-requests-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
}
