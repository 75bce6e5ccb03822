import { z } from "zod";
import * as sso from "../../services/sso.service";
import { createTRPCRouter, deploymentOwnerProcedure } from "../init";
import { addSsoProviderInput, ssoProviderOutput, ssoTestOutput, updateSsoProviderInput } from "./sso.schema";

const byId = z.object({ id: z.string().min(1).max(64) });

/** Single sign-on providers of the deployment: deployment owners only (everyone else is told nothing exists). */
export const ssoRouter = createTRPCRouter({
  providers: deploymentOwnerProcedure
    .input(z.void())
    .output(z.array(ssoProviderOutput))
    .query(({ ctx }) => sso.listProviders({ db: ctx.db })),

  addProvider: deploymentOwnerProcedure
    .input(addSsoProviderInput)
    .output(ssoProviderOutput)
    .mutation(({ ctx, input }) => sso.addProvider({ db: ctx.db, actor: ctx.actor, input })),

  updateProvider: deploymentOwnerProcedure
    .input(updateSsoProviderInput)
    .output(ssoProviderOutput)
    .mutation(({ ctx, input }) => sso.updateProvider({ db: ctx.db, input })),

  removeProvider: deploymentOwnerProcedure
    .input(byId)
    .output(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => sso.removeProvider({ db: ctx.db, id: input.id })),

  /** Fetches what a sign-in would use and says in one sentence whether the provider is usable. */
  testProvider: deploymentOwnerProcedure
    .input(byId)
    .output(ssoTestOutput)
    .mutation(({ ctx, input }) => sso.testProvider({ db: ctx.db, id: input.id })),
});
