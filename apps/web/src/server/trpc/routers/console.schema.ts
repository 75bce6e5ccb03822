import { sandboxEnforcementSchema, sandboxSettingsSchema } from "@switchboard/core/sandbox";
import { INSTANCE_STATUSES } from "@switchboard/core/status";
import { z } from "zod";

export const page = { cursor: z.string().nullish(), limit: z.number().int().min(1).max(100).default(25) };
export const id = z.string().min(1).max(64);
/** A list's search box: a piece of a name (or email, slug); blank means everything. */
export const search = z.string().trim().max(100).optional();

export const installSlug = z
  .string()
  .trim()
  .min(2, "Use at least 2 characters.")
  .max(40, "Use at most 40 characters.")
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "Use lowercase letters, digits and single dashes.");

/** Submitted setting values by key. A secret left "" keeps what is stored; `clear` removes values explicitly. */
export const valuesInput = {
  values: z.record(z.string().max(100), z.string().max(4000)).default({}),
  clear: z.array(z.string().max(100)).max(50).default([]),
};

export const statusSchema = z.enum(INSTANCE_STATUSES);

/** A setting as the browser gets it: never a secret in clear (zod drops anything not listed here). */
export const presentedField = z.object({
  key: z.string(),
  label: z.string(),
  description: z.string(),
  type: z.enum(["string", "number", "boolean", "url"]),
  kind: z.enum(["arg", "env", "header", "query"]),
  required: z.boolean(),
  secret: z.boolean(),
  defaultValue: z.string().nullable(),
  set: z.boolean(),
  masked: z.string().nullable(),
});

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
      host: z
        .object({
          mode: z.enum(["on", "off"]),
          available: z.boolean(),
          outbound: z.boolean(),
          reason: z.string().nullable(),
          defaults: z
            .object({
              memoryMb: z.number(),
              processes: z.number(),
              openFiles: z.number(),
              cpuSeconds: z.number(),
              diskMb: z.number().optional(),
              outbound: z.boolean(),
              loopbackPorts: z.array(z.number()),
            })
            .nullable(),
          /** The largest disk quota an admin may set here (the operator's STDIO_SANDBOX_DISK_MAX_MB). */
          maxDiskMb: z.number().nullable(),
          /** What each limit rests on on this host, in a sentence each. */
          enforcement: sandboxEnforcementSchema.nullable(),
        })
        .nullable(),
    })
    .nullable(),
});

/** A pre-registered OAuth client as the admin enters it; an empty secret keeps the stored one (same client id). */
export const oauthClientInput = {
  clientId: z.string().trim().min(1, "Enter the client ID.").max(500),
  clientSecret: z.string().max(2000).optional(),
};

/** The pre-registered client as the browser gets it: the secret only as "set or not". */
export const oauthClientView = z.object({ clientId: z.string().nullable(), secretSet: z.boolean() });

/** What an edit of a server's launch or settings schema does, for the confirmation and the answer. */
export const editImpactView = z.object({
  installations: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      members: z.number().int(),
      awaiting: z.number().int(),
    }),
  ),
  restarting: z.number().int(),
  awaiting: z.number().int(),
  dropped: z.array(z.string()),
  newlyRequired: z.array(z.string()),
  restarts: z.boolean(),
});
