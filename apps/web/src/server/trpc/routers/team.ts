import { z } from "zod";
import * as teams from "../../services/team.service";
import { AppError, toTRPCError } from "../../errors";
import { createTRPCRouter, protectedProcedure, teamAdminProcedure, teamProcedure } from "../init";
import { ok } from "./shared.schema";
import * as schema from "./team.schema";

export const teamRouter = createTRPCRouter({
  list: protectedProcedure
    .input(z.void())
    .output(schema.teamList)
    .query(({ ctx }) => teams.listTeams({ db: ctx.db, actor: ctx.actor })),

  create: protectedProcedure
    .input(schema.createTeamInput)
    .output(schema.teamSummary)
    .mutation(({ ctx, input }) => teams.createTeam({ db: ctx.db, actor: ctx.actor, headers: ctx.headers, ...input })),

  get: teamProcedure
    .output(schema.currentTeam)
    .query(({ ctx }) => ({ id: ctx.team.id, name: ctx.team.name, slug: ctx.team.slug, role: ctx.membership.role })),

  members: teamProcedure
    .input(schema.membersInput)
    .output(schema.memberPage)
    .query(({ ctx, input }) =>
      teams.getMembers({
        db: ctx.db,
        actor: ctx.actor,
        search: input.search,
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  invitations: teamAdminProcedure
    .output(schema.pendingInvitations)
    .query(({ ctx }) => teams.getPendingInvitations({ db: ctx.db, actor: ctx.actor })),

  invite: teamAdminProcedure
    .input(schema.inviteInput)
    .output(schema.sentInvitation)
    .mutation(({ ctx, input }) =>
      teams.inviteMember({ db: ctx.db, actor: ctx.actor, headers: ctx.headers, email: input.email, role: input.role }),
    ),

  cancelInvitation: teamAdminProcedure
    .input(schema.invitationInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await teams.cancelInvitation({
        db: ctx.db,
        actor: ctx.actor,
        headers: ctx.headers,
        invitationId: input.invitationId,
      });
      return { ok: true as const };
    }),

  changeRole: teamAdminProcedure
    .input(schema.changeRoleInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await teams.changeRole({ db: ctx.db, actor: ctx.actor, memberId: input.memberId, role: input.role });
      return { ok: true as const };
    }),

  removeMember: teamAdminProcedure
    .input(schema.memberInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await teams.removeMember({ db: ctx.db, actor: ctx.actor, memberId: input.memberId });
      return { ok: true as const };
    }),

  leave: teamProcedure.output(ok).mutation(async ({ ctx }) => {
    await teams.leaveTeam({ db: ctx.db, actor: ctx.actor });
    return { ok: true as const };
  }),

  delete: teamProcedure
    .input(schema.deleteTeamInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      if (input.confirmSlug !== ctx.team.slug)
        throw toTRPCError(new AppError("INVALID_INPUT", `Type “${ctx.team.slug}” to confirm.`));
      await teams.deleteTeam({ db: ctx.db, actor: ctx.actor });
      return { ok: true as const };
    }),
});
