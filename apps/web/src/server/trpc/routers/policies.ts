import { z } from "zod";
import * as policies from "../../services/policies.service";
import { createTRPCRouter, teamAdminProcedure } from "../init";
import { id } from "./shared.schema";
import * as out from "./policies.schema";

/**
 * A team's policies as code (Cedar; docs/policies.md), for its admins: the text in force and its history,
 * checking a draft, saving it, and what would happen to a member's call. `check` and `whatWouldHappen` change
 * nothing (mutations only so that a long text travels in the body).
 */
export const policiesRouter = createTRPCRouter({
  current: teamAdminProcedure
    .output(out.currentPolicies)
    .query(({ ctx }) => policies.currentPolicies({ db: ctx.db, actor: ctx.actor })),

  history: teamAdminProcedure
    .output(out.policyHistory)
    .query(({ ctx }) => policies.policyHistory({ db: ctx.db, actor: ctx.actor })),

  check: teamAdminProcedure
    .input(z.object({ text: out.policyText }))
    .output(out.policyProblems)
    .mutation(({ input }) => policies.checkPolicyText({ text: input.text })),

  save: teamAdminProcedure
    .input(z.object({ text: out.policyText.nullable(), expectedVersion: z.number().int().min(1).nullable() }))
    .output(out.savedPolicies)
    .mutation(({ ctx, input }) => policies.savePolicies({ ...input, db: ctx.db, actor: ctx.actor })),

  choices: teamAdminProcedure
    .output(out.panelChoices)
    .query(({ ctx }) => policies.panelChoices({ db: ctx.db, actor: ctx.actor })),

  whatWouldHappen: teamAdminProcedure
    .input(
      z.object({
        memberUserId: id,
        installationId: id,
        toolName: z.string().min(1).max(500),
        arguments: z.record(z.string(), z.unknown()),
        text: out.policyText.optional(),
        client: z.string().min(1).max(200).default("unknown"),
        token: z.enum(["token", "oauth"]).default("token"),
        revision: z.string().min(1).max(40).default("2025-11-25"),
      }),
    )
    .output(out.callDecision)
    .mutation(({ ctx, input }) => policies.whatWouldHappen({ ...input, db: ctx.db, actor: ctx.actor })),
});
