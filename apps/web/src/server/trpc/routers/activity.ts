import { z } from "zod";
import * as activity from "../../services/activity.service";
import { createTRPCRouter, teamProcedure } from "../init";
import { activityDashboardOutput, memberUsageOutput } from "./activity.schema";

/** The activity dashboard and usage per member, read from the worker's roll-ups. Admins: the team; members: their own. */
export const activityRouter = createTRPCRouter({
  dashboard: teamProcedure
    .input(z.object({ range: z.enum(["hour", "day", "week"]) }))
    .output(activityDashboardOutput)
    .query(({ ctx, input }) => activity.activityDashboard({ db: ctx.db, actor: ctx.actor, range: input.range })),

  usage: teamProcedure
    .input(z.object({ days: z.number().int().min(1).max(90).default(7) }))
    .output(memberUsageOutput)
    .query(({ ctx, input }) => activity.memberUsage({ db: ctx.db, actor: ctx.actor, days: input.days })),
});
