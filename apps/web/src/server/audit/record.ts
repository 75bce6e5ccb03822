import "server-only";
import { appendAudit, type AuditInput } from "@switchboard/db/queries/audit";
import type { Db } from "@switchboard/db/client";
import { logger } from "@switchboard/runtime/logger";
import { exportAuditRecord } from "@switchboard/runtime/audit-export";

/** Where a request came from: the first address the proxy in front saw, and the client's own name for itself. */
export function requestOrigin(headers: Headers): { ip: string | null; client: string | null } {
  const forwarded = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return {
    ip: forwarded || headers.get("x-real-ip") || null,
    client: headers.get("user-agent"),
  };
}

export function actorLabel(user: { name?: string | null; email?: string | null } | null | undefined): string {
  if (!user) return "anonymous";
  return user.name && user.email ? `${user.name} <${user.email}>` : (user.email ?? user.name ?? "unknown");
}

/**
 * Writes one audit record (and streams it to the SIEM when OTLP logs are configured). A failure to record is
 * logged, never thrown: the change it describes has already been made.
 */
export async function recordAudit(db: Db, input: AuditInput): Promise<void> {
  try {
    const written = await appendAudit(db, input);
    exportAuditRecord({ ...input, seq: written.seq, hash: written.hash });
  } catch (err) {
    logger.error({ err, action: input.action, teamId: input.teamId }, "could not write the audit record");
  }
}
