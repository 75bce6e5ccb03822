import { z } from "zod";

/** The audit router's inputs and answers: a team's audit trail, its verification and retention. */

const filters = {
  actor: z.string().trim().max(200).optional(),
  action: z.string().trim().max(200).optional(),
  target: z.string().trim().max(200).optional(),
  from: z.date().optional(),
  to: z.date().optional(),
  cursor: z.string().max(64).nullish(),
  limit: z.number().int().min(1).max(200).default(50),
};

export const record = z.object({
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

export const auditPage = z.object({ items: z.array(record), nextCursor: z.string().nullable(), total: z.number() });

export const verification = z.object({
  chain: z.string(),
  checked: z.number(),
  pruned: z.number(),
  broken: z
    .object({ id: z.string(), seq: z.number(), action: z.string(), createdAt: z.date(), message: z.string() })
    .nullable(),
});

const retentionDays = z.number().int().min(1).max(3650);
export const retention = z.object({
  requestLogRetentionDays: retentionDays,
  rollupRetentionDays: retentionDays,
  auditRetentionDays: retentionDays,
});

export const listInput = z.object(filters);
export const listAllInput = z.object({ ...filters, teamId: z.string().max(64).nullable().optional() });
