import { z } from "zod";
import * as catalogue from "../../services/catalogue.service";
import * as edits from "../../services/server-edit.service";
import * as connectionTest from "../../services/connection-test.service";
import { editImpactView } from "./console.schema";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import { templateInput } from "./catalogue.schema";
import { ok, templatePage, templateView } from "./outputs.schema";

export const catalogueRouter = createTRPCRouter({
  list: teamProcedure
    .input(z.object({ cursor: z.string().nullish(), limit: z.number().int().min(1).max(100).default(25) }))
    .output(templatePage)
    .query(({ ctx, input }) =>
      catalogue.list({ db: ctx.db, actor: ctx.actor, cursor: input.cursor, limit: input.limit }),
    ),

  get: teamProcedure
    .input(z.object({ templateId: z.string().min(1) }))
    .output(templateView)
    .query(({ ctx, input }) => catalogue.get({ db: ctx.db, actor: ctx.actor, templateId: input.templateId })),

  create: teamAdminProcedure
    .input(z.object({ template: templateInput }))
    .output(templateView)
    .mutation(({ ctx, input }) => catalogue.create({ db: ctx.db, actor: ctx.actor, input: input.template })),

  /** What saving `update` would do: which installations use the template and how many members it affects. */
  updateImpact: teamAdminProcedure
    .input(z.object({ templateId: z.string().min(1).max(64), template: templateInput }))
    .output(editImpactView)
    .query(({ ctx, input }) =>
      edits.templateEditImpact({
        db: ctx.db,
        actor: ctx.actor,
        templateId: input.templateId,
        template: input.template,
      }),
    ),

  /** Edits a template in place; its installations restart with the new launch and settings schema. */
  update: teamAdminProcedure
    .input(z.object({ templateId: z.string().min(1).max(64), template: templateInput }))
    .output(editImpactView)
    .mutation(({ ctx, input }) =>
      edits.editTemplate({ db: ctx.db, actor: ctx.actor, templateId: input.templateId, template: input.template }),
    ),

  /**
   * Test connection before installing: reach the URL (transport, protocol revision, OAuth) or start the command
   * once in the worker's sandbox, and list the tools. Always an answer within a bounded time.
   */
  testConnection: teamAdminProcedure
    .input(
      z.object({ template: templateInput, values: z.record(z.string().max(100), z.string().max(4000)).default({}) }),
    )
    .output(
      z.object({
        ok: z.boolean(),
        transport: z.enum(["stdio", "streamable_http", "sse"]).nullable(),
        requiresOAuth: z.boolean(),
        protocolVersion: z.string().nullable(),
        serverName: z.string().nullable(),
        serverVersion: z.string().nullable(),
        toolCount: z.number().int(),
        totalTokens: z.number().int(),
        message: z.string(),
        detail: z.string().nullable(),
      }),
    )
    .mutation(({ ctx, input }) =>
      connectionTest.testDraft({ db: ctx.db, teamId: ctx.team.id, template: input.template, values: input.values }),
    ),

  remove: teamAdminProcedure
    .input(z.object({ templateId: z.string().min(1) }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await catalogue.remove({ db: ctx.db, actor: ctx.actor, templateId: input.templateId });
      return { ok: true as const };
    }),
});
