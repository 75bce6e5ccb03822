import * as teams from "../../services/team.service";
import { createTRPCRouter, protectedProcedure, publicProcedure } from "../init";
import * as schema from "./invitation.schema";

export const invitationRouter = createTRPCRouter({
  /** Public: anyone holding the link sees the team and the inviter; `forYou` compares the signed-in address. */
  get: publicProcedure
    .input(schema.invitationInput)
    .output(schema.invitationView)
    .query(({ ctx, input }) =>
      teams.describeInvitation({ db: ctx.db, invitationId: input.invitationId, email: ctx.user?.email ?? null }),
    ),

  accept: protectedProcedure
    .input(schema.invitationInput)
    .output(schema.acceptedInvitation)
    .mutation(({ ctx, input }) =>
      teams.acceptInvitation({ db: ctx.db, actor: ctx.actor, headers: ctx.headers, invitationId: input.invitationId }),
    ),
});
