import { z } from "zod";
import * as grants from "../../services/oauth-grant.service";
import { ok } from "./shared.schema";
import { createTRPCRouter, protectedProcedure, teamAdminProcedure, teamProcedure } from "../init";

const clientId = z.string().min(1).max(2048);
const mode = z.enum(["all", "router"]);

const signedInClientView = z.object({
  id: z.string(),
  clientId: z.string(),
  name: z.string(),
  logoUri: z.string().nullable(),
  clientUri: z.string().nullable(),
  registration: z.enum(["metadata-document", "dynamic"]),
  mode,
  /** The toolset the grant is limited to, if any. */
  toolset: z.object({ id: z.string(), name: z.string() }).nullable(),
  lastUsedAt: z.date().nullable(),
  createdAt: z.date(),
});

/**
 * MCP clients that sign in with OAuth (Switchboard is the authorization server of its route). The consent page
 * reads `consent` and calls `approve` before Better Auth's own consent endpoint; the Connect page lists and
 * revokes a member's signed-in clients; team admins decide whether self-registered clients are accepted.
 */
export const mcpClientRouter = createTRPCRouter({
  consent: protectedProcedure
    .input(z.object({ clientId }))
    .output(
      z.object({
        client: z.object({
          clientId: z.string(),
          name: z.string(),
          logoUri: z.string().nullable(),
          clientUri: z.string().nullable(),
          registration: z.enum(["metadata-document", "dynamic"]),
          redirectUris: z.array(z.string()),
        }),
        teams: z.array(z.object({ id: z.string(), name: z.string(), slug: z.string(), allowed: z.boolean() })),
        earlier: z.object({ teamId: z.string(), mode, toolsetId: z.string().nullable() }).nullable(),
      }),
    )
    .query(({ ctx, input }) => grants.consentContext({ db: ctx.db, userId: ctx.user.id, clientId: input.clientId })),

  approve: teamProcedure
    .input(
      z.object({
        clientId,
        mode,
        /** Limit the grant to one toolset (the member's own or the team's): the client then sees only that selection. */
        toolsetId: z.string().min(1).max(64).nullable().default(null),
      }),
    )
    .output(z.object({ grantId: z.string() }))
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
    .output(z.array(signedInClientView))
    .query(({ ctx }) => grants.list({ db: ctx.db, userId: ctx.user.id, teamId: ctx.team.id })),

  revoke: teamProcedure
    .input(z.object({ grantId: z.string().min(1).max(64) }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await grants.revoke({ db: ctx.db, userId: ctx.user.id, teamId: ctx.team.id, grantId: input.grantId });
      return { ok: true };
    }),

  policy: teamAdminProcedure
    .output(z.object({ allowed: z.boolean() }))
    .query(({ ctx }) => grants.dynamicClientsPolicy({ db: ctx.db, teamId: ctx.team.id })),

  setPolicy: teamAdminProcedure
    .input(z.object({ allowed: z.boolean() }))
    .output(z.object({ signedOut: z.number() }))
    .mutation(({ ctx, input }) =>
      grants.setDynamicClientsPolicy({ db: ctx.db, teamId: ctx.team.id, allowed: input.allowed }),
    ),
});
