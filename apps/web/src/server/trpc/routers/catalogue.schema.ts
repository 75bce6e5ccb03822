import { z } from "zod";
import { paged, templateInput, transport } from "./shared.schema";

/** The catalogue router's inputs and answers: the team's server templates and testing a draft's connection. */

// --- inputs ----------------------------------------------------------------------------------------------------------

export const listInput = z.object({
  cursor: z.string().nullish(),
  limit: z.number().int().min(1).max(100).default(25),
});
export const templateIdInput = z.object({ templateId: z.string().min(1) });
export const createInput = z.object({ template: templateInput });
export const updateInput = z.object({ templateId: z.string().min(1).max(64), template: templateInput });
export const testConnectionInput = z.object({
  template: templateInput,
  values: z.record(z.string().max(100), z.string().max(4000)).default({}),
});

// --- answers ---------------------------------------------------------------------------------------------------------

export const templateView = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  transport,
  command: z.string().nullable(),
  args: z.array(z.string()),
  url: z.string().nullable(),
  oauth: z.boolean(),
  installationCount: z.number(),
  installations: z.array(z.object({ id: z.string(), name: z.string(), slug: z.string() })),
  createdAt: z.date(),
  fields: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      tier: z.enum(["team", "user"]),
      kind: z.enum(["arg", "env", "header", "query"]),
      type: z.enum(["string", "number", "boolean", "url"]),
      required: z.boolean(),
      secret: z.boolean(),
      defaultValue: z.string().nullable(),
      description: z.string(),
      optionValues: z.enum(["refuse", "after_separator"]),
    }),
  ),
});
export const templatePage = paged(templateView);

export const connectionTestResult = z.object({
  ok: z.boolean(),
  transport: z.enum(["stdio", "streamable_http", "sse"]).nullable(),
  requiresOAuth: z.boolean(),
  protocolVersion: z.string().nullable(),
  serverName: z.string().nullable(),
  serverVersion: z.string().nullable(),
  toolCount: z.number().int(),
  totalTokens: z.number().int(),
  message: z.string(),
  detail: z.string().nullable(),
});
