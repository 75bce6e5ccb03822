import * as activity from "../../services/activity.service";
import { createTRPCRouter, teamProcedure } from "../init";
import { activityDashboardOutput, dashboardInput, memberUsageOutput, usageInput } from "./activity.schema";

/** The activity dashboard and usage per member, read from the worker's roll-ups. Admins: the team; members: their own. */
export const activityRouter = createTRPCRouter({
  dashboard: teamProcedure
    .input(dashboardInput)
    .output(activityDashboardOutput)
    .query(({ ctx, input }) => activity.activityDashboard({ db: ctx.db, actor: ctx.actor, range: input.range })),

  usage: teamProcedure
    .input(usageInput)
    .output(memberUsageOutput)
    .query(({ ctx, input }) => activity.memberUsage({ db: ctx.db, actor: ctx.actor, days: input.days })),
});
