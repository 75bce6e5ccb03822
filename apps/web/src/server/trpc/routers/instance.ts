import { z } from "zod";
import * as instances from "../../services/instance.service";
import * as overviews from "../../services/overview.service";
import { createTRPCRouter, teamProcedure } from "../init";
import { id, page, presentedField, statusSchema, valuesInput } from "./console.schema";

const actor = (ctx: { team: { id: string }; user: { id: string }; membership: { role: string } }) => ({
  teamId: ctx.team.id,
  userId: ctx.user.id,
  role: ctx.membership.role,
});

const onInstance = z.object({ instanceId: id });

export const instanceRouter = createTRPCRouter({
  matrix: teamProcedure
    .input(z.object({ ...page, statuses: z.array(statusSchema).max(12).optional(), search: z.string().trim().max(200).optional() }))
    .query(({ ctx, input }) => instances.matrix({ db: ctx.db, actor: actor(ctx), statuses: input.statuses, search: input.search || undefined, cursor: input.cursor, limit: input.limit })),

  /** The team at a glance: totals by status, who needs to act, per-server and per-member counts. */
  overview: teamProcedure.query(({ ctx }) => overviews.overview({ db: ctx.db, actor: actor(ctx) })),

  ofInstallation: teamProcedure
    .input(z.object({ installationId: id, ...page }))
    .query(({ ctx, input }) => instances.ofInstallation({ db: ctx.db, actor: actor(ctx), installationId: input.installationId, cursor: input.cursor, limit: input.limit })),

  get: teamProcedure.input(onInstance).query(({ ctx, input }) => instances.get({ db: ctx.db, actor: actor(ctx), instanceId: input.instanceId })),

  mine: teamProcedure.input(z.object(page)).query(({ ctx, input }) => instances.mine({ db: ctx.db, actor: actor(ctx), cursor: input.cursor, limit: input.limit })),

  mineOf: teamProcedure
    .input(z.object({ installationId: id }))
    .output(z.object({ instance: z.object({ id: z.string(), status: statusSchema }).nullable() }))
    .query(({ ctx, input }) => instances.mineOf({ db: ctx.db, actor: actor(ctx), installationId: input.installationId })),

  saveMyValues: teamProcedure
    .input(z.object({ instanceId: id, ...valuesInput }))
    .output(z.object({ fields: z.array(presentedField) }))
    .mutation(({ ctx, input }) => instances.saveMyValues({ db: ctx.db, actor: actor(ctx), instanceId: input.instanceId, values: input.values, clear: input.clear })),

  myCost: teamProcedure.query(({ ctx }) => instances.myCost({ db: ctx.db, actor: actor(ctx) })),

  tools: teamProcedure
    .input(z.object({ instanceId: id, ...page, search: z.string().trim().max(200).optional() }))
    .query(({ ctx, input }) => instances.tools({ db: ctx.db, actor: actor(ctx), instanceId: input.instanceId, search: input.search || undefined, cursor: input.cursor, limit: input.limit })),

  prompts: teamProcedure
    .input(z.object({ instanceId: id, ...page }))
    .query(({ ctx, input }) => instances.prompts({ db: ctx.db, actor: actor(ctx), instanceId: input.instanceId, cursor: input.cursor, limit: input.limit })),

  toolSchema: teamProcedure
    .input(z.object({ instanceId: id, toolId: id }))
    .query(({ ctx, input }) => instances.toolSchema({ db: ctx.db, actor: actor(ctx), instanceId: input.instanceId, toolId: input.toolId })),

  resources: teamProcedure
    .input(z.object({ instanceId: id, ...page }))
    .query(({ ctx, input }) => instances.resources({ db: ctx.db, actor: actor(ctx), instanceId: input.instanceId, cursor: input.cursor, limit: input.limit })),

  resourceTemplates: teamProcedure
    .input(z.object({ instanceId: id, ...page }))
    .query(({ ctx, input }) => instances.resourceTemplates({ db: ctx.db, actor: actor(ctx), instanceId: input.instanceId, cursor: input.cursor, limit: input.limit })),

  events: teamProcedure
    .input(z.object({ instanceId: id, ...page }))
    .query(({ ctx, input }) => instances.events({ db: ctx.db, actor: actor(ctx), instanceId: input.instanceId, cursor: input.cursor, limit: input.limit })),
});

export { actor as actorOf };
