import { z } from "zod";
import { TOOLSET_NAME_MAX } from "@switchboard/core/governance";
import * as approvalSettings from "../../services/approval-settings.service";
import * as governance from "../../services/tool-governance.service";
import * as quotas from "../../services/tool-quota.service";
import * as guardrails from "../../services/guardrails.service";
import * as toolsets from "../../services/toolset.service";
import { invalidateAccess } from "@switchboard/runtime/invalidations";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import { id } from "./console.schema";
import * as out from "./governance.schema";
import { ok } from "./outputs.schema";

const itemName = z.string().min(1).max(500);
const toolMode = z.enum(["all", "router"]);

/**
 * Tool governance: admins choose what each installation exposes and review pinned tools' changes; members hide
 * tools within that and build toolsets. What changes reaches connected clients as `list_changed`.
 */
export const governanceRouter = createTRPCRouter({
  installation: teamAdminProcedure
    .input(z.object({ installationId: id }))
    .output(out.governanceView)
    .query(({ ctx, input }) =>
      governance.governanceView({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  save: teamAdminProcedure
    .input(
      z.object({
        installationId: id,
        tools: z
          .array(
            z.object({
              name: itemName,
              enabled: z.boolean().optional(),
              exposedName: z.string().trim().max(200).nullable().optional(),
              exposedDescription: z.string().trim().max(4000).nullable().optional(),
            }),
          )
          .max(2000)
          .optional(),
        prompts: z
          .array(z.object({ name: itemName, enabled: z.boolean() }))
          .max(2000)
          .optional(),
        resourceTemplates: z
          .array(z.object({ uriTemplate: itemName, enabled: z.boolean() }))
          .max(2000)
          .optional(),
        newTools: z.enum(["on", "off_until_reviewed"]).optional(),
        pinTools: z.boolean().optional(),
      }),
    )
    .output(out.governanceView)
    .mutation(({ ctx, input }) => governance.saveGovernance({ ...input, db: ctx.db, actor: ctx.actor })),

  review: teamAdminProcedure
    .input(z.object({ installationId: id, name: itemName }))
    .output(out.toolReview)
    .query(({ ctx, input }) =>
      governance.toolReview({ db: ctx.db, actor: ctx.actor, installationId: input.installationId, name: input.name }),
    ),

  decide: teamAdminProcedure
    .input(
      z.object({
        installationId: id,
        name: itemName,
        hash: z.string().regex(/^[0-9a-f]{64}$/),
        decision: z.enum(["approved", "rejected"]),
      }),
    )
    .output(out.governanceView)
    .mutation(({ ctx, input }) => governance.decideReview({ ...input, db: ctx.db, actor: ctx.actor })),

  /** Each call to the tool waits for an approver's approval, or no longer does (docs/approvals.md). */
  setToolApproval: teamAdminProcedure
    .input(z.object({ installationId: id, toolName: itemName, requiresApproval: z.boolean() }))
    .output(out.governanceView)
    .mutation(({ ctx, input }) => approvalSettings.setToolApproval({ ...input, db: ctx.db, actor: ctx.actor })),

  /** Who approves the installation's held calls: named members (empty: the team's admins). */
  approvers: teamAdminProcedure
    .input(z.object({ installationId: id }))
    .output(out.approvers)
    .query(({ ctx, input }) =>
      approvalSettings.approvers({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  setApprovers: teamAdminProcedure
    .input(z.object({ installationId: id, approverIds: z.array(id).max(50) }))
    .output(out.approvers)
    .mutation(({ ctx, input }) => approvalSettings.setApprovers({ ...input, db: ctx.db, actor: ctx.actor })),

  /** The team's quotas on tool calls (none: no limit); docs/quotas.md. */
  quotas: teamAdminProcedure
    .output(out.toolQuotas)
    .query(({ ctx }) => quotas.listQuotas({ db: ctx.db, actor: ctx.actor })),

  setQuotas: teamAdminProcedure
    .input(z.object({ quotas: out.toolQuotasInput }))
    .output(out.toolQuotas)
    .mutation(({ ctx, input }) => quotas.setQuotas({ db: ctx.db, actor: ctx.actor, quotas: input.quotas })),

  /** An installation's guardrails: an action per category of credentials and personal data; docs/guardrails.md. */
  guardrails: teamAdminProcedure
    .input(z.object({ installationId: id }))
    .output(out.guardrails)
    .query(({ ctx, input }) =>
      guardrails.guardrails({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  setGuardrails: teamAdminProcedure
    .input(z.object({ installationId: id, settings: out.guardrailSettings }))
    .output(out.guardrails)
    .mutation(({ ctx, input }) => guardrails.setGuardrails({ db: ctx.db, actor: ctx.actor, ...input })),

  /** The caller's own remaining quota: every limit that applies to them, used and when it resets. */
  myQuotas: teamProcedure.output(out.myQuotas).query(({ ctx }) => quotas.myQuotas({ db: ctx.db, actor: ctx.actor })),

  /** Recent calls refused by a quota, from the request log's blocked rows; keyset pages. */
  quotaRefusals: teamAdminProcedure
    .input(
      z.object({
        installationId: id.optional(),
        cursor: z.string().max(64).nullish(),
        limit: z.number().int().min(1).max(100).default(25),
      }),
    )
    .output(out.quotaRefusals)
    .query(({ ctx, input }) => quotas.quotaRefusals({ ...input, db: ctx.db, actor: ctx.actor })),

  audit: teamAdminProcedure
    .input(z.object({ installationId: id.optional() }))
    .output(out.auditTrail)
    .query(({ ctx, input }) =>
      governance.auditTrail({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  myTools: teamProcedure.output(out.myTools).query(({ ctx }) => toolsets.myTools({ db: ctx.db, actor: ctx.actor })),

  setHidden: teamProcedure
    .input(z.object({ installationId: id, toolName: itemName, hidden: z.boolean() }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await toolsets.setHidden({ ...input, db: ctx.db, actor: ctx.actor });
      return { ok: true };
    }),

  toolsets: teamProcedure
    .output(out.toolsets)
    .query(({ ctx }) => toolsets.listToolsets({ db: ctx.db, actor: ctx.actor })),

  saveToolset: teamProcedure
    .input(
      z.object({
        id: id.nullish(),
        name: z.string().trim().min(2, "Give the toolset a name of at least 2 characters.").max(TOOLSET_NAME_MAX),
        description: z.string().trim().max(500).default(""),
        teamWide: z.boolean().default(false),
        toolMode: toolMode.default("all"),
        tools: z.array(z.object({ installationId: id, toolName: itemName })).max(2000),
      }),
    )
    .output(out.savedToolset)
    .mutation(({ ctx, input }) => toolsets.saveToolset({ ...input, db: ctx.db, actor: ctx.actor })),

  deleteToolset: teamProcedure
    .input(z.object({ toolsetId: id }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      const { tokenIds } = await toolsets.deleteToolset({ db: ctx.db, actor: ctx.actor, toolsetId: input.toolsetId });
      // Its tokens went with it: no gateway process may keep serving them from its cache.
      await Promise.all(tokenIds.map((tokenId) => invalidateAccess({ tokenId })));
      return { ok: true };
    }),
});
