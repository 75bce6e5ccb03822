import "server-only";
import { csvLine, type CsvColumn } from "@switchboard/core/csv";
import type { Db } from "@switchboard/db/client";
import { streamCallLogs, type ExportedCallLog } from "@switchboard/db/queries/call-log";
import type { Actor } from "./actor";
import { requestLogScope, type RequestLogFilter } from "./ops.service";

/** The request log's CSV: what the page's table shows, plus the reason of a failure or refusal. */
const COLUMNS: ReadonlyArray<CsvColumn<ExportedCallLog>> = [
  { header: "time", value: (r) => r.createdAt.toISOString() },
  { header: "server", value: (r) => r.installation.name },
  { header: "member", value: (r) => r.user.name },
  { header: "email", value: (r) => r.user.email },
  { header: "client", value: (r) => (r.token?.kind === "oauth" ? r.token.name : null) },
  { header: "method", value: (r) => r.method },
  { header: "called as", value: (r) => r.requested ?? r.target },
  { header: "upstream name", value: (r) => r.target },
  { header: "outcome", value: (r) => r.outcome },
  { header: "duration ms", value: (r) => r.durationMs },
  { header: "attempts", value: (r) => r.attempts },
  { header: "result bytes", value: (r) => r.resultBytes },
  { header: "reason", value: (r) => r.errorMessage },
];

/**
 * Every call of the team's request log that the page's filters match and `actor` may read (a member: their own),
 * newest first, as CSV lines: the header, then a batch of rows at a time, so a large log is never held whole.
 */
export async function* requestLogCsv({
  db,
  actor,
  filter,
}: {
  db: Db;
  actor: Actor;
  filter: RequestLogFilter;
}): AsyncGenerator<string> {
  yield csvLine(COLUMNS.map((c) => c.header));
  for await (const row of streamCallLogs(db, requestLogScope(actor, filter)))
    yield csvLine(COLUMNS.map((c) => c.value(row)));
}
