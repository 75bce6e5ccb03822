import { z } from "zod";
import { AUDIT_BREAK_MESSAGES } from "@switchboard/core/audit";
import { countAudit, getRetention, listAudit, setRetention, verifyAudit } from "@switchboard/db/queries/audit";
import { createTRPCRouter, deploymentOwnerProcedure, teamAdminProcedure } from "../init";
import { ok } from "./shared.schema";

const filters = {
  actor: z.string().trim().max(200).optional(),
  action: z.string().trim().max(200).optional(),
  target: z.string().trim().max(200).optional(),
  from: z.date().optional(),
  to: z.date().optional(),
  cursor: z.string().max(64).nullish(),
  limit: z.number().int().min(1).max(200).default(50),
};

const record = z.object({
  id: z.string(),
  chain: z.string(),
  seq: z.number(),
  teamId: z.string().nullable(),
  actorLabel: z.string(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  targetLabel: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  detail: z.unknown(),
  ip: z.string().nullable(),
  client: z.string().nullable(),
  createdAt: z.date(),
});

const page = z.object({ items: z.array(record), nextCursor: z.string().nullable(), total: z.number() });

const verification = z.object({
  chain: z.string(),
  checked: z.number(),
  pruned: z.number(),
  broken: z
    .object({ id: z.string(), seq: z.number(), action: z.string(), createdAt: z.date(), message: z.string() })
    .nullable(),
});

const retentionDays = z.number().int().min(1).max(3650);
const retention = z.object({
  requestLogRetentionDays: retentionDays,
  rollupRetentionDays: retentionDays,
  auditRetentionDays: retentionDays,
});

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
    .input(z.object(filters))
    .output(page)
    .query(async ({ ctx, input }) => {
      const filter = { ...input, teamId: ctx.team.id };
      const [result, total] = await Promise.all([listAudit(ctx.db, filter), countAudit(ctx.db, filter)]);
      return { ...result, total };
    }),

  verify: teamAdminProcedure
    .output(verification)
    .mutation(async ({ ctx }) => withMessage(await verifyAudit(ctx.db, ctx.team.id))),

  retention: teamAdminProcedure.output(retention).query(({ ctx }) => getRetention(ctx.db, ctx.team.id)),

  setRetention: teamAdminProcedure
    .input(retention)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      const { requestLogRetentionDays, rollupRetentionDays, auditRetentionDays } = input;
      await setRetention(ctx.db, ctx.team.id, { requestLogRetentionDays, rollupRetentionDays, auditRetentionDays });
      return { ok: true as const };
    }),

  /** Deployment owners: every chain, or one team's (`teamId`), or the deployment's own (`teamId: null`). */
  listAll: deploymentOwnerProcedure
    .input(z.object({ ...filters, teamId: z.string().max(64).nullable().optional() }))
    .output(page)
    .query(async ({ ctx, input }) => {
      const [result, total] = await Promise.all([listAudit(ctx.db, input), countAudit(ctx.db, input)]);
      return { ...result, total };
    }),

  verifyDeployment: deploymentOwnerProcedure
    .input(z.void())
    .output(verification)
    .mutation(async ({ ctx }) => withMessage(await verifyAudit(ctx.db, null))),
});
