import { isTeamRole, slugSchema, TEAM_ROLES } from "@switchboard/core/accounts";
import { z } from "zod";
import * as teams from "../../services/team.service";
import { AppError, toTRPCError } from "../../errors";
import { createTRPCRouter, protectedProcedure, teamAdminProcedure, teamProcedure } from "../init";

const teamSummary = z.object({ id: z.string(), name: z.string(), slug: z.string() });
/** A stored role outside our three (only possible through old data) counts as the weakest one. */
const roleOf = (role: string) => (isTeamRole(role) ? role : "member");

export const teamRouter = createTRPCRouter({
  list: protectedProcedure
    .output(z.array(teamSummary.extend({ role: z.string(), memberCount: z.number(), installationCount: z.number() })))
    .query(({ ctx }) => teams.listTeams({ db: ctx.db, userId: ctx.user.id })),

  create: protectedProcedure
    .input(z.object({ name: z.string().trim().min(2, "Use at least 2 characters.").max(60, "Use at most 60 characters."), slug: slugSchema.optional() }))
    .output(teamSummary)
    .mutation(({ ctx, input }) => teams.createTeam({ db: ctx.db, userId: ctx.user.id, headers: ctx.headers, ...input })),

  get: teamProcedure
    .output(teamSummary.extend({ role: z.string() }))
    .query(({ ctx }) => ({ id: ctx.team.id, name: ctx.team.name, slug: ctx.team.slug, role: ctx.membership.role })),

  members: teamProcedure
    .input(z.object({ cursor: z.string().nullish(), limit: z.number().int().min(1).max(100).default(25) }))
    .query(({ ctx, input }) => teams.getMembers({ db: ctx.db, teamId: ctx.team.id, cursor: input.cursor, limit: input.limit })),

  invitations: teamAdminProcedure.query(({ ctx }) => teams.getPendingInvitations({ db: ctx.db, teamId: ctx.team.id })),

  invite: teamAdminProcedure
    .input(z.object({ email: z.email("Enter a valid email address.").transform((e) => e.toLowerCase()), role: z.enum(["admin", "member"]).default("member") }))
    .mutation(({ ctx, input }) =>
      teams.inviteMember({ db: ctx.db, userId: ctx.user.id, headers: ctx.headers, teamId: ctx.team.id, email: input.email, role: input.role }),
    ),

  cancelInvitation: teamAdminProcedure
    .input(z.object({ invitationId: z.string().min(1) }))
    .mutation(({ ctx, input }) =>
      teams.cancelInvitation({ db: ctx.db, userId: ctx.user.id, headers: ctx.headers, teamId: ctx.team.id, invitationId: input.invitationId }),
    ),

  changeRole: teamAdminProcedure
    .input(z.object({ memberId: z.string().min(1), role: z.enum(TEAM_ROLES) }))
    .mutation(async ({ ctx, input }) => {
      await teams.changeRole({ db: ctx.db, teamId: ctx.team.id, actorRole: roleOf(ctx.membership.role), memberId: input.memberId, role: input.role });
      return { ok: true };
    }),

  removeMember: teamAdminProcedure
    .input(z.object({ memberId: z.string().min(1) }))
    .mutation(async ({ ctx, input }) => {
      await teams.removeMember({ db: ctx.db, teamId: ctx.team.id, actorRole: ctx.membership.role, actorUserId: ctx.user.id, memberId: input.memberId });
      return { ok: true };
    }),

  leave: teamProcedure.mutation(async ({ ctx }) => {
    await teams.leaveTeam({ db: ctx.db, teamId: ctx.team.id, userId: ctx.user.id });
    return { ok: true };
  }),

  delete: teamProcedure.input(z.object({ confirmSlug: z.string().max(100) })).mutation(async ({ ctx, input }) => {
    if (input.confirmSlug !== ctx.team.slug) throw toTRPCError(new AppError("INVALID_INPUT", `Type “${ctx.team.slug}” to confirm.`));
    await teams.deleteTeam({ db: ctx.db, teamId: ctx.team.id, actorRole: ctx.membership.role });
    return { ok: true };
  }),
});
