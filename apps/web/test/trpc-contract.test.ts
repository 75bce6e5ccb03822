/**
 * The console's API contract: every procedure declares the shape of what it takes and of what it answers
 * (subscriptions excepted: tRPC validates no output of theirs), and every output schema says exactly what its
 * service returns. tRPC strips what an output schema does not list, so a field the schema forgot would vanish
 * from the answer without an error: the `sameShape` lines below fail the typecheck (`npm run typecheck`) instead.
 */
import type { inferRouterOutputs } from "@trpc/server";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { startOAuth } from "~/server/oauth/flow.service";
import type * as tokens from "~/server/services/access-token.service";
import type * as catalogue from "~/server/services/catalogue.service";
import type * as deployment from "~/server/services/deployment.service";
import type * as sso from "~/server/services/sso.service";
import type * as enterpriseIdps from "~/server/services/enterprise-idp.service";
import type * as oauthClients from "~/server/services/installation-oauth.service";
import type * as installations from "~/server/services/installation.service";
import type * as instances from "~/server/services/instance.service";
import type * as ops from "~/server/services/ops.service";
import type * as overviews from "~/server/services/overview.service";
import type * as teams from "~/server/services/team.service";
import type * as governance from "~/server/services/tool-governance.service";
import type * as approvalSettings from "~/server/services/approval-settings.service";
import type * as approvals from "~/server/services/approval.service";
import type * as quotas from "~/server/services/tool-quota.service";
import type * as guardrails from "~/server/services/guardrails.service";
import type * as identityGroups from "~/server/services/identity-groups.service";
import type * as scim from "~/server/services/scim.service";
import type * as toolsets from "~/server/services/toolset.service";
import type * as policies from "~/server/services/policies.service";
import { deploymentOwnerProcedure, teamInput } from "~/server/trpc/init";
import { appRouter, type AppRouter } from "~/server/trpc/root";
import type { templateInput } from "~/server/trpc/routers/shared.schema";

interface ProcedureDef {
  type: "query" | "mutation" | "subscription";
  inputs: unknown[];
  middlewares: unknown[];
  output?: unknown;
}

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>).map(
  ([path, procedure]) => ({ path, def: procedure._def }),
);

describe("tRPC procedures", () => {
  it("all declare an input schema", () => {
    expect(procedures.length).toBeGreaterThan(40);
    expect(procedures.filter((p) => p.def.inputs.length === 0).map((p) => p.path)).toEqual([]);
  });

  it("take a teamId only where the caller was checked for that team: its members' tiers, or a deployment owner's", () => {
    // The audit trail files a mutation in the chain of the team its input names, and services trust a teamId
    // they are given: a signed-in stranger's procedure must never take one.
    const namesTeam = (schema: unknown) => "teamId" in ((schema as { shape?: object }).shape ?? {});
    const ownerCheck = (deploymentOwnerProcedure as unknown as { _def: ProcedureDef })._def.middlewares.at(-1);
    const checked = (def: ProcedureDef) => def.inputs.includes(teamInput) || def.middlewares.includes(ownerCheck);
    expect(procedures.filter((p) => p.def.inputs.includes(teamInput)).length).toBeGreaterThan(40);
    const loose = procedures.filter((p) => p.def.inputs.some(namesTeam) && !checked(p.def));
    expect(loose.map((p) => p.path)).toEqual([]);
  });

  it("all but subscriptions declare an output schema", () => {
    const missing = procedures.filter((p) => p.def.type !== "subscription" && p.def.output === undefined);
    expect(missing.map((p) => p.path)).toEqual([]);
  });
});

// ---- type level: each output schema and its service's return type describe the same value ----------------

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Out = inferRouterOutputs<AppRouter>;
type Returns<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** Compiles only when A and B are assignable to each other (a missing or extra field, a wrong type: an error). */
function sameShape<A, B>(
  ..._proof: Same<A, B> extends true ? [] : ["the output schema and the service's type differ"]
): void {}

// A service declares what it takes; the router's input schema parses into exactly that.
sameShape<z.output<typeof templateInput>, catalogue.TemplateInput>();

sameShape<Out["catalogue"]["list"], Returns<typeof catalogue.list>>();
sameShape<Out["catalogue"]["get"], Returns<typeof catalogue.get>>();
sameShape<Out["catalogue"]["create"], Returns<typeof catalogue.create>>();

