import * as instances from "../../services/instance.service";
import * as overviews from "../../services/overview.service";
import { createTRPCRouter, teamProcedure } from "../init";
import * as schema from "./instance.schema";

export const instanceRouter = createTRPCRouter({
  matrix: teamProcedure
    .input(schema.matrixInput)
    .output(schema.instanceMatrix)
    .query(({ ctx, input }) =>
      instances.matrix({
        db: ctx.db,
        actor: ctx.actor,
        statuses: input.statuses,
        search: input.search || undefined,
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  /** The team at a glance: totals by status, who needs to act, per-server and per-member counts. */
  overview: teamProcedure
    .output(schema.teamOverview)
    .query(({ ctx }) => overviews.overview({ db: ctx.db, actor: ctx.actor })),

  ofInstallation: teamProcedure
    .input(schema.ofInstallationInput)
    .output(schema.instancesOfInstallation)
    .query(({ ctx, input }) =>
      instances.ofInstallation({
        db: ctx.db,
        actor: ctx.actor,
        installationId: input.installationId,
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  get: teamProcedure
    .input(schema.onInstance)
    .output(schema.instanceDetail)
    .query(({ ctx, input }) => instances.get({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId })),

  mine: teamProcedure
    .input(schema.mineInput)
    .output(schema.myInstances)
    .query(({ ctx, input }) =>
      instances.mine({ db: ctx.db, actor: ctx.actor, cursor: input.cursor, limit: input.limit }),
    ),

  mineOf: teamProcedure
    .input(schema.mineOfInput)
    .output(schema.mineOf)
    .query(({ ctx, input }) =>
      instances.mineOf({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  saveMyValues: teamProcedure
    .input(schema.saveMyValuesInput)
    .output(schema.savedMyValues)
    .mutation(({ ctx, input }) =>
      instances.saveMyValues({
        db: ctx.db,
        actor: ctx.actor,
        instanceId: input.instanceId,
        values: input.values,
        clear: input.clear,
      }),
    ),

  myCost: teamProcedure.output(schema.myCost).query(({ ctx }) => instances.myCost({ db: ctx.db, actor: ctx.actor })),

  tools: teamProcedure
    .input(schema.toolsInput)
    .output(schema.toolPage)
    .query(({ ctx, input }) =>
      instances.tools({
        db: ctx.db,
        actor: ctx.actor,
        instanceId: input.instanceId,
        search: input.search || undefined,
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  prompts: teamProcedure
    .input(schema.instancePage)
    .output(schema.promptPage)
    .query(({ ctx, input }) =>
      instances.prompts({
        db: ctx.db,
        actor: ctx.actor,
        instanceId: input.instanceId,
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  toolSchema: teamProcedure
    .input(schema.toolSchemaInput)
    .output(schema.toolSchema)
    .query(({ ctx, input }) =>
      instances.toolSchema({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId, toolId: input.toolId }),
    ),

  resources: teamProcedure
    .input(schema.instancePage)
    .output(schema.resourcePage)
    .query(({ ctx, input }) =>
      instances.resources({
        db: ctx.db,
        actor: ctx.actor,
        instanceId: input.instanceId,
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  resourceTemplates: teamProcedure
    .input(schema.instancePage)
    .output(schema.resourceTemplatePage)
    .query(({ ctx, input }) =>
      instances.resourceTemplates({
        db: ctx.db,
        actor: ctx.actor,
        instanceId: input.instanceId,
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  events: teamProcedure
    .input(schema.instancePage)
    .output(schema.eventPage)
    .query(({ ctx, input }) =>
      instances.events({
        db: ctx.db,
        actor: ctx.actor,
        instanceId: input.instanceId,
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),
});
