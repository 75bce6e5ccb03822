import { guardrailFindingSchema } from "@switchboard/core/guardrails/rules";
import type { JsonValue } from "@switchboard/db/client";
import { z } from "zod";
import { CALL_OUTCOMES, REQUEST_LOG_RANGE_IDS } from "~/lib/request-log";
import { id, page, paged, person, statusSchema } from "./shared.schema";

/** The ops router's inputs and answers: reconnects and restarts, and the request log. */

// --- inputs ----------------------------------------------------------------------------------------------------------

export const onInstance = z.object({ instanceId: id });
/** A bulk action over the team, or over one installation's instances. */
export const bulkInput = z.object({ installationId: id.optional() });
export const teamRequestLogInput = z.object({
  ...page,
  installationId: id.optional(),
  outcome: z.enum(CALL_OUTCOMES).optional(),
  target: z.string().trim().max(200).optional(),
  userId: id.optional(),
  range: z.enum(REQUEST_LOG_RANGE_IDS).optional(),
});
export const requestLogEntryInput = z.object({ callId: id });

// --- answers ---------------------------------------------------------------------------------------------------------

const queued = z.object({ queued: z.literal(true) });
/** A per-instance action was queued; the status it found is the baseline its outcome is read against. */
export const actionQueued = queued.extend({ status: statusSchema, statusChangedAt: z.date() });

const outcome = z.enum(CALL_OUTCOMES);
/** The token the call came with: a personal token or an OAuth client's grant (its name is the client's). */
const callToken = z.object({ name: z.string(), kind: z.enum(["personal", "oauth"]) }).nullable();

/**
 * One installation's log or (ops.teamRequestLog) the team's: each call names its server, the name the client
 * called (`requested`, null in rows older than it) and the upstream's (`target`); `total` counts every match.
 */
export const requestLogPage = paged(
  z.object({
    id: z.string(),
    createdAt: z.date(),
    installation: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
    user: person,
    token: callToken,
    method: z.string(),
    target: z.string(),
    requested: z.string().nullable(),
    durationMs: z.number(),
    attempts: z.number(),
    outcome,
  }),
).extend({ total: z.number().int() });

/** How many instances a bulk action asked the worker to act on. */
export const bulkCount = z.object({ count: z.number().int() });

export const requestLogEntry = z.object({
  id: z.string(),
  createdAt: z.date(),
  installationId: z.string(),
  user: person,
  token: callToken,
  method: z.string(),
  target: z.string(),
  requested: z.string().nullable(),
  /** The call's arguments as stored: any JSON value (typed as the database column is). */
  arguments: z.custom<JsonValue>((value) => z.json().safeParse(value).success, "not JSON"),
  resultSummary: z.string().nullable(),
  resultBytes: z.number(),
  durationMs: z.number(),
  attempts: z.number(),
  outcome,
  errorMessage: z.string().nullable(),
  guardrailFindings: z.array(guardrailFindingSchema),
});
