import { z } from "zod";
import * as teams from "../../services/team.service";
import { createTRPCRouter, protectedProcedure, publicProcedure } from "../init";
import { acceptedInvitation, invitationView } from "./outputs.schema";

export const invitationRouter = createTRPCRouter({
  /** Public: anyone holding the link sees the team and the inviter; `forYou` compares the signed-in address. */
  get: publicProcedure
    .input(z.object({ invitationId: z.string().min(1).max(64) }))
    .output(invitationView)
    .query(({ ctx, input }) =>
      teams.describeInvitation({ db: ctx.db, invitationId: input.invitationId, email: ctx.user?.email ?? null }),
    ),

  accept: protectedProcedure
    .input(z.object({ invitationId: z.string().min(1).max(64) }))
    .output(acceptedInvitation)
    .mutation(({ ctx, input }) =>
      teams.acceptInvitation({ db: ctx.db, actor: ctx.actor, headers: ctx.headers, invitationId: input.invitationId }),
    ),
});
