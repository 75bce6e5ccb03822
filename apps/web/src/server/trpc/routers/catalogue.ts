import { z } from "zod";
import * as catalogue from "../../services/catalogue.service";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import { templateInput } from "./catalogue.schema";
import { ok, templatePage, templateView } from "./outputs.schema";

export const catalogueRouter = createTRPCRouter({
  list: teamProcedure
    .input(z.object({ cursor: z.string().nullish(), limit: z.number().int().min(1).max(100).default(25) }))
    .output(templatePage)
    .query(({ ctx, input }) => catalogue.list({ db: ctx.db, actor: ctx.actor, cursor: input.cursor, limit: input.limit })),

  get: teamProcedure
    .input(z.object({ templateId: z.string().min(1) }))
    .output(templateView)
    .query(({ ctx, input }) => catalogue.get({ db: ctx.db, actor: ctx.actor, templateId: input.templateId })),

  create: teamAdminProcedure
    .input(z.object({ template: templateInput }))
    .output(templateView)
    .mutation(({ ctx, input }) => catalogue.create({ db: ctx.db, actor: ctx.actor, input: input.template })),

  remove: teamAdminProcedure
    .input(z.object({ templateId: z.string().min(1) }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await catalogue.remove({ db: ctx.db, actor: ctx.actor, templateId: input.templateId });
      return { ok: true as const };
    }),
});
