import "server-only";
import type { DbTx } from "@switchboard/db/client";
import { listToolsRequiringApproval } from "@switchboard/db/queries/approvals";
import { resolveGuardrails } from "@switchboard/core/guardrails/rules";
import { listTeamToolQuotas } from "@switchboard/db/queries/quota";
import { currentTeamPolicySet } from "@switchboard/db/queries/policy";
import { getSsoProvider } from "@switchboard/db/queries/sso";

/**
 * What a change looked like before and after, for the audit trail: for each mutation that edits a stored thing,
 * a loader of that thing's state (secrets and configuration values by key only; the trail masks the rest). The
 * audit middleware (./record.ts) runs the loader around the procedure. A mutation without one records its masked
 * input as "after".
 */
type Snapshot = (db: DbTx, input: Record<string, unknown>, teamId: string | null) => Promise<unknown>;

const str = (v: unknown) => (typeof v === "string" ? v : null);

async function installation(db: DbTx, input: Record<string, unknown>, teamId: string | null) {
  const id = str(input.installationId);
  if (!id || !teamId) return null;
  const row = await db.installation.findFirst({
    where: { id, teamId },
    select: {
      name: true,
      slug: true,
      requestLogging: true,
      sandbox: true,
      newTools: true,
      pinTools: true,
      oauthClientId: true,
      oauthClientSecretEnc: true,
      values: { select: { key: true } },
      template: { select: { url: true, command: true, args: true, transport: true, description: true } },
    },
  });
  if (!row) return null;
  const { values, oauthClientSecretEnc, template, ...rest } = row;
  return {
    ...rest,
    ...template,
    oauthClientSecret: oauthClientSecretEnc ? "set" : "not set",
    teamValuesSet: values.map((v) => v.key).sort(),
  };
}

async function template(db: DbTx, input: Record<string, unknown>, teamId: string | null) {
  const id = str(input.templateId) ?? str(input.id);
  if (!id || !teamId) return null;
  return db.serverTemplate.findFirst({
    where: { id, teamId },
    select: {
      slug: true,
      name: true,
      description: true,
      transport: true,
      command: true,
      args: true,
      url: true,
      oauth: true,
    },
  });
}

async function membership(db: DbTx, input: Record<string, unknown>, teamId: string | null) {
  const id = str(input.memberId);
  if (!id || !teamId) return null;
  return db.membership.findFirst({
    where: { id, teamId },
    select: { role: true, user: { select: { email: true, name: true } } },
  });
}

async function deployment(db: DbTx) {
  return db.deploymentSettings.findUnique({
    where: { id: 1 },
    select: { signupMode: true, commandAllowList: true, sandboxLoopbackPorts: true },
  });
}

async function team(db: DbTx, _input: Record<string, unknown>, teamId: string | null) {
  if (!teamId) return null;
  return db.team.findUnique({
    where: { id: teamId },
    select: {
      name: true,
      slug: true,
      stdioAllowed: true,
      oauthDynamicClientsAllowed: true,
      requestLogRetentionDays: true,
      rollupRetentionDays: true,
      auditRetentionDays: true,
    },
  });
}

/** An SSO provider as the console shows it (never its client secret; a new secret shows as a changed date). */
async function ssoProvider(db: DbTx, input: Record<string, unknown>) {
  const id = str(input.id);
  return id ? getSsoProvider(db, { id }) : null;
}

async function enterpriseIdp(db: DbTx, input: Record<string, unknown>) {
  const id = str(input.issuerId);
  if (!id) return null;
  return db.enterpriseIdpIssuer.findUnique({
    where: { id },
    select: { name: true, issuer: true, jwksUrl: true, memberClaim: true, accountProviderId: true, enabled: true },
  });
}

/** The team's quotas on tool calls, as an admin reads them (the list `governance.setQuotas` replaces). */
async function quotas(db: DbTx, _input: Record<string, unknown>, teamId: string | null) {
  return teamId ? listTeamToolQuotas(db, { teamId }) : null;
}

/** The team's policies in force (version and text; null text: the defaults), as `policies.save` replaces them. */
async function policies(db: DbTx, _input: Record<string, unknown>, teamId: string | null) {
  const saved = teamId ? await currentTeamPolicySet(db, { teamId }) : null;
  return saved ? { version: saved.version, text: saved.text, hash: saved.hash } : null;
}

/** A held call as its decision changes it: state, decider and comment (never the call's arguments). */
async function approval(db: DbTx, input: Record<string, unknown>, teamId: string | null) {
  const id = str(input.approvalId);
  if (!id || !teamId) return null;
  return db.toolApproval.findFirst({
    where: { id, teamId },
    select: {
      toolName: true,
      state: true,
      comment: true,
      argumentsHash: true,
      expiresAt: true,
      caller: { select: { email: true } },
      decidedBy: { select: { email: true } },
      installation: { select: { slug: true } },
    },
  });
}

/** Who approves an installation's held calls and which of its tools need approval. */
async function approvalSettings(db: DbTx, input: Record<string, unknown>, teamId: string | null) {
  const id = str(input.installationId);
  if (!id || !teamId) return null;
  const row = await db.installation.findFirst({ where: { id, teamId }, select: { slug: true, approverIds: true } });
  if (!row) return null;
  return { ...row, toolsRequiringApproval: await listToolsRequiringApproval(db, id) };
}

/** An installation's guardrail settings as an admin reads them (what `governance.setGuardrails` replaces). */
async function guardrails(db: DbTx, input: Record<string, unknown>, teamId: string | null) {
  const id = str(input.installationId);
  if (!id || !teamId) return null;
  const row = await db.installation.findFirst({ where: { id, teamId }, select: { guardrails: true } });
  // A list, not an object: the trail masks a key named like "credentials" (audit `maskForAudit`).
  return row
    ? Object.entries(resolveGuardrails(row.guardrails)).map(([category, action]) => ({ category, action }))
    : null;
}

export const AUDIT_SNAPSHOTS: Record<string, Snapshot> = {
  "installation.updateTeamValues": installation,
  "installation.updateSettings": installation,
  "installation.updateSandbox": installation,
  "installation.setOAuthClient": installation,
  "installation.edit": installation,
  "installation.remove": installation,
  "catalogue.update": template,
  "catalogue.remove": template,
  "team.changeRole": membership,
  "team.removeMember": membership,
  "audit.setRetention": team,
  "governance.setQuotas": quotas,
  "policies.save": policies,
  "governance.setToolApproval": approvalSettings,
  "governance.setApprovers": approvalSettings,
  "approvals.decide": approval,
  "governance.setGuardrails": guardrails,
  "mcpClient.setPolicy": team,
  "deployment.setSignupMode": deployment,
  "deployment.addSandboxLoopbackPort": deployment,
  "deployment.removeSandboxLoopbackPort": deployment,
  "deployment.addAllowedCommand": deployment,
  "deployment.removeAllowedCommand": deployment,
  "sso.updateProvider": ssoProvider,
  "sso.removeProvider": ssoProvider,
  "enterpriseIdp.update": enterpriseIdp,
  "enterpriseIdp.setEnabled": enterpriseIdp,
  "enterpriseIdp.remove": enterpriseIdp,
};