sameShape<Out["installation"]["list"], Returns<typeof installations.list>>();
sameShape<Out["installation"]["get"], Returns<typeof installations.get>>();
sameShape<Out["installation"]["create"], Returns<typeof installations.create>>();
sameShape<Out["installation"]["updateTeamValues"], Returns<typeof installations.updateTeamValues>>();
sameShape<Out["installation"]["updateSettings"], Returns<typeof installations.updateSettings>>();
sameShape<Out["installation"]["updateSandbox"], Returns<typeof installations.updateSandbox>>();
sameShape<Out["installation"]["oauthClient"], Returns<typeof oauthClients.get>>();
sameShape<Out["installation"]["setOAuthClient"], Returns<typeof oauthClients.set>>();

sameShape<Out["instance"]["matrix"], Returns<typeof instances.matrix>>();
sameShape<Out["instance"]["ofInstallation"], Returns<typeof instances.ofInstallation>>();
sameShape<Out["instance"]["get"], Returns<typeof instances.get>>();
sameShape<Out["instance"]["mine"], Returns<typeof instances.mine>>();
sameShape<Out["instance"]["mineOf"], Returns<typeof instances.mineOf>>();
sameShape<Out["instance"]["saveMyValues"], Returns<typeof instances.saveMyValues>>();
sameShape<Out["instance"]["myCost"], Returns<typeof instances.myCost>>();
sameShape<Out["instance"]["tools"], Returns<typeof instances.tools>>();
sameShape<Out["instance"]["toolSchema"], Returns<typeof instances.toolSchema>>();
sameShape<Out["instance"]["resources"], Returns<typeof instances.resources>>();
sameShape<Out["instance"]["resourceTemplates"], Returns<typeof instances.resourceTemplates>>();
sameShape<Out["instance"]["events"], Returns<typeof instances.events>>();
sameShape<Out["instance"]["prompts"], Returns<typeof instances.prompts>>();
sameShape<Out["instance"]["overview"], Returns<typeof overviews.overview>>();

sameShape<Out["ops"]["reconnect"], Returns<typeof ops.reconnect>>();
sameShape<Out["ops"]["restart"], Returns<typeof ops.restart>>();
sameShape<Out["ops"]["requestLogEntry"], Returns<typeof ops.requestLogEntry>>();
sameShape<Out["ops"]["teamRequestLog"], Returns<typeof ops.teamRequestLog>>();
sameShape<Out["ops"]["reconnectFailing"], Returns<typeof overviews.reconnectFailing>>();
sameShape<Out["ops"]["restartStopped"], Returns<typeof overviews.restartStopped>>();

sameShape<Out["team"]["list"], Returns<typeof teams.listTeams>>();
sameShape<Out["team"]["create"], Returns<typeof teams.createTeam>>();
sameShape<Out["team"]["members"], Returns<typeof teams.getMembers>>();
sameShape<Out["team"]["invitations"], Returns<typeof teams.getPendingInvitations>>();
sameShape<Out["team"]["invite"], Returns<typeof teams.inviteMember>>();
sameShape<Out["invitation"]["get"], Returns<typeof teams.describeInvitation>>();
sameShape<Out["invitation"]["accept"], Returns<typeof teams.acceptInvitation>>();

sameShape<Out["token"]["list"], Returns<typeof tokens.list>>();
sameShape<Out["token"]["create"], Returns<typeof tokens.create>>();

sameShape<Out["oauth"]["start"], Returns<typeof startOAuth>>();

