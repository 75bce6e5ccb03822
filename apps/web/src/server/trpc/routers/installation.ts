import { z } from "zod";
import * as installations from "../../services/installation.service";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import { id, installSlug, installationView, page, valuesInput } from "./console.schema";

export const installationRouter = createTRPCRouter({
  list: teamProcedure
    .input(z.object(page))
    .query(({ ctx, input }) => installations.list({ db: ctx.db, teamId: ctx.team.id, cursor: input.cursor, limit: input.limit })),

  get: teamProcedure
    .input(z.object({ installationId: id }))
    .output(installationView)
    .query(({ ctx, input }) => installations.get({ db: ctx.db, teamId: ctx.team.id, installationId: input.installationId })),

  create: teamAdminProcedure
    .input(
      z.object({
        templateId: id,
        slug: installSlug,
        name: z.string().trim().min(2, "Give the server a name.").max(80),
        requestLogging: z.boolean().default(true),
        values: valuesInput.values,
      }),
    )
    .output(installationView)
    .mutation(({ ctx, input }) => installations.create({
        db: ctx.db,
        teamId: ctx.team.id,
        userId: ctx.user.id,
        input: { templateId: input.templateId, slug: input.slug, name: input.name, requestLogging: input.requestLogging, values: input.values },
      })),

  updateTeamValues: teamAdminProcedure
    .input(z.object({ installationId: id, ...valuesInput }))
    .output(installationView)
    .mutation(({ ctx, input }) =>
      installations.updateTeamValues({ db: ctx.db, teamId: ctx.team.id, installationId: input.installationId, values: input.values, clear: input.clear }),
    ),

  updateSettings: teamAdminProcedure
    .input(z.object({ installationId: id, requestLogging: z.boolean().optional(), name: z.string().trim().min(2).max(80).optional() }))
    .output(installationView)
    .mutation(({ ctx, input }) => installations.updateSettings({ db: ctx.db, teamId: ctx.team.id, installationId: input.installationId, requestLogging: input.requestLogging, name: input.name })),

  remove: teamAdminProcedure
    .input(z.object({ installationId: id }))
    .mutation(async ({ ctx, input }) => {
      await installations.remove({ db: ctx.db, teamId: ctx.team.id, installationId: input.installationId });
      return { ok: true };
    }),
});
