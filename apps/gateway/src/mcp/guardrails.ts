import {
  guardrailGate,
  resolveGuardrails,
  type GuardedCall,
  type GuardrailFinding,
  type GuardrailGate,
  type GuardrailSettings,
} from "@switchboard/core/guardrails";
import { getDb } from "@switchboard/db/client";
import { appendAudit } from "@switchboard/db/queries/audit";
import { findInstallationGuardrails } from "@switchboard/db/queries/governance";
import { findUserLabel } from "@switchboard/db/queries/user";
import { exportAuditRecord } from "@switchboard/runtime/audit-export";
import { logger } from "@switchboard/runtime/logger";
import { routeMetrics } from "../metrics";

/**
 * Guardrails on the route (core `guardrailGate`): an installation's settings are read from PostgreSQL and kept
 * here for a few seconds, like the team's quotas; what they find goes to the metrics and the team's audit trail
 * (category, rule, where and count: never the matched value), and with the call to the request log.
 */

/** How long this process keeps an installation's guardrail settings: an admin's change applies within this time. */
export const GUARDRAIL_SETTINGS_TTL_MS = 5_000;

const settings = new Map<string, { at: number; value: Promise<GuardrailSettings> }>();

function installationGuardrails(installationId: string): Promise<GuardrailSettings> {
  const hit = settings.get(installationId);
  if (hit && Date.now() - hit.at < GUARDRAIL_SETTINGS_TTL_MS) return hit.value;
  const value = findInstallationGuardrails(getDb(), installationId).then(resolveGuardrails);
  settings.set(installationId, { at: Date.now(), value });
  value.catch(() => settings.delete(installationId));
  return value;
}

/** The audit action of a call's findings. */
export const GUARDRAIL_AUDIT_ACTION = "guardrail_finding";

async function auditFindings(teamId: string, call: GuardedCall, findings: readonly GuardrailFinding[]) {
  const db = getDb();
  const input = {
    teamId,
    actorId: call.userId,
    actorLabel: await findUserLabel(db, call.userId),
    action: GUARDRAIL_AUDIT_ACTION,
    targetType: "installation",
    targetId: call.installationId,
    targetLabel: call.installation,
    detail: {
      kind: call.kind,
      target: call.target,
      where: call.where,
      findings: findings.map((f) => ({ ...f })),
    },
  };
  const written = await appendAudit(db, input);
  exportAuditRecord({ ...input, seq: written.seq, hash: written.hash });
}

/** The guardrail gate of one member's session (their team's audit trail gets the findings). */
export function memberGuardrails(member: { teamId: string }): GuardrailGate {
  return guardrailGate({
    source: { settings: installationGuardrails },
    report(call, findings) {
      const metrics = routeMetrics();
      for (const f of findings)
        metrics?.guardrailFinding(
          { installation: call.installation, category: f.category, action: f.action, where: f.where },
          f.count,
        );
      // Off the call's path: the audit chain's lock must not hold up the member's answer.
      void auditFindings(member.teamId, call, findings).catch((err: unknown) =>
        logger.error({ err, installationId: call.installationId }, "could not write the guardrail audit record"),
      );
    },
    onError: (err, call) =>
      logger.warn({ err, installationId: call.installationId }, "guardrails unavailable: call not scanned"),
  });
}

/** Forgets the kept settings (tests; an admin's change otherwise applies within GUARDRAIL_SETTINGS_TTL_MS). */
export function forgetGuardrailSettings(): void {
  settings.clear();
}
