import * as approvals from "../../services/approval.service";
import { createTRPCRouter, teamProcedure } from "../init";
import * as schema from "./approvals.schema";

/**
 * Held tool calls (docs/approvals.md): the gateway holds a call to a tool that needs approval and sends the
 * caller here; an approver of its server approves or denies it. Every member reaches these procedures; the
 * service decides what each may see and do (admins see all, members their own calls and those they approve).
 */
export const approvalsRouter = createTRPCRouter({
  list: teamProcedure
    .input(schema.listInput)
    .output(schema.approvalList)
    .query(({ ctx, input }) => approvals.listApprovals({ ...input, db: ctx.db, actor: ctx.actor })),

  /** How many held calls wait for the caller's decision (the navigation's badge). */
  waitingCount: teamProcedure
    .output(schema.waitingCount)
    .query(({ ctx }) => approvals.waitingCount({ db: ctx.db, actor: ctx.actor })),

  get: teamProcedure
    .input(schema.approvalInput)
    .output(schema.approval)
    .query(({ ctx, input }) => approvals.getApproval({ db: ctx.db, actor: ctx.actor, approvalId: input.approvalId })),

  decide: teamProcedure
    .input(schema.decideInput)
    .output(schema.approval)
    .mutation(({ ctx, input }) => approvals.decide({ ...input, db: ctx.db, actor: ctx.actor })),
});
