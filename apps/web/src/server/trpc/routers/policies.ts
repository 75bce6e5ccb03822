import * as policies from "../../services/policies.service";
import { createTRPCRouter, teamAdminProcedure } from "../init";
import * as schema from "./policies.schema";

/**
 * A team's policies as code (Cedar; docs/policies.md), for its admins: the text in force and its history,
 * checking a draft, saving it, and what would happen to a member's call. `check` and `whatWouldHappen` change
 * nothing (mutations only so that a long text travels in the body).
 */
export const policiesRouter = createTRPCRouter({
  current: teamAdminProcedure
    .output(schema.currentPolicies)
    .query(({ ctx }) => policies.currentPolicies({ db: ctx.db, actor: ctx.actor })),

  history: teamAdminProcedure
    .output(schema.policyHistory)
    .query(({ ctx }) => policies.policyHistory({ db: ctx.db, actor: ctx.actor })),

  check: teamAdminProcedure
    .input(schema.checkInput)
    .output(schema.policyProblems)
    .mutation(({ input }) => policies.checkPolicyText({ text: input.text })),

  save: teamAdminProcedure
    .input(schema.saveInput)
    .output(schema.savedPolicies)
    .mutation(({ ctx, input }) => policies.savePolicies({ ...input, db: ctx.db, actor: ctx.actor })),

  choices: teamAdminProcedure
    .output(schema.panelChoices)
    .query(({ ctx }) => policies.panelChoices({ db: ctx.db, actor: ctx.actor })),

  whatWouldHappen: teamAdminProcedure
    .input(schema.whatWouldHappenInput)
    .output(schema.callDecision)
    .mutation(({ ctx, input }) => policies.whatWouldHappen({ ...input, db: ctx.db, actor: ctx.actor })),
});
