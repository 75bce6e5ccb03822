import { z } from "zod";
import * as identityGroups from "../../services/identity-groups.service";
import * as scim from "../../services/scim.service";
import { createTRPCRouter, deploymentOwnerProcedure } from "../init";
import * as schema from "./identity.schema";

/**
 * The company's identity provider (docs/scim.md): group-to-team mappings and the deployment's SCIM token, both
 * the deployment owners' (a mapping can make anyone in a provider's group an owner of any team).
 */
export const identityRouter = createTRPCRouter({
  groupMappings: deploymentOwnerProcedure
    .input(z.void())
    .output(schema.groupMappingsOutput)
    .query(({ ctx }) => identityGroups.listMappings({ db: ctx.db })),

  addGroupMapping: deploymentOwnerProcedure
    .input(schema.addGroupMappingInput)
    .output(schema.mappingId)
    .mutation(({ ctx, input }) => identityGroups.addMapping({ db: ctx.db, actor: ctx.actor, ...input })),

  /** Names the mapping's team too, so that the removal is recorded in that team's audit trail. */
  removeGroupMapping: deploymentOwnerProcedure
    .input(schema.removeGroupMappingInput)
    .output(schema.mappingId)
    .mutation(({ ctx, input }) => identityGroups.removeMapping({ db: ctx.db, ...input })),

  scimToken: deploymentOwnerProcedure
    .input(z.void())
    .output(schema.scimTokenStatusOutput)
    .query(({ ctx }) => scim.getScimToken({ db: ctx.db })),

  /** Creates the token, or rotates it: the old one stops working at once. The answer is the only time it is shown. */
  createScimToken: deploymentOwnerProcedure
    .input(z.void())
    .output(schema.createdScimTokenOutput)
    .mutation(({ ctx }) => scim.createScimToken({ db: ctx.db, actor: ctx.actor })),

  revokeScimToken: deploymentOwnerProcedure
    .input(z.void())
    .output(schema.scimTokenRevoked)
    .mutation(async ({ ctx }) => {
      await scim.revokeScimToken({ db: ctx.db });
      return { revoked: true as const };
    }),
});
