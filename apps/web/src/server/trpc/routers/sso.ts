import { z } from "zod";
import * as sso from "../../services/sso.service";
import { createTRPCRouter, deploymentOwnerProcedure } from "../init";
import * as schema from "./sso.schema";

/** Single sign-on providers of the deployment: deployment owners only (everyone else is told nothing exists). */
export const ssoRouter = createTRPCRouter({
  providers: deploymentOwnerProcedure
    .input(z.void())
    .output(schema.ssoProviders)
    .query(({ ctx }) => sso.listProviders({ db: ctx.db })),

  addProvider: deploymentOwnerProcedure
    .input(schema.addSsoProviderInput)
    .output(schema.ssoProviderOutput)
    .mutation(({ ctx, input }) => sso.addProvider({ db: ctx.db, actor: ctx.actor, input })),

  updateProvider: deploymentOwnerProcedure
    .input(schema.updateSsoProviderInput)
    .output(schema.ssoProviderOutput)
    .mutation(({ ctx, input }) => sso.updateProvider({ db: ctx.db, input })),

  removeProvider: deploymentOwnerProcedure
    .input(schema.byId)
    .output(schema.removedProvider)
    .mutation(({ ctx, input }) => sso.removeProvider({ db: ctx.db, id: input.id })),

  /** Fetches what a sign-in would use and says in one sentence whether the provider is usable. */
  testProvider: deploymentOwnerProcedure
    .input(schema.byId)
    .output(schema.ssoTestOutput)
    .mutation(({ ctx, input }) => sso.testProvider({ db: ctx.db, id: input.id })),
});
