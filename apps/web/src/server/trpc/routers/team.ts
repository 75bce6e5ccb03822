import { slugSchema, TEAM_ROLES } from "@switchboard/core/accounts";
import { z } from "zod";
import * as teams from "../../services/team.service";
import { AppError, toTRPCError } from "../../errors";
import { createTRPCRouter, protectedProcedure, teamAdminProcedure, teamProcedure } from "../init";
import { page, search } from "./console.schema";
import { memberPage, ok, pendingInvitations, sentInvitation } from "./outputs.schema";

const teamSummary = z.object({ id: z.string(), name: z.string(), slug: z.string() });

export const teamRouter = createTRPCRouter({
  list: protectedProcedure
    .input(z.void())
    .output(z.array(teamSummary.extend({ role: z.string(), memberCount: z.number(), installationCount: z.number() })))
    .query(({ ctx }) => teams.listTeams({ db: ctx.db, actor: ctx.actor })),

  create: protectedProcedure
    .input(
      z.object({
        name: z.string().trim().min(2, "Use at least 2 characters.").max(60, "Use at most 60 characters."),
        slug: slugSchema.optional(),
      }),
    )
    .output(teamSummary)
    .mutation(({ ctx, input }) => teams.createTeam({ db: ctx.db, actor: ctx.actor, headers: ctx.headers, ...input })),

  get: teamProcedure
    .output(teamSummary.extend({ role: z.string() }))
    .query(({ ctx }) => ({ id: ctx.team.id, name: ctx.team.name, slug: ctx.team.slug, role: ctx.membership.role })),

  members: teamProcedure
    .input(z.object({ ...page, search }))
    .output(memberPage)
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
    .output(pendingInvitations)
    .query(({ ctx }) => teams.getPendingInvitations({ db: ctx.db, actor: ctx.actor })),

  invite: teamAdminProcedure
    .input(
      z.object({
        email: z.email("Enter a valid email address.").transform((e) => e.toLowerCase()),
        role: z.enum(["admin", "member"]).default("member"),
      }),
    )
    .output(sentInvitation)
    .mutation(({ ctx, input }) =>
      teams.inviteMember({ db: ctx.db, actor: ctx.actor, headers: ctx.headers, email: input.email, role: input.role }),
    ),

  cancelInvitation: teamAdminProcedure
    .input(z.object({ invitationId: z.string().min(1) }))
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
    .input(z.object({ memberId: z.string().min(1), role: z.enum(TEAM_ROLES) }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await teams.changeRole({ db: ctx.db, actor: ctx.actor, memberId: input.memberId, role: input.role });
      return { ok: true as const };
    }),

  removeMember: teamAdminProcedure
    .input(z.object({ memberId: z.string().min(1) }))
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
    .input(z.object({ confirmSlug: z.string().max(100) }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      if (input.confirmSlug !== ctx.team.slug)
        throw toTRPCError(new AppError("INVALID_INPUT", `Type “${ctx.team.slug}” to confirm.`));
      await teams.deleteTeam({ db: ctx.db, actor: ctx.actor });
      return { ok: true as const };
    }),
});
