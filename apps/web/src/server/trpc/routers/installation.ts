import * as installations from "../../services/installation.service";
import * as oauthClients from "../../services/installation-oauth.service";
import * as edits from "../../services/server-edit.service";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import * as schema from "./installation.schema";
import { editImpactView, ok } from "./shared.schema";

export const installationRouter = createTRPCRouter({
  list: teamProcedure
    .input(schema.listInput)
    .output(schema.installationPage)
    .query(({ ctx, input }) =>
      installations.list({
        db: ctx.db,
        actor: ctx.actor,
        search: input.search,
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  get: teamProcedure
    .input(schema.onInstallation)
    .output(schema.installationView)
    .query(({ ctx, input }) =>
      installations.get({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  create: teamAdminProcedure
    .input(schema.createInput)
    .output(schema.installationView)
    .mutation(({ ctx, input }) =>
      installations.create({
        db: ctx.db,
        actor: ctx.actor,
        input: {
          templateId: input.templateId,
          template: input.template,
          slug: input.slug,
          name: input.name,
          requestLogging: input.requestLogging,
          values: input.values,
          oauthClient: input.oauthClient,
        },
      }),
    ),

  updateTeamValues: teamAdminProcedure
    .input(schema.updateTeamValuesInput)
    .output(schema.installationView)
    .mutation(({ ctx, input }) =>
      installations.updateTeamValues({
        db: ctx.db,
        actor: ctx.actor,
        installationId: input.installationId,
        values: input.values,
        clear: input.clear,
      }),
    ),

  updateSettings: teamAdminProcedure
    .input(schema.updateSettingsInput)
    .output(schema.installationView)
    .mutation(({ ctx, input }) =>
      installations.updateSettings({
        db: ctx.db,
        actor: ctx.actor,
        installationId: input.installationId,
        requestLogging: input.requestLogging,
        name: input.name,
      }),
    ),

  /** The sandbox of a stdio installation's servers; saving restarts its instances under the new settings. */
  updateSandbox: teamAdminProcedure
    .input(schema.updateSandboxInput)
    .output(schema.installationView)
    .mutation(({ ctx, input }) =>
      installations.updateSandbox({
        db: ctx.db,
        actor: ctx.actor,
        installationId: input.installationId,
        settings: input.settings,
      }),
    ),

  /** The pre-registered OAuth client, for admins: its id and whether a secret is stored, never the secret. */
  oauthClient: teamAdminProcedure
    .input(schema.onInstallation)
    .output(schema.oauthClientView)
    .query(({ ctx, input }) =>
      oauthClients.get({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  /** Sets the pre-registered OAuth client (`clientId` null clears it and flows go back to dynamic registration). */
  setOAuthClient: teamAdminProcedure
    .input(schema.setOAuthClientInput)
    .output(schema.oauthClientView)
    .mutation(({ ctx, input }) =>
      oauthClients.set({
        db: ctx.db,
        actor: ctx.actor,
        installationId: input.installationId,
        clientId: input.clientId,
        clientSecret: input.clientSecret,
      }),
    ),

  /** What saving `edit` would do (members restarted, members who must fill in a new setting, other installations). */
  editImpact: teamAdminProcedure
    .input(schema.editInput)
    .output(editImpactView)
    .query(({ ctx, input }) => edits.installationEditImpact({ db: ctx.db, actor: ctx.actor, input })),

  /** Edit in place: name, URL or command and arguments, settings schema and team values; restarts through the worker. */
  edit: teamAdminProcedure
    .input(schema.editInput)
    .output(editImpactView)
    .mutation(({ ctx, input }) => edits.editInstallation({ db: ctx.db, actor: ctx.actor, input })),

  remove: teamAdminProcedure
    .input(schema.onInstallation)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await installations.remove({ db: ctx.db, actor: ctx.actor, installationId: input.installationId });
      return { ok: true as const };
    }),
});
