import "server-only";
import type { Db } from "@switchboard/db/client";
import { actorLabel, recordAudit, requestOrigin } from "./record";
import { AUDIT_SNAPSHOTS } from "./snapshots";

/**
 * Mutations that change nothing stored (or record their own, richer entry): each with the reason. Every other
 * mutation is recorded by `auditMutation`, so a new procedure is in the trail without anyone remembering to add it.
 */
export const AUDIT_EXEMPT: Readonly<Record<string, string>> = {
  "catalogue.testConnection": "tries a connection; changes nothing",
  "audit.verify": "reads the chain; changes nothing",
  "audit.verifyDeployment": "reads the chain; changes nothing",
  "sso.testProvider": "fetches the provider's discovery document or metadata; changes nothing",
  "enterpriseIdp.test": "fetches an identity provider's JWKS; changes nothing",
  "policies.check": "checks a policy text against the schema; changes nothing",
  "policies.whatWouldHappen": "decides an imagined call; changes nothing",
};

/** The input key that names what a procedure acts on, and what that thing is called in the trail. */
const TARGET_KEYS: ReadonlyArray<[key: string, type: string]> = [
  ["installationId", "installation"],
  ["instanceId", "instance"],
  ["templateId", "server_template"],
  ["memberId", "member"],
  ["invitationId", "invitation"],
  ["tokenId", "token"],
  ["toolsetId", "toolset"],
  ["clientId", "oauth_client"],
  ["grantId", "oauth_grant"],
  ["issuerId", "enterprise_idp"],
  ["mappingId", "group_mapping"],
  ["approvalId", "tool_approval"],
];

function targetOf(input: Record<string, unknown>, result: unknown) {
  for (const [key, type] of TARGET_KEYS) {
    const v = input[key];
    if (typeof v === "string") return { targetType: type, targetId: v };
  }
  const id = (result as { id?: unknown } | null)?.id;
  return typeof id === "string" ? { targetType: null, targetId: id } : { targetType: null, targetId: null };
}

function labelOf(snapshot: unknown, input: Record<string, unknown>): string | null {
  const s = (snapshot ?? {}) as Record<string, unknown>;
  const user = s.user as { email?: string } | undefined;
  for (const v of [s.name, s.slug, user?.email, input.name, input.slug, input.email]) {
    if (typeof v === "string" && v) return v;
  }
  return null;
}

async function safely<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch {
    return null;
  }
}

/**
 * Runs one mutation and records it in the audit trail when it succeeds: who, from where, what, on which target,
 * with before/after snapshots where a loader exists (./snapshots.ts) and the masked input otherwise.
 */
export async function auditMutation<R extends { ok: boolean; data?: unknown }>(args: {
  db: Db;
  path: string;
  headers: Headers;
  user: { id: string; name?: string | null; email?: string | null } | null;
  rawInput: unknown;
  next: () => Promise<R>;
}): Promise<R> {
  const { db, path, headers, user } = args;
  if (path in AUDIT_EXEMPT) return args.next();
  const input = (args.rawInput && typeof args.rawInput === "object" ? args.rawInput : {}) as Record<string, unknown>;
  const teamId = typeof input.teamId === "string" ? input.teamId : null;
  const snapshot = AUDIT_SNAPSHOTS[path];
  const before = snapshot ? await safely(() => snapshot(db, input, teamId)) : null;
  const result = await args.next();
  if (!result.ok) return result;
  const data = result.data;
  // A new team's first record goes into its own chain.
  const chainTeam = teamId ?? (path === "team.create" ? ((data as { id?: string } | null)?.id ?? null) : null);
  const after = snapshot ? await safely(() => snapshot(db, input, chainTeam)) : null;
  const { teamId: _t, ...rest } = input;
  await recordAudit(db, {
    teamId: chainTeam,
    actorId: user?.id ?? null,
    actorLabel: actorLabel(user),
    action: path,
    ...targetOf(input, data),
    targetLabel: labelOf(after ?? before, input),
    before: snapshot ? before : null,
    after: snapshot ? after : Object.keys(rest).length ? rest : null,
    ...requestOrigin(headers),
  });
  return result;
}
