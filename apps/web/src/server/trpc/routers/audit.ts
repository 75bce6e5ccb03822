import { z } from "zod";
import { AUDIT_BREAK_MESSAGES } from "@switchboard/core/audit";
import { countAudit, getRetention, listAudit, setRetention, verifyAudit } from "@switchboard/db/queries/audit";
import { createTRPCRouter, deploymentOwnerProcedure, teamAdminProcedure } from "../init";
import * as schema from "./audit.schema";
import { ok } from "./shared.schema";

function withMessage(v: Awaited<ReturnType<typeof verifyAudit>>) {
  return {
    ...v,
    broken: v.broken
      ? {
          id: v.broken.id,
          seq: v.broken.seq,
          action: v.broken.action,
          createdAt: v.broken.createdAt,
          message: AUDIT_BREAK_MESSAGES[v.broken.reason],
        }
      : null,
  };
}

/** The audit trail: a team's admins read and verify their team's chain; deployment owners every chain. */
export const auditRouter = createTRPCRouter({
  list: teamAdminProcedure
    .input(schema.listInput)
    .output(schema.auditPage)
    .query(async ({ ctx, input }) => {
      const filter = { ...input, teamId: ctx.team.id };
      const [result, total] = await Promise.all([listAudit(ctx.db, filter), countAudit(ctx.db, filter)]);
      return { ...result, total };
    }),

  verify: teamAdminProcedure
    .output(schema.verification)
    .mutation(async ({ ctx }) => withMessage(await verifyAudit(ctx.db, ctx.team.id))),

  retention: teamAdminProcedure.output(schema.retention).query(({ ctx }) => getRetention(ctx.db, ctx.team.id)),

  setRetention: teamAdminProcedure
    .input(schema.retention)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      const { requestLogRetentionDays, rollupRetentionDays, auditRetentionDays } = input;
      await setRetention(ctx.db, ctx.team.id, { requestLogRetentionDays, rollupRetentionDays, auditRetentionDays });
      return { ok: true as const };
    }),

  /** Deployment owners: every chain, or one team's (`teamId`), or the deployment's own (`teamId: null`). */
  listAll: deploymentOwnerProcedure
    .input(schema.listAllInput)
    .output(schema.auditPage)
    .query(async ({ ctx, input }) => {
      const [result, total] = await Promise.all([listAudit(ctx.db, input), countAudit(ctx.db, input)]);
      return { ...result, total };
    }),

  verifyDeployment: deploymentOwnerProcedure
    .input(z.void())
    .output(schema.verification)
    .mutation(async ({ ctx }) => withMessage(await verifyAudit(ctx.db, null))),
});
