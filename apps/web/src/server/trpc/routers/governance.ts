import * as approvalSettings from "../../services/approval-settings.service";
import * as governance from "../../services/tool-governance.service";
import * as quotas from "../../services/tool-quota.service";
import * as guardrails from "../../services/guardrails.service";
import * as toolsets from "../../services/toolset.service";
import { invalidateAccess } from "@switchboard/runtime/invalidations";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import * as schema from "./governance.schema";
import { ok } from "./shared.schema";

/**
 * Tool governance: admins choose what each installation exposes and review pinned tools' changes; members hide
 * tools within that and build toolsets. What changes reaches connected clients as `list_changed`.
 */
export const governanceRouter = createTRPCRouter({
  installation: teamAdminProcedure
    .input(schema.onInstallation)
    .output(schema.governanceView)
    .query(({ ctx, input }) =>
      governance.governanceView({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  save: teamAdminProcedure
    .input(schema.saveInput)
    .output(schema.governanceView)
    .mutation(({ ctx, input }) => governance.saveGovernance({ ...input, db: ctx.db, actor: ctx.actor })),

  review: teamAdminProcedure
    .input(schema.reviewInput)
    .output(schema.toolReview)
    .query(({ ctx, input }) =>
      governance.toolReview({ db: ctx.db, actor: ctx.actor, installationId: input.installationId, name: input.name }),
    ),

  decide: teamAdminProcedure
    .input(schema.decideInput)
    .output(schema.governanceView)
    .mutation(({ ctx, input }) => governance.decideReview({ ...input, db: ctx.db, actor: ctx.actor })),

  /** Each call to the tool waits for an approver's approval, or no longer does (docs/approvals.md). */
  setToolApproval: teamAdminProcedure
    .input(schema.setToolApprovalInput)
    .output(schema.governanceView)
    .mutation(({ ctx, input }) => approvalSettings.setToolApproval({ ...input, db: ctx.db, actor: ctx.actor })),

  /** Who approves the installation's held calls: named members (empty: the team's admins). */
  approvers: teamAdminProcedure
    .input(schema.onInstallation)
    .output(schema.approvers)
    .query(({ ctx, input }) =>
      approvalSettings.approvers({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  setApprovers: teamAdminProcedure
    .input(schema.setApproversInput)
    .output(schema.approvers)
    .mutation(({ ctx, input }) => approvalSettings.setApprovers({ ...input, db: ctx.db, actor: ctx.actor })),

  /** The team's quotas on tool calls (none: no limit); docs/quotas.md. */
  quotas: teamAdminProcedure
    .output(schema.toolQuotas)
    .query(({ ctx }) => quotas.listQuotas({ db: ctx.db, actor: ctx.actor })),

  setQuotas: teamAdminProcedure
    .input(schema.setQuotasInput)
    .output(schema.toolQuotas)
    .mutation(({ ctx, input }) => quotas.setQuotas({ db: ctx.db, actor: ctx.actor, quotas: input.quotas })),

  /** An installation's guardrails: an action per category of credentials and personal data; docs/guardrails.md. */
  guardrails: teamAdminProcedure
    .input(schema.onInstallation)
    .output(schema.guardrails)
    .query(({ ctx, input }) =>
      guardrails.guardrails({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  setGuardrails: teamAdminProcedure
    .input(schema.setGuardrailsInput)
    .output(schema.guardrails)
    .mutation(({ ctx, input }) => guardrails.setGuardrails({ db: ctx.db, actor: ctx.actor, ...input })),

  /** The caller's own remaining quota: every limit that applies to them, used and when it resets. */
  myQuotas: teamProcedure.output(schema.myQuotas).query(({ ctx }) => quotas.myQuotas({ db: ctx.db, actor: ctx.actor })),

  /** Recent calls refused by a quota, from the request log's blocked rows; keyset pages. */
  quotaRefusals: teamAdminProcedure
    .input(schema.quotaRefusalsInput)
    .output(schema.quotaRefusals)
    .query(({ ctx, input }) => quotas.quotaRefusals({ ...input, db: ctx.db, actor: ctx.actor })),

  audit: teamAdminProcedure
    .input(schema.auditInput)
    .output(schema.auditTrail)
    .query(({ ctx, input }) =>
      governance.auditTrail({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  myTools: teamProcedure.output(schema.myTools).query(({ ctx }) => toolsets.myTools({ db: ctx.db, actor: ctx.actor })),

  setHidden: teamProcedure
    .input(schema.setHiddenInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await toolsets.setHidden({ ...input, db: ctx.db, actor: ctx.actor });
      return { ok: true };
    }),

  toolsets: teamProcedure
    .output(schema.toolsets)
    .query(({ ctx }) => toolsets.listToolsets({ db: ctx.db, actor: ctx.actor })),

  saveToolset: teamProcedure
    .input(schema.saveToolsetInput)
    .output(schema.savedToolset)
    .mutation(({ ctx, input }) => toolsets.saveToolset({ ...input, db: ctx.db, actor: ctx.actor })),

  deleteToolset: teamProcedure
    .input(schema.deleteToolsetInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      const { tokenIds } = await toolsets.deleteToolset({ db: ctx.db, actor: ctx.actor, toolsetId: input.toolsetId });
      // Its tokens went with it: no gateway process may keep serving them from its cache.
      await Promise.all(tokenIds.map((tokenId) => invalidateAccess({ tokenId })));
      return { ok: true };
    }),
});
