/**
 * Who may call which tRPC procedure: one entry per procedure of `appRouter`, read by `authz-matrix.test.ts`
 * (every procedure x every actor) and `unsafe-input.test.ts` (a NUL in every string of every procedure's input).
 * Both enumerate the router at test time, so a procedure without an entry here fails them.
 *
 * Adding a procedure (or a router): add an entry under its full path ("router.procedure") with
 *   - `input(world, actor)`: a valid input for that actor. It may create what the call acts on (a fresh
 *     template to remove, a fresh member to remove), so each actor's call meets the same state;
 *   - `expect`: the outcome for each actor, "ok" or the tRPC error code. Use the tiers below when they fit.
 * Actors: `anonymous` (no session), `outsider` (signed in, member of another team only), `member` and
 * `otherMember` (plain members of the world's team), `admin` (its owner), `deploymentOwner` (owns the deployment,
 * member of no team: the deployment settings are theirs, the teams' contents are not). Only the deployment owner
 * is one: the world gives the deployment its owner before anyone else signs up, so no other actor's sign-up
 * claims the role. `world.teamFor(actor)` is the team an actor names: the outsider names their own team, so a
 * resource of the world's team is probed across teams.
 */
import { randomBytes } from "node:crypto";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { allowCommands, makeTeam, makeUser } from "@switchboard/db/testing";
import { changeSandboxLoopbackPorts } from "@switchboard/db/queries/deployment";
import { createSsoProvider } from "@switchboard/db/queries/sso";
import { createGroupMapping } from "@switchboard/db/queries/identity-groups";
import { anonymousCaller, signedInCaller } from "./caller";
import { selfSignedCertificate } from "./certificate";
import { httpFields, seedHttpTemplate, strangerWithTeam, teamWithMember } from "./console";

export const ACTORS = ["anonymous", "outsider", "member", "otherMember", "admin", "deploymentOwner"] as const;
export type ActorName = (typeof ACTORS)[number];
export type Outcome = "ok" | TRPC_ERROR_CODE_KEY;
export type Expectations = Record<ActorName, Outcome>;

type Caller = Awaited<ReturnType<typeof anonymousCaller>>;

export interface MatrixEntry {
  input?: (world: World, actor: ActorName) => unknown | Promise<unknown>;
  expect: Expectations;
}

const unique = () => randomBytes(4).toString("hex");

let idpCertificate: string | undefined;
/** One IdP signing certificate for the matrix's SAML providers (openssl makes it once). */
function matrixCertificate(): string {
  idpCertificate ??= selfSignedCertificate("/CN=matrix-idp").cert;
  return idpCertificate;
}

/** A SAML provider of its own per call, owning a domain of its own (nothing is fetched to add it). */
async function disposableSsoProvider() {
  const id = `matrix-${unique()}`;
  return createSsoProvider(getDb(), {
    providerId: id,
    name: "Matrix IdP",
    issuer: `http://localhost:3000/api/auth/sso/saml2/sp/metadata?providerId=${id}`,
    domains: [`${id}.example.test`],
    ssoOnly: false,
    userId: "matrix",
    oidcConfig: null,
    samlConfig: JSON.stringify({ entryPoint: "http://127.0.0.1:9/sso", cert: matrixCertificate() }),
  });
}
/** A loopback port no other test names (40000-59999; none of Switchboard's own). */
const matrixPort = () => 40_000 + (randomBytes(2).readUInt16BE() % 20_000);

/** Any signed-in user. */
const SIGNED_IN: Expectations = {
  anonymous: "UNAUTHORIZED",
  outsider: "ok",
  member: "ok",
  otherMember: "ok",
  admin: "ok",
  deploymentOwner: "ok",
};
/** Any member of the team named (`teamProcedure` without a per-member resource). Owning the deployment opens no team. */
const TEAM_MEMBERS: Expectations = {
  anonymous: "UNAUTHORIZED",
  outsider: "NOT_FOUND",
  member: "ok",
  otherMember: "ok",
  admin: "ok",
  deploymentOwner: "NOT_FOUND",
};
/** Owners and admins of the team named (`teamAdminProcedure`). */
const TEAM_ADMINS: Expectations = {
  anonymous: "UNAUTHORIZED",
  outsider: "NOT_FOUND",
  member: "FORBIDDEN",
  otherMember: "FORBIDDEN",
  admin: "ok",
  deploymentOwner: "NOT_FOUND",
};
/** The member's own instance: the member and admins act on it, a teammate is refused, another team cannot see it. */
const MEMBERS_INSTANCE: Expectations = {
  anonymous: "UNAUTHORIZED",
  outsider: "NOT_FOUND",
  member: "ok",
  otherMember: "FORBIDDEN",
  admin: "ok",
  deploymentOwner: "NOT_FOUND",
};
/** Something only its owner (the member) has: tokens, personal settings, a call. Nobody else learns it exists. */
const MEMBERS_OWN: Expectations = {
  anonymous: "UNAUTHORIZED",
  outsider: "NOT_FOUND",
  member: "ok",
  otherMember: "NOT_FOUND",
  admin: "NOT_FOUND",
  deploymentOwner: "NOT_FOUND",
};
/** The deployment's settings (`deploymentOwnerProcedure`): a team owner is refused like anyone, and told nothing exists. */
const DEPLOYMENT_OWNERS: Expectations = {
  anonymous: "UNAUTHORIZED",
  outsider: "NOT_FOUND",
  member: "NOT_FOUND",
  otherMember: "NOT_FOUND",
  admin: "NOT_FOUND",
  deploymentOwner: "ok",
};

