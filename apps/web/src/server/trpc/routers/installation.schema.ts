import { sandboxSettingsSchema, sandboxStatusReportSchema as sandboxReport } from "@switchboard/core/sandbox";
import { z } from "zod";
import { id, page, presentedField, search, statusSchema, templateInput, transport, valuesInput } from "./shared.schema";

/** The installation router's inputs and answers: the team's installed servers, their settings and sandbox. */

// --- inputs ----------------------------------------------------------------------------------------------------------

export const installSlug = z
  .string()
  .trim()
  .min(2, "Use at least 2 characters.")
  .max(40, "Use at most 40 characters.")
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "Use lowercase letters, digits and single dashes.");

/** A pre-registered OAuth client as the admin enters it; an empty secret keeps the stored one (same client id). */
export const oauthClientInput = {
  clientId: z.string().trim().min(1, "Enter the client ID.").max(500),
  clientSecret: z.string().max(2000).optional(),
};

/** The pre-registered client as the browser gets it: the secret only as "set or not". */
export const oauthClientView = z.object({ clientId: z.string().nullable(), secretSet: z.boolean() });

export const listInput = z.object({ ...page, search });
export const onInstallation = z.object({ installationId: id });
export const createInput = z
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
  });
export const updateTeamValuesInput = z.object({ installationId: id, ...valuesInput });
export const updateSettingsInput = z.object({
  installationId: id,
  requestLogging: z.boolean().optional(),
  name: z.string().trim().min(2).max(80).optional(),
});
export const updateSandboxInput = z.object({ installationId: id, settings: sandboxSettingsSchema });
export const setOAuthClientInput = z.object({
  installationId: id,
  clientId: oauthClientInput.clientId.nullable(),
  clientSecret: oauthClientInput.clientSecret,
});
export const editInput = z.object({
  installationId: id,
  name: z.string().trim().min(2, "Give the server a name.").max(80),
  template: templateInput,
  ...valuesInput,
});

// --- answers ---------------------------------------------------------------------------------------------------------

export const installationView = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  requestLogging: z.boolean(),
  createdAt: z.date(),
  instanceCount: z.number(),
  template: z.object({
    id: z.string(),
    name: z.string(),
    transport: z.enum(["stdio", "sse", "streamable_http"]),
    oauth: z.boolean(),
    target: z.string(),
  }),
  teamFields: z.array(presentedField),
  memberFields: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      required: z.boolean(),
      secret: z.boolean(),
      description: z.string(),
    }),
  ),
  /** Stdio installations only: the admin's sandbox settings and how the worker runs stdio servers. */
  sandbox: z
    .object({
      settings: sandboxSettingsSchema,
      /** Host loopback ports the admin may pick (the deployment's), and listed ones a launch would not grant. */
      loopback: z.object({
        allowed: z.array(z.number()),
        notInEffect: z.array(z.object({ port: z.number(), reason: z.string() })),
      }),
      /** The worker's report as the page reads it: what the report leaves out is null here. */
      host: z
        .object({
          ...sandboxReport.pick({ mode: true, available: true, outbound: true }).shape,
          reason: sandboxReport.shape.reason.unwrap().nullable(),
          defaults: sandboxReport.shape.defaults.unwrap().nullable(),
          /** The largest disk quota an admin may set here (the operator's STDIO_SANDBOX_DISK_MAX_MB). */
          maxDiskMb: sandboxReport.shape.maxDiskMb.unwrap().nullable(),
          /** What each limit rests on on this host, in a sentence each. */
          enforcement: sandboxReport.shape.enforcement.unwrap().nullable(),
        })
        .nullable(),
    })
    .nullable(),
});

export const installationPage = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      slug: z.string(),
      name: z.string(),
      requestLogging: z.boolean(),
      createdAt: z.date(),
      template: z.object({ id: z.string(), name: z.string(), transport }),
      statusCounts: z.record(z.string(), z.number()),
      /** The caller's own instance's status (null: none yet). */
      ownStatus: statusSchema.nullable(),
      instanceCount: z.number(),
    }),
  ),
  nextCursor: z.string().nullable(),
  /** How the worker runs stdio servers, when the team has a stdio installation. */
  sandbox: sandboxReport.pick({ mode: true, available: true }).nullable(),
});
