import { z } from "zod";
import { APPROVAL_COMMENT_MAX } from "@switchboard/core/governance";
import * as approvals from "../../services/approval.service";
import { createTRPCRouter, teamProcedure } from "../init";
import { id } from "./shared.schema";
import * as out from "./approvals.schema";

/**
 * Held tool calls (docs/approvals.md): the gateway holds a call to a tool that needs approval and sends the
 * caller here; an approver of its server approves or denies it. Every member reaches these procedures; the
 * service decides what each may see and do (admins see all, members their own calls and those they approve).
 */
export const approvalsRouter = createTRPCRouter({
  list: teamProcedure
    .input(
      z.object({
        state: out.listState.optional(),
        installationId: id.optional(),
        cursor: z.string().max(64).nullish(),
        limit: z.number().int().min(1).max(100).default(25),
      }),
    )
    .output(out.approvalList)
    .query(({ ctx, input }) => approvals.listApprovals({ ...input, db: ctx.db, actor: ctx.actor })),

  /** How many held calls wait for the caller's decision (the navigation's badge). */
  waitingCount: teamProcedure
    .output(out.waitingCount)
    .query(({ ctx }) => approvals.waitingCount({ db: ctx.db, actor: ctx.actor })),

  get: teamProcedure
    .input(z.object({ approvalId: id }))
    .output(out.approval)
    .query(({ ctx, input }) => approvals.getApproval({ db: ctx.db, actor: ctx.actor, approvalId: input.approvalId })),

  decide: teamProcedure
    .input(
      z.object({
        approvalId: id,
        decision: z.enum(["approved", "denied"]),
        comment: z.string().trim().max(APPROVAL_COMMENT_MAX).nullish(),
      }),
    )
    .output(out.approval)
    .mutation(({ ctx, input }) => approvals.decide({ ...input, db: ctx.db, actor: ctx.actor })),
});
