import * as catalogue from "../../services/catalogue.service";
import * as edits from "../../services/server-edit.service";
import * as connectionTest from "../../services/connection-test.service";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import * as schema from "./catalogue.schema";
import { editImpactView, ok } from "./shared.schema";

export const catalogueRouter = createTRPCRouter({
  list: teamProcedure
    .input(schema.listInput)
    .output(schema.templatePage)
    .query(({ ctx, input }) =>
      catalogue.list({ db: ctx.db, actor: ctx.actor, cursor: input.cursor, limit: input.limit }),
    ),

  get: teamProcedure
    .input(schema.templateIdInput)
    .output(schema.templateView)
    .query(({ ctx, input }) => catalogue.get({ db: ctx.db, actor: ctx.actor, templateId: input.templateId })),

  create: teamAdminProcedure
    .input(schema.createInput)
    .output(schema.templateView)
    .mutation(({ ctx, input }) => catalogue.create({ db: ctx.db, actor: ctx.actor, input: input.template })),

  /** What saving `update` would do: which installations use the template and how many members it affects. */
  updateImpact: teamAdminProcedure
    .input(schema.updateInput)
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
    .input(schema.updateInput)
    .output(editImpactView)
    .mutation(({ ctx, input }) =>
      edits.editTemplate({ db: ctx.db, actor: ctx.actor, templateId: input.templateId, template: input.template }),
    ),

  /**
   * Test connection before installing: reach the URL (transport, protocol revision, OAuth) or start the command
   * once in the worker's sandbox, and list the tools. Always an answer within a bounded time.
   */
  testConnection: teamAdminProcedure
    .input(schema.testConnectionInput)
    .output(schema.connectionTestResult)
    .mutation(({ ctx, input }) =>
      connectionTest.testDraft({ db: ctx.db, teamId: ctx.team.id, template: input.template, values: input.values }),
    ),

  remove: teamAdminProcedure
    .input(schema.templateIdInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await catalogue.remove({ db: ctx.db, actor: ctx.actor, templateId: input.templateId });
      return { ok: true as const };
    }),
});