export const MATRIX: Record<string, MatrixEntry> = {
  me: {
    expect: { anonymous: "ok", outsider: "ok", member: "ok", otherMember: "ok", admin: "ok", deploymentOwner: "ok" },
  },

  "team.list": { expect: SIGNED_IN },
  "team.create": { input: () => ({ name: `Matrix ${unique()}` }), expect: SIGNED_IN },
  "team.get": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "team.members": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "team.invitations": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "team.invite": {
    input: (w) => ({ teamId: w.team.id, email: `invitee-${unique()}@example.test` }),
    expect: TEAM_ADMINS,
  },
  "team.cancelInvitation": {
    input: async (w) => ({ teamId: w.team.id, invitationId: (await w.invite()).id }),
    expect: TEAM_ADMINS,
  },
  "team.changeRole": {
    input: async (w) => ({ teamId: w.team.id, memberId: await w.disposableMember(), role: "admin" }),
    expect: TEAM_ADMINS,
  },
  "team.removeMember": {
    input: async (w) => ({ teamId: w.team.id, memberId: await w.disposableMember() }),
    expect: TEAM_ADMINS,
  },
  // Leaving and deleting act on a fresh team per call, in which the world's actors hold their usual roles (the
  // outsider and the deployment owner are not in it). Its only owner cannot leave it; only an owner deletes it.
  "team.leave": {
    input: async (w) => ({ teamId: (await w.disposableTeam()).id }),
    expect: { ...TEAM_MEMBERS, admin: "CONFLICT" },
  },
  "team.delete": {
    input: async (w) => {
      const team = await w.disposableTeam();
      return { teamId: team.id, confirmSlug: team.slug };
    },
    expect: TEAM_ADMINS,
  },

  // Anyone holding the link may read an invitation; accepting one sent to another address is refused.
  "invitation.get": {
    input: (w) => ({ invitationId: w.invitationId }),
    expect: { anonymous: "ok", outsider: "ok", member: "ok", otherMember: "ok", admin: "ok", deploymentOwner: "ok" },
  },
  "invitation.accept": {
    input: (w) => ({ invitationId: w.invitationId }),
    expect: {
      anonymous: "UNAUTHORIZED",
      outsider: "FORBIDDEN",
      member: "FORBIDDEN",
      otherMember: "FORBIDDEN",
      admin: "FORBIDDEN",
      deploymentOwner: "FORBIDDEN",
    },
  },

  "catalogue.list": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "catalogue.get": { input: (w, a) => ({ teamId: w.teamFor(a), templateId: w.templateId }), expect: TEAM_MEMBERS },
  "catalogue.create": {
    input: (w) => ({
      teamId: w.team.id,
      template: {
        slug: `m-${unique()}`,
        name: "Matrix server",
        transport: "streamable_http",
        url: "https://mcp.example.test/mcp",
      },
    }),
    expect: TEAM_ADMINS,
  },
  "catalogue.updateImpact": {
    input: async (w, a) => {
      const t = await seedHttpTemplate(w.team.id);
      return {
        teamId: w.teamFor(a),
        templateId: t.id,
        template: {
          slug: t.slug,
          name: "Matrix edit",
          transport: "streamable_http",
          url: "http://127.0.0.1:9/v2/mcp",
          fields: httpFields,
        },
      };
    },
    expect: TEAM_ADMINS,
  },
  "catalogue.update": {
    input: async (w, a) => {
      const t = await seedHttpTemplate(w.team.id);
      return {
        teamId: w.teamFor(a),
        templateId: t.id,
        template: {
          slug: t.slug,
          name: "Matrix edit",
          transport: "streamable_http",
          url: "http://127.0.0.1:9/v2/mcp",
          fields: httpFields,
        },
      };
    },
    expect: TEAM_ADMINS,
  },
  // A closed port: the test answers (readably) that nothing is there, for an admin.
  "catalogue.testConnection": {
    input: (w) => ({
      teamId: w.team.id,
      template: { slug: "probe", name: "Probe", transport: "streamable_http", url: "http://127.0.0.1:9/mcp" },
    }),
    expect: TEAM_ADMINS,
  },
  "registry.presets": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "registry.importDocument": {
    input: (w) => ({
      teamId: w.team.id,
      document: JSON.stringify({
        name: "io.example/matrix",
        remotes: [{ type: "streamable-http", url: "https://mcp.example.test/mcp" }],
      }),
    }),
    expect: TEAM_ADMINS,
  },
  // Nothing listens on port 9: the registry cannot be reached, which an admin is told.
  "registry.importFromRegistry": {
    input: (w) => ({ teamId: w.team.id, baseUrl: "http://127.0.0.1:9", name: "io.example/matrix" }),
    expect: { ...TEAM_ADMINS, admin: "SERVICE_UNAVAILABLE" },
  },
  "catalogue.remove": {
    input: async (w, a) => ({ teamId: w.teamFor(a), templateId: (await seedHttpTemplate(w.team.id)).id }),
    expect: TEAM_ADMINS,
  },

  "token.list": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "token.create": { input: (w) => ({ teamId: w.team.id, name: "matrix client" }), expect: TEAM_MEMBERS },
  "token.revoke": {
    input: async (w, a) => ({ teamId: w.teamFor(a), tokenId: await w.membersToken() }),
    expect: MEMBERS_OWN,
  },
  "token.setMode": {
    input: async (w, a) => ({ teamId: w.teamFor(a), tokenId: await w.membersToken(), mode: "router" }),
    expect: MEMBERS_OWN,
  },

  // Tool governance: admins decide per installation; members hide tools for themselves and keep their own toolsets.
  "governance.installation": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId }),
    expect: TEAM_ADMINS,
  },
  "governance.save": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId, newTools: "on" }),
    expect: TEAM_ADMINS,
  },
  "governance.review": {
    input: async (w, a) => ({
      teamId: w.teamFor(a),
      installationId: w.installationId,
      name: (await w.pendingTool()).name,
    }),
    expect: TEAM_ADMINS,
  },
  "governance.decide": {
    input: async (w, a) => ({
      teamId: w.teamFor(a),
      installationId: w.installationId,
      ...(await w.pendingTool()),
      decision: "rejected",
    }),
    expect: TEAM_ADMINS,
  },
  "governance.audit": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId }),
    expect: TEAM_ADMINS,
  },
  // The outsider names the world's team: not theirs, so NOT_FOUND.
  "governance.quotas": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  // Each member reads only their own remaining quota (the procedure takes no member id).
  "governance.quotaRefusals": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "governance.myQuotas": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "governance.setQuotas": {
    input: (w) => ({
      teamId: w.team.id,
      quotas: [
        {
          installationId: w.installationId,
          toolName: "echo",
          subject: "member",
          window: "hour",
          max: 1000,
          writeMax: null,
        },
      ],
    }),
    expect: TEAM_ADMINS,
  },
  "governance.guardrails": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId }),
    expect: TEAM_ADMINS,
  },
  "governance.setGuardrails": {
    input: (w, a) => ({
      teamId: w.teamFor(a),
      installationId: w.installationId,
      settings: { credentials: "flag", card: "off", iban: "off", email: "off", phone: "off" },
    }),
    expect: TEAM_ADMINS,
  },
  "governance.myTools": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "policies.current": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "policies.history": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "policies.choices": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "policies.check": {
    input: (w) => ({ teamId: w.team.id, text: "permit(principal, action, resource);" }),
    expect: TEAM_ADMINS,
  },
  // Saved on top of whatever version is in force (a save names the version it replaces).
  "policies.save": {
    input: async (w) => ({
      teamId: w.team.id,
      text: "permit(principal, action, resource);",
      expectedVersion: (await w.callers.admin.policies.current({ teamId: w.team.id })).version,
    }),
    expect: TEAM_ADMINS,
  },
  "policies.whatWouldHappen": {
    input: (w, a) => ({
      teamId: w.teamFor(a),
      memberUserId: w.memberUserId,
      installationId: w.installationId,
      toolName: "echo",
      arguments: { text: "hi" },
    }),
    expect: TEAM_ADMINS,
  },
  // Marking a tool as needing approval and naming its approvers: admins (the world's installation names none).
  "governance.setToolApproval": {
    input: (w, a) => ({
      teamId: w.teamFor(a),
      installationId: w.installationId,
      toolName: "echo",
      requiresApproval: true,
    }),
    expect: TEAM_ADMINS,
  },
  "governance.approvers": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId }),
    expect: TEAM_ADMINS,
  },
  "governance.setApprovers": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId, approverIds: [] }),
    expect: TEAM_ADMINS,
  },

  // Held calls: every member lists what they may see; the member's own held call is readable by its caller, the
  // team's admins and (without its arguments) a teammate. Only an approver decides, never the caller: with no
  // approvers named that is the admins, so the member (its caller) and the other member are refused.
  "approvals.list": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "approvals.waitingCount": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "approvals.get": {
    input: async (w, a) => ({ teamId: w.teamFor(a), approvalId: await w.membersHeldCall() }),
    expect: TEAM_MEMBERS,
  },
  "approvals.decide": {
    input: async (w, a) => ({
      teamId: w.teamFor(a),
      approvalId: await w.membersHeldCall(),
      decision: "approved",
      comment: "fine",
    }),
    expect: TEAM_ADMINS,
  },
  // Every actor of the world's team has an instance of the installation; the outsider names their own team.
  "governance.setHidden": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId, toolName: "echo", hidden: true }),
    expect: TEAM_MEMBERS,
  },
  "governance.toolsets": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "governance.saveToolset": {
    input: (w) => ({ teamId: w.team.id, name: `set-${unique()}`, tools: [] }),
    expect: TEAM_MEMBERS,
  },
  "governance.deleteToolset": {
    input: async (w, a) => ({ teamId: w.teamFor(a), toolsetId: await w.membersToolset() }),
    expect: MEMBERS_OWN,
  },

  "installation.list": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "installation.get": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId }),
    expect: TEAM_MEMBERS,
  },
  "installation.create": {
    input: async (w) => ({
      teamId: w.team.id,
      templateId: (await seedHttpTemplate(w.team.id)).id,
      slug: `i-${unique()}`,
      name: "Matrix install",
      values: { "X-Team-Key": "team-key" },
    }),
    expect: TEAM_ADMINS,
  },
  "installation.updateTeamValues": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId, values: { "X-Region": "us" } }),
    expect: TEAM_ADMINS,
  },
  "installation.updateSettings": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId, requestLogging: true }),
    expect: TEAM_ADMINS,
  },
  "installation.updateSandbox": {
    input: (w, a) => ({
      teamId: w.teamFor(a),
      installationId: w.stdioInstallationId,
      settings: { memoryMb: 256, processes: 32 },
    }),
    expect: TEAM_ADMINS,
  },
  "installation.oauthClient": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId }),
    expect: TEAM_ADMINS,
  },
  // The world's installation does not use OAuth: an admin passes the check and is told so.
  "installation.setOAuthClient": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId, clientId: "client" }),
    expect: { ...TEAM_ADMINS, admin: "BAD_REQUEST" },
  },
  "installation.editImpact": {
    input: (w, a) => ({
      teamId: w.teamFor(a),
      installationId: w.installationId,
      name: "Renamed",
      template: {
        slug: "remote-demo",
        name: "Remote demo",
        transport: "streamable_http",
        url: "http://127.0.0.1:9/mcp",
        fields: httpFields,
      },
    }),
    expect: TEAM_ADMINS,
  },
  "installation.edit": {
    input: async (w, a) => ({
      teamId: w.teamFor(a),
      installationId: await w.disposableInstallation(),
      name: "Renamed",
      values: { "X-Team-Key": "team-key" },
      template: {
        slug: "remote-demo",
        name: "Remote demo",
        transport: "streamable_http",
        url: "http://127.0.0.1:9/v2/mcp",
        fields: httpFields,
      },
    }),
    expect: TEAM_ADMINS,
  },
  "installation.remove": {
    input: async (w, a) => ({ teamId: w.teamFor(a), installationId: await w.disposableInstallation() }),
    expect: TEAM_ADMINS,
  },

  "instance.matrix": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "instance.overview": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "instance.ofInstallation": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId }),
    expect: TEAM_MEMBERS,
  },
  "instance.get": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId }),
    expect: MEMBERS_INSTANCE,
  },
  "instance.mine": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "instance.mineOf": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId }),
    expect: TEAM_MEMBERS,
  },
  "instance.saveMyValues": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId, values: { "X-Label": "mine" } }),
    expect: MEMBERS_OWN,
  },
  "instance.myCost": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "instance.tools": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId }),
    expect: MEMBERS_INSTANCE,
  },
  "instance.toolSchema": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId, toolId: w.toolId }),
    expect: MEMBERS_INSTANCE,
  },
  "instance.prompts": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId }),
    expect: MEMBERS_INSTANCE,
  },
  "instance.resources": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId }),
    expect: MEMBERS_INSTANCE,
  },
  "instance.resourceTemplates": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId }),
    expect: MEMBERS_INSTANCE,
  },
  "instance.events": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId }),
    expect: MEMBERS_INSTANCE,
  },

  "ops.reconnect": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId }),
    expect: MEMBERS_INSTANCE,
  },
  // The member's stopped instance: only an admin brings it back.
  "ops.restart": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersFailedInstanceId }),
    expect: { ...MEMBERS_INSTANCE, member: "FORBIDDEN" },
  },
  "ops.reconnectFailing": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "ops.restartStopped": {
    input: (w, a) => ({ teamId: w.teamFor(a), installationId: w.installationId }),
    expect: TEAM_ADMINS,
  },
  "ops.teamRequestLog": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "ops.requestLogEntry": {
    input: (w, a) => ({ teamId: w.teamFor(a), callId: w.membersCallId }),
    expect: { ...MEMBERS_OWN, admin: "ok" },
  },
  "ops.live": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "ops.requestLogLive": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },

  // Every member reads activity; what each one sees (the team or their own rows) is checked in activity-router.test.ts.
  "activity.dashboard": { input: (w) => ({ teamId: w.team.id, range: "hour" }), expect: TEAM_MEMBERS },
  "activity.usage": { input: (w) => ({ teamId: w.team.id, days: 7 }), expect: TEAM_MEMBERS },

  // OAuth is per member: nobody, admins included, authorizes on a teammate's behalf. The member passes the
  // check and the start fails on the upstream, which nothing listens for.
  "oauth.start": {
    input: (w, a) => ({ teamId: w.teamFor(a), instanceId: w.membersInstanceId }),
    expect: { ...MEMBERS_OWN, member: "SERVICE_UNAVAILABLE" },
  },
  "oauth.redirectUri": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },

  // MCP clients signing in with OAuth: anyone signed in sees what a client asks (the consent page); a grant is
  // the member's own; whether self-registered clients are accepted is the team admins' call.
  "mcpClient.consent": { input: (w) => ({ clientId: w.oauthClientId }), expect: SIGNED_IN },
  "mcpClient.approve": {
    input: (w) => ({ teamId: w.team.id, clientId: w.oauthClientId, mode: "all" }),
    expect: TEAM_MEMBERS,
  },
  "mcpClient.list": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_MEMBERS },
  "mcpClient.revoke": {
    input: async (w, a) => ({ teamId: w.teamFor(a), grantId: await w.membersGrant() }),
    expect: MEMBERS_OWN,
  },
  "mcpClient.policy": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "mcpClient.setPolicy": { input: (w) => ({ teamId: w.team.id, allowed: true }), expect: TEAM_ADMINS },

  // Whether the caller owns the deployment: anyone signed in may ask about themselves.
  "audit.list": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "audit.verify": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "audit.retention": { input: (w) => ({ teamId: w.team.id }), expect: TEAM_ADMINS },
  "audit.setRetention": {
    input: (w) => ({
      teamId: w.team.id,
      requestLogRetentionDays: 30,
      rollupRetentionDays: 400,
      auditRetentionDays: 365,
    }),
    expect: TEAM_ADMINS,
  },
  "audit.listAll": { input: () => ({}), expect: DEPLOYMENT_OWNERS },
  "audit.verifyDeployment": { expect: DEPLOYMENT_OWNERS },
  "deployment.access": { expect: SIGNED_IN },
  "deployment.settings": { expect: DEPLOYMENT_OWNERS },
  // The test environment fixes SIGNUP_MODE (as an operator would): the owner passes the check and is told to
  // change it there.
  "deployment.setSignupMode": {
    input: () => ({ mode: "invite_only" }),
    expect: { ...DEPLOYMENT_OWNERS, deploymentOwner: "CONFLICT" },
  },
  // The loopback ports are the whole run's too: the matrix adds and removes only ports of its own.
  "deployment.addSandboxLoopbackPort": { input: () => ({ port: matrixPort() }), expect: DEPLOYMENT_OWNERS },
  "deployment.removeSandboxLoopbackPort": {
    input: async (w) => ({ port: await w.loopbackPort() }),
    expect: DEPLOYMENT_OWNERS,
  },
  "deployment.teams": { input: () => ({}), expect: DEPLOYMENT_OWNERS },
  "deployment.setTeamStdio": {
    input: async (w) => ({ teamId: (await w.disposableTeam()).id, allowed: true }),
    expect: DEPLOYMENT_OWNERS,
  },
  "deployment.owners": { expect: DEPLOYMENT_OWNERS },
  "deployment.addOwner": { input: async () => ({ email: (await makeUser(getDb())).email }), expect: DEPLOYMENT_OWNERS },
  // A fresh second owner per call: the world's owner stays one.
  "deployment.removeOwner": {
    input: async () => ({ userId: (await makeUser(getDb(), { deploymentOwner: true })).id }),
    expect: DEPLOYMENT_OWNERS,
  },
  // The allow-list is the whole run's: the matrix adds and removes only programs of its own.
  "deployment.addAllowedCommand": {
    input: () => ({ entry: { kind: "executable", name: `matrix-${unique()}` } }),
    expect: DEPLOYMENT_OWNERS,
  },
  "deployment.removeAllowedCommand": {
    input: async (w) => ({ entry: await w.allowedCommand() }),
    expect: DEPLOYMENT_OWNERS,
  },

  "sso.providers": { expect: DEPLOYMENT_OWNERS },
  "sso.addProvider": {
    input: () => {
      const id = `matrix-${unique()}`;
      return {
        protocol: "saml",
        name: "Matrix IdP",
        providerId: id,
        domains: `${id}.example.test`,
        entityId: `https://idp.example.test/${id}`,
        ssoUrl: "https://idp.example.test/sso",
        certificate: matrixCertificate(),
      };
    },
    expect: DEPLOYMENT_OWNERS,
  },
  "sso.updateProvider": {
    input: async () => ({ id: (await disposableSsoProvider()).id, name: "Matrix IdP renamed" }),
    expect: DEPLOYMENT_OWNERS,
  },
  "sso.removeProvider": { input: async () => ({ id: (await disposableSsoProvider()).id }), expect: DEPLOYMENT_OWNERS },
  "sso.testProvider": { input: async () => ({ id: (await disposableSsoProvider()).id }), expect: DEPLOYMENT_OWNERS },
  // Enterprise identity providers (ID-JAG): a fresh disabled one per call, so no call sees another's.
  "enterpriseIdp.list": { expect: DEPLOYMENT_OWNERS },
  "enterpriseIdp.add": { input: () => matrixIdp(), expect: DEPLOYMENT_OWNERS },
  "enterpriseIdp.update": {
    input: async () => ({ ...matrixIdp(), issuerId: await matrixIdpId() }),
    expect: DEPLOYMENT_OWNERS,
  },
  "enterpriseIdp.setEnabled": {
    input: async () => ({ issuerId: await matrixIdpId(), enabled: false }),
    expect: DEPLOYMENT_OWNERS,
  },
  "enterpriseIdp.remove": { input: async () => ({ issuerId: await matrixIdpId() }), expect: DEPLOYMENT_OWNERS },
  "enterpriseIdp.test": { input: async () => ({ issuerId: await matrixIdpId() }), expect: DEPLOYMENT_OWNERS },
  // Mappings of a provider of the matrix's own, on a team of its own: no other test's members move.
  "identity.groupMappings": { expect: DEPLOYMENT_OWNERS },
  "identity.addGroupMapping": {
    input: async (w) => ({
      providerId: "matrix",
      groupName: `matrix-${unique()}`,
      teamId: (await w.disposableTeam()).id,
      role: "member",
    }),
    expect: DEPLOYMENT_OWNERS,
  },
  "identity.removeGroupMapping": {
    input: async (w) => {
      const team = await w.disposableTeam();
      const mapping = await createGroupMapping(getDb(), {
        providerId: "matrix",
        groupName: `matrix-${unique()}`,
        teamId: team.id,
        role: "member",
        createdById: null,
      });
      return { teamId: team.id, mappingId: mapping.id };
    },
    expect: DEPLOYMENT_OWNERS,
  },
  // The deployment's one SCIM token: the SCIM tests' helper makes a new one when it finds theirs rotated or revoked.
  "identity.scimToken": { expect: DEPLOYMENT_OWNERS },
  "identity.createScimToken": { expect: DEPLOYMENT_OWNERS },
  "identity.revokeScimToken": { expect: DEPLOYMENT_OWNERS },
};

