import * as grants from "../../services/oauth-grant.service";
import { createTRPCRouter, protectedProcedure, teamAdminProcedure, teamProcedure } from "../init";
import * as schema from "./mcp-client.schema";
import { ok } from "./shared.schema";

/**
 * MCP clients that sign in with OAuth (Switchboard is the authorization server of its route). The consent page
 * reads `consent` and calls `approve` before Better Auth's own consent endpoint; the Connect page lists and
 * revokes a member's signed-in clients; team admins decide whether self-registered clients are accepted.
 */
export const mcpClientRouter = createTRPCRouter({
  consent: protectedProcedure
    .input(schema.consentInput)
    .output(schema.consent)
    .query(({ ctx, input }) => grants.consentContext({ db: ctx.db, userId: ctx.user.id, clientId: input.clientId })),

  approve: teamProcedure
    .input(schema.approveInput)
    .output(schema.approved)
    .mutation(({ ctx, input }) =>
      grants.approve({
        db: ctx.db,
        userId: ctx.user.id,
        teamId: ctx.team.id,
        clientId: input.clientId,
        mode: input.mode,
        toolsetId: input.toolsetId,
      }),
    ),

  list: teamProcedure
    .output(schema.signedInClients)
    .query(({ ctx }) => grants.list({ db: ctx.db, userId: ctx.user.id, teamId: ctx.team.id })),

  revoke: teamProcedure
    .input(schema.revokeInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await grants.revoke({ db: ctx.db, userId: ctx.user.id, teamId: ctx.team.id, grantId: input.grantId });
      return { ok: true };
    }),

  policy: teamAdminProcedure
    .output(schema.policy)
    .query(({ ctx }) => grants.dynamicClientsPolicy({ db: ctx.db, teamId: ctx.team.id })),

  setPolicy: teamAdminProcedure
    .input(schema.policy)
    .output(schema.signedOut)
    .mutation(({ ctx, input }) =>
      grants.setDynamicClientsPolicy({ db: ctx.db, teamId: ctx.team.id, allowed: input.allowed }),
    ),
});
