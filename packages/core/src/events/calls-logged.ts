import { z } from "zod";

/**
 * Published by a gateway process after it wrote a batch of request-log rows: which member's calls to which
 * installation, and how many. No call content (targets, arguments, results): a console tab only learns that its
 * request log has new rows, then reads them through its own authorized query.
 */
export const callsLoggedSchema = z.object({
  teamId: z.string().min(1),
  calls: z
    .array(
      z.object({
        installationId: z.string().min(1),
        userId: z.string().min(1),
        count: z.number().int().positive(),
      }),
    )
    .min(1),
  at: z.iso.datetime({ offset: true }),
});

export type CallsLogged = z.infer<typeof callsLoggedSchema>;

/** The batch's rows counted per team, then per installation and member: one message per team. */
export function countLoggedCalls(
  rows: ReadonlyArray<{ teamId: string; installationId: string; userId: string }>,
  at: Date = new Date(),
): CallsLogged[] {
  const teams = new Map<string, Map<string, CallsLogged["calls"][number]>>();
  for (const row of rows) {
    let calls = teams.get(row.teamId);
    if (!calls) teams.set(row.teamId, (calls = new Map()));
    const key = `${row.installationId}\n${row.userId}`;
    const entry = calls.get(key);
    if (entry) entry.count++;
    else calls.set(key, { installationId: row.installationId, userId: row.userId, count: 1 });
  }
  return [...teams].map(([teamId, calls]) => ({ teamId, calls: [...calls.values()], at: at.toISOString() }));
}
