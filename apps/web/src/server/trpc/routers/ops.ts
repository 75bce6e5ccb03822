import { tracked } from "@trpc/server";
import { z } from "zod";
import { eventPayloadForViewer } from "@switchboard/core/events";
import { isTeamAdminRole } from "@switchboard/core/accounts";
import { teamEventStream } from "../../live/event-stream";
import * as ops from "../../services/ops.service";
import { createTRPCRouter, teamProcedure } from "../init";
import { id, page } from "./console.schema";
import { queued, requestLogEntry, requestLogPage } from "./outputs.schema";

export const opsRouter = createTRPCRouter({
  reconnect: teamProcedure
    .input(z.object({ instanceId: id }))
    .output(queued)
    .mutation(({ ctx, input }) => ops.reconnect({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId })),

  restart: teamProcedure
    .input(z.object({ instanceId: id }))
    .output(queued)
    .mutation(({ ctx, input }) => ops.restart({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId })),

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
    .output(requestLogPage)
    .query(({ ctx, input }) =>
      ops.requestLog({
        db: ctx.db,
        actor: ctx.actor,
        installationId: input.installationId,
        filter: { outcome: input.outcome, target: input.target || undefined, userId: input.userId },
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  requestLogEntry: teamProcedure
    .input(z.object({ callId: id }))
    .output(requestLogEntry)
    .query(({ ctx, input }) => ops.requestLogEntry({ db: ctx.db, actor: ctx.actor, callId: input.callId })),

  /**
   * The worker's events for this team over SSE; a member only hears about their own instances. A subscription
   * has no output schema in tRPC: each event is shaped by core's eventPayloadForViewer.
   */
  live: teamProcedure.subscription(async function* ({ ctx, signal }) {
    const userId = isTeamAdminRole(ctx.actor.role) ? undefined : ctx.actor.userId;
    let n = 0;
    const admin = userId === undefined;
    for await (const event of teamEventStream({ teamId: ctx.actor.teamId, userId, signal })) {
      // A member's tab hears about their own instances without the admin-only detail (stderr, raw errors).
      const payload = eventPayloadForViewer(event.type, event.payload as Record<string, unknown>, { admin });
      yield tracked(`${Date.now().toString(36)}-${(n++).toString(36)}`, { ...event, payload });
    }
  }),
});
