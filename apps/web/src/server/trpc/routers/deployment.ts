import { z } from "zod";
import * as deployment from "../../services/deployment.service";
import { createTRPCRouter, deploymentOwnerProcedure, protectedProcedure } from "../init";
import {
  allowedCommandInput,
  deploymentOwnersOutput,
  deploymentSettingsOutput,
  deploymentTeamsOutput,
  sandboxLoopbackPortInput,
  signupModeSchema,
} from "./deployment.schema";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";

export const deploymentRouter = createTRPCRouter({
  /** Whether the caller may open the deployment settings (the navigation links them only then). */
  access: protectedProcedure
    .input(z.void())
    .output(z.object({ deploymentOwner: z.boolean() }))
    .query(async ({ ctx }) => ({ deploymentOwner: await isDeploymentOwner(ctx.db, ctx.actor.userId) })),

  settings: deploymentOwnerProcedure
    .input(z.void())
    .output(deploymentSettingsOutput)
    .query(({ ctx }) => deployment.getSettings({ db: ctx.db })),

  setSignupMode: deploymentOwnerProcedure
    .input(z.object({ mode: signupModeSchema }))
    .output(deploymentSettingsOutput)
    .mutation(({ ctx, input }) => deployment.setSignupMode({ db: ctx.db, actor: ctx.actor, mode: input.mode })),

  /** Host loopback ports sandboxed stdio servers may be given (each installation's admin picks among them). */
  addSandboxLoopbackPort: deploymentOwnerProcedure
    .input(sandboxLoopbackPortInput)
    .output(deploymentSettingsOutput)
    .mutation(({ ctx, input }) =>
      deployment.addSandboxLoopbackPort({ db: ctx.db, actor: ctx.actor, port: input.port }),
    ),

  removeSandboxLoopbackPort: deploymentOwnerProcedure
    .input(sandboxLoopbackPortInput)
    .output(deploymentSettingsOutput)
    .mutation(({ ctx, input }) =>
      deployment.removeSandboxLoopbackPort({ db: ctx.db, actor: ctx.actor, port: input.port }),
    ),

  teams: deploymentOwnerProcedure
    .input(z.object({ cursor: z.string().nullish(), limit: z.number().int().min(1).max(100).default(50) }))
    .output(deploymentTeamsOutput)
    .query(({ ctx, input }) => deployment.listTeams({ db: ctx.db, cursor: input.cursor, limit: input.limit })),

  setTeamStdio: deploymentOwnerProcedure
    .input(z.object({ teamId: z.string().min(1).max(64), allowed: z.boolean() }))
    .output(z.object({ teamId: z.string(), stdioAllowed: z.boolean() }))
    .mutation(({ ctx, input }) =>
      deployment.setTeamStdio({ db: ctx.db, teamId: input.teamId, allowed: input.allowed }),
    ),

  owners: deploymentOwnerProcedure
    .input(z.void())
    .output(deploymentOwnersOutput)
    .query(({ ctx }) => deployment.listOwners({ db: ctx.db })),

  addOwner: deploymentOwnerProcedure
    .input(z.object({ email: z.email("Enter a valid email address.").transform((e) => e.toLowerCase()) }))
    .output(deploymentOwnersOutput)
    .mutation(({ ctx, input }) => deployment.addOwner({ db: ctx.db, email: input.email })),

  removeOwner: deploymentOwnerProcedure
    .input(z.object({ userId: z.string().min(1).max(64) }))
    .output(deploymentOwnersOutput)
    .mutation(({ ctx, input }) => deployment.removeOwner({ db: ctx.db, userId: input.userId })),

  addAllowedCommand: deploymentOwnerProcedure
    .input(z.object({ entry: allowedCommandInput }))
    .output(deploymentSettingsOutput)
    .mutation(({ ctx, input }) => deployment.addAllowedCommand({ db: ctx.db, actor: ctx.actor, entry: input.entry })),

  removeAllowedCommand: deploymentOwnerProcedure
    .input(z.object({ entry: allowedCommandInput }))
    .output(deploymentSettingsOutput)
    .mutation(({ ctx, input }) =>
      deployment.removeAllowedCommand({ db: ctx.db, actor: ctx.actor, entry: input.entry }),
    ),
});
