import { z } from "zod";

/** The registry router's inputs and answers: a server definition drafted from a preset, a document or a registry. */

export const draftField = z.object({
  key: z.string(),
  label: z.string(),
  tier: z.enum(["team", "user"]),
  kind: z.enum(["arg", "env", "header", "query"]),
  type: z.enum(["string", "number", "boolean", "url"]),
  required: z.boolean(),
  secret: z.boolean(),
  defaultValue: z.string().optional(),
  description: z.string(),
});
export const draft = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  transport: z.enum(["stdio", "sse", "streamable_http"]),
  command: z.string().optional(),
  args: z.array(z.string()),
  url: z.string().optional(),
  oauth: z.boolean(),
  fields: z.array(draftField),
});
export const imported = z.object({ draft, notes: z.array(z.string()) });
export const presets = z.array(z.object({ id: z.string(), draft }));

export const importDocumentInput = z.object({
  document: z
    .string()
    .min(2)
    .max(512 * 1024),
});
export const importFromRegistryInput = z.object({
  baseUrl: z.url().max(2000),
  name: z.string().trim().min(1).max(200),
});
