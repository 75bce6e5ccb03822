import { z } from "zod";
import * as idps from "../../services/enterprise-idp.service";
import { createTRPCRouter, deploymentOwnerProcedure } from "../init";
import * as schema from "./enterprise-idp.schema";

/**
 * Enterprise identity providers trusted for enterprise-managed authorization (ID-JAG) of MCP clients. Deployment
 * owners only; sign-in providers (SSO) are elsewhere.
 */
export const enterpriseIdpRouter = createTRPCRouter({
  list: deploymentOwnerProcedure
    .input(z.void())
    .output(schema.issuerList)
    .query(({ ctx }) => idps.list({ db: ctx.db })),

  add: deploymentOwnerProcedure
    .input(schema.issuerInput)
    .output(schema.issuerOutput)
    .mutation(({ ctx, input }) => idps.add({ db: ctx.db, input })),

  update: deploymentOwnerProcedure
    .input(schema.updateIssuerInput)
    .output(schema.issuerOutput)
    .mutation(({ ctx, input: { issuerId: id, ...input } }) => idps.update({ db: ctx.db, id, input })),

  setEnabled: deploymentOwnerProcedure
    .input(schema.setEnabledInput)
    .output(schema.issuerOutput)
    .mutation(({ ctx, input }) => idps.setEnabled({ db: ctx.db, id: input.issuerId, enabled: input.enabled })),

  remove: deploymentOwnerProcedure
    .input(schema.onIssuer)
    .output(schema.removedIssuer)
    .mutation(({ ctx, input }) => idps.remove({ db: ctx.db, id: input.issuerId })),

  /** Fetches the provider's JWKS (changes nothing). */
  test: deploymentOwnerProcedure
    .input(schema.onIssuer)
    .output(schema.jwksTest)
    .mutation(({ ctx, input }) => idps.test({ db: ctx.db, id: input.issuerId })),
});
