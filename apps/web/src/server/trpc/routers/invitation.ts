import { z } from "zod";
import * as teams from "../../services/team.service";
import { createTRPCRouter, protectedProcedure, publicProcedure } from "../init";

export const invitationRouter = createTRPCRouter({
  get: publicProcedure
    .input(z.object({ invitationId: z.string().min(1).max(64) }))
    .query(({ ctx, input }) => teams.describeInvitation({ db: ctx.db, invitationId: input.invitationId, email: ctx.user?.email ?? null })),

  accept: protectedProcedure
    .input(z.object({ invitationId: z.string().min(1).max(64) }))
    .mutation(({ ctx, input }) =>
      teams.acceptInvitation({ db: ctx.db, userId: ctx.user.id, headers: ctx.headers, invitationId: input.invitationId }),
    ),
});