sameShape<Out["deployment"]["settings"], Returns<typeof deployment.getSettings>>();
sameShape<Out["deployment"]["setSignupMode"], Returns<typeof deployment.setSignupMode>>();
sameShape<Out["deployment"]["addSandboxLoopbackPort"], Returns<typeof deployment.addSandboxLoopbackPort>>();
sameShape<Out["deployment"]["removeSandboxLoopbackPort"], Returns<typeof deployment.removeSandboxLoopbackPort>>();
sameShape<Out["deployment"]["teams"], Returns<typeof deployment.listTeams>>();
sameShape<Out["deployment"]["setTeamStdio"], Returns<typeof deployment.setTeamStdio>>();
sameShape<Out["sso"]["providers"], Returns<typeof sso.listProviders>>();
sameShape<Out["sso"]["addProvider"], Returns<typeof sso.addProvider>>();
sameShape<Out["sso"]["updateProvider"], Returns<typeof sso.updateProvider>>();
sameShape<Out["sso"]["removeProvider"], Returns<typeof sso.removeProvider>>();
sameShape<Out["sso"]["testProvider"], Returns<typeof sso.testProvider>>();
sameShape<Out["deployment"]["owners"], Returns<typeof deployment.listOwners>>();
sameShape<Out["deployment"]["addOwner"], Returns<typeof deployment.addOwner>>();
sameShape<Out["deployment"]["removeOwner"], Returns<typeof deployment.removeOwner>>();
sameShape<Out["enterpriseIdp"]["list"], Returns<typeof enterpriseIdps.list>>();
sameShape<Out["enterpriseIdp"]["add"], Returns<typeof enterpriseIdps.add>>();
sameShape<Out["enterpriseIdp"]["update"], Returns<typeof enterpriseIdps.update>>();
sameShape<Out["enterpriseIdp"]["setEnabled"], Returns<typeof enterpriseIdps.setEnabled>>();
sameShape<Out["enterpriseIdp"]["remove"], Returns<typeof enterpriseIdps.remove>>();
sameShape<Out["enterpriseIdp"]["test"], Returns<typeof enterpriseIdps.test>>();
sameShape<Out["deployment"]["addAllowedCommand"], Returns<typeof deployment.addAllowedCommand>>();
sameShape<Out["deployment"]["removeAllowedCommand"], Returns<typeof deployment.removeAllowedCommand>>();

sameShape<Out["identity"]["groupMappings"], Returns<typeof identityGroups.listMappings>>();
sameShape<Out["identity"]["addGroupMapping"], Returns<typeof identityGroups.addMapping>>();
sameShape<Out["identity"]["removeGroupMapping"], Returns<typeof identityGroups.removeMapping>>();
sameShape<Out["identity"]["scimToken"], Returns<typeof scim.getScimToken>>();
sameShape<Out["identity"]["createScimToken"], Returns<typeof scim.createScimToken>>();

sameShape<Out["governance"]["installation"], Returns<typeof governance.governanceView>>();
sameShape<Out["governance"]["save"], Returns<typeof governance.saveGovernance>>();
sameShape<Out["governance"]["review"], Returns<typeof governance.toolReview>>();
sameShape<Out["governance"]["decide"], Returns<typeof governance.decideReview>>();
sameShape<Out["governance"]["quotas"], Returns<typeof quotas.listQuotas>>();
sameShape<Out["governance"]["setQuotas"], Returns<typeof quotas.setQuotas>>();
sameShape<Out["governance"]["myQuotas"], Returns<typeof quotas.myQuotas>>();
sameShape<Out["governance"]["guardrails"], Returns<typeof guardrails.guardrails>>();
sameShape<Out["governance"]["setGuardrails"], Returns<typeof guardrails.setGuardrails>>();
sameShape<Out["governance"]["quotaRefusals"], Returns<typeof quotas.quotaRefusals>>();
sameShape<Out["policies"]["current"], Returns<typeof policies.currentPolicies>>();
sameShape<Out["policies"]["history"], Returns<typeof policies.policyHistory>>();
sameShape<Out["policies"]["check"], Returns<typeof policies.checkPolicyText>>();
sameShape<Out["policies"]["save"], Returns<typeof policies.savePolicies>>();
sameShape<Out["policies"]["choices"], Returns<typeof policies.panelChoices>>();
sameShape<Out["policies"]["whatWouldHappen"], Returns<typeof policies.whatWouldHappen>>();
sameShape<Out["governance"]["audit"], Returns<typeof governance.auditTrail>>();
sameShape<Out["governance"]["setToolApproval"], Returns<typeof approvalSettings.setToolApproval>>();
sameShape<Out["governance"]["approvers"], Returns<typeof approvalSettings.approvers>>();
sameShape<Out["governance"]["setApprovers"], Returns<typeof approvalSettings.setApprovers>>();
sameShape<Out["approvals"]["list"], Returns<typeof approvals.listApprovals>>();
sameShape<Out["approvals"]["waitingCount"], Returns<typeof approvals.waitingCount>>();
sameShape<Out["approvals"]["get"], Returns<typeof approvals.getApproval>>();
sameShape<Out["approvals"]["decide"], Returns<typeof approvals.decide>>();
sameShape<Out["governance"]["myTools"], Returns<typeof toolsets.myTools>>();
sameShape<Out["governance"]["toolsets"], Returns<typeof toolsets.listToolsets>>();
sameShape<Out["governance"]["saveToolset"], Returns<typeof toolsets.saveToolset>>();
