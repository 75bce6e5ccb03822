import { z } from "zod";
import { sandboxSettingsSchema } from "@switchboard/core/sandbox";
import * as installations from "../../services/installation.service";
import * as oauthClients from "../../services/installation-oauth.service";
import * as edits from "../../services/server-edit.service";
import { templateInput } from "./catalogue.schema";
import { createTRPCRouter, teamAdminProcedure, teamProcedure } from "../init";
import {
  editImpactView,
  id,
  installSlug,
  installationView,
  oauthClientInput,
  oauthClientView,
  page,
  search,
  valuesInput,
} from "./console.schema";
import { installationPage, ok } from "./outputs.schema";

export const installationRouter = createTRPCRouter({
  list: teamProcedure
    .input(z.object({ ...page, search }))
    .output(installationPage)
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
    .input(z.object({ installationId: id }))
    .output(installationView)
    .query(({ ctx, input }) =>
      installations.get({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  create: teamAdminProcedure
    .input(
      z
        .object({
          /** A catalogue template, or `template`: a new definition saved to the catalogue only if the install works. */
          templateId: id.optional(),
          template: templateInput.optional(),
          slug: installSlug,
          name: z.string().trim().min(2, "Give the server a name.").max(80),
          requestLogging: z.boolean().default(true),
          values: valuesInput.values,
          /** An OAuth template's pre-registered client; without it members' flows register one dynamically. */
          oauthClient: z.object(oauthClientInput).optional(),
        })
        .refine((i) => (i.templateId === undefined) !== (i.template === undefined), {
          message: "Choose a server from the catalogue or define one.",
          path: ["templateId"],
        }),
    )
    .output(installationView)
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
    .input(z.object({ installationId: id, ...valuesInput }))
    .output(installationView)
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
    .input(
      z.object({
        installationId: id,
        requestLogging: z.boolean().optional(),
        name: z.string().trim().min(2).max(80).optional(),
      }),
    )
    .output(installationView)
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
    .input(z.object({ installationId: id, settings: sandboxSettingsSchema }))
    .output(installationView)
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
    .input(z.object({ installationId: id }))
    .output(oauthClientView)
    .query(({ ctx, input }) =>
      oauthClients.get({ db: ctx.db, actor: ctx.actor, installationId: input.installationId }),
    ),

  /** Sets the pre-registered OAuth client (`clientId` null clears it and flows go back to dynamic registration). */
  setOAuthClient: teamAdminProcedure
    .input(
      z.object({
        installationId: id,
        clientId: oauthClientInput.clientId.nullable(),
        clientSecret: oauthClientInput.clientSecret,
      }),
    )
    .output(oauthClientView)
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
    .input(editInput())
    .output(editImpactView)
    .query(({ ctx, input }) => edits.installationEditImpact({ db: ctx.db, actor: ctx.actor, input })),

  /** Edit in place: name, URL or command and arguments, settings schema and team values; restarts through the worker. */
  edit: teamAdminProcedure
    .input(editInput())
    .output(editImpactView)
    .mutation(({ ctx, input }) => edits.editInstallation({ db: ctx.db, actor: ctx.actor, input })),

  remove: teamAdminProcedure
    .input(z.object({ installationId: id }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await installations.remove({ db: ctx.db, actor: ctx.actor, installationId: input.installationId });
      return { ok: true as const };
    }),
});

function editInput() {
  return z.object({
    installationId: id,
    name: z.string().trim().min(2, "Give the server a name.").max(80),
    template: templateInput,
    ...valuesInput,
  });
}
