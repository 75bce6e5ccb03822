import { tracked } from "@trpc/server";
import { eventPayloadForViewer } from "@switchboard/core/events";
import { memberScope } from "@switchboard/core/accounts";
import { teamCallStream, teamEventStream } from "../../live/event-stream";
import * as ops from "../../services/ops.service";
import * as overviews from "../../services/overview.service";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import * as schema from "./ops.schema";

export const opsRouter = createTRPCRouter({
  reconnect: teamProcedure
    .input(schema.onInstance)
    .output(schema.actionQueued)
    .mutation(({ ctx, input }) => ops.reconnect({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId })),

  restart: teamProcedure
    .input(schema.onInstance)
    .output(schema.actionQueued)
    .mutation(({ ctx, input }) => ops.restart({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId })),

  /** Admins: every offline or error instance of the team (or of one installation) tries to reconnect now. */
  reconnectFailing: teamAdminProcedure
    .input(schema.bulkInput)
    .output(schema.bulkCount)
    .mutation(({ ctx, input }) =>
      overviews.reconnectFailing({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  /** Admins: every instance stopped after repeated crashes starts again (crash history cleared). */
  restartStopped: teamAdminProcedure
    .input(schema.bulkInput)
    .output(schema.bulkCount)
    .mutation(({ ctx, input }) =>
      overviews.restartStopped({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  /**
   * The whole team's request log (a member: their own calls), filtered by server, member, outcome, name and time
   * range, with the total of every match.
   */
  teamRequestLog: teamProcedure
    .input(schema.teamRequestLogInput)
    .output(schema.requestLogPage)
    .query(({ ctx, input }) =>
      ops.teamRequestLog({
        db: ctx.db,
        actor: ctx.actor,
        filter: {
          installationId: input.installationId,
          outcome: input.outcome,
          target: input.target || undefined,
          userId: input.userId,
          range: input.range,
        },
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  requestLogEntry: teamProcedure
    .input(schema.requestLogEntryInput)
    .output(schema.requestLogEntry)
    .query(({ ctx, input }) => ops.requestLogEntry({ db: ctx.db, actor: ctx.actor, callId: input.callId })),

  /**
   * The worker's events for this team over SSE; a member only hears about their own instances. A subscription
   * has no output schema in tRPC: each event is shaped by core's eventPayloadForViewer.
   */
  live: teamProcedure.subscription(async function* ({ ctx, signal }) {
    const userId = memberScope(ctx.actor);
    let n = 0;
    const admin = userId === undefined;
    for await (const event of teamEventStream({ teamId: ctx.actor.teamId, userId, signal })) {
      // A member's tab hears about their own instances without the admin-only detail (stderr, raw errors).
      const payload = eventPayloadForViewer(event.type, event.payload as Record<string, unknown>, { admin });
      yield tracked(`${Date.now().toString(36)}-${(n++).toString(36)}`, { ...event, payload });
    }
  }),

  /**
   * "Your request log has new rows" over SSE, as the gateway writes them: installation ids and a count, never a
   * call's content; the tab then refetches through `teamRequestLog`. A member only hears of their own calls.
   */
  requestLogLive: teamProcedure.subscription(async function* ({ ctx, signal }) {
    const userId = memberScope(ctx.actor);
    let n = 0;
    for await (const calls of teamCallStream({ teamId: ctx.actor.teamId, userId, signal })) {
      yield tracked(`${Date.now().toString(36)}-${(n++).toString(36)}`, calls);
    }
  }),
});