function matrixIdp() {
  const id = unique();
  return {
    name: `Matrix IdP ${id}`,
    issuer: `https://idp-${id}.example/`,
    jwksUrl: "http://127.0.0.1:9/jwks",
    memberClaim: "sub" as const,
    accountProviderId: null,
  };
}

async function matrixIdpId() {
  const { accountProviderId: _, ...data } = matrixIdp();
  return (await getDb().enterpriseIdpIssuer.create({ data })).id;
}

/**
 * A team with an owner and two members, an outsider with a team of their own, and one of each resource the
 * procedures act on. The member's instance is `offline` (reconnectable); a second one is `permanently_failed`.
 */
export async function createWorld() {
  const db = getDb();
  // First, so that none of the other actors' sign-ups becomes the deployment's first owner.
  const deploymentOwner = await signedInCaller("deployment-owner");
  await db.user.update({ where: { id: deploymentOwner.userId }, data: { deploymentOwner: true } });
  const { admin, member, team } = await teamWithMember();
  const otherMember = await signedInCaller("other-member");
  const inv = await admin.caller.team.invite({ teamId: team.id, email: otherMember.email });
  await otherMember.caller.invitation.accept({ invitationId: inv.id });
  const { stranger: outsider, team: outsidersTeam } = await strangerWithTeam();

  const everyone = {
    [admin.userId]: { "X-Api-Key": "a" },
    [member.userId]: { "X-Api-Key": "m" },
    [otherMember.userId]: { "X-Api-Key": "o" },
  };
  const template = await seedHttpTemplate(team.id);
  const installation = await seedInstallation(db, {
    template,
    teamValues: { "X-Team-Key": "team-secret-value-0001" },
    memberValues: everyone,
  });
  const membersInstance = await db.instance.findFirstOrThrow({
    where: { installationId: installation.id, userId: member.userId },
  });
  await db.instance.update({ where: { id: membersInstance.id }, data: { status: "offline" } });
  const tool = await db.instanceTool.create({
    data: { instanceId: membersInstance.id, name: "echo", inputSchema: { type: "object" }, tokenCount: 3, position: 0 },
  });
  const call = await db.toolCallLog.create({
    data: {
      teamId: team.id,
      installationId: installation.id,
      instanceId: membersInstance.id,
      userId: member.userId,
      method: "tools/call",
      target: "echo",
      arguments: {},
      durationMs: 1,
      outcome: "success",
    },
  });

  const failed = await seedInstallation(db, {
    template: await seedHttpTemplate(team.id),
    teamValues: { "X-Team-Key": "team-secret-value-0002" },
    memberValues: everyone,
  });
  const membersFailed = await db.instance.findFirstOrThrow({
    where: { installationId: failed.id, userId: member.userId },
  });
  await db.instance.update({ where: { id: membersFailed.id }, data: { status: "permanently_failed" } });

  // A local-command installation: the one kind with a sandbox to set.
  const stdioTemplate = await seedTemplate(db, {
    teamId: team.id,
    slug: `stdio-${unique()}`,
    name: "Local demo",
    transport: "stdio",
    command: "node",
    args: ["server.js"],
  });
  const stdioInstallation = await seedInstallation(db, { template: stdioTemplate, slug: `s-${unique()}` });

  // An MCP client registered with the authorization server (as dynamic registration leaves it).
  const oauthClient = await db.oauthClient.create({
    data: {
      id: `oc-${unique()}`,
      clientId: `client-${unique()}`,
      name: "Matrix client",
      redirectUris: ["http://127.0.0.1:9/callback"],
      tokenEndpointAuthMethod: "none",
      createdAt: new Date(),
    },
  });

  // An invitation to somebody who is not one of the actors.
  const invitation = await admin.caller.team.invite({ teamId: team.id, email: `someone-${unique()}@example.test` });

  const callers: Record<ActorName, Caller> = {
    anonymous: await anonymousCaller(),
    outsider: outsider.caller,
    member: member.caller,
    otherMember: otherMember.caller,
    admin: admin.caller,
    deploymentOwner: deploymentOwner.caller,
  };

  return {
    team,
    callers,
    templateId: template.id,
    installationId: installation.id,
    stdioInstallationId: stdioInstallation.id,
    membersInstanceId: membersInstance.id,
    membersFailedInstanceId: membersFailed.id,
    toolId: tool.id,
    membersCallId: call.id,
    invitationId: invitation.id,
    memberUserId: member.userId,
    teamFor: (actor: ActorName) => (actor === "outsider" ? outsidersTeam.id : team.id),
    invite: () => admin.caller.team.invite({ teamId: team.id, email: `pending-${unique()}@example.test` }),
    membersToken: async () => (await member.caller.token.create({ teamId: team.id, name: `t-${unique()}` })).id,
    membersToolset: async () =>
      (await member.caller.governance.saveToolset({ teamId: team.id, name: `set-${unique()}`, tools: [] })).id,
    /** A tool of the installation whose new definition waits for review (a fresh one per call). */
    pendingTool: async () => {
      const name = `tool-${unique()}`;
      const hash = randomBytes(32).toString("hex");
      await db.installationItemSetting.create({
        data: {
          installationId: installation.id,
          kind: "tool",
          name,
          definition: { name, description: "new" },
          definitionHash: hash,
        },
      });
      return { name, hash };
    },
    /** A fresh pending approval request of a call the member made to the installation's `echo` tool. */
    membersHeldCall: async () =>
      (
        await db.toolApproval.create({
          data: {
            teamId: team.id,
            installationId: installation.id,
            callerId: member.userId,
            toolName: "echo",
            requested: "echo",
            arguments: { text: "hello" },
            argumentsHash: randomBytes(32).toString("hex"),
            policyVersion: "default",
            reason: "An admin marked this tool as needing approval.",
            expiresAt: new Date(Date.now() + 3_600_000),
          },
        })
      ).id,
    oauthClientId: oauthClient.clientId,
    /** A fresh grant of the member to the world's OAuth client (each replaces the last). */
    membersGrant: async () =>
      (await member.caller.mcpClient.approve({ teamId: team.id, clientId: oauthClient.clientId, mode: "all" })).grantId,
    /** A plain member added straight to the database (no sign-in needed): the target of role changes and removals. */
    disposableMember: async () => {
      const user = await db.user.create({
        data: { id: `u-${unique()}`, name: "Disposable", email: `disposable-${unique()}@example.test` },
      });
      return (
        await db.membership.create({ data: { id: `m-${unique()}`, teamId: team.id, userId: user.id, role: "member" } })
      ).id;
    },
    /** A team of its own per call (owner: the admin; members: the member and the other member), to leave or delete. */
    disposableTeam: async () => {
      const fresh = await makeTeam(db, { id: admin.userId }, { stdioAllowed: false });
      for (const userId of [member.userId, otherMember.userId]) {
        await db.membership.create({ data: { id: `m-${unique()}`, teamId: fresh.id, userId, role: "member" } });
      }
      return fresh;
    },
    /** A program of the matrix's own put on the deployment's allow-list (straight in the database), to remove. */
    allowedCommand: async () => {
      const entry = { kind: "executable" as const, name: `matrix-${unique()}` };
      await allowCommands(db, [entry]);
      return entry;
    },
    /** A port of the matrix's own on the deployment's loopback list (straight in the database), to remove. */
    loopbackPort: async () => {
      const port = matrixPort();
      await changeSandboxLoopbackPorts(db, { userId: "test", change: (current) => [...current, port] });
      return port;
    },
    disposableInstallation: async () =>
      (await seedInstallation(db, { template: await seedHttpTemplate(team.id), slug: `d-${unique()}` })).id,
  };
}

export type World = Awaited<ReturnType<typeof createWorld>>;

/** Calls `path` ("router.procedure") on a caller the way the client would, by walking the caller's proxy. */
export async function callProcedure(caller: Caller, path: string, input: unknown): Promise<unknown> {
  let target: unknown = caller;
  for (const part of path.split(".")) target = (target as Record<string, unknown>)[part];
  const result = await (target as (input: unknown) => Promise<unknown>)(input);
  // A subscription answers an async iterable once its checks passed: close it rather than leave it listening.
  if (result && typeof result === "object" && Symbol.asyncIterator in result) {
    await (result as AsyncIterable<unknown>)[Symbol.asyncIterator]().return?.(undefined);
  }
  return result;
}

/** "ok" or the tRPC code the call failed with; anything that is not a tRPC error is rethrown. */
export async function outcomeOf(caller: Caller, path: string, input: unknown): Promise<Outcome> {
  try {
    await callProcedure(caller, path, input);
    return "ok";
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if ((err as Error).name === "TRPCError" && typeof code === "string") return code as TRPC_ERROR_CODE_KEY;
    throw err;
  }
}
