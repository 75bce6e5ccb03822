import { z } from "zod";
import * as catalogue from "../../services/catalogue.service";
import * as edits from "../../services/server-edit.service";
import { editImpactView } from "./console.schema";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import { templateInput } from "./catalogue.schema";

export const catalogueRouter = createTRPCRouter({
  list: teamProcedure
    .input(z.object({ cursor: z.string().nullish(), limit: z.number().int().min(1).max(100).default(25) }))
    .query(({ ctx, input }) => catalogue.list({ db: ctx.db, teamId: ctx.team.id, cursor: input.cursor, limit: input.limit })),

  get: teamProcedure
    .input(z.object({ templateId: z.string().min(1) }))
    .query(({ ctx, input }) => catalogue.get({ db: ctx.db, teamId: ctx.team.id, templateId: input.templateId })),

  create: teamAdminProcedure
    .input(z.object({ template: templateInput }))
    .mutation(({ ctx, input }) => catalogue.create({ db: ctx.db, teamId: ctx.team.id, userId: ctx.user.id, input: input.template })),

  /** What saving `update` would do: which installations use the template and how many members it affects. */
  updateImpact: teamAdminProcedure
    .input(z.object({ templateId: z.string().min(1).max(64), template: templateInput }))
    .output(editImpactView)
    .query(({ ctx, input }) => edits.templateEditImpact({ db: ctx.db, teamId: ctx.team.id, templateId: input.templateId, template: input.template })),

  /** Edits a template in place; its installations restart with the new launch and settings schema. */
  update: teamAdminProcedure
    .input(z.object({ templateId: z.string().min(1).max(64), template: templateInput }))
    .output(editImpactView)
    .mutation(({ ctx, input }) => edits.editTemplate({ db: ctx.db, teamId: ctx.team.id, templateId: input.templateId, template: input.template })),

  remove: teamAdminProcedure
    .input(z.object({ templateId: z.string().min(1) }))
    .mutation(async ({ ctx, input }) => {
      await catalogue.remove({ db: ctx.db, teamId: ctx.team.id, templateId: input.templateId });
      return { ok: true };
    }),
});
