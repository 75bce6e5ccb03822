import { z } from "zod";
import { APPROVAL_COMMENT_MAX, APPROVAL_STORED_STATES } from "@switchboard/core/governance";
import { id, person } from "./shared.schema";

/** The approvals router's inputs and answers; each answer is exactly what its service returns (test/trpc-contract.test.ts). */

const status = z.enum([...APPROVAL_STORED_STATES, "expired"]);
const installation = z.object({ id: z.string(), name: z.string(), slug: z.string() });

const common = {
  id: z.string(),
  tool: z.string(),
  requested: z.string(),
  reason: z.string(),
  status,
  comment: z.string().nullable(),
  createdAt: z.date(),
  expiresAt: z.date(),
  decidedAt: z.date().nullable(),
  usedAt: z.date().nullable(),
  caller: person,
  decidedBy: person.nullable(),
  installation,
  mine: z.boolean(),
};

export const approvalList = z.object({ items: z.array(z.object(common)), nextCursor: z.string().nullable() });

export const approval = z.object({
  ...common,
  policyId: z.string().nullable(),
  policyVersion: z.string(),
  /** Null for a member who neither made the call nor may decide it. */
  arguments: z.unknown().nullable(),
  argumentsHash: z.string().nullable(),
  canDecide: z.boolean(),
  whoMayApprove: z.string(),
});

export const waitingCount = z.object({ count: z.number() });

export const listState = z.enum(["waiting", "decided", "approved", "denied", "used", "expired"]);

// --- inputs ---------------------------------------------------------------------------------------------------

export const listInput = z.object({
  state: listState.optional(),
  installationId: id.optional(),
  cursor: z.string().max(64).nullish(),
  limit: z.number().int().min(1).max(100).default(25),
});
export const approvalInput = z.object({ approvalId: id });
export const decideInput = z.object({
  approvalId: id,
  decision: z.enum(["approved", "denied"]),
  comment: z.string().trim().max(APPROVAL_COMMENT_MAX).nullish(),
});
