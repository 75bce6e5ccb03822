import { tracked } from "@trpc/server";
import { z } from "zod";
import { eventPayloadForViewer } from "@switchboard/core/events";
import { isAdminRole } from "@switchboard/db/queries/teams";
import { teamEventStream } from "../../live/event-stream";
import * as ops from "../../services/ops.service";
import * as overviews from "../../services/overview.service";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import { id, page } from "./console.schema";
import { actorOf } from "./instance";

export const opsRouter = createTRPCRouter({
  reconnect: teamProcedure
    .input(z.object({ instanceId: id }))
    .mutation(({ ctx, input }) => ops.reconnect({ db: ctx.db, actor: actorOf(ctx), instanceId: input.instanceId })),

  restart: teamProcedure
    .input(z.object({ instanceId: id }))
    .mutation(({ ctx, input }) => ops.restart({ db: ctx.db, actor: actorOf(ctx), instanceId: input.instanceId })),

  /** Admins: every offline or error instance of the team (or of one installation) tries to reconnect now. */
  reconnectFailing: teamAdminProcedure
    .input(z.object({ installationId: id.optional() }))
    .output(z.object({ count: z.number().int() }))
    .mutation(({ ctx, input }) => overviews.reconnectFailing({ db: ctx.db, actor: actorOf(ctx), installationId: input.installationId })),

  /** Admins: every instance stopped after repeated crashes starts again (crash history cleared). */
  restartStopped: teamAdminProcedure
    .input(z.object({ installationId: id.optional() }))
    .output(z.object({ count: z.number().int() }))
    .mutation(({ ctx, input }) => overviews.restartStopped({ db: ctx.db, actor: actorOf(ctx), installationId: input.installationId })),

  requestLog: teamProcedure
    .input(
      z.object({
        installationId: id,
        ...page,
        outcome: z.enum(["success", "tool_error", "error", "blocked"]).optional(),
        target: z.string().trim().max(200).optional(),
        userId: id.optional(),
      }),
    )
    .query(({ ctx, input }) =>
      ops.requestLog({
        db: ctx.db,
        actor: actorOf(ctx),
        installationId: input.installationId,
        filter: { outcome: input.outcome, target: input.target || undefined, userId: input.userId },
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  /** The whole team's request log (a member: their own calls), filtered by server, member, outcome, target. */
  teamRequestLog: teamProcedure
    .input(
      z.object({
        ...page,
        installationId: id.optional(),
        outcome: z.enum(["success", "tool_error", "error", "blocked"]).optional(),
        target: z.string().trim().max(200).optional(),
        userId: id.optional(),
      }),
    )
    .query(({ ctx, input }) =>
      ops.teamRequestLog({
        db: ctx.db,
        actor: actorOf(ctx),
        filter: { installationId: input.installationId, outcome: input.outcome, target: input.target || undefined, userId: input.userId },
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  requestLogEntry: teamProcedure
    .input(z.object({ callId: id }))
    .query(({ ctx, input }) => ops.requestLogEntry({ db: ctx.db, actor: actorOf(ctx), callId: input.callId })),

  /** The worker's events for this team over SSE; a member only hears about their own instances. */
  live: teamProcedure.subscription(async function* ({ ctx, signal }) {
    const userId = isAdminRole(ctx.membership.role) ? undefined : ctx.user.id;
    let n = 0;
    const admin = userId === undefined;
    for await (const event of teamEventStream({ teamId: ctx.team.id, userId, signal })) {
      // A member's tab hears about their own instances without the admin-only detail (stderr, raw errors).
      const payload = eventPayloadForViewer(event.type, event.payload as Record<string, unknown>, { admin });
      yield tracked(`${Date.now().toString(36)}-${(n++).toString(36)}`, { ...event, payload });
    }
  }),
});
