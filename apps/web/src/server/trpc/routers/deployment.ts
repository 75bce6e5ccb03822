import { z } from "zod";
import * as deployment from "../../services/deployment.service";
import { createTRPCRouter, deploymentOwnerProcedure, protectedProcedure } from "../init";
import * as schema from "./deployment.schema";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";

export const deploymentRouter = createTRPCRouter({
  /** Whether the caller may open the deployment settings (the navigation links them only then). */
  access: protectedProcedure
    .input(z.void())
    .output(schema.deploymentAccess)
    .query(async ({ ctx }) => ({ deploymentOwner: await isDeploymentOwner(ctx.db, ctx.actor.userId) })),

  settings: deploymentOwnerProcedure
    .input(z.void())
    .output(schema.deploymentSettingsOutput)
    .query(({ ctx }) => deployment.getSettings({ db: ctx.db })),

  setSignupMode: deploymentOwnerProcedure
    .input(schema.signupModeInput)
    .output(schema.deploymentSettingsOutput)
    .mutation(({ ctx, input }) => deployment.setSignupMode({ db: ctx.db, actor: ctx.actor, mode: input.mode })),

  /** Host loopback ports sandboxed stdio servers may be given (each installation's admin picks among them). */
  addSandboxLoopbackPort: deploymentOwnerProcedure
    .input(schema.sandboxLoopbackPortInput)
    .output(schema.deploymentSettingsOutput)
    .mutation(({ ctx, input }) =>
      deployment.addSandboxLoopbackPort({ db: ctx.db, actor: ctx.actor, port: input.port }),
    ),

  removeSandboxLoopbackPort: deploymentOwnerProcedure
    .input(schema.sandboxLoopbackPortInput)
    .output(schema.deploymentSettingsOutput)
    .mutation(({ ctx, input }) =>
      deployment.removeSandboxLoopbackPort({ db: ctx.db, actor: ctx.actor, port: input.port }),
    ),

  teams: deploymentOwnerProcedure
    .input(schema.teamsInput)
    .output(schema.deploymentTeamsOutput)
    .query(({ ctx, input }) => deployment.listTeams({ db: ctx.db, cursor: input.cursor, limit: input.limit })),

  setTeamStdio: deploymentOwnerProcedure
    .input(schema.setTeamStdioInput)
    .output(schema.teamStdio)
    .mutation(({ ctx, input }) =>
      deployment.setTeamStdio({ db: ctx.db, teamId: input.teamId, allowed: input.allowed }),
    ),

  owners: deploymentOwnerProcedure
    .input(z.void())
    .output(schema.deploymentOwnersOutput)
    .query(({ ctx }) => deployment.listOwners({ db: ctx.db })),

  addOwner: deploymentOwnerProcedure
    .input(schema.addOwnerInput)
    .output(schema.deploymentOwnersOutput)
    .mutation(({ ctx, input }) => deployment.addOwner({ db: ctx.db, email: input.email })),

  removeOwner: deploymentOwnerProcedure
    .input(schema.removeOwnerInput)
    .output(schema.deploymentOwnersOutput)
    .mutation(({ ctx, input }) => deployment.removeOwner({ db: ctx.db, userId: input.userId })),

  addAllowedCommand: deploymentOwnerProcedure
    .input(schema.allowedCommandEntryInput)
    .output(schema.deploymentSettingsOutput)
    .mutation(({ ctx, input }) => deployment.addAllowedCommand({ db: ctx.db, actor: ctx.actor, entry: input.entry })),

  removeAllowedCommand: deploymentOwnerProcedure
    .input(schema.allowedCommandEntryInput)
    .output(schema.deploymentSettingsOutput)
    .mutation(({ ctx, input }) =>
      deployment.removeAllowedCommand({ db: ctx.db, actor: ctx.actor, entry: input.entry }),
    ),
});
