import { z } from "zod";
import * as instances from "../../services/instance.service";
import * as overviews from "../../services/overview.service";
import { createTRPCRouter, teamProcedure } from "../init";
import { id, page, presentedField, statusSchema, valuesInput } from "./console.schema";
import {
  eventPage,
  instanceDetail,
  instanceMatrix,
  instancesOfInstallation,
  myCost,
  myInstances,
  promptPage,
  resourcePage,
  resourceTemplatePage,
  teamOverview,
  toolPage,
  toolSchema,
} from "./outputs.schema";

const onInstance = z.object({ instanceId: id });

export const instanceRouter = createTRPCRouter({
  matrix: teamProcedure
    .input(
      z.object({
        ...page,
        statuses: z.array(statusSchema).max(12).optional(),
        search: z.string().trim().max(200).optional(),
      }),
    )
    .output(instanceMatrix)
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
  overview: teamProcedure.output(teamOverview).query(({ ctx }) => overviews.overview({ db: ctx.db, actor: ctx.actor })),

  ofInstallation: teamProcedure
    .input(z.object({ installationId: id, ...page }))
    .output(instancesOfInstallation)
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
    .input(onInstance)
    .output(instanceDetail)
    .query(({ ctx, input }) => instances.get({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId })),

  mine: teamProcedure
    .input(z.object(page))
    .output(myInstances)
    .query(({ ctx, input }) =>
      instances.mine({ db: ctx.db, actor: ctx.actor, cursor: input.cursor, limit: input.limit }),
    ),

  mineOf: teamProcedure
    .input(z.object({ installationId: id }))
    .output(z.object({ instance: z.object({ id: z.string(), status: statusSchema }).nullable() }))
    .query(({ ctx, input }) =>
      instances.mineOf({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  saveMyValues: teamProcedure
    .input(z.object({ instanceId: id, ...valuesInput }))
    .output(z.object({ fields: z.array(presentedField) }))
    .mutation(({ ctx, input }) =>
      instances.saveMyValues({
        db: ctx.db,
        actor: ctx.actor,
        instanceId: input.instanceId,
        values: input.values,
        clear: input.clear,
      }),
    ),

  myCost: teamProcedure.output(myCost).query(({ ctx }) => instances.myCost({ db: ctx.db, actor: ctx.actor })),

  tools: teamProcedure
    .input(z.object({ instanceId: id, ...page, search: z.string().trim().max(200).optional() }))
    .output(toolPage)
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
    .input(z.object({ instanceId: id, ...page }))
    .output(promptPage)
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
    .input(z.object({ instanceId: id, toolId: id }))
    .output(toolSchema)
    .query(({ ctx, input }) =>
      instances.toolSchema({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId, toolId: input.toolId }),
    ),

  resources: teamProcedure
    .input(z.object({ instanceId: id, ...page }))
    .output(resourcePage)
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
    .input(z.object({ instanceId: id, ...page }))
    .output(resourceTemplatePage)
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
    .input(z.object({ instanceId: id, ...page }))
    .output(eventPage)
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
